// User-defined operations and proxy mode wired into an app: the --stubs folder read, the stub set,
// the upstreams, the recorder and the conformance checker built from the served OpenAPI document;
// their hooks installed after the control plane's (fault rules first, then the journal's trace), the
// proxy's before the stubs' (an interface with an upstream is the real service's alone).
import type { FastifyInstance } from 'fastify';
import type { UserOperations } from './control/stub-routes.js';
import type { Interfaces } from './http/interface-module.js';
import { assumptions as sandboxAssumptions } from './http/sandbox-assumptions.js';
import type { Runtime } from './runtime/index.js';
import { readStubFolder } from './stubs/folder.js';
import { installStubs } from './stubs/serve.js';
import { StubSet } from './stubs/stub-set.js';
import { ConformanceChecker, type OpenApiDocument } from './upstream/conformance.js';
import { Recorder } from './upstream/record.js';
import { installProxy } from './upstream/serve.js';
import { UpstreamConfigError, Upstreams } from './upstream/upstreams.js';

export interface UserOperationOptions {
  /** The --stubs folder (SANDBOX_STUBS): WireMock mappings served in every workspace. */
  stubs?: string;
  /** --upstream values: `URL` for every interface, or `IFACE=URL`. */
  upstreams?: readonly string[];
  /** --record folder: mappings of the named-only operations proxied. */
  record?: string;
}

/** The 404 message outside every interface prefix (the root not-found handler says the same). */
export function outsideMessage(method: string, path: string): string {
  return `${method} ${path} is outside every emulated interface (see GET /_sandbox/operations)`;
}

/** The settings of user-defined operations, read and checked: what refuses a start refuses it here. */
export interface ReadUserOperations {
  options: UserOperationOptions;
  folder: ReturnType<typeof readStubFolder>;
  upstreams: Upstreams;
}

/**
 * Reads the --stubs folder and the --upstream and --record values, throwing on the first that is
 * refused. Called before the sandbox's state is opened, so a start that stops logs no state.
 */
export function readUserOperations(interfaces: Interfaces, options: UserOperationOptions): ReadUserOperations {
  const interfaceOfPath = (path: string) => interfaces.ofPath(path)?.contract.id ?? null;
  const folder = options.stubs ? readStubFolder(options.stubs, { operations: interfaces.operations, interfaceOfPath }) : [];
  const upstreams = Upstreams.parse(options.upstreams ?? [], interfaces.ids);
  if (options.record && !upstreams.enabled) throw new UpstreamConfigError('--record needs --upstream: it records what the upstream answers');
  return { options, folder, upstreams };
}

export function installUserOperations(
  app: FastifyInstance,
  interfaces: Interfaces,
  read: ReadUserOperations,
  inspect: (runtime: Runtime, path: string) => unknown,
): UserOperations {
  const { options, folder, upstreams } = read;
  const interfaceOfPath = (path: string) => interfaces.ofPath(path)?.contract.id ?? null;
  const context = { operations: interfaces.operations, interfaceOfPath };
  const stubs = new StubSet(folder, context, (id, problems) =>
    app.log.error({ mapping: id, problems }, 'a stored mapping no longer reads: it is skipped'),
  );
  const recorder = options.record ? new Recorder(options.record, { full: (message) => app.log.warn({ record: options.record }, message) }) : undefined;
  const operations = interfaces.operations
    .filter((o) => o.status === 'implemented')
    .map((operation) => ({ operation, shape: interfaces.contract(operation.interface).shape }));
  const assumptions = [...sandboxAssumptions, ...interfaces.assumptions];
  let checker: ConformanceChecker | undefined;
  const user: UserOperations = {
    stubs,
    upstreams,
    checker: () => (checker ??= new ConformanceChecker((app as FastifyInstance & { swagger(): unknown }).swagger() as OpenApiDocument, operations, assumptions)),
    recording: options.record ?? null,
  };
  app.decorate('userOperations', user);
  installProxy(app, { upstreams, interfaces, interfaceOfPath, operations: interfaces.operations, checker: user.checker, recorder });
  installStubs(app, {
    stubs,
    interfaces,
    interfaceOfPath,
    operations: interfaces.operations,
    outsideMessage,
    inspect,
    bodyLimit: app.settings.bodyLimit,
  });
  return user;
}

