// What a new user notices over HTTP: an answer from a workspace its request created says so (a
// header and a log line), a name near an existing workspace's is pointed out as a likely typo, and a
// locked control plane tells a missing key from a wrong one (both 401).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { similarWorkspaceName } from '../../src/control/workspace-routes.js';
import { type Sandbox, startSandbox } from '../../src/index.js';
import { BASE_FIXTURES, LogCapture } from '../helpers.js';

const BK_EXTRACT = '/api/bookkeeping/integration/v1/11222333000181/trade-receivable-certificates/extract';
const bk = { authorization: 'Bearer bk-token-1' };

interface LogLine {
  level: number;
  msg: string;
  workspace?: string;
  similar?: string;
}
const INFO = 30;
const WARN = 40;

describe('an answer from a workspace created by that very request', () => {
  const capture = new LogCapture();
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ fixtures: BASE_FIXTURES, logger: { level: 'info', stream: capture } });
  });
  afterAll(() => sandbox.close());
  const logs = () => capture.lines.map((l) => JSON.parse(l) as LogLine);

  it('carries Sandbox-Workspace-Created on the first answer only, and never in the default workspace', async () => {
    const first = await fetch(`${sandbox.url}/ws/fresh${BK_EXTRACT}?page=1`, { headers: bk });
    expect(first.status).toBe(200);
    expect(first.headers.get('sandbox-workspace-created')).toBe('fresh');
    expect(first.headers.get('sandbox-workspace-similar')).toBeNull();
    const again = await fetch(`${sandbox.url}/ws/fresh${BK_EXTRACT}`, { headers: bk });
    expect(again.status).toBe(200);
    expect(again.headers.get('sandbox-workspace-created')).toBeNull();
    const plain = await fetch(`${sandbox.url}${BK_EXTRACT}`, { headers: bk });
    expect(plain.headers.get('sandbox-workspace-created')).toBeNull();
  });

  it('says so on a refusal, on a control call and on HEAD too: whatever the status, the workspace now exists', async () => {
    const refused = await fetch(`${sandbox.url}/ws/refused${BK_EXTRACT}`, { headers: { authorization: 'Bearer nope' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('sandbox-workspace-created')).toBe('refused');
    const control = await fetch(`${sandbox.url}/ws/ctl/_sandbox/clock`);
    expect(control.status).toBe(200);
    expect(control.headers.get('sandbox-workspace-created')).toBe('ctl');
    const head = await fetch(`${sandbox.url}/ws/headed${BK_EXTRACT}`, { method: 'HEAD', headers: bk });
    expect(head.status).toBe(200);
    expect(head.headers.get('sandbox-workspace-created')).toBe('headed');
  });

  it('is not sent for a workspace created beforehand with POST /_sandbox/workspaces', async () => {
    const made = await fetch(`${sandbox.url}/_sandbox/workspaces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'prepared' }),
    });
    expect(made.status).toBe(201);
    const used = await fetch(`${sandbox.url}/ws/prepared${BK_EXTRACT}`, { headers: bk });
    expect(used.status).toBe(200);
    expect(used.headers.get('sandbox-workspace-created')).toBeNull();
  });

  it('logs "workspace \'x\' created by METHOD path" at info, without the query string', async () => {
    await fetch(`${sandbox.url}/ws/logged${BK_EXTRACT}?page=1&size=5`, { headers: bk });
    const line = logs().find((l) => l.msg.startsWith("workspace 'logged' created by"));
    expect(line).toMatchObject({ level: INFO, workspace: 'logged', msg: `workspace 'logged' created by GET /ws/logged${BK_EXTRACT}` });
  });

  it('names an existing workspace whose name is near the new one, in a header and a warning', async () => {
    await fetch(`${sandbox.url}/_sandbox/workspaces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'team-a' }),
    });
    const typo = await fetch(`${sandbox.url}/ws/tema-a${BK_EXTRACT}`, { headers: bk });
    expect(typo.headers.get('sandbox-workspace-created')).toBe('tema-a');
    expect(typo.headers.get('sandbox-workspace-similar')).toBe('team-a');
    const warning = logs().find((l) => l.level === WARN && l.workspace === 'tema-a');
    expect(warning?.msg).toBe(`workspace 'tema-a' created by GET /ws/tema-a${BK_EXTRACT}: did you mean 'team-a', which exists?`);
    expect(warning?.similar).toBe('team-a');
    // Explicit creation is told too: its 201 carries the near name.
    const explicit = await fetch(`${sandbox.url}/_sandbox/workspaces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'team-aa' }),
    });
    expect(explicit.status).toBe(201);
    expect(explicit.headers.get('sandbox-workspace-similar')).toBe('team-a');
  });

  it('does not take a series of numbered workers for typos', async () => {
    await fetch(`${sandbox.url}/ws/w1${BK_EXTRACT}`, { headers: bk });
    const second = await fetch(`${sandbox.url}/ws/w2${BK_EXTRACT}`, { headers: bk });
    expect(second.headers.get('sandbox-workspace-created')).toBe('w2');
    expect(second.headers.get('sandbox-workspace-similar')).toBeNull();
  });
});

describe('similarWorkspaceName', () => {
  it('finds a typo (a swap, a letter dropped or added), nearest first, and leaves short names and worker series alone', () => {
    expect(similarWorkspaceName('tema-a', ['default', 'team-a'])).toBe('team-a');
    expect(similarWorkspaceName('defualt', ['default'])).toBe('default');
    expect(similarWorkspaceName('payments', ['default', 'payment', 'paymentz'])).toBe('payment');
    expect(similarWorkspaceName('billing', ['default', 'team-a'])).toBeUndefined();
    // Too short to tell a typo from another name.
    expect(similarWorkspaceName('ab', ['ac'])).toBeUndefined();
    // Numbered workers: differ only in digits.
    expect(similarWorkspaceName('gw1', ['gw0', 'gw10'])).toBeUndefined();
    expect(similarWorkspaceName('worker-12', ['worker-3'])).toBeUndefined();
    // Its own name is not near itself.
    expect(similarWorkspaceName('team-a', ['team-a'])).toBeUndefined();
  });
});

describe('a locked control plane tells a missing key from a wrong one', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ fixtures: BASE_FIXTURES, adminToken: 'the-key' });
  });
  afterAll(() => sandbox.close());

  const clock = (headers: Record<string, string>) => fetch(`${sandbox.url}/_sandbox/clock`, { headers });

  it('answers 401 to both, with different messages, never echoing the value sent', async () => {
    const missing = await clock({});
    const wrong = await clock({ 'sandbox-admin-token': 'not-the-key' });
    const empty = await clock({ 'sandbox-admin-token': '' });
    const bearer = await clock({ authorization: 'Bearer the-key' });
    for (const res of [missing, wrong, empty, bearer]) expect(res.status).toBe(401);
    const [m, w, e, b] = await Promise.all([missing, wrong, empty, bearer].map(async (r) => ((await r.json()) as { message: string }).message));
    expect(m).toBe('this sandbox has SANDBOX_ADMIN_TOKEN set: send it in the Sandbox-Admin-Token header');
    expect(w).toBe("the Sandbox-Admin-Token header does not match this sandbox's SANDBOX_ADMIN_TOKEN (the value sent is not echoed)");
    expect(e).toContain('the Sandbox-Admin-Token header is empty');
    expect(b).toContain('an Authorization header is not read by the control plane');
    expect(w).not.toContain('not-the-key');
    expect((await clock({ 'sandbox-admin-token': 'the-key' })).status).toBe(200);
  });

  it('says the same under a workspace prefix, for the control plane and for an interface path that may not create it', async () => {
    const control = await fetch(`${sandbox.url}/ws/locked/_sandbox/clock`, { headers: { 'sandbox-admin-token': 'nope' } });
    expect(control.status).toBe(401);
    expect(((await control.json()) as { message: string }).message).toContain('does not match');
    const missing = await fetch(`${sandbox.url}/ws/locked${BK_EXTRACT}`, { headers: bk });
    const wrong = await fetch(`${sandbox.url}/ws/locked${BK_EXTRACT}`, { headers: { ...bk, 'sandbox-admin-token': 'nope' } });
    expect(missing.status).toBe(400);
    expect(wrong.status).toBe(400);
    const [m, w] = await Promise.all([missing, wrong].map(async (r) => ((await r.json()) as { message: string }).message));
    expect(m).not.toContain('does not match');
    expect(w).toContain('the Sandbox-Admin-Token header sent does not match it');
    expect(w).not.toContain('nope');
  });
});
