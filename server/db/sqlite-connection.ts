import SQLite from 'better-sqlite3';
import { AppError } from '../errors.ts';

/**
 * A connection to the service's SQLite file as every connection of the service has it: the
 * service's own (open.ts) and the result writer's (checks/result-writer-thread.ts). Small on
 * purpose: the writer's thread loads it, and nothing else of the database layer.
 */

export const BUSY_TIMEOUT_MS = 5_000;

export function openSqlite(file: string, options: SQLite.Options): SQLite.Database {
  try {
    const sqlite = new SQLite(file, options);
    sqlite.pragma('schema_version'); // reads the header: a file that is not SQLite fails here
    return sqlite;
  } catch (error) {
    throw new AppError('PRECONDITION_FAILED', `cannot open ${file}: ${(error as Error).message}`);
  }
}

/**
 * The settings of a connection that are not stored in the file; the file is in WAL mode by then.
 * `cacheMb`: the most of the file's pages it keeps in memory (SQLite's default is 2 MB); each
 * connection sizes it for what it reads and writes (see the callers).
 */
export function tuneConnection(sqlite: SQLite.Database, cacheMb: number): void {
  // NORMAL is durable against a crash of the process in WAL mode; only power loss can drop the
  // last commits, and it never corrupts the file.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`cache_size = -${cacheMb * 1024}`);
  // A checkpoint copies the pages written since the last one into the file and syncs it. Every
  // 16,000 pages (64 MB of WAL) rather than SQLite's 1,000: the pages many monitors' checks
  // rewrite in every batch are copied once per checkpoint, not once per batch, and the sync
  // that blocks the writer comes a sixteenth as often. Past a checkpoint the WAL file is cut
  // back to 64 MB.
  sqlite.pragma('wal_autocheckpoint = 16000');
  sqlite.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  // A statement changing many rows keeps a copy of each page it changes until it ends, to undo
  // itself if a constraint fails (the result writer's need none: see INSERT in
  // checks/result-writer.ts); past 64 KB that copy went to a temporary file, two writes a page.
  // In memory, it costs no system call. Large sorts stay in memory too: this service's queries
  // read indexes, and sort pages of rows at most.
  sqlite.pragma('temp_store = MEMORY');
}
