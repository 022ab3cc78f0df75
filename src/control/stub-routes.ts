// The control plane's user-defined operations: WireMock mappings added, listed and removed per
// workspace (POST/GET/DELETE /_sandbox/stubs), the mappings' scenarios (/_sandbox/scenarios), and the
// conformance report of proxy mode (/_sandbox/conformance). Mounted under /_sandbox.
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { assumptionLookup } from '../http/assumption-catalog.js';
import { SandboxError } from '../http/errors.js';
import { decodeCursor, NextCursor, pageOf, pageQuery } from '../http/paging.js';
import { StandardError, StringEnum, Strict } from '../http/schema.js';
import { assumptions } from '../http/sandbox-assumptions.js';
import { runtimeOf } from '../runtime/index.js';
import type { Stub } from '../stubs/mapping.js';
import { StubMapping } from '../stubs/schema.js';
import type { StubSet } from '../stubs/stub-set.js';
import type { ConformanceChecker } from '../upstream/conformance.js';
import { conformanceJunit, conformanceMarkdown } from '../upstream/conformance-report.js';
import { conformanceLogOf } from '../upstream/serve.js';
import type { Upstreams } from '../upstream/upstreams.js';

/** What the control plane reads of the user-defined operations (decorated on the app by buildApp). */
export interface UserOperations {
  stubs: StubSet;
  upstreams: Upstreams;
  checker(): ConformanceChecker;
  /** The --record folder, when recording. */
  recording: string | null;
}

declare module 'fastify' {
  interface FastifyInstance {
    userOperations: UserOperations;
  }
}

const TAG = ['sandbox control plane'];
const a = assumptionLookup(assumptions);

type Name = ReturnType<typeof StringEnum<string>>;

const stubInfo = (InterfaceName: Name) => Strict(
  {
    source: StringEnum(['folder', 'runtime'] as const, { description: 'the --stubs folder (kept by reset), or added through this call' }),
    file: Type.Union([Type.String(), Type.Null()], { description: 'the folder file it was read from' }),
    interface: Type.Union([InterfaceName, Type.Null()], { description: 'the interface its requests belong to, when known' }),
    operation: Type.Union([Type.String(), Type.Null()], { description: 'the named-only operation it implements (metadata.sandbox.operation)' }),
  },
  { description: "the sandbox's view of the mapping" },
);

const stubView = (InterfaceName: Name) => Type.Object(
  { ...StubMapping.properties, id: Type.String(), sandbox: stubInfo(InterfaceName) },
  { additionalProperties: false, title: 'StubMappingView', description: 'the mapping as given, with its id, and what the sandbox made of it' },
);

/** Mappings per page of GET /_sandbox/stubs, by default and at most (docs/control-plane.md). */
const STUBS_PAGE = 100;
const STUBS_PAGE_MAX = 1000;

const mappingList = (StubView: ReturnType<typeof stubView>) => Type.Object({
  mappings: Type.Array(StubView, { description: 'a page of them, in the order they are tried' }),
  meta: Type.Object({ total: Type.Integer({ description: 'mappings in all, as WireMock counts them' }) }),
  nextCursor: NextCursor,
});

const ScenarioSchema = Type.Object({
  name: Type.String(),
  state: Type.String({ description: '"Started" until a mapping moves it' }),
  possibleStates: Type.Array(Type.String()),
});

const conformanceQuery = (InterfaceName: Name) => Type.Object({
  format: Type.Optional(StringEnum(['json', 'junit', 'markdown'] as const, { default: 'json' })),
  interface: Type.Optional(InterfaceName),
});

const Basis = Type.Object({
  kind: StringEnum(['assumption', 'specification'] as const),
  id: Type.String({ description: 'the assumption id (the assumptions table) or the fact of the specification' }),
  text: Type.String(),
});

const BasisSummary = Type.Object({ id: Type.String(), text: Type.String(), findings: Type.Integer(), operations: Type.Array(Type.String()) });

const ConformanceReportSchema = Type.Object(
  {
    since: Type.String(),
    upstreams: Type.Array(Type.Object({ interface: Type.String(), url: Type.String() })),
    totals: Type.Object({ exchanges: Type.Integer(), conforming: Type.Integer(), diverging: Type.Integer(), findings: Type.Integer() }),
    assumptions: Type.Array(BasisSummary, { description: 'the assumptions the real service contradicted: rows of the table to distrust' }),
    specification: Type.Array(BasisSummary, { description: 'the facts of the specification it contradicted' }),
    operations: Type.Array(
      Type.Object({
        interface: Type.String(),
        operation: Type.String(),
        method: Type.Union([Type.String(), Type.Null()]),
        path: Type.Union([Type.String(), Type.Null()]),
        exchanges: Type.Integer(),
        conforming: Type.Integer(),
        findings: Type.Array(
          Type.Object({
            check: Type.String(),
            basis: Basis,
            message: Type.String(),
            count: Type.Integer(),
            firstAt: Type.String(),
            lastAt: Type.String(),
            example: Type.Unknown({ description: 'one exchange that showed it, secrets and documents redacted' }),
          }),
        ),
      }),
    ),
    checks: Type.Array(Type.Object({ id: Type.String(), cites: Type.Array(Type.String()) })),
  },
  { title: 'ConformanceReport' },
);

export const JUNIT_TYPE = 'application/xml; charset=utf-8';
export const MARKDOWN_TYPE = 'text/markdown; charset=utf-8';

function view(stub: Stub) {
  return { ...stub.mapping, id: stub.id, sandbox: { source: stub.source, file: stub.file, interface: stub.interface, operation: stub.operation } };
}

export const stubRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const user = (app as FastifyInstance).userOperations;
  const InterfaceName = StringEnum(app.interfaces.ids);
  const StubView = stubView(InterfaceName);
  const MappingList = mappingList(StubView);
  const ConformanceQuery = conformanceQuery(InterfaceName);

  app.post(
    '/stubs',
    {
      // The mapping is read by the stub reader, which names every problem by its pointer (an
      // anyOf of the two accepted forms would make Ajv report each problem twice).
      attachValidation: true,
      schema: {
        operationId: 'addStubs',
        tags: TAG,
        summary: 'Add user-defined operations: one WireMock mapping, or {"mappings": [...]}, all or nothing',
        description:
          'Mappings answer requests that no documented operation owns, in this workspace only, until removed or reset. ' +
          'A mapping whose id exists already replaces it. A malformed mapping, or one that can only match a documented ' +
          'operation, is a 400 naming each problem by its JSON pointer; one past the mappings a workspace holds (2000, the ' +
          '--stubs folder\'s included) is a 409.',
        body: Type.Union([StubMapping, Type.Object({ mappings: Type.Array(StubMapping) })]),
        response: {
          201: Type.Object({ mappings: Type.Array(StubView), replaced: Type.Array(Type.String()) }),
          400: StandardError,
          401: StandardError,
          409: StandardError,
        },
        'x-sandbox-assumption': a('stub-format', 'stub-ownership', 'stub-scope', 'stub-unmatched', 'stub-template-error', 'template-render-limits', 'inspect-helper', 'stub-limits'),
      },
    },
    async (request, reply) => {
      const runtime = runtimeOf(request);
      const { added, replaced } = user.stubs.add(runtime, request.body);
      request.log.info({ stubs: added.map((s) => s.id) }, 'stubs added');
      const stored = new Map(user.stubs.all(runtime).map((s) => [s.id, s]));
      return reply.code(201).send({ mappings: added.map((s) => view(stored.get(s.id) ?? s)), replaced });
    },
  );

  app.get(
    '/stubs',
    {
      schema: {
        operationId: 'listStubs',
        tags: TAG,
        summary: 'The user-defined operations of this workspace, in the order they are tried',
        description:
          'The --stubs folder\'s mappings and those added at run time, by priority, then the last added first (as WireMock tries them). ' +
          'A page of limit mappings (default 100); nextCursor, passed as cursor, gives the next ones.',
        querystring: Type.Object(pageQuery(STUBS_PAGE, STUBS_PAGE_MAX), { additionalProperties: false }),
        response: { 200: MappingList, 400: StandardError, 401: StandardError },
        'x-sandbox-assumption': a('stub-scope', 'stub-records', 'stub-limits', 'control-pages'),
      },
    },
    (request) => {
      const { limit = STUBS_PAGE, cursor } = request.query;
      const after = cursor === undefined ? undefined : (decodeCursor(cursor, ['number', 'number']) as [number, number]);
      const { stubs, total } = user.stubs.page(runtimeOf(request), after, limit + 1);
      const page = pageOf(stubs, limit, (s) => [s.priority, s.seq], view);
      return { mappings: page.items, meta: { total }, nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/stubs/:id',
    {
      schema: {
        operationId: 'getStub',
        tags: TAG,
        summary: 'One user-defined operation',
        description: 'The mapping with this id, as given, and what the sandbox made of it; an unknown id is a 404.',
        params: Type.Object({ id: Type.String() }),
        response: { 200: StubView, 401: StandardError, 404: StandardError },
      },
    },
    (request) => {
      const stub = user.stubs.get(runtimeOf(request), request.params.id);
      if (!stub) throw new SandboxError(404, `no mapping has the id "${request.params.id}" (GET /_sandbox/stubs lists them)`);
      return view(stub);
    },
  );

  app.delete(
    '/stubs/:id',
    {
      schema: {
        operationId: 'removeStub',
        tags: TAG,
        summary: 'Remove a user-defined operation added at run time',
        description: 'A mapping of the --stubs folder stays (a 400 says so: change the folder and restart); an unknown id is a 404.',
        params: Type.Object({ id: Type.String() }),
        response: { 200: Type.Object({ removed: Type.Integer() }), 400: StandardError, 401: StandardError, 404: StandardError },
      },
    },
    async (request) => {
      const result = user.stubs.remove(runtimeOf(request), request.params.id);
      if (result === 'folder') throw new SandboxError(400, `the mapping ${request.params.id} comes from the --stubs folder, which only the folder changes: edit the folder and restart`);
      if (result === 'unknown') throw new SandboxError(404, `no mapping added at run time has the id "${request.params.id}"`);
      return { removed: 1 };
    },
  );

  app.delete(
    '/stubs',
    {
      schema: {
        operationId: 'clearStubs',
        tags: TAG,
        summary: 'Remove every user-defined operation added at run time (the folder\'s stay)',
        description: 'Answers how many mappings were removed; reset removes them too.',
        response: { 200: Type.Object({ removed: Type.Integer() }), 401: StandardError },
      },
    },
    async (request) => ({ removed: user.stubs.clear(runtimeOf(request)) }),
  );

  app.get(
    '/scenarios',
    {
      schema: {
        operationId: 'listScenarios',
        tags: TAG,
        summary: "The scenarios of this workspace's mappings, with their current state",
        description: 'A scenario starts in "Started"; a mapping with newScenarioState moves it when it answers. Per workspace; reset starts every one again.',
        response: { 200: Type.Object({ scenarios: Type.Array(ScenarioSchema) }), 401: StandardError },
        'x-sandbox-assumption': a('stub-scenarios'),
      },
    },
    (request) => ({ scenarios: user.stubs.scenarios(runtimeOf(request)) }),
  );

  app.put(
    '/scenarios/:name/state',
    {
      config: { optionalBody: true },
      schema: {
        operationId: 'setScenarioState',
        tags: TAG,
        summary: 'Move one scenario to a state (no body, or no state: back to "Started")',
        description: 'As WireMock\'s PUT /__admin/scenarios/{name}/state. A scenario no mapping names is a 404.',
        params: Type.Object({ name: Type.String() }),
        body: Type.Optional(Strict({ state: Type.Optional(Type.String({ minLength: 1 })) })),
        response: { 200: ScenarioSchema, 400: StandardError, 401: StandardError, 404: StandardError },
      },
    },
    async (request) => {
      const runtime = runtimeOf(request);
      const name = request.params.name;
      if (!user.stubs.scenarios(runtime).some((s) => s.name === name)) {
        throw new SandboxError(404, `no mapping names the scenario "${name}" (GET /_sandbox/scenarios lists them)`);
      }
      user.stubs.setScenario(runtime, name, request.body?.state);
      const scenario = user.stubs.scenarios(runtime).find((s) => s.name === name);
      if (!scenario) throw new SandboxError(404, `no mapping names the scenario "${name}"`);
      return scenario;
    },
  );

  app.post(
    '/scenarios/reset',
    {
      schema: {
        operationId: 'resetScenarios',
        tags: TAG,
        summary: 'Every scenario back to "Started"',
        description: 'As WireMock\'s POST /__admin/scenarios/reset; answers how many scenarios had moved.',
        response: { 200: Type.Object({ reset: Type.Integer() }), 401: StandardError },
      },
    },
    async (request) => ({ reset: user.stubs.resetScenarios(runtimeOf(request)) }),
  );

  app.get(
    '/conformance',
    {
      schema: {
        operationId: 'getConformance',
        tags: TAG,
        summary: 'Proxy mode: how the real service answered the documented operations, against the sandbox\'s contract',
        description:
          'Per documented operation, the exchanges proxied to the upstream, how many conformed, and each divergence keyed ' +
          'to what it contradicts: a fact of the specification, or an assumption id of the assumptions table. ' +
          '?format=junit gives JUnit XML (a failure per check that found something), ?format=markdown a report for a pull request.',
        querystring: ConformanceQuery,
        response: {
          200: {
            description: 'the report, in the format asked for',
            content: {
              'application/json': { schema: ConformanceReportSchema },
              'application/xml': { schema: Type.String({ description: 'JUnit XML' }) },
              'text/markdown': { schema: Type.String({ description: 'Markdown' }) },
            },
          },
          400: StandardError,
          401: StandardError,
        },
        'x-sandbox-assumption': a('proxy-scope', 'proxy-upstream-failure', 'record-format', 'record-limit', 'conformance-checks', 'conformance-scope'),
      },
    },
    async (request, reply) => {
      const report = conformanceLogOf(runtimeOf(request)).report(user.checker(), user.upstreams.describe(), request.query.interface);
      switch (request.query.format) {
        case 'junit':
          return reply.type(JUNIT_TYPE).send(conformanceJunit(report));
        case 'markdown':
          return reply.type(MARKDOWN_TYPE).send(conformanceMarkdown(report));
        default:
          return reply.type('application/json; charset=utf-8').send(report);
      }
    },
  );

  app.delete(
    '/conformance',
    {
      schema: {
        operationId: 'clearConformance',
        tags: TAG,
        summary: 'Forget the exchanges the conformance report has seen',
        description: 'The report starts again from nothing; answers how many exchanges it had counted.',
        response: { 200: Type.Object({ cleared: Type.Integer() }), 401: StandardError },
        'x-sandbox-assumption': a('conformance-scope'),
      },
    },
    async (request) => ({ cleared: conformanceLogOf(runtimeOf(request)).clear() }),
  );
};
