// The stack's limit: a bare Fastify server answering a constant JSON, started like the sandbox.
import Fastify from 'fastify';

const port = Number(process.argv[2] ?? 0);
const payload = JSON.parse(process.argv[3] ?? '{"ok":true}') as unknown;
const app = Fastify({ logger: false });
app.get('/*', async () => payload);
app.put('/*', async () => payload);
app.get('/_sandbox/health', async () => ({ status: 'ok' }));
// Receiving alone: a body read to its end and dropped (the loan-bond rows' floor), whatever its size.
app.addContentTypeParser('application/octet-stream', (_request, payload, done) => {
  payload.resume();
  payload.once('end', () => done(null, undefined));
  payload.once('error', (err) => done(err, undefined));
});
app.post('/drain', async (_request, reply) => reply.code(201).send({ ok: true }));
await app.listen({ port, host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
