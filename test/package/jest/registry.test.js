const SANDBOX = process.env.SANDBOX;
const json = { 'content-type': 'application/json' };

// Back to the demo fixtures before each test, through the control plane.
beforeEach(async () => {
  const res = await fetch(`${SANDBOX}/_sandbox/reset`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ fixtures: 'default' }),
  });
  expect(res.status).toBe(200);
});

const register = (token) =>
  fetch(`${SANDBOX}/api/v1.0/service/dup/registrar_documentos`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${token}` },
    body: JSON.stringify({ registros: [{ numeroDuplicata: 'DUP-1', valorDuplicata: 10.5 }] }),
  });

test('the registry refuses an unknown token and registers with the demo one', async () => {
  expect((await register('not-a-token')).status).toBe(401);
  const res = await register('rg-demo-token-1');
  expect(res.status).toBe(200);
  expect((await res.json()).chaveRemessa).toEqual(expect.any(String));
});
