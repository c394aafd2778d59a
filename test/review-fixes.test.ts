/**
 * Regression tests for the review fixes of channels, subscribers, public pages and maintenance
 * windows: each would fail with its fix reverted. The real service (real SQLite in a temporary
 * data folder) delivers to real loopback receivers (test/support/receivers.ts); nothing leaves
 * 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { DATABASE_FILE } from '../server/db/open.ts';
import { SIGNATURE_HEADER } from '../server/delivery/http-post.ts';
import type { Actor } from '../server/domain/actor.ts';
import { KEY_FILE } from '../server/domain/sealing.ts';
import type { Services } from '../server/services.ts';
import { AppError } from '../server/errors.ts';
import { startTestService, tempDir, type TestService, rejectsWith } from './support/harness.ts';
import { type HttpReceiver, type ReceivedMail, type SmtpReceiver, startHttpReceiver, startSmtpReceiver, verifySignature } from './support/receivers.ts';

const system: Actor = { type: 'system', surface: 'cli' };

// ---- helpers -----------------------------------------------------------------------------------


function readRows<T = Record<string, unknown>>(dataDir: string, sql: string, ...params: unknown[]): T[] {
  const db = new SQLite(join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** The first mail to `address` whose subject matches, waiting a bounded time for it. */
async function mailTo(smtp: SmtpReceiver, address: string, subject: RegExp, timeoutMs = 5_000): Promise<ReceivedMail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = smtp.mails.find((m) => m.envelopeTo.includes(address) && subject.test(m.subject));
    if (found) return found;
    if (Date.now() > deadline) assert.fail(`no mail to ${address} with subject ${subject} within ${timeoutMs} ms; got: ${JSON.stringify(smtp.mails.map((m) => [m.envelopeTo, m.subject]))}`);
    await sleep(20);
  }
}

/** The first `{page url}/{path}?...` link in a mail's text. */
function linkIn(mail: ReceivedMail, path: 'confirm' | 'unsubscribe'): string {
  const match = new RegExp(`https?://\\S+/${path}\\?\\S+`).exec(mail.text);
  assert.ok(match, `no ${path} link in:\n${mail.text}`);
  return match[0];
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

/** Everything a client sees of a channel, sent back unchanged (as an edit form would), with `changes`. */
function echo(channel: { name: string; kind: string; monitorIds: string[]; config: Record<string, unknown> }, changes: Record<string, unknown>) {
  return { name: channel.name, kind: channel.kind, monitorIds: channel.monitorIds, config: channel.config, ...changes };
}

// ---- the service ---------------------------------------------------------------------------------

let svc: TestService;
let services: Services;
let ws: number;
let smtp: SmtpReceiver;
let hook: HttpReceiver;

before(async () => {
  smtp = await startSmtpReceiver({ refuseAddresses: ['refused@example.test', 'refused-api@example.test'] });
  hook = await startHttpReceiver();
  svc = await startTestService({ STATUSDESK_SMTP_URL: smtp.url, STATUSDESK_MAIL_FROM: 'Status <status@acme.test>' });
  services = svc.services;
  ws = Number((await services.workspaces.getBySlug(system, 'personal')).id);
});

after(async () => {
  await svc?.stop();
  await smtp?.close();
  await hook?.close();
});

// ---- 1. masked values sent back keep the real credentials --------------------------------------

describe('channel updated with its masked config sent back', () => {
  test('slack: the webhook URL is kept; a test send reaches the real path', async () => {
    const created = await services.channels.create(system, ws, { name: 'slack echo', kind: 'slack', config: { webhookUrl: `${hook.url}/services/T/B/SECRET` } });
    const shown = await services.channels.get(system, ws, created.id);
    assert.deepEqual(shown.config, { webhookUrl: `${hook.url}/…` });
    const updated = await services.channels.update(system, ws, created.id, echo(shown, { name: 'slack echo renamed' }));
    assert.equal(updated.name, 'slack echo renamed');
    assert.deepEqual(updated.config, shown.config);
    const start = hook.requests.length;
    assert.deepEqual(await services.channels.test(system, ws, created.id), { delivered: true, error: null });
    const [request] = (await hook.waitFor(start + 1)).slice(start);
    assert.equal(request!.path, '/services/T/B/SECRET', 'the mask replaced the stored webhook URL');
  });

  test('email: the smtpUrl with user and password is kept; the test mail logs in with them', async () => {
    const relay = await startSmtpReceiver();
    try {
      const config = { to: ['oncall@example.test'], smtpUrl: `smtp://echouser:ECHO-PASSWORD@127.0.0.1:${relay.port}` };
      const created = await services.channels.create(system, ws, { name: 'mail echo', kind: 'email', config });
      const shown = await services.channels.get(system, ws, created.id);
      assert.deepEqual(shown.config, { to: ['oncall@example.test'], smtpUrl: `smtp://127.0.0.1:${relay.port}/…` });
      await services.channels.update(system, ws, created.id, echo(shown, { name: 'mail echo renamed' }));
      assert.deepEqual(await services.channels.test(system, ws, created.id), { delivered: true, error: null });
      const [mail] = await relay.waitFor(1);
      assert.deepEqual(mail!.envelopeTo, ['oncall@example.test']);
      assert.deepEqual(relay.logins, ['echouser'], 'the test mail did not log in with the stored credentials');
    } finally {
      await relay.close();
    }
  });

  test('webhook: url, secret and headers are kept; the test send is signed with the real secret', async () => {
    const secret = 'echo-signing-secret-0123456789';
    const created = await services.channels.create(system, ws, {
      name: 'hook echo',
      kind: 'webhook',
      config: { url: `${hook.url}/alerts/ECHO-PATH`, secret, headers: { authorization: 'Bearer ECHO-HEADER' } },
    });
    const shown = await services.channels.get(system, ws, created.id);
    assert.deepEqual(shown.config, { url: `${hook.url}/…`, secret: '••••••••', headers: { authorization: '••••••••' } });
    await services.channels.update(system, ws, created.id, echo(shown, { name: 'hook echo renamed' }));
    const start = hook.requests.length;
    assert.deepEqual(await services.channels.test(system, ws, created.id), { delivered: true, error: null });
    const [request] = (await hook.waitFor(start + 1)).slice(start);
    assert.equal(request!.path, '/alerts/ECHO-PATH');
    assert.equal(request!.headers.authorization, 'Bearer ECHO-HEADER');
    assert.ok(verifySignature(secret, request!.headers[SIGNATURE_HEADER] ?? '', request!.body), 'the mask replaced the signing secret');
  });

  test('the audit log says credentials changed only when they did', async () => {
    const created = await services.channels.create(system, ws, { name: 'audited', kind: 'slack', config: { webhookUrl: `${hook.url}/services/T/B/AUDITED` } });
    const entries = () =>
      readRows<{ action: string; changed_fields: string }>(svc.dataDir, "select action, changed_fields from audit_log where entity_type = 'notification_channel' and entity_id = ? order by id", created.id).map(
        (r) => [r.action, JSON.parse(r.changed_fields) as string[]],
      );
    await services.channels.update(system, ws, created.id, { name: 'audited renamed' });
    const shown = await services.channels.get(system, ws, created.id);
    // Sent back exactly as shown: nothing changed, so no entry.
    await services.channels.update(system, ws, created.id, echo(shown, {}));
    await services.channels.update(system, ws, created.id, { config: { webhookUrl: `${hook.url}/services/T/B/ROTATED` } });
    const logged = entries();
    assert.deepEqual(
      logged.slice(1),
      [
        ['notification_channel.update', ['name']],
        ['notification_channel.update', ['credentialsFingerprint']],
      ],
      `audit entries: ${JSON.stringify(logged)}`,
    );
  });
});

// ---- 2. unreadable credentials ---------------------------------------------------------------------

describe('channel credentials that cannot be read (the key file was replaced)', () => {
  test('list and get show them as unreadable; test fails naming secret.key; new credentials fix it; delete works', async () => {
    const dir = await tempDir();
    let first: TestService | undefined;
    let second: TestService | undefined;
    try {
      first = await startTestService({}, dir.path);
      const s1 = first.services;
      const ws1 = Number((await s1.workspaces.getBySlug(system, 'personal')).id);
      const monitor = await s1.monitors.create(system, ws1, 'tcp', { name: 'db', uri: 'db.internal:5432', periodicity: '1m' });
      const channel = await s1.channels.create(system, ws1, {
        name: 'locked out',
        kind: 'webhook',
        monitorIds: [monitor.id],
        config: { url: `${hook.url}/old/LOCKED-PATH`, secret: 'old-signing-secret-0123456789', headers: { authorization: 'Bearer LOCKED' } },
      });
      await first.stop();
      first = undefined;

      writeFileSync(join(dir.path, KEY_FILE), randomBytes(32).toString('base64'));
      second = await startTestService({}, dir.path);
      const s = second.services;
      const wsId = Number((await s.workspaces.getBySlug(system, 'personal')).id);
      const unreadable = { url: '(unreadable: set again)', secret: '(unreadable: set again)', headers: '(unreadable: set again)' };

      const listed = await s.channels.list(system, wsId);
      const inList = listed.channels.find((c) => c.id === channel.id);
      assert.ok(inList, 'the channel is not listed');
      assert.deepEqual([inList.name, inList.kind, inList.monitorIds, inList.config], ['locked out', 'webhook', [monitor.id], unreadable]);
      assert.deepEqual((await s.channels.get(system, wsId, channel.id)).config, unreadable);

      const start = hook.requests.length;
      const failed = await s.channels.test(system, wsId, channel.id);
      assert.equal(failed.delivered, false);
      assert.match(failed.error ?? '', /secret\.key/);
      // The alert path gets the failure for this channel only; a channel made with the new key is deliverable.
      const fresh = await s.channels.create(system, wsId, { name: 'fresh', kind: 'desktop', monitorIds: [monitor.id] });
      const targets = await s.channels.targetsOf(Number(monitor.id));
      assert.deepEqual(
        targets.map((t) => [String(t.id), t.target instanceof Error]),
        [
          [channel.id, true],
          [fresh.id, false],
        ],
      );
      assert.match((targets[0]!.target as Error).message, /secret\.key/);

      // New credentials make it deliverable again.
      const newSecret = 'new-signing-secret-0123456789';
      const updated = await s.channels.update(system, wsId, channel.id, { config: { url: `${hook.url}/new/FIXED-PATH`, secret: newSecret, headers: { authorization: 'Bearer NEW' } } });
      assert.deepEqual(updated.config, { url: `${hook.url}/…`, secret: '••••••••', headers: { authorization: '••••••••' } });
      assert.deepEqual(updated.monitorIds, [monitor.id]);
      assert.deepEqual(await s.channels.test(system, wsId, channel.id), { delivered: true, error: null });
      const [request] = (await hook.waitFor(start + 1)).slice(start);
      assert.equal(request!.path, '/new/FIXED-PATH');
      assert.ok(verifySignature(newSecret, request!.headers[SIGNATURE_HEADER] ?? '', request!.body));
      assert.equal(request!.headers.authorization, 'Bearer NEW');
      assert.equal(hook.requests.length, start + 1, 'the unreadable channel sent something');

      await s.channels.delete(system, wsId, channel.id);
      await rejectsWith(s.channels.get(system, wsId, channel.id), 'NOT_FOUND');
    } finally {
      await first?.stop();
      await second?.stop();
      await dir.remove();
    }
  });

  test('an update that gives no credentials does not silently drop unreadable ones', async () => {
    // An email channel's smtpUrl is optional: without it the service's own relay is used. A
    // rename must not turn "unreadable" into "none", which sends the channel's mail elsewhere.
    const dir = await tempDir();
    const ownRelay = await startSmtpReceiver();
    let first: TestService | undefined;
    let second: TestService | undefined;
    try {
      first = await startTestService({ STATUSDESK_SMTP_URL: smtp.url }, dir.path);
      const ws1 = Number((await first.services.workspaces.getBySlug(system, 'personal')).id);
      const to = 'unreadable-oncall@example.test';
      const channel = await first.services.channels.create(system, ws1, { name: 'own relay', kind: 'email', config: { to: [to], smtpUrl: `smtp://relayuser:RELAY-PASSWORD@127.0.0.1:${ownRelay.port}` } });
      await first.stop();
      first = undefined;
      writeFileSync(join(dir.path, KEY_FILE), randomBytes(32).toString('base64'));
      second = await startTestService({ STATUSDESK_SMTP_URL: smtp.url }, dir.path);
      const s = second.services;
      const wsId = Number((await s.workspaces.getBySlug(system, 'personal')).id);
      assert.deepEqual((await s.channels.get(system, wsId, channel.id)).config, { to: [to], smtpUrl: '(unreadable: set again)' });

      let renamed: Awaited<ReturnType<typeof s.channels.update>> | undefined;
      try {
        renamed = await s.channels.update(system, wsId, channel.id, { name: 'own relay renamed' });
      } catch (error) {
        // Refusing the change until the credentials are given again is fine too.
        assert.ok(error instanceof AppError && error.code !== 'INTERNAL', String(error));
      }
      if (renamed) assert.equal(renamed.config.smtpUrl, '(unreadable: set again)', `a rename dropped the unreadable smtpUrl: ${JSON.stringify(renamed.config)}`);
      const result = await s.channels.test(system, wsId, channel.id);
      await sleep(200);
      assert.ok(!smtp.mails.some((m) => m.envelopeTo.includes(to)), `the channel's mail went through the service's relay instead (test: ${JSON.stringify(result)})`);
      assert.equal(result.delivered, false);
    } finally {
      await first?.stop();
      await second?.stop();
      await ownRelay.close();
      await dir.remove();
    }
  });
});

// ---- 3. masks --------------------------------------------------------------------------------------

describe('masks', () => {
  test('a webhook URL keeps only the last two host labels; the subdomain appears in no answer', async () => {
    const monitor = await services.monitors.create(system, ws, 'tcp', { name: 'masked db', uri: 'db.internal:5432', periodicity: '1m' });
    const answers: unknown[] = [];
    const created = await services.channels.create(system, ws, {
      name: 'subdomain hook',
      kind: 'webhook',
      monitorIds: [monitor.id],
      config: { url: 'https://abcsecret.m.example.test/hook', secret: 'mask-signing-secret-0123456789' },
    });
    answers.push(created);
    assert.deepEqual(created.config, { url: 'https://…example.test/…', secret: '••••••••', headers: {} });
    answers.push(await services.channels.get(system, ws, created.id));
    answers.push(await services.channels.list(system, ws));
    answers.push(await services.channels.update(system, ws, created.id, { name: 'subdomain hook renamed' }));
    answers.push(await services.channels.update(system, ws, created.id, echo(created, { name: 'subdomain hook echoed' })));
    for (const answer of answers) assert.ok(!JSON.stringify(answer).includes('abcsecret'), `an answer holds the subdomain: ${JSON.stringify(answer)}`);
    const audit = readRows(svc.dataDir, "select * from audit_log where entity_type = 'notification_channel' and entity_id = ?", created.id);
    assert.ok(audit.length >= 3, `audit entries: ${audit.length}`);
    assert.ok(!JSON.stringify(audit).includes('abcsecret'), 'the audit log holds the subdomain');

    // A page's webhook subscriber is masked the same way.
    const page = await services.pages.create(system, ws, { slug: 'masked-subscriber', title: 'Masked subscriber' });
    const added = await services.subscribers.add(system, ws, page.id, { webhookUrl: 'https://abcsecret.m.example.test/hook' });
    assert.equal(added.subscriber.address, 'https://…example.test/…');
    assert.ok(!JSON.stringify(await services.subscribers.list(system, ws, page.id)).includes('abcsecret'));
  });

  test('an ntfy topic is a credential: masked in answers, kept on an echo, used by a test send', async () => {
    const topic = 'team-topic-XYZ123';
    const created = await services.channels.create(system, ws, { name: 'ntfy', kind: 'ntfy', config: { server: hook.url, topic, token: 'NTFY-TOKEN' } });
    assert.deepEqual(created.config, { server: hook.url, topic: '••••••••', token: '••••••••' });
    const shown = await services.channels.get(system, ws, created.id);
    const listed = await services.channels.list(system, ws);
    const updated = await services.channels.update(system, ws, created.id, echo(shown, { name: 'ntfy renamed' }));
    for (const answer of [created, shown, listed, updated]) assert.ok(!JSON.stringify(answer).includes(topic), `an answer holds the topic: ${JSON.stringify(answer)}`);
    const rows = readRows<{ settings: string }>(svc.dataDir, 'select settings from notification_channels where id = ?', Number(created.id));
    assert.ok(!rows[0]!.settings.includes(topic), 'the topic is stored in the clear');

    const start = hook.requests.length;
    assert.deepEqual(await services.channels.test(system, ws, created.id), { delivered: true, error: null });
    const [request] = (await hook.waitFor(start + 1)).slice(start);
    assert.equal(JSON.parse(request!.body).topic, topic);
    assert.equal(request!.headers.authorization, 'Bearer NTFY-TOKEN');
  });
});

// ---- 4-7. subscribers --------------------------------------------------------------------------------

describe('subscribers', () => {
  test('confirm and unsubscribe links mailed before a slug change still work after it', async () => {
    const page = await services.pages.create(system, ws, { slug: 'before-move', title: 'Moving page' });
    const early = 'early@example.test';
    const late = 'late@example.test';

    // One subscriber confirmed and mailed an update while the page had its first slug.
    await services.subscribers.add(system, ws, page.id, { email: early });
    const confirmEarly = linkIn(await mailTo(smtp, early, /Confirm your subscription/), 'confirm');
    assert.ok(confirmEarly.includes('/status/before-move/confirm?'), confirmEarly);
    assert.equal((await fetch(confirmEarly, { method: 'POST' })).status, 200);
    await services.reports.create(system, ws, { pageId: page.id, title: 'Before the move', message: 'Old slug.', notify: true });
    const oldUnsubscribe = linkIn(await mailTo(smtp, early, /Before the move/), 'unsubscribe');
    assert.ok(oldUnsubscribe.includes('/status/before-move/unsubscribe?'), oldUnsubscribe);
    // Another only asked, and confirms after the move with the link naming the old slug.
    await services.subscribers.add(system, ws, page.id, { email: late });
    const confirmLate = linkIn(await mailTo(smtp, late, /Confirm your subscription/), 'confirm');

    await services.pages.update(system, ws, page.id, { slug: 'after-move' });

    assert.equal((await fetch(confirmLate)).status, 200, 'an old-slug confirm link no longer opens');
    const confirmed = await fetch(confirmLate, { method: 'POST' });
    assert.equal(confirmed.status, 200, 'an old-slug confirm link no longer confirms');
    assert.match(await confirmed.text(), /Subscription confirmed/);

    const { notified } = await services.reports.create(system, ws, { pageId: page.id, title: 'After the move', message: 'New slug.', notify: true });
    assert.equal(notified, true);
    const newMail = await mailTo(smtp, early, /After the move/);
    await mailTo(smtp, late, /After the move/);
    const newUnsubscribe = linkIn(newMail, 'unsubscribe');
    assert.ok(newUnsubscribe.includes('/status/after-move/unsubscribe?'), newUnsubscribe);

    // The link of the mail sent before the move names the old slug.
    assert.equal((await fetch(oldUnsubscribe)).status, 200, 'an old-slug unsubscribe link no longer opens');
    const gone = await fetch(oldUnsubscribe, { method: 'POST' });
    assert.equal(gone.status, 200, 'an old-slug unsubscribe link no longer unsubscribes');
    assert.match(await gone.text(), /Unsubscribed/);
    assert.deepEqual((await services.subscribers.list(system, ws, page.id)).map((s) => [s.address, s.status]), [[late, 'active']]);
    // And the one of the mail sent after it, naming the new slug, works as well.
    const lateUnsubscribe = linkIn(await mailTo(smtp, late, /After the move/), 'unsubscribe');
    assert.equal((await fetch(lateUnsubscribe, { method: 'POST' })).status, 200);
    assert.deepEqual(await services.subscribers.list(system, ws, page.id), []);
  });

  test('the public form never shows the mail relay\'s answer; the API does', async () => {
    const page = await services.pages.create(system, ws, { slug: 'relay-refuses', title: 'Relay refuses' });
    const answer = await svc.api('/status/relay-refuses/subscribe', form({ email: 'refused@example.test' }));
    assert.equal(answer.status, 409);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
    const html = await answer.text();
    assert.match(html, /could not be sent/);
    assert.ok(!html.includes(String(smtp.port)), `the page shows the relay's port ${smtp.port}`);
    assert.ok(!html.includes('550'), 'the page shows the relay\'s answer (550)');
    assert.ok(!/mailbox unavailable/i.test(html), 'the page shows the relay\'s answer');

    // The public call itself, as other surfaces would use it.
    const publicError = await rejectsWith(services.subscribers.subscribePublic('relay-refuses', 'refused@example.test'), 'PRECONDITION_FAILED');
    assert.ok(!publicError.message.includes('550') && !publicError.message.includes(String(smtp.port)), publicError.message);

    const apiError = await rejectsWith(services.subscribers.add(system, ws, page.id, { email: 'refused-api@example.test' }), 'PRECONDITION_FAILED');
    assert.match(apiError.message, /550/, 'the API no longer tells the owner how the relay answered');
  });

  test('two concurrent public sign-ups of one address both succeed and make one subscriber', async () => {
    const page = await services.pages.create(system, ws, { slug: 'double-signup', title: 'Double signup' });
    for (let round = 0; round < 3; round++) {
      const address = `twice${round}@example.test`;
      const results = await Promise.allSettled([services.subscribers.subscribePublic('double-signup', address), services.subscribers.subscribePublic('double-signup', address)]);
      assert.deepEqual(
        results.map((r) => (r.status === 'fulfilled' ? 'ok' : `${(r.reason as AppError).code}: ${(r.reason as Error).message}`)),
        ['ok', 'ok'],
      );
      const listed = await services.subscribers.list(system, ws, page.id);
      const rows = listed.filter((subscriber) => subscriber.address === address);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.status, 'pending');
      await mailTo(smtp, address, /Confirm your subscription/);
    }
    // And over HTTP.
    const address = 'twice-http@example.test';
    const answers = await Promise.all([1, 2].map(() => svc.api('/status/double-signup/subscribe', form({ email: address }))));
    assert.deepEqual(answers.map((a) => a.status), [200, 200]);
    assert.equal((await services.subscribers.list(system, ws, page.id)).filter((s) => s.address === address).length, 1);
    await mailTo(smtp, address, /Confirm your subscription/);
  });

  test('a malformed multipart sign-up is a 400 page, not a 500', async () => {
    await services.pages.create(system, ws, { slug: 'bad-form', title: 'Bad form' });
    for (const body of ['garbage', '--x\r\nnot a header line\r\n\r\nvalue', '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\nno-closing-boundary']) {
      const answer = await svc.api('/status/bad-form/subscribe', { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body });
      assert.equal(answer.status, 400, `body ${JSON.stringify(body)}: ${answer.status}`);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await answer.text(), /email/);
    }
  });
});

// ---- 8. maintenance instants -------------------------------------------------------------------------

describe('maintenance instants', () => {
  test('an instant past 9999-12-31T23:59:59.999Z is refused; offsets are compared as moments', async () => {
    const page = await services.pages.create(system, ws, { slug: 'far-future', title: 'Far future' });
    // 10000-01-01T04:00Z in UTC: its ISO form (+010000-...) sorts before every four-digit year.
    await rejectsWith(
      services.maintenances.create(system, ws, { pageId: page.id, title: 'Y10K', from: '9999-12-31T23:00:00-05:00', to: '9999-12-31T23:30:00Z', notify: false }),
      'VALIDATION',
      'from',
    );
    await rejectsWith(
      services.maintenances.create(system, ws, { pageId: page.id, title: 'Y10K', from: '2026-11-21T10:00:00Z', to: '9999-12-31T23:00:00-05:00', notify: false }),
      'VALIDATION',
      'to',
    );
    // The last instant itself is fine.
    const last = await services.maintenances.create(system, ws, { pageId: page.id, title: 'Last', from: '9999-12-31T23:00:00Z', to: '9999-12-31T23:59:59.999Z', notify: false });
    assert.equal(last.maintenance.to, '9999-12-31T23:59:59.999Z');
    await rejectsWith(services.maintenances.update(system, ws, last.maintenance.id, { to: '9999-12-31T23:00:00-05:00' }), 'VALIDATION', 'to');

    // 08:00Z to 09:30Z, though "10:00" > "09:30" as text.
    const { maintenance } = await services.maintenances.create(system, ws, {
      pageId: page.id,
      title: 'Offsets',
      from: '2026-11-21T10:00:00+02:00',
      to: '2026-11-21T09:30:00Z',
      notify: false,
    });
    assert.deepEqual([maintenance.from, maintenance.to], ['2026-11-21T08:00:00.000Z', '2026-11-21T09:30:00.000Z']);
    // And the other way round: 10:00Z to 09:30-01:00 (10:30Z) is a window; 10:00Z to 10:30+02:00 (08:30Z) is not.
    const updated = await services.maintenances.update(system, ws, maintenance.id, { from: '2026-11-21T10:00:00Z', to: '2026-11-21T09:30:00-01:00' });
    assert.deepEqual([updated.from, updated.to], ['2026-11-21T10:00:00.000Z', '2026-11-21T10:30:00.000Z']);
    await rejectsWith(services.maintenances.update(system, ws, maintenance.id, { to: '2026-11-21T10:30:00+02:00' }), 'VALIDATION', 'to');

    // A window stored before years past 9999 were refused starts at +010000-...: the order is
    // still checked by moment, not by text ("9999-..." sorts after "+010000-...").
    const db = new SQLite(join(svc.dataDir, DATABASE_FILE));
    let legacyId: number;
    try {
      const now = new Date().toISOString();
      legacyId = Number(
        db
          .prepare('insert into maintenances (workspace_id, page_id, title, message, starts_at, ends_at, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)')
          .run(ws, Number(page.id), 'Legacy', '', '+010000-01-01T04:00:00.000Z', '+010000-01-01T05:00:00.000Z', now, now).lastInsertRowid,
      );
    } finally {
      db.close();
    }
    await rejectsWith(services.maintenances.update(system, ws, String(legacyId), { to: '9999-12-31T23:30:00Z' }), 'VALIDATION', 'to');
  });
});

// ---- 9. one build per view ---------------------------------------------------------------------------

describe('public page views', () => {
  test('parallel views after an invalidation share one build', async () => {
    await services.pages.create(system, ws, { slug: 'busy', title: 'Busy' });
    for (const invalidate of [() => services.publicPages.invalidate(), () => services.publicPages.invalidate(Number.MAX_SAFE_INTEGER)]) {
      invalidate();
      const views = await Promise.all(Array.from({ length: 20 }, () => services.publicPages.view('busy')));
      assert.equal(new Set(views).size, 1, 'the page was built more than once');
      assert.equal(views[0]!.title, 'Busy');
      // And the built view is kept.
      assert.equal(await services.publicPages.view('busy'), views[0]);
    }
    // An unknown slug: every caller gets NOT_FOUND, and nothing is kept.
    const missing = await Promise.allSettled(Array.from({ length: 5 }, () => services.publicPages.view('no-such-busy')));
    assert.ok(missing.every((r) => r.status === 'rejected' && r.reason instanceof AppError && r.reason.code === 'NOT_FOUND'));
    await services.pages.create(system, ws, { slug: 'no-such-busy', title: 'Exists now' });
    assert.equal((await services.publicPages.view('no-such-busy')).title, 'Exists now');
  });

  test('a title change committed while a view is being built shows in the next view', async () => {
    const page = await services.pages.create(system, ws, { slug: 'retitled', title: 'Title 0' });
    let inFlight = 0;
    const stale: string[] = [];
    // The change may commit at any point of the build: each offset (in microtask turns) lands it elsewhere.
    for (let turns = 0; turns <= 40; turns++) {
      services.publicPages.invalidate(Number(page.id));
      const building = services.publicPages.view('retitled');
      let built = false;
      void building.then(() => (built = true));
      for (let i = 0; i < turns; i++) await Promise.resolve();
      const title = `Title ${turns + 1}`;
      await services.pages.update(system, ws, page.id, { title });
      if (!built) inFlight++;
      // Not waiting for the first build: the next view must not be it, if it started before the change.
      const next = await services.publicPages.view('retitled');
      if (next.title !== title) stale.push(`after ${turns} turns: ${next.title} instead of ${title} (first build ${built ? 'done' : 'in flight'})`);
      await building;
    }
    assert.deepEqual(stale, [], 'a view built before the change was served after it');
    assert.ok(inFlight > 0, 'no change committed while a view was being built: the race was not exercised');
    // Over HTTP as well.
    const html = await (await svc.api('/status/retitled')).text();
    assert.match(html, /Title 41/);
  });
});
