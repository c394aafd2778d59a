// Settings, General, Email in Chromium against the real service: where email is not set up, the
// subscribers tab and the email channel say so before anyone types, with a link to the settings;
// the settings are filled in, a test email reaches a real SMTP receiver on 127.0.0.1 and the
// screen reports the server's answer; then the subscribers form offers email.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, type StatusdeskClient } from '../client/index.ts';
import { focusReaches, openPage, watchCsp, withBrowser, axeInBothThemes, screenshotsInBothThemes } from './support/browser.ts';
import { startTestService, type TestService } from './support/harness.ts';
import { mailTo, type SmtpReceiver, startSmtpReceiver } from './support/receivers.ts';

const T = { timeout: 120_000 };
const EMAIL_SETTINGS = '/settings/general/email';

let service: TestService;
let smtp: SmtpReceiver;
let client: StatusdeskClient;
before(async () => {
  smtp = await startSmtpReceiver({ lifetimeMs: 300_000 });
  service = await startTestService();
  client = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: (await service.createKey('write')).secret, env: {} });
});
after(async () => {
  await service?.stop();
  await smtp?.close();
});

describe('email settings in Chromium', () => {
  test('no email: the subscribers tab says so with a link; the settings are saved, a test reaches the receiver; then email is offered', T, () =>
    withBrowser(async (browser) => {
      const { statusPage } = await client.pages.createStatusPage({ slug: 'mail-ui', title: 'Mail UI' });
      const { page } = await openPage(browser, service);
      const csp = watchCsp(page);
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

      // Before anyone types: the tab says email is not set up, and the form offers no email field.
      await page.goto(`${service.dashboardUrl}/pages/${statusPage!.id}?tab=subscribers`);
      await page.getByRole('tab', { name: 'Subscribers', selected: true }).waitFor();
      const notice = page.getByRole('note').filter({ hasText: 'Email is not set up on this service' });
      await notice.waitFor();
      await page.getByRole('button', { name: 'Add a subscriber' }).click();
      assert.equal(await page.getByRole('radio', { name: 'Webhook', exact: true }).isChecked(), true, 'the form starts on what works');
      await page.getByRole('radio', { name: 'Email', exact: true }).check();
      await page.getByRole('note').filter({ hasText: 'Email subscribers need a mail server' }).waitFor();
      assert.equal(await page.getByLabel('Email address', { exact: true }).count(), 0, 'no field that would be refused');
      assert.equal(await page.getByRole('button', { name: 'Add subscriber' }).count(), 0);
      assert.deepEqual(await axeInBothThemes(page), []);
      await screenshotsInBothThemes(page, 'subscribers-no-email');

      // The email channel kind says it too.
      await page.goto(`${service.dashboardUrl}/notifications`);
      await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
      // With no channel yet the form is open; otherwise it opens with "New channel".
      const newChannel = page.getByRole('button', { name: 'New channel' });
      await page.getByRole('button', { name: 'Create channel' }).or(newChannel).waitFor();
      if (await newChannel.isVisible()) await newChannel.click();
      await page.getByRole('radio', { name: 'Email', exact: true }).check();
      await page.getByRole('note').filter({ hasText: 'This service has no mail server yet' }).waitFor();
      assert.deepEqual(await axeInBothThemes(page), []);
      await screenshotsInBothThemes(page, 'channel-form-no-email');

      // The link leads to the settings.
      await page.goto(`${service.dashboardUrl}/pages/${statusPage!.id}?tab=subscribers`);
      await notice.getByRole('link', { name: 'Set up email in Settings' }).click();
      await page.getByRole('heading', { name: 'Email', level: 1 }).waitFor();
      assert.equal(new URL(page.url()).pathname, EMAIL_SETTINGS);
      await page.getByRole('note').filter({ hasText: 'Email is not set up' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Send a test email' }).count(), 0, 'nothing to test before a server is saved');

      // A bad port is refused naming the field, with the focus on it.
      await page.getByLabel('Host', { exact: true }).fill('127.0.0.1');
      await page.getByLabel('Port', { exact: true }).fill('70000');
      await page.getByRole('radio', { name: 'None', exact: true }).check();
      await page.getByLabel('From', { exact: true }).fill('Status <status@example.test>');
      await page.getByRole('button', { name: 'Save email settings' }).click();
      await page.getByText('must be a whole number from 1 to 65535').waitFor();
      await focusReaches(page.getByLabel('Port', { exact: true }));

      await page.getByLabel('Port', { exact: true }).fill(String(smtp.port));
      await page.getByLabel('Username', { exact: true }).fill('ui-user');
      await page.getByLabel('Password', { exact: true }).fill('ui-password-123');
      await page.getByRole('button', { name: 'Save email settings' }).click();
      await page.getByRole('status').filter({ hasText: 'Email settings saved.' }).waitFor();
      await page.getByRole('note').filter({ hasText: 'Email is set up.' }).waitFor();
      assert.equal(await page.getByLabel('Password', { exact: true }).inputValue(), '', 'the password is not shown again');
      assert.match((await page.getByText('A password is saved (never shown)').textContent()) ?? '', /Empty: it stays/);

      // The test send: to an address the person gives; the screen reports the server's answer.
      const to = 'ui-test@example.test';
      await page.getByLabel('To', { exact: true }).fill(to);
      await page.getByRole('button', { name: 'Send a test email' }).click();
      await page.getByRole('status').filter({ hasText: 'Sent. The mail server answered:' }).waitFor();
      assert.match((await page.getByRole('status').filter({ hasText: 'Sent.' }).textContent()) ?? '', /250/);
      const mail = await mailTo(smtp, to, /Statusdesk test message/);
      assert.equal(mail.envelopeFrom, 'status@example.test');
      assert.ok(smtp.logins.includes('ui-user'));
      assert.deepEqual(await axeInBothThemes(page), []);
      await screenshotsInBothThemes(page, 'email-settings');

      // Now the subscribers tab offers email, and an address added there is mailed its confirmation.
      await page.goto(`${service.dashboardUrl}/pages/${statusPage!.id}?tab=subscribers`);
      await page.getByRole('tab', { name: 'Subscribers', selected: true }).waitFor();
      await page.getByRole('button', { name: 'Add a subscriber' }).click();
      assert.equal(await page.getByRole('note').filter({ hasText: 'Email is not set up' }).count(), 0);
      await page.getByLabel('Email address', { exact: true }).fill('reader@example.test');
      await page.getByRole('button', { name: 'Add subscriber' }).click();
      await mailTo(smtp, 'reader@example.test', /confirm/i);
      await page.getByRole('cell', { name: 'Email' }).first().waitFor();
      assert.deepEqual(csp, []);
    }),
  );
});
