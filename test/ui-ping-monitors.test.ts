// Ping monitors in Chromium against the real service: made through the form (one Host input, the
// packets, the wait for each and the loss that degrades, drawn from the type's declaration), a
// refused host shown beside its input, the latest check's packets and round trips on the detail
// after Check now (the system's ping against 127.0.0.1, where this machine lets it run), and an
// edit that sends only what changed. Screenshots of the form and the detail go to /tmp.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { durationMs } from '@bufbuild/protobuf/wkt';
import type { Client } from '@connectrpc/connect';
import type { Browser, Page } from 'playwright-core';
import { type MonitorService, Periodicity, type PingMonitor } from '../proto/gen/monitor/v1/monitor_pb.js';
import { probePing } from '../server/checks/ping-probe.ts';
import { createDestinationPolicy } from '../server/domain/destinations.ts';
import { openPage, watchCsp, withBrowser, chooseWorkspace } from './support/browser.ts';
import { monitorRpc, newWorkspace, startTestService, type TestService } from './support/harness.ts';

const TEST_TIMEOUT = { timeout: 120_000 };
/** Where the screenshots go, to be looked at. */
const SHOTS = process.env.STATUSDESK_SCREENSHOTS ?? '/tmp';

let service: TestService;
/** Why the system's ping cannot ping 127.0.0.1 here; undefined where it can. */
let unavailable: string | undefined;
before(async () => {
  service = await startTestService();
  const probe = await probePing(
    { host: '127.0.0.1', count: 1, packetTimeout: 1000, degradedLoss: 0, timeout: 5000, degraded: null, retry: 0 },
    { destinations: createDestinationPolicy() },
  );
  unavailable = probe.result === 'down' ? `the system's ping cannot ping 127.0.0.1 on this machine: ${probe.message}` : undefined;
});
after(() => service.stop());

async function newTestWorkspace(): Promise<{ id: string; name: string; rpc: Client<typeof MonitorService> }> {
  const ws = await newWorkspace(service, 'ping-ui');
  const { secret } = await service.createKey('write', ws.slug);
  return { id: ws.id, name: ws.slug, rpc: monitorRpc(service, secret) };
}

async function open(browser: Browser, workspace: string, path: string, options: { width?: number; colorScheme?: 'light' | 'dark' } = {}) {
  const { page, context } = await openPage(browser, service, { viewport: { width: options.width ?? 1280, height: 900 }, colorScheme: options.colorScheme });
  const violations = watchCsp(page);
  await chooseWorkspace(page, { label: workspace });
  await page.goto(`${service.dashboardUrl}${path}`);
  return { page, context, violations };
}

const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

async function detailId(page: Page): Promise<string> {
  await page.waitForURL(/\/monitors\/\d+$/);
  return /\/monitors\/(\d+)$/.exec(new URL(page.url()).pathname)![1]!;
}

describe('ping monitors in the dashboard', () => {
  test('made through the form, a refused host shown at its input, checked on the detail, and edited', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const { page, violations } = await open(browser, ws.name, '/monitors/new');
      await page.getByRole('radio', { name: 'Ping' }).check();
      assert.match(await page.getByRole('group', { name: 'Type' }).innerText(), /ICMP echo requests/, "the type's summary is the contract's");
      assert.equal(await field(page, 'Port').count(), 0, 'a ping has no port');
      assert.equal(await field(page, 'Packets').inputValue(), '3', "the service's default count");
      assert.equal(await field(page, 'Packet timeout (milliseconds)').inputValue(), '1000');
      assert.equal(await field(page, 'Degraded above a loss of (%)').inputValue(), '0');

      await field(page, 'Name').fill('Loopback');
      await field(page, 'Hostname or IP address').fill('-f');
      await field(page, 'Packets').selectOption('2');
      await field(page, 'Degraded above a loss of (%)').fill('50');
      await page.getByRole('group', { name: 'Frequency' }).getByRole('radio', { name: '10 minutes' }).check();
      await page.getByRole('group', { name: 'Regions' }).getByRole('checkbox', { name: 'iad' }).check();
      await page.getByRole('button', { name: 'Create monitor' }).click();
      // Refused by the service, named at the input: nothing is made, and nothing ran.
      const refusal = page.getByText(/must be a hostname or an IP address, not an option/).first();
      await refusal.waitFor();
      assert.equal(await field(page, 'Hostname or IP address').getAttribute('aria-invalid'), 'true');
      assert.equal((await ws.rpc.listMonitors({})).totalSize, 0);

      await field(page, 'Hostname or IP address').fill('127.0.0.1');
      await page.getByRole('button', { name: 'Create monitor' }).click();
      const id = await detailId(page);
      const stored = (await ws.rpc.getMonitor({ id })).monitor;
      assert.equal(stored.case, 'pingMonitor');
      const m = stored.value as PingMonitor;
      assert.deepEqual(
        [m.host, m.count, durationMs(m.packetTimeout!), m.degradedLoss, m.periodicity, m.regions],
        ['127.0.0.1', 2, 1000, 50, Periodicity.PERIODICITY_10M, ['iad']],
      );
      assert.match(await page.locator('.detail-facts').innerText(), /Ping[\s\S]*127\.0\.0\.1/);
      const packets = page.getByRole('region', { name: 'Packets' });
      await packets.getByText('No check yet').waitFor();

      if (!unavailable) {
        await page.getByRole('button', { name: 'Check now' }).click();
        await page.locator('section.check-now[aria-busy="false"]').waitFor();
        await packets.getByText('2 of 2 packets').waitFor();
        assert.match(await packets.innerText(), /Packet loss\s+0 %\s*\(degraded above 50 %\)/);
        assert.match(await packets.innerText(), /Round trip\s+[\d.]+ ms on average/);
        assert.match(await page.getByRole('region', { name: 'Check result' }).innerText(), /2 of 2 packets answered by 127\.0\.0\.1/);
      }
      await page.screenshot({ path: `${SHOTS}/ping-detail-1280-light.png`, fullPage: true });

      // An edit sends only what changed: the count, and the host.
      await page.getByRole('link', { name: 'Edit', exact: true }).click();
      await field(page, 'Hostname or IP address').waitFor();
      assert.equal(await field(page, 'Hostname or IP address').inputValue(), '127.0.0.1');
      assert.equal(await field(page, 'Packets').inputValue(), '2');
      await field(page, 'Hostname or IP address').fill('localhost');
      await field(page, 'Packets').selectOption('4');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.waitForURL(new RegExp(`/monitors/${id}$`));
      const edited = (await ws.rpc.getMonitor({ id })).monitor.value as PingMonitor;
      assert.deepEqual([edited.host, edited.count, edited.degradedLoss], ['localhost', 4, 50]);
      assert.deepEqual(violations, []);
    }),
  );

  test('the form and the detail in light and dark, wide and narrow (screenshots)', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const { monitor } = await ws.rpc.createPingMonitor({ monitor: { name: 'Office router', host: '127.0.0.1', count: 3, periodicity: 3, regions: ['iad'] } });
      if (!unavailable) await ws.rpc.triggerMonitor({ id: monitor!.id });
      for (const colorScheme of ['light', 'dark'] as const) {
        for (const width of [1280, 390]) {
          const { page, context } = await open(browser, ws.name, '/monitors/new', { width, colorScheme });
          await page.getByRole('radio', { name: 'Ping' }).check();
          await field(page, 'Hostname or IP address').waitFor();
          await page.screenshot({ path: `${SHOTS}/ping-form-${width}-${colorScheme}.png`, fullPage: true });
          await page.goto(`${service.dashboardUrl}/monitors/${monitor!.id}`);
          await page.getByRole('region', { name: 'Packets' }).waitFor();
          await page.screenshot({ path: `${SHOTS}/ping-detail-${width}-${colorScheme}.png`, fullPage: true });
          // Nothing of the packets' section runs out of a narrow window.
          const box = (await page.getByRole('region', { name: 'Packets' }).boundingBox())!;
          assert.ok(box.x >= 0 && box.x + box.width <= width, `the packets section fits ${width} px (${colorScheme})`);
          await context.close();
        }
      }
    }),
  );
});
