/**
 * The check engine (server/checks/engine.ts) on a real SQLite file, with real loopback peers
 * (127.0.0.1 only). The engine's clock is injectable: where a 30 s schedule would be too slow to
 * wait for, the test moves the engine's clock to just before the monitor's slot.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { createConnectTransport } from '@connectrpc/connect-node';
import { createClient, type Interceptor } from '@connectrpc/connect';
import pino from 'pino';
import { MonitorService, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { createCheckEngine, type CheckEngine } from '../server/checks/engine.ts';
import { createResultStore, DAY_MS, HOUR_MS, hourOf, type StoredCheck } from '../server/checks/result-store.ts';
import { offsetOf } from '../server/checks/scheduler.ts';
import type { Db } from '../server/db/open.ts';
import { openTestDatabase } from './support/database.ts';
import type { Actor } from '../server/domain/actor.ts';
import { RUNNER_SILENCE_MS } from '../server/domain/locations/locations.ts';
import type { MonitorStateChange } from '../server/domain/monitors/check-results.ts';
import { createServices, type Services } from '../server/services.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { AppError } from '../server/errors.ts';
import { closedPort, startTcpListener, type TcpListener } from './support/grpc-peers.ts';
import { startTestService, tempDir } from './support/harness.ts';
import { storedCheck } from './support/checks.ts';
import { eventually } from './support/wait.ts';

const PERIOD_30S = 30_000;
const system: Actor = { type: 'system', surface: 'cli' };

// ---- fixtures --------------------------------------------------------------------------------

/** A wall clock that runs with real time but can be moved: what the engine and its scheduler read. */
function movableClock() {
  let skew = 0;
  return {
    now: () => Date.now() + skew,
    shift: (ms: number) => void (skew += ms),
    setTo: (t: number) => void (skew = t - Date.now()),
  };
}
type Clock = ReturnType<typeof movableClock>;

interface Fixture {
  db: Db;
  engine: CheckEngine;
  services: Services;
  workspaceId: number;
  /** Changes of state: what alerts are made of. */
  changes: MonitorStateChange[];
  /** First checks that were up (`checked`): announced to the screens, not alerted. */
  firstChecks: MonitorStateChange[];
  close(): Promise<void>;
}

/** A fresh data folder with the real schema, an owner and workspace, and an engine wired into the services. */
async function setup(options: { schedule?: boolean; now?: () => number; concurrency?: number; dataDir?: string } = {}): Promise<Fixture> {
  const dir = options.dataDir ? undefined : await tempDir();
  const db = await openTestDatabase(options.dataDir ?? dir!.path);
  const ownerId = await ensureOwner(db);
  const engine = createCheckEngine(db, {
    log: pino({ enabled: false }),
    version: 'test',
    schedule: options.schedule ?? false,
    concurrency: options.concurrency,
    now: options.now,
  });
  const services = createServices(db, { checks: engine.checks });
  const owner: Actor = { type: 'user', userId: ownerId, surface: 'cli' };
  const workspaceId = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
  const changes: MonitorStateChange[] = [];
  const firstChecks: MonitorStateChange[] = [];
  engine.onStateChange((change) => (change.kind === 'checked' ? firstChecks : changes).push(change));
  return {
    db,
    engine,
    services,
    workspaceId,
    changes,
    firstChecks,
    async close() {
      await engine.close();
      await db.destroy();
      await dir?.remove();
    },
  };
}

function tcpInput(uri: string, overrides: Record<string, unknown> = {}) {
  return { name: `tcp ${uri}`, uri, periodicity: '30s', regions: ['iad', 'fra'], timeout: 1_000, retry: 0, ...overrides };
}

/** The first slot of monitor `id` at or after `t`, as the scheduler computes it. */
function slotFrom(t: number, periodMs: number, id: number | string): number {
  const offset = offsetOf(Number(id), periodMs);
  return Math.ceil((t - offset) / periodMs) * periodMs + offset;
}

/**
 * Moves the engine's clock to `leadMs` before the next slot of monitor `id`, so its scheduled
 * check comes within a couple of seconds instead of up to 30. A forward move beyond the
 * scheduler's gap threshold makes it plan every job again from the time it next looks (within its
 * 1 s sleep), which lands on the same slot as long as the lead is longer than that sleep.
 */
function bringSlotNear(clock: Clock, id: string, leadMs = 1_500): number {
  const slot = slotFrom(clock.now(), PERIOD_30S, id);
  if (slot - leadMs > clock.now()) clock.setTo(slot - leadMs);
  return slot;
}

async function rowCounts(db: Db, monitorId: number | string) {
  const id = Number(monitorId);
  const count = async (table: 'check_results' | 'check_rollups' | 'check_state') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('monitor_id', '=', id)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { results: await count('check_results'), rollups: await count('check_rollups'), state: await count('check_state') };
}

/** An HTTP server on 127.0.0.1 that answers 200 after `delayMs` (changeable). */
async function startSlowHttp(delayMs: number): Promise<{ url: string; delayMs: number; requests: number; close(): Promise<void> }> {
  const state = {
    url: '',
    delayMs,
    requests: 0,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: HttpServer = createHttpServer((req, res) => {
    state.requests++;
    req.resume();
    setTimeout(() => res.end('ok'), state.delayMs).unref();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  server.unref();
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
  return state;
}

/** A deterministic pseudo-random source (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The nearest-rank q-quantile of sorted values. */
const nearestRank = (sorted: number[], q: number) => sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;

// ---- the scheduled path -------------------------------------------------------------------------

describe('check engine: scheduled checks', () => {
  test('a 30s monitor is checked at its slot through the scheduler, and the result is stored', async () => {
    const clock = movableClock();
    const f = await setup({ schedule: true, now: clock.now });
    const peer = await startTcpListener('127.0.0.1');
    try {
      await f.engine.start();
      const monitor = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput(peer.uri));
      assert.equal(f.engine.scheduler.has(Number(monitor.id)), true, 'scheduled as soon as it is created');
      const rowsOf = () => f.db.selectFrom('check_results').selectAll().where('monitor_id', '=', Number(monitor.id)).orderBy('started_at').execute();
      // Checked once at once, as it is saved (first-check.test.ts), then at its slot.
      await eventually(rowsOf, (rows) => rows.length === 1, 'the check on save is stored');
      const slot = bringSlotNear(clock, monitor.id);
      const rows = await eventually(rowsOf, (found) => found.length === 2, 'the scheduled check is stored');

      const health = await f.engine.checks.status(monitor);
      assert.equal(health.overall, 'active');
      assert.deepEqual(
        health.regions.map((r) => [r.region, r.status]),
        [
          ['iad', 'active'],
          ['fra', 'active'],
        ],
      );
      const row = rows[1]!;
      assert.equal(row.result, 'up');
      assert.equal(row.runner, 'local');
      assert.deepEqual(JSON.parse(row.regions), ['iad', 'fra']);
      assert.ok(row.started_at >= slot && row.started_at < slot + 1_500, `started at its slot: ${row.started_at - slot} ms after it`);
      assert.ok(peer.connections >= 1, 'the target was really connected to');
      assert.equal(f.changes.length, 0, 'a first check that is up is not a change of state');
      assert.deepEqual(
        f.firstChecks.map((c) => [c.monitorId, c.from, c.to, c.kind]),
        [[monitor.id, null, 'up', 'checked']],
        'it is announced once, as checked',
      );
      assert.ok(f.engine.scheduler.stats.started >= 1);
    } finally {
      await f.close();
      await peer.close();
    }
  });

  test('creating, pausing, changing and deleting a monitor takes effect without a restart', async () => {
    const clock = movableClock();
    const f = await setup({ schedule: true, now: clock.now });
    const first = await startTcpListener('127.0.0.1');
    const second = await startTcpListener('127.0.0.1');
    try {
      await f.engine.start();
      const { monitors } = f.services;
      const monitor = await monitors.create(system, f.workspaceId, 'tcp', tcpInput(first.uri));
      const id = Number(monitor.id);
      const paused = await monitors.create(system, f.workspaceId, 'tcp', tcpInput(first.uri, { name: 'paused', active: false }));
      assert.equal(f.engine.scheduler.has(id), true);
      assert.equal(f.engine.scheduler.has(Number(paused.id)), false, 'a monitor created paused is not scheduled');
      assert.equal(f.engine.scheduler.load.jobs, 1);

      await monitors.update(system, f.workspaceId, 'tcp', monitor.id, { active: false });
      assert.equal(f.engine.scheduler.has(id), false, 'pausing unschedules');
      assert.equal(f.engine.scheduler.load.jobs, 0);
      await monitors.update(system, f.workspaceId, 'tcp', monitor.id, { active: true });
      assert.equal(f.engine.scheduler.has(id), true, 'resuming schedules again');
      // The checks on save (created, resumed: first-check.test.ts) end before the target changes.
      await eventually(
        () => f.engine.scheduler.load.running,
        (n) => n === 0,
        'the checks on save ended',
      );

      // A new target: checked at once, and the next scheduled check goes there too, not to the old one.
      const changed = await monitors.update(system, f.workspaceId, 'tcp', monitor.id, { uri: second.uri });
      assert.equal(f.engine.scheduler.has(id), true);
      const firstConnections = first.connections;
      bringSlotNear(clock, monitor.id);
      await eventually(
        () => second.connections,
        (n) => n >= 2,
        'the check on save and the scheduled check of the changed monitor',
      );
      await eventually(
        () => rowCounts(f.db, id),
        (c) => c.results >= 2,
        'their results are stored',
      );
      assert.equal(first.connections, firstConnections, 'the old target was not');

      // A heartbeat-style resync (what start and the 15 s heartbeat do) keeps the same set.
      assert.equal(f.engine.scheduler.load.jobs, 1);

      await f.engine.checks.trigger(changed);
      const before = await rowCounts(f.db, id);
      assert.ok(before.results >= 2 && before.rollups >= 1 && before.state === 1, JSON.stringify(before));

      await monitors.delete(system, f.workspaceId, monitor.id);
      assert.equal(f.engine.scheduler.has(id), false, 'deleting unschedules');
      assert.deepEqual(await rowCounts(f.db, id), { results: 0, rollups: 0, state: 0 }, 'results, rollups and state are gone with the monitor');
      assert.equal(f.engine.scheduler.load.jobs, 0);
    } finally {
      await f.close();
      await first.close();
      await second.close();
    }
  });

  test('the scheduler reports a clock jump as a gap, and the summary shows it', async () => {
    const clock = movableClock();
    const f = await setup({ schedule: true, now: clock.now });
    try {
      await f.engine.start();
      const monitor = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput(`127.0.0.1:${await closedPort()}`, { active: false }));
      const before = clock.now();
      clock.shift(2 * HOUR_MS);
      const gaps = await eventually(
        () => f.db.selectFrom('check_gaps').selectAll().execute(),
        (rows) => rows.length > 0,
        'the gap is recorded',
      );
      assert.equal(gaps.length, 1);
      const gap = gaps[0]!;
      assert.equal(gap.runner, 'local');
      assert.ok(gap.started_at >= before - 1_500 && gap.started_at <= before, 'from the last look before the jump');
      assert.ok(Math.abs(gap.ended_at - gap.started_at - 2 * HOUR_MS) < 2_000, `spans the jump: ${gap.ended_at - gap.started_at} ms`);
      const summary = await f.engine.checks.summary(monitor, '1d');
      assert.deepEqual(summary.gaps, [{ startedAt: new Date(gap.started_at).toISOString(), endedAt: new Date(gap.ended_at).toISOString() }]);
    } finally {
      await f.close();
    }
  });
});

// ---- the runner and private locations -----------------------------------------------------------

describe('check engine: the embedded runner', () => {
  test('after a start with checks on, the local runner is listed first and active, with a recent lastSeenAt', async () => {
    const f = await setup({ schedule: true });
    try {
      await f.engine.start();
      // Another runner, with an agent token: its hash never leaves the repository.
      const hash = 'a'.repeat(64);
      await f.db
        .insertInto('private_locations')
        .values({
          name: 'remote-1',
          status: 'active',
          metadata: '{"kind":"agent"}',
          regions: '["remote-1"]',
          token_hash: hash,
          workspace_id: f.workspaceId,
          last_seen_at: new Date().toISOString(),
          created_at: new Date().toISOString(),
        })
        .execute();

      const { locations, pagination } = await f.services.locations.list(system, f.workspaceId);
      assert.deepEqual(
        locations.map((l) => l.name),
        ['local', 'remote-1'],
      );
      const local = locations[0]!;
      assert.equal(local.status, 'active');
      assert.ok(local.lastSeenAt !== null && Math.abs(Date.parse(local.lastSeenAt) - Date.now()) < 5_000, `lastSeenAt ${local.lastSeenAt}`);
      assert.deepEqual(local.metadata, { kind: 'embedded' });
      assert.deepEqual(
        locations.map((l) => l.embedded),
        [true, false],
      );
      assert.deepEqual(pagination, { page: 1, perPage: 100, totalSize: 2, totalPages: 1 });
      const text = JSON.stringify(locations);
      assert.ok(!text.includes(hash) && !/token/i.test(text), `no token hash in ${text}`);
      for (const l of locations)
        assert.deepEqual(Object.keys(l).sort(), [
          'createdAt',
          'droppedResults',
          'embedded',
          'id',
          'lastSeenAt',
          'metadata',
          'name',
          'runnerHostname',
          'runnerVersion',
          'status',
        ]);

      // A page of one.
      const page2 = await f.services.locations.list(system, f.workspaceId, { page: 2, perPage: 1 });
      assert.deepEqual(
        page2.locations.map((l) => l.name),
        ['remote-1'],
      );
      assert.deepEqual(page2.pagination, { page: 2, perPage: 1, totalSize: 2, totalPages: 2 });

      // Silent for more than a minute: in error.
      await f.db
        .updateTable('private_locations')
        .set({ last_seen_at: new Date(Date.now() - RUNNER_SILENCE_MS - 1_000).toISOString() })
        .where('name', '=', 'local')
        .execute();
      const silent = (await f.services.locations.list(system, f.workspaceId)).locations[0]!;
      assert.equal(silent.name, 'local');
      assert.equal(silent.status, 'error');

      for (const perPage of [101, 0]) {
        await assert.rejects(f.services.locations.list(system, f.workspaceId, { perPage }), (error: unknown) => {
          assert.ok(error instanceof AppError);
          assert.equal(error.code, 'VALIDATION');
          assert.ok(
            error.violations.some((v) => v.field === 'perPage'),
            JSON.stringify(error.violations),
          );
          assert.match(error.message, /^perPage: /);
          return true;
        });
      }
    } finally {
      await f.close();
    }
  });

  test('a start after the runner was silent records the gap since it was last seen; a short silence does not', async () => {
    const dir = await tempDir();
    try {
      const hourAgo = Date.now() - HOUR_MS;
      {
        const f = await setup({ schedule: true, dataDir: dir.path });
        await f.db
          .updateTable('private_locations')
          .set({ last_seen_at: new Date(hourAgo).toISOString() })
          .where('name', '=', 'local')
          .execute();
        await f.engine.start();
        const startedAt = Date.now();
        const gaps = await f.db.selectFrom('check_gaps').selectAll().execute();
        assert.equal(gaps.length, 1);
        assert.equal(gaps[0]!.runner, 'local');
        assert.equal(gaps[0]!.started_at, hourAgo, 'from when the runner was last seen');
        assert.ok(Math.abs(gaps[0]!.ended_at - startedAt) < 2_000, 'to the start');
        const seen = await f.db.selectFrom('private_locations').selectAll().where('name', '=', 'local').executeTakeFirstOrThrow();
        assert.ok(Math.abs(Date.parse(seen.last_seen_at!) - Date.now()) < 2_000, 'the start marks the runner seen');
        const monitor = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput(`127.0.0.1:${await closedPort()}`, { active: false }));
        const summary = await f.engine.checks.summary(monitor, '1d');
        assert.deepEqual(summary.gaps, [{ startedAt: new Date(hourAgo).toISOString(), endedAt: new Date(gaps[0]!.ended_at).toISOString() }]);
        await f.close();
      }
      {
        // A restart ten seconds later: no new gap.
        const f = await setup({ schedule: true, dataDir: dir.path });
        await f.db
          .updateTable('private_locations')
          .set({ last_seen_at: new Date(Date.now() - 10_000).toISOString() })
          .where('name', '=', 'local')
          .execute();
        await f.engine.start();
        assert.equal((await f.db.selectFrom('check_gaps').selectAll().execute()).length, 1);
        await f.close();
      }
      {
        // Checks off: the runner is not started and records nothing.
        const f = await setup({ schedule: false, dataDir: dir.path });
        await f.db
          .updateTable('private_locations')
          .set({ last_seen_at: new Date(hourAgo).toISOString() })
          .where('name', '=', 'local')
          .execute();
        await f.engine.start();
        assert.equal((await f.db.selectFrom('check_gaps').selectAll().execute()).length, 1);
        assert.equal(f.engine.scheduler.load.jobs, 0);
        await f.close();
      }
    } finally {
      await dir.remove();
    }
  });
});

// ---- state changes -------------------------------------------------------------------------------

describe('check engine: state changes', () => {
  test('a target going away is one down event, its return one recovered event; a first up is silent', async () => {
    const dir = await tempDir();
    let peer: TcpListener | undefined = await startTcpListener('127.0.0.1');
    const port = peer.port;
    try {
      const f = await setup({ dataDir: dir.path });
      const monitor = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput(peer.uri, { timeout: 500 }));
      const up = await f.engine.checks.trigger(monitor);
      assert.deepEqual(
        up.map((r) => [r.region, r.result]),
        [
          ['iad', 'up'],
          ['fra', 'up'],
        ],
      );
      assert.equal(f.changes.length, 0, 'the first check is up: no change of state');
      assert.equal(f.firstChecks.length, 1, 'the first check is announced as checked');

      await peer.close();
      peer = undefined;
      for (let i = 0; i < 3; i++) assert.equal((await f.engine.checks.trigger(monitor))[0]!.result, 'down');
      assert.equal(f.changes.length, 1, `one event for three failing checks: ${JSON.stringify(f.changes)}`);
      const down = f.changes[0]!;
      assert.deepEqual(
        { monitorId: down.monitorId, workspaceId: down.workspaceId, from: down.from, to: down.to, kind: down.kind },
        { monitorId: monitor.id, workspaceId: String(f.workspaceId), from: 'up', to: 'down', kind: 'down' },
      );
      assert.ok(!Number.isNaN(Date.parse(down.at)));
      assert.ok(down.message.length > 0);
      assert.equal((await f.engine.checks.status(monitor)).overall, 'error');

      peer = await startTcpListener('127.0.0.1', port);
      for (let i = 0; i < 2; i++) assert.equal((await f.engine.checks.trigger(monitor))[0]!.result, 'up');
      assert.equal(f.changes.length, 2, JSON.stringify(f.changes));
      assert.deepEqual([f.changes[1]!.from, f.changes[1]!.to, f.changes[1]!.kind], ['down', 'up', 'recovered']);
      assert.equal((await f.engine.checks.status(monitor)).overall, 'active');

      // Down again, then a restart: the new engine knows the last state, so the return is news.
      await peer.close();
      peer = undefined;
      await f.engine.checks.trigger(monitor);
      assert.equal(f.changes.length, 3);
      await f.close();

      const g = await setup({ dataDir: dir.path });
      await g.engine.start();
      peer = await startTcpListener('127.0.0.1', port);
      await g.engine.checks.trigger(monitor);
      assert.deepEqual(
        g.changes.map((c) => [c.from, c.to, c.kind]),
        [['down', 'up', 'recovered']],
      );
      await g.close();
    } finally {
      await peer?.close();
      await dir.remove();
    }
  });

  test('a slow answer beyond the degraded threshold is a degraded event; a fast one after it is recovered', async () => {
    const server = await startSlowHttp(60);
    const f = await setup();
    try {
      const monitor = await f.services.monitors.create(system, f.workspaceId, 'http', {
        name: 'slow',
        url: server.url,
        periodicity: '30s',
        regions: ['iad'],
        timeout: 2_000,
        degraded: 10,
        retry: 0,
      });
      const [result] = await f.engine.checks.trigger(monitor);
      assert.equal(result!.result, 'degraded', result!.message);
      assert.equal(result!.statusCode, 200);
      assert.deepEqual(
        f.changes.map((c) => [c.from, c.to, c.kind]),
        [[null, 'degraded', 'degraded']],
      );
      assert.equal((await f.engine.checks.status(monitor)).overall, 'degraded');

      // Again degraded: no news.
      await f.engine.checks.trigger(monitor);
      assert.equal(f.changes.length, 1);

      server.delayMs = 0;
      const relaxed = await f.services.monitors.update(system, f.workspaceId, 'http', monitor.id, { degraded: 1_500 });
      assert.equal((await f.engine.checks.trigger(relaxed))[0]!.result, 'up');
      assert.deepEqual(
        f.changes.map((c) => [c.from, c.to, c.kind]),
        [
          [null, 'degraded', 'degraded'],
          ['degraded', 'up', 'recovered'],
        ],
      );
    } finally {
      await f.close();
      await server.close();
    }
  });
});

// ---- summaries, pruning, gaps ------------------------------------------------------------------

describe('check engine: summaries and retention', () => {
  // Not on an hour boundary: every window starts with a partial hour answered from raw rows.
  const NOW = hourOf(Date.now()) + 37 * 60_000 + 12_345;

  test('summaries count exactly and give percentiles within 2% of the true ones, over 1, 7 and 14 days', async () => {
    const f = await setup({ now: () => NOW });
    try {
      const monitor = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput('127.0.0.1:9', { active: false }));
      const rand = random(20240611);
      const checks: StoredCheck[] = [];
      // Every ~5 minutes for 15 days (a day more than the longest window).
      for (let t = NOW - 15 * DAY_MS; t < NOW; t += 300_000) {
        const at = Math.min(NOW, t + Math.floor(rand() * 300_000));
        const roll = rand();
        // Log-normal latencies around 25 ms with a long tail; degraded ones are slower.
        const normal = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
        const latency = Math.round(Math.exp(3.2 + 0.9 * normal) * 1000) / 1000 + 1;
        if (roll < 0.08) checks.push(storedCheck(monitor.id, f.workspaceId, at, 'down', 1_000));
        else if (roll < 0.2) checks.push(storedCheck(monitor.id, f.workspaceId, at, 'degraded', latency * 4));
        else checks.push(storedCheck(monitor.id, f.workspaceId, at, 'up', latency));
      }
      const newest = NOW - 1_000;
      checks.push(storedCheck(monitor.id, f.workspaceId, newest, 'down', 1_000));
      // Written in batches as the engine does (and out of time order across batches).
      const store = createResultStore(f.db);
      const shuffled = [...checks].sort(() => rand() - 0.5);
      for (let i = 0; i < shuffled.length; i += 1_000) {
        const written = await store.write(shuffled.slice(i, i + 1_000));
        assert.equal(written.length, Math.min(1_000, shuffled.length - i));
      }

      for (const [window, days] of [
        ['1d', 1],
        ['7d', 7],
        ['14d', 14],
      ] as const) {
        const from = NOW - days * DAY_MS;
        const inWindow = checks.filter((c) => c.startedAt >= from && c.startedAt <= NOW);
        const answered = inWindow
          .filter((c) => c.result !== 'down')
          .map((c) => c.latencyMs)
          .sort((a, b) => a - b);
        const summary = await f.engine.checks.summary(monitor, window);
        assert.equal(summary.window, window);
        assert.deepEqual(
          [summary.successCount, summary.degradedCount, summary.errorCount],
          [
            inWindow.filter((c) => c.result === 'up').length,
            inWindow.filter((c) => c.result === 'degraded').length,
            inWindow.filter((c) => c.result === 'down').length,
          ],
          `${window}: counts`,
        );
        const latest = Math.max(...inWindow.map((c) => c.startedAt));
        assert.ok(latest >= newest);
        assert.equal(summary.lastPingAt, new Date(latest).toISOString(), `${window}: the newest check, down or not`);
        assert.ok(summary.latency);
        for (const [name, q] of [
          ['p50', 0.5],
          ['p75', 0.75],
          ['p90', 0.9],
          ['p95', 0.95],
          ['p99', 0.99],
        ] as const) {
          const truth = nearestRank(answered, q);
          const got = summary.latency[name];
          assert.ok(Math.abs(got - truth) / truth <= 0.02, `${window} ${name}: ${got} vs true ${truth}`);
        }
        // Down checks (1000 ms each) do not enter the latency: the top would otherwise be 1000.
        assert.notEqual(summary.latency.p99, 1_000);
        assert.deepEqual(summary.gaps, []);
      }
    } finally {
      await f.close();
    }
  });

  test('the partial first hour of a window counts from raw rows: a check at its start counts, one just before does not', async () => {
    const f = await setup({ now: () => NOW });
    try {
      const monitor = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput('127.0.0.1:9', { active: false }));
      const from = NOW - DAY_MS;
      assert.notEqual(hourOf(from), from, 'the window starts within an hour');
      const store = createResultStore(f.db);
      await store.write([
        storedCheck(monitor.id, f.workspaceId, from - 1, 'up', 100), // just outside
        storedCheck(monitor.id, f.workspaceId, from, 'up', 10), // the first moment of the window, in its partial hour
        storedCheck(monitor.id, f.workspaceId, hourOf(from) + HOUR_MS - 1, 'down', 1_000), // the end of that partial hour
        storedCheck(monitor.id, f.workspaceId, hourOf(from) + HOUR_MS, 'degraded', 20), // the first whole hour
      ]);
      const day = await f.engine.checks.summary(monitor, '1d');
      assert.deepEqual([day.successCount, day.degradedCount, day.errorCount], [1, 1, 1]);
      assert.equal(day.lastPingAt, new Date(hourOf(from) + HOUR_MS).toISOString());
      assert.ok(day.latency);
      assert.ok(Math.abs(day.latency.p50 - 10) <= 0.2 && Math.abs(day.latency.p99 - 20) <= 0.4, JSON.stringify(day.latency));
      const week = await f.engine.checks.summary(monitor, '7d');
      assert.deepEqual([week.successCount, week.degradedCount, week.errorCount], [2, 1, 1]);

      // A monitor whose checks all failed: counts, but no latency.
      const failing = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput('127.0.0.1:9', { name: 'failing', active: false }));
      await store.write([1, 2, 3].map((h) => storedCheck(failing.id, f.workspaceId, NOW - h * HOUR_MS, 'down', 1_000)));
      const none = await f.engine.checks.summary(failing, '1d');
      assert.deepEqual([none.successCount, none.degradedCount, none.errorCount, none.latency], [0, 0, 3, null]);
      assert.equal(none.lastPingAt, new Date(NOW - HOUR_MS).toISOString());

      // A monitor never checked.
      const fresh = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput('127.0.0.1:9', { name: 'fresh', active: false }));
      const empty = await f.engine.checks.summary(fresh, '14d');
      assert.deepEqual(empty, { window: '14d', successCount: 0, degradedCount: 0, errorCount: 0, latency: null, lastPingAt: null, gaps: [] });
    } finally {
      await f.close();
    }
  });

  test('gaps show in summaries clipped to the window', async () => {
    const f = await setup({ now: () => NOW });
    try {
      const monitor = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput('127.0.0.1:9', { active: false }));
      const store = createResultStore(f.db);
      const dayFrom = NOW - DAY_MS;
      await store.recordGap('local', NOW - 3 * DAY_MS, NOW - 2 * DAY_MS); // before the day, inside the week
      await store.recordGap('local', dayFrom - HOUR_MS, dayFrom + HOUR_MS); // across the start of the day
      await store.recordGap('local', NOW - 2 * HOUR_MS, NOW - HOUR_MS); // inside the day
      await store.recordGap('local', NOW - 20 * DAY_MS, NOW - 19 * DAY_MS); // before every window
      const iso = (t: number) => new Date(t).toISOString();

      assert.deepEqual((await f.engine.checks.summary(monitor, '1d')).gaps, [
        { startedAt: iso(dayFrom), endedAt: iso(dayFrom + HOUR_MS) },
        { startedAt: iso(NOW - 2 * HOUR_MS), endedAt: iso(NOW - HOUR_MS) },
      ]);
      assert.deepEqual((await f.engine.checks.summary(monitor, '7d')).gaps, [
        { startedAt: iso(NOW - 3 * DAY_MS), endedAt: iso(NOW - 2 * DAY_MS) },
        { startedAt: iso(dayFrom - HOUR_MS), endedAt: iso(dayFrom + HOUR_MS) },
        { startedAt: iso(NOW - 2 * HOUR_MS), endedAt: iso(NOW - HOUR_MS) },
      ]);
      assert.equal((await f.engine.checks.summary(monitor, '14d')).gaps.length, 3);
    } finally {
      await f.close();
    }
  });

  test('pruning deletes raw results older than 14 days in chunks, keeps newer ones, and rollups and gaps for 90 days', async () => {
    const f = await setup({ now: () => NOW });
    try {
      const monitor = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput('127.0.0.1:9', { active: false }));
      const id = Number(monitor.id);
      const store = createResultStore(f.db);
      const limit = NOW - 14 * DAY_MS;
      // More old rows than one prune chunk (5000), so the prune loops.
      const old = Array.from({ length: 12_000 }, (_, i) => storedCheck(id, f.workspaceId, NOW - 15 * DAY_MS + i, 'up', 5));
      await store.write(old);
      await store.write([
        storedCheck(id, f.workspaceId, limit - 1, 'up', 5), // just too old
        storedCheck(id, f.workspaceId, limit, 'up', 5), // exactly 14 days: kept
        storedCheck(id, f.workspaceId, NOW - 13 * DAY_MS, 'up', 5),
        storedCheck(id, f.workspaceId, NOW - HOUR_MS, 'down', 1_000),
        storedCheck(id, f.workspaceId, NOW - 91 * DAY_MS, 'up', 5), // raw and rollup both past retention
        storedCheck(id, f.workspaceId, NOW - 89 * DAY_MS, 'up', 5), // raw past retention, rollup kept
      ]);
      await store.recordGap('local', NOW - 92 * DAY_MS, NOW - 91 * DAY_MS);
      await store.recordGap('local', NOW - 89 * DAY_MS, NOW - 88 * DAY_MS);

      const deleted = await store.prune(NOW);
      assert.equal(deleted, 12_000 + 3);
      const left = await f.db.selectFrom('check_results').select('started_at').where('monitor_id', '=', id).orderBy('started_at').execute();
      assert.deepEqual(
        left.map((r) => r.started_at),
        [limit, NOW - 13 * DAY_MS, NOW - HOUR_MS],
      );
      const hours = (await f.db.selectFrom('check_rollups').select('hour').where('monitor_id', '=', id).orderBy('hour').execute()).map((r) => r.hour);
      assert.ok(!hours.includes(hourOf(NOW - 91 * DAY_MS)), 'a rollup older than 90 days is gone');
      assert.ok(hours.includes(Math.floor((NOW - 89 * DAY_MS) / DAY_MS) * DAY_MS), 'a rollup of 89 days ago is kept, in its day');
      assert.ok(hours.includes(hourOf(NOW - 15 * DAY_MS)), 'rollups outlive their raw rows');
      const gaps = await f.db.selectFrom('check_gaps').select('started_at').execute();
      assert.deepEqual(
        gaps.map((g) => g.started_at),
        [NOW - 89 * DAY_MS],
      );
      assert.equal(await store.prune(NOW), 0, 'a second prune finds nothing');

      // The 14-day summary is unchanged by pruning what lies outside it.
      const summary = await f.engine.checks.summary(monitor, '14d');
      assert.deepEqual([summary.successCount, summary.errorCount], [2, 1]);
    } finally {
      await f.close();
    }
  });
});

// ---- writes ----------------------------------------------------------------------------------------

describe('check engine: batched writes', () => {
  test('500 triggered checks end up as 500 rows, in rollups and the summary', async () => {
    const peer = await startTcpListener('127.0.0.1');
    const f = await setup();
    try {
      const monitor = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput(peer.uri));
      const results = await Promise.all(Array.from({ length: 500 }, () => f.engine.checks.trigger(monitor)));
      const outcomes = results.flat().map((r) => r.result);
      assert.equal(outcomes.filter((o) => o === 'up').length, 1_000, 'two regions each');
      const counts = await rowCounts(f.db, monitor.id);
      assert.equal(counts.results, 500);
      assert.equal(counts.state, 1);
      const rollups = await f.db.selectFrom('check_rollups').select(['success_count', 'error_count']).where('monitor_id', '=', Number(monitor.id)).execute();
      assert.equal(
        rollups.reduce((n, r) => n + r.success_count + r.error_count, 0),
        500,
      );
      const summary = await f.engine.checks.summary(monitor, '1d');
      assert.equal(summary.successCount + summary.degradedCount + summary.errorCount, 500);
      await eventually(
        () => peer.connections,
        (n) => n === 500,
        'the peer saw every connection',
      );
    } finally {
      await f.close();
      await peer.close();
    }
  });

  test('a check of a monitor deleted meanwhile is dropped without failing the rest of its batch', async () => {
    const f = await setup();
    try {
      const kept = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput('127.0.0.1:9', { active: false }));
      const gone = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput('127.0.0.1:9', { name: 'gone', active: false }));
      await f.services.monitors.delete(system, f.workspaceId, gone.id);
      const store = createResultStore(f.db);
      const now = Date.now();
      const written = await store.write([
        storedCheck(gone.id, f.workspaceId, now, 'down', 5),
        storedCheck(kept.id, f.workspaceId, now, 'up', 5),
        storedCheck(999_999, f.workspaceId, now, 'up', 5),
      ]);
      assert.deepEqual(
        written.map((t) => [t.check.monitorId, t.from, t.to]),
        [[Number(kept.id), null, 'up']],
      );
      assert.deepEqual(await rowCounts(f.db, kept.id), { results: 1, rollups: 1, state: 1 });
      assert.deepEqual(await rowCounts(f.db, gone.id), { results: 0, rollups: 0, state: 0 });
      assert.deepEqual(await rowCounts(f.db, 999_999), { results: 0, rollups: 0, state: 0 });
    } finally {
      await f.close();
    }
  });

  test('a monitor deleted while its check is in flight: the check ends quietly, nothing is stored, others are', async () => {
    const server = await startSlowHttp(300);
    const peer = await startTcpListener('127.0.0.1');
    const f = await setup();
    try {
      const slow = await f.services.monitors.create(system, f.workspaceId, 'http', {
        name: 'slow',
        url: server.url,
        periodicity: '30s',
        regions: ['iad'],
        timeout: 2_000,
        retry: 0,
      });
      const other = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput(peer.uri));
      const inFlight = f.engine.checks.trigger(slow);
      await eventually(
        () => server.requests,
        (n) => n === 1,
        'the request reached the server',
      );
      await f.services.monitors.delete(system, f.workspaceId, slow.id);
      const otherCheck = f.engine.checks.trigger(other);
      await inFlight;
      await otherCheck;
      assert.deepEqual(await rowCounts(f.db, slow.id), { results: 0, rollups: 0, state: 0 });
      assert.deepEqual(await rowCounts(f.db, other.id), { results: 1, rollups: 1, state: 1 });
      assert.equal(f.changes.length, 0, 'no state change for a deleted monitor');
    } finally {
      await f.close();
      await server.close();
      await peer.close();
    }
  });
});

// ---- remote runners and monitors without regions ---------------------------------------------------

describe('check engine: remote runners', () => {
  /** A check of the location `office`, as the service stores one a runner reported. */
  const fromOffice = (monitorId: string, workspaceId: number, at: number, result: 'up' | 'down') => ({
    ...storedCheck(monitorId, workspaceId, at, result, 5),
    runner: 'office',
    regions: ['office'],
  });

  test('ingested checks are stored, `within` runs with each batch, and their changes of state are announced as local ones are', async () => {
    const f = await setup();
    try {
      const monitor = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput('127.0.0.1:9', { active: false }));
      const t = Date.now();
      // A gap recorded with each batch, as the acknowledgement of a report is.
      const gap = (at: number) =>
        f.db
          .insertInto('check_gaps')
          .values({ runner: 'office', started_at: at - 10, ended_at: at })
          .compile();
      await f.engine.ingest([fromOffice(monitor.id, f.workspaceId, t, 'up')], gap(t));
      await f.engine.ingest([fromOffice(monitor.id, f.workspaceId, t + 1_000, 'down')], gap(t + 1_000));
      assert.deepEqual(
        (await f.db.selectFrom('check_gaps').select('ended_at').where('runner', '=', 'office').orderBy('ended_at').execute()).map((g) => g.ended_at),
        [t, t + 1_000],
      );
      assert.deepEqual(
        [...f.firstChecks, ...f.changes].map((c) => [c.monitorId, c.from, c.to, c.kind]),
        [
          [monitor.id, null, 'up', 'checked'],
          [monitor.id, 'up', 'down', 'down'],
        ],
      );
      assert.deepEqual(await rowCounts(f.db, monitor.id), { results: 2, rollups: 1, state: 1 });
      const health = await f.engine.checks.status({ ...monitor, regions: ['office'] });
      assert.deepEqual([health.overall, health.regions.map((r) => [r.region, r.status])], ['error', [['office', 'error']]]);
    } finally {
      await f.close();
    }
  });

  test('when `within` fails, nothing of the batch is stored nor announced, and later batches are', async () => {
    const f = await setup();
    try {
      const monitor = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput('127.0.0.1:9', { active: false }));
      const t = Date.now();
      await assert.rejects(
        // A gap without its runner breaks a NOT NULL constraint.
        f.engine.ingest(
          [fromOffice(monitor.id, f.workspaceId, t, 'down')],
          f.db
            .insertInto('check_gaps')
            .values({ runner: null as unknown as string, started_at: t, ended_at: t })
            .compile(),
        ),
        /NOT NULL constraint failed: check_gaps\.runner|null value in column "runner"/,
      );
      assert.deepEqual(await rowCounts(f.db, monitor.id), { results: 0, rollups: 0, state: 0 });
      assert.deepEqual([f.changes, f.firstChecks], [[], []]);
      assert.equal((await f.engine.checks.status({ ...monitor, regions: ['office'] })).overall, null);

      await f.engine.ingest([fromOffice(monitor.id, f.workspaceId, t + 1_000, 'down')]);
      assert.deepEqual(await rowCounts(f.db, monitor.id), { results: 1, rollups: 1, state: 1 });
      assert.deepEqual(
        f.changes.map((c) => [c.from, c.to]),
        [[null, 'down']],
      );
    } finally {
      await f.close();
    }
  });

  test("a runner's gaps show in the summaries of the monitors it checks, not in others'", async () => {
    const f = await setup();
    try {
      const input = tcpInput('127.0.0.1:9', { active: false });
      const checked = await f.services.monitors.create(system, f.workspaceId, 'tcp', input);
      const other = await f.services.monitors.create(system, f.workspaceId, 'tcp', { ...input, name: 'other' });
      const t = Date.now();
      await f.engine.ingest([fromOffice(checked.id, f.workspaceId, t - 1_000, 'up')]);
      await f.engine.recordGap('office', t - 600_000, t - 300_000);
      const gaps = [{ startedAt: new Date(t - 600_000).toISOString(), endedAt: new Date(t - 300_000).toISOString() }];
      assert.deepEqual((await f.engine.checks.summary(checked, '1d')).gaps, gaps);
      assert.deepEqual((await f.engine.checks.summary(other, '1d')).gaps, []);
    } finally {
      await f.close();
    }
  });

  test('a monitor without regions is not checked by the embedded runner: not scheduled, and a trigger checks nothing here', async () => {
    const peer = await startTcpListener('127.0.0.1');
    const f = await setup({ schedule: true });
    try {
      await f.engine.start();
      const monitor = await f.services.monitors.create(system, f.workspaceId, 'tcp', tcpInput(peer.uri));
      assert.equal(f.engine.scheduler.has(Number(monitor.id)), true);
      // A new monitor is checked once at once: that check is stored before the regions go.
      const checked = await eventually(
        () => rowCounts(f.db, monitor.id),
        (counts) => counts.state === 1,
        'the check on save',
      );
      const connections = peer.connections;
      const fromLocationsOnly = { ...monitor, regions: [] };
      f.engine.checks.monitorChanged(fromLocationsOnly);
      assert.equal(f.engine.scheduler.has(Number(monitor.id)), false, 'forgotten once it has no region');
      assert.deepEqual(await f.engine.checks.trigger(fromLocationsOnly), []);
      assert.deepEqual(await rowCounts(f.db, monitor.id), checked);
      assert.equal(peer.connections, connections);
      f.engine.checks.monitorChanged(monitor);
      assert.equal(f.engine.scheduler.has(Number(monitor.id)), true, 'scheduled again with its regions back');
    } finally {
      await f.close();
      await peer.close();
    }
  });
});

// ---- the service wiring ------------------------------------------------------------------------------

describe('check engine in the service', () => {
  test('with STATUSDESK_CHECKS=on the running service schedules monitors created over RPC, and forgets deleted ones', async () => {
    for (const checks of ['on', 'off']) {
      const svc = await startTestService({ STATUSDESK_CHECKS: checks, STATUSDESK_CHECK_CONCURRENCY: '3' });
      try {
        const { secret } = await svc.createKey('write');
        const withKey: Interceptor = (next) => (req) => {
          req.header.set('x-service-key', secret);
          return next(req);
        };
        const client = createClient(MonitorService, createConnectTransport({ baseUrl: `${svc.apiUrl}/rpc`, httpVersion: '1.1', interceptors: [withKey] }));
        const created = (
          await client.createTCPMonitor({ monitor: { name: 'db', uri: `127.0.0.1:${await closedPort()}`, periodicity: Periodicity.PERIODICITY_1M } })
        ).monitor!;
        const id = Number(created.id);
        assert.equal(svc.engine.scheduler.has(id), checks === 'on', `checks ${checks}: scheduled`);
        if (checks === 'on') {
          const db = await openTestDatabase(svc.dataDir);
          try {
            const seen = await db.selectFrom('private_locations').select('last_seen_at').where('name', '=', 'local').executeTakeFirstOrThrow();
            assert.ok(Math.abs(Date.parse(seen.last_seen_at!) - Date.now()) < 5_000, 'the runner has reported itself');
          } finally {
            await db.destroy();
          }
        }
        await client.deleteMonitor({ id: created.id });
        assert.equal(svc.engine.scheduler.has(id), false);
        assert.equal(svc.engine.scheduler.load.jobs, 0);
      } finally {
        await svc.stop();
      }
    }
  });
});
