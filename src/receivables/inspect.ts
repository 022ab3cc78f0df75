// Inspection of the receivables interface's state, mounted under /_sandbox/receivables (admin-token rule applies).
// Funds (never their tokens), a fund's imports, and one import with its counts, titles and diagnostics.
import { CONTROL_TAG } from '../http/openapi.js';
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { centsToNumber } from '../domain/money.js';
import { checkTaxId } from '../domain/tax-id.js';
import { SandboxError } from '../http/errors.js';
import { decodeCursor, NextCursor, pageByKey, pageOf, pageQuery } from '../http/paging.js';
import { AmountOut, ProcessingRecord, StandardError } from '../http/schema.js';
import type { ImportRow, ReceivablesStore } from '../store/receivables.js';
import { CnabFile } from './cnab-record.js';
import { importWork } from './runner.js';
import { type Runtime, runtimeOf } from '../runtime/index.js';
import type { FastifyRequest } from 'fastify';

const TAGS = [CONTROL_TAG.name];
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
  receivedAt: Type.String(),
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

/** The file's lines as stored: LF or CR LF ends, a trailing EOF byte and final line end dropped. */
function fileLines(bytes: Buffer): string[] {
  let text = bytes.toString('latin1');
  if (text.endsWith('\x1a')) text = text.slice(0, -1);
  if (text.endsWith('\n')) text = text.slice(0, -1);
  return text === '' ? [] : text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

const storeOf = (request: FastifyRequest) => runtimeOf(request).store.receivables;

export const receivablesInspection: FastifyPluginAsyncTypebox = async (app) => {
  // The last file opened, with its title lines: paging through a 100 000-title import reads it once.
  let cached: { store: ReceivablesStore; importId: string; file: CnabFile; titles: number[] } | undefined;

  const open = (store: ReceivablesStore, importId: string) => {
    if (cached?.importId !== importId || cached.store !== store) {
      const bytes = store.file(importId);
      const opened = bytes ? CnabFile.open(bytes) : undefined;
      if (!opened?.ok) return undefined;
      cached = { store, importId, file: opened.file, titles: opened.file.titleIndexes() };
    }
    return cached;
  };

  const titlesOf = (store: ReceivablesStore, importId: string, offset: number, limit: number) => {
    const opened = open(store, importId);
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

  const recordLayoutOf = (store: ReceivablesStore, importId: string) => {
    const file = open(store, importId)?.file;
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
          'The CNAB imports the fund received, oldest first, with their Sandbox-Import-Id, file name, status and counts: a page of limit (default 100); nextCursor, passed as cursor, gives the next ones.',
        operationId: 'inspectReceivablesImports',
        tags: TAGS,
        summary: "A fund's CNAB imports, oldest first",
        params: Type.Object({
          fundCnpj: Type.String({ description: 'with or without punctuation (URL-encode "/")' }),
        }),
        querystring: Type.Object(pageQuery(PAGE, PAGE_MAX), { additionalProperties: false }),
        response: {
          200: Type.Object({
            fundCnpj: Type.String(),
            total: Type.Integer({ description: 'imports the fund received' }),
            imports: Type.Array(ImportSummary, { description: 'a page of them, oldest first' }),
            nextCursor: NextCursor,
          }),
          400: StandardError,
          404: StandardError,
        },
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
    },
    (request) => {
      const { importId } = request.params;
      const bytes = storeOf(request).file(importId);
      if (!bytes) throw new SandboxError(404, `no CNAB import with id ${importId}`);
      const all = fileLines(bytes);
      const { offset = 0, limit = 200 } = request.query;
      return {
        importId,
        lineCount: all.length,
        lines: all.slice(offset, offset + limit).map((text, i) => ({ line: offset + i + 1, text })),
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
    },
    (request) => {
      const runtime = runtimeOf(request);
      const store = runtime.store.receivables;
      const row = store.import(request.params.importId);
      if (!row) throw new SandboxError(404, `no CNAB import with id ${request.params.importId}`);
      const { titlesOffset = 0, titlesLimit = 100 } = request.query;
      return {
        ...summary(row),
        recordLayout: recordLayoutOf(store, row.importId),
        // Titles are read again from the stored bytes (the same code that checked them).
        titles: titlesOf(store, row.importId, titlesOffset, titlesLimit),
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
