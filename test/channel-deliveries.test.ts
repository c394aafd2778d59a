/**
 * A channel's delivery log: each delivery of an alert or a test, how it ended (delivered, failed,
 * retrying while attempts remain), what the receiver answered (its status and a bounded,
 * one-line excerpt of its body, cleaned of the channel's credentials), and the attempts made;
 * the latest 100 of each channel kept. Real services on a real database, webhook channels posting
 * to loopback receivers that answer 200, answer 500, or never answer; the RPC and the command
 * read the same log.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { deliverAlert } from '../server/delivery/alert-delivery.ts';
import { channelKindRules } from '../server/delivery/channels/registry.ts';
import type { Actor } from '../server/domain/actor.ts';
import { createAlertService } from '../server/domain/notifications/alerts.ts';
import { createChannelService } from '../server/domain/notifications/channels.ts';
import { DELIVERY_LOG_LIMIT } from '../server/domain/notifications/delivery-log.ts';
import { sealerOf } from '../server/domain/sealing.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { createServices, type Services } from '../server/services.ts';
import { openTestDatabase } from './support/database.ts';
import { jsonOf, tempDir, useClientCommandService } from './support/harness.ts';
import { eventually } from './support/wait.ts';

const system: Actor = { type: 'system', surface: 'cli' };
const SECRET = 'a-signing-secret-nobody-may-read';
/** The webhook's address carries a token in its path and its query, as Slack's and Google Chat's do. */
const PATH_TOKEN = 'T0KEN-in-the-path-4711';
const QUERY_TOKEN = 'query-token-0815';
const HEADER_TOKEN = 'Bearer header-credential-99';

/** A receiver whose answer the test chooses; each answer echoes what it was sent, secrets and all. */
interface Receiver {
  url: string;
  /** How the next requests are answered: a status with the echo, or no answer at all. */
  answer: 'ok' | 'fail' | 'hang';
  received: number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const hanging = new Set<ServerResponse>();
  const receiver = { answer: 'ok', received: 0 } as Receiver;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      receiver.received++;
      if (receiver.answer === 'hang') {
        hanging.add(res);
        return;
      }
      // A careless receiver: it quotes the request's path, its headers and its body back, over several lines.
      const echo = `path ${req.url}\nauthorization ${req.headers.authorization}\nsignature ${req.headers['x-statusdesk-signature']}\n\tbody ${Buffer.concat(chunks).toString('utf8')}`;
      res.writeHead(receiver.answer === 'ok' ? 200 : 500, { 'content-type': 'text/plain' }).end(`${receiver.answer === 'ok' ? 'accepted' : 'broken'}: ${echo}`);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  };
  return receiver;
}

let dir: Awaited<ReturnType<typeof tempDir>>;
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let services: Services;
let workspaceId: number;
let receiver: Receiver;

before(async () => {
  dir = await tempDir();
  db = await openTestDatabase(dir.path);
  services = createServices(db, { dashboardUrl: 'http://localhost:5999', alerts: { retryDelaysMs: [300, 300] } });
  const owner: Actor = { type: 'user', userId: await ensureOwner(db), surface: 'cli' };
  workspaceId = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
  receiver = await startReceiver();
});

after(async () => {
  services.close();
  await receiver.close();
  await db.destroy();
  await dir.remove();
});

let made = 0;
const webhookConfig = (url: string) => ({ url: `${url}/hooks/${PATH_TOKEN}?token=${QUERY_TOKEN}`, secret: SECRET, headers: { authorization: HEADER_TOKEN } });

async function channel(monitorIds: string[] = []) {
  made++;
  return services.channels.create(system, workspaceId, { name: `logged ${made}`, kind: 'webhook', monitorIds, config: webhookConfig(receiver.url) });
}

const log = async (id: string, query: object = { perPage: 200 }) => (await services.channels.deliveries(system, workspaceId, id, query)).deliveries;

function assertNoSecret(text: string) {
  for (const secret of [SECRET, PATH_TOKEN, QUERY_TOKEN, 'header-credential-99']) assert.ok(!text.includes(secret), `"${secret}" shows in ${text}`);
}

describe('a channel keeps a log of its deliveries', () => {
  test('a test send answered 200: delivered, the status, the start of the answer on one line, no credential of the channel', async () => {
    receiver.answer = 'ok';
    const ch = await channel();
    assert.deepEqual(await services.channels.test(system, workspaceId, ch.id), { delivered: true, error: null });
    const [entry, ...rest] = await log(ch.id);
    assert.equal(rest.length, 0);
    assert.equal(entry!.event, 'test');
    assert.equal(entry!.monitorId, null);
    assert.equal(entry!.result, 'delivered');
    assert.equal(entry!.statusCode, 200);
    assert.equal(entry!.attempts, 1);
    assert.equal(entry!.error, null);
    assert.match(entry!.response!, /^accepted: path \/hooks\/\[redacted\]\?token=\[redacted\] authorization \[redacted\] signature t=\d+,v1=/);
    assert.ok(!/[\n\t]/.test(entry!.response!), 'one line');
    assert.ok(entry!.response!.length <= 300, `${entry!.response!.length} characters`);
    assertNoSecret(JSON.stringify(entry));
    assert.ok(Date.now() - Date.parse(entry!.at) < 60_000, entry!.at);
  });

  test('an alert answered 500 is retried: retrying while attempts remain, then failed after 3, with the status and the answer', async () => {
    receiver.answer = 'fail';
    const monitor = await services.monitors.create(system, workspaceId, 'tcp', {
      name: 'logged api',
      uri: '127.0.0.1:9',
      periodicity: '10m',
      regions: ['iad'],
    });
    const ch = await channel([monitor.id]);
    const sent = services.alerts.stateChanged({
      monitorId: monitor.id,
      workspaceId: String(workspaceId),
      from: 'up',
      to: 'down',
      kind: 'down',
      at: new Date().toISOString(),
      message: 'connection refused',
      runner: 'local',
    });
    const retrying = await eventually(
      () => log(ch.id),
      (entries) => entries[0]?.result === 'retrying',
      'the entry to say it is retried',
    );
    assert.equal(retrying.length, 1);
    assert.equal(retrying[0]!.statusCode, 500);
    await sent;
    const [entry, ...rest] = await log(ch.id);
    assert.equal(rest.length, 0, 'the attempts of one delivery are one entry');
    assert.equal(entry!.id, retrying[0]!.id);
    assert.deepEqual(
      [entry!.event, entry!.monitorId, entry!.monitorName, entry!.result, entry!.statusCode, entry!.attempts],
      ['monitor.down', monitor.id, 'logged api', 'failed', 500, 3],
    );
    assert.match(entry!.error!, /^POST http:\/\/127\.0\.0\.1:\d+ answered 500$/);
    assert.match(entry!.response!, /^broken: path \/hooks\/\[redacted\]/);
    assertNoSecret(JSON.stringify(entry));
    // The RPC's health still counts the failure once: the attempts of one delivery are one failure.
    assert.equal((await services.channels.get(system, workspaceId, ch.id)).health.failures, 1);
  });

  test('a receiver that never answers: failed with no status, the timeout the error', async () => {
    receiver.answer = 'hang';
    // The same channel service and delivery as the service's, with a short timeout.
    const sealer = sealerOf(db);
    const channels = createChannelService(db, {
      sealer,
      kinds: channelKindRules,
      deliver: (target, event) =>
        deliverAlert(target, event, { mailer: () => assert.fail('no mail'), mailFrom: 'x@example.test', desktop: () => undefined, timeoutMs: 300 }),
    });
    const ch = await channel();
    const answer = await channels.test(system, workspaceId, ch.id);
    assert.equal(answer.delivered, false);
    const [entry] = await log(ch.id);
    assert.deepEqual([entry!.event, entry!.result, entry!.statusCode, entry!.response, entry!.attempts], ['test', 'failed', null, null, 1]);
    assert.match(entry!.error!, /timed out after 300 ms/);
    // An alert through the alert path, which does not retry a timeout.
    const alerts = createAlertService(db, {
      targetsOf: channels.targetsOf,
      deliver: (target, event) =>
        deliverAlert(target, event, { mailer: () => assert.fail('no mail'), mailFrom: 'x@example.test', desktop: () => undefined, timeoutMs: 300 }),
      recordDelivery: channels.recordDelivery,
      retryDelaysMs: [10, 10],
      log: pino({ enabled: false }),
    });
    const monitor = await services.monitors.create(system, workspaceId, 'tcp', { name: 'hung', uri: '127.0.0.1:9', periodicity: '10m', regions: ['iad'] });
    await services.channels.update(system, workspaceId, ch.id, { monitorIds: [monitor.id] });
    await alerts.stateChanged({
      monitorId: monitor.id,
      workspaceId: String(workspaceId),
      from: 'up',
      to: 'down',
      kind: 'down',
      at: new Date().toISOString(),
      message: 'timed out',
      runner: 'local',
    });
    await alerts.close();
    const [latest] = await log(ch.id);
    assert.deepEqual([latest!.event, latest!.result, latest!.statusCode, latest!.attempts], ['monitor.down', 'failed', null, 1]);
  });

  test(`bounded: the latest ${DELIVERY_LOG_LIMIT} of a channel are kept, older ones deleted as new ones are written; other channels keep theirs`, async () => {
    receiver.answer = 'ok';
    const other = await channel();
    await services.channels.test(system, workspaceId, other.id);
    const ch = await channel();
    const sends = DELIVERY_LOG_LIMIT + 5;
    for (let i = 0; i < sends; i++) await services.channels.test(system, workspaceId, ch.id);
    const { deliveries, pagination } = await services.channels.deliveries(system, workspaceId, ch.id, { perPage: 200 });
    assert.equal(deliveries.length, DELIVERY_LOG_LIMIT);
    assert.equal(pagination.totalSize, DELIVERY_LOG_LIMIT);
    const ids = deliveries.map((d) => Number(d.id));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
      'newest first',
    );
    assert.equal((await log(other.id)).length, 1, "another channel's entries are its own");
    const paged = await services.channels.deliveries(system, workspaceId, ch.id, { perPage: 10, page: 2 });
    assert.deepEqual(
      paged.deliveries.map((d) => d.id),
      deliveries.slice(10, 20).map((d) => d.id),
    );
  });

  test('the log is read in the workspace only, and a deleted channel takes its log with it', async () => {
    receiver.answer = 'ok';
    const ch = await channel();
    await services.channels.test(system, workspaceId, ch.id);
    await assert.rejects(services.channels.deliveries(system, workspaceId, '999999'), { code: 'NOT_FOUND' });
    await assert.rejects(services.channels.deliveries(system, workspaceId, ch.id, { perPage: 201 }), { code: 'VALIDATION' });
    await services.channels.delete(system, workspaceId, ch.id);
    const left = await db.selectFrom('channel_deliveries').select('id').where('channel_id', '=', Number(ch.id)).execute();
    assert.equal(left.length, 0);
  });
});

describe('the RPC and the command read the log', () => {
  const svc = useClientCommandService();
  let rpcReceiver: Receiver;
  before(async () => {
    rpcReceiver = await startReceiver();
  });
  after(() => rpcReceiver.close());

  test('ListChannelDeliveries and `statusdesk channels deliveries ID --json` list the test send, its status and its cleaned answer', async () => {
    const { channel } = await svc.api.notifications.createNotificationChannel({
      name: 'rpc logged',
      config: { case: 'webhook', value: webhookConfig(rpcReceiver.url) },
    });
    const sent = await svc.api.notifications.sendTestNotification({ id: channel!.id });
    assert.equal(sent.delivered, true, sent.error);
    const { deliveries, pagination } = await svc.api.notifications.listChannelDeliveries({ id: channel!.id });
    assert.equal(pagination?.totalSize, 1);
    assert.deepEqual(
      [deliveries[0]!.event, deliveries[0]!.result, deliveries[0]!.statusCode, deliveries[0]!.attempts, deliveries[0]!.monitorId],
      ['test', 'delivered', 200, 1, ''],
    );
    assertNoSecret(JSON.stringify(deliveries[0]!.response));
    const cli = await svc.cli(['channels', 'deliveries', channel!.id, '--json']);
    assert.equal(cli.code, 0, cli.stderr);
    const shown = jsonOf(cli);
    assert.equal(shown.deliveries.length, 1);
    assert.deepEqual(
      [shown.deliveries[0].event, shown.deliveries[0].result, shown.deliveries[0].statusCode, shown.deliveries[0].monitorId],
      ['test', 'delivered', 200, null],
    );
    assertNoSecret(cli.stdout);
    const table = await svc.cli(['channels', 'deliveries', channel!.id]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^AT +EVENT +MONITOR +RESULT +STATUS +ATTEMPTS +ANSWER\n/);
    assert.match(table.stdout, / test +Test monitor +delivered +200 +1 +accepted: /);
  });
});
