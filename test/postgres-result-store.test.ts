/**
 * The result store (server/checks/result-store.ts) on PostgreSQL: the cases SQLite runs, each on a
 * fresh database of one server, and two stores on two pools of one database writing at once.
 */
import { after, before, describe } from 'node:test';
import type { Db } from '../server/db/open.ts';
import { openPostgres } from '../server/db/postgres.ts';
import { tempDir } from './support/harness.ts';
import { startPostgres, type TestPostgres, withoutPostgres } from './support/postgres.ts';
import { resultStoreCases } from './support/result-store-cases.ts';

describe('the result store on PostgreSQL', { skip: withoutPostgres }, () => {
  let server: TestPostgres;
  before(async () => {
    server = await startPostgres();
  });
  after(() => server?.stop());

  resultStoreCases(
    async () => {
      const dir = await tempDir();
      const url = await server.createDatabase();
      const pools: Db[] = [];
      const open = async () => {
        const db = await openPostgres(url, dir.path);
        pools.push(db);
        return db;
      };
      return {
        db: await open(),
        openAnother: open,
        async close() {
          await Promise.all(pools.map((db) => db.destroy()));
          await dir.remove();
        },
      };
    },
    { twoProcesses: true },
  );
});
