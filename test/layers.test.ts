/**
 * The layers of server/: each imports nothing above it. Every .ts file's imports are read from
 * its source (static `import` and `export … from`, `import type`, dynamic `import()`), each
 * relative one is resolved to the layer it lands in (a folder of server/, or a file at its top
 * such as errors.ts), and an import a layer may not make fails the test, naming file and import.
 * contract/, the names and types the service and the UI share, stands beside every layer: any
 * of server/ and renderer/ may import it, and it imports neither.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('../server/', import.meta.url));
const CONTRACT = fileURLToPath(new URL('../contract/', import.meta.url));
const RENDERER = fileURLToPath(new URL('../renderer/src/', import.meta.url));
/** The contract's layer, as `layerOf` names a path outside server/. */
const CONTRACT_LAYER = '../contract';
/** The packages contract/ may import: zod, for the schemas of the dashboard's answers. */
const CONTRACT_PACKAGES = ['zod'];
/** The contract's file of zod schemas: server/ and renderer/ take only its types. */
const CONTRACT_SCHEMAS = join(CONTRACT, 'dashboard-api.ts');

/** The surfaces: how the world reaches the service. Nothing below them imports them. */
const SURFACES = ['http', 'rpc', 'rest', 'mcp', 'public', 'dashboard', 'cli', 'oauth', 'content', 'desktop'];
/** The shared kernel, which every layer may import: the one error type. */
const KERNEL = ['errors.ts'];

/** What each constrained layer may import; the other layers are not constrained. */
const MAY_IMPORT: Record<string, (layer: string) => boolean> = {
  db: (layer) => layer === 'db' || KERNEL.includes(layer),
  domain: (layer) => layer === 'db' || layer === 'domain' || KERNEL.includes(layer),
  checks: (layer) => !SURFACES.includes(layer),
  delivery: (layer) => !SURFACES.includes(layer),
  'mcp-servers': (layer) => !SURFACES.includes(layer),
};

/** Why `from` may not import `to` (both layers), or undefined when it may. */
function refusal(from: string, to: string): string | undefined {
  if (to === CONTRACT_LAYER) return undefined;
  const allowed = MAY_IMPORT[from];
  return allowed && !allowed(to) ? `${from} may not import ${to}` : undefined;
}

type ImportKind = 'static' | 'type' | 'dynamic';

const STATIC = /^[ \t]*(?:import|export)\b([^'";]*?)\bfrom\s*['"]([^'"]+)['"]/gm;
const SIDE_EFFECT = /^[ \t]*import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The module specifiers a source imports, with how. */
function importsOf(source: string): { specifier: string; kind: ImportKind }[] {
  const found: { specifier: string; kind: ImportKind }[] = [];
  for (const [, clause, specifier] of source.matchAll(STATIC)) found.push({ specifier: specifier!, kind: /^\s*type\b/.test(clause!) ? 'type' : 'static' });
  for (const [, specifier] of source.matchAll(SIDE_EFFECT)) found.push({ specifier: specifier!, kind: 'static' });
  for (const [, specifier] of source.matchAll(DYNAMIC)) found.push({ specifier: specifier!, kind: 'dynamic' });
  return found;
}

/** The layer of a path under server/: its first folder, or the file itself at the top; `../x` outside. */
function layerOf(path: string): string {
  const parts = relative(SERVER, path).split(sep);
  return parts[0] === '..' ? `../${parts[1]}` : parts[0]!;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Every import of every file under `dir`, relative ones resolved. */
function importsUnder(dir: string): (Edge & { relative: boolean })[] {
  return tsFiles(dir).flatMap((file) =>
    importsOf(readFileSync(file, 'utf8')).map(({ specifier, kind }) => {
      const relative = specifier.startsWith('.');
      return { file, specifier, kind, relative, target: relative ? resolve(dirname(file), specifier) : specifier };
    }),
  );
}

interface Edge {
  file: string;
  specifier: string;
  kind: ImportKind;
  target: string;
}

/** Every relative import of every .ts file under server/. */
function walk(): { files: string[]; edges: Edge[] } {
  const files = tsFiles(SERVER);
  const edges = files.flatMap((file) =>
    importsOf(readFileSync(file, 'utf8'))
      .filter(({ specifier }) => specifier.startsWith('.'))
      .map(({ specifier, kind }) => ({ file, specifier, kind, target: resolve(dirname(file), specifier) })),
  );
  return { files, edges };
}

describe('layers', () => {
  const { files, edges } = walk();
  const show = (edge: Edge) => `${relative(SERVER, edge.file)} imports '${edge.specifier}'`;

  test('no layer imports one above it: the domain only db, itself and errors.ts; db only itself and errors.ts; checks and delivery no surface', () => {
    const refused = edges.flatMap((edge) => {
      const why = refusal(layerOf(edge.file), layerOf(edge.target));
      return why ? [`${show(edge)} (${why})`] : [];
    });
    assert.deepEqual(refused, []);
  });

  test('a repository decides no policy: it imports no service, no sealing and no secrets rule, and no value from the domain but other repositories', () => {
    const DOMAIN = join(SERVER, 'domain') + sep;
    const isRepository = (file: string) => file.endsWith('-repository.ts');
    const isService = (file: string) => existsSync(file) && /export function create\w*Service\b/.test(readFileSync(file, 'utf8'));
    const refused = edges.flatMap((edge) => {
      if (!edge.file.startsWith(DOMAIN) || !isRepository(edge.file) || !edge.target.startsWith(DOMAIN)) return [];
      const why = /(^|[/\\])sealing\.ts$|secrets\.ts$/.test(edge.target)
        ? "sealing and secrets are the service's to apply"
        : isService(edge.target)
          ? 'a service calls its repository, never the other way'
          : edge.kind !== 'type' && !isRepository(edge.target)
            ? 'a repository takes values from its caller'
            : undefined;
      return why ? [`${show(edge)} (${why})`] : [];
    });
    assert.deepEqual(refused, []);
  });

  test('the walk reads every file and import: a plausible count, each kind seen, each import resolving to a file', (t) => {
    t.diagnostic(`walked ${files.length} files, ${edges.length} relative imports`);
    assert.ok(files.length >= 120, `only ${files.length} files under server/`);
    assert.ok(edges.length >= 500, `only ${edges.length} relative imports`);
    for (const layer of ['db', 'domain', 'checks', 'delivery', ...SURFACES]) {
      assert.ok(
        edges.some((edge) => layerOf(edge.file) === layer),
        `no import read in server/${layer}`,
      );
    }
    assert.ok(
      edges.some((edge) => edge.kind === 'type'),
      'no import type read',
    );
    assert.deepEqual(edges.filter((edge) => !existsSync(edge.target)).map(show), []);
  });

  test('reads static imports, re-exports, type-only imports and dynamic imports, over several lines', () => {
    const source = [
      "import { a } from './a.ts';",
      "import type { B } from '../b/b.ts';",
      'import {',
      '  c,',
      '  type D,',
      "} from './c.ts';",
      "export { e } from './e.ts';",
      "export * from './f.ts';",
      "import './g.ts';",
      'const h = await import("./h.ts");',
      "import pino from 'pino';",
    ].join('\n');
    assert.deepEqual(importsOf(source), [
      { specifier: './a.ts', kind: 'static' },
      { specifier: '../b/b.ts', kind: 'type' },
      { specifier: './c.ts', kind: 'static' },
      { specifier: './e.ts', kind: 'static' },
      { specifier: './f.ts', kind: 'static' },
      { specifier: 'pino', kind: 'static' },
      { specifier: './g.ts', kind: 'static' },
      { specifier: './h.ts', kind: 'dynamic' },
    ]);
  });

  test('refuses a synthetic bad edge of each rule, and lets the allowed ones pass', () => {
    assert.equal(refusal('domain', 'delivery'), 'domain may not import delivery');
    assert.equal(refusal('domain', 'checks'), 'domain may not import checks');
    assert.equal(refusal('domain', 'services.ts'), 'domain may not import services.ts');
    assert.equal(refusal('domain', 'package-root.ts'), 'domain may not import package-root.ts');
    assert.equal(refusal('db', 'domain'), 'db may not import domain');
    assert.equal(refusal('checks', 'rpc'), 'checks may not import rpc');
    assert.equal(refusal('delivery', 'http'), 'delivery may not import http');
    assert.equal(refusal('mcp-servers', 'cli'), 'mcp-servers may not import cli');
    for (const [from, to] of [
      ['domain', 'db'],
      ['domain', 'domain'],
      ['domain', 'errors.ts'],
      ['db', 'errors.ts'],
      ['checks', 'domain'],
      ['delivery', 'domain'],
      ['rpc', 'domain'],
    ] as const) {
      assert.equal(refusal(from, to), undefined, `${from} → ${to}`);
    }
    assert.equal(layerOf(join(SERVER, 'domain/notifications/alerts.ts')), 'domain');
    assert.equal(layerOf(join(SERVER, 'errors.ts')), 'errors.ts');
    assert.equal(layerOf(resolve(SERVER, '../proto/gen/x.js')), '../proto');
  });
});

describe('the contract between the service and the UI', () => {
  const fromOutside = [...walk().edges, ...importsUnder(RENDERER).filter((edge) => edge.relative)];

  test('contract/ imports neither server/ nor renderer/, only itself and zod, and no Node.js module', () => {
    const edges = importsUnder(CONTRACT);
    assert.ok(
      edges.some((edge) => edge.specifier === 'zod'),
      'no import of contract/ read',
    );
    const refused = edges.filter((edge) => (edge.relative ? !edge.target.startsWith(CONTRACT) : !CONTRACT_PACKAGES.includes(edge.specifier)));
    assert.deepEqual(
      refused.map((edge) => `${relative(CONTRACT, edge.file)} imports '${edge.specifier}'`),
      [],
    );
  });

  test('server/ and renderer/ import the zod schemas of contract/dashboard-api.ts only as types, so neither bundle builds them', () => {
    const schemaImports = fromOutside.filter((edge) => edge.target === CONTRACT_SCHEMAS);
    assert.ok(
      schemaImports.some((edge) => edge.file.startsWith(SERVER)),
      'server/ reads no type of the contract',
    );
    assert.ok(
      schemaImports.some((edge) => edge.file.startsWith(RENDERER)),
      'renderer/ reads no type of the contract',
    );
    assert.deepEqual(
      schemaImports
        .filter((edge) => edge.kind !== 'type')
        .map((edge) => `${relative(join(SERVER, '..'), edge.file)} imports '${edge.specifier}' (use import type)`),
      [],
    );
  });

  test('every layer of server/ may import the contract', () => {
    for (const layer of ['db', 'domain', 'checks', 'delivery', 'errors.ts', 'dashboard']) assert.equal(refusal(layer, CONTRACT_LAYER), undefined, layer);
    assert.equal(layerOf(join(CONTRACT, 'dashboard.ts')), CONTRACT_LAYER);
    assert.ok(fromOutside.some((edge) => edge.file.startsWith(SERVER) && layerOf(edge.target) === CONTRACT_LAYER));
  });
});
