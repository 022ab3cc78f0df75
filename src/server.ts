#!/usr/bin/env node
// The entry point: config -> buildApp -> listen; closes the server and the database on SIGTERM/SIGINT.
import { createRequire } from 'node:module';
import { buildApp } from './app.js';
import { ConfigError, HELP, parseConfig } from './config.js';
import { lockDatabaseFile } from './store/db.js';
import { DIRECT_AFTER_BYTES, documentWriter } from './store/document-writer.js';

function prettyAvailable(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  let config: ReturnType<typeof parseConfig>;
  try {
    config = parseConfig(process.argv.slice(2), process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (config === 'help') {
    process.stdout.write(HELP);
    return;
  }

  documentWriter.directAfter = config.directWrites ? DIRECT_AFTER_BYTES : undefined;
  // Before anything of the database is read: a second process on the same file refuses to start.
  lockDatabaseFile(config.db);
  const app = await buildApp({
    db: config.db,
    fixtures: config.fixtures,
    logger: { level: config.logLevel, pretty: process.stdout.isTTY === true && prettyAvailable() },
    bodyLimit: config.bodyLimit,
    loanbondBodyLimit: config.loanbondBodyLimit,
    adminToken: config.adminToken,
    strict: config.strict,
    seed: config.seed,
    seedSecrets: config.seedSecrets,
    journalSize: config.journalSize,
    coverage: config.coverage,
    maxWorkspaces: config.maxWorkspaces,
    workspaceIdleMs: config.workspaceIdleMs,
    eventsSize: config.eventsSize,
    workDelayMs: config.workDelayMs,
    ...(config.stubs ? { stubs: config.stubs } : {}),
    upstreams: config.upstreams,
    ...(config.record ? { record: config.record } : {}),
    workBacklog: config.workBacklog,
    maxSnapshots: config.maxSnapshots,
    snapshotsSize: config.snapshotsSize,
  });

  let closing = false;
  const close = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'closing');
    // Never hang on a stuck connection: a second is enough to finish in-flight requests.
    const timer = setTimeout(() => {
      app.log.warn('close timed out; exiting');
      process.exit(1);
    }, 1000);
    timer.unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'close failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => close('SIGTERM'));
  process.on('SIGINT', () => close('SIGINT'));
  // Under npm (`npm start`, `npx tradebill-sandbox`) the server runs below npm and a shell; a SIGTERM
  // to npm stops npm and the shell but never reaches this process. Once its parent is gone, the
  // server closes as on SIGTERM rather than keep the port: `npm start & ... kill $!` leaves nothing.
  if (process.env.npm_command !== undefined) {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) close('parent exited');
    }, 200).unref();
  }

  await app.listen({ host: config.host, port: config.port });
  app.log.info(
    { db: config.db, fixtures: config.fixtures, bodyLimit: config.bodyLimit, strict: config.strict },
    'sandbox ready',
  );
}

main().catch((err: unknown) => {
  process.stderr.write(
    `tradebill-sandbox could not start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
