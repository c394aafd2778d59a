import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { UI_ROUTES as CONTRACT_UI_ROUTES } from '../contract/dashboard.ts';
import { UI_ROUTES, registerUi } from '../server/dashboard/ui-routes.ts';
import { createHonoApp } from '../server/http/hono-app.ts';
import { packageRoot } from '../server/package-root.ts';
import { tempDir } from './support/harness.ts';

function uiApp(root: string) {
  const app = createHonoApp({
    log: pino({ level: 'silent' }),
    docsBase: 'http://localhost:3000',
    maxBodyBytes: 1024,
    authenticate: {
      path: '/no-api/*',
      actor: async () => {
        throw new Error('no API in this app');
      },
    },
  });
  registerUi(app, { root });
  // The node server's bindings, as the error handler reads the request id from them.
  const env = { incoming: { headers: {} } };
  return { request: (path: string, init?: RequestInit) => app.request(path, init, env) };
}

describe('UI routes', () => {
  let dir: { path: string; remove(): Promise<void> };
  let app: ReturnType<typeof uiApp>;

  before(async () => {
    dir = await tempDir();
    mkdirSync(join(dir.path, 'assets'));
    writeFileSync(join(dir.path, 'index.html'), '<!doctype html><title>Statusdesk</title><div id="root"></div>');
    writeFileSync(join(dir.path, 'assets', 'index-AbC123.js'), 'console.log(1)');
    writeFileSync(join(dir.path, 'assets', 'index-AbC123.css'), 'body{}');
    writeFileSync(join(dir.path, 'assets', 'favicon-x1.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(join(dir.path, 'assets', 'notes.txt'), 'not served');
    writeFileSync(join(dir.path, 'assets', 'app-Z9.js'), 'console.log("plain")');
    writeFileSync(join(dir.path, 'assets', 'app-Z9.js.br'), brotliCompressSync('console.log("plain")'));
    writeFileSync(join(dir.path, 'assets', 'app-Z9.js.gz'), gzipSync('console.log("plain")'));
    writeFileSync(join(dir.path, 'secret.js'), 'outside assets');
    app = uiApp(dir.path);
  });
  after(() => dir.remove());

  test('every route of the UI answers index.html, not cached', async () => {
    // The renderer's router draws exactly these paths: both take them from the contract.
    assert.equal(UI_ROUTES, CONTRACT_UI_ROUTES);
    const router = readFileSync(join(packageRoot, 'renderer', 'src', 'router.tsx'), 'utf8');
    assert.match(router, /^import \{ UI_ROUTES \} from '\.\.\/\.\.\/contract\/dashboard\.ts';$/m);
    assert.match(router, /^export const ROUTES = UI_ROUTES;$/m);
    const paths = UI_ROUTES.map((route) => route.replaceAll(':id', '42'));
    for (const path of [...paths, '/oauth/consent?request=abc', '/monitors/new?type=grpc']) {
      const response = await app.request(path);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/i, path);
      assert.equal(response.headers.get('cache-control'), 'no-cache', path);
      assert.match(await response.text(), /<div id="root">/, path);
    }
    const head = await app.request('/keys', { method: 'HEAD' });
    assert.equal(head.status, 200);
  });

  test('other paths are not the UI: /api/*, consent requests and unknown pages are 404', async () => {
    for (const path of [
      '/api/session',
      '/oauth/consent/requests/abc',
      '/settings/keys',
      '/settings/general/api-keys/1',
      '/keys/1',
      '/index.html',
      '/monitors',
      '/monitors/1/edit/x',
      '/pages/1/2',
    ]) {
      const response = await app.request(path);
      assert.equal(response.status, 404, path);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/, path);
    }
  });

  test('assets are served with their content type and cached for a year', async () => {
    const cases = [
      ['index-AbC123.js', /^text\/javascript; charset=utf-8$/, 'console.log(1)'],
      ['index-AbC123.css', /^text\/css; charset=utf-8$/, 'body{}'],
      ['favicon-x1.svg', /^image\/svg\+xml$/, '<svg xmlns="http://www.w3.org/2000/svg"/>'],
    ] as const;
    for (const [name, type, body] of cases) {
      const response = await app.request(`/assets/${name}`);
      assert.equal(response.status, 200, name);
      assert.match(response.headers.get('content-type') ?? '', type, name);
      assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable', name);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', name);
      assert.equal(await response.text(), body, name);
    }
  });

  test('a script is sent brotli- or gzip-compressed to a browser that accepts it, as the build wrote it, and plain otherwise', async () => {
    const cases = [
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['br;q=0.0, gzip;q=0', null],
      ['identity', null],
      ['', null],
    ] as const;
    for (const [accept, encoding] of cases) {
      const response = await app.request('/assets/app-Z9.js', { headers: { 'accept-encoding': accept } });
      assert.equal(response.status, 200, accept);
      assert.equal(response.headers.get('content-encoding'), encoding, accept);
      assert.equal(response.headers.get('vary'), 'accept-encoding', accept);
      assert.match(response.headers.get('content-type') ?? '', /^text\/javascript/, accept);
      const bytes = Buffer.from(await response.arrayBuffer());
      const text = encoding === 'br' ? brotliDecompressSync(bytes).toString() : encoding === 'gzip' ? gunzipSync(bytes).toString() : bytes.toString();
      assert.equal(text, 'console.log("plain")', accept);
    }
    // The compressed copies are not addresses of their own.
    assert.equal((await app.request('/assets/app-Z9.js.br')).status, 404);
    // An asset without copies is sent plain to a browser that would accept them.
    const plain = await app.request('/assets/index-AbC123.js', { headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(plain.headers.get('content-encoding'), null);
    assert.equal(await plain.text(), 'console.log(1)');
  });

  test('an unknown asset, an unknown kind of file, or a path out of assets/ is 404', async () => {
    for (const path of [
      '/assets/missing-1.js',
      '/assets/notes.txt',
      '/assets/../secret.js',
      '/assets/%2e%2e%2fsecret.js',
      '/assets/..%2Fsecret.js',
      '/assets/.hidden.js',
      '/assets/',
    ]) {
      const response = await app.request(path);
      assert.equal(response.status, 404, path);
      assert.doesNotMatch(await response.text(), /outside assets/, path);
    }
  });

  test('without a build, the UI answers 503 in one line saying to run npm run build', async () => {
    const missing = uiApp(join(dir.path, 'not-built'));
    for (const path of ['/', '/connections', '/assets/index-AbC123.js']) {
      const response = await missing.request(path);
      assert.equal(response.status, 503, path);
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain/, path);
      const text = await response.text();
      assert.match(text, /run npm run build/, path);
      assert.equal(text.trim().split('\n').length, 1, path);
    }
  });
});

describe('the built UI', () => {
  const built = join(packageRoot, 'dist', 'renderer');

  test('index.html has no inline script, style or handler, so it runs under the dashboard CSP', () => {
    assert.ok(existsSync(join(built, 'index.html')), 'dist/renderer/index.html is missing: run npm run build');
    const html = readFileSync(join(built, 'index.html'), 'utf8');
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    assert.ok(scripts.length > 0, 'no script at all');
    for (const [, attributes, body] of scripts) {
      assert.match(attributes!, /\bsrc="\/assets\/[^"]+\.js"/, 'every script is a file of its own');
      assert.equal(body!.trim(), '', 'a script with inline code');
    }
    assert.doesNotMatch(html, /<style\b/i);
    assert.doesNotMatch(html, /\sstyle=/i);
    assert.doesNotMatch(html, /\son[a-z]+=/i);
    assert.match(html, /<link rel="stylesheet"[^>]*href="\/assets\/[^"]+\.css"/);
  });

  test('its scripts use no eval or Function constructor', () => {
    const scripts = readdirSync(join(built, 'assets')).filter((name) => name.endsWith('.js'));
    assert.ok(scripts.length > 0);
    for (const name of scripts) {
      const code = readFileSync(join(built, 'assets', name), 'utf8');
      assert.doesNotMatch(code, /\beval\(|new Function\(/, name);
    }
  });

  test("its scripts carry no zod: the renderer reads the contract's types, never its schemas", () => {
    const scripts = readdirSync(join(built, 'assets')).filter((name) => name.endsWith('.js'));
    assert.ok(scripts.length > 0);
    // Every zod schema class is made by name ("$ZodString", "$ZodObject"), which no minifier renames.
    for (const name of scripts) assert.doesNotMatch(readFileSync(join(built, 'assets', name), 'utf8'), /\$Zod[A-Z]/, name);
  });

  test('the renderer imports neither server code nor Node.js modules', () => {
    const sources: string[] = [];
    const walk = (folder: string) => {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.(ts|tsx)$/.test(entry.name)) sources.push(path);
      }
    };
    walk(join(packageRoot, 'renderer', 'src'));
    assert.ok(sources.length > 5);
    // Relative imports (the generated RPC messages under proto/gen among them) and browser packages
    // (`diff`: the line diff of an MCP server's changed tools; `@simplewebauthn/browser`: the passkey prompts).
    const allowed =
      /^(\.{1,2}\/(?!.*\bserver\/)|react$|react-dom\/client$|react\/jsx-runtime$|@bufbuild\/protobuf(\/wkt)?$|@connectrpc\/connect(-web|-query)?$|@tanstack\/react-(virtual|query)$|eventsource-parser$|react-hook-form$|diff$|@simplewebauthn\/browser$)/;
    for (const file of sources) {
      const code = readFileSync(file, 'utf8');
      // `from '...'` of imports and re-exports, `import '...'` for side effects, and import('...').
      for (const [, a, b, c] of code.matchAll(/\bfrom\s+'([^']+)'|\bimport\s+'([^']+)'|\bimport\(\s*'([^']+)'/g)) {
        const specifier = a ?? b ?? c ?? '';
        assert.match(specifier, allowed, `${relative(packageRoot, file)} imports ${specifier}`);
      }
    }
  });
});
