/**
 * The paging, push and SMS channel kinds (PagerDuty, Opsgenie, Pushover, Gotify, Home Assistant,
 * Twilio) and the custom webhook, each against a loopback stand-in of its product's API
 * (test/support/paging-receiver.ts) that checks the request as the product's documentation
 * describes it: method, path, query, how the credential is sent, content type and body. Channels
 * are made through the channel service on a real data folder, and their alerts sent from the
 * targets it opens; PagerDuty and Opsgenie resolve and close what an outage opened. Each kind also
 * meets a product that refuses (its own error body, shown in the error), one that fails (5xx) and
 * one that never answers (bounded by the timeout); every field's bad input is refused naming the
 * field and its rule; and no credential is left in clear in the data folder.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { channelCommands } from '../server/cli/channel-commands.ts';
import { readFlag } from '../server/cli/declared-flags.ts';
import { UsageError } from '../server/cli/output.ts';
import type { Database } from '../server/db/schema.ts';
import { DEFAULT_TEMPLATE, TEMPLATE_LIMITS, templateVariables } from '../server/delivery/channels/body-template.ts';
import { channelSpecOf, sendAlert } from '../server/delivery/channels/registry.ts';
import type { Actor } from '../server/domain/actor.ts';
import type { ChannelTarget } from '../server/domain/notifications/channel-rules.ts';
import type { AlertEvent } from '../server/domain/notifications/events.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { AppError } from '../server/errors.ts';
import { createServices, type Services } from '../server/services.ts';
import { onPostgres, openTestDatabase } from './support/database.ts';
import { rejectsWith, tempDir } from './support/harness.ts';
import { type ApiAnswer, type ApiReceiver, type ApiRequest, startApiReceiver } from './support/paging-receiver.ts';

const system: Actor = { type: 'system', surface: 'cli' };

let dir: Awaited<ReturnType<typeof tempDir>>;
let db: Kysely<Database>;
let services: Services;
let ws: number;
let api: ApiReceiver;

before(async () => {
  dir = await tempDir();
  db = await openTestDatabase(dir.path);
  services = createServices(db);
  const owner: Actor = { type: 'user', userId: await ensureOwner(db), surface: 'cli' };
  ws = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
  api = await startApiReceiver();
});

after(async () => {
  await api?.close();
  services?.close();
  await db?.destroy();
  await dir?.remove();
});

// ---- events and helpers --------------------------------------------------------------------------

const LINK = 'https://status.example.com/dashboard/monitors/12';

/** An outage of a monitor whose name and message would be markup, a link and mentions if not escaped. */
const down = (monitorId: string): AlertEvent => ({
  kind: 'down',
  monitor: { id: monitorId, name: 'Checkout <b>"EU"</b> *API* @here', type: 'http', target: 'https://api.example.com/health' },
  from: 'up',
  to: 'down',
  message: 'status 503 & <script>alert(1)</script> [x](https://evil.example)',
  at: '2026-03-01T14:05:09.000Z',
  workspace: { slug: 'personal', name: 'Personal' },
  regions: ['fra', 'iad'],
  link: LINK,
});
const degraded = (monitorId: string): AlertEvent => ({ ...down(monitorId), kind: 'degraded', to: 'degraded', message: 'slow: 2300 ms' });
const recovered = (monitorId: string): AlertEvent => ({
  ...down(monitorId),
  kind: 'recovered',
  from: 'down',
  to: 'up',
  message: 'status 200',
  at: '2026-03-01T14:17:09.000Z',
  regions: undefined,
  downForMs: 12 * 60_000,
});

/** What sending needs besides HTTP: nothing of it is used by these kinds. */
const deps = (timeoutMs = 5_000) => ({
  timeoutMs,
  mailFrom: 'unused@example.test',
  mailer: () => assert.fail('no kind here mails'),
  desktop: () => assert.fail('no kind here uses the desktop app'),
});

/** The next requests the receiver gets while `send` runs. */
async function requestsOf(send: () => Promise<unknown>): Promise<ApiRequest[]> {
  const start = api.requests.length;
  await send();
  return api.requests.slice(start);
}

/** Answers every request with `answer` while `run` runs, then the default 200 again. */
async function answering<T>(answer: ApiAnswer | ((request: ApiRequest) => ApiAnswer), run: () => Promise<T>): Promise<T> {
  api.answer(typeof answer === 'function' ? answer : () => answer);
  try {
    return await run();
  } finally {
    api.answer(() => ({ status: 200, body: {} }));
  }
}

/** The error a promise rejects with; fails when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  return assert.fail('expected a rejection');
}

/**
 * A channel of `kind` made through the channel service, wired to a monitor of its own, and the
 * target the alert path opens for it (credentials unsealed from the database); `id` is the
 * channel's and `monitorId` the monitor's.
 */
async function channel(kind: string, config: Record<string, unknown>) {
  const monitor = await services.monitors.create(system, ws, 'tcp', { name: `${kind} monitor`, uri: '127.0.0.1:9', periodicity: '10m', regions: ['iad'] });
  const made = await services.channels.create(system, ws, { name: `${kind} ${monitor.id}`, kind, monitorIds: [monitor.id], config });
  const [opened] = await services.channels.targetsOf(Number(monitor.id));
  assert.ok(opened && !(opened.target instanceof AppError), 'the channel opens for delivery');
  const target = opened.target as ChannelTarget;
  return { id: made.id, monitorId: monitor.id, target, send: (event: AlertEvent, timeoutMs?: number) => sendAlert(target, event, deps(timeoutMs)) };
}

/**
 * The failures every kind meets: a 5xx names the product and the status, a receiver that never
 * answers is given up on after the timeout, and the test send through the channel service
 * reports the product's refusal, in its own words, as `delivered: false`.
 */
async function failures(made: Awaited<ReturnType<typeof channel>>, product: string, refusal: { status: number; body: unknown }, refused: string) {
  const failed = await answering({ status: 503, body: '' }, () => rejection(made.send(down(made.monitorId))));
  assert.equal(failed.message, `${product} answered 503`);

  const started = Date.now();
  const hung = await answering('hang', () => rejection(made.send(down(made.monitorId), 300)));
  assert.match(hung.message, new RegExp(`^(POST|PUT|PATCH) ${api.url} timed out after 300 ms$`));
  assert.ok(Date.now() - started < 3_000, `gave up after ${Date.now() - started} ms`);

  const tested = await answering(refusal, () => services.channels.test(system, ws, made.id));
  assert.deepEqual(tested, { delivered: false, error: refused });
}

const KEY32 = 'R0UT1NGKEY0F32CHARACTERS00000000';

// ---- PagerDuty ------------------------------------------------------------------------------------

describe('pagerduty', () => {
  test('a down alert triggers an Events API v2 event, degraded updates it, recovered resolves the same dedup key', async () => {
    const made = await channel('pagerduty', { routingKey: KEY32, apiBaseUrl: api.url });
    const key = `statusdesk-personal-monitor-${made.monitorId}`;
    const [trigger] = await requestsOf(() => made.send(down(made.monitorId)));
    assert.equal(trigger!.method, 'POST');
    assert.equal(trigger!.path, '/v2/enqueue');
    assert.equal(trigger!.headers['content-type'], 'application/json');
    assert.equal(trigger!.headers.authorization, undefined, 'the routing key travels in the body, not a header');
    const { payload, ...event } = trigger!.json;
    assert.deepEqual(event, {
      routing_key: KEY32,
      event_action: 'trigger',
      dedup_key: key,
      client: 'Statusdesk',
      client_url: LINK,
      links: [{ href: LINK, text: 'Open the monitor in Statusdesk' }],
    });
    assert.deepEqual(
      { ...payload, custom_details: undefined },
      {
        summary: 'Checkout <b>"EU"</b> *API* @here is down: status 503 & <script>alert(1)</script> [x](https://evil.example)',
        source: 'https://api.example.com/health',
        severity: 'critical',
        timestamp: '2026-03-01T14:05:09.000Z',
        component: 'Checkout <b>"EU"</b> *API* @here',
        group: 'Personal',
        class: 'http',
        custom_details: undefined,
      },
    );
    assert.deepEqual(payload.custom_details, {
      Monitor: `Checkout <b>"EU"</b> *API* @here (monitor ${made.monitorId})`,
      Target: 'http https://api.example.com/health',
      'What happened': 'status 503 & <script>alert(1)</script> [x](https://evil.example)',
      Result: 'up → down',
      Regions: 'fra, iad',
      When: '2026-03-01 14:05:09 UTC',
      Workspace: 'Personal',
    });

    const [update] = await requestsOf(() => made.send(degraded(made.monitorId)));
    assert.deepEqual([update!.json.event_action, update!.json.dedup_key, update!.json.payload.severity], ['trigger', key, 'warning']);

    const [resolve] = await requestsOf(() => made.send(recovered(made.monitorId)));
    assert.deepEqual([resolve!.method, resolve!.path], ['POST', '/v2/enqueue']);
    assert.deepEqual(resolve!.json, { routing_key: KEY32, event_action: 'resolve', dedup_key: key });
  });

  test('downSeverity error; a tool drift alert has a key of its own; a long summary is cut at 1,024 characters', async () => {
    const made = await channel('pagerduty', { routingKey: KEY32, downSeverity: 'error', apiBaseUrl: `${api.url}/eu/` });
    const long = { ...down(made.monitorId), message: 'x'.repeat(2_000) };
    const [sent] = await requestsOf(() => made.send(long));
    assert.equal(sent!.path, '/eu/v2/enqueue', 'the base URL keeps its path');
    assert.equal(sent!.json.payload.severity, 'error');
    assert.equal(sent!.json.payload.summary.length, 1024);
    assert.ok(sent!.json.payload.summary.endsWith('…'));
    const [drift] = await requestsOf(() => made.send({ ...down(made.monitorId), kind: 'tool_drift', to: 'up', from: 'up' }));
    assert.equal(drift!.json.dedup_key, `statusdesk-personal-monitor-${made.monitorId}-tools`);
    assert.equal(drift!.json.payload.severity, 'warning');
  });

  test('an alert grouping several monitors triggers, and later resolves, one event per monitor, each with its own key and message', async () => {
    const made = await channel('pagerduty', { routingKey: KEY32, apiBaseUrl: api.url });
    const group = [
      { ...down(made.monitorId).monitor, message: 'connection refused' },
      { id: '9001', name: 'db', type: 'tcp', target: 'db.internal:5432', message: 'timed out' },
    ];
    const triggers = await requestsOf(() => made.send({ ...down(made.monitorId), group }));
    assert.deepEqual(
      triggers.map((r) => [r.json.event_action, r.json.dedup_key, r.json.payload.summary, r.json.payload.source]).sort(),
      [
        [
          'trigger',
          `statusdesk-personal-monitor-${made.monitorId}`,
          'Checkout <b>"EU"</b> *API* @here is down: connection refused',
          'https://api.example.com/health',
        ],
        ['trigger', 'statusdesk-personal-monitor-9001', 'db is down: timed out', 'db.internal:5432'],
      ].sort(),
    );
    const resolves = await requestsOf(() => made.send({ ...recovered(made.monitorId), group }));
    assert.deepEqual(resolves.map((r) => [r.json.event_action, r.json.dedup_key]).sort(), [
      ['resolve', `statusdesk-personal-monitor-${made.monitorId}`],
      ['resolve', 'statusdesk-personal-monitor-9001'],
    ]);
    const one = await answering(
      (request) =>
        request.json?.dedup_key === 'statusdesk-personal-monitor-9001'
          ? { status: 400, body: { message: 'Event object is invalid' } }
          : { status: 202, body: {} },
      () => rejection(made.send({ ...down(made.monitorId), group })),
    );
    assert.equal(one.message, '1 of 2 events failed: monitor 9001: PagerDuty refused: Event object is invalid');
  });

  test("a refusal shows PagerDuty's message and errors; 5xx; a hang is bounded; a test send has a key apart", async () => {
    const made = await channel('pagerduty', { routingKey: KEY32, apiBaseUrl: api.url });
    const body = { status: 'invalid event', message: 'Event object is invalid', errors: ["Length of 'routing_key' is incorrect (should be 32 characters)"] };
    const refused = await answering({ status: 400, body }, () => rejection(made.send(down(made.monitorId))));
    assert.equal(refused.message, "PagerDuty refused: Event object is invalid: Length of 'routing_key' is incorrect (should be 32 characters)");
    const echoed = await answering({ status: 400, body: { message: `unknown key ${KEY32}` } }, () => rejection(made.send(down(made.monitorId))));
    assert.equal(echoed.message, 'PagerDuty refused: unknown key ••••••••', 'the routing key is never repeated in an error');
    const [tested] = await requestsOf(() => services.channels.test(system, ws, made.id));
    assert.deepEqual([tested!.json.dedup_key, tested!.json.payload.summary.startsWith('[Test] Test monitor is down')], ['statusdesk-personal-test', true]);
    await failures(
      made,
      'PagerDuty',
      { status: 429, body: { status: 'throttle event', message: 'Requests for this service are arriving too quickly' } },
      'PagerDuty refused: Requests for this service are arriving too quickly',
    );
  });
});

// ---- Opsgenie -------------------------------------------------------------------------------------

describe('opsgenie', () => {
  const KEY = 'eb243592-faa2-4ba2-a551-1afdf565c889';

  test('a down alert creates an alert with the alias of the monitor; recovered closes it by that alias', async () => {
    const made = await channel('opsgenie', { apiKey: KEY, apiBaseUrl: api.url });
    const alias = `statusdesk-personal-monitor-${made.monitorId}`;
    const [create] = await requestsOf(() => made.send(down(made.monitorId)));
    assert.deepEqual([create!.method, create!.path, create!.query], ['POST', '/v2/alerts', {}]);
    assert.equal(create!.headers.authorization, `GenieKey ${KEY}`);
    assert.equal(create!.headers['content-type'], 'application/json');
    const { description, details, ...alert } = create!.json;
    assert.deepEqual(alert, {
      message: 'Checkout <b>"EU"</b> *API* @here is down',
      alias,
      entity: 'Checkout <b>"EU"</b> *API* @here',
      source: 'Statusdesk',
      tags: ['statusdesk', 'down'],
      priority: 'P1',
    });
    assert.match(description, /^Monitor: Checkout <b>"EU"<\/b> \*API\* @here \(monitor \d+\)\n/);
    assert.match(description, /\nWhat happened: status 503 & <script>alert\(1\)<\/script>/);
    assert.match(description, /\nRegions: fra, iad\n/);
    assert.match(description, new RegExp(`\\nDashboard: ${LINK}$`));
    assert.deepEqual([details.Result, details.Dashboard], ['up → down', LINK]);

    const [degradedAlert] = await requestsOf(() => made.send(degraded(made.monitorId)));
    assert.deepEqual([degradedAlert!.json.alias, degradedAlert!.json.priority], [alias, 'P3']);

    const [close] = await requestsOf(() => made.send(recovered(made.monitorId)));
    assert.deepEqual([close!.method, close!.path, close!.query], ['POST', `/v2/alerts/${alias}/close`, { identifierType: 'alias' }]);
    assert.equal(close!.headers.authorization, `GenieKey ${KEY}`);
    assert.deepEqual(close!.json, { source: 'Statusdesk', note: 'Checkout <b>"EU"</b> *API* @here is back up after 12 min' });
  });

  test('an alert grouping several monitors creates, and later closes, one alert per monitor', async () => {
    const made = await channel('opsgenie', { apiKey: KEY, apiBaseUrl: api.url });
    const group = [
      { ...down(made.monitorId).monitor, message: 'connection refused' },
      { id: '9002', name: 'cache', type: 'tcp', target: 'cache.internal:6379', message: 'timed out' },
    ];
    const created = await requestsOf(() => made.send({ ...down(made.monitorId), group }));
    assert.deepEqual(created.map((r) => [r.path, r.json.alias, r.json.message]).sort(), [
      ['/v2/alerts', `statusdesk-personal-monitor-${made.monitorId}`, 'Checkout <b>"EU"</b> *API* @here is down'],
      ['/v2/alerts', 'statusdesk-personal-monitor-9002', 'cache is down'],
    ]);
    const closed = await requestsOf(() => made.send({ ...recovered(made.monitorId), group }));
    assert.deepEqual(closed.map((r) => r.path).sort(), [
      `/v2/alerts/statusdesk-personal-monitor-${made.monitorId}/close`,
      '/v2/alerts/statusdesk-personal-monitor-9002/close',
    ]);
  });

  test('the priority is the channel’s; a message is cut at 130 characters', async () => {
    const made = await channel('opsgenie', { apiKey: KEY, priority: 'P4', apiBaseUrl: api.url });
    const named = { ...down(made.monitorId), monitor: { ...down(made.monitorId).monitor, name: 'n'.repeat(300) } };
    const [sent] = await requestsOf(() => made.send(named));
    assert.equal(sent!.json.priority, 'P4');
    assert.equal(sent!.json.message.length, 130);
  });

  test("a refusal shows Opsgenie's message and its errors; 5xx; a hang is bounded", async () => {
    const made = await channel('opsgenie', { apiKey: KEY, apiBaseUrl: api.url });
    const body = {
      message: 'Request body is not processable. Please check the errors.',
      errors: { message: 'Message can not be empty.' },
      took: 0.001,
      requestId: '43a29c5c-3dbf-4fa4-9c26-f4f71023e120',
    };
    const refused = await answering({ status: 422, body }, () => rejection(made.send(down(made.monitorId))));
    assert.equal(refused.message, 'Opsgenie refused: Request body is not processable. Please check the errors. message: Message can not be empty.');
    await failures(
      made,
      'Opsgenie',
      { status: 401, body: { message: 'Key format is not valid!', took: 0, requestId: 'x' } },
      'Opsgenie refused: Key format is not valid!',
    );
  });
});

// ---- Pushover -------------------------------------------------------------------------------------

describe('pushover', () => {
  const TOKEN = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
  const USER = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';

  test('a message in escaped Pushover HTML, with the link, the priority and the timestamp', async () => {
    const made = await channel('pushover', { appToken: TOKEN, userKey: USER, device: 'pixel,ipad', apiBaseUrl: api.url });
    const [sent] = await requestsOf(() => made.send(down(made.monitorId)));
    assert.deepEqual([sent!.method, sent!.path, sent!.headers['content-type']], ['POST', '/1/messages.json', 'application/json']);
    const { message, ...fields } = sent!.json;
    assert.deepEqual(fields, {
      token: TOKEN,
      user: USER,
      title: 'Checkout <b>"EU"</b> *API* @here is down',
      html: 1,
      priority: 1,
      timestamp: Date.parse('2026-03-01T14:05:09.000Z') / 1000,
      device: 'pixel,ipad',
      url: LINK,
      url_title: 'Open in Statusdesk',
    });
    assert.equal(
      message,
      [
        `<b>Monitor:</b> Checkout &lt;b&gt;&quot;EU&quot;&lt;/b&gt; *API* @here (monitor ${made.monitorId})`,
        '<b>Target:</b> http https://api.example.com/health',
        '<b>What happened:</b> status 503 &amp; &lt;script&gt;alert(1)&lt;/script&gt; [x](https://evil.example)',
        '<b>Result:</b> up → down',
        '<b>Regions:</b> fra, iad',
        '<b>When:</b> 2026-03-01 14:05:09 UTC',
        '<b>Workspace:</b> Personal',
      ].join('\n'),
    );
    const [back] = await requestsOf(() => made.send(recovered(made.monitorId)));
    assert.deepEqual([back!.json.title, back!.json.priority], ['Checkout <b>"EU"</b> *API* @here is back up after 12 min', 0]);
    assert.match(back!.json.message, /<b>Down for:<\/b> 12 min/);
  });

  test('an emergency priority carries retry and expire, a recovery never does; a long message stays within 1,024 characters, no entity cut', async () => {
    const made = await channel('pushover', { appToken: TOKEN, userKey: USER, priority: 2, apiBaseUrl: api.url });
    const [urgent] = await requestsOf(() => made.send({ ...down(made.monitorId), message: '<&>'.repeat(600) }));
    assert.deepEqual([urgent!.json.priority, urgent!.json.retry, urgent!.json.expire], [2, 60, 3600]);
    assert.ok(urgent!.json.message.length <= 1024, `${urgent!.json.message.length} characters`);
    assert.match(urgent!.json.message, /\n<b>What happened:<\/b> (&lt;&amp;&gt;)+(&lt;)?(&amp;)?…\n/, 'cut between entities');
    assert.match(urgent!.json.message, /\n<b>Workspace:<\/b> Personal$/, 'the facts after a long message still fit');
    const [back] = await requestsOf(() => made.send(recovered(made.monitorId)));
    assert.deepEqual([back!.json.priority, back!.json.retry, back!.json.expire], [0, undefined, undefined]);
  });

  test("a refusal shows Pushover's errors; 5xx; a hang is bounded", async () => {
    const made = await channel('pushover', { appToken: TOKEN, userKey: USER, apiBaseUrl: api.url });
    const body = { user: 'invalid', errors: ['user identifier is invalid'], status: 0, request: '5042853c-402d-4a18-abcb-168734a801de' };
    const refused = await answering({ status: 400, body }, () => rejection(made.send(down(made.monitorId))));
    assert.equal(refused.message, 'Pushover refused: user identifier is invalid');
    await failures(
      made,
      'Pushover',
      { status: 400, body: { token: 'invalid', errors: ['application token is invalid'], status: 0 } },
      'Pushover refused: application token is invalid',
    );
  });
});

// ---- Gotify ---------------------------------------------------------------------------------------

describe('gotify', () => {
  const TOKEN = 'AbCdEf.1234-_x';

  test('a Markdown message to /message of the server, its token in X-Gotify-Key, the link as the click URL', async () => {
    const made = await channel('gotify', { server: `${api.url}/gotify/`, appToken: TOKEN });
    const [sent] = await requestsOf(() => made.send(down(made.monitorId)));
    assert.deepEqual([sent!.method, sent!.path, sent!.query], ['POST', '/gotify/message', {}]);
    assert.equal(sent!.headers['x-gotify-key'], TOKEN);
    assert.equal(sent!.headers['content-type'], 'application/json');
    const { message, ...fields } = sent!.json;
    assert.deepEqual(fields, {
      title: 'Checkout <b>"EU"</b> *API* @here is down',
      priority: 8,
      extras: { 'client::display': { contentType: 'text/markdown' }, 'client::notification': { click: { url: LINK } } },
    });
    const lines = message.split('  \n');
    assert.equal(lines[0], `**Monitor:** Checkout \\<b\\>"EU"\\</b\\> \\*API\\* @here \\(monitor ${made.monitorId}\\)`);
    assert.equal(lines[2], '**What happened:** status 503 \\& \\<script\\>alert\\(1\\)\\</script\\> \\[x\\]\\(https://evil\\.example\\)');
    assert.equal(lines.at(-1), `[Open in Statusdesk](<${LINK}>)`);

    const [back] = await requestsOf(() => made.send({ ...recovered(made.monitorId), link: undefined }));
    assert.deepEqual(
      [back!.json.title, back!.json.priority, back!.json.extras],
      ['Checkout <b>"EU"</b> *API* @here is back up after 12 min', 5, { 'client::display': { contentType: 'text/markdown' } }],
    );
  });

  test("the channel's priority for down, at most 5 for the rest; a refusal shows Gotify's errorDescription; 5xx; a hang", async () => {
    const made = await channel('gotify', { server: api.url, appToken: TOKEN, priority: 3 });
    const [low] = await requestsOf(() => made.send(down(made.monitorId)));
    const [lower] = await requestsOf(() => made.send(degraded(made.monitorId)));
    assert.deepEqual([low!.json.priority, lower!.json.priority], [3, 3]);
    const body = { error: 'Unauthorized', errorCode: 401, errorDescription: 'you need to provide a valid access token or user credentials to access this api' };
    await failures(made, 'Gotify', { status: 401, body }, 'Gotify refused: you need to provide a valid access token or user credentials to access this api');
  });
});

// ---- Home Assistant -----------------------------------------------------------------------------

describe('home_assistant', () => {
  const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJ4In0.long-lived-token-1';

  test('a notify service call with the Bearer token, title, message and the link as data', async () => {
    const made = await channel('home_assistant', { server: api.url, token: TOKEN, service: 'mobile_app_pixel' });
    const [sent] = await requestsOf(() => made.send(down(made.monitorId)));
    assert.deepEqual([sent!.method, sent!.path], ['POST', '/api/services/notify/mobile_app_pixel']);
    assert.equal(sent!.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(sent!.headers['content-type'], 'application/json');
    assert.deepEqual(sent!.json, {
      title: 'Checkout <b>"EU"</b> *API* @here is down',
      message: [
        'Target: http https://api.example.com/health',
        'What happened: status 503 & <script>alert(1)</script> [x](https://evil.example)',
        'Result: up → down',
        'Regions: fra, iad',
        'When: 2026-03-01 14:05:09 UTC',
        'Workspace: Personal',
      ].join('\n'),
      data: { url: LINK, clickAction: LINK },
    });
    const [back] = await requestsOf(() => made.send({ ...recovered(made.monitorId), link: undefined }));
    assert.equal(back!.json.title, 'Checkout <b>"EU"</b> *API* @here is back up after 12 min');
    assert.equal(back!.json.data, undefined, 'no data without a link');
  });

  test("a refusal shows Home Assistant's message, JSON or plain; 5xx; a hang is bounded", async () => {
    const made = await channel('home_assistant', { server: api.url, token: TOKEN, service: 'mobile_app_gone' });
    const missing = await answering({ status: 400, body: { message: 'Service notify.mobile_app_gone not found.' } }, () =>
      rejection(made.send(down(made.monitorId))),
    );
    assert.equal(missing.message, 'Home Assistant refused: Service notify.mobile_app_gone not found.');
    await failures(made, 'Home Assistant', { status: 401, body: '401: Unauthorized' }, 'Home Assistant refused: 401: Unauthorized');
  });
});

// ---- Twilio ---------------------------------------------------------------------------------------

describe('twilio', () => {
  const SID = 'AC0123456789abcdef0123456789abcdef';
  const TOKEN = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
  const basic = `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`;

  test('one form-encoded Messages request per phone, with HTTP basic auth, a text of at most 320 characters ending in the link', async () => {
    const made = await channel('twilio', {
      accountSid: SID,
      authToken: TOKEN,
      fromNumber: '+14155550100',
      toNumbers: ['+14155550123', '+447700900123'],
      apiBaseUrl: api.url,
    });
    const sent = await requestsOf(() => made.send({ ...down(made.monitorId), message: 'm'.repeat(600) }));
    assert.equal(sent.length, 2);
    for (const request of sent) {
      assert.deepEqual([request.method, request.path], ['POST', `/2010-04-01/Accounts/${SID}/Messages.json`]);
      assert.equal(request.headers.authorization, basic);
      assert.equal(request.headers['content-type'], 'application/x-www-form-urlencoded');
      assert.deepEqual(Object.keys(request.form!).sort(), ['Body', 'From', 'To']);
      assert.equal(request.form!.From, '+14155550100');
      assert.ok(request.form!.Body!.length <= 320, `${request.form!.Body!.length} characters`);
      assert.ok(request.form!.Body!.startsWith('Checkout <b>"EU"</b> *API* @here is down (2026-03-01 14:05 UTC) [fra, iad]: mmm'));
      assert.ok(request.form!.Body!.endsWith(`…\n${LINK}`));
    }
    assert.deepEqual(sent.map((r) => r.form!.To).sort(), ['+14155550123', '+447700900123']);
    const [back] = await requestsOf(() => made.send({ ...recovered(made.monitorId), link: undefined }));
    assert.equal(back!.form!.Body, 'Checkout <b>"EU"</b> *API* @here is back up after 12 min (2026-03-01 14:17 UTC): status 200');
  });

  test("one phone Twilio refuses: the other still gets its text, and the error names the phone and Twilio's reason", async () => {
    const made = await channel('twilio', {
      accountSid: SID,
      authToken: TOKEN,
      fromNumber: '+14155550100',
      toNumbers: ['+15005550001', '+14155550123'],
      apiBaseUrl: api.url,
    });
    const body = {
      code: 21211,
      message: "The 'To' number +15005550001 is not a valid phone number.",
      more_info: 'https://www.twilio.com/docs/errors/21211',
      status: 400,
    };
    const start = api.requests.length;
    const error = await answering(
      (request) => (request.form?.To === '+15005550001' ? { status: 400, body } : { status: 201, body: { sid: 'SM0', status: 'queued' } }),
      () => rejection(made.send(down(made.monitorId))),
    );
    assert.equal(error.message, "1 of 2 texts failed: +15005550001: Twilio refused: The 'To' number +15005550001 is not a valid phone number. (error 21211)");
    assert.deepEqual(
      api.requests
        .slice(start)
        .map((r) => r.form!.To)
        .sort(),
      ['+14155550123', '+15005550001'],
    );
  });

  test("a refusal shows Twilio's message and code; 5xx; a hang is bounded", async () => {
    const made = await channel('twilio', { accountSid: SID, authToken: TOKEN, fromNumber: '+14155550100', toNumbers: ['+14155550123'], apiBaseUrl: api.url });
    const body = { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 };
    await failures(made, 'Twilio', { status: 401, body }, 'Twilio refused: Authenticate (error 20003)');
  });
});

// ---- custom webhook -------------------------------------------------------------------------------

describe('custom_webhook', () => {
  test('the method, headers, content type and the rendered template, every value JSON-escaped', async () => {
    const template =
      '{"title": {{ headline | json }}, "kind": {{ event.kind | json }}, "state": {{ state | json }}, "was": {{ previous_state | json }}, "where": {{ regions | json }}, "link": {{ link | json }}, "for": {{ down_for | json }}, "name": {{ monitor.name | json }}, "id": {{ monitor.id | json }}, "ws": {{ workspace.slug | json }}}';
    const made = await channel('custom_webhook', {
      url: `${api.url}/hooks/in?token=URL-TOKEN`,
      method: 'PUT',
      headers: { authorization: 'Bearer HEADER-TOKEN', 'X-Team': 'ops' },
      template,
    });
    const [sent] = await requestsOf(() => made.send(down(made.monitorId)));
    assert.deepEqual([sent!.method, sent!.path, sent!.query], ['PUT', '/hooks/in', { token: 'URL-TOKEN' }]);
    assert.equal(sent!.headers.authorization, 'Bearer HEADER-TOKEN');
    assert.equal(sent!.headers['x-team'], 'ops');
    assert.equal(sent!.headers['content-type'], 'application/json');
    assert.equal(sent!.headers['user-agent'], 'Statusdesk');
    assert.equal(sent!.headers['x-statusdesk-signature'], undefined, 'a custom webhook is not signed');
    assert.deepEqual(sent!.json, {
      title: 'Checkout <b>"EU"</b> *API* @here is down',
      kind: 'down',
      state: 'down',
      was: 'up',
      where: ['fra', 'iad'],
      link: LINK,
      for: null,
      name: 'Checkout <b>"EU"</b> *API* @here',
      id: made.monitorId,
      ws: 'personal',
    });
    const [back] = await requestsOf(() => made.send(recovered(made.monitorId)));
    assert.deepEqual([back!.json.kind, back!.json.for, back!.json.where], ['recovered', '12 min', []]);
  });

  test('without a template the body is the alert as JSON; a text template as the docs show it', async () => {
    const made = await channel('custom_webhook', { url: `${api.url}/default` });
    const [sent] = await requestsOf(() => made.send(recovered(made.monitorId)));
    assert.deepEqual([sent!.method, sent!.headers['content-type']], ['POST', 'application/json']);
    assert.deepEqual(sent!.json, {
      text: 'Checkout <b>"EU"</b> *API* @here is back up after 12 min',
      event: 'recovered',
      test: false,
      monitor: recovered(made.monitorId).monitor,
      state: 'up',
      previous_state: 'down',
      message: 'status 200',
      at: '2026-03-01T14:17:09.000Z',
      regions: [],
      down_for: '12 min',
      link: LINK,
      workspace: { slug: 'personal', name: 'Personal' },
    });

    const docs = readFileSync(new URL('../docs/reference/notifications.md', import.meta.url), 'utf8');
    const templates = [...docs.matchAll(/```liquid\n([\s\S]*?)\n```/g)].map((m) => m[1]);
    assert.equal(templates[0], DEFAULT_TEMPLATE, 'the reference shows the default template as it is');
    const text = await channel('custom_webhook', { url: `${api.url}/text`, method: 'PATCH', contentType: 'text/plain; charset=utf-8', template: templates[1] });
    const [plain] = await requestsOf(() => text.send({ ...down(text.monitorId), test: true }));
    assert.deepEqual([plain!.method, plain!.headers['content-type']], ['PATCH', 'text/plain; charset=utf-8']);
    assert.equal(
      plain!.body,
      `Checkout <b>"EU"</b> *API* @here is down (test): status 503 & <script>alert(1)</script> [x](https://evil.example) [fra, iad] ${LINK}`,
    );
  });

  test('a refusal shows the receiver’s words with its credentials hidden; 5xx; a hang is bounded', async () => {
    const made = await channel('custom_webhook', { url: `${api.url}/hooks/SECRET-PATH-1`, headers: { 'x-api-key': 'KEY-IN-A-HEADER' } });
    const echoed = await answering({ status: 403, body: { error: 'key KEY-IN-A-HEADER may not post to /hooks/SECRET-PATH-1' } }, () =>
      rejection(made.send(down(made.monitorId))),
    );
    assert.equal(echoed.message, `POST ${api.url} refused: key •••••••• may not post to ••••••••`);
    const failed = await answering({ status: 503, body: '' }, () => rejection(made.send(down(made.monitorId))));
    assert.equal(failed.message, `POST ${api.url} answered 503`);
    const started = Date.now();
    const hung = await answering('hang', () => rejection(made.send(down(made.monitorId), 300)));
    assert.equal(hung.message, `POST ${api.url} timed out after 300 ms`);
    assert.ok(Date.now() - started < 3_000);
    const tested = await answering({ status: 400, body: 'no such hook' }, () => services.channels.test(system, ws, made.id));
    assert.deepEqual(tested, { delivered: false, error: `POST ${api.url} refused: no such hook` });
  });

  test('a template is checked when written: parse errors, file tags, unknown names, limits, and JSON for a JSON content type', async () => {
    const url = `${api.url}/x`;
    const refused = async (config: Record<string, unknown>, rule: RegExp) => {
      const error = await rejectsWith(
        services.channels.create(system, ws, { name: 'bad template', kind: 'custom_webhook', config: { url, ...config } }),
        'VALIDATION',
        'config.template',
      );
      assert.match(error.violations[0]!.rule, rule);
    };
    await refused({ template: '{% if state %}open' }, /^must be a Liquid template: tag \{% if state %\} not closed/);
    await refused({ template: '{% include "/etc/passwd" %}' }, /^must be a Liquid template: tag "include" not found/);
    await refused({ template: '{% render "secret.key" %}' }, /^must be a Liquid template: tag "render" not found/);
    await refused({ template: '{% layout "x" %}' }, /^must be a Liquid template: tag "layout" not found/);
    await refused({ template: '{{ state | shell }}' }, /^must be a Liquid template: undefined filter: shell/);
    await refused({ template: '{{ monitr.name | json }}' }, /^must render an alert: rendering a down alert failed: undefined variable: monitr/);
    await refused({ template: '{{ monitor.constructor | json }}' }, /undefined variable: monitor\.constructor/);
    await refused({ template: '{% for a in (1..100000) %}{% for b in (1..100000) %}x{% endfor %}{% endfor %}' }, /template render limit exceeded/);
    await refused(
      { template: '{% assign s = "xxxxxxxxxx" %}{% for a in (1..30) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}', contentType: 'text/plain' },
      /memory alloc limit exceeded/,
    );
    await refused({ template: 'x'.repeat(TEMPLATE_LIMITS.length + 1) }, new RegExp(`^must be at most ${TEMPLATE_LIMITS.length} characters`));
    // A value put in without `| json` breaks the JSON on the example's quotes.
    await refused(
      { template: '{"name": "{{ monitor.name }}"}' },
      /^must render JSON for the content type application\/json: a down alert gave .*json filter, e\.g\. \{\{ monitor\.name \| json \}\}$/,
    );
    await refused(
      { template: '{{ headline }}', contentType: 'application/cloudevents+json' },
      /^must render JSON for the content type application\/cloudevents\+json/,
    );
    // The same text is a good body of another type, and a JSON template needs no JSON type.
    const text = await services.channels.create(system, ws, {
      name: 'text',
      kind: 'custom_webhook',
      config: { url, contentType: 'text/plain', template: '{{ headline }}' },
    });
    // Changing the content type checks the stored template again.
    await rejectsWith(services.channels.update(system, ws, text.id, { config: { contentType: 'application/json' } }), 'VALIDATION', 'config.template');
    assert.deepEqual(templateVariables(down('1')).link, LINK);
  });
});

// ---- validation and secrets ---------------------------------------------------------------------

describe('every field of every kind', () => {
  const valid: Record<string, Record<string, unknown>> = {
    pagerduty: { routingKey: KEY32 },
    opsgenie: { apiKey: 'eb243592-faa2-4ba2-a551-1afdf565c889' },
    pushover: { appToken: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi', userKey: 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG' },
    gotify: { server: 'https://gotify.example.com', appToken: 'AbCdEf.1234-_x' },
    home_assistant: { server: 'http://homeassistant.local:8123', token: 'abc.def.ghi', service: 'mobile_app_pixel' },
    twilio: {
      accountSid: 'AC0123456789abcdef0123456789abcdef',
      authToken: 'f0e1d2c3b4a5968778695a4b3c2d1e0f',
      fromNumber: '+14155550100',
      toNumbers: ['+14155550123'],
    },
    custom_webhook: { url: 'https://hooks.example.com/in' },
  };

  /** [kind, the bad field and its value, the field the error names, the rule it states]. */
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['pagerduty', { routingKey: undefined }, 'routingKey', /^is required: the 32-character integration key/],
    ['pagerduty', { routingKey: 'short' }, 'routingKey', /^must be the 32 letters and digits of an Events API v2 integration key$/],
    ['pagerduty', { downSeverity: 'info' }, 'downSeverity', /^must be critical or error$/],
    ['pagerduty', { apiBaseUrl: 'ftp://events.pagerduty.com' }, 'apiBaseUrl', /^must use http:\/\/ or https:\/\/, not ftp:\/\//],
    ['pagerduty', { apiBaseUrl: 'https://events.pagerduty.com/?x=1' }, 'apiBaseUrl', /^must have no query/],
    ['pagerduty', { apiBaseUrl: 'http://169.254.169.254' }, 'apiBaseUrl', /link-local|metadata/],
    ['opsgenie', { apiKey: 'not a key!' }, 'apiKey', /^must be an Opsgenie API key: 8 to 128 letters, digits or -$/],
    ['opsgenie', { priority: 'P9' }, 'priority', /^must be P1, P2, P3, P4 or P5$/],
    ['opsgenie', { apiBaseUrl: 'api.opsgenie.com' }, 'apiBaseUrl', /^must be an absolute http:\/\/ or https:\/\/ URL/],
    ['pushover', { appToken: 'x'.repeat(29) }, 'appToken', /^must be the 30 letters and digits of a Pushover application API token$/],
    ['pushover', { userKey: 'u'.repeat(31) }, 'userKey', /^must be the 30 letters and digits of a Pushover user or group key$/],
    ['pushover', { device: 'my phone' }, 'device', /^must be device names separated by commas, each 1 to 25 letters, digits, - or _$/],
    ['pushover', { priority: 3 }, 'priority', /^must be -2 to 2$/],
    ['pushover', { priority: 1.5 }, 'priority', /^must be a whole number$/],
    ['gotify', { server: undefined }, 'server', /^is required/],
    ['gotify', { appToken: 'has space' }, 'appToken', /^must be a Gotify application token: 1 to 128 letters, digits, \., - or _$/],
    ['gotify', { priority: 11 }, 'priority', /^must be 0 to 10$/],
    ['home_assistant', { server: 'homeassistant.local:8123' }, 'server', /http:\/\/ or https:\/\//],
    ['home_assistant', { token: 'two words' }, 'token', /^must be a long-lived access token/],
    [
      'home_assistant',
      { service: 'notify.mobile_app_pixel' },
      'service',
      /^must be the name of a notify service without "notify\.": lower-case letters, digits and _/,
    ],
    ['home_assistant', { service: 'Mobile-App' }, 'service', /^must be the name of a notify service/],
    ['twilio', { accountSid: 'SK0123456789abcdef0123456789abcdef' }, 'accountSid', /^must be a Twilio account SID: AC and 32 hexadecimal digits$/],
    ['twilio', { authToken: 'short' }, 'authToken', /^must be the 32 letters and digits of the account's auth token$/],
    ['twilio', { fromNumber: '4155550100' }, 'fromNumber', /^must be a phone number in E\.164 form, e\.g\. \+14155550100$/],
    ['twilio', { toNumbers: [] }, 'toNumbers', /^must name at least one phone number$/],
    [
      'twilio',
      { toNumbers: Array.from({ length: 11 }, (_, i) => `+1415555${String(i).padStart(4, '0')}`) },
      'toNumbers',
      /^must name at most 10 phone numbers$/,
    ],
    ['twilio', { toNumbers: ['+14155550123', '+14155550123'] }, 'toNumbers', /^must not name a phone number twice$/],
    ['twilio', { toNumbers: ['+14155550123', '0044 7700 900123'] }, 'toNumbers.1', /^must be a phone number in E\.164 form/],
    ['custom_webhook', { url: 'https://user:pass@hooks.example.com/in' }, 'url', /^must not carry credentials/],
    ['custom_webhook', { method: 'GET' }, 'method', /^must be POST, PUT or PATCH$/],
    ['custom_webhook', { headers: { 'Content-Type': 'text/plain' } }, 'headers', /^must not set content-type: set contentType instead$/],
    ['custom_webhook', { headers: { 'x-key': 'a\nb' } }, 'headers.x-key', /line breaks/],
    ['custom_webhook', { contentType: 'json' }, 'contentType', /^must be a media type, e\.g\. application\/json/],
    ['custom_webhook', { template: '' }, 'template', /^must not be empty$/],
  ];

  for (const [kind, bad, field, rule] of cases) {
    test(`${kind}: ${field} ${JSON.stringify(Object.values(bad)[0] ?? null).slice(0, 40)} is refused naming the rule`, async () => {
      const config = Object.fromEntries(Object.entries({ ...valid[kind], ...bad }).filter(([, value]) => value !== undefined));
      const error = await rejectsWith(services.channels.create(system, ws, { name: 'refused', kind, config }), 'VALIDATION', `config.${field}`);
      assert.match(error.violations[0]!.rule, rule);
    });
  }

  test('every kind is made of its valid fields, and no credential is in clear in the data folder, its answers or the audit log', async () => {
    const secrets = {
      pagerduty: { routingKey: 'PDSECRETKEY000000000000000000001' },
      opsgenie: { apiKey: 'ops-genie-secret-key-0002' },
      pushover: { appToken: 'PUSHOVERAPPTOKENSECRET00000003', userKey: 'PUSHOVERUSERKEYSECRET000000004' },
      gotify: { appToken: 'GOTIFY.SECRET-0005' },
      home_assistant: { token: 'HOMEASSISTANT.SECRET.TOKEN-0006' },
      twilio: { authToken: 'TWILIOSECRETAUTHTOKEN00000000007' },
      custom_webhook: { url: `${api.url}/hooks/CUSTOM-URL-SECRET-0008`, headers: { authorization: 'Bearer CUSTOM-HEADER-SECRET-0009' } },
    };
    const clear = Object.values(secrets).flatMap((fields) => Object.values(fields).flatMap((v) => (typeof v === 'string' ? [v] : Object.values(v))));
    const secretIn = (value: unknown) => clear.find((secret) => JSON.stringify(value).includes(secret.replace(`${api.url}/`, '')));
    for (const [kind, credentials] of Object.entries(secrets)) {
      const made = await services.channels.create(system, ws, { name: `secret ${kind}`, kind, config: { ...valid[kind], ...credentials } });
      assert.equal(secretIn(made), undefined, `the ${kind} channel as created shows a credential`);
      for (const name of Object.keys(credentials)) assert.ok(Object.hasOwn(made.config, name), `${kind}.${name} is shown, masked`);
    }
    assert.equal(secretIn(await services.channels.list(system, ws, { perPage: 200 })), undefined, 'the list shows a credential');
    const audit = await db.selectFrom('audit_log').selectAll().where('entity_type', '=', 'notification_channel').execute();
    assert.equal(secretIn(audit), undefined, 'the audit log holds a credential');
    // A PostgreSQL database's files are its server's: its rows, read above, are what it holds.
    const rows = await db.selectFrom('notification_channels').select(['settings', 'credentials']).execute();
    assert.equal(secretIn(rows), undefined, 'a row holds a credential in clear');
    if (onPostgres) return;
    const files = (folder: string): string[] =>
      readdirSync(folder, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(folder, entry.name)) : [join(folder, entry.name)]));
    for (const file of files(dir.path)) {
      const bytes = readFileSync(file).toString('latin1');
      for (const secret of clear) assert.ok(!bytes.includes(secret.replace(`${api.url}/`, '')), `${file} holds ${secret} in clear`);
    }
  });
});

describe('the command line', () => {
  test('--pushover-priority takes a negative number; --url is refused as ambiguous for a custom webhook', async () => {
    const priority = channelSpecOf('pushover').fields().priority!;
    assert.equal(readFlag(priority, { 'pushover-priority': ['-1'] }), -1);
    assert.throws(() => readFlag(priority, { 'pushover-priority': ['high'] }), /--pushover-priority must be a whole number from -2 to 2, got "high"/);
    await assert.rejects(
      channelCommands['channels add']!.run({ kind: 'custom_webhook', name: 'x', url: 'https://hooks.example.com/in' }, []),
      (error: Error) => error instanceof UsageError && /--url is ambiguous for a custom_webhook channel/.test(error.message),
    );
  });
});
