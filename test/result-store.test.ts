/**
 * The result store (server/checks/result-store.ts) on a real SQLite file: the cap on raw results,
 * rollups added to inside SQLite, checked against what they must equal, states and their changes,
 * pruning and gaps (the cases of test/support/result-store-cases.ts).
 */
import { openDatabase } from '../server/db/open.ts';
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
