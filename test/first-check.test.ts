/**
 * A monitor saved new, resumed, or changed in what or how it checks is checked at once, then on
 * its schedule: a monitor checked every hour is not pending for up to an hour. The check engine
 * (server/checks/engine.ts) on a real SQLite file, with real HTTP listeners on 127.0.0.1. The
 * engine's clock is moved to just after the monitor's hourly slot, so no scheduled check can come
 * during the test: every check seen is one the save asked for.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { createCheckEngine } from '../server/checks/engine.ts';
import { offsetOf } from '../server/checks/scheduler.ts';
import type { Db } from '../server/db/open.ts';
import type { Actor } from '../server/domain/actor.ts';
import { checksAtOnce, type Monitor } from '../server/domain/monitors/monitors.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { createServices } from '../server/services.ts';
import { openTestDatabase } from './support/database.ts';
import { tempDir } from './support/harness.ts';
import { resultsFrom, resultsOf, runnerWorkspace, useRunnerService } from './support/runner.ts';
import { eventually } from './support/wait.ts';

const HOUR_MS = 3_600_000;
/**
 * How long a check the save asked for may take to be stored: the listener answers at once and the
 * results are written every second, so it takes a second or two; the bound leaves room for a
 * loaded machine, and is far below the 59 minutes to the monitor's next slot.
 */
const FIRST_CHECK_MS = 10_000;
/** How long a save that asks for no check is watched for one: such a check would start at once. */
const QUIET_MS = 750;
const system: Actor = { type: 'system', surface: 'cli' };

/** An HTTP server on 127.0.0.1 that answers 200 and counts its requests. */
async function startListener(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const server: Server = createServer((_req, res) => {
    requests++;
    res.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`,
    requests: () => requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function resultCount(db: Db, monitorId: string): Promise<number> {
  const row = await db
    .selectFrom('check_results')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('monitor_id', '=', Number(monitorId))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('a first check on save', () => {
  test('a 1 h monitor is checked at once when created, when its URL changes and when resumed; not when only renamed, retagged or paused', async () => {
    const dir = await tempDir();
    const db = await openTestDatabase(dir.path);
    const ownerId = await ensureOwner(db);
    // The first monitor of a fresh database is id 1: the clock starts a minute after its hourly
    // slot, so its next scheduled check is 59 minutes away.
    const slot = Math.floor((Date.now() - offsetOf(1, HOUR_MS)) / HOUR_MS) * HOUR_MS + offsetOf(1, HOUR_MS);
    const skew = slot + 60_000 - Date.now();
    const now = () => Date.now() + skew;
    const engine = createCheckEngine(db, { log: pino({ enabled: false }), version: 'test', schedule: true, now });
    const services = createServices(db, { checks: engine.checks });
    const owner: Actor = { type: 'user', userId: ownerId, surface: 'cli' };
    const workspaceId = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
    const first = await startListener();
    const second = await startListener();
    try {
      await engine.start();
      const { monitors } = services;
      const monitor = await monitors.create(system, workspaceId, 'http', {
        name: 'hourly',
        url: first.url,
        periodicity: '1h',
        regions: ['iad'],
        timeout: 2_000,
        retry: 0,
      });
      assert.equal(monitor.id, '1', 'the clock was set for the first monitor of a fresh database');
      const next = slot + HOUR_MS;
      assert.ok(next - now() > 30 * 60_000, 'its scheduled check is far away');

      await eventually(
        () => resultCount(db, monitor.id),
        (n) => n === 1,
        'the check of the new monitor is stored',
        FIRST_CHECK_MS,
      );
      assert.equal(first.requests(), 1);
      assert.equal((await engine.checks.status(monitor)).overall, 'active', 'no longer pending');

      // A new URL: checked at once, at the new address.
      await monitors.update(system, workspaceId, 'http', monitor.id, { url: second.url });
      await eventually(
        () => resultCount(db, monitor.id),
        (n) => n === 2,
        'the check of the changed URL is stored',
        FIRST_CHECK_MS,
      );
      assert.equal(second.requests(), 1);
      assert.equal(first.requests(), 1, 'the old URL is not asked again');

      // A new name, tags or description: the checks are as they were. A check the save asked for
      // would have started before the update returned (the scheduler counts it), and been stored meanwhile.
      const started = engine.scheduler.stats.started;
      await monitors.update(system, workspaceId, 'http', monitor.id, { name: 'hourly, renamed' });
      await monitors.update(system, workspaceId, 'http', monitor.id, { tags: ['team-a'], description: 'the API' });
      assert.equal(engine.scheduler.stats.started, started, 'no check started');
      await sleep(QUIET_MS);
      assert.equal(await resultCount(db, monitor.id), 2, 'a rename or new tags are not checked');
      assert.equal(second.requests(), 1);

      // Paused: nothing. Resumed: checked at once.
      await monitors.update(system, workspaceId, 'http', monitor.id, { active: false });
      assert.equal(engine.scheduler.stats.started, started, 'no check started');
      await sleep(QUIET_MS);
      assert.equal(await resultCount(db, monitor.id), 2, 'a paused monitor is not checked');
      await monitors.update(system, workspaceId, 'http', monitor.id, { active: true });
      await eventually(
        () => resultCount(db, monitor.id),
        (n) => n === 3,
        'the check of the resumed monitor is stored',
        FIRST_CHECK_MS,
      );
      assert.equal(second.requests(), 2);
      assert.ok(now() < next, 'all within the hour before the scheduled check');
    } finally {
      await engine.close();
      await db.destroy();
      await first.close();
      await second.close();
      await dir.remove();
    }
  });

  test('which saves ask for a check: new, resumed, or what or how it checks; never a paused or heartbeat monitor', () => {
    const http = {
      id: '7',
      workspaceId: '1',
      type: 'http',
      name: 'api',
      description: '',
      active: true,
      periodicity: '1h',
      regions: ['iad'],
      privateLocations: [],
      timeout: 2_000,
      degraded: 1_000,
      remindEvery: 0,
      retry: 0,
      openTelemetry: null,
      tags: [],
      url: 'http://127.0.0.1:1/',
      method: 'GET',
      headers: {},
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    } as unknown as Monitor;
    const edited = (change: Record<string, unknown>) => ({ ...http, ...change, updatedAt: '2026-01-02T00:00:00.000Z' }) as Monitor;
    assert.equal(checksAtOnce(null, http), true, 'new');
    assert.equal(checksAtOnce(null, edited({ active: false })), false, 'new, paused');
    assert.equal(checksAtOnce(edited({ active: false }), http), true, 'resumed');
    assert.equal(checksAtOnce(http, edited({ active: false })), false, 'paused');
    for (const change of [
      { url: 'http://127.0.0.1:2/' },
      { periodicity: '30m' },
      { headers: { accept: 'text/plain' } },
      { timeout: 5_000 },
      { regions: ['iad', 'fra'] },
    ]) {
      assert.equal(checksAtOnce(http, edited(change)), true, JSON.stringify(change));
    }
    for (const change of [{ name: 'API' }, { description: 'the API' }, { tags: ['team-a'] }, { remindEvery: 3_600_000 }, {}]) {
      assert.equal(checksAtOnce(http, edited(change)), false, JSON.stringify(change));
    }
    const heartbeat = { ...http, type: 'heartbeat' } as unknown as Monitor;
    assert.equal(checksAtOnce(null, heartbeat), false, 'a heartbeat monitor has no check to run');
  });
});

describe('a first check on save, from a private location', () => {
  const shared = useRunnerService();

  test("a 1 h monitor of a private location is checked by the location's runner as soon as it has it, and again when its timeout changes; not when renamed", {
    timeout: 60_000,
  }, async () => {
    const { service, target } = shared;
    const ws = await runnerWorkspace(service, 'first');
    const location = await ws.location('office');
    await shared.runner(location.token);
    await ws.locationStatus(location.id, 'active');

    const created = await ws.monitors.createTCPMonitor({
      monitor: { name: 'hourly', uri: target.uri, periodicity: Periodicity.PERIODICITY_1H, retry: 0, privateLocations: [location.id] },
    });
    const id = created.monitor!.id;
    // Its hourly slot is rarely this close: the check comes from the save.
    const first = await resultsFrom(service, id, location.name, 10_000);
    assert.equal(first.length, 1);
    assert.equal(first[0]!.result, 'up');

    await ws.monitors.updateTCPMonitor({ id, monitor: { name: 'hourly, renamed' }, updateMask: { paths: ['name'] } });
    await sleep(1_500);
    assert.equal((await resultsOf(service, id)).length, 1, 'a rename is not checked');

    await ws.monitors.updateTCPMonitor({ id, monitor: { timeout: { seconds: 3n } }, updateMask: { paths: ['timeout'] } });
    await eventually(
      () => resultsOf(service, id),
      (rows) => rows.length === 2,
      'the check of the changed timeout is stored',
      10_000,
    );
  });
});
