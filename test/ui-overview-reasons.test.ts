// What the overview and a monitor's page say about checks, in Chromium against the real service:
// why a monitor is down and since when, its uptime and its latest checks as a bar, one row per
// check with the regions it stood for, and the time words of a monitor minutes old.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { randomBytes } from 'node:crypto';
import type { Client } from '@connectrpc/connect';
import { createClient } from '../client/index.ts';
import type { Browser, Page } from 'playwright-core';
import { type MonitorService, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { axeViolations, openPage, screenshot, watchCsp, withBrowser, chooseWorkspace } from './support/browser.ts';
import { closedPort } from './support/grpc-peers.ts';
import { monitorRpc, newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { startTcpListener } from './support/grpc-peers.ts';

const TEST_TIMEOUT = { timeout: 120_000 };
const LIVE_WAIT_MS = 10_000;

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service.stop());

interface TestWorkspace {
  name: string;
  rpc: Client<typeof MonitorService>;
  secret: string;
}

async function newTestWorkspace(): Promise<TestWorkspace> {
  const ws = await newWorkspace(service, 'why');
  const { secret } = await service.createKey('write', ws.slug);
  return { name: ws.slug, rpc: monitorRpc(service, secret), secret };
}

/** A TCP listener on 127.0.0.1 that accepts each connection and closes it: a monitor of it is up. */
const listener = () => startTcpListener('127.0.0.1', 0, true);

async function tcpMonitor(ws: TestWorkspace, name: string, port: number, regions = ['iad']): Promise<string> {
  const { monitor } = await ws.rpc.createTCPMonitor({
    monitor: { name, uri: `127.0.0.1:${port}`, periodicity: Periodicity.PERIODICITY_1H, regions, retry: 0 },
  });
  return monitor!.id;
}

async function openOverview(browser: Browser, ws: TestWorkspace, viewport = { width: 1280, height: 800 }) {
  const { context, page } = await openPage(browser, service, { viewport });
  const violations = watchCsp(page);
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await chooseWorkspace(page, { label: ws.name });
  await page.getByText(`Every monitor of ${ws.name}`).waitFor();
  return { context, page, violations };
}

const rowOf = (page: Page, name: string) =>
  page
    .getByRole('list', { name: 'Monitors' })
    .getByRole('listitem')
    .filter({ has: page.getByRole('link', { name, exact: true }) });

/** Light and dark, wide and phone-sized: each passes axe, and is kept as a picture to look at. */
async function inEveryLook(page: Page, name: string, ready: () => Promise<void>): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    for (const width of [1280, 390]) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width, height: 900 });
      await ready();
      assert.deepEqual(await axeViolations(page), [], `axe, ${name}, ${scheme}, ${width} px`);
      assert.ok(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), `${name}: no sideways scroll at ${width} px`);
      await screenshot(page, `reasons-${name}-${scheme}-${width}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
}

describe('why and since when, uptime and the latest checks, in Chromium', () => {
  test(
    'a down monitor says why and since when, shows no latency for its failed check, and its uptime and latest checks in words; a change that just happened reads "just now"',
    TEST_TIMEOUT,
    () =>
      withBrowser(async (browser) => {
        const ws = await newTestWorkspace();
        const open = await listener();
        try {
          // Nothing listens on this port: the connection is refused.
          const downId = await tcpMonitor(ws, 'billing db', await closedPort());
          const upId = await tcpMonitor(ws, 'search api', open.port);
          await ws.rpc.triggerMonitor({ id: upId });
          await ws.rpc.triggerMonitor({ id: upId });
          const { page, violations } = await openOverview(browser, ws);
          await rowOf(page, 'search api').getByText('Up', { exact: true }).waitFor();
          // Checked after the page drew its times: the live feed brings the change.
          const checkedFrom = Date.now();
          await ws.rpc.triggerMonitor({ id: downId });
          const down = rowOf(page, 'billing db');
          await down.getByText('Down', { exact: true }).waitFor({ timeout: LIVE_WAIT_MS });

          const reason = down.locator('.monitor-reason');
          assert.match(await reason.innerText(), /^Since \d{1,2}:\d{2}.* \(under a minute\): connection refused$/);
          const since = Date.parse((await reason.locator('time').getAttribute('datetime'))!);
          assert.ok(since >= checkedFrom - 1000 && since <= Date.now(), 'since the check that changed the state');
          assert.equal(await rowOf(page, 'search api').locator('.monitor-reason').count(), 0, 'an up monitor needs no reason');

          assert.equal((await down.locator('.cell-latency').innerText()).replace(/\s+/g, ' ').trim(), 'Latency None: failed', 'no latency for a failed check');
          assert.match(await rowOf(page, 'search api').locator('.cell-latency').innerText(), /\d+(\.\d)? ms/);

          assert.equal((await down.locator('.cell-uptime').innerText()).replace(/\s+/g, ' ').trim(), 'Uptime 0.00 % since created');
          assert.equal((await rowOf(page, 'search api').locator('.cell-uptime').innerText()).replace(/\s+/g, ' ').trim(), 'Uptime 100 % since created');
          await down.getByRole('img', { name: 'Last check: 0 up, 1 down; latest down' }).waitFor();
          await rowOf(page, 'search api').getByRole('img', { name: 'Last 2 checks: 2 up, 0 down; latest up' }).waitFor();
          assert.deepEqual(
            [await down.locator('.check-block').count(), await rowOf(page, 'search api').locator('.check-block').count()],
            [1, 2],
            'one block a check',
          );

          assert.equal(
            (await down.locator('.cell-changed').innerText()).replace(/\s+/g, ' ').trim(),
            'Changed just now',
            'a past change is never "in a moment"',
          );

          await inEveryLook(page, 'overview', () => down.locator('.monitor-reason').waitFor());
          assert.deepEqual(violations, []);
        } finally {
          await open.close();
        }
      }),
  );

  test(
    "a monitor's page lists each check once with the regions it stood for and the machine that ran it; a monitor minutes old says so and marks its failed checks",
    TEST_TIMEOUT,
    () =>
      withBrowser(async (browser) => {
        const ws = await newTestWorkspace();
        const open = await listener();
        try {
          const id = await tcpMonitor(ws, 'ledger', open.port, ['iad', 'fra', 'ams']);
          await ws.rpc.triggerMonitor({ id });
          await ws.rpc.triggerMonitor({ id });
          const { page, violations } = await openOverview(browser, ws);
          await page.goto(`${service.dashboardUrl}/monitors/${id}`);
          await page.getByRole('heading', { name: 'ledger', level: 1 }).waitFor();

          const checks = page.getByRole('region', { name: 'Recent checks' }).getByRole('table');
          await checks.waitFor();
          const rows = checks.locator('tbody tr');
          assert.equal(await rows.count(), 2, 'two checks, two rows: not one per region');
          assert.deepEqual(
            (await rows.allInnerTexts()).map((row) => /This machine for iad, fra, ams/.test(row)),
            [true, true],
          );
          assert.match(await page.locator('.detail-facts').innerText(), /Checked every hour by this machine for iad, fra, ams/);

          await page.getByRole('button', { name: 'Check now' }).click();
          const result = page.getByRole('region', { name: 'Check result' });
          await result.getByText('Up', { exact: true }).waitFor();
          assert.equal(await result.getByRole('listitem').filter({ hasText: 'This machine' }).count(), 1, 'Check now: one check, once');
          assert.match(await result.innerText(), /This machine for iad, fra, ams/);

          // Minutes old: the uptime and the chart are since it was created, not over a day it did not live.
          await page.getByRole('heading', { name: /^Uptime since created/ }).waitFor();
          assert.match(await page.getByRole('region', { name: /^Uptime since created/ }).innerText(), /100\.00% up/);
          assert.equal(await page.getByText('None: checks ran throughout the window.').count(), 0);
          const latency = page.getByRole('region', { name: 'Latency' });
          assert.match(await latency.locator('figcaption').innerText(), /^Since the monitor was created: p50 typically/);

          // It goes down: the failure is marked on the chart and said in words.
          await open.close();
          await page.getByRole('button', { name: 'Check now' }).click();
          await result.getByText('Down', { exact: true }).waitFor();
          await latency
            .locator('.chart-failed')
            .first()
            .waitFor({ timeout: LIVE_WAIT_MS + 30_000 });
          await page.getByRole('list', { name: 'Legend' }).getByText('Failed checks').waitFor();
          await page.waitForFunction(
            () =>
              /1 check failed/.test(
                (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document.querySelector('.chart-summary')
                  ?.textContent ?? '',
              ),
            undefined,
            {
              timeout: LIVE_WAIT_MS + 30_000,
            },
          );
          // The failed check shows no latency figure in the table.
          const failedRow = page.getByRole('region', { name: 'Recent checks' }).locator('tbody tr').filter({ hasText: 'Down' }).first();
          await failedRow.waitFor({ timeout: LIVE_WAIT_MS + 30_000 });
          assert.match(await failedRow.innerText(), /None: failed/);

          await inEveryLook(page, 'monitor-detail', () => checks.waitFor());
          assert.deepEqual(violations, []);
        } finally {
          await open.close().catch(() => {});
        }
      }),
  );

  test("a public status page says a monitor an hour old has its uptime since created, and a phone's 30 days are not called 90", TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const open = await listener();
      try {
        const id = await tcpMonitor(ws, 'checkout', open.port);
        await ws.rpc.triggerMonitor({ id });
        const client = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: ws.secret, env: {} });
        const { statusPage } = await client.pages.createStatusPage({ slug: `why-${randomBytes(4).toString('hex')}`, title: 'Shop status' });
        await client.pages.addPageComponent({ pageId: statusPage!.id, name: 'Checkout', monitorId: id });
        const { page } = await openPage(browser, service, { signedIn: false });
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 900 });
          await page.goto(statusPage!.url);
          const axis = page.locator('.ax').first();
          await axis.waitFor();
          const seen = (await axis.innerText()).replace(/\s+/g, ' ');
          assert.match(seen, /100% uptime since created/, `${width} px: ${seen}`);
          assert.doesNotMatch(seen, /over 90 days/, `${width} px`);
          if (width === 390) assert.match(seen, /^30 days ago/, 'a phone shows 30 days');
          await screenshot(page, `reasons-status-page-uptime-light-${width}`);
        }
      } finally {
        await open.close();
      }
    }),
  );

  test('a monitor with no check yet says so once, without claiming checks ran throughout', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const id = await tcpMonitor(ws, 'not yet', await closedPort());
      const { page, violations } = await openOverview(browser, ws);
      await page.goto(`${service.dashboardUrl}/monitors/${id}`);
      await page.getByRole('heading', { name: 'not yet', level: 1 }).waitFor();
      const uptime = page.getByRole('region', { name: /^Uptime since created/ });
      await uptime.getByText('No checks ran since it was created yet.').waitFor();
      assert.doesNotMatch(await uptime.innerText(), /throughout/);
      assert.match(await page.getByRole('region', { name: 'Latency' }).innerText(), /No checks ran since the monitor was created\./);
      assert.deepEqual(violations, []);
    }),
  );
});
