// A webhook channel's signing secret and its delivery log, in Chromium against the real service:
// the form generates a secret, shows it once with Copy, and after saving the channel only says it
// is set; the secret the receiver gets signatures with is that one. A test send then shows in the
// channel's delivery log, with the receiver's answer, and a channel for every monitor says so.
// Screens checked with axe in both themes and at 390 px, and photographed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '../client/index.ts';
import { axeViolations, openPage, withBrowser, chooseWorkspace, goToScreen, screenshot } from './support/browser.ts';
import { newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { startHttpReceiver, verifySignature } from './support/receivers.ts';

const T = { timeout: 240_000 };

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

describe('a channel’s signing secret and delivery log in the dashboard', () => {
  test('a generated secret is shown once and signs the alerts; a test send shows in the delivery log with the answer', T, async () => {
    const receiver = await startHttpReceiver();
    const ws = await newWorkspace(service, 'deliveries');
    const key = (await service.createKey('write', ws.slug)).secret;
    const { notifications } = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: key, env: {} });
    try {
      await withBrowser(async (browser) => {
        const { page } = await openPage(browser, service);
        await chooseWorkspace(page, { label: ws.slug });
        await goToScreen(page, 'Notifications');
        const form = page.locator('form');
        await form.getByLabel('Name', { exact: true }).fill('Signed hook');
        await form.getByRole('radio', { name: 'Webhook', exact: true }).check();
        await form.getByLabel('URL', { exact: true }).fill(`${receiver.url}/hook`);

        // Generated in the browser, typed into the field, and shown once beside Copy.
        await form.getByRole('button', { name: 'Generate a secret' }).click();
        const shown = form.getByLabel('Generated signing secret', { exact: true });
        const secret = await shown.inputValue();
        assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
        assert.equal(await form.getByLabel('Signing secret', { exact: true }).inputValue(), secret);
        await form.getByRole('button', { name: 'Copy the signing secret' }).waitFor();
        // Another press makes another.
        await form.getByRole('button', { name: 'Generate a new secret' }).click();
        const second = await shown.inputValue();
        assert.notEqual(second, secret);

        // For every monitor: the picker gives way.
        await form.getByRole('checkbox', { name: 'All monitors', exact: true }).check();
        assert.equal(await form.getByRole('group', { name: 'Monitors', exact: true }).count(), 0);
        await form.getByRole('checkbox', { name: 'Default for new monitors', exact: true }).check();
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          for (const width of [1280, 390]) {
            await page.setViewportSize({ width, height: 900 });
            assert.deepEqual(await axeViolations(page), [], `axe, the form, ${scheme}, ${width} px`);
            await screenshot(page, `channel-secret-form-${scheme}-${width}`);
          }
        }
        await page.emulateMedia({ colorScheme: 'light' });
        await page.setViewportSize({ width: 1280, height: 900 });
        await form.getByRole('button', { name: 'Create channel' }).click();
        const row = page.getByRole('row', { name: /Signed hook/ });
        await row.waitFor();
        assert.match((await row.textContent()) ?? '', /All/);
        // Never shown again: nowhere on the page, and the service shows it masked.
        assert.equal(await page.getByText(second).count(), 0);
        assert.equal((await page.content()).includes(second), false);
        const { channels } = await notifications.listNotificationChannels({});
        const stored = channels.find((c) => c.name === 'Signed hook')!;
        assert.deepEqual([stored.allMonitors, stored.defaultForNew], [true, true]);
        assert.equal(stored.config.case === 'webhook' && stored.config.value.secret, '••••••••');

        // The edit form says it is set, and keeps it when left empty.
        await row.getByRole('button', { name: 'Edit Signed hook' }).click();
        const edit = page.locator('form');
        assert.match((await edit.textContent()) ?? '', /Set\. Stored and hidden \(••••••••\)\. Leave empty to keep it/);
        assert.equal(await edit.getByLabel('Signing secret', { exact: true }).inputValue(), '');
        await edit.getByRole('button', { name: 'Cancel' }).click();

        // A test send, signed with the generated secret, then in the delivery log.
        await row.getByRole('button', { name: 'Send test to Signed hook' }).click();
        await page.getByText('Delivered').first().waitFor();
        const [request] = await receiver.waitFor(1);
        assert.equal(request!.headers['x-statusdesk-event'], 'test');
        assert.ok(verifySignature(second, request!.headers['x-statusdesk-signature']!, request!.body), 'signed with the generated secret');

        await row.getByRole('link', { name: 'Delivery log of Signed hook' }).click();
        await page.getByRole('heading', { name: 'Delivery log of Signed hook' }).waitFor();
        const entry = page.getByRole('row', { name: /Test/ });
        await entry.waitFor();
        const text = (await entry.textContent()) ?? '';
        assert.match(text, /Delivered/);
        assert.match(text, /HTTP 200/);
        assert.match(text, /ok/);
        // Another test from the log itself shows there too.
        await page.getByRole('button', { name: 'Send test' }).click();
        await page.getByRole('row', { name: /Test/ }).nth(1).waitFor();
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          for (const width of [1280, 390]) {
            await page.setViewportSize({ width, height: 900 });
            assert.deepEqual(await axeViolations(page), [], `axe, the delivery log, ${scheme}, ${width} px`);
            await screenshot(page, `channel-delivery-log-${scheme}-${width}`);
          }
        }
        await page.emulateMedia({ colorScheme: 'light' });
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.getByRole('link', { name: 'Notifications' }).last().click();
        await page.getByRole('row', { name: /Signed hook/ }).waitFor();
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          for (const width of [1280, 390]) {
            await page.setViewportSize({ width, height: 900 });
            await screenshot(page, `notifications-signed-channel-${scheme}-${width}`);
          }
        }
      });
    } finally {
      await receiver.close();
    }
  });
});
