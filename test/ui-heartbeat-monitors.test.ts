// Heartbeat monitors in Chromium against the real service: made through the form (a cron
// expression in a time zone), the ping URL shown once with the lines a job runs, pings sent by
// fetch read on the detail with their bodies folded, a new URL made there after a confirmation,
// and the schedule changed to a period. The form's model for heartbeats, in Node, first.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { durationFromMs } from '@bufbuild/protobuf/wkt';
import type { Client } from '@connectrpc/connect';
import type { Browser, Page } from 'playwright-core';
import { create } from '@bufbuild/protobuf';
import { HeartbeatMonitorSchema, type MonitorService, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { createOf, emptyForm, formOf, scheduleOf, updateOf } from '../renderer/src/screens/monitor-form/monitor-form-model.ts';
import { openPage, screenshot, watchCsp, withBrowser, chooseWorkspace } from './support/browser.ts';
import { monitorRpc, newWorkspace, startTestService, type TestService } from './support/harness.ts';

const TEST_TIMEOUT = { timeout: 180_000 };

describe("the monitor form's model, for heartbeats", () => {
  test('a schedule is a period of one unit or a cron expression; the grace a count of a unit; a period sends no time zone', () => {
    assert.deepEqual(scheduleOf('1h30m'), { scheduleKind: 'period', periodCount: '90', periodUnit: 'm', cron: '' });
    assert.deepEqual(scheduleOf('2w'), { scheduleKind: 'period', periodCount: '2', periodUnit: 'w', cron: '' });
    assert.equal(scheduleOf('@daily').scheduleKind, 'cron');
    assert.deepEqual(scheduleOf('0 3 * * *'), { scheduleKind: 'cron', periodCount: '1', periodUnit: 'd', cron: '0 3 * * *' });

    const form = {
      ...emptyForm(),
      name: 'backup',
      scheduleKind: 'cron' as const,
      cron: ' 30 2 * * * ',
      timezone: 'Europe/Paris',
      graceCount: '45',
      graceUnit: 'm' as const,
    };
    const { wire, local } = createOf('heartbeat', form);
    assert.deepEqual(local, []);
    assert.equal(wire.type, 'heartbeat');
    const m = wire.monitor as Record<string, unknown>;
    assert.deepEqual([m.schedule, m.timezone, m.grace], ['30 2 * * *', 'Europe/Paris', durationFromMs(2_700_000)]);
    for (const unused of ['timeout', 'degraded', 'retry', 'privateLocations']) assert.equal(m[unused], undefined, `${unused} is not sent`);

    const period = createOf('heartbeat', { ...form, scheduleKind: 'period', periodCount: '1.5' });
    assert.deepEqual(period.local, [{ field: 'monitor.schedule', rule: 'the period must be a whole number of its unit' }]);
    assert.equal((createOf('heartbeat', { ...form, scheduleKind: 'period', periodCount: '2' }).wire.monitor as { timezone: string }).timezone, '');

    // A stored monitor fills the form; moving it to a period names the time zone too, which returns to UTC.
    const stored = create(HeartbeatMonitorSchema, { name: 'b', schedule: '30 2 * * *', timezone: 'Europe/Paris', grace: durationFromMs(86_400_000) });
    const filled = formOf({ type: 'heartbeat', monitor: stored });
    assert.deepEqual(
      [filled.scheduleKind, filled.cron, filled.timezone, filled.graceCount, filled.graceUnit],
      ['cron', '30 2 * * *', 'Europe/Paris', '1', 'd'],
    );
    const { update } = updateOf(
      'heartbeat',
      { ...filled, scheduleKind: 'period', periodCount: '6', periodUnit: 'h' },
      { scheduleKind: true, periodCount: true },
    );
    assert.ok(update);
    assert.deepEqual(update.updateMask.paths, ['schedule', 'timezone']);
    const sent = update.monitor as { schedule: string; timezone: string };
    assert.deepEqual([sent.schedule, sent.timezone], ['6h', '']);
  });
});

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service.stop());

interface TestWorkspace {
  id: string;
  name: string;
  rpc: Client<typeof MonitorService>;
}

async function newTestWorkspace(): Promise<TestWorkspace> {
  const ws = await newWorkspace(service, 'heartbeat');
  const { secret } = await service.createKey('write', ws.slug);
  return { id: ws.id, name: ws.slug, rpc: monitorRpc(service, secret) };
}

const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

async function open(browser: Browser, ws: TestWorkspace, path: string, options: { width?: number; dark?: boolean } = {}) {
  const { page } = await openPage(browser, service, {
    viewport: { width: options.width ?? 1280, height: 900 },
    colorScheme: options.dark ? 'dark' : 'light',
  });
  const violations = watchCsp(page);
  await chooseWorkspace(page, { label: ws.name });
  await page.goto(`${service.dashboardUrl}${path}`);
  return { page, violations };
}

describe('heartbeat monitors in the dashboard', () => {
  test(
    'made through the form with a cron expression: its ping URL shown once with the curl lines; pings read on the detail; a new URL after a confirmation',
    TEST_TIMEOUT,
    () =>
      withBrowser(async (browser) => {
        const ws = await newTestWorkspace();
        const { page, violations } = await open(browser, ws, '/monitors/new');
        await page.getByRole('radio', { name: 'Heartbeat' }).check();
        await field(page, 'Name').fill('Nightly backup');
        assert.equal(await page.getByRole('heading', { name: 'Timing and retries' }).count(), 0, 'a heartbeat has no timing to set');
        assert.equal(await page.getByRole('group', { name: 'Private locations' }).count(), 0, 'nor private locations');
        const kind = page.getByRole('group', { name: 'Ping schedule' });
        assert.equal(await kind.getByRole('radio', { name: 'A period after each success' }).isChecked(), true, 'a period is the default');
        assert.equal(await field(page, 'Expected every').inputValue(), '1');
        await kind.getByRole('radio', { name: 'A cron expression' }).check();
        await field(page, 'Cron expression').fill('30 2 * * *');
        await field(page, 'Time zone').fill('Europe/Paris');
        await field(page, 'Grace time').fill('45');
        await page.getByLabel('Grace time: unit').selectOption('m');
        await page.getByRole('group', { name: 'Frequency' }).getByRole('radio', { name: '10 minutes' }).check();
        await page.getByRole('group', { name: 'Regions' }).getByRole('checkbox', { name: 'iad' }).check();
        await screenshot(page, 'heartbeat-form-filled-light-1280');
        await page.getByRole('button', { name: 'Create monitor' }).click();

        // Shown once, with the lines a job runs.
        const urlField = page.getByLabel('Ping URL', { exact: true });
        await urlField.waitFor();
        const pingUrl = await urlField.inputValue();
        assert.match(pingUrl, new RegExp(`^${service.apiUrl}/ping/hb_[A-Za-z0-9_-]{43}$`));
        const calls = page.getByRole('region', { name: 'How the job calls it' });
        assert.match(await calls.innerText(), new RegExp(`curl -fsS -m 10 --retry 3 ${pingUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/start`));
        await screenshot(page, 'heartbeat-url-light-1280');
        await page.getByRole('button', { name: 'Done' }).click();
        await page.waitForURL(/\/monitors\/\d+$/);
        const id = /\/monitors\/(\d+)$/.exec(new URL(page.url()).pathname)![1]!;

        const stored = (await ws.rpc.getMonitor({ id })).monitor;
        assert.equal(stored.case, 'heartbeatMonitor');
        const m = stored.value!;
        assert.deepEqual(
          [m.schedule, m.timezone, m.grace?.seconds, m.periodicity, m.regions],
          ['30 2 * * *', 'Europe/Paris', 2_700n, Periodicity.PERIODICITY_10M, ['iad']],
        );
        assert.match(await page.locator('.detail-facts').innerText(), /Heartbeat[\s\S]*30 2 \* \* \* \(Europe\/Paris\), grace 45 min/);
        await page
          .getByRole('region', { name: 'Heartbeat', exact: true })
          .getByText(/^Not pinged yet/)
          .waitFor();

        // A job pings: its success, then its failure with what it wrote.
        assert.equal((await fetch(pingUrl)).status, 200);
        assert.equal((await fetch(`${pingUrl}/2`, { method: 'POST', body: 'pg_dump: error: connection refused\nretrying in 10 s' })).status, 200);
        await page.reload();
        const pings = page.getByRole('region', { name: 'Latest pings' });
        await pings.getByText('pg_dump: error: connection refused', { exact: true }).waitFor();
        const rows = pings.getByRole('row');
        assert.equal(await rows.count(), 3, 'a header and two pings');
        assert.match(await rows.nth(1).innerText(), /fail\s+2/);
        const body = rows.nth(1).locator('details');
        assert.equal(await body.getAttribute('open'), null, 'the body is folded');
        await body.locator('summary').click();
        assert.match(await body.locator('pre').innerText(), /retrying in 10 s/);
        await page
          .getByRole('region', { name: 'Heartbeat', exact: true })
          .getByText(/failed with exit status 2/)
          .waitFor();
        assert.ok(!(await page.content()).includes(pingUrl.slice(-43)), 'the detail never shows the token');
        await screenshot(page, 'heartbeat-detail-pings-light-1280');

        // A new URL, after a confirmation: shown once, the old one refused at once.
        await pings.getByRole('button', { name: 'New ping URL' }).click();
        const dialog = page.getByRole('dialog');
        await dialog.getByText('The current URL stops working at once').waitFor();
        await dialog.getByRole('button', { name: 'Make a new URL' }).click();
        await urlField.waitFor();
        const rotated = await urlField.inputValue();
        assert.notEqual(rotated, pingUrl);
        assert.equal((await fetch(pingUrl)).status, 404);
        assert.equal((await fetch(rotated)).status, 200);
        await page.getByRole('button', { name: 'Done' }).click();
        assert.equal(await urlField.count(), 0, 'Done hides the URL for good');

        // The schedule becomes a period: the time zone goes back to UTC.
        await page.goto(`${service.dashboardUrl}/monitors/${id}/edit`);
        const editKind = page.getByRole('group', { name: 'Ping schedule' });
        await editKind.waitFor();
        assert.equal(await editKind.getByRole('radio', { name: 'A cron expression' }).isChecked(), true);
        await editKind.getByRole('radio', { name: 'A period after each success' }).check();
        await field(page, 'Expected every').fill('2');
        await page.getByLabel('Expected every: unit').selectOption('d');
        await page.getByRole('button', { name: 'Save changes' }).click();
        await page.waitForURL(/\/monitors\/\d+$/);
        const edited = (await ws.rpc.getMonitor({ id })).monitor.value as { schedule: string; timezone: string };
        assert.deepEqual([edited.schedule, edited.timezone], ['2d', 'UTC']);
        assert.deepEqual(violations, []);

        // Screenshots of the detail in the dark, and narrow.
        for (const [width, dark] of [
          [1280, true],
          [390, false],
          [390, true],
        ] as const) {
          const shot = await open(browser, ws, `/monitors/${id}`, { width, dark });
          await shot.page.getByRole('region', { name: 'Latest pings' }).getByRole('row').nth(1).waitFor();
          await screenshot(shot.page, `heartbeat-detail-${dark ? 'dark' : 'light'}-${width}`);
          await shot.page.goto(`${service.dashboardUrl}/monitors/new?type=heartbeat`);
          await shot.page.getByRole('group', { name: 'Ping schedule' }).getByRole('radio', { name: 'A cron expression' }).check();
          await screenshot(shot.page, `heartbeat-form-${dark ? 'dark' : 'light'}-${width}`);
        }
      }),
  );
});
