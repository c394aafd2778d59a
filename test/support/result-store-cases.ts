/**
 * The behaviours of the result store (server/checks/result-store.ts), run on each engine by
 * test/result-store.test.ts (SQLite) and test/postgres-result-store.test.ts (PostgreSQL).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createResultStore, DAY_MS, HOUR_MS, hourOf, type StoredCheck, type StoredTransition, type WithinWrite } from '../../server/checks/result-store.ts';
import type { Db } from '../../server/db/open.ts';
import type { Actor } from '../../server/domain/actor.ts';
import type { CheckOutcome } from '../../server/domain/monitors/check-results.ts';
import { LatencyHistogram } from '../../server/domain/monitors/latency-histogram.ts';
import { ensureOwner } from '../../server/domain/users/users.ts';
import { dailyOutcomes } from '../../server/domain/monitors/view-repository.ts';
import { createServices } from '../../server/services.ts';
import { storedCheck } from './checks.ts';

export const NOW = Date.UTC(2026, 0, 15, 12, 30);

/** A fresh, migrated database, and what removes it. */
export interface TestDatabase {
  db: Db;
  /** Another connection pool on the same database, as another process has (PostgreSQL only), closed with it. */
  openAnother?: () => Promise<Db>;
  close(): Promise<void>;
}

/** A database with an owner and two paused TCP monitors. */
async function setup(database: TestDatabase) {
  const { db } = database;
  const userId = await ensureOwner(db);
  const actor: Actor = { type: 'user', userId, surface: 'cli' };
  const services = createServices(db);
  const workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
  const input = { periodicity: '30s', uri: '127.0.0.1:9', timeout: 1_000, active: false } as const;
  const a = Number((await services.monitors.create(actor, workspaceId, 'tcp', { ...input, name: 'a' })).id);
  const b = Number((await services.monitors.create(actor, workspaceId, 'tcp', { ...input, name: 'b' })).id);
  services.close();
  return { ...database, workspaceId, a, b };
}

type Fixture = Awaited<ReturnType<typeof setup>>;

const fromRunner = (check: StoredCheck, runner: string): StoredCheck => ({ ...check, runner, regions: [runner] });
const changes = (transitions: StoredTransition[]) => transitions.filter((t) => t.from !== t.to).map((t) => [t.check.runner, t.from, t.to]);
const countRows = async (db: Db, table: 'check_results' | 'check_rollups' | 'check_gaps') =>
  (
    await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
  ).n;

/**
 * Defines the result store's tests; each runs on a database of its own from `open`. Only
 * PostgreSQL has `twoProcesses` writing one database.
 */
export function resultStoreCases(open: () => Promise<TestDatabase>, { twoProcesses }: { twoProcesses: boolean }): void {
  const withMonitors = (work: (f: Fixture) => Promise<void>) => async () => {
    const database = await open();
    try {
      await work(await setup(database));
    } finally {
      await database.close();
    }
  };

  test(
    "a write leaves the caller's thread free: its event loop turns while a big batch is stored",
    withMonitors(async (f) => {
      const store = createResultStore(f.db);
      const checks = Array.from({ length: 20_000 }, (_, i) => storedCheck(i % 2 === 0 ? f.a : f.b, f.workspaceId, NOW - 20_000 + i, 'up', 5));
      let turns = 0;
      let storing = true;
      const turn = () => {
        turns++;
        if (storing) setImmediate(turn);
      };
      setImmediate(turn);
      assert.equal((await store.write(checks)).length, checks.length);
      storing = false;
      // Written on the caller's thread, the batch would take the event loop for its whole write.
      assert.ok(turns > 20, `the event loop turned ${turns} times while 20,000 checks were stored`);
      assert.equal(await countRows(f.db, 'check_results'), checks.length);
    }),
  );

  test(
    'beyond maxRawResults the oldest raw results are pruned, in chunks; rollups keep every check',
    withMonitors(async (f) => {
      const store = createResultStore(f.db, { maxRawResults: 7_000 });
      // 12,000 recent checks of two monitors, written oldest first: more than a prune chunk (5,000) over the cap.
      const checks = Array.from({ length: 12_000 }, (_, i) => storedCheck(i % 2 === 0 ? f.a : f.b, f.workspaceId, NOW - 12_000 + i, 'up', 5));
      for (let i = 0; i < checks.length; i += 1_000) await store.write(checks.slice(i, i + 1_000));

      assert.equal(await store.prune(NOW), 5_000);
      const left = await f.db
        .selectFrom('check_results')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('started_at').as('oldest')])
        .executeTakeFirstOrThrow();
      assert.deepEqual(left, { n: 7_000, oldest: NOW - 7_000 }, 'the newest 7,000 are kept');
      assert.equal(await store.prune(NOW), 0, 'a second prune finds nothing');

      const window = await store.window(f.a, hourOf(NOW) - HOUR_MS);
      assert.equal(window.successCount, 6_000, 'the rollups still count every check of the monitor');
    }),
  );

  test(
    'a rollup written over several batches equals one made of all its checks at once',
    withMonitors(async (f) => {
      const store = createResultStore(f.db);
      const hour = hourOf(NOW);
      const outcomes: [CheckOutcome, number][] = [
        ['up', 1.5],
        ['up', 2],
        ['degraded', 300],
        ['down', 1_000],
        ['up', 1.5],
        ['up', 40],
      ];
      const checks = outcomes.map(([result, ms], i) => storedCheck(f.a, f.workspaceId, hour + i * 30_000, result, ms));
      // One per batch, then a batch holding two checks of the same monitor.
      for (const check of checks.slice(0, 4)) await store.write([check]);
      await store.write(checks.slice(4));

      const expected = new LatencyHistogram();
      for (const [result, ms] of outcomes) if (result !== 'down') expected.add(ms);
      const row = await f.db
        .selectFrom('check_rollups')
        .select(['success_count', 'degraded_count', 'error_count', 'latency', 'last_ping_at'])
        .where('monitor_id', '=', f.a)
        .where('hour', '=', hour)
        .executeTakeFirstOrThrow();
      assert.deepEqual([row.success_count, row.degraded_count, row.error_count, row.last_ping_at], [4, 1, 1, hour + 5 * 30_000]);
      const stored = LatencyHistogram.decode(row.latency);
      for (const q of [0.2, 0.5, 0.8, 1]) assert.equal(stored.quantile(q), expected.quantile(q), `quantile ${q}`);
      assert.equal(stored.count, expected.count);

      // A window from the middle of the hour before: its partial hour from raw rows, this one from the rollup.
      const earlier = [storedCheck(f.a, f.workspaceId, hour - 10 * 60_000, 'down', 1_000), storedCheck(f.a, f.workspaceId, hour - 40 * 60_000, 'up', 7)];
      await store.write(earlier);
      const window = await store.window(f.a, hour - 20 * 60_000);
      assert.deepEqual([window.successCount, window.degradedCount, window.errorCount, window.lastPingAt], [4, 1, 2, hour + 5 * 30_000]);
      assert.equal(window.latency.quantile(0.5), expected.quantile(0.5));
    }),
  );

  test(
    'checks of a deleted monitor are dropped, the rest of the batch is stored',
    withMonitors(async (f) => {
      const store = createResultStore(f.db);
      await f.db.deleteFrom('monitors').where('id', '=', f.b).execute();
      const stored = await store.write([storedCheck(f.a, f.workspaceId, NOW, 'up', 3), storedCheck(f.b, f.workspaceId, NOW, 'down', 1_000)]);
      assert.deepEqual(
        stored.map((t) => [t.check.monitorId, t.from, t.to]),
        [[f.a, null, 'up']],
      );
      assert.equal(await countRows(f.db, 'check_results'), 1);
    }),
  );

  test(
    'a batch of any size stores its checks in its order, with the latest state of each runner and every check in the rollup',
    withMonitors(async (f) => {
      const store = createResultStore(f.db);
      await f.db.deleteFrom('monitors').where('id', '=', f.b).execute();
      // 1,301 checks, a third of them of the deleted monitor: 867 stored, more than any one
      // statement holds, sent to SQLite's writer in chunks of 512 checks (the third a part one).
      const checks = Array.from({ length: 1_301 }, (_, i) =>
        fromRunner(storedCheck(i % 3 === 2 ? f.b : f.a, f.workspaceId, NOW + i * 1_000, 'up', i), i % 3 === 1 ? 'office' : 'local'),
      );
      const kept = checks.filter((c) => c.monitorId === f.a);
      const written = await store.write(checks);
      assert.deepEqual(
        written.map((t) => t.check),
        kept,
        'each check stored is returned, in order',
      );

      const rows = await f.db.selectFrom('check_results').select(['monitor_id', 'runner', 'started_at', 'latency_ms', 'message']).orderBy('id').execute();
      assert.deepEqual(
        rows.map((r) => [r.monitor_id, r.runner, r.started_at, r.latency_ms, r.message]),
        kept.map((c) => [c.monitorId, c.runner, c.startedAt, c.latencyMs, c.message]),
      );
      const states = (await store.states(f.a)).sort((x, y) => x.runner.localeCompare(y.runner)).map((s) => [s.runner, s.checkedAt]);
      assert.deepEqual(states, [
        ['local', NOW + 1_299_000],
        ['office', NOW + 1_300_000],
      ]);
      assert.equal((await store.window(f.a, hourOf(NOW))).successCount, kept.length);
    }),
  );

  test(
    "a monitor's state is the worst of its runners' latest checks; a runner's older check changes nothing",
    withMonitors(async (f) => {
      const store = createResultStore(f.db);
      const at = (ms: number, result: CheckOutcome, runner = 'local') => fromRunner(storedCheck(f.a, f.workspaceId, NOW + ms, result, 5), runner);
      assert.deepEqual(changes(await store.write([at(0, 'up'), at(1_000, 'degraded', 'office')])), [
        ['local', null, 'up'],
        ['office', 'up', 'degraded'],
      ]);
      // An older check of office, then local going down and office recovering in one batch.
      assert.deepEqual(changes(await store.write([at(500, 'down', 'office'), at(2_000, 'down'), at(3_000, 'up', 'office')])), [['local', 'degraded', 'down']]);
      assert.deepEqual(changes(await store.write([at(4_000, 'up')])), [['local', 'down', 'up']]);

      const states = (await store.states(f.a)).sort((x, y) => x.runner.localeCompare(y.runner));
      assert.deepEqual(states, [
        { runner: 'local', result: 'up', regions: ['local'], checkedAt: NOW + 4_000 },
        { runner: 'office', result: 'up', regions: ['office'], checkedAt: NOW + 3_000 },
      ]);
      const overall = await f.db.selectFrom('monitor_state').select(['state', 'changed_at']).where('monitor_id', '=', f.a).executeTakeFirstOrThrow();
      assert.deepEqual(overall, { state: 'up', changed_at: NOW + 4_000 });

      const results = await store.results(f.a, NOW + 1_000, 2, 1);
      assert.deepEqual(
        results.map((r) => [r.runner, r.started_at, r.result]),
        [
          ['office', NOW + 3_000, 'up'],
          ['local', NOW + 2_000, 'down'],
        ],
        'newest first, from the second',
      );
      assert.equal((await store.result(results[0]!.id))?.message, 'up in 5 ms');
      assert.equal(await store.result(999_999), undefined);
    }),
  );

  test(
    'when `within` fails nothing of the batch is stored, and a later write announces the same change',
    withMonitors(async (f) => {
      const store = createResultStore(f.db);
      await store.write([storedCheck(f.a, f.workspaceId, NOW, 'up', 5)]);
      // A gap without its runner breaks a NOT NULL constraint.
      const refused = f.db
        .insertInto('check_gaps')
        .values({ runner: null as unknown as string, started_at: NOW, ended_at: NOW })
        .compile();
      await assert.rejects(
        store.write([storedCheck(f.a, f.workspaceId, NOW + 1_000, 'down', 5)], refused),
        /NOT NULL constraint failed: check_gaps\.runner|null value in column "runner"/,
      );
      assert.equal(await countRows(f.db, 'check_results'), 1);
      assert.deepEqual(
        (await store.states(f.a)).map((s) => [s.result, s.checkedAt]),
        [['up', NOW]],
      );
      assert.deepEqual(changes(await store.write([storedCheck(f.a, f.workspaceId, NOW + 2_000, 'down', 5)])), [['local', 'up', 'down']]);
    }),
  );

  test(
    "`within` writes in the write's transaction",
    withMonitors(async (f) => {
      const store = createResultStore(f.db);
      const gap = { runner: 'office', started_at: NOW - 60_000, ended_at: NOW };
      const within: WithinWrite = f.db.insertInto('check_gaps').values(gap).compile();
      await store.write([storedCheck(f.a, f.workspaceId, NOW, 'up', 5)], within);
      assert.deepEqual(await store.gaps(0), [gap]);
      assert.equal(await countRows(f.db, 'check_results'), 1);
    }),
  );

  test(
    'dropStaleStates drops the states of runners that no longer check a monitor, and the next check announces the change',
    withMonitors(async (f) => {
      const store = createResultStore(f.db);
      const location = await f.db
        .insertInto('private_locations')
        .values({ name: 'office', status: 'active', metadata: '{}', created_at: new Date(NOW).toISOString(), workspace_id: f.workspaceId })
        .returning('id')
        .executeTakeFirstOrThrow();
      await f.db.insertInto('monitor_private_locations').values({ monitor_id: f.a, location_id: location.id }).execute();
      const check = (monitorId: number, ms: number, result: CheckOutcome, runner: string) =>
        fromRunner(storedCheck(monitorId, f.workspaceId, NOW + ms, result, 5), runner);
      await store.write([check(f.a, 0, 'down', 'local'), check(f.a, 0, 'up', 'office'), check(f.a, 0, 'down', 'lab'), check(f.b, 0, 'down', 'local')]);

      // lab is no location of a: its state goes; local stays while a has regions, and b is not touched.
      await store.dropStaleStates(f.a);
      assert.deepEqual((await store.states(f.a)).map((s) => s.runner).sort(), ['local', 'office']);
      await f.db.updateTable('monitors').set({ regions: '[]' }).execute();
      await store.dropStaleStates();
      assert.deepEqual(
        (await store.states(f.a)).map((s) => s.runner),
        ['office'],
      );
      assert.deepEqual(await store.states(f.b), []);
      assert.deepEqual(changes(await store.write([check(f.a, 1_000, 'up', 'office')])), [['office', 'down', 'up']]);
    }),
  );

  test(
    'gaps are recorded and read back by when they ended; raw results, rollups and gaps are pruned past their retention',
    withMonitors(async (f) => {
      const store = createResultStore(f.db);
      await store.recordGap('local', NOW - 91 * DAY_MS, NOW - 91 * DAY_MS + 60_000);
      await store.recordGap('office', NOW - 2 * HOUR_MS, NOW - HOUR_MS);
      assert.deepEqual(await store.gaps(NOW - 3 * HOUR_MS), [{ runner: 'office', started_at: NOW - 2 * HOUR_MS, ended_at: NOW - HOUR_MS }]);
      for (const ago of [91 * DAY_MS, 15 * DAY_MS, HOUR_MS]) await store.write([storedCheck(f.a, f.workspaceId, NOW - ago, 'up', 5)]);

      assert.equal(await store.prune(NOW), 2, 'raw results older than 14 days go');
      assert.deepEqual([await countRows(f.db, 'check_results'), await countRows(f.db, 'check_rollups'), await countRows(f.db, 'check_gaps')], [1, 2, 1]);
      assert.equal((await store.window(f.a, NOW - 30 * DAY_MS)).successCount, 2, 'the rollup of 15 days ago is kept');
    }),
  );

  test(
    'rollups of days that ended over 15 days ago are folded into one per day: uptime by day and summaries read the same',
    withMonitors(async (f) => {
      const store = createResultStore(f.db);
      const today = Math.floor(NOW / DAY_MS) * DAY_MS;
      const at = (daysAgo: number, hour: number, minute: number) => today - daysAgo * DAY_MS + hour * HOUR_MS + minute * 60_000;
      const outcomes: CheckOutcome[] = ['up', 'degraded', 'down'];
      // Days 20 and 16 ago fold (16 with a row at its first hour already), day 10 ago stays hourly.
      const checks = [20, 16, 10].flatMap((daysAgo) =>
        [0, 1, 5, 23].flatMap((hour) =>
          [7, 31].map((minute, i) => storedCheck(f.a, f.workspaceId, at(daysAgo, hour, minute), outcomes[(hour + i) % 3]!, 1 + hour * 3 + minute)),
        ),
      );
      await store.write(checks);
      const firstDay = today - 89 * DAY_MS;
      const uptime = async () =>
        (await dailyOutcomes(f.db, [f.a], firstDay))
          .map((r) => [Number(r.day), Number(r.up), Number(r.degraded), Number(r.down)])
          .sort((x, y) => x[0]! - y[0]!);
      const summary = async (from: number) => {
        const w = await store.window(f.a, from);
        return [w.successCount, w.degradedCount, w.errorCount, w.lastPingAt, ...[0.1, 0.5, 0.9, 1].map((q) => w.latency.quantile(q))];
      };
      const before = { uptime: await uptime(), month: await summary(NOW - 30 * DAY_MS), fortnight: await summary(NOW - 14 * DAY_MS) };

      await store.prune(NOW);
      const hours = (await f.db.selectFrom('check_rollups').select('hour').where('monitor_id', '=', f.a).orderBy('hour').execute()).map((r) => r.hour);
      assert.deepEqual(hours, [at(20, 0, 0), at(16, 0, 0), ...[0, 1, 5, 23].map((hour) => at(10, hour, 0))]);
      assert.deepEqual({ uptime: await uptime(), month: await summary(NOW - 30 * DAY_MS), fortnight: await summary(NOW - 14 * DAY_MS) }, before);

      // A check of a folded day arriving late is counted in its day.
      await store.write([storedCheck(f.a, f.workspaceId, at(20, 9, 0), 'up', 5)]);
      await store.prune(NOW + HOUR_MS);
      const day20 = at(20, 0, 0) / DAY_MS;
      const [, up, degraded, down] = before.uptime.find(([day]) => day === day20)!;
      assert.deepEqual(
        (await uptime()).find(([day]) => day === day20),
        [day20, up! + 1, degraded, down],
      );
    }),
  );

  const twoStores = 'two stores on one database, as two processes, writing checks of one monitor at once announce each change once';
  test(twoStores, { skip: !twoProcesses && 'one process writes a SQLite database' }, async () => {
    const database = await open();
    const other = await database.openAnother!();
    try {
      const f = await setup(database);
      const stores = [createResultStore(f.db), createResultStore(other)];
      // Commit order: `within` runs last in each transaction, which writers take in turns, and
      // numbers a gap row of its batch then: the gaps' ids are in the order of the commits.
      const batches = new Map<number, StoredCheck[]>();
      const announced: StoredTransition[] = [];
      await Promise.all(
        stores.map(async (store, s) => {
          const runner = s === 0 ? 'local' : 'office';
          for (let i = 0; i < 20; i++) {
            const batch = [fromRunner(storedCheck(f.a, f.workspaceId, NOW + i * 1_000 + s, i % 3 === s ? 'down' : 'up', 5), runner)];
            const at = batch[0]!.startedAt;
            batches.set(at, batch);
            announced.push(...(await store.write(batch, f.db.insertInto('check_gaps').values({ runner, started_at: at, ended_at: at }).compile())));
          }
        }),
      );
      const committed = (await f.db.selectFrom('check_gaps').select('started_at').orderBy('id').execute()).map((g) => batches.get(g.started_at)!);
      // What each change must be: the checks replayed in the order they were committed.
      const latest = new Map<string, CheckOutcome>();
      let state: CheckOutcome | null = null;
      const expected: [string, CheckOutcome | null, CheckOutcome][] = [];
      for (const c of committed.flat()) {
        latest.set(c.runner, c.result);
        const to = [...latest.values()].includes('down') ? 'down' : 'up';
        if (to !== state) expected.push([c.runner, state, to]);
        state = to;
      }
      const order = committed.flat();
      assert.deepEqual(changes(announced.sort((x, y) => order.indexOf(x.check) - order.indexOf(y.check))), expected);
      assert.ok(expected.length > 4, 'the state changed often');
      const overall = await f.db.selectFrom('monitor_state').select('state').where('monitor_id', '=', f.a).executeTakeFirstOrThrow();
      assert.equal(overall.state, state);
    } finally {
      await database.close();
    }
  });
}
