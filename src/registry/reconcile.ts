// Reconciliation: each item compared by chaveRegistro with what the caller registered (matched,
// diverging with the fields named, or unknown), read and recorded in one IMMEDIATE transaction.
import type { Static } from '@fastify/type-provider-typebox';
import { toIsoUtc } from '../domain/dates.js';
import type { ReconciliationItemRow } from '../store/registry.js';
import { exactCopy, stringifyExact } from '../http/exact-numbers.js';
import { plural } from '../domain/plural.js';
import { examine } from './checks.js';
import { compareWithRegistration, type HeldFields } from './documents.js';
import { documentsReconciled } from './events.js';
import { outcome } from './outcomes.js';
import type { RegistryContext, RegistryResult } from './register.js';
import type { ReconcileBody, ReconcileResponse } from './schemas.js';

export function reconcileDocuments(
  body: ReconcileBody,
  ctx: RegistryContext,
): RegistryResult<Static<typeof ReconcileResponse>> & { counts: Record<'matched' | 'diverging' | 'unknown', number> } {
  const { store, ids, participantId } = ctx;
  const { registros } = body;
  const { digests, warnings } = examine(registros, ctx.strict);

  const { result, items } = store.transaction(
    () => {
      const reconciliationKey = ids.newId('CC');
      const counts = { matched: 0, diverging: 0, unknown: 0 };
      const items: ReconciliationItemRow[] = registros.map((item, i) => {
        // What the participant reported, as sent (a statusPagamento of 1E+0 stays so: http/exact-numbers.ts).
        const sent = exactCopy(item) as Record<string, unknown>;
        const reported = {
          cancelado: sent.cancelado,
          dataCancelamento: sent.dataCancelamento,
          motivoCancelamento: sent.motivoCancelamento,
          statusPagamento: sent.statusPagamento,
        };
        const base = { reconciliationKey, itemIndex: i, reported: stringifyExact(reported) };
        const key = item.chaveRegistro;
        const held =
          key === undefined ? undefined : store.registry.participantDocument(key, participantId);
        if (key === undefined || held === undefined) {
          counts.unknown++;
          return {
            ...base,
            registryKey: key ?? null,
            result: 'unknown',
            message:
              key === undefined
                ? 'the item has no chaveRegistro: there is no registration to compare it with'
                : 'no registration of this participant has this chaveRegistro',
            divergences: '[]',
          };
        }
        const fields = JSON.parse(held.fields) as HeldFields;
        const divergences = compareWithRegistration(fields, held.registrationDate, item, digests[i]);
        const matched = divergences.length === 0;
        counts[matched ? 'matched' : 'diverging']++;
        return {
          ...base,
          registryKey: key,
          result: matched ? 'matched' : 'diverging',
          message: matched
            ? 'every field sent equals the registration'
            : `${plural(divergences.length, 'field')} ${divergences.length === 1 ? 'differs' : 'differ'} from the registration: ${divergences.map((d) => d.field).join(', ')}`,
          // Amounts a double would change are written digit for digit (read back by parseStoredJson).
          divergences: stringifyExact(divergences),
        };
      });

      store.registry.insertReconciliation(
        {
          reconciliationKey,
          participantId,
          reconciledAt: toIsoUtc(ctx.now),
          itemCount: items.length,
          ...counts,
          warnings: JSON.stringify(warnings),
        },
        items,
      );
      const result = {
        counts,
        warnings: warnings.length,
        outcome: outcome(
          counts.unknown > 0
            ? 'reconciled-with-unknown'
            : counts.diverging > 0
              ? 'reconciled-with-divergences'
              : 'reconciled-matched',
        ),
        response: {
          mensagem: `${plural(items.length, 'document')} reconciled: ${counts.matched} matched, ${counts.diverging} diverging, ${counts.unknown} unknown`,
          chaveConciliacao: reconciliationKey,
        },
      };
      return { result, items };
    },
    { immediate: true },
  );
  documentsReconciled(ctx.events, participantId, items);
  return result;
}
