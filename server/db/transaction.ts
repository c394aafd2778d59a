import { type Kysely, sql } from 'kysely';
import { isPostgres } from './engine.ts';
import type { Database } from './schema.ts';

/** The PostgreSQL advisory lock that stands for SQLite's write lock ("SDSK"). */
const WRITE_LOCK = 0x5344534b;

/**
 * A write transaction that takes SQLite's write lock at its start (BEGIN IMMEDIATE). A deferred
 * transaction that reads and then writes can fail with "database is locked" when another process
 * (the CLI beside the running service) writes in between; an immediate one waits its turn instead.
 * On PostgreSQL a transaction-wide advisory lock does the same: write transactions of every process
 * take turns, so what one reads stays true until it commits, as on SQLite.
 */
export async function writeTransaction<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    const postgres = isPostgres(db);
    await sql.raw(postgres ? 'begin' : 'begin immediate').execute(conn);
    try {
      if (postgres) await sql`select pg_advisory_xact_lock(${sql.lit(WRITE_LOCK)})`.execute(conn);
      const result = await work(conn);
      await sql`commit`.execute(conn);
      return result;
    } catch (error) {
      // SQLite ends the transaction itself on some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM):
      // its rollback then fails with "cannot rollback - no transaction is active", which must not
      // stand in for the error that says what happened.
      await sql`rollback`.execute(conn).catch(() => {});
      throw error;
    }
  });
}
