// Recording what the real service answers to the operations the specification names only, as
// WireMock mappings under DIR/mappings/ (WireMock's layout: `--stubs DIR` replays them, and so would
// WireMock). Secrets never reach a file: request headers are not recorded at all (Authorization
// included), and values under a secret's key (token, token_acesso, password, documento, conteudo...)
// are replaced, in the request by a JsonUnit placeholder that matches any value and in the response
// by "[redacted]"; so are the response's headers named like a secret, the secret query values of a
// URL it gives (Location, Content-Location, Link, query or ;path parameters) and the secret fields of a form-encoded answer; and
// each secret the exchange carried is replaced wherever else it appears (an answer that echoes the
// request), as the journal replaces it (EchoSecrets). The request is matched as WireMock's recorder
// matches it: the URL exactly (query and path parameters holding a secret by any value, the file and
// mapping names without their values), a JSON body by
// equalToJson ignoring array order and extra elements, a form by its fields. Identical requests that
// got different answers become a scenario that replays the answers in the order they came, the last
// one repeating; each answer is written once, and only the one before it rewritten to lead to it, so
// a client polling a status costs the same per answer at its thousandth poll as at its first.
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { join } from 'node:path';
import { countStubFolder } from '../stubs/folder.js';
import { MAX_MAPPINGS_PER_WORKSPACE } from '../stubs/stub-set.js';
import { type EchoSecrets, isFormType, isRedactedKey, recordedUrl, REDACTED, redactPairs, redactPathParameters, redactUrlSecrets } from '../runtime/redact.js';
import { exchangeSecrets, plainResponseBody, responseHeader } from './exchange.js';
import type { Exchange } from './proxy.js';

const ANY_STRING = '${json-unit.any-string}';
const ANY_VALUE = '${json-unit.ignore}';

const isSecret = isRedactedKey;

/** Response headers a recorded answer does not repeat: the body's length and framing change. */
const DROPPED_RESPONSE_HEADERS = new Set(['content-length', 'content-encoding', 'date']);
/** Response headers whose value is a URL (Link: several, each in <...>), whose query may hold a token. */
const URL_RESPONSE_HEADERS = new Set(['location', 'content-location']);

/**
 * A JSON value with every secret's value replaced by `replacement(value)`: the values under a
 * secret's key, and (given the exchange's secrets) every string that echoes one.
 */
export function maskSecrets(value: unknown, replacement: (secret: unknown) => unknown, secrets?: EchoSecrets): unknown {
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, replacement, secrets));
  if (typeof value === 'string' && secrets !== undefined && secrets.scrubText(value) !== value) return replacement(value);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[secrets?.scrubText(key) ?? key] = isSecret(key) && v !== null && v !== undefined ? replacement(v) : maskSecrets(v, replacement, secrets);
  }
  return out;
}

/** A regular expression matching `value` as sent, any text where it echoed a secret. */
function echoPattern(value: string, secrets: EchoSecrets): string | undefined {
  const scrubbed = secrets.scrubText(value);
  if (scrubbed === value) return undefined;
  return scrubbed
    .split(REDACTED)
    .map((part) => part.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&'))
    .join('.*');
}

function parseJson(bytes: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

const header = (headers: ReadonlyMap<string, string[]>, name: string) => headers.get(name)?.[0] ?? '';

/** The request part of a recorded mapping: what a replay must match, secrets matched by any value. */
function requestPattern(x: Exchange, secrets: EchoSecrets): Record<string, unknown> {
  const q = x.url.indexOf('?');
  const path = q < 0 ? x.url : x.url.slice(0, q);
  const query = q < 0 ? [] : [...new URLSearchParams(x.url.slice(q + 1))];
  const pattern: Record<string, unknown> = { method: x.method };
  // A value that echoes a secret (after a ";", which URLSearchParams does not split at) is matched by
  // a pattern with any text in the secret's place.
  const echoes = query.map(([, value]) => echoPattern(value, secrets));
  if (query.some(([name], i) => isSecret(name) || echoes[i] !== undefined)) {
    Object.assign(pattern, recordedUrl(path, 'urlPath'));
    const params: Record<string, unknown> = {};
    query.forEach(([name, value], i) => {
      params[name] = isSecret(name) ? { matches: '.*' } : echoes[i] !== undefined ? { matches: echoes[i] } : { equalTo: value };
    });
    pattern.queryParameters = params;
  } else {
    Object.assign(pattern, recordedUrl(x.url, 'url'));
  }
  const body = x.requestBody;
  if (body && body.length > 0) {
    const type = header(x.requestHeaders, 'content-type').toLowerCase();
    const json = type.includes('json') ? parseJson(body) : { ok: false as const };
    if (json.ok) {
      const masked = maskSecrets(json.value, (v) => (typeof v === 'string' ? ANY_STRING : ANY_VALUE), secrets);
      pattern.bodyPatterns = [{ equalToJson: masked, ignoreArrayOrder: true, ignoreExtraElements: true }];
    } else if (isFormType(type)) {
      const fields = [...new URLSearchParams(body.toString('utf8'))].filter(([name, value]) => !isSecret(name) && secrets.scrubText(value) === value);
      if (fields.length > 0) {
        pattern.bodyPatterns = fields.map(([name, value]) => ({
          contains: `${encodeURIComponent(name)}=${encodeURIComponent(value)}`.replace(/%20/g, '+'),
        }));
      }
    }
    // Any other body (XML, a file) may be a document: it is not recorded, and a replay matches any.
  }
  return pattern;
}

function isText(bytes: Buffer): boolean {
  return !bytes.includes(0) && Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}

/** A response header's value as recorded: a secret's redacted, a URL's secret query values redacted, echoes replaced. */
function recordedHeader(name: string, value: string, secrets: EchoSecrets): string {
  const lower = name.toLowerCase();
  if (isSecret(lower)) return REDACTED;
  const urls =
    lower === 'link' ? value.replace(/<([^>]*)>/g, (_, url: string) => `<${redactUrlSecrets(url)}>`) : URL_RESPONSE_HEADERS.has(lower) ? redactUrlSecrets(value) : value;
  return secrets.scrubText(urls);
}

/** The response part of a recorded mapping: the upstream's answer with its secrets replaced. */
function responsePattern(x: Exchange, secrets: EchoSecrets): Record<string, unknown> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of x.responseHeaders) {
    if (DROPPED_RESPONSE_HEADERS.has(name.toLowerCase())) continue;
    const v = recordedHeader(name, value, secrets);
    const existing = headers[name];
    headers[name] = existing === undefined ? v : [...(Array.isArray(existing) ? existing : [existing]), v];
  }
  const response: Record<string, unknown> = { status: x.status };
  if (x.statusMessage && x.statusMessage !== STATUS_CODES[x.status]) response.statusMessage = secrets.scrubText(x.statusMessage);
  if (Object.keys(headers).length > 0) response.headers = headers;
  const body = plainResponseBody(x) ?? Buffer.alloc(0);
  if (body.length > 0) {
    const json = parseJson(body);
    if (json.ok) {
      const masked = secrets.scrub(maskSecrets(json.value, () => REDACTED));
      // The upstream's own text where it held no secret; else the masked value as JSON.
      response.body = JSON.stringify(masked) === JSON.stringify(json.value) ? body.toString('utf8') : JSON.stringify(masked);
    } else if (isText(body)) {
      const text = body.toString('utf8');
      response.body = secrets.scrubText(isFormType(responseHeader(x, 'content-type')) ? redactPairs(text) : text);
    } else {
      response.base64Body = body.toString('base64');
    }
  }
  return response;
}

function slug(text: string): string {
  return text.replace(/^\/+/, '').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 80) || 'root';
}

interface Recorded {
  file: string;
  mapping: Record<string, unknown>;
}

/** The answers recorded so far to one request pattern: how many, and the last one (the one that repeats). */
interface Series {
  count: number;
  last: Recorded;
}

/** How the recorder writes a file: whole, so that a reader (a replay, a copy) never sees half of one. */
export interface RecordFiles {
  write(file: string, text: string): void;
}

const DISK: RecordFiles = {
  write(file, text) {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  },
};

export interface RecorderOptions {
  now?: () => Date;
  files?: RecordFiles;
  /** Told once, when the folder holds as many mappings as --stubs serves (at start, or as it fills). */
  full?: (message: string) => void;
}

/** The header on a proxied answer the recorder would record, once the folder is full (assumption record-limit). */
export const RECORDING_HEADER = 'Sandbox-Recording';

export class Recorder {
  private readonly mappingsDir: string;
  private readonly now: () => Date;
  private readonly files: RecordFiles;
  private readonly tellFull: (message: string) => void;
  /** Mappings the folder holds: an earlier session's, and this one's. */
  private held: number;
  /** The answers recorded so far by request pattern: repeats become scenario states. */
  private readonly bySignature = new Map<string, Series>();

  constructor(
    readonly dir: string,
    options: RecorderOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.files = options.files ?? DISK;
    this.mappingsDir = join(dir, 'mappings');
    mkdirSync(this.mappingsDir, { recursive: true });
    this.tellFull = options.full ?? (() => undefined);
    // Counted as --stubs DIR counts them, the earlier sessions' included: the replay must start.
    this.held = countStubFolder(dir);
    if (this.full) this.tellFull(this.fullMessage());
  }

  /**
   * True once the folder holds as many mappings as --stubs serves (assumption record-limit): no new
   * answer is recorded, so that the folder still replays; the proxy goes on answering.
   */
  get full(): boolean {
    return this.held >= MAX_MAPPINGS_PER_WORKSPACE;
  }

  /** The value of the Sandbox-Recording header on an answer the recorder may no longer record. */
  get fullHeader(): string {
    return `full: the folder holds ${this.held} mappings, the most --stubs serves is ${MAX_MAPPINGS_PER_WORKSPACE}; new answers are not recorded (assumption record-limit)`;
  }

  private fullMessage(): string {
    const over = this.held - MAX_MAPPINGS_PER_WORKSPACE;
    const replay =
      over > 0
        ? `--stubs ${this.dir} refuses it until ${over} of them are removed (record into another folder instead)`
        : `--stubs ${this.dir} serves it as it is`;
    return (
      `the recording in ${this.mappingsDir} holds ${this.held} mappings, the most a --stubs folder serves is ${MAX_MAPPINGS_PER_WORKSPACE} ` +
      `(assumption record-limit): the proxy goes on answering but records no new answer, and says so in the ${RECORDING_HEADER} header of ` +
      `each answer it would have recorded; ${replay}`
    );
  }

  /** Writes the exchange as a mapping (or as the next state of its request's scenario); returns its file. */
  record(x: Exchange, interfaceId: string | null): string | null {
    if (!x.complete || x.requestBody === null || x.responseBody === null) return null;
    const secrets = exchangeSecrets(x);
    const request = requestPattern(x, secrets);
    const response = responsePattern(x, secrets);
    const signature = JSON.stringify(request);
    const series = this.bySignature.get(signature);
    if (series && JSON.stringify(series.last.mapping.response) === JSON.stringify(response)) return series.last.file;
    // A request already recorded keeps its last answer, repeating; a new one is not answered on replay.
    if (this.full) return null;
    const id = randomUUID();
    const path = redactPathParameters(x.url.split('?')[0] ?? '');
    const mapping: Record<string, unknown> = {
      id,
      name: `${x.method} ${path} (recorded)`,
      request,
      response,
      metadata: {
        recorded: { from: x.upstream.url, at: this.now().toISOString(), interface: interfaceId },
      },
    };
    const file = join(this.mappingsDir, `${interfaceId ?? 'other'}-${x.method.toLowerCase()}-${slug(path)}-${id.slice(0, 8)}.json`);
    const entry = { file, mapping };
    if (!series) {
      this.write(entry);
      this.bySignature.set(signature, { count: 1, last: entry });
      this.added();
      return file;
    }
    // WireMock's "repeats as scenarios": each answer in turn, the last one repeating. Answer n is
    // written once, as state answer-n; only answer n-1 changes, to lead to it (and, for the first,
    // to join the scenario): two files per answer however many came before. The new state is written
    // first, so a recording stopped between the two writes still replays: answer n-1 repeats, and
    // answer n waits for a state nothing leads to.
    const n = series.count + 1;
    const scenarioName = `${x.method} ${path} (recorded ${createHash('sha256').update(signature).digest('hex').slice(0, 8)})`;
    mapping.scenarioName = scenarioName;
    mapping.requiredScenarioState = `answer-${n}`;
    this.write(entry);
    const previous = series.last.mapping;
    if (series.count === 1) {
      previous.scenarioName = scenarioName;
      previous.requiredScenarioState = 'Started';
    }
    previous.newScenarioState = `answer-${n}`;
    this.write(series.last);
    series.count = n;
    series.last = entry;
    this.added();
    return file;
  }

  private added(): void {
    this.held += 1;
    if (this.full) this.tellFull(this.fullMessage());
  }

  private write(entry: Recorded): void {
    this.files.write(entry.file, `${JSON.stringify(entry.mapping, null, 2)}\n`);
  }
}
