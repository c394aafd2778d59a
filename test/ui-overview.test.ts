// The overview, the monitor detail screen and live updates, in Chromium against the real service:
// monitors made through the RPC with an API key, checked against loopback listeners, and the
// screens driven by the names of their controls.
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Client, Code, ConnectError } from '@connectrpc/connect';
import type { Browser, Page } from 'playwright-core';
import { type MonitorService, NumberComparator, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { withLocalOwner } from './support/database.ts';
import { assertSameDocument, markDocument, openPage, watchCsp, withBrowser, chooseWorkspace } from './support/browser.ts';
import { closedPort } from './support/grpc-peers.ts';
import { monitorRpc, newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { startTcpListener } from './support/grpc-peers.ts';

const TEST_TIMEOUT = { timeout: 120_000 };
/** How long a live update may take to reach the page: the event, the coalescing, the refetch. */
const LIVE_WAIT_MS = 10_000;

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service.stop());

type Monitors = Client<typeof MonitorService>;

interface TestWorkspace {
  name: string;
  rpc: Monitors;
}

/** A workspace of its own for each test, and its write key's RPC client. */
async function newTestWorkspace(): Promise<TestWorkspace> {
  const ws = await newWorkspace(service, 'ov');
  const { secret } = await service.createKey('write', ws.slug);
  return { name: ws.slug, rpc: monitorRpc(service, secret) };
}

/** A TCP listener on 127.0.0.1 that accepts each connection and closes it: a monitor of it is up. */
const listener = () => startTcpListener('127.0.0.1', 0, true);

async function tcpMonitor(ws: TestWorkspace, name: string, port: number, tags: string[] = []): Promise<string> {
  // One region and no retries: a refused connection is reported at once.
  const { monitor } = await ws.rpc.createTCPMonitor({
    monitor: { name, uri: `127.0.0.1:${port}`, periodicity: Periodicity.PERIODICITY_10M, regions: ['iad'], retry: 0, tags },
  });
  return monitor!.id;
}

/** Signed in, on the overview of `ws`. */
async function openOverview(browser: Browser, ws: TestWorkspace, viewport = { width: 1280, height: 800 }) {
  const { context, page } = await openPage(browser, service, { viewport });
  const violations = watchCsp(page);
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await chooseWorkspace(page, { label: ws.name });
  await page.getByText(`Every monitor of ${ws.name}`).waitFor();
  return { context, page, violations };
}

const monitorList = (page: Page) => page.getByRole('list', { name: 'Monitors' });
const rowOf = (page: Page, name: string) =>
  monitorList(page)
    .getByRole('listitem')
    .filter({ has: page.getByRole('link', { name, exact: true }) });

/** The names of the monitors the list shows, once it shows exactly `expected` (in any order). */
async function waitForRows(page: Page, expected: string[]): Promise<void> {
  const want = [...expected].sort();
  const deadline = Date.now() + LIVE_WAIT_MS;
  let seen: string[] = [];
  while (Date.now() < deadline) {
    seen = (await monitorList(page).getByRole('link').allInnerTexts()).map((text) => text.trim()).sort();
    if (JSON.stringify(seen) === JSON.stringify(want)) return;
    await page.waitForTimeout(100);
  }
  assert.deepEqual(seen, want, 'the rows the list shows');
}

describe('the overview and the monitor detail screen in Chromium', () => {
  test('a workspace without monitors: the overview says what to do first and offers to add a monitor or connect an AI editor', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const { page, violations } = await openOverview(browser, ws);
      await page.getByRole('heading', { name: 'No monitors yet' }).waitFor();
      const add = page.getByRole('link', { name: 'Add a monitor' });
      const connect = page.getByRole('link', { name: 'Connect an AI editor' });
      assert.equal(await add.getAttribute('href'), '/monitors/new');
      assert.equal(await connect.getAttribute('href'), '/connect');
      assert.equal(await page.getByRole('link', { name: 'Add monitor', exact: true }).getAttribute('href'), '/monitors/new', 'the header action');
      assert.equal(await monitorList(page).count(), 0, 'no list without monitors');
      await connect.click();
      await page.waitForURL(`${service.dashboardUrl}/connect`);
      assert.deepEqual(violations, []);
    }),
  );

  test('rows say each state in words after a check; the search, the state counts and the no-match state narrow and restore the list', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const open = await listener();
      try {
        const refused = await closedPort();
        const upId = await tcpMonitor(ws, 'alpha api', open.port, ['prod']);
        const downId = await tcpMonitor(ws, 'beta db', refused, ['prod']);
        await tcpMonitor(ws, 'gamma cache', refused, ['staging']);
        assert.equal((await ws.rpc.triggerMonitor({ id: upId })).results[0]?.result, 'up');
        assert.equal((await ws.rpc.triggerMonitor({ id: downId })).results[0]?.result, 'down');

        const { page, violations } = await openOverview(browser, ws);
        await waitForRows(page, ['alpha api', 'beta db', 'gamma cache']);
        assert.match(await rowOf(page, 'alpha api').innerText(), /\bUp\b/);
        assert.match(await rowOf(page, 'alpha api').innerText(), /127\.0\.0\.1:\d+/);
        assert.match(await rowOf(page, 'beta db').innerText(), /\bDown\b/);
        assert.match(await rowOf(page, 'gamma cache').innerText(), /\bPending\b/);
        assert.match(await page.getByRole('status').filter({ hasText: 'monitors' }).innerText(), /^3 monitors$/);

        // Tab goes from one row's link to the next row's box that chooses it, then to its link.
        const links = monitorList(page).getByRole('link');
        await links.first().focus();
        const firstName = await links.first().innerText();
        await page.keyboard.press('Tab');
        const box = String(await page.evaluate("document.activeElement.getAttribute('aria-label')"));
        assert.match(box, /^Choose (alpha api|beta db|gamma cache)$/);
        assert.notEqual(box, `Choose ${firstName}`);
        await page.keyboard.press('Tab');
        const next = await page.evaluate('document.activeElement.textContent');
        assert.notEqual(next, firstName);
        assert.ok(['alpha api', 'beta db', 'gamma cache'].includes(String(next)), `the focus went to ${String(next)}`);

        // Search by name, on the server.
        await page.getByRole('searchbox', { name: 'Search by name' }).fill('beta');
        await waitForRows(page, ['beta db']);
        assert.match(page.url(), /[?&]q=beta\b/, 'the search is kept in the address');
        await page.getByRole('searchbox', { name: 'Search by name' }).fill('');
        await waitForRows(page, ['alpha api', 'beta db', 'gamma cache']);

        // The counts filter: Down shows 1, and pressing it narrows to that one.
        const down = page.getByRole('group', { name: 'Monitors by state' }).getByRole('button', { name: /^Down/ });
        assert.match(await down.innerText(), /Down\s*1/);
        await down.click();
        assert.equal(await down.getAttribute('aria-pressed'), 'true');
        await waitForRows(page, ['beta db']);
        assert.equal(await page.getByLabel('State', { exact: true }).inputValue(), 'down', 'the state select follows');
        await page.getByLabel('State', { exact: true }).selectOption({ label: 'Pending' });
        await waitForRows(page, ['gamma cache']);
        await page.getByLabel('State', { exact: true }).selectOption({ label: 'All states' });
        await page.getByLabel('Tag', { exact: true }).selectOption('prod');
        await waitForRows(page, ['alpha api', 'beta db']);

        // Nothing matches: said so, and the filters can be cleared.
        await page.getByRole('searchbox', { name: 'Search by name' }).fill('no such monitor');
        await page.getByText('No monitors match these filters.').waitFor();
        await page.getByRole('button', { name: 'Clear filters' }).click();
        await waitForRows(page, ['alpha api', 'beta db', 'gamma cache']);
        assert.equal(await page.getByRole('searchbox', { name: 'Search by name' }).inputValue(), '');
        assert.equal(await page.getByLabel('Tag', { exact: true }).inputValue(), '');

        // 420 px wide: nothing sticks out sideways, and the rows still read.
        await page.setViewportSize({ width: 420, height: 800 });
        await rowOf(page, 'alpha api').waitFor();
        assert.ok(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), 'no horizontal scroll at 420 px');
        assert.ok(await rowOf(page, 'beta db').getByText('Down').isVisible());
        assert.deepEqual(violations, []);
      } finally {
        await open.close();
      }
    }),
  );

  test('a list longer than a page loads further pages as it scrolls, and keeps rows reachable', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const count = 230;
      await withLocalOwner(service.dataDir, async (services, owner) => {
        const id = Number((await services.workspaces.getBySlug(owner, ws.name)).id);
        for (let i = 0; i < count; i++) {
          await services.monitors.create(owner, id, 'tcp', { name: `svc-${String(i).padStart(3, '0')}`, uri: `127.0.0.1:${10_000 + i}`, periodicity: '10m' });
        }
      });
      const { page } = await openOverview(browser, ws);
      const list = monitorList(page);
      await list.getByRole('link').first().waitFor();
      assert.ok(await list.getAttribute('aria-describedby'), 'the list is described by its count');
      const rendered = await list.getByRole('listitem').count();
      assert.ok(rendered > 0 && rendered < 60, `only the rows in view are in the page (${rendered})`);
      assert.equal(await list.getByRole('listitem').first().getAttribute('aria-setsize'), String(count));
      // Scrolling to the end loads the third page, and its last row.
      await page.locator('.monitor-scroller').evaluate((scroller) => scroller.scrollTo({ top: scroller.scrollHeight }));
      const last = list.locator(`li[aria-posinset="${count}"]`);
      await last.getByRole('link', { name: `svc-${String(count - 1).padStart(3, '0')}` }).waitFor({ timeout: LIVE_WAIT_MS });
      assert.equal(await last.getAttribute('aria-setsize'), String(count));
    }),
  );

  test(
    'a check shows Up with a chart; when the listener closes, a check from the RPC turns the detail page and the overview to Down without a reload, with a browser notification',
    TEST_TIMEOUT,
    () =>
      withBrowser(async (browser) => {
        const ws = await newTestWorkspace();
        const open = await listener();
        try {
          const id = await tcpMonitor(ws, 'orders db', open.port);
          const { context, page, violations } = await openOverview(browser, ws);
          await rowOf(page, 'orders db').getByRole('link').click();
          await page.getByRole('heading', { name: 'orders db', level: 1 }).waitFor();
          assert.equal(new URL(page.url()).pathname, `/monitors/${id}`);
          await page.getByRole('button', { name: 'Check now' }).click();
          const result = page.getByRole('region', { name: 'Check result' });
          await result.getByText('Up', { exact: true }).waitFor();
          await page.locator('.detail-state').getByText('Up', { exact: true }).waitFor();
          // Minutes old: charted since it was created.
          await page.getByRole('img', { name: /^Since the monitor was created: p50 typically/ }).waitFor();
          await page.getByRole('list', { name: 'Legend' }).getByText('p95').waitFor();

          // A stand-in for the browser's notifications, recording what the page shows.
          await context.addInitScript(`(() => {
          window.__notifications = [];
          window.__asked = 0;
          class RecordedNotification {
            static permission = 'default';
            static async requestPermission() { window.__asked += 1; RecordedNotification.permission = 'granted'; return 'granted'; }
            constructor(title, options) { window.__notifications.push({ title, body: options && options.body }); }
          }
          window.Notification = RecordedNotification;
        })()`);
          // The overview, in a tab of its own, follows the change too.
          const overview = await context.newPage();
          await overview.goto(`${service.dashboardUrl}/`);
          await rowOf(overview, 'orders db').getByText('Up', { exact: true }).waitFor();
          assert.equal(await overview.evaluate('window.__asked'), 0, 'notifications are never asked for unasked');
          await overview.getByRole('button', { name: 'Notify me when a monitor goes down' }).click();
          await overview.getByText('This window notifies you when a monitor goes down.').waitFor();
          assert.equal(await overview.evaluate('window.__asked'), 1);

          await markDocument(page);
          await markDocument(overview);
          await open.close();
          const [checked] = (await ws.rpc.triggerMonitor({ id })).results;
          assert.equal(checked?.result, 'down');

          await page.locator('.detail-state').getByText('Down', { exact: true }).waitFor({ timeout: LIVE_WAIT_MS });
          await rowOf(overview, 'orders db').getByText('Down', { exact: true }).waitFor({ timeout: LIVE_WAIT_MS });
          await assertSameDocument(page);
          await assertSameDocument(overview);
          assert.equal(new URL(page.url()).pathname, `/monitors/${id}`);
          assert.equal(
            (await page.getByRole('table').filter({ hasText: 'Phases' }).getByText('Down', { exact: true }).count()) > 0,
            true,
            'the recent checks list the failed one',
          );

          const notifications = (await overview.evaluate('window.__notifications')) as { title: string; body: string }[];
          assert.equal(notifications.length, 1, JSON.stringify(notifications));
          assert.equal(notifications[0]!.title, 'orders db is down');
          assert.ok(notifications[0]!.body.length > 0, 'the notification says what happened');
          assert.deepEqual(violations, []);
        } finally {
          await open.close();
        }
      }),
  );

  test('pause and resume, Check now with its phases, and delete after confirming; an unknown monitor is not found', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const open = await listener();
      try {
        const id = await tcpMonitor(ws, 'queue broker', open.port);
        const { page, violations } = await openOverview(browser, ws);
        await rowOf(page, 'queue broker').getByRole('link').click();
        await page.getByRole('heading', { name: 'queue broker', level: 1 }).waitFor();
        assert.equal(await page.getByRole('link', { name: 'Edit', exact: true }).getAttribute('href'), `/monitors/${id}/edit`);

        await page.getByRole('button', { name: 'Pause' }).click();
        await page.getByRole('button', { name: 'Resume' }).waitFor();
        await page.locator('.detail-state').getByText('Paused', { exact: true }).waitFor();
        const paused = await ws.rpc.getMonitor({ id });
        assert.equal(paused.monitor.case === 'tcpMonitor' && paused.monitor.value.active, false);
        await page.getByRole('button', { name: 'Resume' }).click();
        await page.getByRole('button', { name: 'Pause' }).waitFor();
        const resumed = await ws.rpc.getMonitor({ id });
        assert.equal(resumed.monitor.case === 'tcpMonitor' && resumed.monitor.value.active, true);

        await page.getByRole('button', { name: 'Check now' }).click();
        const result = page.getByRole('region', { name: 'Check result' });
        await result.getByText('Up', { exact: true }).waitFor();
        assert.match(await result.getByRole('list', { name: 'Phases' }).first().innerText(), /Connect \d/);
        assert.match(await result.innerText(), /iad/);

        await page.getByRole('button', { name: 'Delete' }).click();
        const dialog = page.getByRole('dialog', { name: 'Delete queue broker?' });
        await dialog.waitFor();
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        await dialog.waitFor({ state: 'hidden' });
        assert.equal((await ws.rpc.getMonitor({ id })).monitor.case, 'tcpMonitor', 'cancel deletes nothing');
        await page.getByRole('button', { name: 'Delete' }).click();
        await dialog.getByRole('button', { name: 'Delete monitor' }).click();
        await page.waitForURL(`${service.dashboardUrl}/`);
        await page.getByRole('heading', { name: 'Overview' }).waitFor();
        await assert.rejects(ws.rpc.getMonitor({ id }), (error: unknown) => ConnectError.from(error).code === Code.NotFound);

        await page.goto(`${service.dashboardUrl}/monitors/${id}`);
        await page.getByRole('heading', { name: 'Monitor not found' }).waitFor();
        await page.getByRole('link', { name: 'Back to the overview' }).waitFor();
        assert.deepEqual(violations, []);
      } finally {
        await open.close();
      }
    }),
  );

  test('an HTTP monitor lists its responses: status code, address and each assertion with its result', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const web = createHttpServer((_request, res) => res.writeHead(503, { 'content-type': 'text/plain' }).end('maintenance'));
      await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(web.address() as AddressInfo).port}/health`;
        const { monitor } = await ws.rpc.createHTTPMonitor({
          monitor: {
            name: 'storefront',
            url,
            periodicity: Periodicity.PERIODICITY_10M,
            regions: ['iad'],
            retry: 0,
            statusCodeAssertions: [{ comparator: NumberComparator.EQUAL, target: 200 }],
          },
        });
        const { page, violations } = await openOverview(browser, ws);
        await page.goto(`${service.dashboardUrl}/monitors/${monitor!.id}`);
        await page.getByRole('heading', { name: 'storefront', level: 1 }).waitFor();
        await page.getByRole('region', { name: 'Response logs' }).getByText('No responses in this window yet.').waitFor();
        await page.getByRole('button', { name: 'Check now' }).click();
        await page.getByRole('region', { name: 'Check result' }).getByText('Down', { exact: true }).waitFor();
        const logs = page.getByRole('region', { name: 'Response logs' }).getByRole('table');
        await logs.getByRole('cell', { name: '503', exact: true }).waitFor();
        assert.match(await logs.innerText(), new RegExp(url.replace(/[.?/]/g, '\\$&')));
        assert.match(await logs.getByRole('listitem').first().innerText(), /Failed.*200.*got 503/s);

        // The period: the chart and the uptime follow the radio chosen; a monitor minutes old is
        // shown since it was created, its failed check marked.
        await page.getByRole('radio', { name: '7 days' }).check();
        await page.waitForFunction(() =>
          (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document
            .querySelector('.chart-summary')
            ?.textContent.startsWith('No check answered since the monitor was created.'),
        );
        await page.getByRole('heading', { name: /^Uptime since created/ }).waitFor();
        assert.match(await page.getByRole('region', { name: /^Uptime since created/ }).innerText(), /0\.00% up/);

        // 420 px wide: the screen does not scroll sideways (wide tables scroll in their own frame).
        await page.setViewportSize({ width: 420, height: 800 });
        await page.getByRole('button', { name: 'Check now' }).waitFor();
        assert.ok(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), 'no horizontal scroll at 420 px');
        assert.deepEqual(violations, []);
      } finally {
        web.close();
      }
    }),
  );
});
