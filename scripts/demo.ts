// npm run demo [-- <url>]: a guided tour of a running sandbox. It resets the sandbox to the demo
// fixtures (so it can run again and again), then walks through every documented operation, printing
// each request and the answer in a line or two, and ends with the inspector's address.
// SANDBOX_ADMIN_TOKEN, when set, is sent to the control plane as the sandbox expects.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CoverageReport } from '../src/runtime/coverage.js';

export interface DemoOptions {
  /** Base URL of the sandbox, e.g. http://127.0.0.1:3000 */
  url: string;
  adminToken?: string;
  /** Where the tour is printed (default: stdout). */
  print?: (line: string) => void;
}

export interface DemoResult {
  /** The inspector's address, with the admin token in its fragment when there is one. */
  inspector: string;
  rejectedImportId: string;
  processedImportId: string;
  chaveRemessa: string;
  codigoIdentificador: string;
  /** The coverage totals the tour ended with. */
  coverage: CoverageReport['totals'];
}

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

const TENANT = '11222333000181';
const BK = `/api/bookkeeping/integration/v1/${TENANT}/trade-receivable-certificates`;

/** A minimal valid PDF (header, catalog, trailer, %%EOF). */
const PDF = Buffer.from(
  '%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
  'latin1',
).toString('base64');

function brief(body: unknown, max = 160): string {
  if (body === undefined || body === '') return '(no body)';
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

class DemoError extends Error {}

export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const base = options.url.replace(/\/+$/, '');
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  let step = 0;

  async function call(
    title: string,
    method: string,
    path: string,
    body: unknown,
    expect: number,
    show: (a: Answer) => string = (a) => brief(a.body),
    /** What to print for the body (files shortened); the body sent is `body`. */
    shown: unknown = body,
  ): Promise<Answer> {
    step += 1;
    print(`\n${step}. ${title}`);
    print(`   ${method} ${path}${shown === undefined ? '' : `  ${brief(shown, 120)}`}`);
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (path.startsWith('/_sandbox') && options.adminToken) headers['sandbox-admin-token'] = options.adminToken;
    const res = await fetch(base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: shown as text
    }
    const answer = { status: res.status, headers: res.headers, body: parsed };
    print(`   -> ${res.status} ${show(answer)}`);
    if (res.status !== expect)
      throw new DemoError(`step ${step} (${title}) answered ${res.status}, expected ${expect}: ${brief(parsed, 400)}`);
    return answer;
  }
  const field = <T>(a: Answer, key: string): T => (a.body as Record<string, T>)[key] as T;

  await call('Is the sandbox up?', 'GET', '/_sandbox/health', undefined, 200);
  const demo = JSON.parse(readFileSync(fixture('demo.json'), 'utf8')) as unknown;
  await call(
    'Reset it to the demo fixtures (the tour can run again)',
    'POST',
    '/_sandbox/reset',
    { fixtures: demo },
    200,
    (a) => brief(field(a, 'loaded')),
    { fixtures: '<the document in fixtures/demo.json>' },
  );

  // --- bookkeeping ---
  const bearer = 'Bearer bk-demo-token-7';
  step += 1;
  print(`\n${step}. Bookkeeping: list the extract requests (first page of 10, newest first)`);
  print(`   GET ${BK}/extract?page=1&pageSize=10&sortBy=registeredAt&desc=true  (Authorization: ${bearer.slice(0, 10)}…)`);
  const extract = await fetch(`${base}${BK}/extract?page=1&pageSize=10&sortBy=registeredAt&desc=true`, {
    headers: { authorization: bearer },
  });
  const extractBody = (await extract.json()) as Record<string, unknown>;
  // The page's fields, its lists shown by their length.
  const summary = Object.entries(extractBody).map(([k, v]) =>
    Array.isArray(v) ? `${k}: ${v.length} items` : `${k}: ${JSON.stringify(v)}`,
  );
  print(`   -> ${extract.status} ${summary.join(', ')}`);
  if (extract.status !== 200) throw new DemoError(`the extract answered ${extract.status}`);

  const pay = async (title: string, body: Record<string, unknown>) => {
    step += 1;
    print(`\n${step}. ${title}`);
    print(`   PUT ${BK}/IUD-0001/payment  ${brief(body)}`);
    const res = await fetch(`${base}${BK}/IUD-0001/payment`, {
      method: 'PUT',
      headers: { authorization: bearer, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    print(`   -> ${res.status} ${brief(text)}`);
    if (res.status !== 204) throw new DemoError(`the payment answered ${res.status}: ${text}`);
  };
  const bill = `/_sandbox/bookkeeping/tenants/${TENANT}/trade-bills/IUD-0001`;
  const showBill = (a: Answer) =>
    `open value ${field<number>(a, 'openValue')} of ${field<number>(a, 'amount')}, ${field<string>(a, 'status')}`;
  await pay('Bookkeeping: a partial payment of 100.25 on IUD-0001 (open 1500.00)', {
    type: 'bankSlip',
    informantId: 'directByDrawerHolder',
    isPartial: true,
    paymentValue: 100.25,
    remainingValue: 1399.75,
  });
  await call('Inspect the bill', 'GET', bill, undefined, 200, showBill);
  await pay('Bookkeeping: the total payment of the rest', {
    type: 'bankSlip',
    informantId: 'directByDrawerHolder',
    isPartial: false,
    paymentValue: 1399.75,
    remainingValue: 0,
  });
  await call('Inspect the bill again', 'GET', bill, undefined, 200, showBill);

  // --- registry ---
  const docs = [
    {
      numeroDuplicata: 'DEMO-1',
      dataEmissao: '2026-11-01',
      dataVencimento: '2026-12-01',
      valorDuplicata: 1500.5,
      cpfCnpjSacado: '11.222.333/0001-81',
      codigoIBGEPracaPagamento: 3550308,
    },
    {
      numeroDuplicata: 'DEMO-2',
      dataEmissao: '2026-11-01',
      dataVencimento: '2026-12-15',
      valorDuplicata: 830.5,
      cpfCnpjSacado: '529.982.247-26',
      codigoIBGEPracaPagamento: 3304557,
    },
  ];
  const rg = async (op: string, body: unknown, title: string) => {
    step += 1;
    print(`\n${step}. ${title}`);
    print(`   POST /api/v1.0/service/dup/${op}  ${brief(body, 120)}`);
    const res = await fetch(`${base}/api/v1.0/service/dup/${op}`, {
      method: 'POST',
      headers: { authorization: 'Bearer rg-demo-token-1', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const parsed = (await res.json()) as Record<string, string>;
    const warnings = res.headers.get('sandbox-warnings');
    print(`   -> ${res.status} ${brief(parsed)}${warnings ? `  (Sandbox-Warnings: ${warnings})` : ''}`);
    if (res.status !== 200) throw new DemoError(`${op} answered ${res.status}`);
    return parsed;
  };
  const registered = await rg(
    'registrar_documentos',
    { registros: docs },
    'Registry: register two trade bills in one batch (the second drawee CPF has a wrong check digit: a warning)',
  );
  const chaveRemessa = registered.chaveRemessa ?? '';
  const batch = await call('Inspect the batch', 'GET', `/_sandbox/registry/batches/${chaveRemessa}`, undefined, 200, (a) => {
    const d = field<Array<{ chaveRegistro: string }>>(a, 'documents');
    return `chaveRegistro ${d.map((x) => x.chaveRegistro).join(', ')}; ${field<unknown[]>(a, 'warnings').length} warning(s)`;
  });
  const keys = field<Array<{ chaveRegistro: string }>>(batch, 'documents').map((d) => d.chaveRegistro);
  const reconciled = await rg(
    'conciliar_documentos',
    {
      registros: [
        { ...docs[0], chaveRegistro: keys[0] },
        { ...docs[1], chaveRegistro: keys[1], valorDuplicata: 831.5 },
        { numeroDuplicata: 'DEMO-X', chaveRegistro: 'RG-NOT-REGISTERED' },
      ],
    },
    'Registry: reconcile them (one matches, one diverges on the amount, one is unknown)',
  );
  await call(
    'Inspect the reconciliation',
    'GET',
    `/_sandbox/registry/reconciliations/${reconciled.chaveConciliacao}`,
    undefined,
    200,
    (a) => brief(field(a, 'counts')),
  );

  // --- receivables ---
  const cnab = readFileSync(fixture('cnab444-demo.rem'));
  const importCnab = async (title: string, file: Buffer, fileName: string): Promise<string> => {
    const body = {
      token: 'rc-demo-token-1',
      fundCnpj: '11.222.333/0001-81',
      operationFile: file.toString('base64'),
      fileName,
      additiveNumber: 1,
    };
    const a = await call(
      title,
      'POST',
      '/v1/import-cnab',
      body,
      200,
      (r) => `${brief(r.body)}; Sandbox-Import-Id: ${r.headers.get('sandbox-import-id')}`,
      { ...body, operationFile: `<${file.length} bytes, base64>` },
    );
    const id = a.headers.get('sandbox-import-id');
    if (!id) throw new DemoError('import-cnab answered without a Sandbox-Import-Id header');
    return id;
  };
  const processedImportId = await importCnab(
    'Receivables: submit the CNAB 444 demo file (answered at once, processed later)',
    cnab,
    'cnab444-demo.rem',
  );
  // A copy whose first title has a zero face value (columns 127-139): a structural fault.
  const lines = cnab.toString('latin1').split('\r\n');
  lines[1] = `${lines[1]?.slice(0, 126)}${'0'.repeat(13)}${lines[1]?.slice(139)}`;
  const bad = Buffer.from(lines.join('\r\n'), 'latin1');
  const rejectedImportId = await importCnab(
    'Receivables: submit a copy whose first title has a zero face value',
    bad,
    'cnab444-zero-value.rem',
  );
  const importState = (a: Answer) =>
    `${field<string>(a, 'status')}; ${field<number | null>(a, 'titleCount') ?? '-'} titles, ` +
    `${field<number | null>(a, 'errorCount') ?? '-'} errors, ${field<number | null>(a, 'warningCount') ?? '-'} warnings`;
  await call('Inspect the first import: still pending (processed once the work delay has passed, SANDBOX_WORK_DELAY, 1 s by default)', 'GET', `/_sandbox/receivables/imports/${processedImportId}`, undefined, 200, importState);
  await call('Run the pending processing now', 'POST', '/_sandbox/work/run', undefined, 200);
  await call('Inspect the first import again: processed', 'GET', `/_sandbox/receivables/imports/${processedImportId}`, undefined, 200, importState);
  await call(
    'Inspect the second import: rejected, with the line and columns',
    'GET',
    `/_sandbox/receivables/imports/${rejectedImportId}`,
    undefined,
    200,
    (a) => {
      const d = field<Array<{ line: number; columns: string; message: string }>>(a, 'diagnostics')[0];
      return `${importState(a)}; ${d ? `line ${d.line}, columns ${d.columns}: ${d.message}` : ''}`;
    },
  );

  // --- loan-bond ---
  const lb = {
    versao: '2.0',
    token: 'lb-demo-token-1',
    registros: [
      {
        nome_documento: 'ccb-demo.pdf',
        assinado: false,
        emails_final_fluxo: ['ops@example.com'],
        assinantes: [{ cpf_cnpj: '52998224725', nome: 'Maria Silva', papel: 'emitente', email: 'maria@example.com' }],
        assinaturas: [{ cpf_cnpj: '52998224725', nome_assinante: 'Maria Silva', data_assinatura: '2026-11-01T10:00:00Z' }],
        parcelas: [{ numero: 1, data_vencimento: '2026-12-10', valor: 1500.5 }],
        documento: PDF,
      },
    ],
  };
  const lbAnswer = await call(
    'Loan-bond: register a CCB with a small PDF (assinado false: its signature is not imported, rule 7)',
    'POST',
    '/api/service/document/registrar',
    lb,
    201,
    (a) => {
      const r = field<Array<Record<string, string>>>(a, 'registros')[0] ?? {};
      return `codigo ${field<string>(a, 'codigo')}, codigo_identificador ${r.codigo_identificador}, chave_registro ${r.chave_registro}, token_acesso [kept by you]`;
    },
    { ...lb, registros: lb.registros.map((r) => ({ ...r, documento: `<${Buffer.from(PDF, 'base64').length} bytes, base64>` })) },
  );
  const codigoIdentificador = field<Array<Record<string, string>>>(lbAnswer, 'registros')[0]?.codigo_identificador ?? '';
  await call('Run the pending processing now', 'POST', '/_sandbox/work/run', undefined, 200);
  await call(
    'Inspect the registration',
    'GET',
    `/_sandbox/loanbond/registrations/${codigoIdentificador}`,
    undefined,
    200,
    (a) => `${field<string>(a, 'state')}; signatures: ${field<{ note: string }>(a, 'assinaturas').note}`,
  );

  await call('The journal keeps every request above, redacted', 'GET', '/_sandbox/requests?limit=3', undefined, 200, (a) =>
    `${field<number>(a, 'count')} entries; newest: ${field<Array<{ method: string; path: string; status: number }>>(a, 'entries')
      .map((e) => `${e.method} ${e.path} ${e.status}`)
      .join(' | ')}`,
  );

  const inspector = `${base}/_sandbox/ui${options.adminToken ? `#adminToken=${encodeURIComponent(options.adminToken)}` : ''}`;
  print(`\nEvery step succeeded. Open the inspector to see the state: ${inspector}`);

  // The tour ends with what it covered: the outcomes of the documented operations it met.
  const headers: Record<string, string> = options.adminToken ? { 'sandbox-admin-token': options.adminToken } : {};
  const res = await fetch(`${base}/_sandbox/coverage`, { headers });
  if (res.status !== 200) throw new DemoError(`GET /_sandbox/coverage answered ${res.status}`);
  const coverage = (await res.json()) as CoverageReport;
  print(
    `\nClient coverage of this tour (GET /_sandbox/coverage; ?format=junit for CI, ?format=markdown for a pull request):\n`,
  );
  for (const line of coverageTable(coverage)) print(line);
  return { inspector, rejectedImportId, processedImportId, chaveRemessa, codigoIdentificador, coverage: coverage.totals };
}

/** One row per operation: outcomes met of all, answers counted, and the outcomes met. */
export function coverageTable(report: CoverageReport): string[] {
  const rows = report.operations.map((op) => [
    op.interface,
    op.operation,
    `${op.totals.covered} of ${op.totals.outcomes}`,
    String(op.totals.hits),
    op.outcomes
      .filter((o) => o.hits > 0)
      .map((o) => o.id.slice(op.operation.length + 1))
      .join(', '),
  ]);
  const t = report.totals;
  const all = [
    ['interface', 'operation', 'outcomes met', 'answers', 'met'],
    ...rows,
    ['all', '', `${t.covered} of ${t.outcomes}`, String(t.hits), ''],
  ];
  const widths = [0, 1, 2, 3].map((i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i < 4 ? c.padEnd(widths[i] ?? 0) : c))
      .join('  ')
      .trimEnd();
  return [line(all[0] ?? []), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)];
}

function fixture(name: string): string {
  // From the sources (scripts/) or compiled (dist-bench/scripts/): the fixtures sit at the package root.
  for (const up of ['../fixtures/', '../../fixtures/']) {
    const path = fileURLToPath(new URL(up + name, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new DemoError(`fixtures/${name} not found next to the demo script`);
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const url = process.argv[2] ?? 'http://127.0.0.1:3000';
  runDemo({ url, adminToken: process.env.SANDBOX_ADMIN_TOKEN || undefined }).catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    const hint =
      err instanceof TypeError ? ` (is the sandbox running at ${url}? start it with npm start)` : '';
    process.stderr.write(`\ndemo failed: ${message}${hint}\n`);
    process.exit(1);
  });
}
