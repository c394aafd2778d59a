// A monitor's incidents on its screen, in Chromium against the real service: a TCP monitor of a
// listener on 127.0.0.1 is checked up, then down (the listener closed) and up again (a new
// listener on the same port); the incident is listed with its start, end and duration, and
// "Create status report" opens the status page's report form pre-filled from it, whose
// submission publishes the report on the page chosen.
import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createClient, Periodicity, type StatusdeskClient } from '../client/index.ts';
import { chooseWorkspace, inEveryLook, openPage, watchCsp, withBrowser } from './support/browser.ts';
import { newWorkspace, startTestService, type TestService } from './support/harness.ts';

const TEST_TIMEOUT = { timeout: 120_000 };

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service.stop());

/** A TCP listener on 127.0.0.1 (on `port`, or a free one) that accepts and closes. */
async function listener(port = 0): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe("a monitor's incidents, in Chromium", () => {
  test(
    'an outage is listed with its start, end and duration; "Create status report" pre-fills the report form, and submitting it publishes the report on the page',
    TEST_TIMEOUT,
    () =>
      withBrowser(async (browser) => {
        const ws = await newWorkspace(service, 'incidents');
        const { secret } = await service.createKey('write', ws.slug);
        const client: StatusdeskClient = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: secret, env: {} });
        let target = await listener();
        try {
          const { monitor } = await client.monitors.createTCPMonitor({
            monitor: { name: 'billing db', uri: `127.0.0.1:${target.port}`, periodicity: Periodicity.PERIODICITY_1H, regions: ['iad'], retry: 0 },
          });
          const id = monitor!.id;
          // A page with a component that follows the monitor, and one that does not.
          const { statusPage } = await client.pages.createStatusPage({ slug: `incidents-${id}-${Date.now()}`, title: 'Acme status' });
          const pageId = statusPage!.id;
          const followed = (await client.pages.addPageComponent({ pageId, name: 'Billing', monitorId: id })).component!.id;
          await client.pages.addPageComponent({ pageId, name: 'Website' });

          // Up, down twice (one incident, two failed checks), up again.
          await client.monitors.triggerMonitor({ id });
          await target.close();
          await client.monitors.triggerMonitor({ id });
          await client.monitors.triggerMonitor({ id });
          target = await listener(target.port);
          await client.monitors.triggerMonitor({ id });

          const { page } = await openPage(browser, service);
          const csp = watchCsp(page);
          await page.getByRole('heading', { name: 'Overview' }).waitFor();
          await chooseWorkspace(page, { label: ws.slug });
          await page.goto(`${service.dashboardUrl}/monitors/${id}`);
          await page.getByRole('heading', { name: 'billing db', level: 1 }).waitFor();

          const section = page.getByRole('region', { name: 'Incidents' });
          const table = section.getByRole('table');
          await table.waitFor();
          const rows = table.locator('tbody tr');
          assert.equal(await rows.count(), 1, 'one outage, one incident');
          const cells = (await rows.first().locator('th, td').allInnerTexts()).map((text) => text.trim());
          const [started, ended] = await rows
            .first()
            .locator('time')
            .evaluateAll((times) => times.map((t) => t.getAttribute('datetime')!));
          assert.ok(started && ended && Date.parse(ended) > Date.parse(started), 'a start, and an end after it');
          assert.match(cells[2]!, /^\d+(\.\d+)? (ms|s)$|^\d+ (s|min)/, 'a duration');
          assert.equal(cells[3], '2', 'both failed checks');
          assert.match(cells[4]!, /refused/i, "the first failure's reason");

          await inEveryLook(page, 'monitor-incidents');

          // One step to a report: the form opens pre-filled, the page the only one there is.
          await section.getByRole('button', { name: /^Create status report/ }).click();
          const report = section.getByRole('group', { name: /^Status report from the incident of/ });
          const form = report.getByRole('region', { name: 'New status report' });
          await form.waitFor();
          assert.equal(await report.getByLabel('Status page').inputValue(), pageId);
          assert.equal(await form.getByLabel('Title').inputValue(), 'billing db was down');
          assert.equal(await form.getByLabel('Status').inputValue(), String(1), 'Investigating');
          const message = await form.getByLabel('Message').inputValue();
          assert.ok(message.startsWith(`billing db was down from ${started!.slice(0, 16).replace('T', ' ')} UTC to `), message);
          assert.match(message, /The first failed check said: .*refused/i);
          assert.equal(await form.getByRole('checkbox', { name: 'Billing', exact: true }).isChecked(), true, 'the component that follows the monitor');
          assert.equal(await form.getByRole('checkbox', { name: 'Website', exact: true }).isChecked(), false);
          assert.equal(await form.getByRole('radio', { name: "Don't notify", exact: true }).isChecked(), false, 'the notify choice is left to the person');

          await inEveryLook(page, 'monitor-incident-report-form');

          await form.getByRole('radio', { name: "Don't notify", exact: true }).check();
          await form.getByRole('button', { name: 'Publish report' }).click();
          await section.getByRole('status').getByText('Report “billing db was down” published on Acme status. Subscribers were not notified.').waitFor();
          await form.waitFor({ state: 'detached' });

          const { statusReports } = await client.reports.listStatusReports({ pageId, filter: 'all' });
          assert.equal(statusReports.length, 1);
          assert.equal(statusReports[0]!.title, 'billing db was down');
          assert.deepEqual(statusReports[0]!.pageComponentIds, [followed]);
          assert.equal(statusReports[0]!.updates[0]!.message, message);
          assert.deepEqual(csp, []);
        } finally {
          await target.close();
        }
      }),
  );
});
