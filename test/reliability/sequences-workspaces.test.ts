// The model-based sequences in two workspaces of one sandbox at once (docs/workspaces.md): each
// workspace keeps step with its own model, and after every command every workspace is inspected, so
// a command in one that changed the other would show.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { runSequences, SEQUENCE_FIXTURES } from './sequences/commands.js';
import { injectTransport, under } from './sequences/transport.js';

const RUNS = Number(process.env.SEQ_RUNS ?? 15);
const identity = (p: string) => p;

describe('random sequences in two workspaces at once', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildApp({ db: ':memory:', logger: false, fixtures: SEQUENCE_FIXTURES });
  });
  afterAll(() => app.close());

  it(`keeps ${RUNS} sequences over /ws/a and /ws/b each in step with its own model`, { timeout: 300_000 }, async () => {
    const t = injectTransport(app);
    const stats = await runSequences({
      workspaces: [
        { transport: under(t, '/ws/a'), path: identity },
        { transport: under(t, '/ws/b'), path: identity },
      ],
      runs: RUNS,
    });
    expect(stats.sequences).toBeGreaterThanOrEqual(RUNS);
  });
});
