import { type Kysely, sql } from 'kysely';
import { isPostgres } from './engine.ts';
import type { Database } from './schema.ts';

/**
 * A write transaction that takes SQLite's write lock at its start (BEGIN IMMEDIATE). A deferred
 * transaction that reads and then writes can fail with "database is locked" when another process
 * (the CLI beside the running service) writes in between; an immediate one waits its turn instead.
 * PostgreSQL has no such lock: a plain transaction, whose rows lock as they are written.
 */
export async function writeTransaction<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql.raw(isPostgres(db) ? 'begin' : 'begin immediate').execute(conn);
    try {
      const result = await work(conn);
      await sql`commit`.execute(conn);
      return result;
    } catch (error) {
      await sql`rollback`.execute(conn);
      throw error;
    }
  });
}
