import type SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { isPostgres } from './engine.ts';
import { withSqlite } from './open.ts';
import type { Database } from './schema.ts';

/**
 * A table whose writes a stamp counts: every row change, or only those the conditions pick (SQL
 * on `new` and `old`), for a read that depends on a few columns of a busy table.
 */
export type WatchedTable = keyof Database | { table: keyof Database; insert: string; update: string; delete: string };

const WRITTEN_FUNCTION = 'statusdesk_written';

/**
 * A number per watched table (by its name and conditions, so an equal description made anew is
 * the same table), the same on every connection: it names the table's triggers and counter.
 */
const numbers = new Map<string, number>();

/** Per connection: the writes counted per watched table, and the statement that reads its data_version. */
interface Connection {
  writes: number[];
  dataVersion: SQLite.Statement<[], number>;
}
const connections = new WeakMap<SQLite.Database, Connection>();

function connectionOf(sqlite: SQLite.Database): Connection {
  let connection = connections.get(sqlite);
  if (!connection) {
    const state: Connection = { writes: [], dataVersion: sqlite.prepare<[], number>('pragma data_version').pluck() };
    sqlite.function(WRITTEN_FUNCTION, (n) => {
      state.writes[n as number] = (state.writes[n as number] ?? 0) + 1;
      return null;
    });
    connections.set(sqlite, (connection = state));
  }
  return connection;
}

/**
 * Counts this connection's writes to the table, once per connection: temporary triggers (this
 * connection's alone, no migration) call back on every insert, update and delete the conditions
 * pick, those of cascades and of rolled-back transactions included.
 */
function watch(sqlite: SQLite.Database, connection: Connection, watched: WatchedTable): number {
  const described = typeof watched === 'string' ? watched : JSON.stringify(watched);
  let n = numbers.get(described);
  if (n === undefined) numbers.set(described, (n = numbers.size));
  if (connection.writes[n] === undefined) {
    const table = typeof watched === 'string' ? watched : watched.table;
    for (const event of ['insert', 'update', 'delete'] as const) {
      const when = typeof watched === 'string' ? '' : ` when ${watched[event]}`;
      sqlite.exec(
        `create temp trigger if not exists ${WRITTEN_FUNCTION}_${n}_${event} after ${event} on main.${table}${when} begin select ${WRITTEN_FUNCTION}(${n}); end`,
      );
    }
    connection.writes[n] = 0;
  }
  return n;
}

/**
 * A stamp of these tables that changes whenever any of their rows may have changed: a read of them
 * made after a stamp was taken answers for as long as the stamp stays the same. This connection's
 * writes are counted (see watch; counts only grow, so their sum changes when any does); a commit
 * of any other connection, in this process or another (the CLI on the data folder), changes
 * SQLite's data_version.
 */
export function tablesStamp(db: Kysely<Database>, tables: readonly WatchedTable[]): Promise<string> {
  return withSqlite(db, (sqlite) => {
    const connection = connectionOf(sqlite);
    let writes = 0;
    for (const table of tables) writes += connection.writes[watch(sqlite, connection, table)]!;
    return `${connection.dataVersion.get()}:${writes}`;
  });
}

/**
 * Answers kept by key at a stamp of the tables they are read from: `read` runs only when no answer
 * of the current stamp is kept for the key. An answer read after its stamp was taken is at least
 * as new as the stamp, so none is served stale; any write to the tables starts the answers over.
 * The key must name everything else the answer depends on, and the caller's access is checked
 * before; answers are shared by every caller, so they must not be changed. On PostgreSQL nothing
 * is kept and every call reads: this process cannot see the commits of the others sharing it.
 */
export function keptByTables<T>(db: Kysely<Database>, tables: readonly WatchedTable[], limit: number): (key: string, read: () => Promise<T>) => Promise<T> {
  if (isPostgres(db)) return (_key, read) => read();
  let kept = { stamp: '', byKey: new Map<string, T>() };
  return async (key: string, read: () => Promise<T>): Promise<T> => {
    const stamp = await tablesStamp(db, tables);
    if (kept.stamp !== stamp || kept.byKey.size >= limit) kept = { stamp, byKey: new Map() };
    // The answers of this stamp, even if a newer one replaces them while this one is read.
    const current = kept;
    let answer = current.byKey.get(key);
    if (answer === undefined) {
      answer = await read();
      current.byKey.set(key, answer);
    }
    return answer;
  };
}
