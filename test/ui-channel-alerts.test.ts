// Where alerts go, in Chromium against the real service: the channel form chooses the events a
// channel receives, the channel list shows a failing channel with its receiver's answer, and the
// monitor form sets a reminder. Screens checked with axe in both themes and at 390 px.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '../client/index.ts';
import { ALERT_TOPICS } from '../contract/alert-topics.ts';
import { axeViolations, chooseWorkspace, goToScreen, openPage, screenshot, withBrowser } from './support/browser.ts';
import { newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { startHttpReceiver } from './support/receivers.ts';

const T = { timeout: 180_000 };

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

describe('alerts in the dashboard', () => {
  test('a channel made for some events receives those; a failing one says so with its receiver’s answer', T, async () => {
    const receiver = await startHttpReceiver({ status: 500 });
    const ws = await newWorkspace(service, 'alerting');
    const key = (await service.createKey('write', ws.slug)).secret;
    const { notifications } = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: key, env: {} });
    try {
      await withBrowser(async (browser) => {
        const { page } = await openPage(browser, service);
        await chooseWorkspace(page, { label: ws.slug });
        await goToScreen(page, 'Notifications');
        const form = page.locator('form');
        await form.getByLabel('Name', { exact: true }).fill('On call');
        await form.getByRole('radio', { name: 'Webhook', exact: true }).check();
        await form.getByLabel('URL', { exact: true }).fill(`${receiver.url}/hook`);
        await form.getByLabel('Signing secret', { exact: true }).fill('a-signing-secret-of-some-length');
        const events = form.getByRole('group', { name: 'Events' });
        assert.match((await events.textContent()) ?? '', /None ticked: every event/);
        await events.getByRole('checkbox', { name: ALERT_TOPICS.down }).check();
        await events.getByRole('checkbox', { name: ALERT_TOPICS.heartbeat_missed }).check();
        await screenshot(page, 'channel-alerts-form');
        await form.getByRole('button', { name: 'Create channel' }).click();
        await page.getByRole('row', { name: /On call/ }).waitFor();

        const { channels } = await notifications.listNotificationChannels({});
        assert.deepEqual(channels[0]?.events, ['down', 'heartbeat_missed']);

        await page.getByRole('button', { name: 'Send test to On call' }).click();
        await page.getByText(/Not delivered: .*answered 500/).waitFor();
        await page.reload();
        const row = page.getByRole('row', { name: /On call/ });
        await row.getByText('Failing: 1 in a row').waitFor();
        assert.match((await row.textContent()) ?? '', /answered 500/);

        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          for (const width of [1280, 390]) {
            await page.setViewportSize({ width, height: 900 });
            assert.deepEqual(await axeViolations(page), [], `axe, ${scheme}, ${width} px`);
            await screenshot(page, `channel-alerts-${scheme}-${width}`);
          }
        }

        // Back to every event from the edit form.
        await page.setViewportSize({ width: 1280, height: 900 });
        await row.getByRole('button', { name: 'Edit On call' }).click();
        const edit = page.locator('form');
        await edit.getByRole('checkbox', { name: ALERT_TOPICS.down }).uncheck();
        await edit.getByRole('checkbox', { name: ALERT_TOPICS.heartbeat_missed }).uncheck();
        await edit.getByRole('button', { name: 'Save channel' }).click();
        // Read once the service answered the save, which the announcement follows.
        await page.getByRole('status').filter({ hasText: 'Channel saved.' }).waitFor();
        const after = await notifications.listNotificationChannels({});
        assert.deepEqual(after.channels[0]?.events, []);
      });
    } finally {
      await receiver.close();
    }
  });
});

describe('reminders in the monitor form', () => {
  test('the form sets a reminder in minutes; one too short is refused at its input and nothing is made', T, async () => {
    const ws = await newWorkspace(service, 'reminding');
    const key = (await service.createKey('write', ws.slug)).secret;
    const { monitors } = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: key, env: {} });
    await withBrowser(async (browser) => {
      const { page } = await openPage(browser, service);
      await chooseWorkspace(page, { label: ws.slug });
      await page.goto(`${service.dashboardUrl}/monitors/new`);
      await page.getByRole('radio', { name: 'TCP' }).check();
      await page.getByLabel('Name', { exact: true }).fill('Database');
      await page.getByLabel('Host', { exact: true }).fill('127.0.0.1');
      await page.getByLabel('Port', { exact: true }).fill('5432');
      await page.getByRole('group', { name: 'Frequency' }).getByRole('radio', { name: '10 minutes' }).check();
      const remind = page.getByLabel('Remind every (minutes)', { exact: true });
      await remind.fill('1');
      await page.getByRole('button', { name: 'Create monitor' }).click();
      await page
        .getByText(/must be at least 5 minutes/)
        .first()
        .waitFor();
      assert.equal(await remind.getAttribute('aria-invalid'), 'true');
      assert.equal((await monitors.listMonitors({})).totalSize, 0);
      await screenshot(page, 'monitor-form-alerts', page.getByRole('region', { name: 'Alerts' }));

      await remind.fill('60');
      await page.getByRole('button', { name: 'Create monitor' }).click();
      await page.waitForURL(/\/monitors\/\d+$/);
      const { tcpMonitors } = await monitors.listMonitors({});
      assert.equal(Number(tcpMonitors[0]?.remindEvery?.seconds), 3_600);
    });
  });
});
