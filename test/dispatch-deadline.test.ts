/**
 * The deadline of a publishing call: with webhook subscribers that accept the request and never
 * answer, the call answers by the (short, injected) deadline with notified false, the deliveries
 * go on in the background, each bounded by its own (short, injected) timeout, and each subscriber
 * records what became of its delivery. Closing the service starts no more deliveries (those left
 * are recorded as not sent) and waits for the ones under way. Real SQLite, real loopback
 * receivers; nothing leaves 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, test } from 'node:test';
import type { Db } from '../server/db/open.ts';
import { openTestDatabase } from './support/database.ts';
import type { Actor } from '../server/domain/actor.ts';
import { NOT_SENT_STOPPED } from '../server/delivery/subscriber-fanout.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { createServices, type Services } from '../server/services.ts';
import { tempDir } from './support/harness.ts';
import { startHttpReceiver } from './support/receivers.ts';
import { eventually } from './support/wait.ts';

const DEADLINE_MS = 300;
const WEBHOOK_TIMEOUT_MS = 1_500;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A webhook receiver that reads each request and never answers it. */
async function startSilentReceiver(): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req) => {
    req.resume();
    req.once('end', () => requests.push(req.url ?? ''));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** Services over a new data folder, with the short deadline and webhook timeout; a workspace on a plan with subscribers. */
async function setUp(): Promise<{ db: Db; services: Services; writer: Actor; ws: number }> {
  const dir = await tempDir();
  cleanups.push(dir.remove);
  const db = await openTestDatabase(dir.path);
  cleanups.push(() => db.destroy());
  const services = createServices(db, { subscriberDispatch: { deadlineMs: DEADLINE_MS, webhookTimeoutMs: WEBHOOK_TIMEOUT_MS } });
  cleanups.push(async () => {
    await services.subscribers.close();
    services.close();
  });
  const writer: Actor = { type: 'user', userId: await ensureOwner(db), surface: 'cli' };
  const workspace = await services.workspaces.create(writer, { name: 'Deadline', slug: 'deadline', plan: 'scale' });
  return { db, services, writer, ws: Number(workspace.id) };
}

const outcomes = (db: Db, pageId: string) =>
  db.selectFrom('page_subscribers').select(['id', 'last_delivery_at', 'last_delivery_error']).where('page_id', '=', Number(pageId)).orderBy('id').execute();

test('the call answers by the deadline; the deliveries still under way end in the background and are recorded per subscriber', async () => {
  const { db, services, writer, ws } = await setUp();
  const silent = await startSilentReceiver();
  const fine = await startHttpReceiver();
  cleanups.push(fine.close);
  const page = await services.pages.create(writer, ws, { slug: 'slow-hooks', title: 'Slow hooks' });
  await services.subscribers.add(writer, ws, page.id, { webhookUrl: `${fine.url}/fine` });
  for (let i = 1; i <= 3; i++) await services.subscribers.add(writer, ws, page.id, { webhookUrl: `${silent.url}/silent-${i}` });

  const started = Date.now();
  const result = await services.reports.create(writer, ws, { pageId: page.id, title: 'Degraded', message: 'Looking into it.', notify: true });
  const answeredMs = Date.now() - started;
  assert.equal(result.notified, false);
  assert.ok(answeredMs >= DEADLINE_MS - 10 && answeredMs < WEBHOOK_TIMEOUT_MS, `answered after ${answeredMs} ms`);
  // The report is stored either way; the answering subscriber has its outcome, the silent ones not yet.
  assert.equal((await services.reports.get(writer, ws, result.report.id)).title, 'Degraded');
  assert.equal(fine.requests.length, 1);
  assert.equal(silent.requests.length, 3);

  const recorded = await eventually(
    () => outcomes(db, page.id),
    (rows) => rows.every((row) => row.last_delivery_at !== null),
    'every subscriber has its outcome',
    WEBHOOK_TIMEOUT_MS + 3_000,
  );
  assert.equal(recorded[0]!.last_delivery_error, null);
  for (const row of recorded.slice(1))
    assert.match(row.last_delivery_error ?? '', new RegExp(`^POST http://127\\.0\\.0\\.1:\\d+ timed out after ${WEBHOOK_TIMEOUT_MS} ms$`));
  assert.ok(Date.now() - started >= WEBHOOK_TIMEOUT_MS, 'the background deliveries kept their own timeout');
});

test('within the deadline: notified says whether every delivery went, and each outcome is recorded', async () => {
  const { db, services, writer, ws } = await setUp();
  const fine = await startHttpReceiver();
  const failing = await startHttpReceiver({ status: 503 });
  cleanups.push(fine.close, failing.close);
  const page = await services.pages.create(writer, ws, { slug: 'quick-hooks', title: 'Quick hooks' });
  await services.subscribers.add(writer, ws, page.id, { webhookUrl: `${fine.url}/fine` });
  assert.equal((await services.reports.create(writer, ws, { pageId: page.id, title: 'One', message: 'x', notify: true })).notified, true);
  const [first] = await outcomes(db, page.id);
  assert.ok(first!.last_delivery_at !== null && first!.last_delivery_error === null);

  await services.subscribers.add(writer, ws, page.id, { webhookUrl: `${failing.url}/failing` });
  assert.equal((await services.reports.create(writer, ws, { pageId: page.id, title: 'Two', message: 'x', notify: true })).notified, false);
  const [ok, failed] = await outcomes(db, page.id);
  assert.equal(ok!.last_delivery_error, null);
  assert.match(failed!.last_delivery_error ?? '', /answered 503$/);
});

test('closing starts no more deliveries, records those left as not sent and waits for the ones under way', async () => {
  const { db, services, writer, ws } = await setUp();
  const silent = await startSilentReceiver();
  const page = await services.pages.create(writer, ws, { slug: 'closing', title: 'Closing' });
  const count = 40;
  for (let i = 1; i <= count; i++) await services.subscribers.add(writer, ws, page.id, { webhookUrl: `${silent.url}/hook-${i}` });

  const result = await services.maintenances.create(writer, ws, {
    pageId: page.id,
    title: 'Upgrade',
    from: new Date(Date.now() + 3_600_000).toISOString(),
    to: new Date(Date.now() + 7_200_000).toISOString(),
    notify: true,
  });
  assert.equal(result.notified, false);
  const underWay = silent.requests.length;
  assert.ok(underWay > 0 && underWay < count, `${underWay} deliveries under way`);

  const closing = Date.now();
  await services.subscribers.close();
  const closedMs = Date.now() - closing;
  assert.ok(closedMs < WEBHOOK_TIMEOUT_MS + 1_000, `closed after ${closedMs} ms`);
  assert.equal(silent.requests.length, underWay, 'nothing was sent after closing began');

  const rows = await outcomes(db, page.id);
  assert.ok(
    rows.every((row) => row.last_delivery_at !== null),
    'every subscriber has its outcome once closed',
  );
  const stopped = rows.filter((row) => row.last_delivery_error === NOT_SENT_STOPPED);
  const timedOut = rows.filter((row) => /timed out after/.test(row.last_delivery_error ?? ''));
  assert.deepEqual([timedOut.length, stopped.length], [underWay, count - underWay]);
});
