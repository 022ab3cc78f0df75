// Inspection of the receivables interface's state, mounted under /_sandbox/receivables (admin-token rule applies).
// Funds (never their tokens), a fund's imports, and one import with its counts, titles and diagnostics.
import { assumptionLookup } from '../http/assumption-catalog.js';
import { CONTROL_TAG } from '../http/openapi.js';
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { centsToNumber } from '../domain/money.js';
import { type Steps, whole } from '../domain/steps.js';
import { checkTaxId } from '../domain/tax-id.js';
import { SandboxError } from '../http/errors.js';
import { nextTurn } from '../http/json-body-stream.js';
import { decodeCursor, NextCursor, pageByKey, pageOf, pageQuery } from '../http/paging.js';
import { AmountOut, ProcessingRecord, StandardError } from '../http/schema.js';
import type { Store } from '../store/index.js';
import type { ImportRow } from '../store/receivables.js';
import { assumptions } from './assumptions.js';
import { CnabFile } from './cnab-record.js';
import { LINES_PER_TURN } from './cnab-scan.js';
import { importWork } from './runner.js';
import { type Runtime, runtimeOf } from '../runtime/index.js';
import type { FastifyRequest } from 'fastify';

const TAGS = [CONTROL_TAG.name];
const assumed = assumptionLookup(assumptions);
/** Imports (or funds) per page: an import's line is well under 1 kB. */
const PAGE = 100;
const PAGE_MAX = 1000;
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const NullableInt = Type.Union([Type.Integer(), Type.Null()]);

const ImportSummary = Type.Object({
  importId: Type.String({ description: 'the Sandbox-Import-Id header of the 200' }),
  fundCnpj: Type.String(),
  fileName: Type.String(),
  additiveNumber: Type.Number(),
  receivedAt: Type.String({ description: 'when it was accepted (the 200 of its submission) [rc-import-order]' }),
  status: Type.String({ enum: ['pending', 'processed', 'rejected'] }),
  processedAt: Nullable(Type.String()),
  strict: Type.Union([Type.Boolean(), Type.Null()], { description: 'strict mode when processed' }),
  byteLength: Type.Integer(),
  lineCount: Type.Integer(),
  layout: Nullable(Type.String({ enum: ['cnab400', 'cnab444-fidc', 'cnab444-400+44'] })),
  fileDate: Nullable(Type.String()),
  titleCount: NullableInt,
  otherRecordCount: NullableInt,
  totalFaceValue: Type.Union([AmountOut(), Type.Null()]),
  totalFaceValueCents: NullableInt,
  errorCount: NullableInt,
  warningCount: NullableInt,
});

const Title = Type.Object({
  line: Type.Integer(),
  recordType: Type.String(),
  titleId: Type.String(),
  occurrence: Type.String(),
  documentNumber: Type.String(),
  dueDate: Nullable(Type.String()),
  faceValue: AmountOut(),
  faceValueCents: Type.Integer(),
  kind: Type.String(),
  issueDate: Nullable(Type.String()),
  draweeType: Nullable(Type.String({ enum: ['cpf', 'cnpj'] })),
  draweeTaxId: Type.String(),
  draweeName: Type.String(),
  nfeKey: Nullable(Type.String()),
  guarantor: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
    description:
      "the title's guarantor (Bradesco's record 7, Pagador Avalista: address, cep, city, state), null when it has none [rc-record-types]",
  }),
  records: Type.Array(
    Type.Object({
      line: Type.Integer(),
      recordType: Type.String(),
      meaning: Type.String({ description: "what the file's layout says the record is (docs/receivables.md, Layouts)" }),
      fields: Type.Record(Type.String(), Type.String(), {
        description: 'the fields the layout describes, trimmed; empty when the record is counted, not read',
      }),
    }),
    { description: 'the optional records after the title, up to the next title, in file order' },
  ),
});

const RecordLayoutInfo = Type.Object(
  {
    id: Type.String({ description: 'e.g. bradesco-400, bb-400, fidc-444, unknown-400' }),
    name: Type.String(),
    bankCode: Type.String({ description: 'header 077-079 as written' }),
    known: Type.Boolean({ description: 'false: the Bradesco base columns were read, with a bank-layout diagnostic' }),
    returnFile: Type.Boolean({ description: 'the header says retorno: nothing after it is read [rc-return-file]' }),
  },
  { description: 'how the record types of this file were read [rc-bank-layouts]' },
);

const Diagnostic = Type.Object({
  line: NullableInt,
  columns: Nullable(Type.String()),
  rule: Type.String(),
  severity: Type.String({ enum: ['error', 'warning'] }),
  message: Type.String(),
});

const ImportDetail = Type.Object({
  ...ImportSummary.properties,
  recordLayout: Type.Union([RecordLayoutInfo, Type.Null()]),
  titles: Type.Array(Title, {
    description: 'a page of the titles read, by line (titlesOffset, titlesLimit)',
  }),
  diagnostics: Type.Array(Diagnostic, { description: 'at most 1000; errorCount and warningCount are exact' }),
  processing: ProcessingRecord,
});

function summary(row: ImportRow) {
  return {
    importId: row.importId,
    fundCnpj: row.fundCnpj,
    fileName: row.fileName,
    additiveNumber: row.additiveNumber,
    receivedAt: row.receivedAt,
    status: row.status,
    processedAt: row.processedAt,
    strict: row.strict === null ? null : row.strict === 1,
    byteLength: row.byteLength,
    lineCount: row.lineCount,
    layout: row.layout,
    fileDate: row.fileDate,
    titleCount: row.titleCount,
    otherRecordCount: row.otherRecordCount,
    totalFaceValue: row.totalFaceValueCents === null ? null : centsToNumber(row.totalFaceValueCents),
    totalFaceValueCents: row.totalFaceValueCents,
    errorCount: row.errorCount,
    warningCount: row.warningCount,
  };
}

/**
 * Where the lines of a stored file start, as the lines view numbers them (LF or CR LF ends, a
 * trailing EOF byte and final line end dropped; blank trailing lines kept), found LINES_PER_TURN
 * lines at a time; `end` is where the last one ends.
 */
function* lineStarts(source: Buffer | string): Steps<LineStarts> {
  const code = (i: number) => (typeof source === 'string' ? source.charCodeAt(i) : source[i]);
  const lf = (from: number) => (typeof source === 'string' ? source.indexOf('\n', from) : source.indexOf(0x0a, from));
  let end = source.length;
  if (end > 0 && code(end - 1) === 0x1a) end--;
  if (end > 0 && code(end - 1) === 0x0a) end--;
  if (end === 0) return { starts: [], end };
  const starts = [0];
  for (let at = lf(0); at >= 0 && at < end; at = lf(at + 1)) {
    starts.push(at + 1);
    if (starts.length % LINES_PER_TURN === 0) yield;
  }
  return { starts, end };
}

interface LineStarts {
  starts: number[];
  end: number;
}

/** Lines [offset, offset + limit) of a stored file, numbered from 1, their line ends dropped. */
function linesPage(text: Buffer | string, { starts, end }: LineStarts, offset: number, limit: number) {
  const page: Array<{ line: number; text: string }> = [];
  for (let i = offset; i < Math.min(starts.length, offset + limit); i++) {
    const from = starts[i] ?? 0;
    let to = i + 1 < starts.length ? (starts[i + 1] ?? end) - 1 : end;
    const cr = typeof text === 'string' ? text.charCodeAt(to - 1) === 0x0d : text[to - 1] === 0x0d;
    if (to > from && cr) to--;
    page.push({ line: i + 1, text: typeof text === 'string' ? text.slice(from, to) : text.toString('latin1', from, to) });
  }
  return page;
}

/**
 * What the views read of a stored file, kept for the last file read (paging through a 100 000-title
 * import reads it once) and for one state of the store (a restore may put other bytes under an id).
 */
interface Stored {
  store: Store;
  generation: number;
  importId: string;
  /** The bytes, until the file is opened (its text, the same bytes read as Latin-1, stands for them). */
  bytes: Buffer | undefined;
  /** The file opened, with its title lines; null when its bytes are no CNAB file. */
  cnab?: { file: CnabFile; titles: number[] } | null;
  lines?: LineStarts;
}

/** What a view needs of the file: the CNAB file (the import's view) or its lines (the lines view). */
type Need = 'cnab' | 'lines';

const storeOf = (request: FastifyRequest) => runtimeOf(request).store.receivables;

export const receivablesInspection: FastifyPluginAsyncTypebox = async (app) => {
  let cached: Stored | undefined;
  /** What the preHandler read, in turns, for the request's handler. */
  const prepared = new WeakMap<FastifyRequest, Stored | undefined>();

  /**
   * The stored file as `need` reads it, from what is kept when it is of the same file and state;
   * a step of bounded work at a time (a file near the body limit is read back a part per step).
   */
  function* storedSteps(store: Store, importId: string, need: Need): Steps<Stored | undefined> {
    const kept = cached;
    let stored =
      kept && kept.store === store && kept.generation === store.generation && kept.importId === importId ? kept : undefined;
    if (!stored) {
      const bytes = yield* store.receivables.fileSteps(importId);
      if (!bytes) return undefined;
      stored = { store, generation: store.generation, importId, bytes };
    }
    if (need === 'cnab' && stored.cnab === undefined && stored.bytes) {
      const opened = yield* CnabFile.openSteps(stored.bytes);
      const cnab = opened.ok ? { file: opened.file, titles: yield* opened.file.titleIndexSteps() } : null;
      stored = { ...stored, cnab, bytes: cnab ? undefined : stored.bytes };
    }
    if (need === 'lines' && stored.lines === undefined) {
      const lines = yield* lineStarts(stored.cnab?.file.text ?? stored.bytes ?? '');
      stored = { ...stored, lines };
    }
    return stored;
  }

  /** The stored file for the request's handler: read in turns by the preHandler, or here at once. */
  const storedFor = (request: FastifyRequest, importId: string, need: Need): Stored | undefined => {
    const stored = prepared.has(request) ? prepared.get(request) : whole(storedSteps(runtimeOf(request).store, importId, need));
    if (stored) cached = stored;
    return stored;
  };

  /**
   * preHandler of the views that read a stored file: reads it a step per turn of the event loop, so
   * that a file near the body limit never holds other requests (a template's inspect, which calls
   * the handler alone, reads it at once). Read again when the state is replaced meanwhile.
   */
  const readInTurns = (need: Need) => async (request: FastifyRequest<{ Params: { importId: string } }>) => {
    const { importId } = request.params;
    for (;;) {
      const store = runtimeOf(request).store;
      const generation = store.generation;
      const steps = storedSteps(store, importId, need);
      let step = steps.next();
      while (!step.done && runtimeOf(request).store.generation === generation) {
        await nextTurn();
        if (runtimeOf(request).store.generation === generation) step = steps.next();
      }
      if (step.done) {
        prepared.set(request, step.value);
        if (step.value) cached = step.value;
        return;
      }
    }
  };

  const open = (request: FastifyRequest, importId: string) => storedFor(request, importId, 'cnab')?.cnab ?? undefined;

  const titlesOf = (request: FastifyRequest, importId: string, offset: number, limit: number) => {
    const opened = open(request, importId);
    if (!opened) return [];
    const { file, titles } = opened;
    return titles.slice(offset, offset + limit).map((i) => {
      const t = file.title(i);
      return {
        ...t,
        faceValue: centsToNumber(t.faceValueCents),
        guarantor: file.guarantorOf(i)?.fields ?? null,
        records: file.attachedTo(i),
      };
    });
  };

  const recordLayoutOf = (request: FastifyRequest, importId: string) => {
    const file = open(request, importId)?.file;
    if (!file) return null;
    const { id, name, known } = file.records;
    return { id, name, known, bankCode: file.bankCode, returnFile: file.returnFile };
  };

  app.get(
    '/funds',
    {
      schema: {
        operationId: 'inspectReceivablesFunds',
        description:
          'Every receivables fund with whether it has a token (never the token itself) and how many imports it received.',
        tags: TAGS,
        summary: 'Receivables funds (tokens are never shown)',
        querystring: Type.Object(pageQuery(PAGE, PAGE_MAX), { additionalProperties: false }),
        response: {
          200: Type.Object({
            total: Type.Integer({ description: 'funds in all' }),
            funds: Type.Array(
              Type.Object({ fundCnpj: Type.String(), hasToken: Type.Boolean(), imports: Type.Integer() }),
              { description: 'a page of the funds, by CNPJ' },
            ),
            nextCursor: NextCursor,
          }),
          400: StandardError,
          401: StandardError,
        },
      },
    },
    // Synchronous: templates read it through the inspect helper.
    (request) => {
      const store = storeOf(request);
      const page = pageByKey(request.query, PAGE, (after, rows) => store.funds(after, rows), (f) => f.fundCnpj);
      return {
        total: store.fundCount(),
        funds: page.items.map((f) => ({ fundCnpj: f.fundCnpj, hasToken: f.hasToken === 1, imports: f.imports })),
        nextCursor: page.nextCursor,
      };
    },
  );

  app.get(
    '/funds/:fundCnpj/imports',
    {
      schema: {
        description:
          'The CNAB imports the fund received, in the order they were accepted (that of their Sandbox-Import-Id keys and of processing), with their Sandbox-Import-Id, file name, status and counts: a page of limit (default 100); nextCursor, passed as cursor, gives the next ones.',
        operationId: 'inspectReceivablesImports',
        tags: TAGS,
        summary: "A fund's CNAB imports, in the order they were accepted",
        params: Type.Object({
          fundCnpj: Type.String({ description: 'with or without punctuation (URL-encode "/")' }),
        }),
        querystring: Type.Object(pageQuery(PAGE, PAGE_MAX), { additionalProperties: false }),
        response: {
          200: Type.Object({
            fundCnpj: Type.String(),
            total: Type.Integer({ description: 'imports the fund received' }),
            imports: Type.Array(ImportSummary, { description: 'a page of them, in the order they were accepted' }),
            nextCursor: NextCursor,
          }),
          400: StandardError,
          404: StandardError,
        },
        'x-sandbox-assumption': assumed('rc-import-order'),
      },
    },
    (request) => {
      const id = checkTaxId(request.params.fundCnpj, { kinds: ['cnpj'] });
      const store = storeOf(request);
      const fund = id.ok ? store.fund(id.value) : undefined;
      if (!id.ok || !fund)
        throw new SandboxError(404, `no receivables fund with CNPJ ${request.params.fundCnpj}`);
      const { limit = PAGE, cursor } = request.query;
      const after = cursor === undefined ? 0 : Number(decodeCursor(cursor, ['number'])[0]);
      const page = pageOf(store.importsOfFund(fund.fundCnpj, after, limit + 1), limit, (i) => [i.seq], summary);
      return {
        fundCnpj: fund.fundCnpj,
        total: store.importCount(fund.fundCnpj),
        imports: page.items,
        nextCursor: page.nextCursor,
      };
    },
  );

  app.get(
    '/imports/:importId/lines',
    {
      schema: {
        description:
          "A page of the stored file's lines, numbered from 1 and decoded as Latin-1, so a diagnostic's line number can be read in place.",
        operationId: 'inspectReceivablesImportLines',
        tags: TAGS,
        summary: "A page of an import's file, line by line as stored (Latin-1), to read next to its diagnostics",
        params: Type.Object({ importId: Type.String() }),
        querystring: Type.Object({
          // Optional with a default (Ajv fills it): a caller may leave them out.
          offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'lines to skip' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
        }),
        response: {
          200: Type.Object({
            importId: Type.String(),
            lineCount: Type.Integer({ description: 'lines in the file, blank trailing lines included' }),
            lines: Type.Array(
              Type.Object({
                line: Type.Integer({ description: '1-based, as in the diagnostics' }),
                text: Type.String({ description: 'without the line end' }),
              }),
            ),
          }),
          404: StandardError,
        },
      },
      preHandler: readInTurns('lines'),
    },
    (request) => {
      const { importId } = request.params;
      const stored = storedFor(request, importId, 'lines');
      if (!stored?.lines) throw new SandboxError(404, `no CNAB import with id ${importId}`);
      const { offset = 0, limit = 200 } = request.query;
      return {
        importId,
        lineCount: stored.lines.starts.length,
        lines: linesPage(stored.cnab?.file.text ?? stored.bytes ?? '', stored.lines, offset, limit),
      };
    },
  );

  app.get(
    '/imports/:importId',
    {
      schema: {
        operationId: 'inspectReceivablesImport',
        description:
          'One CNAB import (the Sandbox-Import-Id of its submission): processing status, counts, a page of its titles and the diagnostics of its lines.',
        tags: TAGS,
        summary: 'One CNAB import: status, counts, a page of its titles, its diagnostics',
        params: Type.Object({ importId: Type.String() }),
        querystring: Type.Object({
          titlesOffset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
          titlesLimit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: 100 })),
        }),
        response: { 200: ImportDetail, 404: StandardError },
      },
      preHandler: readInTurns('cnab'),
    },
    (request) => {
      const runtime = runtimeOf(request);
      const store = runtime.store.receivables;
      const row = store.import(request.params.importId);
      if (!row) throw new SandboxError(404, `no CNAB import with id ${request.params.importId}`);
      const { titlesOffset = 0, titlesLimit = 100 } = request.query;
      return {
        ...summary(row),
        recordLayout: recordLayoutOf(request, row.importId),
        // Titles are read again from the stored bytes (the same code that checked them).
        titles: titlesOf(request, row.importId, titlesOffset, titlesLimit),
        diagnostics: store.diagnostics(row.importId),
        processing: runtime.workOf(importWork).processingOf(row.importId),
      };
    },
  );
};

/** What the inspector's overview shows of receivables. */
export const receivablesOverview = {
  tables: { rc_funds: 'funds', rc_imports: 'imports', rc_diagnostics: 'diagnostics' },
  warnings(runtime: Runtime): string[] {
    // Maintained counts: the overview costs the same on a large database as on an empty one.
    const { rejected, pending } = runtime.store.receivables.importStates();
    const warnings: string[] = [];
    if (rejected > 0) warnings.push(`receivables: ${rejected} CNAB import(s) rejected`);
    if (pending > 0) warnings.push(`receivables: ${pending} CNAB import(s) still pending`);
    return warnings;
  },
};
