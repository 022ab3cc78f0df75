// The control plane's eye on the emulated interfaces: one root hook per step of a request, each
// doing its jobs in order (the journal's trace, fault rules, coverage), so that the hot path pays
// for three hooks whatever the number of jobs. Installed before the interfaces are registered, so
// every interface inherits them (its documented routes, its 501s) and so do the 404s outside every
// prefix.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pathOf } from '../http/url.js';
import { resolvedRuntimeOf, runtimeOf } from '../runtime/index.js';
import { applyFault } from './fault-hook.js';
import { startTrace, type Trace, writeEntry } from './journal-hooks.js';
import { countOutcome } from './outcome-hook.js';

const CONTROL_PREFIX = '/_sandbox';

export function installControlHooks(app: FastifyInstance): void {
  const traces = new WeakMap<FastifyRequest, Trace>();
  const { interfaces } = app;

  // Root onRequest hooks run before every interface's own, so a fault rule pre-empts everything the
  // service would check.
  // A callback rather than an async function (a promise per request on the hot path); only a request
  // that fault rules may concern waits for them. A rule that answered has sent the reply: no done().
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const path = pathOf(request.url);
    if (path.startsWith(CONTROL_PREFIX)) return done();
    const owner = interfaces.ofPath(path);
    // Outside the interfaces only the 404s are journaled (not /docs, /openapi.json): nothing to do for
    // the others, and a workspace named in their path is not created by them.
    if (owner === undefined && !request.is404) return done();
    const { journal, faults } = runtimeOf(request);
    if (owner === undefined && !journal.enabled) return done();
    const trace = startTrace(request, owner?.contract.id ?? null, path);
    traces.set(request, trace);
    if (owner === undefined || faults.size === 0) return done();
    applyFault(request, reply, owner, path, (id) => (trace.fault = id)).then((fault) => {
      if (!fault?.answered) done();
    }, done);
  });

  // onSend and onResponse take callbacks rather than async functions: every answer passes both, and a
  // promise each costs the hot path.
  app.addHook('onSend', (request, reply, payload, done) => {
    const trace = traces.get(request);
    const slug = request.outcome;
    // Only an answer that is journaled or tagged needs its runtime (resolving it may create a workspace).
    if (slug !== null) {
      const id = countOutcome(request, reply, slug);
      if (trace) trace.outcome = id;
    }
    if (trace && resolvedRuntimeOf(request).journal.enabled) trace.response = payload;
    done(null, payload);
  });

  // A trace exists only under an interface prefix or for a 404 (onRequest above decides).
  app.addHook('onResponse', (request, reply, done) => {
    const trace = traces.get(request);
    if (trace) writeEntry(request, reply, trace);
    done();
  });
}
