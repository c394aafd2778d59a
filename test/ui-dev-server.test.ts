// The UI's dev server (`npm run dev`, renderer/vite.config.ts) in front of the real service: Vite
// serves the sources with hot reload, the dashboard's API goes through its proxy, signing in with
// a link of the dev server's address works, and the service's Origin check still refuses every
// origin but its own, the dev server's pages standing in for its own pages and nothing else.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { createServer, mergeConfig, type ViteDevServer } from 'vite';
import { Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { DEFAULT_DEV_TARGET, DEV_TARGET_SETTING, devConfig, devTarget } from '../renderer/vite.config.ts';
import { assertSameDocument, markDocument, openPage, signInLink, withBrowser } from './support/browser.ts';
import { monitorRpc, startTestService, type TestService } from './support/harness.ts';

const T = { timeout: 90_000 };

let service: TestService;
let dev: ViteDevServer;
/** The dev server's address, `http://127.0.0.1:PORT`. */
let devUrl: string;
/** Vite's pre-bundled dependencies, kept apart from a developer's own `npm run dev`. */
let cacheDir: string;

before(async () => {
  service = await startTestService();
  cacheDir = await mkdtemp(join(tmpdir(), 'statusdesk-vite-'));
  dev = await createServer(
    mergeConfig(devConfig(service.dashboardUrl), {
      configFile: false,
      cacheDir,
      logLevel: 'silent',
      // The test tells Vite of a change itself (below) and edits no file: no watcher of the tree.
      server: { host: '127.0.0.1', port: 0, strictPort: true, watch: null },
    }),
  );
  await dev.listen();
  devUrl = `http://127.0.0.1:${dev.config.server.port}`;
});
after(async () => {
  if (dev) await withinMs(dev.close(), 15_000, 'the dev server closing');
  await service?.stop();
  if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
});

async function withinMs<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The service's error envelope of an answer. */
const envelope = async (answer: Response) => (await answer.json()) as { code: string; message: string };

/** A request to the dev server without a browser, bounded. */
const get = (path: string, init: RequestInit = {}) => fetch(`${devUrl}${path}`, { redirect: 'manual', ...init, signal: AbortSignal.timeout(10_000) });

describe('the UI dev server', () => {
  test('the service it proxies to comes from STATUSDESK_DEV_TARGET, localhost:3001 by default, and a bad one is named', () => {
    assert.equal(devTarget({}), DEFAULT_DEV_TARGET);
    assert.equal(DEFAULT_DEV_TARGET, 'http://localhost:3001');
    assert.equal(devTarget({ [DEV_TARGET_SETTING]: 'http://127.0.0.1:4001/' }), 'http://127.0.0.1:4001');
    for (const bad of ['localhost:3001', 'ftp://localhost:3001', 'http://localhost:3001/api', 'http://user:pw@localhost:3001']) {
      const named = /^Error: STATUSDESK_DEV_TARGET: must be the address of a service's dashboard port, like http:\/\/localhost:3001/;
      assert.throws(() => devTarget({ [DEV_TARGET_SETTING]: bad }), named, bad);
    }
  });

  test("signed in through the dev server, screens show the service's data, live, from the sources, with hot reload", T, async () => {
    const { secret } = await service.createKey('write');
    const rpc = monitorRpc(service, secret);
    const { monitor } = await rpc.createTCPMonitor({
      monitor: { name: 'orders db', uri: '127.0.0.1:5432', periodicity: Periodicity.PERIODICITY_10M, regions: ['iad'] },
    });

    await withBrowser(async (browser) => {
      const { page } = await openPage(browser, service, { signedIn: false });
      const requested: string[] = [];
      page.on('request', (request) => requested.push(new URL(request.url()).pathname));
      // A sign-in link of the service, opened at the dev server's address.
      const link = new URL(await signInLink(service));
      const signIn = await page.goto(`${devUrl}${link.pathname}${link.search}`);
      assert.equal(signIn?.status(), 200);
      assert.equal(signIn?.headers()['cache-control'], 'no-store', 'the sign-in answer is not kept');
      assert.equal(signIn?.headers()['x-frame-options'], 'DENY', 'the signed-in page cannot be framed');
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/', 'the one-time link left the address');
      assert.equal(await page.locator('meta[name="statusdesk-session"]').count(), 0, 'the app took the token');
      // The dev server's page, not the build's: Vite's client (hot reload) and the sources.
      assert.ok(requested.includes('/@vite/client'), "the page runs Vite's client");
      assert.ok(requested.includes('/src/main.tsx'), 'the page runs the sources');
      assert.ok(!requested.some((path) => path.startsWith('/assets/')), 'nothing of the build is loaded');

      // Hot reload: a change to a stylesheet reaches the open page as an update, without a reload.
      // (The watcher is told of the change, as it would be of an edit: no source file is written.)
      await markDocument(page);
      const updated = page.waitForRequest((request) => /\/src\/styles\.css\?t=\d+/.test(request.url()));
      dev.watcher.emit('change', fileURLToPath(new URL('../renderer/src/styles.css', import.meta.url)));
      await updated;
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      await assertSameDocument(page);

      // The live feed streams through the proxy: a monitor made elsewhere shows without a reload.
      await rpc.createTCPMonitor({ monitor: { name: 'queue broker', uri: '127.0.0.1:5672', periodicity: Periodicity.PERIODICITY_10M, regions: ['iad'] } });
      await page.getByRole('list', { name: 'Monitors' }).getByRole('link', { name: 'queue broker', exact: true }).waitFor({ timeout: 10_000 });
      await assertSameDocument(page);

      // The overview's JSON API, then the monitor's screen over the RPC services, which check the
      // Origin of every call.
      const row = page.getByRole('list', { name: 'Monitors' }).getByRole('link', { name: 'orders db', exact: true });
      await row.click();
      await page.getByRole('heading', { name: 'orders db', level: 1 }).waitFor();
      assert.equal(new URL(page.url()).pathname, `/monitors/${monitor!.id}`);
      await page.getByText('127.0.0.1:5432').first().waitFor();

      // A change from the dev server's page (a POST under /api, whose Origin the service checks): an API key.
      await page.goto(`${devUrl}/settings/general/api-keys`);
      await page.getByRole('heading', { name: 'API Keys', level: 1 }).waitFor();
      await page.getByLabel('Name').fill('from the dev server');
      await page.getByRole('radio', { name: 'Read only' }).check();
      await page.getByRole('button', { name: 'Create key' }).click();
      const secret = await page.getByRole('textbox', { name: 'Secret' }).inputValue();
      assert.equal((await service.api('/v1/whoami', { key: secret })).status, 200, 'the key is real');
    });
  });

  test("the service still refuses every origin but its own: only the dev server's own pages stand in for it", T, async () => {
    const refused = await get('/api/session', { headers: { origin: 'http://localhost:1' } });
    assert.equal(refused.status, 403, 'another local origin is passed on as it came, and refused');
    assert.match((await envelope(refused)).message, /origin http:\/\/localhost:1 may not call this service/);
    const rpc = await get('/rpc/monitor.v1.MonitorService/ListMonitors', {
      method: 'POST',
      headers: { origin: 'https://attacker.example', 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(rpc.status, 403);
    await rpc.arrayBuffer();
    // The dev server's own origin reaches the service, which then asks for a session.
    const own = await get('/api/session', { headers: { origin: devUrl } });
    assert.equal(own.status, 401);
    assert.equal((await envelope(own)).code, 'UNAUTHORIZED');
  });

  test("a used or expired sign-in link, a consent link and a consent request are the service's answers; other paths are the UI", T, async () => {
    const expired = await get('/signin?token=no-such-token');
    assert.equal(expired.status, 401);
    assert.match(await expired.text(), /This sign-in link can no longer be used/);
    // /oauth/consent?ticket=… is the service's (it binds the browser to the request), the page itself the UI's.
    const ticket = await get('/oauth/consent?ticket=no-such-ticket');
    assert.doesNotMatch(await ticket.text(), /@vite\/client/);
    const request = await get(`/oauth/consent/requests/${'A'.repeat(22)}`);
    assert.equal(request.status, 404);
    assert.equal((await envelope(request)).code, 'NOT_FOUND');
    for (const path of [`/oauth/consent?request=${'A'.repeat(22)}`, '/monitors/new', '/settings/general/api-keys']) {
      const page = await get(path, { headers: { accept: 'text/html' } });
      assert.equal(page.status, 200, path);
      assert.match(await page.text(), /<script type="module" src="\/@vite\/client"><\/script>/, path);
      assert.equal(page.headers.get('x-frame-options'), 'DENY', `${path} cannot be framed`);
      assert.equal(page.headers.get('content-security-policy'), "frame-ancestors 'none'", path);
    }
  });
});
