// The screenshots of the UI in docs/screenshots/, in the light and the dark theme:
// `npm run screenshots`. A demo workspace is made in a fresh data folder: monitors against
// servers this script starts on 127.0.0.1 (one of them closed, one slow), a day of their check
// history written through the check engine's own result store, a status page with a report and
// a maintenance window; then the real service runs, checks each monitor once, and Chromium
// (playwright-core) photographs each screen at 1280x800.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { chromium } from 'playwright-core';
import { createResultStore, type StoredCheck } from '../server/checks/result-store.ts';
import { withLocalOwner } from '../server/cli/local.ts';
import { serviceConfig } from '../server/config.ts';
import { openDatabase } from '../server/db/open.ts';
import { startService } from '../server/main.ts';
import { packageRoot } from '../server/package-root.ts';
import { CHROMIUM_ARGS, findChromium } from '../test/support/browser.ts';

const OUT = join(packageRoot, 'docs', 'screenshots');
const VIEWPORT = { width: 1280, height: 800 };
const HISTORY_STEP_MS = 5 * 60_000;
const DAY_MS = 24 * 3_600_000;

function listen(server: { listen(port: number, host: string, cb: () => void): unknown; address(): unknown }): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** A plausible day of latencies around `base` ms: a daily swell and some noise, a bad hour for `failing`. */
function history(monitorId: number, workspaceId: number, base: number, failing: boolean, now: number): StoredCheck[] {
  const checks: StoredCheck[] = [];
  for (let at = now - DAY_MS; at < now - HISTORY_STEP_MS; at += HISTORY_STEP_MS) {
    const hour = (at / 3_600_000) % 24;
    const latency = Math.round(base * (1 + 0.35 * Math.sin((hour / 24) * 2 * Math.PI)) * (0.8 + Math.random() * 0.4));
    const down = failing && now - at < 40 * 60_000;
    checks.push({
      monitorId,
      workspaceId,
      runner: 'embedded',
      regions: ['iad', 'ams', 'fra'],
      startedAt: at,
      result: down ? 'down' : 'up',
      latencyMs: down ? 5_000 : latency,
      timing: { dns: null, connect: Math.round(latency * 0.6), tls: null, ttfb: null, transfer: null, total: latency },
      attempts: 1,
      message: down ? 'connection refused' : 'connected',
      grpcStatus: null,
      statusCode: null,
      url: null,
      responseHeaders: {},
      assertionResults: [],
    });
  }
  return checks;
}

async function main(): Promise<void> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('no Chromium found: install chromium or set CHROMIUM_PATH');
  const root = await mkdtemp(join(tmpdir(), 'statusdesk-screenshots-'));
  const tcp = createTcpServer((socket) => socket.end());
  const web = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  const slow = createHttpServer((_req, res) => setTimeout(() => res.writeHead(200).end('slow'), 400));
  const closed = createTcpServer();
  const [tcpPort, webPort, slowPort, closedPort] = await Promise.all([listen(tcp), listen(web), listen(slow), listen(closed)]);
  await new Promise((resolve) => closed.close(resolve));

  const dataDir = join(root, 'data');
  const made = await withLocalOwner(dataDir, async (services, owner) => {
    const ws = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
    const create = (type: 'tcp' | 'http', input: Record<string, unknown>) => services.monitors.create(owner, ws, type, { periodicity: '1m', ...input });
    const monitors = [
      await create('tcp', { name: 'Postgres primary', uri: `127.0.0.1:${tcpPort}`, tags: ['database', 'production'] }),
      await create('http', { name: 'Marketing site', url: `http://127.0.0.1:${webPort}/`, tags: ['web'] }),
      await create('http', { name: 'Search API', url: `http://127.0.0.1:${slowPort}/search`, degraded: 250, tags: ['api', 'production'] }),
      await create('tcp', { name: 'Redis cache', uri: `127.0.0.1:${closedPort}`, tags: ['database'] }),
      await create('tcp', { name: 'Build runner', uri: `127.0.0.1:${tcpPort}`, active: false, tags: ['ci'] }),
    ];
    const page = await services.pages.create(owner, ws, { title: 'Acme status', slug: 'acme', description: 'Our services, live.' });
    for (const [i, m] of monitors.slice(0, 4).entries()) {
      await services.pages.addComponent(owner, ws, page.id, { name: m.name, monitorId: m.id, group: i < 2 ? 'Core' : 'Data' });
    }
    return { ws, monitors, pageId: page.id };
  });
  // A day of history, through the engine's own store, oldest first.
  const db = await openDatabase(dataDir);
  try {
    const store = createResultStore(db);
    const now = Date.now();
    const bases = [4, 38, 310, 3, 5];
    for (const [i, m] of made.monitors.entries()) await store.write(history(Number(m.id), made.ws, bases[i]!, i === 3, now));
  } finally {
    await db.destroy();
  }

  const service = await startService(serviceConfig({ dataDir, port: '0', dashboardPort: '0' }, {}), pino({ level: 'silent' }));
  try {
    await withLocalOwner(dataDir, async (services, owner) => {
      for (const m of made.monitors.slice(0, 4)) await services.monitors.trigger(owner, made.ws, m.id).catch(() => undefined);
    });
    const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
    await mkdir(OUT, { recursive: true });
    const screens: [string, string, string][] = [
      ['overview', '/', 'Overview'],
      ['monitor', `/monitors/${made.monitors[2]!.id}`, 'Search API'],
      ['monitor-form', '/monitors/new?type=http', 'New monitor'],
      ['status-page', `/pages/${made.pageId}`, 'Acme status'],
      ['audit-log', '/audit', 'Audit log'],
      ['connect-editor', '/connect', 'Connect an AI editor'],
    ];
    try {
      for (const theme of ['light', 'dark'] as const) {
        const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: theme, deviceScaleFactor: 1 });
        context.setDefaultTimeout(15_000);
        const page = await context.newPage();
        const link = await withLocalOwner(dataDir, async (services, owner) => services.sessions.createSignInToken(owner.type === 'user' ? owner.userId : 0));
        await page.goto(`${service.dashboardUrl}/signin?token=${link}`);
        for (const [name, path, heading] of screens) {
          await page.goto(`${service.dashboardUrl}${path}`);
          await page.getByRole('heading', { name: heading, level: 1 }).first().waitFor();
          // Charts and lists fill in after their data arrives (the live feed keeps the network busy,
          // so there is no idle moment to wait for).
          await page.waitForTimeout(1_500);
          await page.screenshot({ path: join(OUT, `${name}-${theme}.png`) });
          process.stdout.write(`docs/screenshots/${name}-${theme}.png\n`);
        }
        await context.close();
      }
    } finally {
      await browser.close();
    }
  } finally {
    await service.close();
    for (const server of [tcp, web, slow]) server.close();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
