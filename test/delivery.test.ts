import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type AlertDeliveryDeps, DISCORD_COLOR, deliverAlert } from '../server/delivery/alert-delivery.ts';
import { postJson, SIGNATURE_HEADER, signPayload } from '../server/delivery/http-post.ts';
import { createMailer, type Mailer } from '../server/delivery/mail.ts';
import { alertContent, confirmationContent, pageEventContent } from '../server/delivery/templates.ts';
import type { ChannelTarget } from '../server/domain/notifications/channel-rules.ts';
import type { AlertEvent, PageEvent, PageRef } from '../server/domain/notifications/events.ts';
import { closedPort } from './support/grpc-peers.ts';
import { type HttpReceiver, type SmtpReceiver, startHttpReceiver, startSmtpReceiver, verifySignature } from './support/receivers.ts';

/*
 * The delivery layer against real loopback receivers (test/support/receivers.ts): an SMTP server
 * that decodes what it accepts, and an HTTP server that records every request.
 */

// ---------------------------------------------------------------------------------------------
// Fixtures and small peers

function alert(overrides: Partial<AlertEvent> = {}): AlertEvent {
  return {
    kind: 'down',
    monitor: { id: '12', name: 'api.example.com', type: 'http', target: 'https://api.example.com/health' },
    from: 'up',
    to: 'down',
    message: 'connection refused',
    at: '2026-03-01T14:05:09.000Z',
    workspace: { slug: 'personal', name: 'Personal' },
    ...overrides,
  };
}

const PAGE: PageRef = { id: 'p1', slug: 'acme', title: 'Acme Status', url: 'https://status.acme.test/acme' };
const UNSUBSCRIBE = 'https://status.acme.test/unsubscribe?token=u-123';

function reportEvent(
  kind: 'report.created' | 'report.updated' | 'report.resolved',
  status: 'investigating' | 'identified' | 'monitoring' | 'resolved',
): PageEvent {
  return {
    kind,
    page: PAGE,
    report: { id: 'r1', title: 'Elevated error rates', status, components: ['API', 'Website'] },
    update: { id: 'u1', status, message: 'We are looking into elevated error rates.\nMore soon.', at: '2026-03-01T14:05:09.000Z' },
  };
}

const MAINTENANCE: PageEvent = {
  kind: 'maintenance.scheduled',
  page: PAGE,
  maintenance: {
    id: 'm1',
    title: 'Database upgrade',
    message: 'The API will be read-only.',
    from: '2026-03-02T22:00:00.000Z',
    to: '2026-03-03T01:00:00.000Z',
    components: ['API'],
  },
};

/** A TCP listener that accepts connections and never sends a byte. */
async function startSilentListener(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.resume();
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The rejection of `promise`, which must reject. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Error, `rejected with a non-Error: ${String(error)}`);
    return error;
  }
  assert.fail('expected a rejection, but it resolved');
}

const json = (body: string) => JSON.parse(body) as Record<string, unknown>;

// ---------------------------------------------------------------------------------------------

describe('receivers', { timeout: 10_000 }, () => {
  test('waitFor rejects with what it expected once its time is up', async () => {
    const http = await startHttpReceiver();
    const smtp = await startSmtpReceiver();
    try {
      await assert.rejects(http.waitFor(1, 50), { message: 'expected 1 request within 50 ms, received 0' });
      await assert.rejects(smtp.waitFor(2, 50), { message: 'expected 2 mails within 50 ms, received 0' });
    } finally {
      await http.close();
      await smtp.close();
    }
  });

  test('close ends open connections at once: a pooled SMTP connection and a kept-alive HTTP one', async () => {
    const http = await startHttpReceiver();
    const smtp = await startSmtpReceiver();
    const m = createMailer(smtp.url);
    try {
      await postJson(http.url, {});
      await m.send({ from: 'a@acme.test', to: ['b@acme.test'], subject: 's', text: 't', html: 'h' });
      const started = Date.now();
      await Promise.all([http.close(), smtp.close()]);
      assert.ok(Date.now() - started < 1000, `closed in ${Date.now() - started} ms`);
      await assert.rejects(m.send({ from: 'a@acme.test', to: ['b@acme.test'], subject: 's', text: 't', html: 'h' }), /connection refused|closed/);
    } finally {
      m.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('mail over SMTP', { timeout: 15_000 }, () => {
  let smtp: SmtpReceiver;
  const mailers: Mailer[] = [];
  const mailer = (url: string) => {
    const m = createMailer(url);
    mailers.push(m);
    return m;
  };

  before(async () => {
    smtp = await startSmtpReceiver();
  });
  after(async () => {
    for (const m of mailers) m.close();
    await smtp.close();
  });

  test('a mail arrives with its sender, every recipient in one transaction, subject, both parts and headers', async () => {
    const before = smtp.mails.length;
    await mailer(smtp.url.replace('smtp://', 'smtp://alerts:hunter2@')).send({
      from: 'statusdesk@acme.test',
      to: ['ops@acme.test', 'oncall@acme.test'],
      subject: 'Grüße <from> Statusdesk',
      text: 'plain part',
      html: '<p>html part</p>',
      headers: { 'List-Unsubscribe': '<https://status.acme.test/u>' },
    });
    const mails = await smtp.waitFor(before + 1);
    assert.equal(smtp.mails.length, before + 1, 'one transaction for both recipients');
    const mail = mails[before]!;
    assert.equal(mail.envelopeFrom, 'statusdesk@acme.test');
    assert.deepEqual(mail.envelopeTo, ['ops@acme.test', 'oncall@acme.test']);
    assert.equal(mail.headers['from'], 'statusdesk@acme.test');
    assert.equal(mail.headers['to'], 'ops@acme.test, oncall@acme.test');
    assert.equal(mail.subject, 'Grüße <from> Statusdesk');
    assert.equal(mail.text.trim(), 'plain part');
    assert.equal(mail.html.trim(), '<p>html part</p>');
    assert.equal(mail.headers['list-unsubscribe'], '<https://status.acme.test/u>');
    assert.ok(smtp.logins.includes('alerts'), 'logged in with the user of the URL');
  });

  test('a refused recipient rejects send, naming the server and its answer but not the password', async () => {
    const rejecting = await startSmtpReceiver({ rejectRecipients: true });
    try {
      const url = `smtp://user:hunter2@127.0.0.1:${rejecting.port}`;
      const error = await rejection(mailer(url).send({ from: 'a@acme.test', to: ['b@acme.test'], subject: 's', text: 't', html: 'h' }));
      assert.match(error.message, new RegExp(`^SMTP 127\\.0\\.0\\.1:${rejecting.port} `));
      assert.match(error.message, /550/);
      assert.match(error.message, /mailbox unavailable/);
      assert.ok(!error.message.includes('hunter2'), error.message);
      assert.equal(rejecting.mails.length, 0);
      // The same receiver accepts again once it stops rejecting.
      rejecting.setRejecting(false);
      await mailer(url).send({ from: 'a@acme.test', to: ['b@acme.test'], subject: 's', text: 't', html: 'h' });
      await rejecting.waitFor(1);
    } finally {
      await rejecting.close();
    }
  });

  test('some recipients refused: the others get the mail, and send rejects naming the refused ones', async () => {
    const partial = await startSmtpReceiver({ refuseAddresses: ['gone@acme.test'] });
    try {
      const error = await rejection(
        mailer(partial.url).send({ from: 'a@acme.test', to: ['ops@acme.test', 'gone@acme.test'], subject: 's', text: 't', html: 'h' }),
      );
      assert.match(error.message, new RegExp(`^SMTP 127\\.0\\.0\\.1:${partial.port} refused 1 of 2 recipients \\(gone@acme\\.test\\): 550 `));
      const [mail] = await partial.waitFor(1);
      assert.deepEqual(mail!.envelopeTo, ['ops@acme.test']);
    } finally {
      await partial.close();
    }
  });

  test('a refused login rejects send with the server answer, without the password', async () => {
    const strict = await startSmtpReceiver({ rejectLogins: true });
    try {
      const error = await rejection(
        mailer(`smtp://user:hunter2@127.0.0.1:${strict.port}`).send({ from: 'a@acme.test', to: ['b@acme.test'], subject: 's', text: 't', html: 'h' }),
      );
      assert.match(error.message, new RegExp(`^SMTP 127\\.0\\.0\\.1:${strict.port} authentication failed: 535 `));
      assert.ok(!error.message.includes('hunter2'), error.message);
      assert.deepEqual(strict.logins, ['user']);
      assert.equal(strict.mails.length, 0);
    } finally {
      await strict.close();
    }
  });

  test('a server that is not there rejects send with connection refused', async () => {
    const port = await closedPort();
    const error = await rejection(
      mailer(`smtp://user:hunter2@127.0.0.1:${port}`).send({ from: 'a@acme.test', to: ['b@acme.test'], subject: 's', text: 't', html: 'h' }),
    );
    assert.equal(error.message, `SMTP 127.0.0.1:${port} connection refused`);
  });

  test('a URL that is not smtp:// or smtps:// is refused without being quoted', () => {
    assert.throws(
      () => createMailer('https://user:hunter2@mail.acme.test'),
      (error: Error) => /smtp:\/\/ or smtps:\/\//.test(error.message) && !error.message.includes('hunter2'),
    );
    assert.throws(
      () => createMailer('smtp://user:hunter2@[bad'),
      (error: Error) => !error.message.includes('hunter2'),
    );
  });
});

// ---------------------------------------------------------------------------------------------

describe('signed JSON POST', { timeout: 15_000 }, () => {
  let receiver: HttpReceiver;
  const SECRET = 'whsec-0123456789abcdef';

  before(async () => {
    receiver = await startHttpReceiver();
  });
  after(async () => {
    await receiver.close();
  });

  test('signPayload is t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">', () => {
    const body = '{"a":1}';
    const expected = createHmac('sha256', SECRET).update(`1700000000.${body}`).digest('hex');
    assert.equal(signPayload(SECRET, body, 1_700_000_000_999), `t=1700000000,v1=${expected}`);
  });

  test('a POST carries the JSON, its headers and a signature that verifies; tampering or age does not', async () => {
    const before = receiver.requests.length;
    const started = Date.now();
    await postJson(
      `${receiver.url}/hooks/abc`,
      { hello: 'world', n: 1 },
      { secret: SECRET, event: 'monitor.down', headers: { 'x-team': 'ops', 'Content-Type': 'text/plain' } },
    );
    const request = (await receiver.waitFor(before + 1))[before]!;
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/hooks/abc');
    assert.deepEqual(JSON.parse(request.body), { hello: 'world', n: 1 });
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers['user-agent'], 'Statusdesk');
    assert.equal(request.headers['x-statusdesk-event'], 'monitor.down');
    assert.equal(request.headers['x-team'], 'ops');
    const signature = request.headers[SIGNATURE_HEADER];
    assert.ok(signature, 'signed');
    const t = Number(/^t=(\d+),v1=[0-9a-f]{64}$/.exec(signature)?.[1]);
    assert.ok(t >= Math.floor(started / 1000) && t <= Math.ceil(Date.now() / 1000), `timestamp ${t} is now`);

    assert.equal(verifySignature(SECRET, signature, request.body), true);
    assert.equal(verifySignature(SECRET, signature, request.body.replace('world', 'World')), false, 'tampered body');
    assert.equal(verifySignature('another-secret-0123', signature, request.body), false, 'wrong secret');
    assert.equal(verifySignature(SECRET, signature, request.body, { now: (t + 301) * 1000 }), false, 'older than 300 s');
    assert.equal(verifySignature(SECRET, signature, request.body, { now: (t + 299) * 1000 }), true, 'within 300 s');
    assert.equal(verifySignature(SECRET, signature, request.body, { now: (t + 299) * 1000, toleranceSeconds: 60 }), false, 'own tolerance');
  });

  test('an old or malformed signature header is false, not an exception', () => {
    const body = '{"a":1}';
    const old = signPayload(SECRET, body, Date.now() - 301_000);
    assert.equal(verifySignature(SECRET, old, body), false);
    const good = signPayload(SECRET, body);
    const v1 = good.split(',v1=')[1]!;
    for (const header of [
      '',
      'garbage',
      `v1=${v1}`,
      't=abc,v1=' + v1,
      `t=${Math.floor(Date.now() / 1000)}`,
      `t=${Math.floor(Date.now() / 1000)},v1=zz`,
      `t=${Math.floor(Date.now() / 1000)},v1=${v1.slice(2)}`,
      `${good},t=1`,
    ]) {
      assert.equal(verifySignature(SECRET, header, body), false, `header ${JSON.stringify(header)}`);
    }
    assert.equal(verifySignature(SECRET, `${good},v1=${'0'.repeat(64)}`, body), true, 'one matching v1 of several');
  });

  test('without secret or event, neither header is sent, and given headers cannot forge them', async () => {
    const before = receiver.requests.length;
    await postJson(receiver.url, [1, 2], { headers: { [SIGNATURE_HEADER]: 'forged', 'x-statusdesk-event': 'forged' } });
    const request = (await receiver.waitFor(before + 1))[before]!;
    assert.equal(request.headers[SIGNATURE_HEADER], undefined);
    assert.equal(request.headers['x-statusdesk-event'], undefined);
    assert.equal(request.body, '[1,2]');
  });

  for (const status of [500, 404, 302]) {
    test(`a ${status} answer throws, naming only the origin`, async () => {
      const failing = await startHttpReceiver({ status });
      try {
        const error = await rejection(postJson(`${failing.url}/services/T000/B000/xoxb-secret-token?key=q-secret`, { a: 1 }));
        assert.equal(error.message, `POST ${failing.url} answered ${status}`);
        assert.ok(!error.message.includes('secret'), error.message);
        await failing.waitFor(1);
        assert.equal(failing.requests.length, 1, 'a redirect is not followed');
      } finally {
        await failing.close();
      }
    });
  }

  test('a status that changes is seen: 2xx resolves, then 503 throws', async () => {
    const flaky = await startHttpReceiver({ status: 204 });
    try {
      await postJson(flaky.url, {});
      flaky.setStatus(503);
      assert.equal((await rejection(postJson(flaky.url, {}))).message, `POST ${flaky.url} answered 503`);
    } finally {
      await flaky.close();
    }
  });

  test('a closed port throws connection refused, naming only the origin', async () => {
    const port = await closedPort();
    const error = await rejection(postJson(`http://127.0.0.1:${port}/hook/path-token-123`, {}));
    assert.equal(error.message, `POST http://127.0.0.1:${port} failed: connection refused`);
  });

  test('a server that never answers throws after the timeout', async () => {
    const silent = await startSilentListener();
    try {
      const started = Date.now();
      const error = await rejection(postJson(`${silent.url}/hook/path-token-123`, {}, { timeoutMs: 200 }));
      assert.equal(error.message, `POST ${silent.url} timed out after 200 ms`);
      assert.ok(Date.now() - started < 2000, 'gave up in time');
    } finally {
      await silent.close();
    }
  });

  test('an address that is not http(s) or not a URL is refused without being quoted', async () => {
    assert.equal((await rejection(postJson('not a url/token-123', {}))).message, 'POST failed: the address is not a valid URL');
    assert.match((await rejection(postJson('ftp://files.acme.test/token-123', {}))).message, /only http:\/\/ and https:\/\//);
    const error = await rejection(postJson(`${receiver.url}/x`, {}, { headers: { 'x-token': 'token-123\nInjected: 1' } }));
    assert.ok(!error.message.includes('token-123'), error.message);
  });
});

// ---------------------------------------------------------------------------------------------

describe('message content', () => {
  test('alert subjects name the change, the monitor and its id; a test send says so', () => {
    assert.equal(alertContent(alert()).subject, '[Down] api.example.com (monitor 12)');
    assert.equal(alertContent(alert({ kind: 'recovered', from: 'down', to: 'up' })).subject, '[Recovered] api.example.com (monitor 12)');
    assert.equal(alertContent(alert({ kind: 'degraded', from: 'up', to: 'degraded' })).subject, '[Degraded] api.example.com (monitor 12)');
    assert.equal(alertContent(alert({ test: true })).subject, '[Test] [Down] api.example.com (monitor 12)');
  });

  test('an alert states the monitor, type, target, message, time and change in both parts', () => {
    const content = alertContent(alert({ from: null }));
    for (const part of [content.text, content.html]) {
      for (const fact of [
        'api.example.com',
        'http',
        'https://api.example.com/health',
        'connection refused',
        '2026-03-01 14:05:09 UTC',
        'first result: down',
        'Personal',
      ]) {
        assert.ok(part.includes(fact), `missing ${fact}`);
      }
    }
    assert.ok(alertContent(alert()).text.includes('up → down'));
  });

  test('every interpolated value is escaped in HTML', () => {
    const evil = '<script>alert(1)</script>';
    const content = alertContent(alert({ monitor: { id: '12', name: evil, type: 'http', target: 'https://x.test/?a="><img src=x>' }, message: 'a & b' }));
    assert.ok(!content.html.includes('<script'), 'no script element');
    assert.ok(!content.html.includes('<img'), 'no injected element');
    assert.ok(content.html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(content.html.includes('a &amp; b'));
    assert.ok(content.text.includes(evil), 'plain text keeps the name as it is');
    assert.ok(content.subject.includes(evil));

    const page = pageEventContent(
      { ...reportEvent('report.created', 'investigating'), page: { ...PAGE, title: '<b>Acme</b>', url: 'https://status.acme.test/?q="><script>x</script>' } },
      { unsubscribeUrl: 'javascript:alert(1)' },
    );
    assert.ok(!page.html.includes('<script') && !page.html.includes('<b>'), page.html);
    assert.ok(!page.html.includes('href="javascript:'), 'a javascript: address is not a link');
  });

  test('the HTML is a plain mail: no scripts, no images, nothing loaded from elsewhere', () => {
    for (const content of [
      alertContent(alert()),
      pageEventContent(MAINTENANCE, { unsubscribeUrl: UNSUBSCRIBE }),
      confirmationContent(PAGE, 'https://status.acme.test/confirm?t=1'),
    ]) {
      assert.match(content.html, /^<!DOCTYPE html>\n<html lang="en">/);
      assert.doesNotMatch(content.html, /<script|<img|<link|<style|src=|url\(/i);
    }
  });

  test('subscriber subjects: report status or maintenance window, behind the page title', () => {
    assert.equal(
      pageEventContent(reportEvent('report.created', 'investigating'), { unsubscribeUrl: UNSUBSCRIBE }).subject,
      '[Acme Status] Investigating: Elevated error rates',
    );
    assert.equal(
      pageEventContent(reportEvent('report.updated', 'identified'), { unsubscribeUrl: UNSUBSCRIBE }).subject,
      '[Acme Status] Identified: Elevated error rates',
    );
    assert.equal(
      pageEventContent(reportEvent('report.resolved', 'resolved'), { unsubscribeUrl: UNSUBSCRIBE }).subject,
      '[Acme Status] Resolved: Elevated error rates',
    );
    assert.equal(
      pageEventContent(MAINTENANCE, { unsubscribeUrl: UNSUBSCRIBE }).subject,
      '[Acme Status] Scheduled maintenance: Database upgrade (from 2026-03-02 22:00 UTC to 2026-03-03 01:00 UTC)',
    );
  });

  test('a subscriber mail has the message, status, components, the page and the unsubscribe link', () => {
    const report = pageEventContent(reportEvent('report.updated', 'monitoring'), { unsubscribeUrl: UNSUBSCRIBE });
    for (const part of [report.text, report.html]) {
      for (const fact of ['We are looking into elevated error rates.', 'Monitoring', 'API, Website', PAGE.url])
        assert.ok(part.includes(fact), `missing ${fact}`);
    }
    assert.ok(report.text.includes(UNSUBSCRIBE));
    assert.ok(report.html.includes(`href="${UNSUBSCRIBE}"`));
    const maintenance = pageEventContent(MAINTENANCE, { unsubscribeUrl: UNSUBSCRIBE });
    for (const fact of ['The API will be read-only.', 'API', PAGE.url, UNSUBSCRIBE]) assert.ok(maintenance.text.includes(fact), `missing ${fact}`);
  });

  test('the confirmation mail links the confirmation and says ignoring it does nothing', () => {
    const confirmUrl = 'https://status.acme.test/confirm?token=c-456';
    const content = confirmationContent(PAGE, confirmUrl);
    assert.equal(content.subject, 'Confirm your subscription to Acme Status');
    assert.ok(content.text.includes(confirmUrl));
    assert.ok(content.html.includes(`href="${confirmUrl}"`));
    for (const part of [content.text, content.html]) assert.match(part, /ignore this mail: nothing happens/);
  });
});

// ---------------------------------------------------------------------------------------------

describe('deliverAlert', { timeout: 15_000 }, () => {
  let http: HttpReceiver;
  let smtp: SmtpReceiver;
  let relay: Mailer;
  const own: Mailer[] = [];
  const asked: (string | undefined)[] = [];
  const shown: AlertEvent[] = [];
  let deps: AlertDeliveryDeps;

  before(async () => {
    http = await startHttpReceiver();
    smtp = await startSmtpReceiver();
    relay = createMailer(smtp.url);
    deps = {
      mailer(smtpUrl) {
        asked.push(smtpUrl);
        if (smtpUrl === undefined) return relay;
        const m = createMailer(smtpUrl);
        own.push(m);
        return m;
      },
      mailFrom: 'statusdesk@relay.test',
      desktop: (event) => void shown.push(event),
      timeoutMs: 2000,
    };
  });
  after(async () => {
    relay.close();
    for (const m of own) m.close();
    await http.close();
    await smtp.close();
  });

  /** Delivers and returns the one request it made. */
  async function delivered(target: ChannelTarget, event = alert()) {
    const before = http.requests.length;
    await deliverAlert(target, event, deps);
    const requests = await http.waitFor(before + 1);
    assert.equal(http.requests.length, before + 1, 'one request');
    return requests[before]!;
  }

  test('webhook: the alert as signed JSON with its event name and the channel headers', async () => {
    const secret = 'channel-secret-0123456789';
    const event = alert({ test: true });
    const request = await delivered(
      { kind: 'webhook', settings: {}, credentials: { url: `${http.url}/hook/tok-1`, secret, headers: { 'x-team': 'ops' } } },
      event,
    );
    assert.equal(request.path, '/hook/tok-1');
    // A test send is the `test` event, whatever alert it shows.
    assert.deepEqual(JSON.parse(request.body), { event: 'test', ...event });
    assert.equal(request.headers['x-statusdesk-event'], 'test');
    assert.equal(request.headers['x-team'], 'ops');
    assert.equal(verifySignature(secret, request.headers[SIGNATURE_HEADER] ?? '', request.body), true);

    const recovered = await delivered(
      { kind: 'webhook', settings: {}, credentials: { url: http.url, secret: 'another-secret-0123456', headers: {} } },
      alert({ kind: 'recovered', from: 'down', to: 'up' }),
    );
    assert.equal(json(recovered.body)['event'], 'monitor.recovered');
    assert.equal(recovered.headers['x-statusdesk-event'], 'monitor.recovered');
    assert.equal(verifySignature(secret, recovered.headers[SIGNATURE_HEADER] ?? '', recovered.body), false, "signed with that channel's secret");
    assert.equal(verifySignature('another-secret-0123456', recovered.headers[SIGNATURE_HEADER] ?? '', recovered.body), true);
  });

  test('slack: text and a mrkdwn section, with Slack control characters escaped', async () => {
    const request = await delivered(
      { kind: 'slack', settings: {}, credentials: { webhookUrl: `${http.url}/services/T/B/x` } },
      alert({ monitor: { id: '7', name: '<!channel> & co', type: 'tcp', target: 'db:5432' } }),
    );
    const body = json(request.body) as { text: string; blocks: { type: string; text: { type: string; text: string } }[] };
    assert.equal(body.text, '[Down] &lt;!channel&gt; &amp; co (monitor 7): connection refused');
    assert.equal(body.blocks.length, 1);
    assert.equal(body.blocks[0]!.type, 'section');
    assert.equal(body.blocks[0]!.text.type, 'mrkdwn');
    assert.match(body.blocks[0]!.text.text, /&lt;!channel&gt; &amp; co is down/);
    assert.match(body.blocks[0]!.text.text, /db:5432/);
    assert.ok(!body.blocks[0]!.text.text.includes('<!channel>'));
  });

  test('discord: an embed with title, description, colour by kind and timestamp, and no mentions', async () => {
    const colours: [AlertEvent['kind'], number][] = [
      ['down', 0xd93025],
      ['recovered', 0x1e8e3e],
      ['degraded', 0xf29900],
    ];
    for (const [kind, colour] of colours) {
      const request = await delivered({ kind: 'discord', settings: {}, credentials: { webhookUrl: `${http.url}/api/webhooks/1/tok` } }, alert({ kind }));
      const body = json(request.body) as {
        embeds: { title: string; description: string; color: number; timestamp: string }[];
        allowed_mentions: { parse: string[] };
      };
      assert.equal(body.embeds.length, 1);
      const [embed] = body.embeds;
      assert.equal(embed!.title, alertContent(alert({ kind })).subject);
      assert.equal(embed!.color, colour);
      assert.equal(embed!.color, DISCORD_COLOR[kind]);
      assert.equal(embed!.timestamp, '2026-03-01T14:05:09.000Z');
      assert.match(embed!.description, /connection refused/);
      assert.deepEqual(body.allowed_mentions, { parse: [] });
    }
  });

  test('ntfy: JSON to the server root with topic, title, priority, tags, and the token as Bearer', async () => {
    const request = await delivered({ kind: 'ntfy', settings: { server: http.url }, credentials: { topic: 'ops-alerts', token: 'tk_abc' } });
    assert.equal(request.path, '/');
    assert.equal(request.headers['authorization'], 'Bearer tk_abc');
    const body = json(request.body);
    assert.equal(body['topic'], 'ops-alerts');
    assert.equal(body['title'], '[Down] api.example.com (monitor 12)');
    assert.match(String(body['message']), /connection refused/);
    assert.equal(body['priority'], 4);
    assert.deepEqual(body['tags'], ['rotating_light']);

    const plain = await delivered(
      { kind: 'ntfy', settings: { server: http.url, priority: 2 }, credentials: { topic: 'ops-alerts' } },
      alert({ kind: 'recovered', from: 'down', to: 'up' }),
    );
    assert.equal(plain.headers['authorization'], undefined, 'no token, no authorization');
    assert.equal(json(plain.body)['priority'], 2, "the channel's priority");
  });

  test("email: one mail to every recipient, from the channel's sender, through the channel's own SMTP URL", async () => {
    const before = smtp.mails.length;
    const url = smtp.url.replace('smtp://', 'smtp://ch:pw@');
    asked.length = 0;
    await deliverAlert(
      { kind: 'email', settings: { to: ['a@acme.test', 'b@acme.test', 'c@acme.test'], from: 'alerts@acme.test' }, credentials: { smtpUrl: url } },
      alert(),
      deps,
    );
    assert.deepEqual(asked, [url]);
    const mail = (await smtp.waitFor(before + 1))[before]!;
    assert.deepEqual(mail.envelopeTo, ['a@acme.test', 'b@acme.test', 'c@acme.test']);
    assert.equal(mail.envelopeFrom, 'alerts@acme.test');
    assert.equal(mail.subject, '[Down] api.example.com (monitor 12)');
    assert.match(mail.text, /connection refused/);
    assert.match(mail.html, /<h1[^>]*>api\.example\.com is down<\/h1>/);
  });

  test("email without its own SMTP URL or sender uses the service's relay and STATUSDESK_MAIL_FROM; HTML stays escaped", async () => {
    const before = smtp.mails.length;
    asked.length = 0;
    await deliverAlert(
      { kind: 'email', settings: { to: ['ops@acme.test'] }, credentials: {} },
      alert({ monitor: { id: '9', name: '<script>x</script>', type: 'http', target: 'https://x.test' } }),
      deps,
    );
    assert.deepEqual(asked, [undefined]);
    const mail = (await smtp.waitFor(before + 1))[before]!;
    assert.equal(mail.envelopeFrom, 'statusdesk@relay.test');
    assert.equal(mail.subject, '[Down] <script>x</script> (monitor 9)');
    assert.ok(!mail.html.includes('<script>'), 'escaped on arrival');
    assert.ok(mail.html.includes('&lt;script&gt;x&lt;/script&gt;'));
  });

  test('email: a relay that is not configured rejects with its own error', async () => {
    const error = await rejection(
      deliverAlert({ kind: 'email', settings: { to: ['ops@acme.test'] }, credentials: {} }, alert(), {
        ...deps,
        mailer: () => {
          throw new Error('no SMTP relay is configured: set STATUSDESK_SMTP_URL');
        },
      }),
    );
    assert.match(error.message, /STATUSDESK_SMTP_URL/);
  });

  test('desktop: handed to the desktop dependency, nothing sent over the network', async () => {
    const before = { requests: http.requests.length, mails: smtp.mails.length, shown: shown.length };
    const event = alert({ kind: 'degraded', to: 'degraded' });
    await deliverAlert({ kind: 'desktop', settings: {}, credentials: {} }, event, deps);
    assert.equal(shown.length, before.shown + 1);
    assert.equal(shown.at(-1), event);
    assert.equal(http.requests.length, before.requests);
    assert.equal(smtp.mails.length, before.mails);
  });

  test('a failed delivery rejects with the origin-only error', async () => {
    http.setStatus(500);
    try {
      const error = await rejection(
        deliverAlert({ kind: 'slack', settings: {}, credentials: { webhookUrl: `${http.url}/services/T/B/secret-xyz` } }, alert(), deps),
      );
      assert.equal(error.message, `POST ${http.url} answered 500`);
    } finally {
      http.setStatus(200);
    }
  });
});
