// Status pages, status reports, subscribers and notification channels in Chromium against the
// real service, driven through the names of the controls. Subscribers and channels point at real
// receivers on 127.0.0.1.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { strFromU8, unzipSync } from 'fflate';
import type { Locator, Page } from 'playwright-core';
import { createClient, Periodicity, type StatusdeskClient } from '../client/index.ts';
import { ACTION_TIMEOUT_MS, focusReaches, openPage, watchCsp, withBrowser } from './support/browser.ts';
import { startTestService, type TestService } from './support/harness.ts';
import { type SmtpReceiver, startHttpReceiver, startSmtpReceiver, verifySignature } from './support/receivers.ts';
import { eventually } from './support/wait.ts';

const TEST_TIMEOUT = { timeout: 90_000 };

let service: TestService;
let smtp: SmtpReceiver;
let client: StatusdeskClient;

before(async () => {
  smtp = await startSmtpReceiver({ lifetimeMs: 300_000 });
  service = await startTestService({ STATUSDESK_SMTP_URL: smtp.url });
  client = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: (await service.createKey('write')).secret, env: {} });
});
after(async () => {
  await service?.stop();
  await smtp?.close();
});

const uniqueSlug = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

async function seedMonitor(name: string): Promise<string> {
  const { monitor } = await client.monitors.createTCPMonitor({ monitor: { name, uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M } });
  return monitor!.id;
}

/** A page with components made through the RPC, for the tests that are about what comes after. */
async function seedPage(title: string, components: string[]): Promise<{ id: string; slug: string; url: string; components: Map<string, string> }> {
  const slug = uniqueSlug('ui');
  const { statusPage } = await client.pages.createStatusPage({ slug, title });
  const ids = new Map<string, string>();
  for (const name of components) ids.set(name, (await client.pages.addPageComponent({ pageId: statusPage!.id, name })).component!.id);
  return { id: statusPage!.id, slug, url: statusPage!.url, components: ids };
}

/** The component names of a page as the service holds them, in display order. */
async function serviceOrder(pageId: string): Promise<string[]> {
  return (await client.pages.listPageComponents({ pageId })).components.map((c) => c.name);
}

/** The names shown in the page's list of components, in order. */
const shownOrder = (page: Page) =>
  page
    .getByRole('list', { name: /in page order$/ })
    .locator('.component-name')
    .allInnerTexts();

/** The text of the elements that describe `control` (aria-describedby), as a screen reader reads them. */
function descriptionOf(control: Locator): Promise<string> {
  return control.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .map((id: string) => element.ownerDocument.getElementById(id)?.textContent ?? '')
      .join(' '),
  );
}

/** Whether `control` has the focus. */
const isFocused = (control: Locator) => control.evaluate((element) => element === element.ownerDocument.activeElement);

describe('status pages in Chromium', () => {
  test('a page and its components are made in the UI, an order changed by keyboard persists after a reload, and dragging reorders too', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      await seedMonitor('orders-db');
      const { page } = await openPage(browser, service);
      const violations = watchCsp(page);
      await page.goto(`${service.dashboardUrl}/pages`);
      await page.getByRole('heading', { name: 'Status pages', level: 1 }).waitFor();

      // With no page yet the form is open; otherwise it opens from its button.
      const newPage = page.getByRole('button', { name: 'New status page' });
      await page.getByRole('button', { name: 'Create page' }).or(newPage).waitFor();
      if (await newPage.isVisible()) await newPage.click();
      const slug = uniqueSlug('orders');
      await page.getByLabel('Title').fill('Orders');
      // The service's rule for a refused slug is shown beside the field and describes it.
      await page.getByLabel('Slug').fill('Not a slug!');
      await page.getByRole('button', { name: 'Create page' }).click();
      const slugField = page.getByLabel('Slug');
      await slugField.and(page.locator('[aria-invalid="true"]')).waitFor();
      await focusReaches(slugField);
      assert.match(await descriptionOf(slugField), /lower-case letters, digits or hyphens/);
      await page.getByLabel('Slug').fill(slug);
      await page.getByLabel('Description (optional)').fill('The order pipeline');
      await page.getByRole('button', { name: 'Create page' }).click();
      await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
      const pageId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
      assert.equal((await client.pages.getStatusPage({ page: slug })).statusPage!.id, pageId);

      // The first component follows the seeded monitor; the second is static.
      await page.getByRole('tab', { name: 'Components', selected: true }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Checkout API');
      await page.getByRole('group', { name: 'Monitor', exact: true }).getByRole('radio', { name: 'orders-db', exact: true }).check();
      await page.getByRole('button', { name: 'Add component' }).click();
      await page.getByText('Follows orders-db').waitFor();
      await page.getByRole('button', { name: 'Add a component' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Storefront');
      await page.getByRole('button', { name: 'Add component' }).click();
      await page.getByRole('button', { name: 'Move Storefront up' }).waitFor();
      assert.deepEqual(await shownOrder(page), ['Checkout API', 'Storefront']);
      const [linked] = (await client.pages.listPageComponents({ pageId })).components;
      assert.equal(linked!.monitorId !== undefined, true, 'the first component is linked to the monitor');

      // Moved by keyboard: the live region says where it went, and the focus stays on its controls.
      await page.getByRole('button', { name: 'Move Storefront up' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('status').filter({ hasText: 'Storefront moved to position 1 of 2.' }).waitFor();
      assert.deepEqual(await shownOrder(page), ['Storefront', 'Checkout API']);
      assert.equal(
        await isFocused(page.getByRole('button', { name: 'Move Storefront down' })),
        true,
        'at the top, the focus moves to the button that still works',
      );
      assert.equal(await page.getByRole('button', { name: 'Move Storefront up' }).isDisabled(), true);

      await eventually(
        () => serviceOrder(pageId),
        (order) => isDeepStrictEqual(order, ['Storefront', 'Checkout API']),
        'the new order is saved',
        ACTION_TIMEOUT_MS,
      );
      await page.reload();
      await page.getByRole('button', { name: 'Move Storefront down' }).waitFor();
      assert.deepEqual(await shownOrder(page), ['Storefront', 'Checkout API']);

      // And by drag and drop: Checkout API dropped on the upper half of Storefront goes before it.
      const row = (name: string) =>
        page
          .getByRole('list', { name: /in page order$/ })
          .getByRole('listitem')
          .filter({ has: page.locator('.component-name', { hasText: name }) });
      await row('Checkout API').dragTo(row('Storefront'), { targetPosition: { x: 40, y: 4 } });
      await page.getByRole('status').filter({ hasText: 'Checkout API moved to position 1 of 2.' }).waitFor();
      await eventually(
        () => serviceOrder(pageId),
        (order) => isDeepStrictEqual(order, ['Checkout API', 'Storefront']),
        'the dragged order is saved',
        ACTION_TIMEOUT_MS,
      );
      assert.deepEqual(violations, []);
    }),
  );

  test(
    'a status report needs the notify choice; published without notifying it reaches the public page and no subscriber, an update joins its timeline, and the export carries it',
    TEST_TIMEOUT,
    () =>
      withBrowser(async (browser) => {
        const target = await seedPage('Payments', ['Card API', 'Dashboard']);
        const hooks = await startHttpReceiver({ lifetimeMs: 120_000 });
        try {
          const { context, page } = await openPage(browser, service, { acceptDownloads: true });
          const violations = watchCsp(page);

          // Two active subscribers, added in the UI: a webhook, and an address that confirms.
          await page.goto(`${service.dashboardUrl}/pages/${target.id}?tab=subscribers`);
          await page.getByRole('tab', { name: 'Subscribers', selected: true }).waitFor();
          await page.getByRole('button', { name: 'Add a subscriber' }).click();
          await page.getByRole('radio', { name: 'Webhook', exact: true }).check();
          await page.getByLabel('Webhook URL').fill(`${hooks.url}/status-hook`);
          await page.getByRole('button', { name: 'Add subscriber' }).click();
          await page.getByRole('heading', { name: /^Webhook .* added$/ }).waitFor();
          const secret = await page.getByLabel('Signing secret').inputValue();
          assert.match(secret, /\S{16,}/);
          await page.getByRole('button', { name: 'Done' }).click();

          const mailsBefore = smtp.mails.length;
          const address = `${uniqueSlug('reader')}@example.test`;
          await page.getByRole('button', { name: 'Add a subscriber' }).click();
          await page.getByLabel('Email address', { exact: true }).fill(address);
          await page.getByRole('button', { name: 'Add subscriber' }).click();
          const [confirmation] = (await smtp.waitFor(mailsBefore + 1)).slice(mailsBefore);
          const confirmLink = /https?:\/\/\S+\/confirm\?\S+/.exec(confirmation!.text)?.[0];
          assert.ok(confirmLink, 'the confirmation mail has its link');
          assert.equal((await fetch(confirmLink, { method: 'POST' })).status, 200);
          await page.reload();
          await page
            .getByRole('row', { name: new RegExp(address) })
            .getByText('Active')
            .waitFor();
          const mailsSettled = smtp.mails.length;

          // Publishing without a choice is refused beside the choice, and nothing is published.
          await page.getByRole('tab', { name: 'Status reports' }).click();
          await page.getByRole('tab', { name: 'Status reports', selected: true }).waitFor();
          const form = page.getByRole('region', { name: 'New status report' });
          await form.getByLabel('Title').fill('Card payments failing');
          await form.getByRole('checkbox', { name: 'Card API' }).check();
          await form.getByLabel('Status').selectOption({ label: 'Identified' });
          await form.getByLabel('Message').fill('A certificate expired at the card processor.');
          const notifyRadio = form.getByRole('radio', { name: 'Notify subscribers' });
          const quietRadio = form.getByRole('radio', { name: "Don't notify" });
          assert.equal(await notifyRadio.isChecked(), false);
          assert.equal(await quietRadio.isChecked(), false, 'no notify choice is made for the person');
          await form.getByRole('button', { name: 'Publish report' }).click();
          const choice = form.getByRole('group', { name: 'Subscribers' });
          await choice.getByText('Choose whether to notify subscribers: nothing is published until you do.').waitFor();
          assert.match(await descriptionOf(notifyRadio), /Choose whether to notify subscribers/, 'the radios are described by the refusal');
          assert.equal(await isFocused(notifyRadio), true, 'the focus goes to the choice');
          assert.equal((await client.reports.listStatusReports({ pageId: target.id, filter: 'all' })).statusReports.length, 0, 'nothing was published');

          await quietRadio.check();
          await form.getByRole('button', { name: 'Publish report' }).click();
          await page.getByRole('status').filter({ hasText: 'Report “Card payments failing” published. Subscribers were not notified.' }).waitFor();
          await page.getByRole('heading', { name: 'Card payments failing', level: 3 }).waitFor();
          // The report is shown once CreateStatusReport has answered, and the service answers after
          // its dispatch: anything sent to a subscriber would be here by now.
          assert.equal(hooks.requests.length, 0, 'no webhook was called');
          assert.equal(smtp.mails.length, mailsSettled, 'no mail was sent');

          // The public page, opened as a visitor opens it.
          const visitor = await context.newPage();
          await visitor.goto(target.url);
          const incidents = visitor.getByRole('region', { name: 'Current incidents' });
          await incidents.getByRole('heading', { name: 'Card payments failing' }).waitFor();
          assert.match(await incidents.innerText(), /A certificate expired at the card processor\./);
          await visitor.close();

          // An update, again with its own choice; notified this time, so the receivers are heard.
          await page.getByRole('button', { name: 'Add an update to Card payments failing' }).click();
          const update = page.getByRole('group', { name: 'Add an update to Card payments failing' });
          await update.getByLabel('Status').selectOption({ label: 'Monitoring' });
          await update.getByLabel('Message').fill('The certificate is renewed; payments go through again.');
          await update.getByRole('button', { name: 'Publish update' }).click();
          await update.getByText('Choose whether to notify subscribers: nothing is published until you do.').waitFor();
          await update.getByRole('radio', { name: 'Notify subscribers' }).check();
          await update.getByRole('button', { name: 'Publish update' }).click();
          await page.getByRole('status').filter({ hasText: 'Update to “Card payments failing” published. Subscribers were notified.' }).waitFor();

          const timeline = page.getByRole('list', { name: 'Timeline of Card payments failing' });
          await timeline.getByText('The certificate is renewed; payments go through again.').waitFor();
          const entries = await timeline.getByRole('listitem').allInnerTexts();
          assert.equal(entries.length, 2);
          assert.match(entries[0]!, /^Monitoring\s+The certificate is renewed/);
          assert.match(entries[1]!, /^Identified\s+A certificate expired/);

          const [hook] = await hooks.waitFor(1);
          assert.equal(hook!.path, '/status-hook');
          assert.match(hook!.body, /The certificate is renewed/);
          assert.ok(verifySignature(secret, hook!.headers['x-statusdesk-signature'] ?? '', hook!.body), 'signed with the secret shown once');
          const mails = await smtp.waitFor(mailsSettled + 1);
          assert.deepEqual(mails[mailsSettled]!.envelopeTo, [address]);
          assert.equal(hooks.requests.length, 1, 'the report itself was never sent later');

          // The subscribers show that notice as their last, delivered.
          await page.getByRole('tab', { name: 'Subscribers' }).click();
          await page
            .getByRole('row', { name: new RegExp(address) })
            .getByText('Delivered')
            .waitFor();
          assert.equal(await page.getByRole('row').filter({ hasText: 'Delivered' }).count(), 2, 'the webhook too');

          // The static copy carries the report too.
          await page.getByRole('tab', { name: 'Export' }).click();
          const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the static site' }).click()]);
          assert.equal(download.suggestedFilename(), `${target.slug}-status-page.zip`);
          const files = unzipSync(new Uint8Array(await readFile((await download.path())!)));
          assert.deepEqual(Object.keys(files).sort(), ['feed.atom', 'index.html', 'page.js', 'summary.json']);
          assert.match(strFromU8(files['index.html']!), /Card payments failing/);
          await page
            .getByRole('status')
            .filter({ hasText: `${target.slug}-status-page.zip downloaded` })
            .waitFor();
          assert.deepEqual(violations, []);
        } finally {
          await hooks.close();
        }
      }),
  );

  test(
    "a page's reports and maintenance windows follow the live feed: made elsewhere they appear without a reload, and one deleted here is gone",
    TEST_TIMEOUT,
    () =>
      withBrowser(async (browser) => {
        const target = await seedPage('Live calendar', ['Search']);
        const { page } = await openPage(browser, service);
        const violations = watchCsp(page);

        await page.goto(`${service.dashboardUrl}/pages/${target.id}?tab=reports`);
        await page.getByText('No status reports.').waitFor();
        await client.reports.createStatusReport({ pageId: target.id, title: 'Search is slow', status: 1, message: 'Looking into it.', notify: false });
        await page.getByRole('heading', { level: 3, name: 'Search is slow' }).waitFor();

        await page.getByRole('tab', { name: 'Maintenance' }).click();
        await page.getByText('No maintenance planned.').waitFor();
        const from = new Date(Date.now() + 86_400_000).toISOString();
        const to = new Date(Date.now() + 90_000_000).toISOString();
        await client.maintenances.createMaintenance({ pageId: target.id, title: 'Index rebuild', message: '', from, to, notify: false });
        await page.locator('.calendar-text').getByText('Index rebuild', { exact: true }).waitFor();

        await page.getByRole('button', { name: 'Delete Index rebuild' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Delete maintenance' }).click();
        await page.getByText('No maintenance planned.').waitFor();
        assert.deepEqual((await client.maintenances.listMaintenances({ pageId: target.id })).maintenances, []);
        assert.deepEqual(violations, []);
      }),
  );

  test('a webhook channel made in the UI: Send test delivers one request to it, and a refusal is shown as it came', TEST_TIMEOUT, () =>
    withBrowser(async (browser) => {
      const receiver = await startHttpReceiver({ lifetimeMs: 120_000 });
      try {
        const { page } = await openPage(browser, service);
        const violations = watchCsp(page);
        await page.goto(`${service.dashboardUrl}/notifications`);
        await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
        const newChannel = page.getByRole('button', { name: 'New channel' });
        await page.getByRole('button', { name: 'Create channel' }).or(newChannel).waitFor();
        if (await newChannel.isVisible()) await newChannel.click();

        const name = `Pager ${randomBytes(3).toString('hex')}`;
        const secret = 'sixteen-or-more-characters';
        await page.getByLabel('Name', { exact: true }).fill(name);
        await page.getByRole('radio', { name: 'Webhook', exact: true }).check();
        await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/alerts`);
        await page.getByLabel('Signing secret').fill(secret);
        await page.getByRole('button', { name: 'Create channel' }).click();

        const row = page.getByRole('row', { name: new RegExp(name) });
        await row.getByRole('button', { name: `Send test to ${name}` }).click();
        await row.getByText('Delivered').waitFor();
        const [request] = await receiver.waitFor(1);
        assert.equal(request!.method, 'POST');
        assert.equal(request!.path, '/alerts');
        assert.ok(verifySignature(secret, request!.headers['x-statusdesk-signature'] ?? '', request!.body), 'signed with the secret typed in');
        assert.equal(receiver.requests.length, 1, 'one test, one request');

        receiver.setStatus(500);
        await row.getByRole('button', { name: `Send test to ${name}` }).click();
        await row.getByText(/^Not delivered: .*500/).waitFor();
        assert.equal(receiver.requests.length, 2);
        assert.deepEqual(violations, []);
      } finally {
        await receiver.close();
      }
    }),
  );
});
