// Model-based testing of the sandbox: fast-check generates sequences of control calls and
// documented operations, valid and not, runs each against the sandbox and the model in model.ts, and
// after every command checks that no 5xx came unless a fault rule asked for it, that the answer is the
// one the model predicts, and that every inspection call shows the model's state. A failing sequence
// shrinks to a minimal one. Driven only over HTTP (app.inject or a socket) through Transport, so it
// runs against any server, and under any path prefix (workspaces): one model per prefix.
// No vitest import: `npm run soak` runs it too.
import { outcomeTagProblem } from '../../../src/interfaces.js';
import fc from 'fast-check';
import type { FixtureDocument } from '../../../src/interfaces.js';
import { errorShapeProblem } from '../engine/run.js';
import {
  BK_TOKENS,
  CNAB_FILES,
  type CnabFileName,
  DOCS,
  type DocName,
  F1,
  F1_PUNCTUATED,
  F2,
  F3,
  F_INVALID,
  F_UNKNOWN,
  LB_FILES,
  LB_TOKENS,
  type LbFile,
  RC_TOKENS,
  RG_DOCS,
  RG_TOKENS,
  type RgDoc,
  TENANTS,
  UIDS,
} from './facts.js';
import {
  addIso,
  applyFault,
  byTime,
  clockNow,
  type Data,
  DOCUMENTED_STATUSES,
  emptyData,
  extractPage,
  fixtureClashes,
  type InterfaceId,
  loadDoc,
  type Model,
  newModel,
  realClock,
  setClock,
  SORT_FIELDS,
  type SortField,
  taxKey,
  tenantSummaries,
  today,
  validCnpj,
  validTenant,
} from './model.js';
import type { Answer, Call, Transport } from './transport.js';

/** The fixture document the sandbox under test must have been started with ("default" loads it). */
export { DEFAULT_DOC as SEQUENCE_FIXTURES } from './facts.js';

// ---- the system under test and the model, per workspace ----

export interface Workspace {
  /** Sends a call whose path is given as below the workspace (e.g. /_sandbox/clock). */
  transport: Transport;
  /** Maps a path below the workspace to the path the server sees (for fault-rule matching). */
  path: (p: string) => string;
  /** In process: a problem with the server's own state after a sequence (null: none). */
  check?: () => string | null;
}

interface Real {
  ws: Workspace[];
}

interface Models {
  ws: Model[];
  capacity: number;
  stats: SequenceStats;
}

export interface SequenceStats {
  sequences: number;
  commands: number;
  byCommand: Record<string, number>;
  statuses: Record<string, number>;
  /** Operation and status, e.g. "declare-payment 204". */
  outcomes: Record<string, number>;
}

export const newStats = (): SequenceStats => ({ sequences: 0, commands: 0, byCommand: {}, statuses: {}, outcomes: {} });

class Mismatch extends Error {}

function fail(call: Call, res: Answer, why: string): never {
  throw new Mismatch(`${call.method} ${call.path}: ${why}; answered ${res.status} ${res.text.slice(0, 400)}`);
}

const ifaceOf = (path: string): InterfaceId =>
  path.startsWith('/api/bookkeeping/')
    ? 'bookkeeping'
    : path.startsWith('/api/v1.0/service/dup/')
      ? 'registry'
      : path.startsWith('/v1/')
        ? 'receivables'
        : 'loanbond';

interface Expect {
  /** The statuses the model allows (more than one only where the documents leave the order open). */
  statuses: number[];
  /** Applies the accepted request to the model (given the answer). */
  apply?: (res: Answer) => Promise<void> | void;
  /** Further checks of an accepted answer. */
  check?: (res: Answer) => void;
}

/**
 * Sends one documented operation: a fault rule first (as the sandbox does), then the model's
 * expectation. Counts the request in the journal either way.
 */
async function operation(models: Models, real: Real, w: number, call: Call, expect: () => Expect): Promise<void> {
  const model = models.ws[w] as Model;
  const ws = real.ws[w] as Workspace;
  const iface = ifaceOf(call.path);
  const fault = applyFault(model, iface, call.method, ws.path(call.path.split('?')[0] ?? ''));
  const res = await ws.transport.send(call);
  models.stats.statuses[res.status] = (models.stats.statuses[res.status] ?? 0) + 1;
  const outcome = `${call.method} ${call.path.split('?')[0]?.split('/').pop() ?? ''} ${res.status}`;
  models.stats.outcomes[outcome] = (models.stats.outcomes[outcome] ?? 0) + 1;
  model.journal++;
  if (process.env.SEQ_DEBUG && res.status >= 400) process.stderr.write(`${call.method} ${call.path} ${res.status} ${res.text.slice(0, 200)}\n`);
  if (fault !== undefined && fault.status !== null) {
    if (res.status !== fault.status) fail(call, res, `fault rule ${fault.id} should have answered ${fault.status}`);
    const shape = errorShapeProblem(iface, res.status, res.text);
    if (shape) fail(call, res, `fault answer not in the ${iface} error shape: ${shape}`);
    return;
  }
  const e = expect();
  if (res.status >= 500) fail(call, res, 'a 5xx that no fault rule asked for');
  if (!e.statuses.includes(res.status)) fail(call, res, `the model expected ${e.statuses.join(' or ')}`);
  if (res.status >= 400) {
    if (!DOCUMENTED_STATUSES[iface].includes(res.status)) fail(call, res, `${res.status} is not documented for ${iface}`);
    const shape = errorShapeProblem(iface, res.status, res.text);
    if (shape) fail(call, res, shape);
  }
  e.check?.(res);
  if (res.status < 400) await e.apply?.(res);
}

/** A control call: its status must be the expected one. */
async function control(models: Models, real: Real, w: number, call: Call, status: number): Promise<Answer> {
  const res = await (real.ws[w] as Workspace).transport.send(call);
  models.stats.statuses[res.status] = (models.stats.statuses[res.status] ?? 0) + 1;
  if (res.status >= 500) fail(call, res, 'a 5xx from the control plane');
  if (res.status !== status) fail(call, res, `the model expected ${status}`);
  if (status >= 400) {
    const shape = errorShapeProblem('bookkeeping', res.status, res.text);
    if (shape) fail(call, res, `control-plane error shape: ${shape}`);
  }
  return res;
}

// ---- commands ----

type Run = (models: Models, real: Real, w: number) => Promise<void>;

class Step implements fc.AsyncCommand<Models, Real> {
  constructor(
    readonly name: string,
    readonly w: number,
    readonly params: unknown,
    private readonly body: Run,
  ) {}
  check(): boolean {
    return true;
  }
  async run(models: Models, real: Real): Promise<void> {
    models.stats.commands++;
    models.stats.byCommand[this.name] = (models.stats.byCommand[this.name] ?? 0) + 1;
    await this.body(models, real, this.w);
    // Every workspace, not only the one the command went to: isolation is checked after each command.
    for (let w = 0; w < models.ws.length; w++) await inspect(models, real, w);
  }
  toString(): string {
    return `${this.name}${this.w === 0 ? '' : `@${this.w}`} ${JSON.stringify(this.params)}`;
  }
}

/** Mostly `good` (three times in four), else any of `all`: sequences need accepted requests to build state. */
const mostly = <T>(good: readonly T[], all: readonly T[]): fc.Arbitrary<T> =>
  fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: fc.constantFrom(...all) });

/** Usually absent (four times in five), else one of `values`: the broken variants of a request. */
const rarely = <T>(...values: T[]): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...values) });

const step = <P>(name: string, params: fc.Arbitrary<P>, body: (p: P) => Run, workspaces: number) =>
  fc.tuple(fc.nat(workspaces - 1), params).map(([w, p]) => new Step(name, w, p, body(p)));

const bkPath = (tenant: string, rest: string) =>
  `/api/bookkeeping/integration/v1/${encodeURIComponent(tenant)}/trade-receivable-certificates/${rest}`;
const bearer = (token: string | undefined): Record<string, string> =>
  token === undefined ? {} : { authorization: `Bearer ${token}` };

/** Bookkeeping's checks before the query or body: token (401), tenant id (400), access (403). */
function bookkeepingGate(data: Data, token: string | undefined, tenant: string): number | undefined {
  const user = data.users.find((u) => u.token === token);
  if (!user) return 401;
  if (!validTenant(tenant)) return 400;
  if (!user.tenants.includes(tenant)) return 403;
  return undefined;
}

const BAD_QUERIES = [
  'pageSize=0',
  'pageSize=101',
  'page=0',
  'page=abc',
  'sortBy=nope',
  'desc=maybe',
  'unknown=1',
  `pageSize=${'9'.repeat(300)}`,
  'page=1e3',
  'pageSize=-0',
  'page=1&page=2',
] as const;

const listExtract = (workspaces: number) =>
  step(
    'list-extract',
    fc.record({
      token: mostly(['seq-bk-1'], [...BK_TOKENS, undefined]),
      tenant: mostly(['11222333000181'], TENANTS),
      page: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
      pageSize: fc.option(fc.constantFrom(1, 3, 5, 10, 100), { nil: undefined }),
      sortBy: fc.option(fc.constantFrom(...SORT_FIELDS), { nil: undefined }),
      desc: fc.option(fc.boolean(), { nil: undefined }),
      bad: rarely(...BAD_QUERIES),
    }),
    (p) => async (models, real, w) => {
      const q = new URLSearchParams();
      if (p.page !== undefined) q.set('page', String(p.page));
      if (p.pageSize !== undefined) q.set('pageSize', String(p.pageSize));
      if (p.sortBy !== undefined) q.set('sortBy', p.sortBy);
      if (p.desc !== undefined) q.set('desc', String(p.desc));
      const query = [q.toString(), p.bad ?? ''].filter(Boolean).join('&');
      const call: Call = { method: 'GET', path: `${bkPath(p.tenant, 'extract')}?${query}`, headers: bearer(p.token) };
      const data = (models.ws[w] as Model).data;
      await operation(models, real, w, call, () => {
        const gate = bookkeepingGate(data, p.token, p.tenant);
        if (gate) return { statuses: [gate] };
        if (p.bad) return { statuses: [400] };
        const page = p.page ?? 1;
        const size = p.pageSize ?? 10;
        const list = data.extracts[p.tenant] ?? [];
        const ids = extractPage(list, (p.sortBy ?? 'registeredAt') as SortField, p.desc ?? false, page, size);
        return {
          statuses: [200],
          check: (res) => {
            const body = res.json as { extractTradeReceivables: Array<{ extractTradeReceivableRequestId: number }>; pagination: unknown };
            const got = body.extractTradeReceivables.map((e) => e.extractTradeReceivableRequestId);
            const pagination = { page, size, totalItems: list.length, totalPages: Math.ceil(list.length / size) };
            if (JSON.stringify(got) !== JSON.stringify(ids)) fail(call, res, `page ids ${JSON.stringify(ids)} expected`);
            if (JSON.stringify(body.pagination) !== JSON.stringify(pagination))
              fail(call, res, `pagination ${JSON.stringify(pagination)} expected`);
          },
        };
      });
    },
    workspaces,
  );

const declarePayment = (workspaces: number) =>
  step(
    'declare-payment',
    fc.record({
      token: mostly(['seq-bk-1'], [...BK_TOKENS, undefined]),
      tenant: mostly(['11222333000181'], TENANTS),
      uid: mostly(['IUD-1', 'IUD-2'], UIDS),
      isPartial: mostly([true], [false]),
      value: mostly<'cent' | 'half' | 'all' | 'more'>(['cent', 'half'], ['cent', 'half', 'all', 'more']),
      remaining: mostly<'none' | 'right' | 'wrong'>(['none', 'right'], ['none', 'right', 'wrong']),
      date: mostly<'none' | 'past' | 'today' | 'future'>(['none', 'past', 'today'], ['none', 'past', 'today', 'future']),
      beneficiary: mostly<'none' | 'cnpj' | 'cpf' | 'punctuated' | 'bad'>(['none', 'cnpj', 'cpf'], ['none', 'cnpj', 'cpf', 'punctuated', 'bad']),
      broken: rarely('no-type', 'extra-field', 'three-decimals', 'string-value', 'not-json'),
    }),
    (p) => async (models, real, w) => {
      const model = models.ws[w] as Model;
      const bill = model.data.bills[`${p.tenant}|${p.uid}`];
      const open = bill?.open ?? 100;
      const valueCents = { cent: 1, half: Math.max(1, Math.floor(open / 2)), all: Math.max(1, open), more: open + 1 }[p.value];
      const day = (delta: number) => new Date(clockNow(model.clock) + delta * 86_400_000).toISOString().slice(0, 10);
      const body: Record<string, unknown> = {
        type: 'bankSlip',
        informantId: 'directByDrawerHolder',
        isPartial: p.isPartial,
        paymentValue: valueCents / 100,
      };
      if (p.remaining !== 'none') body.remainingValue = (open - valueCents + (p.remaining === 'wrong' ? 1 : 0)) / 100;
      if (p.date !== 'none') body.paymentDate = day({ past: -2, today: 0, future: 2 }[p.date]);
      if (p.beneficiary !== 'none')
        body.beneficiaryDocument = { cnpj: '11222333000181', cpf: '52998224725', punctuated: '11.222.333/0001-81', bad: '11222333000182' }[
          p.beneficiary
        ];
      let raw: string | undefined;
      if (p.broken === 'no-type') delete body.type;
      if (p.broken === 'extra-field') body.surprise = 1;
      if (p.broken === 'three-decimals') body.paymentValue = 0.015;
      if (p.broken === 'string-value') body.paymentValue = String(body.paymentValue);
      if (p.broken === 'not-json') raw = '{"type":';
      const call: Call = {
        method: 'PUT',
        path: bkPath(p.tenant, `${encodeURIComponent(p.uid)}/payment`),
        headers: { ...bearer(p.token), ...(raw === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(raw === undefined ? { json: body } : { raw }),
      };
      const todayIso = today(model.clock);
      await operation(models, real, w, call, () => {
        const gate = bookkeepingGate(model.data, p.token, p.tenant);
        // The body is read before the route: malformed JSON is a 400 whoever sends it.
        if (p.broken === 'not-json') return { statuses: gate === 401 || gate === 403 ? [400, gate] : [400] };
        if (gate) return { statuses: [gate] };
        if (p.broken || p.beneficiary === 'punctuated' || p.beneficiary === 'bad') return { statuses: [400] };
        if (p.date === 'future' || (typeof body.paymentDate === 'string' && body.paymentDate > todayIso)) return { statuses: [400] };
        if (!bill || (bill.status !== 'open' && bill.status !== 'partially-paid')) return { statuses: [400] };
        if (valueCents > bill.open) return { statuses: [400] };
        if (p.isPartial && valueCents === bill.open) return { statuses: [400] };
        if (!p.isPartial && valueCents < bill.open) return { statuses: [400] };
        if (p.remaining === 'wrong') return { statuses: [400] };
        return {
          statuses: [204],
          check: (res) => {
            if (res.text !== '') fail(call, res, 'a 204 with a body');
          },
          apply: () => {
            bill.open -= valueCents;
            bill.status = bill.open === 0 ? 'paid' : 'partially-paid';
            bill.payments++;
          },
        };
      });
    },
    workspaces,
  );

const registerDocuments = (workspaces: number) =>
  step(
    'register-documents',
    fc.record({
      token: mostly(['seq-rg-1', 'seq-rg-2'], [...RG_TOKENS, undefined]),
      docs: fc.array(mostly<RgDoc>(['good', 'withDocument'], Object.keys(RG_DOCS) as RgDoc[]), { minLength: 0, maxLength: 3 }),
      strict: fc.constantFrom(undefined, 'true', 'false'),
      broken: rarely('wrong-type', 'unknown-field', 'no-registros'),
    }),
    (p) => async (models, real, w) => {
      const model = models.ws[w] as Model;
      const registros: Array<Record<string, unknown>> = p.docs.map((d, i) => ({ numeroDuplicata: `DUP-${i}`, valorDuplicata: 10.5, ...RG_DOCS[d].fields }));
      if (p.broken === 'wrong-type' && registros[0]) registros[0].valorDuplicata = '10.50';
      if (p.broken === 'unknown-field' && registros[0]) registros[0].surprise = true;
      const json = p.broken === 'no-registros' ? {} : { registros };
      const call: Call = {
        method: 'POST',
        path: '/api/v1.0/service/dup/registrar_documentos',
        headers: { ...bearer(p.token), ...(p.strict === undefined ? {} : { 'sandbox-strict': p.strict }) },
        json,
      };
      const warnings = p.docs.reduce((n, d) => n + RG_DOCS[d].warnings, 0);
      await operation(models, real, w, call, () => {
        const participant = model.data.participants.find((x) => x.token === p.token);
        const badBody = p.broken !== undefined || p.docs.length === 0;
        if (!participant) return { statuses: badBody ? [400, 401] : [401] };
        if (badBody) return { statuses: [400] };
        if (p.strict === 'true' && warnings > 0) return { statuses: [400] };
        return {
          statuses: [200],
          check: (res) => {
            const header = res.headers['sandbox-warnings'];
            if (String(warnings) !== header)
              fail(call, res, `Sandbox-Warnings ${warnings} expected`);
          },
          apply: async (res) => {
            const key = (res.json as { chaveRemessa: string }).chaveRemessa;
            const batch = await (real.ws[w] as Workspace).transport.send({ method: 'GET', path: `/_sandbox/registry/batches/${encodeURIComponent(key)}` });
            const view = batch.json as { registeredAt?: string; documents?: Array<{ chaveRegistro: string }> } | undefined;
            const docs = view?.documents ?? [];
            if (batch.status !== 200 || docs.length !== p.docs.length)
              fail(call, batch, `the batch ${key} should hold ${p.docs.length} documents`);
            participant.batches.push({ key, at: view?.registeredAt ?? '', chaves: docs.map((d) => d.chaveRegistro) });
          },
        };
      });
    },
    workspaces,
  );

const reconcileDocuments = (workspaces: number) =>
  step(
    'reconcile-documents',
    fc.record({
      token: mostly(['seq-rg-1', 'seq-rg-2'], [...RG_TOKENS, undefined]),
      items: fc.array(fc.record({ kind: fc.constantFrom('own', 'other', 'unknown'), pick: fc.nat() }), { minLength: 0, maxLength: 3 }),
      broken: rarely('bad-status', 'not-object'),
    }),
    (p) => async (models, real, w) => {
      const model = models.ws[w] as Model;
      const participant = model.data.participants.find((x) => x.token === p.token);
      const own = participant?.batches.flatMap((b) => b.chaves) ?? [];
      const others = model.data.participants.filter((x) => x !== participant).flatMap((x) => x.batches.flatMap((b) => b.chaves));
      let matched = 0;
      const registros: unknown[] = p.items.map((it) => {
        const list = it.kind === 'own' ? own : it.kind === 'other' ? others : [];
        const key = list.length === 0 ? `NO-SUCH-${it.pick % 5}` : (list[it.pick % list.length] as string);
        if (it.kind === 'own' && list.length > 0) matched++;
        return { chaveRegistro: key, cancelado: 'NAO' };
      });
      if (p.broken === 'bad-status' && registros.length > 0) registros[0] = { chaveRegistro: 'X', statusPagamento: 'paid' };
      if (p.broken === 'not-object' && registros.length > 0) registros[0] = 'a string';
      const call: Call = { method: 'POST', path: '/api/v1.0/service/dup/conciliar_documentos', headers: bearer(p.token), json: { registros } };
      await operation(models, real, w, call, () => {
        const badBody = p.items.length === 0 || (p.broken !== undefined && registros.length > 0);
        if (!participant) return { statuses: badBody ? [400, 401] : [401] };
        if (badBody) return { statuses: [400] };
        return {
          statuses: [200],
          apply: async (res) => {
            const key = (res.json as { chaveConciliacao: string }).chaveConciliacao;
            const view = await (real.ws[w] as Workspace).transport.send({
              method: 'GET',
              path: `/_sandbox/registry/reconciliations/${encodeURIComponent(key)}`,
            });
            const body = view.json as { reconciledAt?: string; counts?: { matched: number; unknown: number } } | undefined;
            const counts = body?.counts;
            if (view.status !== 200 || counts?.matched !== matched || counts.unknown !== p.items.length - matched)
              fail(call, view, `reconciliation ${key} should count ${matched} matched, ${p.items.length - matched} unknown`);
            participant.reconciliations.push({ key, at: body?.reconciledAt ?? '' });
          },
        };
      });
    },
    workspaces,
  );

const FUND_CHOICES = [F1, F1_PUNCTUATED, F2, F3, F_UNKNOWN, F_INVALID] as const;

const importCnab = (workspaces: number) =>
  step(
    'import-cnab',
    fc.record({
      token: mostly(['fund'], ['fund', 'missing', ...RC_TOKENS]),
      fund: mostly([F1, F1_PUNCTUATED, F3], FUND_CHOICES),
      file: mostly<CnabFileName>(['cnab400', 'cnab444', 'zeroValue'], Object.keys(CNAB_FILES) as CnabFileName[]),
      longName: mostly([false], [true]),
      additiveNumber: mostly([1, 0, 42], [-1, 1.5, 1e21]),
    }),
    (p) => async (models, real, w) => {
      const model = models.ws[w] as Model;
      const fund = model.data.funds.find((f) => f.cnpj === taxKey(p.fund));
      const token = p.token === 'fund' ? (fund?.token ?? 'seq-rc-none') : p.token === 'missing' ? undefined : p.token;
      const body = {
        ...(token === undefined ? {} : { token }),
        fundCnpj: p.fund,
        operationFile: CNAB_FILES[p.file].base64,
        fileName: p.longName ? `${'n'.repeat(151)}.rem` : 'remessa.rem',
        additiveNumber: p.additiveNumber,
      };
      const call: Call = { method: 'POST', path: '/v1/import-cnab', json: body };
      await operation(models, real, w, call, () => {
        const code = (res: Answer) => (res.json as { error?: { code?: string } } | undefined)?.error?.code;
        let expected: string | undefined;
        // An operationFile sent as "" is a problem of the body's shape, named before the token (rc-error-precedence).
        const emptyFile = CNAB_FILES[p.file].base64 === '';
        if (token === undefined || p.longName || !validCnpj(p.fund) || emptyFile) expected = 'ValidationError';
        else if (!fund || fund.token === null || fund.token !== token) expected = 'InvalidToken';
        else if (CNAB_FILES[p.file].outcome === 'refused') expected = 'ValidationError';
        if (expected !== undefined) {
          const want = expected;
          return {
            statuses: [400],
            check: (res) => {
              if (code(res) !== want) fail(call, res, `code ${want} expected`);
            },
          };
        }
        return {
          statuses: [200],
          check: (res) => {
            if (res.text !== '') fail(call, res, 'a 200 with a body');
            if (!res.headers['sandbox-import-id']) fail(call, res, 'no Sandbox-Import-Id');
          },
          apply: (res) => {
            (fund as NonNullable<typeof fund>).imports.push({
              id: res.headers['sandbox-import-id'] as string,
              outcome: CNAB_FILES[p.file].outcome as 'processed' | 'rejected',
              done: false,
            });
          },
        };
      });
    },
    workspaces,
  );

const registerLoanBond = (workspaces: number) =>
  step(
    'register-loan-bond',
    fc.record({
      token: mostly(['seq-lb-1', 'seq-lb-4'], [...LB_TOKENS, undefined]),
      records: fc.array(
        fc.record({ file: mostly<LbFile>(['pdfA', 'pdfB', 'pdfC'], Object.keys(LB_FILES) as LbFile[]), assinado: fc.constantFrom(true, false, undefined) }),
        { minLength: 0, maxLength: 3 },
      ),
      many: fc.constantFrom(0, 0, 0, 0, 0, 0, 51),
    }),
    (p) => async (models, real, w) => {
      const model = models.ws[w] as Model;
      const base = p.many > 0 ? Array.from({ length: p.many }, () => ({ file: 'pdfA' as LbFile, assinado: false })) : p.records;
      const registros = base.map((r, i) => ({
        nome_documento: `ccb-${i}.pdf`,
        ...(r.assinado === undefined ? {} : { assinado: r.assinado }),
        parcelas: [{ numero: 1, data_vencimento: '2026-12-10', valor: 100.5 }],
        documento: LB_FILES[r.file].base64,
      }));
      const call: Call = {
        method: 'POST',
        path: '/api/service/document/registrar',
        json: { versao: '2.0', ...(p.token === undefined ? {} : { token: p.token }), registros },
      };
      await operation(models, real, w, call, () => {
        if (base.length === 0 || base.length > 50) return { statuses: [400] };
        const caller = model.data.callers.find((c) => c.token === p.token);
        if (p.token === undefined) return { statuses: [400, 401] };
        if (!caller) return { statuses: [401] };
        if (!caller.products.includes('electronic-signature') || !caller.products.includes('digital-loan-bond')) return { statuses: [401] };
        if (base.some((r) => !LB_FILES[r.file].ok)) return { statuses: [400] };
        return {
          statuses: [201],
          apply: (res) => {
            const got = (res.json as { registros: Array<{ codigo_identificador: string }> }).registros;
            if (got.length !== base.length) fail(call, res, `${base.length} registrations expected`);
            got.forEach((g, i) =>
              model.data.registrations.push({ codigo: g.codigo_identificador, callerId: caller.id, assinado: base[i]?.assinado === true, done: false }),
            );
          },
        };
      });
    },
    workspaces,
  );

// ---- control calls ----

const RESET_FORMS = ['absent', 'empty-json', 'empty-object', 'default', 'inline-default', 'inline-extra', 'seed', 'invalid', 'typo'] as const;

function resetTo(model: Model, data: Data): void {
  model.data = data;
  model.clock = realClock();
  model.faults = [];
  model.journal = 0;
}

const defaultData = (): Data => {
  const d = emptyData();
  loadDoc(d, DOCS.default);
  return d;
};

const reset = (workspaces: number) =>
  step('reset', mostly<(typeof RESET_FORMS)[number]>(['default', 'inline-default', 'seed'], RESET_FORMS), (form) => async (models, real, w) => {
    const model = models.ws[w] as Model;
    const call: Call = { method: 'POST', path: '/_sandbox/reset' };
    if (form === 'empty-json') Object.assign(call, { raw: '', headers: { 'content-type': 'application/json' } });
    if (form === 'empty-object') call.json = {};
    if (form === 'default') call.json = { fixtures: 'default' };
    if (form === 'inline-default') call.json = { fixtures: DOCS.default };
    if (form === 'inline-extra') call.json = { fixtures: DOCS.extraBk };
    if (form === 'seed') call.json = { fixtures: 'default', seed: 'sequence-seed' };
    if (form === 'invalid') call.json = { fixtures: DOCS.invalid };
    if (form === 'typo') call.json = { fixture: 'default' };
    const refused = form === 'invalid' || form === 'typo';
    await control(models, real, w, call, refused ? 400 : 200);
    if (refused) return;
    const data = emptyData();
    if (form === 'default' || form === 'inline-default' || form === 'seed') loadDoc(data, DOCS.default);
    if (form === 'inline-extra') loadDoc(data, DOCS.extraBk);
    resetTo(model, data);
  }, workspaces);

const loadFixtures = (workspaces: number) =>
  step('fixtures', fc.constantFrom(...(Object.keys(DOCS) as DocName[])), (name) => async (models, real, w) => {
    const model = models.ws[w] as Model;
    const doc: FixtureDocument = DOCS[name];
    const ok = name !== 'invalid' && fixtureClashes(model.data, doc).length === 0;
    await control(models, real, w, { method: 'POST', path: '/_sandbox/fixtures', json: doc }, ok ? 200 : 400);
    if (ok) loadDoc(model.data, doc);
  }, workspaces);

const SNAPSHOT_NAMES = ['a', 'b', 'base.line-1'] as const;

const snapshotSave = (workspaces: number) =>
  step('snapshot-save', fc.constantFrom(...SNAPSHOT_NAMES, '-bad', 'x'.repeat(65)), (name) => async (models, real, w) => {
    const model = models.ws[w] as Model;
    const ok = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name);
    const res = await control(models, real, w, { method: 'POST', path: '/_sandbox/snapshots', json: { name } }, ok ? 201 : 400);
    if (!ok) return;
    const replaced = (res.json as { replaced?: boolean }).replaced;
    if (replaced !== name in model.snapshots) fail({ method: 'POST', path: '/_sandbox/snapshots' }, res, `replaced ${String(name in model.snapshots)} expected`);
    model.snapshots[name] = structuredClone({ data: model.data, clock: model.clock });
  }, workspaces);

const snapshotRestore = (workspaces: number) =>
  step('snapshot-restore', fc.record({ name: fc.constantFrom(...SNAPSHOT_NAMES), emptyBody: fc.boolean() }), (p) => async (models, real, w) => {
    const model = models.ws[w] as Model;
    const saved = model.snapshots[p.name];
    const call: Call = {
      method: 'POST',
      path: `/_sandbox/snapshots/${p.name}/restore`,
      ...(p.emptyBody ? { raw: '', headers: { 'content-type': 'application/json' } } : {}),
    };
    await control(models, real, w, call, saved ? 200 : 404);
    if (!saved) return;
    const copy = structuredClone(saved);
    model.data = copy.data;
    model.clock = copy.clock;
  }, workspaces);

const snapshotDelete = (workspaces: number) =>
  step('snapshot-delete', fc.constantFrom(...SNAPSHOT_NAMES), (name) => async (models, real, w) => {
    const model = models.ws[w] as Model;
    await control(models, real, w, { method: 'DELETE', path: `/_sandbox/snapshots/${name}` }, name in model.snapshots ? 200 : 404);
    delete model.snapshots[name];
  }, workspaces);

const INSTANTS = ['2026-06-15T12:00:00Z', '2027-01-31T10:00:00Z', '2030-12-31T23:59:59.500Z', '2025-02-28T00:00:00Z'] as const;
const DURATIONS = ['P31D', 'PT36H', '-P1D', 'P2W', 'P1M', 'P1Y2M3DT4H5M6.5S', 'PT0S', 'P1X', '31D', 'P'] as const;

const clockSet = (workspaces: number) =>
  step(
    'clock',
    fc.record({
      kind: fc.constantFrom('now', 'advance', 'freeze', 'both', 'nothing'),
      now: fc.constantFrom(...INSTANTS),
      advance: fc.constantFrom(...DURATIONS),
      freeze: fc.constantFrom(undefined, true, false),
    }),
    (p) => async (models, real, w) => {
      const model = models.ws[w] as Model;
      const body: Record<string, unknown> = {};
      if (p.kind === 'now' || p.kind === 'both') body.now = p.now;
      if (p.kind === 'advance' || p.kind === 'both') body.advance = p.advance;
      if (p.freeze !== undefined) body.freeze = p.freeze;
      const frozen = p.freeze ?? model.clock.frozenAt !== undefined;
      let target: number | undefined = clockNow(model.clock);
      if (p.kind === 'now') target = Date.parse(p.now);
      if (p.kind === 'advance') target = addIso(clockNow(model.clock), p.advance);
      const ok = p.kind !== 'both' && (p.kind !== 'freeze' || p.freeze !== undefined) && (p.kind !== 'nothing' || p.freeze !== undefined) && target !== undefined;
      const res = await control(models, real, w, { method: 'POST', path: '/_sandbox/clock', json: body }, ok ? 200 : 400);
      if (!ok || target === undefined) return;
      // Freezing a running clock stops it at the instant the sandbox read it: the model takes that
      // instant from the answer once it is within the drift the inspection allows.
      const answered = Date.parse((res.json as { now: string }).now);
      if (frozen && p.kind !== 'now' && model.clock.frozenAt === undefined) {
        if (Math.abs(answered - target) > 10_000) fail({ method: 'POST', path: '/_sandbox/clock' }, res, `about ${new Date(target).toISOString()} expected`);
        target = answered;
      }
      setClock(model.clock, target, frozen);
    },
    workspaces,
  );

const clockReset = (workspaces: number) =>
  step('clock-reset', fc.constant(null), () => async (models, real, w) => {
    await control(models, real, w, { method: 'DELETE', path: '/_sandbox/clock' }, 200);
    (models.ws[w] as Model).clock = realClock();
  }, workspaces);

const FAULT_KINDS = ['interface', 'path', 'delay', 'method', 'undocumented', 'nowhere', 'code-elsewhere'] as const;
const IFACES: InterfaceId[] = ['bookkeeping', 'registry', 'receivables', 'loanbond'];

const faultAdd = (workspaces: number) =>
  step(
    'fault-add',
    fc.record({ kind: fc.constantFrom(...FAULT_KINDS), iface: fc.constantFrom(...IFACES), pick: fc.nat(), times: fc.constantFrom(undefined, 1, 2) }),
    (p) => async (models, real, w) => {
      const model = models.ws[w] as Model;
      const statuses = {
        bookkeeping: [400, 401, 403, 500],
        registry: [400, 401, 500],
        receivables: [400],
        loanbond: [400, 401],
      }[p.iface];
      const status = statuses[p.pick % statuses.length] as number;
      const paths: Record<InterfaceId, string> = {
        bookkeeping: '*/payment',
        registry: '*/registrar_documentos',
        receivables: '*/import-cnab',
        loanbond: '*/registrar',
      };
      const times = p.times === undefined ? {} : { times: p.times };
      let body: Record<string, unknown> = { interface: p.iface, status, ...times };
      let ok = true;
      let path: string | null = null;
      let method: string | null = null;
      let answers: number | null = status;
      if (p.kind === 'path') {
        path = paths[p.iface];
        body = { interface: p.iface, path, status, ...times };
      } else if (p.kind === 'delay') {
        answers = null;
        body = { interface: p.iface, delayMs: 1, ...times };
      } else if (p.kind === 'method') {
        method = p.iface === 'bookkeeping' ? 'GET' : 'POST';
        body = { interface: p.iface, method, status, ...times };
      } else if (p.kind === 'undocumented') {
        body = { interface: p.iface, status: p.iface === 'bookkeeping' ? 404 : 403 };
        ok = false;
      } else if (p.kind === 'nowhere') {
        body = { status };
        ok = false;
      } else if (p.kind === 'code-elsewhere') {
        body = { interface: p.iface, status, code: 'Custom', ...times };
        ok = p.iface === 'receivables';
      }
      const res = await control(models, real, w, { method: 'POST', path: '/_sandbox/faults', json: body }, ok ? 201 : 400);
      if (!ok) return;
      model.faults.push({
        id: (res.json as { id: string }).id,
        method,
        path,
        iface: p.iface,
        status: answers,
        remaining: p.times ?? null,
        hits: 0,
      });
    },
    workspaces,
  );

const faultRemove = (workspaces: number) =>
  step('fault-remove', fc.record({ all: fc.boolean(), pick: fc.nat() }), (p) => async (models, real, w) => {
    const model = models.ws[w] as Model;
    if (p.all) {
      const res = await control(models, real, w, { method: 'DELETE', path: '/_sandbox/faults' }, 200);
      if ((res.json as { removed: number }).removed !== model.faults.length)
        fail({ method: 'DELETE', path: '/_sandbox/faults' }, res, `removed ${model.faults.length} expected`);
      model.faults = [];
      return;
    }
    const rule = model.faults[p.pick % Math.max(1, model.faults.length)];
    const id = rule?.id ?? 'fault-none';
    await control(models, real, w, { method: 'DELETE', path: `/_sandbox/faults/${id}` }, rule ? 200 : 404);
    model.faults = model.faults.filter((r) => r !== rule);
  }, workspaces);

const journalClear = (workspaces: number) =>
  step('journal-clear', fc.boolean(), (emptyBody) => async (models, real, w) => {
    const model = models.ws[w] as Model;
    const call: Call = { method: 'DELETE', path: '/_sandbox/requests', ...(emptyBody ? { raw: '', headers: { 'content-type': 'application/json' } } : {}) };
    const res = await control(models, real, w, call, 200);
    const expected = Math.min(model.journal, models.capacity);
    if ((res.json as { cleared: number }).cleared !== expected) fail(call, res, `cleared ${expected} expected`);
    model.journal = 0;
  }, workspaces);

const workRun = (workspaces: number) =>
  step('work-run', fc.constant(null), () => async (models, real, w) => {
    const model = models.ws[w] as Model;
    const res = await control(models, real, w, { method: 'POST', path: '/_sandbox/work/run' }, 200);
    if ((res.json as { errors: number }).errors !== 0) fail({ method: 'POST', path: '/_sandbox/work/run' }, res, 'no work errors expected');
    for (const f of model.data.funds) for (const i of f.imports) i.done = true;
    for (const r of model.data.registrations) r.done = true;
  }, workspaces);

// ---- inspection: everything the model knows, read back through /_sandbox ----

async function get(ws: Workspace, path: string): Promise<Answer> {
  const res = await ws.transport.send({ method: 'GET', path });
  if (res.status !== 200) fail({ method: 'GET', path }, res, 'inspection should answer 200');
  return res;
}

/**
 * A paged list of the control plane whole: its pages (of 7, so that most lists take several) joined by
 * following nextCursor, and the total each page states, which must agree from page to page.
 */
async function all<T>(ws: Workspace, path: string, field: string): Promise<{ items: T[]; total: number | undefined }> {
  const items: T[] = [];
  let total: number | undefined;
  let cursor: string | null = null;
  for (let pages = 0; pages < 10_000; pages++) {
    const sep = path.includes('?') ? '&' : '?';
    const page = (await get(ws, `${path}${sep}limit=7${cursor === null ? '' : `&cursor=${cursor}`}`)).json as Record<string, unknown>;
    items.push(...(page[field] as T[]));
    const stated = page.total as number | undefined;
    if (pages > 0 && stated !== total) throw new Mismatch(`${path}: total ${String(stated)} on one page, ${String(total)} on the one before`);
    total = stated;
    cursor = page.nextCursor as string | null;
    if (cursor === null) return { items, total };
  }
  throw new Mismatch(`${path}: the pages never end`);
}

function same(what: string, got: unknown, expected: unknown): void {
  const g = JSON.stringify(got);
  const e = JSON.stringify(expected);
  if (g !== e) throw new Mismatch(`inspection of ${what}: got ${g.slice(0, 600)}, the model has ${e.slice(0, 600)}`);
}

export async function inspect(models: Models, real: Real, w: number): Promise<void> {
  const ws = real.ws[w] as Workspace;
  const model = models.ws[w] as Model;
  const data = model.data;

  const tenantList = await all(ws, '/_sandbox/bookkeeping/tenants', 'tenants');
  same('bookkeeping tenants', { total: tenantList.total, tenants: tenantList.items }, { total: tenantSummaries(data).length, tenants: tenantSummaries(data) });
  const tenants = [...new Set(Object.keys(data.bills).map((k) => k.split('|')[0] as string))];
  for (const t of tenants) {
    const got = await all(ws, `/_sandbox/bookkeeping/tenants/${t}/trade-bills`, 'tradeBills');
    const expected = Object.entries(data.bills)
      .filter(([k]) => k.startsWith(`${t}|`))
      .map(([k, b]) => ({ uid: k.slice(t.length + 1), amount: b.amount / 100, openValue: b.open / 100, status: b.status, payments: b.payments }))
      .sort((a, b) => (a.uid < b.uid ? -1 : 1));
    same(`trade bills of ${t}`, { total: got.total, tradeBills: got.items }, { total: expected.length, tradeBills: expected });
  }

  const participants = await all<{ participantId: string; documentCount: number }>(ws, '/_sandbox/registry/participants', 'participants');
  same(
    'registry participants',
    { total: participants.total, participants: participants.items.map((x) => ({ participantId: x.participantId, documentCount: x.documentCount })) },
    {
      total: data.participants.length,
      participants: [...data.participants]
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map((x) => ({ participantId: x.id, documentCount: x.batches.reduce((n, b) => n + b.chaves.length, 0) })),
    },
  );
  for (const x of data.participants) {
    if (x.batches.length === 0 && x.reconciliations.length === 0) continue;
    const view = (await get(ws, `/_sandbox/registry/participants/${encodeURIComponent(x.id)}`)).json as {
      batches: Array<{ chaveRemessa: string }>;
      reconciliations: Array<{ chaveConciliacao: string }>;
    };
    same(`batches of ${x.id}`, view.batches.map((b) => b.chaveRemessa), byTime(x.batches).map((b) => b.key));
    same(`reconciliations of ${x.id}`, view.reconciliations.map((r) => r.chaveConciliacao), byTime(x.reconciliations).map((r) => r.key));
  }

  const funds = await all(ws, '/_sandbox/receivables/funds', 'funds');
  same(
    'receivables funds',
    { total: funds.total, funds: funds.items },
    {
      total: data.funds.length,
      funds: [...data.funds].sort((a, b) => (a.cnpj < b.cnpj ? -1 : 1)).map((f) => ({ fundCnpj: f.cnpj, hasToken: f.token !== null, imports: f.imports.length })),
    },
  );
  for (const f of data.funds) {
    if (f.imports.length === 0) continue;
    const got = await all<{ importId: string; status: string }>(ws, `/_sandbox/receivables/funds/${f.cnpj}/imports`, 'imports');
    same(`imports of ${f.cnpj}`, { total: got.total, ids: got.items.map((i) => i.importId) }, { total: f.imports.length, ids: f.imports.map((i) => i.id) });
    got.items.forEach((g, i) => {
      const m = f.imports[i];
      const allowed = m?.done ? [m.outcome] : ['pending', m?.outcome];
      if (!allowed.includes(g.status)) throw new Mismatch(`import ${g.importId} is ${g.status}; the model allows ${allowed.join(' or ')}`);
    });
  }

  const regList = await all<{ codigo_identificador: string; callerId: string; state: string; registeredAt: string }>(
    ws,
    '/_sandbox/loanbond/registrations',
    'registrations',
  );
  if (regList.total !== data.registrations.length)
    throw new Mismatch(`loan-bond registrations: total ${String(regList.total)}, the model has ${data.registrations.length}`);
  const regs = { registrations: regList.items };
  // Oldest first by sandbox-clock time (the clock may have gone back): the set is the model's, the
  // order is the times'.
  const byCode = <T>(list: T[], code: (x: T) => string) => [...list].sort((a, b) => (code(a) < code(b) ? -1 : 1));
  same(
    'loan-bond registrations',
    byCode(regs.registrations, (r) => r.codigo_identificador).map((r) => [r.codigo_identificador, r.callerId]),
    byCode(data.registrations, (r) => r.codigo).map((r) => [r.codigo, r.callerId]),
  );
  const times = regs.registrations.map((r) => Date.parse(r.registeredAt));
  if (times.some((t, i) => i > 0 && t < (times[i - 1] as number))) throw new Mismatch('loan-bond registrations are not oldest first');
  regs.registrations.forEach((g) => {
    const m = data.registrations.find((r) => r.codigo === g.codigo_identificador);
    const final = m?.assinado ? 'signatures-complete' : 'signatures-pending';
    const allowed = m?.done ? [final] : ['registered', final];
    if (!allowed.includes(g.state)) throw new Mismatch(`registration ${g.codigo_identificador} is ${g.state}; the model allows ${allowed.join(' or ')}`);
  });

  const faults = (await get(ws, '/_sandbox/faults')).json as { faults: Array<{ id: string; hits: number; remaining: number | null }> };
  same('fault rules', faults.faults.map((f) => [f.id, f.hits, f.remaining]), model.faults.map((f) => [f.id, f.hits, f.remaining]));

  const snapshots = (await get(ws, '/_sandbox/snapshots')).json as { snapshots: Array<{ name: string }> };
  same('snapshots', snapshots.snapshots.map((s) => s.name).sort(), Object.keys(model.snapshots).sort());

  const clock = (await get(ws, '/_sandbox/clock')).json as { now: string; frozen: boolean };
  const frozen = model.clock.frozenAt !== undefined;
  if (clock.frozen !== frozen) throw new Mismatch(`clock frozen ${String(clock.frozen)}; the model has ${String(frozen)}`);
  const drift = Math.abs(Date.parse(clock.now) - clockNow(model.clock));
  if (frozen ? drift !== 0 : drift > 10_000) throw new Mismatch(`clock ${clock.now}; the model has ${new Date(clockNow(model.clock)).toISOString()}`);

  const journal = (await get(ws, '/_sandbox/requests?limit=1')).json as { count: number };
  same('journal count', journal.count, Math.min(model.journal, models.capacity));
}

// ---- running sequences ----

export function commandArbitraries(workspaces = 1) {
  return [
    listExtract(workspaces),
    declarePayment(workspaces),
    declarePayment(workspaces),
    registerDocuments(workspaces),
    reconcileDocuments(workspaces),
    importCnab(workspaces),
    registerLoanBond(workspaces),
    reset(workspaces),
    loadFixtures(workspaces),
    snapshotSave(workspaces),
    snapshotRestore(workspaces),
    snapshotDelete(workspaces),
    clockSet(workspaces),
    clockReset(workspaces),
    faultAdd(workspaces),
    faultRemove(workspaces),
    journalClear(workspaces),
    workRun(workspaces),
  ];
}

export interface SequenceOptions {
  workspaces: Workspace[];
  /** Sequences to run. */
  runs: number;
  /** Commands per sequence at most. */
  maxCommands?: number;
  seed?: number;
  /** Journal capacity of the sandbox under test (SANDBOX_JOURNAL_SIZE). */
  journalCapacity?: number;
  stats?: SequenceStats;
}

/**
 * Runs `runs` random sequences. Each starts from a clean workspace (reset to the fixtures given as
 * SEQUENCE_FIXTURES inline, every snapshot deleted) and the matching model. Throws fast-check's report
 * (seed, path, shrunk sequence) on the first mismatch.
 */
export async function runSequences(options: SequenceOptions): Promise<SequenceStats> {
  const stats = options.stats ?? newStats();
  const n = options.workspaces.length;
  const setup = async () => {
    stats.sequences++;
    const models: Models = { ws: [], capacity: options.journalCapacity ?? 1000, stats };
    for (const ws of options.workspaces) {
      const reset = await ws.transport.send({ method: 'POST', path: '/_sandbox/reset', json: { fixtures: DOCS.default } });
      if (reset.status !== 200) throw new Error(`cannot reset the workspace: ${reset.status} ${reset.text}`);
      const list = await ws.transport.send({ method: 'GET', path: '/_sandbox/snapshots' });
      for (const s of (list.json as { snapshots: Array<{ name: string }> }).snapshots)
        await ws.transport.send({ method: 'DELETE', path: `/_sandbox/snapshots/${encodeURIComponent(s.name)}` });
      models.ws.push(newModel(defaultData()));
    }
    return { model: models, real: { ws: options.workspaces } };
  };
  await fc.assert(
    fc.asyncProperty(fc.commands(commandArbitraries(n), { maxCommands: options.maxCommands ?? 40, size: 'max' }), async (cmds) => {
      await fc.asyncModelRun(setup, cmds);
      for (const ws of options.workspaces) {
        const problem = ws.check?.();
        if (problem) throw new Error(problem);
      }
      // Every answer the sequence got carried the outcome of the status sent (its Sandbox-Outcome tag), read
      // back from each workspace's journal.
      for (const ws of options.workspaces) {
        const list = await ws.transport.send({ method: 'GET', path: '/_sandbox/requests?limit=1000' });
        const entries = (list.json as { entries: Array<{ operation: string | null; outcome: string | null; status: number }> }).entries;
        for (const e of entries) {
          const problem = outcomeTagProblem(e.operation, e.outcome ?? undefined, e.status);
          if (problem) throw new Error(`outcome tag: ${problem}`);
        }
      }
    }),
    { numRuns: options.runs, ...(options.seed === undefined ? {} : { seed: options.seed }) },
  );
  return stats;
}
