// Monitor groups on the overview, in Chromium against the real service: the monitors shown group
// by group under headers (the group with a down monitor first, the monitors in no group last),
// each header with its worst state and its counts in words; a group collapsed stays so after a
// reload; "Show groups" off gives the flat list; a group typed in the monitor form moves the
// monitor there; two rows chosen and put in a group by the bulk bar. Checked with axe in both
// themes at 1280 and 390 px.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createClient } from '../client/index.ts';
import { Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { axeViolations, chooseWorkspace, inEveryLook, openPage, screenshot, watchCsp, withBrowser } from './support/browser.ts';
import { closedPort } from './support/grpc-peers.ts';
import { newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { startTcpListener } from './support/grpc-peers.ts';

const T = { timeout: 240_000 };
/** How long a check's result may take to reach the page through the live feed. */
const LIVE_WAIT_MS = 15_000;

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

/** A TCP listener on 127.0.0.1 that accepts each connection and closes it: a monitor of it is up. */
const listener = () => startTcpListener('127.0.0.1', 0, true);

/** The list as shown: each group's header (its name) and each row (its monitor's name), top to bottom. */
async function shownItems(page: Page): Promise<string[]> {
  return page.locator('.monitor-list > li').evaluateAll((items) =>
    items
      .map((item) => ({ item, top: item.getBoundingClientRect().top }))
      .sort((a, b) => a.top - b.top)
      .map(({ item }) => {
        const header = item.querySelector('.group-toggle');
        if (header) return `# ${header.textContent}`;
        return item.querySelector('.monitor-link')?.textContent ?? '…';
      }),
  );
}

/** The list cut into its groups: each header with the names of its rows, sorted. */
function groupsOf(items: string[]): [string, string[]][] {
  const groups: [string, string[]][] = [];
  for (const item of items) {
    if (item.startsWith('# ')) groups.push([item.slice(2), []]);
    else groups[groups.length - 1]?.[1].push(item);
  }
  return groups.map(([name, rows]) => [name, rows.sort()]);
}

describe('monitor groups on the overview, in Chromium', () => {
  test('groups shown worst first with their state and counts, collapsed across a reload, turned off; a group set in the form and by the bulk bar', T, () =>
    withBrowser(async (browser) => {
      const ws = await newWorkspace(service, 'groups-ui');
      const key = (await service.createKey('write', ws.slug)).secret;
      const { monitors } = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: key, env: {} });
      const open = await listener();
      try {
        const closed = await closedPort();
        const ids: Record<string, string> = {};
        // "Storage" has a down monitor, "Api" none: Storage comes first though its name sorts after.
        for (const [name, group, port, active] of [
          ['orders db', 'Storage', closed, true],
          ['users db', 'Storage', closed, false],
          ['web api', 'Api', open.port, true],
          ['web front', 'Api', closed, false],
          ['cache', '', open.port, true],
          ['queue', '', closed, false],
        ] as const) {
          const { monitor } = await monitors.createTCPMonitor({
            monitor: { name, uri: `127.0.0.1:${port}`, group, active, periodicity: Periodicity.PERIODICITY_1H, regions: ['iad'], retry: 0 },
          });
          ids[name] = monitor!.id;
        }
        // A check runs on demand: the down monitor's first one is refused, the up one's answered.
        for (const name of ['orders db', 'web api', 'cache']) await monitors.triggerMonitor({ id: ids[name]! });
        const groupOf = async (name: string) => (await monitors.getMonitor({ id: ids[name]! })).monitor.value?.group;

        const { page } = await openPage(browser, service);
        const csp = watchCsp(page);
        await chooseWorkspace(page, { label: ws.slug });
        await page.getByText(`Every monitor of ${ws.slug}`).waitFor();
        const list = page.getByRole('list', { name: 'Monitors' });
        const header = (name: string) => list.getByRole('button', { name, exact: true });
        const headerRow = (name: string) => list.locator('.group-header').filter({ has: page.getByRole('button', { name, exact: true }) });

        // The checks' results are on the page, through the live feed if they came after it.
        await headerRow('Storage').getByText('Down', { exact: true }).waitFor({ timeout: LIVE_WAIT_MS });
        await headerRow('Api').getByText('Up', { exact: true }).waitFor({ timeout: LIVE_WAIT_MS });
        assert.equal(await headerRow('Storage').locator('.group-counts').innerText(), '2 monitors: 1 down, 1 paused');
        assert.equal(await headerRow('Api').locator('.group-counts').innerText(), '2 monitors: 1 up, 1 paused');
        assert.equal(await header('Storage').getAttribute('aria-expanded'), 'true');
        assert.deepEqual(groupsOf(await shownItems(page)), [
          ['Storage', ['orders db', 'users db']],
          ['Api', ['web api', 'web front']],
          ['Not in a group', ['cache', 'queue']],
        ]);
        await page.getByText('6 monitors', { exact: true }).waitFor();
        await inEveryLook(page, 'groups-overview');

        // Collapsed: its header stays, its rows go, the count still says every monitor; so after a reload.
        await header('Storage').click();
        assert.equal(await header('Storage').getAttribute('aria-expanded'), 'false');
        await list.getByRole('link', { name: 'orders db' }).waitFor({ state: 'detached' });
        assert.deepEqual(groupsOf(await shownItems(page)), [
          ['Storage', []],
          ['Api', ['web api', 'web front']],
          ['Not in a group', ['cache', 'queue']],
        ]);
        await page.getByText('6 monitors', { exact: true }).waitFor();
        await screenshot(page, 'groups-collapsed-light-1280');
        await page.reload();
        await list.getByRole('link', { name: 'web api' }).waitFor();
        assert.equal(await header('Storage').getAttribute('aria-expanded'), 'false');
        assert.equal(await list.getByRole('link', { name: 'orders db' }).count(), 0);

        // "Show groups" off: the flat list, every monitor in it, no headers; also after a reload.
        const showGroups = page.getByRole('checkbox', { name: 'Show groups' });
        await showGroups.uncheck();
        await list.getByRole('link', { name: 'orders db' }).waitFor();
        assert.equal(await list.locator('.group-header').count(), 0);
        assert.deepEqual((await shownItems(page)).sort(), ['cache', 'orders db', 'queue', 'users db', 'web api', 'web front']);
        await page.reload();
        await list.getByRole('link', { name: 'orders db' }).waitFor();
        assert.equal(await showGroups.isChecked(), false);
        assert.equal(await list.locator('.group-header').count(), 0);
        await screenshot(page, 'groups-flat-light-1280');
        await showGroups.check();
        await header('Storage').waitFor();
        await header('Storage').click();
        await list.getByRole('link', { name: 'orders db' }).waitFor();

        // A group typed in the monitor form moves the monitor to it.
        await page.goto(`${service.dashboardUrl}/monitors/${ids.cache}/edit`);
        const groupField = page.getByLabel('Group', { exact: true });
        await groupField.waitFor();
        assert.equal(await groupField.inputValue(), '');
        // The workspace's groups are offered.
        const offered = page.locator('datalist option');
        await offered.first().waitFor({ state: 'attached' });
        assert.deepEqual(await offered.evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value)), ['Api', 'Storage']);
        assert.equal(await page.locator(`datalist[id="${await groupField.getAttribute('list')}"]`).count(), 1, 'the field names its suggestions');
        await groupField.fill('Queues');
        await inEveryLook(page, 'groups-form');
        await page.getByRole('button', { name: 'Save changes' }).click();
        await page.waitForURL(new RegExp(`/monitors/${ids.cache}$`));
        assert.equal(await groupOf('cache'), 'Queues');
        await page.goto(`${service.dashboardUrl}/`);
        await header('Queues').waitFor();
        assert.deepEqual(groupsOf(await shownItems(page)), [
          ['Storage', ['orders db', 'users db']],
          ['Api', ['web api', 'web front']],
          ['Queues', ['cache']],
          ['Not in a group', ['queue']],
        ]);

        // Two rows chosen and put in a group by one request, after a confirmation naming how many.
        await page.getByRole('checkbox', { name: 'Choose web api', exact: true }).check();
        await page.getByRole('checkbox', { name: 'Choose queue', exact: true }).check();
        const bar = page.getByRole('region', { name: 'Chosen monitors' });
        await bar.getByText('2 monitors chosen').waitFor();
        await bar.getByRole('button', { name: 'Remove from group' }).waitFor();
        await bar.getByLabel('Group', { exact: true }).fill('Edge');
        await bar.getByRole('button', { name: 'Set group' }).click();
        const dialog = page.getByRole('dialog', { name: 'Put 2 monitors in Edge?' });
        await dialog.waitFor();
        assert.deepEqual(await axeViolations(page), [], 'axe, the confirmation');
        await screenshot(page, 'groups-bulk-confirm-light-1280');
        await dialog.getByRole('button', { name: 'Put 2 monitors in the group' }).click();
        await page.getByRole('status').filter({ hasText: 'Regrouped 2 of 2 monitors.' }).first().waitFor();
        assert.deepEqual([await groupOf('web api'), await groupOf('queue'), await groupOf('web front')], ['Edge', 'Edge', 'Api']);
        await header('Edge').waitFor();
        const regrouped = groupsOf(await shownItems(page));
        assert.deepEqual(regrouped[0], ['Storage', ['orders db', 'users db']]);
        assert.deepEqual(
          regrouped.find(([name]) => name === 'Edge'),
          ['Edge', ['queue', 'web api']],
        );
        assert.deepEqual(regrouped.map(([name]) => name).sort(), ['Api', 'Edge', 'Queues', 'Storage'], 'no monitor is left without a group');
        await screenshot(page, 'groups-after-bulk-light-1280');
        assert.deepEqual(csp, [], 'no Content-Security-Policy violation');
      } finally {
        await open.close();
      }
    }),
  );
});
