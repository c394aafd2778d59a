// bench:ui: the overview with 10,000 monitors stored, in Chromium (playwright-core), each figure
// beside an empty page served the same way (the UI's own static route, over a folder holding one
// empty index.html) in the same run.
//
//   first rows   navigation start until the overview's first monitor row is visible, in a fresh
//                browser context each round (nothing cached, as a first visit); the baseline is
//                the empty page until its body is visible
//   filter       typing a search term until the list shows only rows that match it; the baseline
//                is the same search made as one fetch of the overview API from the page
//   first-screen JS   bytes of JavaScript transferred for the first screen, and in all
//
// Aims: first rows under 1 s, filter under 200 ms. Usage: npm run bench:ui -- [--rounds N] [--monitors N]
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { arch, availableParallelism, loadavg, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { type Browser, chromium, type Page } from 'playwright-core';
import { createResultStore, type StoredCheck } from '../server/checks/result-store.ts';
import { withLocalOwner } from '../server/cli/local.ts';
import { registerUi } from '../server/dashboard/ui-routes.ts';
import { openDatabase } from '../server/db/open.ts';
import { CHROMIUM_ARGS, findChromium } from '../test/support/browser.ts';
import { median, parseNumber, table } from './support/figures.ts';
import { SERVE, spawnReady } from './support/processes.ts';

const SEARCH_TERM = 'svc-0424';
const WAIT_MS = 30_000;

const line = (text: string) => process.stdout.write(`${text}\n`);
const ms = (value: number) => `${value.toFixed(0)} ms`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** Stores `count` TCP monitors, and an hour of results for the first 200 of them. */
async function seed(dataDir: string, count: number): Promise<void> {
  const workspaceId = await withLocalOwner(dataDir, async (services, owner) => {
    const ws = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
    for (let i = 0; i < count; i++) {
      const name = `svc-${String(i).padStart(4, '0')} ${['api', 'db', 'cache', 'queue', 'web'][i % 5]}`;
      await services.monitors.create(owner, ws, 'tcp', {
        name,
        uri: `127.0.0.1:${10_000 + (i % 50_000)}`,
        periodicity: '10m',
        tags: [['prod', 'staging'][i % 2]!],
      });
    }
    return ws;
  });
  const db = await openDatabase(dataDir);
  try {
    const store = createResultStore(db);
    const now = Date.now();
    const checks: StoredCheck[] = [];
    for (let id = 1; id <= Math.min(count, 200); id++) {
      for (let at = now - 3_600_000; at < now; at += 5 * 60_000) {
        const latency = 2 + (id % 7);
        checks.push({
          monitorId: id,
          workspaceId,
          runner: 'embedded',
          regions: ['iad'],
          startedAt: at,
          result: id % 17 === 0 ? 'down' : 'up',
          latencyMs: latency,
          timing: { dns: null, connect: latency, tls: null, ttfb: null, transfer: null, total: latency },
          attempts: 1,
          message: 'connected',
          grpcStatus: null,
          statusCode: null,
          url: null,
          responseHeaders: {},
          assertionResults: [],
        });
      }
    }
    await store.write(checks);
  } finally {
    await db.destroy();
  }
}

/** The empty page, served by the UI's own static route over a folder of its own. */
async function emptyPageServer(root: string): Promise<{ url: string; close(): void }> {
  await mkdir(join(root, 'assets'), { recursive: true });
  await writeFile(join(root, 'index.html'), '<!doctype html><html lang="en"><title>Empty</title><body><p id="ready">ready</p></body></html>');
  const app = new Hono();
  registerUi(app as never, { root });
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
      resolve({ url: `http://127.0.0.1:${info.port}`, close: () => server.close() }),
    );
  });
}

/** Bytes of JavaScript and of everything transferred while `run` loads a page. */
async function transferred(page: Page, run: () => Promise<void>): Promise<{ js: number; all: number }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const types = new Map<string, string>();
  let js = 0;
  let all = 0;
  cdp.on('Network.responseReceived', (event) => types.set(event.requestId, event.type));
  cdp.on('Network.loadingFinished', (event) => {
    all += event.encodedDataLength;
    if (types.get(event.requestId) === 'Script') js += event.encodedDataLength;
  });
  await run();
  await cdp.detach();
  return { js, all };
}

/** One search of the overview API, as the page makes it, timed from this process (signed in by its own link). */
async function overviewFetch(dashboardUrl: string, signInLink: string): Promise<number> {
  const signIn = await fetch(signInLink);
  const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
  const token = /<meta name="statusdesk-session" content="([^"]+)">/.exec(await signIn.text())![1]!;
  const headers = { cookie, 'x-statusdesk-session': token, accept: 'application/json' };
  const { workspaces } = (await (await fetch(`${dashboardUrl}/api/session`, { headers })).json()) as { workspaces: { id: string }[] };
  const start = performance.now();
  const response = await fetch(`${dashboardUrl}/api/workspaces/${workspaces[0]!.id}/overview?q=${encodeURIComponent(SEARCH_TERM)}`, { headers });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`overview API: ${response.status}`);
  return performance.now() - start;
}

interface Round {
  firstRows: number;
  emptyPage: number;
  filter: number;
  filterFetch: number;
  js: number;
  all: number;
  emptyAll: number;
}

async function round(browser: Browser, dashboardUrl: string, emptyUrl: string, signIn: () => Promise<string>): Promise<Round> {
  // The empty page, in a fresh context.
  const empty = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const emptyPage = await empty.newPage();
  let emptyMs = 0;
  const emptyBytes = await transferred(emptyPage, async () => {
    const start = performance.now();
    await emptyPage.goto(emptyUrl, { waitUntil: 'commit' });
    await emptyPage.locator('#ready').waitFor({ timeout: WAIT_MS });
    emptyMs = performance.now() - start;
  });
  await empty.close();

  // The overview, in a fresh context: nothing cached, as on a first visit.
  const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const ui = await fresh.newPage();
  const link = await signIn();
  // The sign-in link lands on the overview: the clock starts at navigation.
  let firstRows = 0;
  const bytes = await transferred(ui, async () => {
    const start = performance.now();
    await ui.goto(link, { waitUntil: 'commit' });
    await ui.getByRole('list', { name: 'Monitors' }).getByRole('link').first().waitFor({ timeout: WAIT_MS });
    firstRows = performance.now() - start;
  });

  // Filter: type the term, wait until every row shown matches it.
  const search = ui.getByRole('searchbox');
  const start = performance.now();
  await search.fill(SEARCH_TERM);
  // A function, not a string: the page's CSP refuses eval. It runs in the page, where `document` is.
  await ui.waitForFunction(
    (term: string) => {
      const page = globalThis as unknown as { document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }> } };
      const rows = Array.from(page.document.querySelectorAll('[aria-label="Monitors"] a'));
      return rows.length > 0 && rows.every((a) => (a.textContent ?? '').includes(term));
    },
    SEARCH_TERM,
    { timeout: WAIT_MS, polling: 'raf' },
  );
  const filter = performance.now() - start;
  const filterFetch = await overviewFetch(dashboardUrl, await signIn());
  await fresh.close();
  return { firstRows, emptyPage: emptyMs, filter, filterFetch, js: bytes.js, all: bytes.all, emptyAll: emptyBytes.all };
}

async function main(): Promise<number> {
  let rounds: number;
  let monitors: number;
  try {
    const { values } = parseArgs({ options: { rounds: { type: 'string' }, monitors: { type: 'string' } }, strict: true });
    rounds = parseNumber('rounds', values.rounds, 5, 1, 20);
    monitors = parseNumber('monitors', values.monitors, 10_000, 1, 100_000);
  } catch (error) {
    process.stderr.write(`bench:ui: ${(error as Error).message}\nUsage: npm run bench:ui -- [--rounds N] [--monitors N]\n`);
    return 2;
  }
  const executablePath = findChromium();
  if (!executablePath) {
    process.stderr.write('bench:ui: no Chromium found: install chromium or set CHROMIUM_PATH\n');
    return 1;
  }
  const root = await mkdtemp(join(tmpdir(), 'statusdesk-bench-ui-'));
  const dataDir = join(root, 'data');
  const seedStart = performance.now();
  await seed(dataDir, monitors);
  line(`${monitors} monitors stored through the monitor service in ${ms(performance.now() - seedStart)}; results for the first 200`);
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('STATUSDESK_')));
  const service = await spawnReady(
    'statusdesk serve',
    [...SERVE, '--data-dir', dataDir, '--port', '0', '--dashboard-port', '0', '--host', '127.0.0.1'],
    { ...env, STATUSDESK_CHECKS: 'off', STATUSDESK_RATE_LIMIT: '0' },
    join(root, 'service.log'),
    (ready) => Number(new URL(String(ready.apiUrl)).port),
  );
  const empty = await emptyPageServer(join(root, 'empty'));
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  try {
    const dashboardUrl = String(service.ready.dashboardUrl);
    const signIn = async () => {
      const token = await withLocalOwner(dataDir, async (services, owner) => services.sessions.createSignInToken(owner.type === 'user' ? owner.userId : 0));
      return `${dashboardUrl}/signin?token=${token}`;
    };
    await round(browser, dashboardUrl, empty.url, signIn); // warm-up: the service's caches, Chromium's start
    const results: Round[] = [];
    for (let i = 0; i < rounds; i++) results.push(await round(browser, dashboardUrl, empty.url, signIn));
    const m = (pick: (r: Round) => number) => median(results.map(pick));
    const ratio = (pick: (r: Round) => number, base: (r: Round) => number) => median(results.map((r) => pick(r) / base(r)));
    line('');
    line(
      table([
        ['figure (median of ' + rounds + ' rounds)', 'overview', 'baseline', 'ratio', 'aim'],
        [
          'first rows visible',
          ms(m((r) => r.firstRows)),
          ms(m((r) => r.emptyPage)),
          `${ratio(
            (r) => r.firstRows,
            (r) => r.emptyPage,
          ).toFixed(2)}x`,
          '< 1000 ms',
        ],
        [
          'filter by a search term',
          ms(m((r) => r.filter)),
          ms(m((r) => r.filterFetch)),
          `${ratio(
            (r) => r.filter,
            (r) => r.filterFetch,
          ).toFixed(2)}x`,
          '< 200 ms',
        ],
        ['JS transferred, first screen', kib(m((r) => r.js)), kib(0), '-', ''],
        [
          'all transferred, first screen',
          kib(m((r) => r.all)),
          kib(m((r) => r.emptyAll)),
          `${ratio(
            (r) => r.all,
            (r) => r.emptyAll,
          ).toFixed(1)}x`,
          '',
        ],
      ]),
    );
    line('');
    line(`baselines: the empty page through the same static route (first rows), one fetch of the overview API from the page (filter)`);
    line(`machine: ${platform()} ${arch()}, ${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(2)}; ${await browser.version()}`);
    const firstRows = m((r) => r.firstRows);
    const filter = m((r) => r.filter);
    line(`aims: first rows ${firstRows < 1000 ? 'met' : 'MISSED'}, filter ${filter < 200 ? 'met' : 'MISSED'}`);
    return 0;
  } finally {
    await browser.close();
    empty.close();
    await service.stop();
    await rm(root, { recursive: true, force: true });
  }
}

process.exitCode = await main();
