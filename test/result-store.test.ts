/**
 * The result store (server/checks/result-store.ts) on a real SQLite file: the cap on raw results,
 * and rollups added to inside SQLite, checked against what they must equal.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createResultStore, HOUR_MS, hourOf } from '../server/checks/result-store.ts';
import { openDatabase, withSqlite } from '../server/db/open.ts';
import type { Actor } from '../server/domain/actor.ts';
import type { CheckOutcome } from '../server/domain/monitors/check-results.ts';
import { LatencyHistogram } from '../server/domain/monitors/latency-histogram.ts';
import { createServices } from '../server/services.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { storedCheck } from './support/checks.ts';
import { tempDir } from './support/harness.ts';

const NOW = Date.UTC(2026, 0, 15, 12, 30);

/** Runs `work` on a data folder with an owner and two paused TCP monitors, removed after. */
async function withMonitors(work: (f: Awaited<ReturnType<typeof setup>>) => Promise<void>): Promise<void> {
  const f = await setup();
  try {
    await work(f);
  } finally {
    await f.close();
  }
}

async function setup() {
  const dir = await tempDir();
  const db = await openDatabase(dir.path);
  const userId = await ensureOwner(db);
  const actor: Actor = { type: 'user', userId, surface: 'cli' };
  const services = createServices(db);
  const workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
  const input = { periodicity: '30s', uri: '127.0.0.1:9', timeout: 1_000, active: false } as const;
  const a = Number((await services.monitors.create(actor, workspaceId, 'tcp', { ...input, name: 'a' })).id);
  const b = Number((await services.monitors.create(actor, workspaceId, 'tcp', { ...input, name: 'b' })).id);
  return {
    db,
    workspaceId,
    a,
    b,
    async close() {
      await db.destroy();
      await dir.remove();
    },
  };
}

test('beyond maxRawResults the oldest raw results are pruned, in chunks; rollups keep every check', () =>
  withMonitors(async (f) => {
    const store = createResultStore(f.db, { maxRawResults: 7_000 });
    // 12,000 recent checks of two monitors, written oldest first: more than a prune chunk (5,000) over the cap.
    const checks = Array.from({ length: 12_000 }, (_, i) => storedCheck(i % 2 === 0 ? f.a : f.b, f.workspaceId, NOW - 12_000 + i, 'up', 5));
    for (let i = 0; i < checks.length; i += 1_000) await store.write(checks.slice(i, i + 1_000));

    assert.equal(await store.prune(NOW), 5_000);
    const left = await withSqlite(f.db, (sqlite) => sqlite.prepare('select count(*) as n, min(started_at) as oldest from check_results').get() as { n: number; oldest: number });
    assert.deepEqual(left, { n: 7_000, oldest: NOW - 7_000 }, 'the newest 7,000 are kept');
    assert.equal(await store.prune(NOW), 0, 'a second prune finds nothing');

    const window = await store.window(f.a, hourOf(NOW) - HOUR_MS);
    assert.equal(window.successCount, 6_000, 'the rollups still count every check of the monitor');
  }),
);

test('a rollup written over several batches equals one made of all its checks at once', () =>
  withMonitors(async (f) => {
    const store = createResultStore(f.db);
    const hour = hourOf(NOW);
    const outcomes: [CheckOutcome, number][] = [['up', 1.5], ['up', 2], ['degraded', 300], ['down', 1_000], ['up', 1.5], ['up', 40]];
    const checks = outcomes.map(([result, ms], i) => storedCheck(f.a, f.workspaceId, hour + i * 30_000, result, ms));
    // One per batch, then a batch holding two checks of the same monitor.
    for (const check of checks.slice(0, 4)) await store.write([check]);
    await store.write(checks.slice(4));

    const expected = new LatencyHistogram();
    for (const [result, ms] of outcomes) if (result !== 'down') expected.add(ms);
    const row = await withSqlite(f.db, (sqlite) =>
      sqlite.prepare('select success_count, degraded_count, error_count, latency, last_ping_at from check_rollups where monitor_id = ? and hour = ?').get(f.a, hour),
    ) as { success_count: number; degraded_count: number; error_count: number; latency: Buffer; last_ping_at: number };
    assert.deepEqual([row.success_count, row.degraded_count, row.error_count, row.last_ping_at], [4, 1, 1, hour + 5 * 30_000]);
    const stored = LatencyHistogram.decode(row.latency);
    for (const q of [0.2, 0.5, 0.8, 1]) assert.equal(stored.quantile(q), expected.quantile(q), `quantile ${q}`);
    assert.equal(stored.count, expected.count);
  }),
);

test('checks of a deleted monitor are dropped, the rest of the batch is stored', () =>
  withMonitors(async (f) => {
    const store = createResultStore(f.db);
    await f.db.deleteFrom('monitors').where('id', '=', f.b).execute();
    const stored = await store.write([storedCheck(f.a, f.workspaceId, NOW, 'up', 3), storedCheck(f.b, f.workspaceId, NOW, 'down', 1_000)]);
    assert.deepEqual(
      stored.map((t) => [t.check.monitorId, t.from, t.to]),
      [[f.a, null, 'up']],
    );
  }),
);
