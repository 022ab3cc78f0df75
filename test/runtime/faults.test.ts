import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { globMatches } from '../../src/runtime/faults.js';
import { BASE_FIXTURES, testApp } from '../helpers.js';

type App = Awaited<ReturnType<typeof testApp>>;

const REGISTER_DOCUMENTS = '/api/v1.0/service/dup/registrar_documentos';
const DECLARE_PAYMENT =
  '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/IUD-0001/payment';
// Not documented: a 501 before and after the receivables interface is implemented.
const RECEIVABLES_UNDOCUMENTED = '/v1/validate-operation-batch';

async function addFault(app: App, rule: Record<string, unknown>) {
  return app.inject({ method: 'POST', url: '/_sandbox/faults', payload: rule });
}

function register(app: App) {
  return app.inject({
    method: 'POST',
    url: REGISTER_DOCUMENTS,
    headers: { authorization: 'Bearer rg-token-1' },
    payload: { registros: [] },
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('fault rules', () => {
  it('make exactly the next 2 matching calls fail with the documented status and error body, then serve normally', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const added = await addFault(app, { method: 'POST', path: REGISTER_DOCUMENTS, status: 500, times: 2 });
    expect(added.statusCode).toBe(201);
    const id = (added.json() as { id: string }).id;

    for (let i = 0; i < 2; i++) {
      const res = await register(app);
      expect(res.statusCode).toBe(500);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const body = res.json() as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['details', 'error', 'message', 'statusCode']);
      expect(body).toMatchObject({ statusCode: 500, error: 'Internal Server Error', details: [] });
      expect(body.message).toContain(id);
    }
    const third = await register(app);
    expect(third.statusCode).not.toBe(500);
    expect(third.body).not.toContain(id);

    const list = (await app.inject({ url: '/_sandbox/faults' })).json() as {
      faults: Array<{ id: string; hits: number; remaining: number }>;
    };
    expect(list.faults).toEqual([expect.objectContaining({ id, hits: 2, remaining: 0, times: 2 })]);
    const journal = (await app.inject({ url: '/_sandbox/requests?interface=registry' })).json() as {
      entries: Array<{ fault: string | null; status: number }>;
    };
    expect(journal.entries.map((e) => e.fault)).toEqual([null, id, id]);
  });

  it('answers in the receivables envelope, with the code given', async () => {
    const app = await testApp();
    await addFault(app, { path: '/v1/*', status: 400, code: 'InvalidToken', message: 'token expired' });
    const res = await app.inject({ method: 'POST', url: RECEIVABLES_UNDOCUMENTED, payload: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'InvalidToken', message: 'token expired', target: null } });
  });

  it('match on method, on the interface, and on * patterns', async () => {
    const app = await testApp();
    await addFault(app, { method: 'PUT', path: '/api/bookkeeping/integration/v1/*/payment', status: 403 });
    expect((await app.inject({ method: 'PUT', url: DECLARE_PAYMENT, payload: {} })).statusCode).toBe(403);
    // Another method, another path: the rule does not apply.
    const get = await app.inject({ url: DECLARE_PAYMENT });
    expect(get.statusCode).not.toBe(403);
    const other = await app.inject({
      method: 'PUT',
      url: '/api/bookkeeping/integration/v1/x/other',
      payload: {},
    });
    expect(other.statusCode).not.toBe(403);

    // interface alone: the whole interface, whatever the path.
    await addFault(app, { interface: 'loanbond', status: 401 });
    expect((await app.inject({ url: '/api/service/document/anything/at/all' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/api/bookkeeping/x' })).statusCode).not.toBe(401);
  });

  it('apply the first matching rule in the order added, until removed', async () => {
    const app = await testApp();
    const first = (await addFault(app, { path: `${REGISTER_DOCUMENTS}*`, status: 401, times: 1 })).json() as {
      id: string;
    };
    const second = (await addFault(app, { interface: 'registry', status: 400 })).json() as { id: string };
    expect((await register(app)).statusCode).toBe(401);
    expect((await register(app)).statusCode).toBe(400);
    expect((await register(app)).statusCode).toBe(400);
    const del = await app.inject({ method: 'DELETE', url: `/_sandbox/faults/${second.id}` });
    expect(del.json()).toEqual({ removed: 1 });
    expect((await register(app)).statusCode).not.toBe(400);
    const list = (await app.inject({ url: '/_sandbox/faults' })).json() as { faults: Array<{ id: string }> };
    expect(list.faults.map((f) => f.id)).toEqual([first.id]);
    expect((await app.inject({ method: 'DELETE', url: '/_sandbox/faults' })).json()).toEqual({ removed: 1 });
    expect((await app.inject({ method: 'DELETE', url: `/_sandbox/faults/${first.id}` })).statusCode).toBe(
      404,
    );
  });

  it('refuse a status the interface does not document, with a 400 naming the field', async () => {
    const app = await testApp();
    const res = await addFault(app, { path: REGISTER_DOCUMENTS, status: 503 });
    expect(res.statusCode).toBe(400);
    const body = res.json() as { details: Array<{ path: string; message: string }> };
    expect(body.details).toEqual([
      {
        path: '/status',
        message: '503 is not a documented status of the registry interface: one of 400, 401, 500',
      },
    ]);
    // 403 is documented for bookkeeping but not for loan-bond.
    expect((await addFault(app, { interface: 'bookkeeping', status: 403 })).statusCode).toBe(201);
    expect((await addFault(app, { interface: 'loanbond', status: 403 })).statusCode).toBe(400);
    expect((await addFault(app, { interface: 'receivables', status: 500 })).statusCode).toBe(400);
  });

  it('refuse a rule that names no interface, no status and no delay, or a path outside its interface', async () => {
    const app = await testApp();
    const outside = await addFault(app, { path: '/somewhere/*', status: 400 });
    expect(outside.statusCode).toBe(400);
    expect(JSON.stringify(outside.json())).toContain('/path');
    const nothing = await addFault(app, { path: REGISTER_DOCUMENTS });
    expect(nothing.statusCode).toBe(400);
    const mismatch = await addFault(app, { interface: 'receivables', path: REGISTER_DOCUMENTS, status: 400 });
    expect(mismatch.statusCode).toBe(400);
    expect(JSON.stringify(mismatch.json())).toContain('/path');
    const code = await addFault(app, { interface: 'registry', status: 400, code: 'InvalidToken' });
    expect(code.statusCode).toBe(400);
    expect(JSON.stringify(code.json())).toContain('/code');
    const unknown = await addFault(app, { interface: 'registry', status: 400, retries: 2 });
    expect(unknown.statusCode).toBe(400);
    expect((await app.inject({ url: '/_sandbox/faults' })).json()).toEqual({ faults: [] });
  });

  it('a delay rule holds the answer for the delay, then the request proceeds', async () => {
    const app = await testApp();
    await addFault(app, { path: RECEIVABLES_UNDOCUMENTED, delayMs: 5000, times: 1 });
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    let answered = false;
    const pending = app.inject({ method: 'POST', url: RECEIVABLES_UNDOCUMENTED, payload: {} }).then((res) => {
      answered = true;
      return res;
    });
    // Wait until the request reaches the rule and its timer is set (setImmediate is not faked).
    for (let turns = 0; vi.getTimerCount() === 0 && turns < 1000; turns++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(4990);
    expect(answered).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    const res = await pending;
    expect(answered).toBe(true);
    // The request went on to the interface: its own 501 answer.
    expect(res.statusCode).toBe(501);
    vi.useRealTimers();
    const journal = (await app.inject({ url: '/_sandbox/requests' })).json() as {
      entries: Array<{ fault: string | null }>;
    };
    expect(journal.entries[0]?.fault).toBe('fault-1');
  });

  it('are cleared by reset', async () => {
    const app = await testApp();
    await addFault(app, { interface: 'registry', status: 500 });
    await app.inject({ method: 'POST', url: '/_sandbox/reset', payload: {} });
    expect((await app.inject({ url: '/_sandbox/faults' })).json()).toEqual({ faults: [] });
  });
});

/** What a pattern means, written the slow obvious way: a table of which prefixes match which. */
function reference(glob: string, text: string): boolean {
  // at[i * width + j]: glob[i..] matches text[j..]
  const width = text.length + 1;
  const at = new Array<boolean>((glob.length + 1) * width).fill(false);
  at[glob.length * width + text.length] = true;
  for (let i = glob.length - 1; i >= 0; i--) {
    for (let j = text.length; j >= 0; j--) {
      const next = at[(i + 1) * width + j] === true;
      at[i * width + j] =
        glob[i] === '*'
          ? next || (j < text.length && at[i * width + j + 1] === true)
          : j < text.length && glob[i] === text[j] && at[(i + 1) * width + j + 1] === true;
    }
  }
  return at[0] === true;
}

describe('path patterns', () => {
  it('read * as any characters and everything else literally', () => {
    expect(globMatches('/api/v1.0/*', '/api/v1.0/service/dup/x')).toBe(true);
    expect(globMatches('/api/v1.0/*', '/api/v1X0/service')).toBe(false);
    expect(globMatches('/v1/import-cnab', '/v1/import-cnab/')).toBe(false);
    expect(globMatches('/a/*/c', '/a/b/b/c')).toBe(true);
    expect(globMatches('/a/(b|c)+/[x]?', '/a/(b|c)+/[x]?')).toBe(true);
    expect(globMatches('/a/(b|c)+', '/a/bb')).toBe(false);
  });

  it('match exactly as the definition says, for any pattern and path', () => {
    const char = fc.constantFrom('a', 'b', '/', '*', '.');
    const glob = fc.array(char, { maxLength: 8 }).map((cs) => cs.join(''));
    const text = fc.array(fc.constantFrom('a', 'b', '/', '.', '*'), { maxLength: 12 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(glob, text, (g, t) => {
        expect(globMatches(g, t)).toBe(reference(g, t));
      }),
      { numRuns: 3000 },
    );
  });

  it('take at most (path length + 1) x (pattern length + 1) comparisons, whatever the pattern', () => {
    // 30 stars each followed by "a", then "b", against 60 a's: a regular expression with a .* per
    // star tries every way of sharing the a's among the stars before it fails.
    const adversarial = `${'*a'.repeat(30)}b`;
    const path = 'a'.repeat(60);
    const counter = { steps: 0 };
    expect(globMatches(adversarial, path, counter)).toBe(false);
    expect(counter.steps).toBeLessThanOrEqual((path.length + 1) * (adversarial.length + 1));

    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('*', 'a', 'b'), { maxLength: 40 }).map((cs) => cs.join('')),
        fc.array(fc.constantFrom('a', 'b'), { maxLength: 200 }).map((cs) => cs.join('')),
        (g, t) => {
          const steps = { steps: 0 };
          globMatches(g, t, steps);
          expect(steps.steps).toBeLessThanOrEqual((t.length + 1) * (g.length + 1));
        },
      ),
    );
  });

  it('leave the sandbox answering when a rule\'s pattern has many stars', async () => {
    const app = await testApp({ fixtures: BASE_FIXTURES });
    const added = await addFault(app, { interface: 'registry', status: 500, path: `${'*a'.repeat(30)}b` });
    expect(added.statusCode).toBe(201);
    const missed = await app.inject({ method: 'POST', url: `/api/v1.0/service/dup/${'a'.repeat(60)}`, payload: {} });
    expect(missed.statusCode).not.toBe(500);
    const hit = await app.inject({ method: 'POST', url: `/api/v1.0/service/dup/${'a'.repeat(60)}b`, payload: {} });
    expect(hit.statusCode).toBe(500);
  });
});
