import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Code, createClient, settingsV1, type StatusdeskClient } from '../client/index.ts';
import { DATABASE_FILE } from '../server/db/open.ts';
import { queryRows } from './support/database.ts';
import { assertCode, assertViolation, dashboardSession, newWorkspace, runCli, startTestService, tempDir, type TestService } from './support/harness.ts';
import { linkIn, mailTo, type SmtpReceiver, startSmtpReceiver } from './support/receivers.ts';

// The service's email settings (Settings, General, Email): stored in the database with the
// password sealed, set over settings.v1, tried with a test send to a real SMTP receiver on
// loopback, and beaten by STATUSDESK_SMTP_URL and STATUSDESK_MAIL_FROM where those are set.

const { EmailSecurity } = settingsV1;
const PASSWORD = 'smtp-secret-Qx7!pass';

/** A message as text, to look for a value anywhere in it (timestamps carry bigints). */
const textOf = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

const clientOf = (svc: TestService, apiKey: string): StatusdeskClient => createClient({ baseUrl: `${svc.apiUrl}/rpc`, apiKey });

/** The database file and its write-ahead log as bytes: what a copy of the data folder would reveal. */
function databaseBytes(dataDir: string): string {
  const read = (name: string) => {
    try {
      return readFileSync(join(dataDir, name)).toString('latin1');
    } catch {
      return '';
    }
  };
  return read(DATABASE_FILE) + read(`${DATABASE_FILE}-wal`);
}

/** The session's word on email, as the dashboard reads it. */
async function sessionSaysEmail(svc: TestService, headers: Record<string, string>): Promise<boolean> {
  const response = await fetch(`${svc.dashboardUrl}/api/session`, { headers });
  assert.equal(response.status, 200);
  return ((await response.json()) as { emailAvailable: boolean }).emailAvailable;
}

describe('email settings', () => {
  let svc: TestService;
  let smtp: SmtpReceiver;
  let writer: StatusdeskClient;
  let reader: StatusdeskClient;
  let session: Record<string, string>;

  before(async () => {
    smtp = await startSmtpReceiver();
    svc = await startTestService();
    writer = clientOf(svc, (await svc.createKey('write')).secret);
    reader = clientOf(svc, (await svc.createKey('read')).secret);
    session = await dashboardSession(svc);
  });
  after(async () => {
    await svc.stop();
    await smtp.close();
  });

  test('saved over RPC: the password is sealed in the database, never returned, and the test send reaches the receiver', async () => {
    const saved = await writer.settings.updateEmailSettings({
      host: '127.0.0.1',
      port: smtp.port,
      security: EmailSecurity.NONE,
      username: 'relay-user',
      password: PASSWORD,
      from: 'Status <status@example.test>',
    });
    const stored = saved.settings!.stored!;
    assert.equal(saved.settings!.available, true);
    assert.deepEqual(
      [stored.host, stored.port, stored.security, stored.username, stored.passwordSet, stored.from],
      ['127.0.0.1', smtp.port, EmailSecurity.NONE, 'relay-user', true, 'Status <status@example.test>'],
    );
    assert.ok(!textOf(saved).includes(PASSWORD), 'the password is never returned');
    assert.ok(!textOf(await writer.settings.getEmailSettings({})).includes(PASSWORD));
    assert.equal(await sessionSaysEmail(svc, session), true);

    // Sealed at rest: the column holds a sealed value, and no byte of the file or its log spells the password.
    const [row] = await queryRows<{ password: string; host: string }>(svc.dataDir, 'select password, host from email_settings');
    assert.match(row!.password, /^v1:/);
    assert.ok(!databaseBytes(svc.dataDir).includes(PASSWORD), 'the password is not in the database file');

    const sent = await writer.settings.sendTestEmail({ to: 'me@example.test' });
    assert.equal(sent.delivered, true, sent.answer);
    assert.match(sent.answer, /^250\b/, 'the answer is the SMTP server’s own');
    const mail = await mailTo(smtp, 'me@example.test', /Statusdesk test message/);
    assert.equal(mail.envelopeFrom, 'status@example.test');
    assert.match(mail.headers.from ?? '', /Status/);
    assert.ok(smtp.logins.includes('relay-user'), 'it logged in with the stored user and password');
  });

  test('the stored settings carry subscriber mail and email channels without a server of their own', async () => {
    await writer.settings.updateEmailSettings({ host: '127.0.0.1', port: smtp.port, security: EmailSecurity.NONE, from: 'status@example.test' });
    const page = (await writer.pages.createStatusPage({ slug: 'mailed', title: 'Mailed' })).statusPage!;
    await writer.pages.addSubscriber({ pageId: page.id, target: { case: 'email', value: 'subscriber@example.test' } });
    const confirmation = await mailTo(smtp, 'subscriber@example.test', /confirm/i);
    assert.ok(linkIn(confirmation, 'confirm'));
    assert.equal(confirmation.envelopeFrom, 'status@example.test');

    const { channel } = await writer.notifications.createNotificationChannel({
      name: 'Mail through the settings',
      config: { case: 'email', value: { to: ['oncall@example.test'] } },
    });
    const sent = await writer.notifications.sendTestNotification({ id: channel!.id });
    assert.equal(sent.delivered, true, sent.error);
    const alert = await mailTo(smtp, 'oncall@example.test', /./);
    assert.equal(alert.envelopeFrom, 'status@example.test', 'the stored From is the sender of channels without their own');
  });

  test('a wrong port gives delivered false and the cause in words, naming the server', async () => {
    const closed = await startSmtpReceiver();
    const port = closed.port;
    await closed.close();
    await writer.settings.updateEmailSettings({ host: '127.0.0.1', port, security: EmailSecurity.NONE, from: 'status@example.test' });
    const answer = await writer.settings.sendTestEmail({ to: 'me@example.test' });
    assert.equal(answer.delivered, false);
    assert.match(answer.answer, new RegExp(`^SMTP 127\\.0\\.0\\.1:${port} connection refused$`));
    // Back to the receiver, for the other tests of this file.
    await writer.settings.updateEmailSettings({ host: '127.0.0.1', port: smtp.port, security: EmailSecurity.NONE, from: 'status@example.test' });
  });

  test('each change is audited in the caller’s workspace without the password; an unchanged save records nothing', async () => {
    const workspace = await newWorkspace(svc, 'mail-audit');
    const own = clientOf(svc, (await svc.createKey('write', workspace.slug)).secret);
    const entries = () =>
      queryRows<{ action: string; before: string | null; after: string; changed_fields: string }>(
        svc.dataDir,
        "select action, before, after, changed_fields from audit_log where workspace_id = ? and entity_type = 'email_settings' order by id",
        Number(workspace.id),
      );
    const settings = { host: '127.0.0.1', port: smtp.port, security: EmailSecurity.NONE, username: 'audited', from: 'audit@example.test' };
    await own.settings.updateEmailSettings({ ...settings, password: PASSWORD });
    await own.settings.updateEmailSettings(settings);
    await own.settings.updateEmailSettings({ ...settings, password: `${PASSWORD}-2` });
    const log = await entries();
    assert.equal(log.length, 2, 'the save that changed nothing wrote no entry');
    assert.ok(
      log.every((entry) => !JSON.stringify(entry).includes(PASSWORD)),
      'no entry holds the password',
    );
    const last = log.at(-1)!;
    assert.deepEqual(JSON.parse(last.changed_fields), ['password']);
    assert.equal(JSON.parse(last.after).password, 'replaced');
    assert.equal(JSON.parse(last.after).username, 'audited');
    // The password is still sealed after a replace.
    assert.ok(!databaseBytes(svc.dataDir).includes(`${PASSWORD}-2`));
    await own.settings.updateEmailSettings({ host: '127.0.0.1', port: smtp.port, security: EmailSecurity.NONE, from: 'status@example.test', password: '' });
  });

  test('bad input is refused naming the field and the rule; a read-only key changes nothing', async () => {
    await writer.settings.updateEmailSettings({ host: '127.0.0.1', port: smtp.port, security: EmailSecurity.NONE, from: 'status@example.test' });
    const good = { host: 'smtp.example.test', port: 587, security: EmailSecurity.STARTTLS, from: 'status@example.test' };
    await assertViolation(writer.settings.updateEmailSettings({ ...good, port: 70000 }), 'port', /whole number from 1 to 65535/);
    await assertViolation(writer.settings.updateEmailSettings({ ...good, port: 0 }), 'port', /1 to 65535/);
    await assertViolation(writer.settings.updateEmailSettings({ ...good, from: 'not an address' }), 'from', /email address/);
    await assertViolation(writer.settings.updateEmailSettings({ ...good, from: '' }), 'from', /required/);
    await assertViolation(writer.settings.updateEmailSettings({ ...good, host: 'smtp://smtp.example.test' }), 'host', /host name or IP address/);
    await assertViolation(writer.settings.updateEmailSettings({ ...good, host: '' }), 'host', /required/);
    await assertViolation(writer.settings.updateEmailSettings({ ...good, security: EmailSecurity.UNSPECIFIED }), 'security', /none, starttls, tls/);
    await assertViolation(writer.settings.sendTestEmail({ to: 'nobody' }), 'to', /email address/);
    // The destination policy: the service's own ports and metadata addresses are refused, as for every connection.
    const ownPort = Number(new URL(svc.apiUrl).port);
    await assertViolation(
      writer.settings.updateEmailSettings({ ...good, host: '127.0.0.1', port: ownPort }),
      'host',
      /own port|STATUSDESK_ALLOWED_DESTINATIONS/,
    );
    await assertViolation(writer.settings.updateEmailSettings({ ...good, host: '169.254.169.254', port: 25 }), 'host', /metadata/);
    await assertCode(reader.settings.updateEmailSettings(good), Code.PermissionDenied);
    assert.equal((await writer.settings.getEmailSettings({})).stored?.host, '127.0.0.1', 'nothing refused was stored');
  });
});

describe('statusdesk settings email', () => {
  test('set saves and shows the settings without the password, test prints the server’s answer, and a bad port names its flag', async () => {
    const smtp = await startSmtpReceiver();
    const svc = await startTestService();
    try {
      const env = { SERVICE_API_KEY: (await svc.createKey('write')).secret, SERVICE_API_URL: `${svc.apiUrl}/rpc`, STATUSDESK_DATA_DIR: undefined };
      const cli = (args: string[]) => runCli(['settings', 'email', ...args], env);
      const set = await cli([
        'set',
        '--host',
        '127.0.0.1',
        '--port',
        String(smtp.port),
        '--security',
        'none',
        '--from',
        'cli@example.test',
        '--username',
        'cli-user',
        '--password',
        PASSWORD,
        '--json',
      ]);
      assert.equal(set.code, 0, set.stderr);
      const saved = JSON.parse(set.stdout);
      assert.deepEqual(saved.stored && [saved.available, saved.stored.host, saved.stored.port, saved.stored.security, saved.stored.passwordSet], [
        true,
        '127.0.0.1',
        smtp.port,
        'none',
        true,
      ]);
      const shown = await cli(['show']);
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, /password\s+set \(never shown\)/);
      assert.ok(!shown.stdout.includes(PASSWORD) && !set.stdout.includes(PASSWORD));

      const sent = await cli(['test', '--to', 'cli-test@example.test']);
      assert.equal(sent.code, 0, sent.stderr);
      assert.match(sent.stdout, /^delivered: the mail server answered 250\b/);
      await mailTo(smtp, 'cli-test@example.test', /Statusdesk test message/);

      const bad = await cli(['set', '--host', '127.0.0.1', '--port', '70000', '--security', 'none', '--from', 'cli@example.test']);
      assert.equal(bad.code, 2, 'refused input is a usage error');
      assert.match(bad.stderr, /--port.*1 to 65535/);
    } finally {
      await svc.stop();
      await smtp.close();
    }
  });
});

describe('a service without email settings', () => {
  test('says email is not available before anyone types, refuses a test send and an email subscriber, and the public page offers no form until it is', async () => {
    const smtp = await startSmtpReceiver();
    const svc = await startTestService();
    try {
      const writer = clientOf(svc, (await svc.createKey('write')).secret);
      const shown = await writer.settings.getEmailSettings({});
      assert.deepEqual([shown.stored, shown.available, shown.smtpUrlFromEnvironment], [undefined, false, false]);
      assert.equal(await sessionSaysEmail(svc, await dashboardSession(svc)), false);
      await assertCode(writer.settings.sendTestEmail({ to: 'ops@example.test' }), Code.FailedPrecondition, /no mail server is set up/);
      const page = (await writer.pages.createStatusPage({ slug: 'unmailed', title: 'Unmailed' })).statusPage!;
      await assertCode(
        writer.pages.addSubscriber({ pageId: page.id, target: { case: 'email', value: 'ops@example.test' } }),
        Code.FailedPrecondition,
        /Settings, General, Email/,
      );
      const form = async () => /name="email"/.test(await (await svc.api('/status/unmailed')).text());
      assert.equal(await form(), false, 'the public page offers no email form');

      // Saved settings make the page subscribable at once: what it showed before is not kept.
      await writer.settings.updateEmailSettings({ host: '127.0.0.1', port: smtp.port, security: EmailSecurity.NONE, from: 'status@example.test' });
      assert.equal(await form(), true);
    } finally {
      await svc.stop();
      await smtp.close();
    }
  });
});

describe('email settings beside the environment', () => {
  test('STATUSDESK_SMTP_URL and STATUSDESK_MAIL_FROM win over stored settings, which cannot be changed while they are set', async () => {
    const stored = await startSmtpReceiver();
    const fromEnvironment = await startSmtpReceiver();
    const data = await tempDir();
    try {
      const first = await startTestService({}, data.path);
      try {
        const writer = clientOf(first, (await first.createKey('write')).secret);
        await writer.settings.updateEmailSettings({ host: '127.0.0.1', port: stored.port, security: EmailSecurity.NONE, from: 'stored@example.test' });
      } finally {
        await first.stop();
      }

      const second = await startTestService({ STATUSDESK_SMTP_URL: fromEnvironment.url, STATUSDESK_MAIL_FROM: 'env@example.test' }, data.path);
      try {
        const writer = clientOf(second, (await second.createKey('write')).secret);
        const shown = await writer.settings.getEmailSettings({});
        assert.deepEqual([shown.available, shown.smtpUrlFromEnvironment, shown.mailFromFromEnvironment], [true, true, true]);
        assert.equal(shown.stored?.from, 'stored@example.test', 'the stored settings are kept, and shown');
        await assertCode(
          writer.settings.updateEmailSettings({ host: '127.0.0.1', port: stored.port, security: EmailSecurity.NONE, from: 'x@example.test' }),
          Code.FailedPrecondition,
          /set by the environment \(STATUSDESK_SMTP_URL\)/,
        );
        const sent = await writer.settings.sendTestEmail({ to: 'me@example.test' });
        assert.equal(sent.delivered, true, sent.answer);
        const mail = await mailTo(fromEnvironment, 'me@example.test', /Statusdesk test message/);
        assert.equal(mail.envelopeFrom, 'env@example.test');
        assert.equal(stored.mails.length, 0, 'nothing went through the stored server');
      } finally {
        await second.stop();
      }
    } finally {
      await data.remove();
      await stored.close();
      await fromEnvironment.close();
    }
  });
});
