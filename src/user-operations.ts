// User-defined operations and proxy mode wired into an app: the --stubs folder read, the stub set,
// the upstreams, the recorder and the conformance checker built from the served OpenAPI document;
// their hooks installed after the control plane's (fault rules first, then the journal's trace), the
// proxy's before the stubs' (an interface with an upstream is the real service's alone).
import type { FastifyInstance } from 'fastify';
import { allAssumptions } from './assumptions.js';
import type { UserOperations } from './control/stub-routes.js';
import { INTERFACE_IDS } from './http/errors.js';
import { CATALOG, INTERFACES, interfaceOfPath } from './interfaces.js';
import type { Runtime } from './runtime/index.js';
import { readStubFolder } from './stubs/folder.js';
import { installStubs } from './stubs/serve.js';
import { StubSet } from './stubs/stub-set.js';
import { ConformanceChecker, type OpenApiDocument } from './upstream/conformance.js';
import { Recorder } from './upstream/record.js';
import { installProxy } from './upstream/serve.js';
import { Upstreams } from './upstream/upstreams.js';

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

export function installUserOperations(
  app: FastifyInstance,
  options: UserOperationOptions,
  inspect: (runtime: Runtime, path: string) => unknown,
): UserOperations {
  const context = { operations: CATALOG, interfaceOfPath };
  const folder = options.stubs ? readStubFolder(options.stubs, context) : [];
  const stubs = new StubSet(folder, context, (id, problems) =>
    app.log.error({ mapping: id, problems }, 'a stored mapping no longer reads: it is skipped'),
  );
  const upstreams = Upstreams.parse(options.upstreams ?? [], INTERFACE_IDS);
  const recorder = options.record ? new Recorder(options.record) : undefined;
  const operations = CATALOG.filter((o) => o.status === 'implemented').map((operation) => ({
    operation,
    shape: INTERFACES[operation.interface].shape,
  }));
  let checker: ConformanceChecker | undefined;
  const user: UserOperations = {
    stubs,
    upstreams,
    checker: () => (checker ??= new ConformanceChecker((app as FastifyInstance & { swagger(): unknown }).swagger() as OpenApiDocument, operations, allAssumptions)),
    recording: options.record ?? null,
  };
  app.decorate('userOperations', user);
  installProxy(app, { upstreams, interfaces: INTERFACES, interfaceOfPath, operations: CATALOG, checker: user.checker, recorder });
  installStubs(app, {
    stubs,
    interfaces: INTERFACES,
    interfaceOfPath,
    operations: CATALOG,
    outsideMessage,
    inspect,
    bodyLimit: app.settings.bodyLimit,
  });
  return user;
}

