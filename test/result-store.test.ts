/**
 * The result store (server/checks/result-store.ts) on a real SQLite file: the cap on raw results,
 * rollups added to inside SQLite, checked against what they must equal, states and their changes,
 * pruning and gaps (the cases of test/support/result-store-cases.ts), and the life of its writer.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { createResultStore } from '../server/checks/result-store.ts';
import { openDatabase, withSqlite } from '../server/db/open.ts';
import { EMBEDDED_RUNNER } from '../server/domain/locations/location-repository.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { createServices } from '../server/services.ts';
import { storedCheck } from './support/checks.ts';
import { tempDir } from './support/harness.ts';
import { resultStoreCases } from './support/result-store-cases.ts';

resultStoreCases(
  async () => {
    const dir = await tempDir();
    const db = await openDatabase(dir.path);
    return {
      db,
      async close() {
        await db.destroy();
        await dir.remove();
      },
    };
  },
  { twoProcesses: false },
);

/** A database in `path` with the owner's workspace and one inactive TCP monitor, and a result store on it. */
async function storeWithMonitor(path: string) {
  const db = await openDatabase(path);
  const userId = await ensureOwner(db);
  const services = createServices(db);
  const actor = { type: 'user', userId, surface: 'cli' } as const;
  const workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
  const monitor = await services.monitors.create(actor, workspaceId, 'tcp', {
    name: 'a',
    periodicity: '30s',
    uri: '127.0.0.1:9',
    timeout: 1_000,
    active: false,
  });
  services.close();
  return { db, workspaceId, monitor, store: createResultStore(db) };
}

test('closing the database waits for the writer to close its connection: the file is whole and the folder free at once', async () => {
  const dir = await tempDir();
  try {
    const { db, workspaceId, monitor, store } = await storeWithMonitor(dir.path);
    await store.write([storedCheck(monitor.id, workspaceId, Date.now(), 'up', 5)]);
    await db.destroy();
    // The service's connection closed last, so it checkpointed the WAL into the file and removed it.
    assert.deepEqual(
      readdirSync(dir.path).filter((name) => name.startsWith('statusdesk.db')),
      ['statusdesk.db'],
    );
    await assert.rejects(store.write([storedCheck(monitor.id, workspaceId, Date.now(), 'up', 5)]), /the database is closed/);
  } finally {
    await dir.remove();
  }
});

test("the engine's own writes run on the writer's connection once it runs, so its page cache is not dropped", async () => {
  const dir = await tempDir();
  try {
    const { db, workspaceId, monitor, store } = await storeWithMonitor(dir.path);
    // SQLite's data_version of a connection moves when another connection commits, not when it does.
    const version = () => withSqlite(db, (sqlite) => sqlite.pragma('data_version', { simple: true }) as number);
    const seen = (at: string) =>
      store.engineWrites.updateTable('private_locations').set({ last_seen_at: at }).where('name', '=', EMBEDDED_RUNNER).returning('name').execute();
    const lastSeen = async () =>
      (await db.selectFrom('private_locations').select('last_seen_at').where('name', '=', EMBEDDED_RUNNER).executeTakeFirstOrThrow()).last_seen_at;

    // No writer yet: the service's connection.
    let before = await version();
    assert.deepEqual(await seen('2026-01-01T00:00:00.000Z'), [{ name: EMBEDDED_RUNNER }]);
    assert.equal(await version(), before);
    assert.equal(await lastSeen(), '2026-01-01T00:00:00.000Z');

    // The writer runs once checks were written: its connection, rows and counts answered as Kysely's.
    await store.write([storedCheck(monitor.id, workspaceId, Date.now(), 'up', 5)]);
    before = await version();
    assert.deepEqual(await seen('2026-01-02T00:00:00.000Z'), [{ name: EMBEDDED_RUNNER }]);
    assert.notEqual(await version(), before);
    assert.equal(await lastSeen(), '2026-01-02T00:00:00.000Z');
    const updated = await store.engineWrites
      .updateTable('private_locations')
      .set({ status: 'active' })
      .where('name', '=', EMBEDDED_RUNNER)
      .executeTakeFirstOrThrow();
    assert.equal(updated.numUpdatedRows, 1n);
    await assert.rejects(
      store.engineWrites.transaction().execute(async () => {}),
      /single statements/,
    );
    await db.destroy();
  } finally {
    await dir.remove();
  }
});
