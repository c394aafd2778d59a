// Certificate monitors in Chromium against the real service and a TLS server on loopback whose
// certificate is made here: made through the form, checked with the detail's Check now, the
// certificate's days left and facts shown; an HTTPS monitor's detail shows its certificate too.
// Screenshots of the detail, light and dark, wide and narrow, go to the system's temporary folder.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { openPage, watchCsp, withBrowser, chooseWorkspace } from './support/browser.ts';
import { monitorRpc, newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { days, type KeyAndCert, makeServerCert, startTlsPeer, type TlsPeer } from './support/tls-peers.ts';

const TEST_TIMEOUT = { timeout: 120_000 };

let service: TestService;
let certificate: KeyAndCert;
let tls: TlsPeer;
before(async () => {
  service = await startTestService();
  // Self-signed: the service's checks do not trust it, so the record says why.
  certificate = await makeServerCert({ validForMs: days(45) });
  tls = await startTlsPeer(certificate);
});
after(async () => {
  await tls?.close();
  await service?.stop();
});

async function newTestWorkspace() {
  const ws = await newWorkspace(service, 'cert-ui');
  const { secret } = await service.createKey('write', ws.slug);
  return { name: ws.slug, rpc: monitorRpc(service, secret) };
}

async function open(browser: Browser, workspace: string, path: string) {
  const { page } = await openPage(browser, service, { viewport: { width: 1280, height: 900 } });
  const violations = watchCsp(page);
  await chooseWorkspace(page, { label: workspace });
  await page.goto(`${service.dashboardUrl}${path}`);
  return { page, violations };
}

const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

async function checkNow(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Check now' }).click();
  await page.locator('section.check-now[aria-busy="false"]').waitFor();
}

describe('certificate monitors in the dashboard', () => {
  test('made through the form; Check now shows the days left and why it does not verify', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const { page, violations } = await open(browser, ws.name, '/monitors/new');
      await page.getByRole('radio', { name: 'Certificate' }).check();
      assert.match(await page.getByRole('group', { name: 'Type' }).innerText(), /days until it expires/, "the type's summary is the contract's");
      await field(page, 'Name').fill('Loopback TLS');
      await field(page, 'Host').fill('127.0.0.1');
      await field(page, 'Port').fill(String(tls.port));
      assert.equal(await field(page, 'Days before expiry').inputValue(), '14', 'the default, as the service declares it');
      await field(page, 'Days before expiry').fill('60');
      await page.getByRole('group', { name: 'Frequency' }).getByRole('radio', { name: '10 minutes' }).check();
      await page.getByRole('group', { name: 'Regions' }).getByRole('checkbox', { name: 'iad' }).check();
      await field(page, 'Retries').fill('0');
      await page.getByRole('button', { name: 'Create monitor' }).click();
      await page.waitForURL(/\/monitors\/\d+$/);
      const id = /\/monitors\/(\d+)$/.exec(new URL(page.url()).pathname)![1]!;

      const stored = (await ws.rpc.getMonitor({ id })).monitor;
      assert.equal(stored.case, 'certificateMonitor');
      assert.deepEqual([stored.value!.uri, stored.value!.serverName, stored.value!.minDaysLeft], [tls.uri, '', 60]);
      assert.match(await page.locator('.detail-facts').innerText(), /Certificate/);
      const section = page.getByRole('region', { name: 'Certificate' });
      await section.getByText('No check yet').waitFor();

      await checkNow(page);
      await section.locator('.certificate-days').waitFor();
      const days = await section.locator('.certificate-days').innerText();
      assert.match(days, /^(43|44) days left/);
      assert.match((await section.locator('.certificate-days').getAttribute('class')) ?? '', /certificate-soon/, 'fewer days left than the 60 asked for');
      assert.match(await section.innerText(), /Does not verify: it is self-signed, and not in the trust store/);
      assert.match(await section.innerText(), /Matches\s+127\.0\.0\.1/);
      assert.match(await section.innerText(), /CN=statusdesk test server/);

      // The edit form starts from what is stored.
      await page.goto(`${service.dashboardUrl}/monitors/${id}/edit`);
      assert.equal(await field(page, 'Days before expiry').inputValue(), '60');
      await field(page, 'Server name (SNI)').fill('localhost');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.waitForURL(/\/monitors\/\d+$/);
      const changed = (await ws.rpc.getMonitor({ id })).monitor;
      assert.equal(changed.case === 'certificateMonitor' && changed.value.serverName, 'localhost');
      assert.match(await page.locator('.detail-target').innerText(), /\(localhost\)$/);

      for (const scheme of ['light', 'dark'] as const) {
        for (const width of [1280, 390]) {
          await page.emulateMedia({ colorScheme: scheme });
          await page.setViewportSize({ width, height: 900 });
          await section.screenshot({ path: join(tmpdir(), `certificate-detail-${scheme}-${width}.png`) });
        }
      }
      assert.deepEqual(violations, []);
    }),
  );

  test("an HTTPS monitor's detail shows the certificate its latest check saw", TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const https = createHttpsServer(certificate, (_req, res) => res.end('ok'));
      https.listen(0, '127.0.0.1');
      await once(https, 'listening');
      try {
        const { monitor } = await ws.rpc.createHTTPMonitor({
          monitor: {
            name: 'web',
            url: `https://localhost:${(https.address() as AddressInfo).port}/`,
            periodicity: Periodicity.PERIODICITY_10M,
            regions: ['iad'],
            retry: 0,
          },
        });
        const { page } = await open(browser, ws.name, `/monitors/${monitor!.id}`);
        await page.getByRole('heading', { name: 'web' }).waitFor();
        assert.equal(await page.getByRole('region', { name: 'Certificate' }).count(), 0, 'no section before a check saw a certificate');
        await checkNow(page);
        const section = page.getByRole('region', { name: 'Certificate' });
        await section.locator('.certificate-days').waitFor();
        assert.match(await section.locator('.certificate-days').innerText(), /^(43|44) days left/);
        assert.match(await section.innerText(), /Matches\s+localhost/);
      } finally {
        https.closeAllConnections();
        https.close();
      }
    }),
  );
});
