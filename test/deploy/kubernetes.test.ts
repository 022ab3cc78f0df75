// deploy/kubernetes/, checked: every object against the Kubernetes API schemas of kubernetes-models,
// the parts that must agree (probes and the image's health check, the Secret and the variable that
// reads it, volumes, Services and the pods they select, the router's upstreams and the StatefulSet),
// and the router's nginx configuration parsed by nginx-conf, its workspace map tried on real paths.
import { readFileSync } from 'node:fs';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { NginxParser, type NginxParseTreeNode } from 'nginx-conf/dist/src/parser.js';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { DEFAULTS } from '../../src/config.js';
import { WORKSPACE_NAME } from '../../src/runtime/workspaces.js';
import { docBlock } from '../readme.js';
import { SERVER_ENV } from './server-env.js';

type Json = Record<string, unknown>;
type Container = { name: string; image: string; env?: Json[]; readinessProbe?: Json; livenessProbe?: Json; resources?: Json; securityContext?: Json; volumeMounts?: Array<{ name: string; mountPath: string }>; ports?: Array<{ name: string; containerPort: number }> };
type PodSpec = { containers: Container[]; volumes?: Json[]; securityContext?: Json };

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/Secret': Secret,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
};

function objects(file: string): Json[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
    expect(d.errors).toEqual([]);
    return d.toJS() as Json;
  });
}

const find = (list: Json[], kind: string, name?: string): Json => {
  const found = list.find((o) => o.kind === kind && (name === undefined || (o.metadata as Json).name === name));
  if (!found) throw new Error(`no ${kind} ${name ?? ''}`);
  return found;
};

const podSpec = (workload: Json): PodSpec => ((workload.spec as Json).template as Json).spec as PodSpec;

/** The objects of both files that run the sandbox must fit together as the image expects. */
function checkSandboxPods(list: Json[], workload: Json): Container {
  const spec = podSpec(workload);
  const [sandbox] = spec.containers;
  if (!sandbox) throw new Error('no container');
  // Readiness and liveness through the image's health check script, which calls /_sandbox/health.
  for (const probe of [sandbox.readinessProbe, sandbox.livenessProbe]) expect(probe).toMatchObject({ exec: { command: ['node', 'dist/healthcheck.js'] } });
  expect(readFileSync('src/healthcheck.ts', 'utf8')).toContain('/_sandbox/health');
  // The admin key from a Secret of the same file, by a key it has.
  const admin = sandbox.env?.find((e) => e.name === 'SANDBOX_ADMIN_TOKEN') as { valueFrom: { secretKeyRef: { name: string; key: string } } };
  const secret = find(list, 'Secret', admin.valueFrom.secretKeyRef.name);
  expect(Object.keys(secret.stringData as Json)).toContain(admin.valueFrom.secretKeyRef.key);
  expect(sandbox.env?.map((e) => e.name).filter((n) => !SERVER_ENV.has(n as string))).toEqual([]);
  // Non-root with a read-only root: writable /data (the image's SANDBOX_DB) and /tmp only.
  expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
  expect(sandbox.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
  expect(sandbox.volumeMounts?.map((m) => m.mountPath).sort()).toEqual(['/data', '/tmp']);
  expect(readFileSync('Dockerfile', 'utf8')).toMatch(/SANDBOX_DB=\/data\/sandbox\.db/);
  // Requests from the measured footprint (docs/kubernetes.md: about 105 MiB at peak), under the limit.
  expect(sandbox.resources).toEqual({ requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } });
  expect(sandbox.ports).toEqual([{ name: 'http', containerPort: 3000 }]);
  return sandbox;
}

/** A Service selects the pods of a workload and targets a port they name. */
function checkService(service: Json, workload: Json): void {
  const labels = ((workload.spec as Json).template as { metadata: { labels: Json } }).metadata.labels;
  expect(labels).toMatchObject((service.spec as Json).selector as Json);
  const names = podSpec(workload).containers.flatMap((c) => c.ports?.map((p) => p.name) ?? []);
  for (const port of (service.spec as { ports: Array<{ targetPort: string }> }).ports) expect(names).toContain(port.targetPort);
}

describe('deploy/kubernetes/', () => {
  it.each(['sandbox.yaml', 'replicas.yaml'])('%s: every object is valid against the Kubernetes API schema', (file) => {
    const list = objects(`deploy/kubernetes/${file}`);
    expect(list.length).toBeGreaterThan(3);
    for (const o of list) {
      const Model = MODELS[`${o.apiVersion as string}/${o.kind as string}`];
      expect(Model, `${o.apiVersion as string} ${o.kind as string}`).toBeDefined();
      if (Model) expect(() => new Model(o as never).validate()).not.toThrow();
    }
    // The schema judges: a wrong type is refused.
    const wrong = structuredClone(list.find((o) => o.kind === 'Service')) as { spec: { ports: Array<{ port: unknown }> } };
    if (wrong.spec.ports[0]) wrong.spec.ports[0].port = 'http';
    expect(() => new Service(wrong as never).validate()).toThrow(/port/);
  });

  it('sandbox.yaml: one replica with health probes, the admin key from its Secret, a volume for the database and a Service', () => {
    const list = objects('deploy/kubernetes/sandbox.yaml');
    const deployment = find(list, 'Deployment');
    checkSandboxPods(list, deployment);
    expect(deployment.spec).toMatchObject({ replicas: 1, strategy: { type: 'Recreate' } });
    const data = podSpec(deployment).volumes?.find((v) => v.name === 'data') as { persistentVolumeClaim: { claimName: string } };
    find(list, 'PersistentVolumeClaim', data.persistentVolumeClaim.claimName);
    checkService(find(list, 'Service'), deployment);
  });

  describe('replicas.yaml', () => {
    const list = objects('deploy/kubernetes/replicas.yaml');
    const sts = find(list, 'StatefulSet');
    const stsSpec = sts.spec as { replicas: number; serviceName: string };
    const namespace = (find(list, 'Namespace').metadata as Json).name as string;
    const conf = ((find(list, 'ConfigMap', 'sandbox-router').data as Json)['default.conf'] as string) ?? '';
    let tree: NginxParseTreeNode | undefined;
    new NginxParser().parse(conf, (err, parsed) => {
      if (err) throw err;
      tree = parsed;
    });
    const directive = (node: NginxParseTreeNode | undefined, name: string) => node?.children?.filter((c) => c.name === name) ?? [];

    it('runs the replicas as a StatefulSet with a volume each, behind a headless Service of stable names', () => {
      checkSandboxPods(list, sts);
      expect(stsSpec.replicas).toBeGreaterThan(1);
      expect((sts.spec as { volumeClaimTemplates: Array<{ metadata: Json }> }).volumeClaimTemplates.map((t) => t.metadata.name)).toEqual(['data']);
      const headless = find(list, 'Service', stsSpec.serviceName);
      expect(headless.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
      checkService(headless, sts);
      checkService(find(list, 'Service', 'tradebill-sandbox'), find(list, 'Deployment', 'sandbox-router'));
      for (const o of list.filter((x) => x.kind !== 'Namespace')) expect((o.metadata as Json).namespace).toBe(namespace);
    });

    it('routes through nginx with a consistent hash over one upstream server per replica', () => {
      expect(tree).toBeDefined();
      const [upstream] = directive(tree, 'upstream');
      expect(upstream?.value).toBe('sandbox');
      expect(directive(upstream, 'hash').map((h) => h.value)).toEqual(['$workspace consistent']);
      expect(directive(upstream, 'zone')).toHaveLength(1);
      const port = (find(list, 'Service', stsSpec.serviceName).spec as { ports: Array<{ port: number }> }).ports[0]?.port;
      const name = (sts.metadata as Json).name as string;
      expect(directive(upstream, 'server').map((s) => s.value)).toEqual(
        Array.from({ length: stsSpec.replicas }, (_, i) => `${name}-${i}.${stsSpec.serviceName}.${namespace}.svc.cluster.local:${port} resolve`),
      );
      const [server] = directive(tree, 'server');
      const [location] = directive(server, 'location');
      expect(directive(location, 'proxy_pass').map((p) => p.value)).toEqual(['http://sandbox']);
      const listen = directive(server, 'listen')[0]?.value;
      const router = podSpec(find(list, 'Deployment', 'sandbox-router')).containers[0];
      expect(router?.ports?.map((p) => String(p.containerPort))).toEqual([listen]);
      expect(router?.volumeMounts?.[0]?.mountPath).toBe('/etc/nginx/conf.d');
    });

    it("lets through the largest body the sandbox accepts by default, a loan-bond batch (docs/loanbond.md)", () => {
      const [server] = directive(tree, 'server');
      const text = directive(server, 'client_max_body_size')[0]?.value ?? '';
      const m = /^(\d+)([kmg]?)$/i.exec(text);
      expect(m, text).not.toBeNull();
      const factor = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m?.[2] ?? '').toLowerCase() as '' | 'k' | 'm' | 'g'];
      expect(Number(m?.[1]) * factor).toBeGreaterThanOrEqual(Math.max(DEFAULTS.loanbondBodyLimit, DEFAULTS.bodyLimit));
    });

    it("hashes the workspace name as the sandbox reads it, and every other path as one constant", () => {
      const [map] = directive(tree, 'map');
      expect(map?.value).toBe('$uri $workspace');
      const entries = (map?.children ?? []).map((c) => [c.name, c.value] as const);
      const regex = entries.find(([k]) => k.startsWith('~'));
      const fallback = entries.find(([k]) => k === 'default');
      expect(fallback?.[1]).toMatch(/^\S+$/); // never empty: nginx's hash of an empty key is round robin
      // nginx's PCRE named group reads the same in JavaScript.
      const pattern = new RegExp((regex?.[0] ?? '').slice(1));
      const workspace = (uri: string) => pattern.exec(uri)?.groups?.name ?? fallback?.[1];
      expect(regex?.[1]).toBe('$name');
      for (const name of ['team-a', 'w1', 'a'.repeat(64)]) {
        expect(WORKSPACE_NAME.test(name)).toBe(true);
        expect(workspace(`/ws/${name}/api/bookkeeping/integration/v1/x`)).toBe(name);
        expect(workspace(`/ws/${name}/_sandbox/reset`)).toBe(name);
      }
      expect(workspace('/_sandbox/health')).toBe('default');
      expect(workspace('/api/v1.0/service/dup/registrar_documentos')).toBe('default');
    });

    it('is the configuration docs/kubernetes.md shows', () => {
      expect(docBlock('docs/kubernetes.md', '## Several replicas, routed by workspace name', 'nginx')).toBe(conf);
    });
  });
});
