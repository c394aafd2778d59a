// A monitor's channels chosen on its own form, in Chromium against the real service: ticking a
// channel on the edit form and saving puts the monitor in that channel's monitor list; a new
// monitor starts with the channel that is a default for new ones ticked, and a default unticked
// there is not wired; a channel of every monitor is shown ticked and cannot be unticked. The form
// checked with axe in both themes at 1280 and 390 px, and photographed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, Periodicity } from '../client/index.ts';
import { axeViolations, chooseWorkspace, openPage, screenshot, withBrowser } from './support/browser.ts';
import { newWorkspace, startTestService, type TestService } from './support/harness.ts';

const T = { timeout: 240_000 };
const SECRET = 'a-signing-secret-of-some-length';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

async function workspaceApi(prefix: string) {
  const ws = await newWorkspace(service, prefix);
  const api = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: (await service.createKey('write', ws.slug)).secret, env: {} });
  const channel = async (name: string, choices: { allMonitors?: boolean; defaultForNew?: boolean } = {}) =>
    (
      await api.notifications.createNotificationChannel({
        name,
        config: { case: 'webhook', value: { url: 'http://127.0.0.1:9/hook', secret: SECRET } },
        ...choices,
      })
    ).channel!.id;
  const monitorsOf = async (id: string) => (await api.notifications.getNotificationChannel({ id })).channel!.monitorIds;
  return { ws, api, channel, monitorsOf };
}

describe('a monitor’s channels on its form', () => {
  test('edit a monitor, tick a channel, save: the channel now lists it; a channel of every monitor is ticked and fixed', T, async () => {
    const { ws, api, channel, monitorsOf } = await workspaceApi('monitor-channels-edit');
    const { monitor } = await api.monitors.createTCPMonitor({
      monitor: { name: 'Database', uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M },
    });
    const id = monitor!.id;
    const pager = await channel('Pager');
    const every = await channel('Everything', { allMonitors: true });
    await withBrowser(async (browser) => {
      const { page } = await openPage(browser, service);
      await chooseWorkspace(page, { label: ws.slug });
      await page.goto(`${service.dashboardUrl}/monitors/${id}/edit`);
      const channels = page.getByRole('group', { name: 'Channels', exact: true });
      const pagerBox = channels.getByRole('checkbox', { name: 'Pager (Webhook)', exact: true });
      await pagerBox.waitFor();
      assert.equal(await pagerBox.isChecked(), false);
      const everyBox = channels.getByRole('checkbox', { name: 'Everything (Webhook)', exact: true });
      assert.equal(await everyBox.isChecked(), true);
      assert.equal(await everyBox.isDisabled(), true);
      assert.match((await channels.textContent()) ?? '', /alerts every monitor/);

      await pagerBox.check();
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 900 });
          assert.deepEqual(await axeViolations(page), [], `axe, the edit form, ${scheme}, ${width} px`);
          await screenshot(page, `monitor-edit-channels-${scheme}-${width}`, page.locator('section', { has: channels }));
        }
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.waitForURL(`${service.dashboardUrl}/monitors/${id}`);
      await page.getByRole('status').filter({ hasText: 'Alert channels saved.' }).waitFor();
    });
    assert.deepEqual(await monitorsOf(pager), [id]);
    assert.deepEqual(await monitorsOf(every), [], 'a channel of every monitor keeps no list');
  });

  test('a new monitor starts with the default channel ticked; a default unticked is not wired', T, async () => {
    const { ws, api, channel, monitorsOf } = await workspaceApi('monitor-channels-new');
    const defaultOne = await channel('On call', { defaultForNew: true });
    const other = await channel('Team chat', { defaultForNew: true });
    const plain = await channel('Archive');
    await withBrowser(async (browser) => {
      const { page } = await openPage(browser, service);
      await chooseWorkspace(page, { label: ws.slug });
      await page.goto(`${service.dashboardUrl}/monitors/new?type=tcp`);
      const channels = page.getByRole('group', { name: 'Channels', exact: true });
      const onCall = channels.getByRole('checkbox', { name: 'On call (Webhook)', exact: true });
      await onCall.waitFor();
      assert.equal(await onCall.isChecked(), true, 'a default for new monitors starts ticked');
      const teamChat = channels.getByRole('checkbox', { name: 'Team chat (Webhook)', exact: true });
      assert.equal(await teamChat.isChecked(), true);
      assert.equal(await channels.getByRole('checkbox', { name: 'Archive (Webhook)', exact: true }).isChecked(), false);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 900 });
          assert.deepEqual(await axeViolations(page), [], `axe, the new monitor form, ${scheme}, ${width} px`);
          await screenshot(page, `monitor-new-channels-${scheme}-${width}`, page.locator('section', { has: channels }));
        }
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1280, height: 900 });

      await teamChat.uncheck();
      const form = page.locator('form');
      await form.getByLabel('Name', { exact: true }).fill('Cache');
      await form.getByLabel('Host', { exact: true }).fill('cache.internal');
      await form.getByLabel('Port', { exact: true }).fill('6379');
      await page.getByRole('group', { name: 'Frequency' }).getByRole('radio', { name: '1 minute', exact: true }).check();
      await page.getByRole('button', { name: 'Create monitor' }).click();
      await page.waitForURL(/\/monitors\/\d+$/);
    });
    const created = (await api.monitors.listMonitors({})).tcpMonitors.find((m) => m.name === 'Cache');
    assert.ok(created, 'the monitor was created');
    assert.deepEqual(await monitorsOf(defaultOne), [created.id]);
    assert.deepEqual(await monitorsOf(other), [], 'the default the user unticked is not wired');
    assert.deepEqual(await monitorsOf(plain), []);
  });
});
