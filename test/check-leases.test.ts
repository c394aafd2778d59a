/**
 * The leases on the shards of the monitors (server/checks/leases.ts) on SQLite, where the
 * statements are PostgreSQL's but for its row locks: one process takes every shard and the
 * upkeep; two share the shards half and half; one closing gives its shards to the other.
 * (Two service processes on PostgreSQL: test/postgres-leases.test.ts.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { createLeases, type Leases, SHARDS } from '../server/checks/leases.ts';
import { openDatabase } from '../server/db/open.ts';
import { tempDir } from './support/harness.ts';
import { eventually } from './support/wait.ts';

const LEASE_MS = 300;
const log = pino({ enabled: false });

/** How many of the monitors 0..63 (one per shard) `leases` holds. */
const shardsHeld = (leases: Leases) => Array.from({ length: SHARDS }, (_, id) => leases.holds(id)).filter(Boolean).length;

test('one process holds every shard and the upkeep; a second takes half, and all when the first closes', async () => {
  const dir = await tempDir();
  const db = await openDatabase(dir.path);
  const changes = { a: 0, b: 0 };
  const a = createLeases(db, { log, leaseMs: LEASE_MS, shards: true, onChange: () => changes.a++ });
  const b = createLeases(db, { log, leaseMs: LEASE_MS, shards: true, onChange: () => changes.b++ });
  const serving = createLeases(db, { log, leaseMs: LEASE_MS, shards: false, onChange: () => {} });
  try {
    await a.start();
    assert.equal(shardsHeld(a), SHARDS);
    assert.equal(a.upkeep, true);
    assert.equal(changes.a, 1);

    await serving.start();
    assert.deepEqual([shardsHeld(serving), serving.upkeep], [0, false], 'a process that does not check takes no shard, and the upkeep is held');

    await b.start();
    await eventually(
      () => [shardsHeld(a), shardsHeld(b)],
      (held) => held.join() === '32,32',
      'the two hold half the shards each',
      20 * LEASE_MS,
    );
    assert.equal(b.upkeep, false);
    for (let id = 0; id < SHARDS; id++) assert.notEqual(a.holds(id), b.holds(id), `monitor ${id} is checked by exactly one`);

    await a.close();
    assert.equal(shardsHeld(a), 0, 'closing drops every shard at once');
    await eventually(
      () => [shardsHeld(b), b.upkeep || serving.upkeep],
      (held) => held.join() === '64,true',
      'the one left takes every shard, and the upkeep is taken',
      20 * LEASE_MS,
    );
  } finally {
    await Promise.all([a.close(), b.close(), serving.close()]);
    await db.destroy();
    await dir.remove();
  }
});
