/**
 * The anonymous subscription form is limited per client address and per page, and pending
 * subscribers that never confirm expire. Mail goes to a real SMTP receiver on loopback; clients
 * connect from loopback addresses of their own (127.0.0.x), so the tests do not share a budget.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { queryRows } from './support/database.ts';
import type { Actor } from '../server/domain/actor.ts';
import { PENDING_TTL_MS } from '../server/domain/notifications/subscribers.ts';
import { AppError } from '../server/errors.ts';
import { clientKey, createSignUpLimiter, SIGN_UP_LIMITS } from '../server/http/rate-limit.ts';
import { startSmtpReceiver, type SmtpReceiver } from './support/receivers.ts';
import { startTestService, tempDir, type TestService } from './support/harness.ts';

const system: Actor = { type: 'system', surface: 'cli' };

/** A form POST to the API port from the loopback address `from`. */
function subscribe(
  svc: TestService,
  slug: string,
  address: string,
  from: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const url = new URL(`${svc.apiUrl}/status/${slug}/subscribe`);
  const body = new URLSearchParams({ email: address }).toString();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: Number(url.port),
        localAddress: from,
        path: url.pathname,
        method: 'POST',
        headers: { host: url.host, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end(body);
  });
}

async function newPage(svc: TestService, slug: string): Promise<string> {
  const wsId = Number((await svc.services.workspaces.getBySlug(system, 'personal')).id);
  return (await svc.services.pages.create(system, wsId, { slug, title: `Page ${slug}` })).id;
}

async function subscribersOf(svc: TestService, slug: string) {
  const wsId = Number((await svc.services.workspaces.getBySlug(system, 'personal')).id);
  return svc.services.subscribers.list(system, wsId, slug);
}

const mailsTo = (smtp: SmtpReceiver, address: string) => smtp.mails.filter((m) => m.envelopeTo.includes(address)).length;

describe('subscription limits', () => {
  let smtp: SmtpReceiver;
  let svc: TestService;

  before(async () => {
    smtp = await startSmtpReceiver({ lifetimeMs: 180_000 });
    svc = await startTestService({ STATUSDESK_SMTP_URL: smtp.url });
  });
  after(async () => {
    await svc?.stop();
    await smtp?.close();
  });

  test('refuses the 6th sign-up from one client address with a 429 page and Retry-After, and sends it no mail', async () => {
    await newPage(svc, 'limited-client');
    const from = '127.0.0.3';
    const before = smtp.mails.length;
    for (let i = 1; i <= SIGN_UP_LIMITS.perClient.count; i++) {
      const answer = await subscribe(svc, 'limited-client', `reader${i}@example.test`, from);
      assert.equal(answer.status, 200, `sign-up ${i}: ${answer.body}`);
    }
    await smtp.waitFor(before + SIGN_UP_LIMITS.perClient.count);

    const refused = await subscribe(svc, 'limited-client', 'reader6@example.test', from);
    assert.equal(refused.status, 429, refused.body);
    assert.match(String(refused.headers['content-type']), /^text\/html/);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= SIGN_UP_LIMITS.perClient.windowMs / 1000,
      `Retry-After ${refused.headers['retry-after']}`,
    );
    assert.match(refused.body, /Too many sign-ups/);
    assert.match(refused.body, /too many sign-ups from your address/);

    // An address already pending is refused the same way: a refusal tells nothing about addresses.
    const again = await subscribe(svc, 'limited-client', 'reader1@example.test', from);
    assert.equal(again.status, 429, again.body);

    // A sign-up answers once its mail is sent: had a refused one been mailed, it would be here.
    assert.equal(mailsTo(smtp, 'reader6@example.test'), 0, 'the refused sign-up was mailed');
    assert.equal(smtp.mails.length, before + SIGN_UP_LIMITS.perClient.count);
    const rows = await subscribersOf(svc, 'limited-client');
    assert.equal(rows.length, SIGN_UP_LIMITS.perClient.count);
    assert.ok(!rows.some((r) => r.address === 'reader6@example.test'), 'the refused sign-up left a pending row');

    // Another client address is not held back by this one.
    assert.equal((await subscribe(svc, 'limited-client', 'reader7@example.test', '127.0.0.5')).status, 200);
    await smtp.waitFor(before + SIGN_UP_LIMITS.perClient.count + 1);
  });

  test('repeats of one pending address within the resend delay send no mail and spend no budget', async () => {
    await newPage(svc, 'repeats');
    const from = '127.0.0.6';
    const before = smtp.mails.length;
    for (let i = 0; i < SIGN_UP_LIMITS.perClient.count + 2; i++) {
      assert.equal((await subscribe(svc, 'repeats', 'same@example.test', from)).status, 200, `repeat ${i}`);
    }
    await smtp.waitFor(before + 1);
    assert.equal(mailsTo(smtp, 'same@example.test'), 1);
  });

  test("refuses a page's sign-ups over its hourly limit, from any client, with 429 and no mail", async () => {
    await newPage(svc, 'limited-page');
    const before = smtp.mails.length;
    const perClient = SIGN_UP_LIMITS.perClient.count;
    // Many clients, as behind a proxy that passes the visitors' addresses: only the page's limit holds.
    for (let i = 0; i < SIGN_UP_LIMITS.perPage.count; i++) {
      await svc.services.subscribers.subscribePublic('limited-page', `visitor${i}@example.test`, `127.0.1.${Math.floor(i / perClient)}`);
    }
    await smtp.waitFor(before + SIGN_UP_LIMITS.perPage.count, 30_000);

    const refused = await subscribe(svc, 'limited-page', 'one-more@example.test', '127.0.0.7');
    assert.equal(refused.status, 429, refused.body);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assert.match(refused.body, /this page has had too many sign-ups in the last hour/);
    assert.equal(mailsTo(smtp, 'one-more@example.test'), 0, 'the refused sign-up was mailed');
    assert.equal((await subscribersOf(svc, 'limited-page')).length, SIGN_UP_LIMITS.perPage.count);

    // Other pages keep their own budget.
    await newPage(svc, 'unlimited-page');
    assert.equal((await subscribe(svc, 'unlimited-page', 'elsewhere@example.test', '127.0.0.8')).status, 200);
  });

  test('refuses to tell client addresses of one IPv6 /64 apart, and keeps IPv4 and mapped IPv4 as they are', () => {
    assert.equal(clientKey('127.0.0.1'), '127.0.0.1');
    assert.equal(clientKey('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(clientKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(clientKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
    assert.equal(clientKey('2001:DB8::1%eth0'), '2001:db8:0:0::/64');
    assert.equal(clientKey('::1'), '0:0:0:0::/64');
    assert.notEqual(clientKey('2001:db8:1:3::1'), clientKey('2001:db8:1:2::1'));
  });
});

describe('the sign-up limiter of the HTTP edge', () => {
  /** The refusal of a spent window: LIMIT_EXCEEDED with the seconds to wait. */
  function refusal(call: () => void): AppError {
    try {
      call();
    } catch (error) {
      assert.ok(error instanceof AppError && error.code === 'LIMIT_EXCEEDED', String(error));
      return error;
    }
    assert.fail('the sign-up was not refused');
  }

  test('refuses a client past its window with the seconds until its oldest sign-up leaves it, and lets it in again then', () => {
    let t = 0;
    const limits = createSignUpLimiter(() => t);
    const { count, windowMs } = SIGN_UP_LIMITS.perClient;
    for (let i = 0; i < count; i++) {
      limits.check('1', '127.0.0.1');
      limits.record('1', '127.0.0.1');
      t += 1000;
    }
    const refused = refusal(() => limits.check('1', '127.0.0.1'));
    assert.equal(refused.retryAfterSeconds, (windowMs - count * 1000) / 1000);
    assert.match(refused.message, /^too many sign-ups from your address: at most 5 every 10 minutes; try again in 10 minutes$/);
    // A check alone counts nothing; another client and another page are not held back.
    limits.check('1', '127.0.0.2');
    limits.check('2', '127.0.0.2');
    t = windowMs + 1;
    limits.check('1', '127.0.0.1');
  });

  test('refuses a page past its hourly window, whichever clients signed up, and forgets idle windows when pruned', () => {
    let t = 0;
    const limits = createSignUpLimiter(() => t);
    const { count, windowMs } = SIGN_UP_LIMITS.perPage;
    for (let i = 0; i < count; i++) limits.record('7', `127.0.3.${i % 250}`);
    for (const client of ['127.0.4.1', undefined]) {
      const refused = refusal(() => limits.check('7', client));
      assert.equal(refused.retryAfterSeconds, windowMs / 1000);
      assert.match(refused.message, /^this page has had too many sign-ups in the last hour; try again in 60 minutes$/);
    }
    t = windowMs;
    limits.prune();
    limits.check('7', '127.0.4.1');
  });
});

describe('pending subscribers expire', () => {
  test('refuses to keep a pending row 48 h after its last confirmation mail: gone after pruning, and at the next start', async () => {
    const smtp = await startSmtpReceiver();
    const dir = await tempDir();
    let svc: TestService | undefined = await startTestService({ STATUSDESK_SMTP_URL: smtp.url }, dir.path);
    try {
      await newPage(svc, 'expiring');
      for (const address of ['stale@example.test', 'fresh@example.test', 'confirmed@example.test', 'stale-at-restart@example.test']) {
        await svc.services.subscribers.subscribePublic('expiring', address, '127.0.2.1');
      }
      await smtp.waitFor(4);
      const old = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();
      const ttlHours = PENDING_TTL_MS / 3_600_000;
      const age = (address: string, hours: number, status = 'pending') =>
        queryRows(
          dir.path,
          'update page_subscribers set created_at = ?, confirmation_sent_at = ?, status = ? where address = ?',
          old(hours + 1),
          old(hours),
          status,
          address,
        );
      await age('stale@example.test', ttlHours + 1);
      await age('fresh@example.test', ttlHours - 1);
      await age('confirmed@example.test', ttlHours + 100, 'active');

      assert.equal(await svc.services.subscribers.prunePending(), 1);
      const left = (await subscribersOf(svc, 'expiring')).map((s) => s.address).sort();
      assert.deepEqual(left, ['confirmed@example.test', 'fresh@example.test', 'stale-at-restart@example.test']);

      await svc.close();
      svc = undefined;
      await queryRows(
        dir.path,
        'update page_subscribers set created_at = ?, confirmation_sent_at = ? where address = ?',
        old(ttlHours + 3),
        old(ttlHours + 2),
        'stale-at-restart@example.test',
      );
      svc = await startTestService({ STATUSDESK_SMTP_URL: smtp.url }, dir.path);
      const afterStart = (await subscribersOf(svc, 'expiring')).map((s) => s.address).sort();
      assert.deepEqual(afterStart, ['confirmed@example.test', 'fresh@example.test']);
    } finally {
      await svc?.close();
      await smtp.close();
      await dir.remove();
    }
  });
});
