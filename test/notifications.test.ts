/**
 * Notifications delivered for real: page subscribers (email with double opt-in and one-click
 * unsubscribe, signed webhooks), notification channels of every kind, and monitor alerts from
 * real checks, all through a running service (real SQLite) to loopback receivers
 * (test/support/receivers.ts) and loopback TCP listeners. Nothing leaves 127.0.0.1. A publishing
 * call returns once its dispatch is over, so what it sent has arrived by then and nothing more
 * will; alerts, which the check engine starts, are awaited the same way.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import pino from 'pino';
import { DATABASE_FILE } from '../server/db/open.ts';
import { onPostgres, openTestDatabase, queryRows } from './support/database.ts';
import { EVENT_HEADER, SIGNATURE_HEADER } from '../server/delivery/http-post.ts';
import type { Actor } from '../server/domain/actor.ts';
import { createAlertService } from '../server/domain/notifications/alerts.ts';
import type { AlertEvent } from '../server/domain/notifications/events.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { createServices, type Services } from '../server/services.ts';
import { AppError } from '../server/errors.ts';
import { startTcpListener, type TcpListener } from './support/grpc-peers.ts';
import { formPost, minutesFromNow, rejectsWith, startTestService, tempDir, type TestService } from './support/harness.ts';
import { type HttpReceiver, linkIn, type SmtpReceiver, startHttpReceiver, startSmtpReceiver, verifySignature } from './support/receivers.ts';
import { eventually } from './support/wait.ts';

const system: Actor = { type: 'system', surface: 'cli' };
const owner: Actor = { type: 'user', userId: 1, surface: 'cli' };

// ---- helpers -----------------------------------------------------------------------------------

/** The raw bytes of the database and its write-ahead log, as text: what a copy of the files reveals. */
function databaseBytes(dataDir: string): string {
  const file = join(dataDir, DATABASE_FILE);
  let text = readFileSync(file).toString('latin1');
  try {
    text += readFileSync(`${file}-wal`).toString('latin1');
  } catch {
    // no WAL right now
  }
  return text;
}

/** Waits for the `n`-th entry (1-based) of a receiver and returns it. */
async function nth<T>(receiver: { waitFor(count: number, timeoutMs?: number): Promise<T[]> }, n: number): Promise<T> {
  return (await receiver.waitFor(n))[n - 1]!;
}

/** A link with the last character of its token changed. */
function forged(link: string): string {
  const url = new URL(link);
  const token = url.searchParams.get('token')!;
  url.searchParams.set('token', `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`);
  return url.toString();
}

// ---- the service ---------------------------------------------------------------------------------

let svc: TestService;
let services: Services;
let ws: number;
let writer: Actor;
let reader: Actor;
let smtp: SmtpReceiver;

before(async () => {
  smtp = await startSmtpReceiver();
  svc = await startTestService({ STATUSDESK_SMTP_URL: smtp.url, STATUSDESK_MAIL_FROM: 'Acme Status <status@acme.test>' });
  services = svc.services;
  ws = Number((await services.workspaces.getBySlug(system, 'personal')).id);
  const key = async (scope: 'read' | 'write') => {
    const actor = await services.keys.authenticate((await svc.createKey(scope)).secret, 'rpc');
    assert.ok(actor);
    return actor;
  };
  writer = await key('write');
  reader = await key('read');
});

after(async () => {
  await svc?.stop();
  await smtp?.close();
});

/** A confirmed email subscriber of `slug`; returns its update mails' unsubscribe source. */
async function confirmedEmail(slug: string, address: string): Promise<void> {
  const before = smtp.mails.length;
  await services.subscribers.add(writer, ws, slug, { email: address });
  const confirmation = await nth(smtp, before + 1);
  assert.deepEqual(confirmation.envelopeTo, [address.toLowerCase()]);
  assert.equal((await fetch(linkIn(confirmation, 'confirm'), { method: 'POST' })).status, 200);
}

// ---- email subscribers ---------------------------------------------------------------------------

describe('email subscribers', () => {
  test('double opt-in through the public form, update mails with one-click unsubscribe, notify false never sent', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'mail-page', title: 'Mail Page' });
    const start = smtp.mails.length;

    const html = await (await svc.api('/status/mail-page')).text();
    assert.match(html, /action="[^"]*\/status\/mail-page\/subscribe"/, 'the page offers the form');

    const signUp = await svc.api('/status/mail-page/subscribe', formPost({ email: ' Reader@Example.test ' }));
    assert.equal(signUp.status, 200);
    assert.match(await signUp.text(), /Check your inbox/);
    const confirmation = await nth(smtp, start + 1);
    assert.deepEqual(confirmation.envelopeTo, ['reader@example.test']);
    assert.equal(confirmation.envelopeFrom, 'status@acme.test');
    assert.match(confirmation.subject, /Confirm your subscription to Mail Page/);
    const confirmLink = linkIn(confirmation, 'confirm');
    // The link is on the service's public address, by default its API address.
    assert.ok(confirmLink.startsWith(`${svc.apiUrl}/status/mail-page/confirm?`), confirmLink);

    // Asking again soon sends no second mail; the subscriber stays pending.
    assert.equal((await svc.api('/status/mail-page/subscribe', formPost({ email: 'reader@example.test' }))).status, 200);
    const [pending] = await services.subscribers.list(reader, ws, page.id);
    assert.deepEqual([pending!.kind, pending!.address, pending!.status, pending!.confirmedAt], ['email', 'reader@example.test', 'pending', null]);

    // A pending subscriber gets nothing.
    const early = await services.reports.create(writer, ws, {
      pageId: page.id,
      title: 'Before confirming',
      message: 'Not for pending subscribers.',
      notify: true,
    });
    assert.equal(early.notified, true);
    assert.equal(smtp.mails.length, start + 1, 'mail went to a pending subscriber');

    // A forged token confirms nothing.
    const bad = await fetch(forged(confirmLink));
    assert.equal(bad.status, 404);
    assert.match(bad.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal((await services.subscribers.list(reader, ws, page.id))[0]!.status, 'pending');

    // Opening the link only asks (a mail scanner opens links); the button confirms.
    const opened = await fetch(confirmLink);
    assert.equal(opened.status, 200);
    assert.match(await opened.text(), /<form method="post"[^>]*>[\s\S]*Confirm/);
    assert.equal((await services.subscribers.list(reader, ws, page.id))[0]!.status, 'pending', 'opening the link confirmed the subscription');
    const confirmed = await fetch(confirmLink, { method: 'POST' });
    assert.equal(confirmed.status, 200);
    assert.match(await confirmed.text(), /Subscription confirmed/);
    const [active] = await services.subscribers.list(reader, ws, page.id);
    assert.equal(active!.status, 'active');
    assert.ok(active!.confirmedAt);

    const created = await services.reports.create(writer, ws, { pageId: page.id, title: 'Elevated errors', message: 'We are looking into it.', notify: true });
    assert.equal(created.notified, true);
    const update = await nth(smtp, start + 2);
    assert.deepEqual(update.envelopeTo, ['reader@example.test']);
    assert.equal(update.subject, '[Mail Page] Investigating: Elevated errors');
    assert.match(update.text, /We are looking into it\./);
    const unsubscribeLink = linkIn(update, 'unsubscribe');
    assert.ok(unsubscribeLink.startsWith(`${svc.apiUrl}/status/mail-page/unsubscribe?`), unsubscribeLink);
    assert.equal(update.headers['list-unsubscribe'], `<${unsubscribeLink}>`);
    assert.equal(update.headers['list-unsubscribe-post'], 'List-Unsubscribe=One-Click');

    // notify false: nothing, then or later; a later notified update sends only itself.
    const quiet = await services.reports.addUpdate(writer, ws, created.report.id, { status: 'identified', message: 'A quiet update.', notify: false });
    assert.equal(quiet.notified, false);
    assert.equal(smtp.mails.length, start + 2, 'a notify: false update was mailed');
    const loud = await services.reports.addUpdate(writer, ws, created.report.id, { status: 'monitoring', message: 'A fix is deployed.', notify: true });
    assert.equal(loud.notified, true);
    const later = await nth(smtp, start + 3);
    assert.equal(later.subject, '[Mail Page] Monitoring: Elevated errors');
    assert.match(later.text, /A fix is deployed\./);
    assert.ok(!later.text.includes('A quiet update.'), 'the unnotified update was sent later');
    assert.equal(smtp.mails.length, start + 3);

    // GET only asks (mail scanners open links); POST unsubscribes.
    const asked = await fetch(unsubscribeLink);
    assert.equal(asked.status, 200);
    const askedHtml = await asked.text();
    assert.match(askedHtml, /Unsubscribe\?/);
    const action = /<form[^>]*action="([^"]+)"/i.exec(askedHtml)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(action, 'the page has no form');
    assert.match(askedHtml, /<form[^>]*method="post"/i);
    assert.equal(new URL(action, unsubscribeLink).toString(), unsubscribeLink, 'the form posts elsewhere');
    assert.equal((await services.subscribers.list(reader, ws, page.id)).length, 1, 'a GET unsubscribed');
    assert.equal((await fetch(forged(unsubscribeLink), { method: 'POST' })).status, 404);
    assert.equal((await fetch(forged(unsubscribeLink))).status, 404);
    assert.equal((await services.subscribers.list(reader, ws, page.id)).length, 1);

    // A mail client's one-click unsubscribe (RFC 8058).
    const done = await fetch(unsubscribeLink, formPost({ 'List-Unsubscribe': 'One-Click' }));
    assert.equal(done.status, 200);
    assert.match(await done.text(), /Unsubscribed/);
    assert.deepEqual(await services.subscribers.list(reader, ws, page.id), []);
    const again = await fetch(unsubscribeLink, { method: 'POST' });
    assert.equal(again.status, 404);
    assert.match(again.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal((await fetch(confirmLink)).status, 404, 'a confirm link of a removed subscriber still works');

    await services.reports.resolve(writer, ws, created.report.id, { message: 'Resolved.', notify: true });
    assert.equal(smtp.mails.length, start + 3, 'mail went to an unsubscribed address');
  });

  test('adding an email subscriber through the API sends one confirmation; a bad address is VALIDATION', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'api-mail', title: 'Api Mail' });
    const start = smtp.mails.length;
    const added = await services.subscribers.add(writer, ws, page.id, { email: 'Ops@Example.test' });
    assert.equal(added.secret, null);
    assert.deepEqual([added.subscriber.kind, added.subscriber.address, added.subscriber.status], ['email', 'ops@example.test', 'pending']);
    const mail = await nth(smtp, start + 1);
    assert.deepEqual(mail.envelopeTo, ['ops@example.test']);
    assert.ok(linkIn(mail, 'confirm').startsWith(`${svc.apiUrl}/status/api-mail/confirm?s=${added.subscriber.id}&`));
    assert.equal(smtp.mails.length, start + 1);

    await rejectsWith(services.subscribers.add(writer, ws, page.id, { email: 'not an address' }), 'VALIDATION', 'email');
    await rejectsWith(services.subscribers.add(writer, ws, page.id, {}), 'VALIDATION', 'email');
    await rejectsWith(services.subscribers.add(reader, ws, page.id, { email: 'r@example.test' }), 'FORBIDDEN');
    const refused = await svc.api('/status/api-mail/subscribe', formPost({ email: 'nope' }));
    assert.equal(refused.status, 400);
    assert.match(refused.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal((await svc.api('/status/no-such-page/subscribe', formPost({ email: 'a@example.test' }))).status, 404);
    assert.equal(smtp.mails.length, start + 1);
  });

  test('a confirmation that could not be sent says so, and is sent on the next request at once', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'mail-down', title: 'Mail down' });
    const start = smtp.mails.length;
    smtp.setRejecting(true);
    try {
      const refused = await svc.api('/status/mail-down/subscribe', formPost({ email: 'retry@example.test' }));
      assert.equal(refused.status, 409);
      assert.match(refused.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await refused.text(), /could not be sent/);
      await rejectsWith(services.subscribers.add(writer, ws, page.id, { email: 'retry@example.test' }), 'PRECONDITION_FAILED');
    } finally {
      smtp.setRejecting(false);
    }
    assert.equal(smtp.mails.length, start);
    assert.equal((await svc.api('/status/mail-down/subscribe', formPost({ email: 'retry@example.test' }))).status, 200);
    const mail = await nth(smtp, start + 1);
    assert.deepEqual(mail.envelopeTo, ['retry@example.test']);
    assert.deepEqual(
      (await services.subscribers.list(reader, ws, page.id)).map((s) => [s.address, s.status]),
      [['retry@example.test', 'pending']],
    );
  });
});

// ---- webhook subscribers -------------------------------------------------------------------------

describe('webhook subscribers', () => {
  let hook: HttpReceiver;
  before(async () => {
    hook = await startHttpReceiver();
  });
  after(() => hook.close());

  test('the secret is returned once; a notified report is POSTed as signed JSON', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'hooked', title: 'Hooked' });
    const component = await services.pages.addComponent(writer, ws, page.id, { name: 'API' });
    const hookUrl = `${hook.url}/incoming/SUBSCRIBER-PATH-TOKEN`;
    const added = await services.subscribers.add(writer, ws, page.id, { webhookUrl: hookUrl });
    assert.match(added.secret ?? '', /^whsec_/);
    const secret = added.secret!;
    assert.deepEqual([added.subscriber.kind, added.subscriber.status], ['webhook', 'active']);
    assert.equal(added.subscriber.address, `${hook.url}/…`);
    const listed = JSON.stringify(await services.subscribers.list(reader, ws, page.id));
    assert.ok(!listed.includes(secret) && !listed.includes('SUBSCRIBER-PATH-TOKEN'), listed);
    await rejectsWith(services.subscribers.add(writer, ws, page.id, { webhookUrl: hookUrl }), 'CONFLICT', 'webhookUrl');

    const start = hook.requests.length;
    const { report, notified } = await services.reports.create(writer, ws, {
      pageId: page.id,
      title: 'Outage',
      message: 'The API is down.',
      pageComponentIds: [component.id],
      notify: true,
    });
    assert.equal(notified, true);
    const request = await nth(hook, start + 1);
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/incoming/SUBSCRIBER-PATH-TOKEN');
    assert.match(request.headers['content-type'] ?? '', /^application\/json/);
    assert.equal(request.headers[EVENT_HEADER], 'status_report.created');
    assert.ok(verifySignature(secret, request.headers[SIGNATURE_HEADER] ?? '', request.body), 'the signature does not verify with the returned secret');
    assert.ok(!verifySignature(`${secret}x`, request.headers[SIGNATURE_HEADER] ?? '', request.body));
    const body = JSON.parse(request.body);
    const update = report.updates[0]!;
    assert.deepEqual(body, {
      event: 'status_report.created',
      page: { id: page.id, slug: 'hooked', title: 'Hooked', url: `${svc.apiUrl}/status/hooked` },
      report: { id: report.id, title: 'Outage', status: 'investigating', components: ['API'] },
      update: { id: update.id, status: 'investigating', message: 'The API is down.', at: update.createdAt },
    });

    await services.reports.resolve(writer, ws, report.id, { message: 'Back.', notify: true });
    const resolved = JSON.parse((await nth(hook, start + 2)).body);
    assert.deepEqual(
      [resolved.event, resolved.report.status, resolved.update.status, resolved.update.message],
      ['status_report.resolved', 'resolved', 'resolved', 'Back.'],
    );

    const { notified: told } = await services.maintenances.create(writer, ws, {
      pageId: page.id,
      title: 'Upgrade',
      message: 'Short.',
      from: minutesFromNow(60),
      to: minutesFromNow(90),
      pageComponentIds: [component.id],
      notify: true,
    });
    assert.equal(told, true);
    const scheduled = await nth(hook, start + 3);
    assert.equal(scheduled.headers[EVENT_HEADER], 'maintenance.scheduled');
    const maintenance = JSON.parse(scheduled.body);
    assert.deepEqual([maintenance.event, maintenance.maintenance.title, maintenance.maintenance.components], ['maintenance.scheduled', 'Upgrade', ['API']]);
    assert.ok(verifySignature(secret, scheduled.headers[SIGNATURE_HEADER] ?? '', scheduled.body));
  });
});

// ---- failures and notified -----------------------------------------------------------------------

describe('notified', () => {
  let hook: HttpReceiver;
  before(async () => {
    hook = await startHttpReceiver();
  });
  after(() => hook.close());

  test('a webhook answering 500: notified false, the report is stored with its update; healthy again: true', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'failing-hook', title: 'Failing hook' });
    await services.subscribers.add(writer, ws, page.id, { webhookUrl: `${hook.url}/fails` });
    hook.setStatus(500);
    try {
      const start = hook.requests.length;
      const failed = await services.reports.create(writer, ws, { pageId: page.id, title: 'Stored anyway', message: 'First words.', notify: true });
      assert.equal(failed.notified, false);
      await hook.waitFor(start + 1);
      const stored = await services.reports.get(reader, ws, failed.report.id);
      assert.deepEqual([stored.title, stored.updates.map((u) => u.message)], ['Stored anyway', ['First words.']]);
      const update = await services.reports.addUpdate(writer, ws, failed.report.id, { status: 'identified', message: 'Second words.', notify: true });
      assert.equal(update.notified, false);
      assert.equal((await services.reports.get(reader, ws, failed.report.id)).updates.length, 2);

      hook.setStatus(204);
      const healthy = await services.reports.resolve(writer, ws, failed.report.id, { message: 'Third words.', notify: true });
      assert.equal(healthy.notified, true);
      // One attempt each: nothing failed earlier was sent again.
      assert.equal(hook.requests.length, start + 3);
      assert.deepEqual(
        hook.requests.slice(start).map((r) => JSON.parse(r.body).update.message),
        ['First words.', 'Second words.', 'Third words.'],
      );
    } finally {
      hook.setStatus(200);
    }
  });

  test('an SMTP server refusing the recipient: notified false, the report is stored', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'failing-mail', title: 'Failing mail' });
    await confirmedEmail('failing-mail', 'bounce@example.test');
    smtp.setRejecting(true);
    try {
      const start = smtp.mails.length;
      const failed = await services.reports.create(writer, ws, { pageId: page.id, title: 'Mail refused', message: 'Stored anyway.', notify: true });
      assert.equal(failed.notified, false);
      assert.equal((await services.reports.get(reader, ws, failed.report.id)).updates[0]!.message, 'Stored anyway.');
      assert.equal(smtp.mails.length, start);
      smtp.setRejecting(false);
      const healthy = await services.reports.addUpdate(writer, ws, failed.report.id, { status: 'identified', message: 'Mail works again.', notify: true });
      assert.equal(healthy.notified, true);
      const mail = await nth(smtp, start + 1);
      assert.match(mail.text, /Mail works again\./);
    } finally {
      smtp.setRejecting(false);
    }
  });

  test('one failing subscriber of two: the other still gets it, and notified is false', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'half-failing', title: 'Half failing' });
    await confirmedEmail('half-failing', 'gets-it@example.test');
    const dead = await startHttpReceiver({ status: 503 });
    try {
      await services.subscribers.add(writer, ws, page.id, { webhookUrl: `${dead.url}/dead` });
      const start = smtp.mails.length;
      const result = await services.reports.create(writer, ws, { pageId: page.id, title: 'Partial', message: 'Half of you hear this.', notify: true });
      assert.equal(result.notified, false);
      const mail = await nth(smtp, start + 1);
      assert.deepEqual(mail.envelopeTo, ['gets-it@example.test']);
      assert.equal(dead.requests.length, 1);
    } finally {
      await dead.close();
    }
  });

  test('no subscribers: notified true; notify false: notified false and nothing sent', async () => {
    const lonely = await services.pages.create(writer, ws, { slug: 'lonely', title: 'Lonely' });
    const alone = await services.reports.create(writer, ws, { pageId: lonely.id, title: 'Nobody listens', message: 'x', notify: true });
    assert.equal(alone.notified, true);
    const maintenance = await services.maintenances.create(writer, ws, {
      pageId: lonely.id,
      title: 'Nobody',
      from: minutesFromNow(5),
      to: minutesFromNow(10),
      notify: true,
    });
    assert.equal(maintenance.notified, true);

    const page = await services.pages.create(writer, ws, { slug: 'silent', title: 'Silent' });
    await services.subscribers.add(writer, ws, page.id, { webhookUrl: `${hook.url}/silent` });
    await confirmedEmail('silent', 'silent@example.test');
    const [mails, requests] = [smtp.mails.length, hook.requests.length];
    const quiet = await services.reports.create(writer, ws, { pageId: page.id, title: 'Quiet', message: 'x', notify: false });
    assert.equal(quiet.notified, false);
    const quietMaintenance = await services.maintenances.create(writer, ws, {
      pageId: page.id,
      title: 'Quiet window',
      from: minutesFromNow(5),
      to: minutesFromNow(10),
      notify: false,
    });
    assert.equal(quietMaintenance.notified, false);
    // Nor does another page's notified report reach this page's subscribers.
    assert.equal((await services.reports.create(writer, ws, { pageId: lonely.id, title: 'Elsewhere', message: 'x', notify: true })).notified, true);
    assert.deepEqual([smtp.mails.length, hook.requests.length], [mails, requests]);
  });
});

// ---- a plan without subscriber notifications -----------------------------------------------------

describe('a workspace on the hobby plan', () => {
  let hobby: number;
  let hook: HttpReceiver;
  /** Moves the workspace to another plan, as a change of plan in the dashboard does. */
  const setPlan = (plan: string) => queryRows(svc.dataDir, 'update workspaces set plan = ? where id = ?', plan, hobby);
  before(async () => {
    hobby = Number((await services.workspaces.create(owner, { name: 'Hobby', slug: 'hobby-ws', plan: 'scale' })).id);
    hook = await startHttpReceiver();
  });
  after(() => hook.close());

  test('subscribers kept from a bigger plan are not told: dispatch is a silent no-op, notified true', async () => {
    // Subscribed while the workspace was on a plan with subscriber notifications.
    await setPlan('scale');
    const page = await services.pages.create(owner, hobby, { slug: 'hobby-page', title: 'Hobby page' });
    await services.subscribers.add(owner, hobby, page.id, { webhookUrl: `${hook.url}/hobby` });
    await setPlan('hobby');
    const mails = smtp.mails.length;
    const created = await services.reports.create(owner, hobby, { pageId: page.id, title: 'Hobby incident', message: 'x', notify: true });
    assert.equal(created.notified, true);
    const scheduled = await services.maintenances.create(owner, hobby, {
      pageId: page.id,
      title: 'Hobby window',
      from: minutesFromNow(5),
      to: minutesFromNow(10),
      notify: true,
    });
    assert.equal(scheduled.notified, true);
    assert.equal(hook.requests.length, 0);
    assert.equal(smtp.mails.length, mails);
    // Nor does the page offer a subscription.
    services.publicPages.invalidate();
    const html = await (await svc.api('/status/hobby-page')).text();
    assert.ok(!html.includes('/status/hobby-page/subscribe'), 'a hobby page offers the subscription form');
  });

  test('no subscriber can be added: the public form and the API are refused, and no mail is sent', async () => {
    await setPlan('hobby');
    const page = await services.pages.create(owner, hobby, { slug: 'hobby-form', title: 'Hobby form' });
    const mails = smtp.mails.length;
    const answer = await svc.api('/status/hobby-form/subscribe', formPost({ email: 'someone@example.test' }));
    assert.equal(answer.status, 409);
    assert.match(await answer.text(), /not part of the hobby plan/);
    await assert.rejects(
      services.subscribers.add(owner, hobby, page.id, { email: 'x@example.test' }),
      (e: unknown) => e instanceof AppError && e.code === 'PRECONDITION_FAILED',
    );
    await assert.rejects(
      services.subscribers.add(owner, hobby, page.id, { webhookUrl: `${hook.url}/x` }),
      (e: unknown) => e instanceof AppError && e.code === 'PRECONDITION_FAILED',
    );
    assert.equal(smtp.mails.length, mails, 'a confirmation was mailed');
  });
});

// ---- channels --------------------------------------------------------------------------------------

describe('notification channels', () => {
  let hook: HttpReceiver;
  let chat: HttpReceiver;
  let channelSmtp: SmtpReceiver;
  const secrets = {
    webhookPath: 'WEBHOOK-PATH-TOKEN-1',
    webhookSecret: 'whsec-channel-signing-secret-0123',
    header: 'Bearer HEADER-CREDENTIAL-2',
    slack: 'SLACK-TOKEN-3',
    discord: 'DISCORD-TOKEN-4',
    smtpUser: 'mailuser5',
    smtpPassword: 'MAILPASSWORD-6',
    ntfy: 'NTFY-TOKEN-7',
  };
  const all = () => Object.values(secrets);
  const configs = () => ({
    webhook: { url: `${hook.url}/alerts/${secrets.webhookPath}`, secret: secrets.webhookSecret, headers: { authorization: secrets.header } },
    slack: { webhookUrl: `${chat.url}/services/T000/B000/${secrets.slack}` },
    discord: { webhookUrl: `${chat.url}/api/webhooks/1/${secrets.discord}` },
    email: { to: ['oncall@example.test', 'lead@example.test'], smtpUrl: `smtp://${secrets.smtpUser}:${secrets.smtpPassword}@127.0.0.1:${channelSmtp.port}` },
    ntfy: { server: chat.url, topic: 'alerts', token: secrets.ntfy },
    desktop: {},
  });
  const noCredential = (value: unknown, what: string) => {
    const text = JSON.stringify(value);
    for (const secret of all()) assert.ok(!text.includes(secret), `${what} contains ${secret}: ${text}`);
  };

  before(async () => {
    hook = await startHttpReceiver();
    chat = await startHttpReceiver();
    channelSmtp = await startSmtpReceiver();
  });
  after(async () => {
    await hook.close();
    await chat.close();
    await channelSmtp.close();
  });

  test('every kind is created; no answer, audit entry or stored byte holds a credential', async () => {
    const monitor = await services.monitors.create(system, ws, 'tcp', { name: 'db', uri: 'db.internal:5432', periodicity: '1m' });
    const ids: string[] = [];
    for (const [kind, config] of Object.entries(configs())) {
      const created = await services.channels.create(writer, ws, { name: `${kind} channel`, kind, monitorIds: [monitor.id], config });
      assert.deepEqual([created.kind, created.monitorIds], [kind, [monitor.id]]);
      noCredential(created, `create ${kind}`);
      noCredential(await services.channels.get(reader, ws, created.id), `get ${kind}`);
      noCredential(await services.channels.update(writer, ws, created.id, { name: `${kind} renamed` }), `update ${kind}`);
      ids.push(created.id);
    }
    const listed = await services.channels.list(reader, ws);
    assert.ok(ids.every((id) => listed.channels.some((c) => c.id === id)));
    noCredential(listed, 'list');

    // What the masks look like: enough to recognise a channel, never enough to use it.
    const byKind = new Map(listed.channels.filter((c) => ids.includes(c.id)).map((c) => [c.kind, c.config]));
    assert.deepEqual(byKind.get('webhook'), { url: `${hook.url}/…`, secret: '••••••••', headers: { authorization: '••••••••' } });
    assert.deepEqual(byKind.get('slack'), { webhookUrl: `${chat.url}/…` });
    assert.deepEqual(byKind.get('email'), { to: ['oncall@example.test', 'lead@example.test'], smtpUrl: `smtp://127.0.0.1:${channelSmtp.port}/…` });
    assert.deepEqual(byKind.get('ntfy'), { server: chat.url, topic: '••••••••', token: '••••••••' });
    assert.deepEqual(byKind.get('desktop'), {});

    const rows = await queryRows<{ credentials: string; settings: string }>(svc.dataDir, 'select credentials, settings from notification_channels');
    assert.ok(rows.length >= 6);
    for (const row of rows) {
      assert.match(row.credentials, /^v1:/);
      noCredential(row, 'the notification_channels row');
    }
    noCredential(await queryRows(svc.dataDir, "select * from audit_log where entity_type = 'notification_channel'"), 'the audit log');
    // A PostgreSQL database's files are its server's: the rows above are all it holds.
    if (onPostgres) return;
    const bytes = databaseBytes(svc.dataDir);
    for (const secret of all()) assert.ok(!bytes.includes(secret), `the database files hold ${secret} in plain text`);
  });

  test('test send: delivered through each kind; a failing receiver is delivered false with the reason', async () => {
    const desktop: AlertEvent[] = [];
    const stop = services.onDesktopAlert((event) => desktop.push(event));
    try {
      const made = new Map<string, string>();
      for (const [kind, config] of Object.entries(configs())) {
        made.set(kind, (await services.channels.create(writer, ws, { name: `test ${kind}`, kind, config })).id);
      }
      const send = (kind: string) => services.channels.test(writer, ws, made.get(kind)!);

      const hooked = hook.requests.length;
      assert.deepEqual(await send('webhook'), { delivered: true, error: null });
      const request = await nth(hook, hooked + 1);
      assert.equal(request.path, `/alerts/${secrets.webhookPath}`);
      assert.equal(request.headers.authorization, secrets.header);
      assert.ok(verifySignature(secrets.webhookSecret, request.headers[SIGNATURE_HEADER] ?? '', request.body));
      const body = JSON.parse(request.body);
      // A test send is the `test` event, in the body and the header: never taken for an outage.
      assert.deepEqual([body.event, request.headers['x-statusdesk-event'], body.kind, body.test], ['test', 'test', 'down', true]);

      const chats = chat.requests.length;
      assert.deepEqual(await send('slack'), { delivered: true, error: null });
      assert.deepEqual(await send('discord'), { delivered: true, error: null });
      assert.deepEqual(await send('ntfy'), { delivered: true, error: null });
      const [slack, discord, ntfy] = (await chat.waitFor(chats + 3)).slice(chats);
      assert.equal(slack!.path, `/services/T000/B000/${secrets.slack}`);
      assert.ok(JSON.parse(slack!.body).blocks);
      assert.equal(discord!.path, `/api/webhooks/1/${secrets.discord}`);
      assert.ok(JSON.parse(discord!.body).embeds);
      assert.equal(ntfy!.headers.authorization, `Bearer ${secrets.ntfy}`);
      assert.equal(JSON.parse(ntfy!.body).topic, 'alerts');

      const mails = channelSmtp.mails.length;
      assert.deepEqual(await send('email'), { delivered: true, error: null });
      const mail = await nth(channelSmtp, mails + 1);
      assert.deepEqual(mail.envelopeTo, ['oncall@example.test', 'lead@example.test']);
      assert.match(mail.subject, /^\[Test\] \[Down\] Test monitor/);
      assert.ok(channelSmtp.logins.includes(secrets.smtpUser), "logged in with the channel's own SMTP user");

      assert.deepEqual(await send('desktop'), { delivered: true, error: null });
      assert.equal(desktop.length, 1);
      assert.deepEqual([desktop[0]!.kind, desktop[0]!.test], ['down', true]);

      hook.setStatus(500);
      const failed = await send('webhook');
      assert.equal(failed.delivered, false);
      assert.equal(failed.error, `POST ${hook.url} answered 500`);
      noCredential(failed, 'the failure');
      channelSmtp.setRejecting(true);
      const refused = await send('email');
      assert.equal(refused.delivered, false);
      assert.match(refused.error ?? '', /550/);
      noCredential(refused, 'the mail failure');
    } finally {
      stop();
      hook.setStatus(200);
      channelSmtp.setRejecting(false);
    }
  });

  test('an update without credentials keeps them: a test send still signs with the old secret', async () => {
    const channel = await services.channels.create(writer, ws, { name: 'keeper', kind: 'webhook', config: configs().webhook });
    const renamed = await services.channels.update(writer, ws, channel.id, { name: 'keeper renamed' });
    assert.deepEqual(renamed.config, channel.config);
    const start = hook.requests.length;
    assert.deepEqual(await services.channels.test(writer, ws, channel.id), { delivered: true, error: null });
    const request = await nth(hook, start + 1);
    assert.equal(request.path, `/alerts/${secrets.webhookPath}`);
    assert.equal(request.headers.authorization, secrets.header);
    assert.ok(verifySignature(secrets.webhookSecret, request.headers[SIGNATURE_HEADER] ?? '', request.body), 'the kept secret no longer signs');
    // Changing one credential keeps the others.
    await services.channels.update(writer, ws, channel.id, { config: { headers: {} } });
    assert.deepEqual((await services.channels.test(writer, ws, channel.id)).delivered, true);
    const second = await nth(hook, start + 2);
    assert.equal(second.headers.authorization, undefined);
    assert.ok(verifySignature(secrets.webhookSecret, second.headers[SIGNATURE_HEADER] ?? '', second.body));
  });

  test('monitorIds must name monitors of the workspace; a read key cannot test-send', async () => {
    const otherWs = Number((await services.workspaces.create(owner, { name: 'Channels other', slug: 'channels-other', plan: 'scale' })).id);
    const foreign = await services.monitors.create(system, otherWs, 'tcp', { name: 'theirs', uri: 'theirs.internal:1', periodicity: '1m' });
    await rejectsWith(services.channels.create(writer, ws, { name: 'x', kind: 'desktop', monitorIds: ['999999'] }), 'NOT_FOUND', 'monitorIds');
    await rejectsWith(services.channels.create(writer, ws, { name: 'x', kind: 'desktop', monitorIds: [foreign.id] }), 'NOT_FOUND', 'monitorIds');
    const channel = await services.channels.create(writer, ws, { name: 'desk', kind: 'desktop' });
    await rejectsWith(services.channels.update(writer, ws, channel.id, { monitorIds: [foreign.id] }), 'NOT_FOUND', 'monitorIds');
    await rejectsWith(
      services.channels.create(writer, ws, { name: 'x', kind: 'webhook', config: { url: `${hook.url}/x`, secret: 'short' } }),
      'VALIDATION',
      'config.secret',
    );
    await rejectsWith(services.channels.create(writer, ws, { name: 'x', kind: 'pager' }), 'VALIDATION', 'kind');
    await rejectsWith(services.channels.test(reader, ws, channel.id), 'FORBIDDEN');
    await rejectsWith(services.channels.get(reader, otherWs, channel.id), 'NOT_FOUND');
  });
});

// ---- alerts from real checks -------------------------------------------------------------------------

describe('alerts end to end', () => {
  let alertSvc: TestService;
  let alertSmtp: SmtpReceiver;
  let hook: HttpReceiver;
  let listener: TcpListener | undefined;

  before(async () => {
    alertSmtp = await startSmtpReceiver();
    hook = await startHttpReceiver();
    alertSvc = await startTestService({ STATUSDESK_CHECKS: 'on', STATUSDESK_SMTP_URL: alertSmtp.url });
  });
  after(async () => {
    await listener?.close();
    await alertSvc?.stop();
    await alertSmtp?.close();
    await hook?.close();
  });

  type AlertRow = { id: number; monitor_id: number; kind: string; suppressed_by: number | null; deliveries: string };

  test('one alert per state change, to every wired channel; none while maintenance covers the monitor', async () => {
    const s = alertSvc.services;
    const wsId = Number((await s.workspaces.getBySlug(system, 'personal')).id);
    listener = await startTcpListener();
    const port = listener.port;
    const monitor = await s.monitors.create(system, wsId, 'tcp', {
      name: 'alerted db',
      uri: listener.uri,
      periodicity: '30s',
      regions: ['iad', 'fra'],
      timeout: 1_000,
      retry: 0,
    });
    const secret = 'alerts-signing-secret-0123456789';
    const webhook = await s.channels.create(system, wsId, {
      name: 'hook',
      kind: 'webhook',
      monitorIds: [monitor.id],
      config: { url: `${hook.url}/alerts`, secret },
    });
    const email = await s.channels.create(system, wsId, {
      name: 'mail',
      kind: 'email',
      monitorIds: [monitor.id],
      config: { to: ['a@example.test', 'b@example.test'] },
    });
    const desktopChannel = await s.channels.create(system, wsId, { name: 'desk', kind: 'desktop', monitorIds: [monitor.id] });
    // Not wired to the monitor: gets nothing.
    await s.channels.create(system, wsId, { name: 'unwired', kind: 'webhook', config: { url: `${hook.url}/unwired`, secret } });
    const desktop: AlertEvent[] = [];
    const stop = s.onDesktopAlert((event) => desktop.push(event));
    const alerts = () => queryRows<AlertRow>(alertSvc.dataDir, 'select * from alerts where monitor_id = ? order by id', Number(monitor.id));
    const trigger = async (expected: string) => assert.equal((await s.monitors.trigger(system, wsId, monitor.id))[0]!.result, expected);
    // Closing the alerts waits for every alert the check engine has started; they start again at once.
    const alertsDone = async () => {
      await s.alerts.close();
      s.alerts.start();
    };

    try {
      // A first result of up is not news.
      await trigger('up');
      await alertsDone();
      assert.deepEqual([hook.requests.length, alertSmtp.mails.length, desktop.length, (await alerts()).length], [0, 0, 0, 0]);

      // Down: one alert, however many checks say so.
      await listener.close();
      listener = undefined;
      await trigger('down');
      await trigger('down');
      const down = await nth(hook, 1);
      assert.equal(down.path, '/alerts');
      assert.equal(down.headers[EVENT_HEADER], 'monitor.down');
      assert.ok(verifySignature(secret, down.headers[SIGNATURE_HEADER] ?? '', down.body));
      const downBody = JSON.parse(down.body);
      assert.deepEqual(
        [downBody.event, downBody.kind, downBody.from, downBody.to, downBody.monitor.id, downBody.monitor.target, downBody.workspace.slug],
        ['monitor.down', 'down', 'up', 'down', monitor.id, `127.0.0.1:${port}`, 'personal'],
      );
      const downMail = await nth(alertSmtp, 1);
      assert.deepEqual(downMail.envelopeTo, ['a@example.test', 'b@example.test']);
      assert.equal(downMail.subject, `[Down] alerted db (monitor ${monitor.id})`);
      await eventually(
        () => desktop.length,
        (n) => n === 1,
        'the desktop alert',
      );
      await eventually(alerts, (rows) => rows.length === 1, 'the alert row');
      await alertsDone();
      assert.deepEqual([hook.requests.length, alertSmtp.mails.length, desktop.length, (await alerts()).length], [1, 1, 1, 1]);
      const [downRow] = await alerts();
      assert.deepEqual([downRow!.kind, downRow!.suppressed_by], ['down', null]);
      const deliveries = JSON.parse(downRow!.deliveries) as { channelId: string; ok: boolean; error: string | null }[];
      assert.deepEqual(
        deliveries.sort((a, b) => Number(a.channelId) - Number(b.channelId)),
        [webhook.id, email.id, desktopChannel.id].map((channelId) => ({ channelId, ok: true, error: null })),
      );

      // Up again on the same port: one recovery.
      listener = await startTcpListener('127.0.0.1', port);
      await trigger('up');
      const recovered = JSON.parse((await nth(hook, 2)).body);
      assert.deepEqual([recovered.event, recovered.from, recovered.to], ['monitor.recovered', 'down', 'up']);
      assert.equal((await nth(alertSmtp, 2)).subject, `[Recovered] alerted db (monitor ${monitor.id})`);
      await eventually(alerts, (rows) => rows.length === 2, 'the recovery row');
      await trigger('up');
      await alertsDone();
      assert.deepEqual([hook.requests.length, alertSmtp.mails.length, desktop.length], [2, 2, 2]);
      assert.deepEqual(
        desktop.map((e) => e.kind),
        ['down', 'recovered'],
      );
      assert.deepEqual(
        (await alerts()).map((r) => [r.kind, r.suppressed_by]),
        [
          ['down', null],
          ['recovered', null],
        ],
      );

      // An active maintenance window on a page with a component of the monitor holds alerts back.
      const page = await s.pages.create(system, wsId, { slug: 'alerting-page', title: 'Alerting' });
      const component = await s.pages.addComponent(system, wsId, page.id, { name: 'Database', monitorId: monitor.id });
      await s.pages.addComponent(system, wsId, page.id, { name: 'Other' });
      const { maintenance } = await s.maintenances.create(system, wsId, {
        pageId: page.id,
        title: 'Database upgrade',
        from: minutesFromNow(-1),
        to: minutesFromNow(30),
        pageComponentIds: [component.id],
        notify: false,
      });
      await listener.close();
      listener = undefined;
      await trigger('down');
      const suppressed = await eventually(alerts, (rows) => rows.length === 3, 'the suppressed alert row');
      assert.deepEqual([suppressed[2]!.kind, suppressed[2]!.suppressed_by, JSON.parse(suppressed[2]!.deliveries)], ['down', Number(maintenance.id), []]);
      await alertsDone();
      assert.deepEqual([hook.requests.length, alertSmtp.mails.length, desktop.length], [2, 2, 2], 'an alert was delivered during maintenance');
      assert.deepEqual(await s.alerts.releaseHeld(), [], 'released while the window is still active');

      // The window ends with the monitor still down: the held alert goes out then, once.
      await s.maintenances.update(system, wsId, maintenance.id, { from: minutesFromNow(-2), to: minutesFromNow(-1) });
      const released = await s.alerts.releaseHeld();
      assert.deepEqual(
        released.map((a) => [a.kind, a.suppressedBy]),
        [['down', null]],
      );
      assert.match(released[0]!.message, /held back during maintenance/);
      await hook.waitFor(3);
      assert.equal(JSON.parse(hook.requests[2]!.body).event, 'monitor.down');
      assert.deepEqual(await s.alerts.releaseHeld(), [], 'a held alert is released once');
      // Nothing reached the unwired channel at any point.
      assert.ok(hook.requests.every((r) => r.path === '/alerts'));
    } finally {
      stop();
    }
  });
});

describe('alerts in the background', () => {
  test('closing waits for an alert still being delivered', async () => {
    const dir = await tempDir();
    const db = await openTestDatabase(dir.path);
    try {
      const s = createServices(db);
      const wsId = Number((await s.workspaces.getBySlug({ type: 'user', userId: await ensureOwner(db), surface: 'cli' }, 'personal')).id);
      const monitor = await s.monitors.create(system, wsId, 'tcp', {
        name: 'slow alert',
        uri: '127.0.0.1:9',
        periodicity: '30s',
        regions: ['iad'],
        timeout: 1_000,
        retry: 0,
      });
      const channel = await s.channels.create(system, wsId, { name: 'desk', kind: 'desktop', monitorIds: [monitor.id] });
      let delivering = false;
      let deliver!: () => void;
      const delivered = new Promise<void>((resolve) => (deliver = resolve));
      const alerts = createAlertService(db, {
        targetsOf: s.channels.targetsOf,
        deliver: () => {
          delivering = true;
          return delivered;
        },
        recordDelivery: s.channels.recordDelivery,
        log: pino({ enabled: false }),
      });

      alerts.sendInBackground({
        monitorId: monitor.id,
        workspaceId: String(wsId),
        from: 'up',
        to: 'down',
        kind: 'down',
        at: new Date().toISOString(),
        message: 'connection refused',
      });
      await eventually(
        () => delivering,
        (yes) => yes,
        'the delivery to start',
      );
      let closed = false;
      const closing = alerts.close().then(() => (closed = true));
      for (let turn = 0; turn < 20; turn++) await tick();
      assert.equal(closed, false, 'closed while an alert was still being delivered');
      deliver();
      await closing;
      const [row] = await db.selectFrom('alerts').selectAll().where('monitor_id', '=', Number(monitor.id)).execute();
      assert.deepEqual([row?.kind, JSON.parse(row?.deliveries ?? '[]')], ['down', [{ channelId: channel.id, ok: true, error: null }]]);
      s.close();
    } finally {
      await db.destroy();
      await dir.remove();
    }
  });
});
