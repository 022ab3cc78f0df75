// Registration of a batch (remessa): the domain checks of every document, then one transaction that
// stores the batch and all its documents, or nothing.
import type { Static } from '@fastify/type-provider-typebox';
import { toIsoDate, toIsoUtc } from '../domain/dates.js';
import type { EventSink } from '../runtime/events.js';
import type { Ids } from '../runtime/ids.js';
import type { Store } from '../store/index.js';
import type { DocumentRow } from '../store/registry.js';
import { plural } from '../domain/plural.js';
import { examine } from './checks.js';
import { toHeld } from './documents.js';
import { stringifyExact } from '../http/exact-numbers.js';
import { documentsRegistered } from './events.js';
import { outcome, type RegistryOutcome } from './outcomes.js';
import type { RegisterBody, RegisterResponse } from './schemas.js';

export interface RegistryContext {
  store: Store;
  ids: Ids;
  now: Date;
  strict: boolean;
  /** The participant the bearer token belongs to. */
  participantId: string;
  /** Where what was committed is reported. */
  events: EventSink;
}

export interface RegistryResult<R> {
  response: R;
  /** Domain warnings found (the Sandbox-Warnings count). */
  warnings: number;
  /** The outcome slug of this answer (registry/outcomes.ts). */
  outcome: RegistryOutcome;
}

export function registerDocuments(body: RegisterBody, ctx: RegistryContext): RegistryResult<Static<typeof RegisterResponse>> {
  const { store, ids, participantId } = ctx;
  const { registros } = body;
  const { digests, warnings } = examine(registros, ctx.strict);

  const registeredAt = toIsoUtc(ctx.now);
  const registrationDate = toIsoDate(ctx.now);
  const batchKey = ids.newId('RM');
  const documents: DocumentRow[] = registros.map((doc, i) => ({
    registryKey: ids.newId('RG'),
    batchKey,
    itemIndex: i,
    participantId,
    registeredAt,
    registrationDate,
    fields: stringifyExact(toHeld(doc, digests[i])),
  }));
  store.transaction(() =>
    store.registry.insertBatch(
      {
        batchKey,
        participantId,
        registeredAt,
        registrationDate,
        documentCount: documents.length,
        warnings: JSON.stringify(warnings),
      },
      documents,
    ),
  );
  documentsRegistered(ctx.events, documents);
  return {
    warnings: warnings.length,
    outcome: outcome(warnings.length > 0 ? 'registered-with-warnings' : 'registered'),
    response: { mensagem: `${plural(documents.length, 'document')} registered`, chaveRemessa: batchKey },
  };
}
