/**
 * The result store (server/checks/result-store.ts) on a real SQLite file: the cap on raw results,
 * rollups added to inside SQLite, checked against what they must equal, states and their changes,
 * pruning and gaps (the cases of test/support/result-store-cases.ts), and the life of its writer.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { createResultStore } from '../server/checks/result-store.ts';
import { openDatabase } from '../server/db/open.ts';
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

test('closing the database waits for the writer to close its connection: the file is whole and the folder free at once', async () => {
  const dir = await tempDir();
  try {
    const db = await openDatabase(dir.path);
    const userId = await ensureOwner(db);
    const services = createServices(db);
    const actor = { type: 'user', userId, surface: 'cli' } as const;
    const workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
    const monitor = await services.monitors.create(actor, workspaceId, 'tcp', { name: 'a', periodicity: '30s', uri: '127.0.0.1:9', timeout: 1_000, active: false });
    services.close();
    const store = createResultStore(db);
    await store.write([storedCheck(monitor.id, workspaceId, Date.now(), 'up', 5)]);
    await db.destroy();
    // The service's connection closed last, so it checkpointed the WAL into the file and removed it.
    assert.deepEqual(readdirSync(dir.path).filter((name) => name.startsWith('statusdesk.db')), ['statusdesk.db']);
    await assert.rejects(store.write([storedCheck(monitor.id, workspaceId, Date.now(), 'up', 5)]), /the database is closed/);
  } finally {
    await dir.remove();
  }
});
