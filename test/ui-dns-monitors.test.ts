// DNS monitors in Chromium against the real service and a real DNS server on loopback
// (test/support/dns-server.ts): made through the form (the name to look up, the record type, the
// resolver, the values one per line), checked with the detail's Check now and its answer read
// there, edited, and a refusal shown beside the field it names.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@connectrpc/connect';
import type { Page } from 'playwright-core';
import { DNSRecordType, type MonitorService, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { axeViolations, openPage, watchCsp, withBrowser, chooseWorkspace } from './support/browser.ts';
import { type DnsServer, startDnsServer } from './support/dns-server.ts';
import { monitorRpc, newWorkspace, startTestService, type TestService } from './support/harness.ts';

const TEST_TIMEOUT = { timeout: 120_000 };
/** Where the screenshots of the screen go, when asked for (SCREENSHOTS=folder). */
const SHOTS = process.env.SCREENSHOTS;

let service: TestService;
let dns: DnsServer;
before(async () => {
  service = await startTestService();
  dns = await startDnsServer({
    'example.test': {
      MX: [
        { preference: 10, exchange: 'mail.example.test' },
        { preference: 20, exchange: 'mail2.example.test' },
      ],
    },
  });
});
after(async () => {
  await dns.close();
  await service.stop();
});

async function newTestWorkspace(): Promise<{ id: string; name: string; rpc: Client<typeof MonitorService> }> {
  const ws = await newWorkspace(service, 'dns');
  const { secret } = await service.createKey('write', ws.slug);
  return { id: ws.id, name: ws.slug, rpc: monitorRpc(service, secret) };
}

const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

async function detailId(page: Page): Promise<string> {
  await page.waitForURL(/\/monitors\/\d+$/);
  return /\/monitors\/(\d+)$/.exec(new URL(page.url()).pathname)![1]!;
}

describe('DNS monitors in the dashboard', () => {
  test('made through the form, checked, its answer read on its screen, edited; a refusal named beside its field', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const ws = await newTestWorkspace();
      const { page } = await openPage(browser, service, { viewport: { width: 1280, height: 900 } });
      const violations = watchCsp(page);
      await chooseWorkspace(page, { label: ws.name });
      await page.goto(`${service.dashboardUrl}/monitors/new`);

      await page.getByRole('radio', { name: 'DNS' }).check();
      assert.match(await page.getByRole('group', { name: 'Type' }).innerText(), /Asks a DNS resolver for a record of a name/);
      await field(page, 'Name').fill('Mail servers');
      await field(page, 'Name to look up').fill('example.test');
      await field(page, 'Record type').selectOption('MX');
      assert.equal(await field(page, 'Answers contain').getAttribute('placeholder'), '10 mail.example.com', 'the example follows the record type');
      await field(page, 'Resolver').fill('dns.google');
      await field(page, 'Answers contain').fill('10 mail.example.test\n20 mail2.example.test');
      await field(page, 'Fewest answers').fill('2');
      await page.getByRole('group', { name: 'Frequency' }).getByRole('radio', { name: '10 minutes' }).check();
      await page.getByRole('group', { name: 'Regions' }).getByRole('checkbox', { name: 'iad' }).check();
      await page.getByRole('button', { name: 'Create monitor' }).click();

      // The service refuses a resolver given by name, beside the field.
      const resolver = field(page, 'Resolver');
      await page.waitForFunction((el) => el?.getAttribute('aria-invalid') === 'true', await resolver.elementHandle());
      assert.equal(await resolver.getAttribute('aria-invalid'), 'true');
      assert.match(await page.locator('.monitor-form').innerText(), /must be an IP address, not a name/);
      await resolver.fill(dns.address);
      await page.getByRole('button', { name: 'Create monitor' }).click();
      const id = await detailId(page);

      const stored = (await ws.rpc.getMonitor({ id })).monitor;
      assert.equal(stored.case, 'dnsMonitor');
      const m = stored.value!;
      assert.deepEqual(
        [m.host, m.recordType, m.resolver, m.contains, m.equals, m.minAnswers, m.maxAnswers, m.periodicity],
        [
          'example.test',
          DNSRecordType.DNS_RECORD_TYPE_MX,
          dns.address,
          ['10 mail.example.test', '20 mail2.example.test'],
          [],
          2,
          0,
          Periodicity.PERIODICITY_10M,
        ],
      );

      // The screen: the question as dig writes it, and the answer of Check now.
      assert.match(await page.locator('.detail-facts').innerText(), new RegExp(`DNS\\s+MX example\\.test @${dns.address.replace(/\./g, '\\.')}`));
      await page.getByRole('button', { name: 'Check now' }).click();
      await page.locator('section.check-now[aria-busy="false"]').waitFor();
      const answer = page.getByRole('region', { name: 'DNS answer' });
      await answer.getByText('Answered (NOERROR)').waitFor();
      assert.deepEqual(await answer.locator('.dns-answers li').allInnerTexts(), ['10 mail.example.test', '20 mail2.example.test']);
      assert.match(await answer.locator('.assertions').innerText(), /Held\s+contains 10 mail\.example\.test, 20 mail2\.example\.test/);
      assert.match(await answer.innerText(), new RegExp(`Resolver\\s+${dns.address.replace(/\./g, '\\.')}`));
      assert.deepEqual(await axeViolations(page), [], 'the screen passes axe-core (WCAG 2.2 AA)');
      if (SHOTS) {
        for (const [width, scheme] of [
          [1280, 'light'],
          [1280, 'dark'],
          [390, 'light'],
          [390, 'dark'],
        ] as const) {
          await page.setViewportSize({ width, height: 900 });
          await page.emulateMedia({ colorScheme: scheme });
          await answer.screenshot({ path: `${SHOTS}/dns-detail-${width}-${scheme}.png` });
        }
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.emulateMedia({ colorScheme: 'light' });
      }

      // An edit: the name changes, sent as the monitor's host.
      await page.getByRole('link', { name: 'Edit', exact: true }).click();
      await field(page, 'Name to look up').waitFor();
      assert.equal(await field(page, 'Name to look up').inputValue(), 'example.test');
      assert.equal(await field(page, 'Answers contain').inputValue(), '10 mail.example.test\n20 mail2.example.test');
      assert.deepEqual(await axeViolations(page), [], 'the form passes axe-core (WCAG 2.2 AA)');
      if (SHOTS) {
        for (const [width, scheme] of [
          [1280, 'light'],
          [1280, 'dark'],
          [390, 'light'],
          [390, 'dark'],
        ] as const) {
          await page.setViewportSize({ width, height: 900 });
          await page.emulateMedia({ colorScheme: scheme });
          await page.locator('section[aria-labelledby="monitor-target"]').screenshot({ path: `${SHOTS}/dns-form-${width}-${scheme}.png` });
        }
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.emulateMedia({ colorScheme: 'light' });
      }
      await field(page, 'Name to look up').fill('mail.example.test');
      await field(page, 'Answers contain').fill('');
      await field(page, 'Fewest answers').fill('1');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.waitForURL(new RegExp(`/monitors/${id}$`));
      const changed = (await ws.rpc.getMonitor({ id })).monitor.value as { host: string; contains: string[]; resolver: string };
      assert.deepEqual([changed.host, changed.contains, changed.resolver], ['mail.example.test', [], dns.address]);
      assert.deepEqual(violations, [], 'no Content-Security-Policy violation');
    }),
  );
});
