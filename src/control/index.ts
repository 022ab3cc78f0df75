// The control plane under /_sandbox: what every control call shares (the admin token, the standard
// error body, the refusals each can give, optional bodies), then one plugin per feature, each in its
// own file, and each interface's inspection. Not part of any emulated interface.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest, FastifySchema, RouteOptions } from 'fastify';
import { adminKeyRefusal, carriesAdminKey } from '../http/bearer.js';
import { standardBody } from '../http/errors.js';
import { useStandardErrors } from '../http/interface-plugin.js';
import { useJsonBodies } from '../http/json.js';
import { StandardError } from '../http/schema.js';
import { pathOf } from '../http/url.js';
import type { InspectionIndex } from './inspection-index.js';
import { stubRoutes } from './stub-routes.js';
import { catalogRoutes } from './catalog-routes.js';
import { clockRoutes } from './clock-routes.js';
import { coverageRoutes } from './coverage-routes.js';
import { eventsPlugin } from './events.js';
import { faultRoutes } from './fault-routes.js';
import { journalRoutes } from './journal-routes.js';
import { snapshotRoutes } from './snapshot-routes.js';
import { stateRoutes } from './state-routes.js';
import { subscriptionsPlugin } from './subscriptions.js';
import { verificationsPlugin } from './verifications.js';
import { uiPlugin } from './ui/index.js';
import { workRoutes } from './work-routes.js';
import { workspacesPlugin } from './workspace-routes.js';

/**
 * The refusals every control call can give, declared where they arise rather than on each route: a 401
 * under SANDBOX_ADMIN_TOKEN (the document is the same with or without it); a 400 for a malformed
 * request (a body on a GET, a bad JSON body, a bad parameter); under /ws/{name}, a 429 when the
 * workspace limit keeps the workspace from being created, a 409 when the workspace is being removed
 * and a 404 when it does not exist and the request may not create it (workspace-removal,
 * workspace-locked); a 500 for an unexpected error, whose body names the request id and the cause.
 */
function declareRefusals(route: RouteOptions): void {
  const schema = route.schema as (FastifySchema & { hide?: boolean; response?: Record<string, unknown> }) | undefined;
  if (!schema || schema.hide || !schema.response) return;
  const response = { ...schema.response };
  if (!route.config?.sandboxPublic) response[401] ??= StandardError;
  response[400] ??= StandardError;
  response[404] ??= StandardError;
  response[409] ??= StandardError;
  response[429] ??= StandardError;
  response[500] ??= StandardError;
  route.schema = { ...schema, response };
}

export const sandboxPlugin: FastifyPluginAsyncTypebox<{ inspections?: InspectionIndex }> = async (app, options) => {
  // Every GET call, readable by the templates' inspect helper.
  const inspections = options.inspections;
  if (inspections) app.addHook('onRoute', (route) => inspections.add(route, app));
  // A control call without a body schema takes none: an empty JSON body (what many clients send with
  // POST and DELETE) reads as {} there, as it does on reset, whose body is all optional.
  app.addHook('onRoute', (route) => {
    if (route.schema?.body === undefined) route.config = { ...route.config, optionalBody: true };
    declareRefusals(route);
  });
  useJsonBodies(app, { optionalBodies: true });

  const adminToken = app.settings.adminToken;
  if (adminToken) {
    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.routeOptions.config.sandboxPublic) return;
      if (!carriesAdminKey(request.headers, adminToken)) return reply.code(401).send(standardBody(401, adminKeyRefusal(request.headers)));
    });
  }

  useStandardErrors(app, (request) => `${request.method} ${pathOf(request.url)} is not a control-plane call`);

  await app.register(stateRoutes);
  await app.register(catalogRoutes);
  await app.register(journalRoutes);
  await app.register(faultRoutes);
  await app.register(clockRoutes);
  await app.register(snapshotRoutes);
  await app.register(workRoutes);
  await app.register(coverageRoutes);
  await app.register(eventsPlugin);
  await app.register(subscriptionsPlugin, inspections ? { inspect: (runtime, path) => inspections.read(runtime, path) } : {});
  await app.register(verificationsPlugin);
  await app.register(stubRoutes);
  await app.register(workspacesPlugin);

  // Each interface inspects its own state, from its own folder.
  for (const { contract, inspection } of app.interfaces.modules)
    await app.register(inspection.routes, { prefix: `/${contract.id}` });
  await app.register(uiPlugin);
};
