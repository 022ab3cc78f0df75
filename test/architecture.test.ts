// The layers, checked on the sources: every import of every file under src/ is read and its target
// placed in a layer, so an arrow that points up fails here rather than in review
// (docs/architecture.md draws the same layers).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERFACE_MODULES } from '../src/interfaces.js';

const SRC = 'src';
/** An interface's folder is named by its id. */
const INTERFACE_FOLDERS = INTERFACE_MODULES.map((m) => m.contract.id);

type Layer = 'interface' | 'control' | 'http' | 'store' | 'domain' | 'runtime' | 'stubs' | 'upstream' | 'top';

interface Import {
  from: string;
  to: string;
  fromLayer: Layer;
  toLayer: Layer;
  /** The interface folder of each side, if any. */
  fromFolder: string;
  toFolder: string;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The layer of a path under src/, by its first folder (files directly in src/ are the top). */
function layerOf(path: string): { layer: Layer; folder: string } {
  const parts = relative(SRC, path).split(/[\\/]/);
  const folder = parts.length > 1 ? (parts[0] ?? '') : '';
  if ((INTERFACE_FOLDERS as readonly string[]).includes(folder)) return { layer: 'interface', folder };
  if (
    folder === 'control' ||
    folder === 'http' ||
    folder === 'store' ||
    folder === 'domain' ||
    folder === 'runtime' ||
    folder === 'stubs' ||
    folder === 'upstream'
  )
    return { layer: folder, folder };
  if (folder === '') return { layer: 'top', folder };
  throw new Error(`${path}: a folder of src/ that has no layer yet (${folder}): place it in this test and the docs`);
}

// Static imports and re-exports (`import type` included) and dynamic import() of relative paths.
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const out: Import[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? '';
    if (!spec.startsWith('.')) continue;
    const to = normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts');
    const a = layerOf(file);
    const b = layerOf(to);
    out.push({ from: file, to, fromLayer: a.layer, toLayer: b.layer, fromFolder: a.folder, toFolder: b.folder });
  }
  return out;
}

const files = sources(SRC);
const imports = files.flatMap(importsOf);
const arrows = (keep: (i: Import) => boolean) => imports.filter(keep).map((i) => `${i.from} -> ${i.to}`);

describe('the layers of src/', () => {
  it('reads the imports of every source file (the check below is not vacuous)', () => {
    expect(files.length).toBeGreaterThan(60);
    expect(imports.length).toBeGreaterThan(300);
    // A type-only import is read too.
    expect(arrows((i) => i.from === join(SRC, 'store', 'index.ts'))).toContain(
      `${join(SRC, 'store', 'index.ts')} -> ${join(SRC, 'store', 'db.ts')}`,
    );
  });

  it('no file under the interfaces, http/, store/, domain/ or runtime/ imports the control plane', () => {
    expect(arrows((i) => i.fromLayer !== 'control' && i.fromLayer !== 'top' && i.toLayer === 'control')).toEqual([]);
  });

  it('http/ and store/ import nothing from the interface folders or the modules that gather them, types included', () => {
    expect(
      arrows(
        (i) => (i.fromLayer === 'http' || i.fromLayer === 'store') && (i.toLayer === 'interface' || i.toLayer === 'top'),
      ),
    ).toEqual([]);
  });

  it('domain/ imports nothing outside itself', () => {
    expect(arrows((i) => i.fromLayer === 'domain' && i.toLayer !== 'domain')).toEqual([]);
  });

  it('runtime/ imports no interface, no control-plane module and nothing from the top of src/', () => {
    expect(
      arrows((i) => i.fromLayer === 'runtime' && (i.toLayer === 'interface' || i.toLayer === 'control' || i.toLayer === 'top')),
    ).toEqual([]);
  });

  it('outside an interface folder, code reaches it only through its index.ts (its module)', () => {
    // The list of interfaces reaches each one, so the check below has imports to look at.
    for (const id of INTERFACE_FOLDERS)
      expect(arrows((i) => i.from === join(SRC, 'interfaces.ts'))).toContain(
        `${join(SRC, 'interfaces.ts')} -> ${join(SRC, id, 'index.ts')}`,
      );
    expect(
      arrows(
        (i) =>
          i.toLayer === 'interface' &&
          i.fromFolder !== i.toFolder &&
          i.to !== join(SRC, i.toFolder, 'index.ts'),
      ),
    ).toEqual([]);
  });

  it('stubs/ (user-defined operations) and upstream/ (proxy mode) import no interface, no control-plane module and nothing from the top', () => {
    expect(
      arrows(
        (i) =>
          (i.fromLayer === 'stubs' || i.fromLayer === 'upstream') &&
          (i.toLayer === 'interface' || i.toLayer === 'control' || i.toLayer === 'top'),
      ),
    ).toEqual([]);
  });

  it('nothing below them imports stubs/ or upstream/, and stubs/ does not import upstream/', () => {
    expect(
      arrows(
        (i) =>
          ['domain', 'store', 'runtime', 'http'].includes(i.fromLayer) && (i.toLayer === 'stubs' || i.toLayer === 'upstream'),
      ),
    ).toEqual([]);
    expect(arrows((i) => i.fromLayer === 'stubs' && i.toLayer === 'upstream')).toEqual([]);
  });

  it('an interface folder imports no sibling interface and not the module that gathers them', () => {
    expect(
      arrows(
        (i) =>
          i.fromLayer === 'interface' &&
          ((i.toLayer === 'interface' && i.toFolder !== i.fromFolder) || i.toLayer === 'top'),
      ),
    ).toEqual([]);
  });
});

describe('the interface folders', () => {
  // the module, routes, wire schemas, catalog (contract), outcomes, fixtures, inspection, assumptions;
  // rule files differ.
  const ROLES = ['index.ts', 'routes.ts', 'schemas.ts', 'contract.ts', 'outcomes.ts', 'fixtures.ts', 'inspect.ts', 'assumptions.ts'];

  it.each(INTERFACE_FOLDERS)('%s has the same files for the same roles as its siblings', (folder) => {
    const present = readdirSync(join(SRC, folder));
    expect(ROLES.filter((r) => !present.includes(r))).toEqual([]);
  });

  it('routes and inspections never open a transaction: the rules do, with the store they are given', () => {
    const writers = files.filter(
      (f) => /[\\/](routes|inspect)\.ts$/.test(f) && /\.(transaction|groupWrite)\(/.test(readFileSync(f, 'utf8')),
    );
    expect(writers).toEqual([]);
  });

  it('no SQL outside store/', () => {
    const sql = files.filter(
      (f) => layerOf(f).layer !== 'store' && /\.(prepare|pragma)\(|\bdb\.exec\(/.test(readFileSync(f, 'utf8')),
    );
    expect(sql).toEqual([]);
  });
});

describe("the inspector's browser scripts", () => {
  const ASSETS = join(SRC, 'control', 'ui', 'assets');
  const scripts = readdirSync(ASSETS).filter((n) => n.endsWith('.js'));

  it("are the page, its calls, its DOM helpers and each interface's panel, which the page loads by name", () => {
    const panels = INTERFACE_MODULES.map((m) => m.inspection.panel.script);
    expect(scripts).toEqual(expect.arrayContaining(['api.js', 'app.js', 'dom.js', 'page.js', ...panels]));
    // The page's own module names no interface: it loads the panel each module names (the overview
    // lists them), so an interface's section is drawn by its own script and nothing else.
    const app = readFileSync(join(ASSETS, 'app.js'), 'utf8');
    for (const id of INTERFACE_FOLDERS) expect(app).not.toContain(id);
    expect(app).toContain('await import(`./${panel}`)');
    for (const panel of panels) expect(readFileSync(join(ASSETS, panel), 'utf8')).toMatch(/^export default async function /m);
  });

  it.each(scripts)('%s is type-checked (// @ts-check, under tsconfig.ui.json in npm run typecheck)', (name) => {
    expect(readFileSync(join(ASSETS, name), 'utf8').startsWith('// @ts-check\n')).toBe(true);
    const ui = JSON.parse(readFileSync('tsconfig.ui.json', 'utf8')) as {
      include: string[];
      compilerOptions: { checkJs: boolean; strict: boolean };
    };
    expect(ui.include).toContain('src/control/ui/assets/*.js');
    expect(ui.compilerOptions).toMatchObject({ checkJs: true, strict: true });
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.typecheck).toContain('tsc -p tsconfig.ui.json');
  });
});
