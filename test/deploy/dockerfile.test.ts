// The Dockerfile, read by a maintained parser (dockerfile-ast) without a container engine: the runtime
// stage is nothing but what runs (from scratch, no RUN, so no shell or package manager), runs as a
// numeric non-root user, is healthy through the health check script, keeps writes to /data and /tmp
// (so a read-only root file system works), ships the contract files, and carries the OCI labels with
// the package's version and licence. The image itself is built and run by the container tool (docs/image.md).
import { readFileSync } from 'node:fs';
import { Copy, DockerfileParser, type Instruction } from 'dockerfile-ast';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const dockerfile = DockerfileParser.parse(readFileSync('Dockerfile', 'utf8'));
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string; license: string };
const instructions = dockerfile.getInstructions();
const froms = dockerfile.getFROMs();
const lastFrom = froms[froms.length - 1];
/** The instructions of the runtime (last) stage. */
const runtime = instructions.filter((i) => lastFrom !== undefined && i.getRange().start.line > lastFrom.getRange().start.line);
const of = (keyword: string, list: Instruction[] = runtime) => list.filter((i) => i.getKeyword() === keyword);
const args = (i: Instruction | undefined) => i?.getArgumentsContent() ?? '';

/** KEY=value pairs of ENV, LABEL and ARG instructions of the runtime stage, quotes removed. */
function pairs(keyword: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const i of of(keyword)) for (const m of args(i).matchAll(/([\w.-]+)=("[^"]*"|\S*)/g)) out.set(m[1] ?? '', (m[2] ?? '').replace(/^"|"$/g, ''));
  return out;
}

describe('the Dockerfile', () => {
  it('builds in a stage of its own and runs from scratch: no RUN, so no shell and no package manager', () => {
    expect(froms.map((f) => f.getImageName())).toEqual(['node', 'scratch']);
    expect(froms[0]?.getBuildStage()).toBe('build');
    expect(of('RUN')).toEqual([]);
    const copied = of('COPY').map((i) => {
      const from = i instanceof Copy ? i.getFromFlag()?.getValue() : undefined;
      return `${from ? `[${from}] ` : ''}${args(i)}`;
    });
    expect(copied).toEqual([
      '[build] /rootfs /',
      '[build] /app/node_modules ./node_modules',
      '[build] /app/dist ./dist',
      'package.json ./',
      'fixtures ./fixtures',
      'contract ./contract',
    ]);
    // The runtime file system carries the shared libraries that ldd lists for Node and the SQLite addon.
    expect(of('RUN', instructions).map(args).join('\n')).toMatch(/ldd \/usr\/local\/bin\/node; ldd node_modules\/better-sqlite3\/build\/Release\/better_sqlite3\.node/);
    expect(readFileSync('.dockerignore', 'utf8').split('\n')).not.toContain('contract');
  });

  it('runs as a numeric non-root user, the one the Kubernetes manifests name', () => {
    const users = of('USER').map(args);
    expect(users).toEqual(['1000:1000']);
    for (const file of ['deploy/kubernetes/sandbox.yaml', 'deploy/kubernetes/replicas.yaml']) {
      expect(readFileSync(file, 'utf8')).toMatch(/runAsUser: 1000\n/);
    }
  });

  it('is healthy through the health check script and stops on SIGTERM as PID 1 (exec form, no shell)', () => {
    const [check] = of('HEALTHCHECK');
    expect(args(check)).toMatch(/CMD \["node", "dist\/healthcheck\.js"\]$/);
    expect(of('CMD').map(args)).toEqual(['["node", "dist/server.js"]']);
    expect(of('ENTRYPOINT')).toEqual([]);
    // The script exists and calls the health route.
    expect(readFileSync('src/healthcheck.ts', 'utf8')).toContain('/_sandbox/health');
  });

  it('writes only to the /data volume and /tmp, so it runs with a read-only root file system', () => {
    const env = pairs('ENV');
    expect(env.get('SANDBOX_DB')).toBe('/data/sandbox.db');
    expect(of('VOLUME').map(args)).toEqual(['["/data"]']);
    // The Compose service and the Kubernetes pods mount exactly these two, read-only elsewhere.
    const compose = parseAllDocuments(readFileSync('compose.yaml', 'utf8'))[0]?.toJS() as { services: { sandbox: Record<string, unknown> } };
    expect(compose.services.sandbox).toMatchObject({ read_only: true, tmpfs: ['/tmp'], volumes: ['sandbox-data:/data'] });
  });

  it('carries the OCI labels: source, the package version and licence', () => {
    const labels = pairs('LABEL');
    const argDefaults = pairs('ARG');
    expect(labels.get('org.opencontainers.image.version')).toBe('${VERSION}');
    expect(argDefaults.get('VERSION')).toBe(pkg.version);
    expect(labels.get('org.opencontainers.image.licenses')).toBe(pkg.license);
    expect(labels.get('org.opencontainers.image.source')).toBe('${SOURCE}');
    expect(argDefaults.has('SOURCE')).toBe(true);
    expect(labels.get('org.opencontainers.image.title')).toBe('tradebill-sandbox');
  });
});
