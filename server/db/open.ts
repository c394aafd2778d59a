import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import envPaths from 'env-paths';
import { AppError } from '../errors.ts';
import { isPostgres } from './engine.ts';
import { migrations } from './migrations/index.ts';
import { BUSY_TIMEOUT_MS, openSqlite, tuneConnection } from './sqlite-connection.ts';
import { SQLITE_LATEST } from './migrations/sqlite-latest.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

/** Marks the file as ours ("SDSK"), so a stray SQLite file is never migrated by mistake. */
const APPLICATION_ID = 0x5344534b;
const SCHEMA_VERSION = Object.keys(migrations).length;
export const DATABASE_FILE = 'statusdesk.db';

/** The data folder: an explicit flag, then STATUSDESK_DATA_DIR, then the platform's app-data folder. */
export function resolveDataDir(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  return flag || env.STATUSDESK_DATA_DIR || envPaths('statusdesk', { suffix: '' }).data;
}

/**
 * Opens (creating if needed) the database in `dataDir` and brings its schema up to date.
 * A file written by a newer Statusdesk, or by something else, is refused before anything is
 * written to it.
 */
export async function openDatabase(dataDir: string): Promise<Db> {
  privateFolder(dataDir);
  const file = join(dataDir, DATABASE_FILE);
  if (existsSync(file)) {
    // Read-only first: even closing a read-write connection may write (it checkpoints the WAL).
    const probe = openSqlite(file, { readonly: true });
    try {
      checkFile(probe, file, { ambiguousIsForeign: false });
    } finally {
      probe.close();
    }
  }
  privateFiles(dataDir, file);
  const sqlite = openSqlite(file, { timeout: BUSY_TIMEOUT_MS });
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  handles.set(db, sqlite);
  dataDirs.set(db, dirname(file));
  try {
    // As tuneConnection sets it, and before the migration: its commits sync less.
    sqlite.pragma('synchronous = NORMAL');
    // A new file is in WAL mode before its schema is written, which then syncs nothing; a file
    // holding anything only once it is known to be ours (the mode is stored in the file).
    if (isEmpty(sqlite)) await useWal(sqlite);
    if (schemaVersion(sqlite) !== SCHEMA_VERSION || applicationId(sqlite) !== APPLICATION_ID) await migrate(db, sqlite, file);
    // After the migration: the journal mode cannot change inside a transaction.
    await useWal(sqlite);
    // Up to 64 MB of pages for the service's reads of a large file (summaries, response logs,
    // status pages). A small database never fills it; while the result writer commits (every
    // second under checks), this connection drops its pages at each of the writer's commits anyway.
    tuneConnection(sqlite, 64);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

/** Modes mean nothing to Windows, which keeps the folder private by its ACL. */
const HAS_MODES = process.platform !== 'win32';
const FOLDER_MODE = 0o700;
const FILE_MODE = 0o600;

/** Refuses to start, naming the folder, when it cannot be made private. */
function refusePrivate(dataDir: string, what: string, error: unknown): never {
  const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  throw new AppError(
    'PRECONDITION_FAILED',
    `the data folder ${dataDir} cannot be made private to this user (${what}: ${reason}); ` +
      'refusing to start: give the folder and its files to the user running Statusdesk, or choose another folder with --data-dir',
  );
}

/**
 * Creates the data folder, or tightens one that exists, to its owner only (0700): a folder made
 * by hand or by another program may be readable by every user of the machine.
 */
function privateFolder(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: FOLDER_MODE });
  } catch (error) {
    refusePrivate(dataDir, 'creating it', error);
  }
  if (!HAS_MODES) return;
  try {
    if ((statSync(dataDir).mode & 0o777) !== FOLDER_MODE) chmodSync(dataDir, FOLDER_MODE);
  } catch (error) {
    refusePrivate(dataDir, `setting its mode to 0${FOLDER_MODE.toString(8)}`, error);
  }
}

/**
 * Every file in the data folder readable and writable by its owner only (0600), and the database
 * created so: SQLite gives the -wal, -shm and journal files the mode of the database file.
 * Symbolic links are left alone (their targets are not the service's).
 */
function privateFiles(dataDir: string, file: string): void {
  if (!HAS_MODES) return;
  let name = DATABASE_FILE;
  try {
    try {
      closeSync(openSync(file, 'wx', FILE_MODE)); // an empty file is a new database to SQLite
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    for (const entry of readdirSync(dataDir, { withFileTypes: true })) {
      if (!entry.isFile()) continue;
      name = entry.name;
      const path = join(dataDir, entry.name);
      try {
        if ((statSync(path).mode & 0o777) !== FILE_MODE) chmodSync(path, FILE_MODE);
      } catch (error) {
        // Gone since the listing (another process closing its -wal or -shm): nothing to tighten.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  } catch (error) {
    refusePrivate(dataDir, `setting the mode of ${name} to 0${FILE_MODE.toString(8)}`, error);
  }
}

/**
 * Switches the file to WAL once (the mode is stored in the file). The switch needs the file to
 * itself, and SQLite reports a concurrent opener as busy at once instead of waiting, so a process
 * starting alongside others retries for as long as its busy timeout.
 */
async function useWal(sqlite: SQLite.Database): Promise<void> {
  const giveUpAt = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      if (sqlite.pragma('journal_mode', { simple: true }) !== 'wal') sqlite.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > giveUpAt) throw error;
      await sleep(20);
    }
  }
}

const handles = new WeakMap<Db, SQLite.Database>();
const dataDirs = new WeakMap<Db, string>();

/**
 * Runs `work`, which is synchronous, on the raw SQLite handle while holding the connection as a
 * query does, so it never lands inside another caller's transaction, nor between a transaction's
 * taking of the connection and its BEGIN. For the few hot paths (a key, the table stamps, check
 * results) where the cost of building each query would dominate.
 */
export function withSqlite<T>(db: Db, work: (sqlite: SQLite.Database) => T): Promise<T> {
  const sqlite = handles.get(db);
  if (!sqlite) throw new Error('not a database opened by openDatabase');
  return db.getExecutor().provideConnection(async () => work(sqlite));
}

/**
 * A statement of a hot path, chosen once per database: on SQLite, `prepare` readies it once on the
 * raw handle and each call runs it there (building a query would cost more than running it); on
 * PostgreSQL, and in a transaction (which holds the connection), each call runs `query`, the same
 * statement through Kysely.
 */
export function preparedOrQuery<A extends unknown[], T>(
  db: Db,
  prepare: (sqlite: SQLite.Database) => (...args: A) => T,
  query: (...args: A) => Promise<T>,
): (...args: A) => Promise<T> {
  if (isPostgres(db) || !handles.has(db)) return query;
  let prepared: ((...args: A) => T) | undefined;
  return (...args) => withSqlite(db, (sqlite) => (prepared ??= prepare(sqlite))(...args));
}

/**
 * The data folder of a database: the SQLite file's, or the one given with a PostgreSQL database.
 * Other files of the service (the sealing key) live there.
 */
export function dataDirOf(db: Db): string {
  const dataDir = dataDirs.get(db);
  if (!dataDir) throw new Error('not a database opened by openDatabase or openPostgres');
  return dataDir;
}

/** Gives a database opened on a server (PostgreSQL) its data folder, made private to this user. */
export function useDataDir(db: Db, dataDir: string): void {
  privateFolder(dataDir);
  dataDirs.set(db, dataDir);
}

const closing = new WeakMap<SQLite.Database, (() => void)[]>();

/** Runs `close` when `db`, a SQLite database, is destroyed, before its connection closes: for what lives as long as it. */
export function onDestroy(db: Db, close: () => void): void {
  const sqlite = handles.get(db);
  if (!sqlite) throw new Error('not a database opened by openDatabase');
  closing.set(sqlite, [...(closing.get(sqlite) ?? []), close]);
}

const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely prepares every query anew, and preparing costs as much as running a small query. The
 * queries of a service are a small fixed set of SQL texts, so each prepared statement is kept and
 * reused (SQLite re-prepares it by itself after a schema change).
 */
function withStatementCache(sqlite: SQLite.Database) {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close() {
      for (const close of closing.get(sqlite) ?? []) close();
      sqlite.close();
    },
    prepare(sql: string): SQLite.Statement {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
        statement = sqlite.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

const schemaVersion = (sqlite: SQLite.Database) => sqlite.pragma('user_version', { simple: true }) as number;
const applicationId = (sqlite: SQLite.Database) => sqlite.pragma('application_id', { simple: true }) as number;

/**
 * Refuses a file that is not ours or is newer than this version. A file with tables but no
 * application id is foreign, unless `ambiguousIsForeign` is false: a reader outside the write lock
 * leaves that case to the check made under the lock.
 */
function checkFile(sqlite: SQLite.Database, file: string, { ambiguousIsForeign = true } = {}): void {
  const id = applicationId(sqlite);
  const version = schemaVersion(sqlite);
  const tables = sqlite.prepare("select count(*) as n from sqlite_master where type = 'table'").get() as { n: number };
  if (id !== APPLICATION_ID && (id !== 0 || (ambiguousIsForeign && tables.n > 0))) {
    throw new AppError('PRECONDITION_FAILED', `${file} is not a Statusdesk database; refusing to touch it`);
  }
  if (version > SCHEMA_VERSION) {
    throw new AppError(
      'PRECONDITION_FAILED',
      `${file} was written by a newer Statusdesk (schema ${version}, this version knows up to ${SCHEMA_VERSION}); ` +
        'refusing to write to it: upgrade Statusdesk',
    );
  }
}

/**
 * Runs the pending migrations as one write transaction: two processes starting together on a new
 * folder take turns, and a start that fails halfway leaves the file as it was. A new file gets
 * what they make in one script.
 */
async function migrate(db: Db, sqlite: SQLite.Database, file: string): Promise<void> {
  // Foreign keys are off while a migration makes a table again (SQLite cannot change a column's
  // constraints in place): dropping the old table must not delete the rows that refer to it. They
  // are checked before the commit instead. The setting cannot change inside a transaction.
  sqlite.pragma('foreign_keys = OFF');
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    checkFile(sqlite, file); // another process may have migrated while this one waited
    if (isEmpty(sqlite)) sqlite.exec(SQLITE_LATEST);
    else {
      const orphans = () => sqlite.pragma('foreign_key_check') as { table: string; parent: string }[];
      const before = orphans().length;
      await runMigrations(db);
      const after = orphans();
      if (after.length > before) throw new AppError('INTERNAL', `database migration left rows of ${after[0]!.table} without their ${after[0]!.parent}`);
    }
    sqlite.pragma(`application_id = ${APPLICATION_ID}`);
    sqlite.pragma(`user_version = ${SCHEMA_VERSION}`);
    sqlite.exec('COMMIT');
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    throw error;
  } finally {
    sqlite.pragma('foreign_keys = ON');
  }
}

/** Whether the file holds nothing yet: no table, index, view or trigger. */
const isEmpty = (sqlite: SQLite.Database) => sqlite.prepare('select count(*) from sqlite_master').pluck().get() === 0;

/** Runs the pending migrations, naming the one that fails. */
export async function runMigrations(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new AppError('INTERNAL', `database migration ${failed} failed: ${String(error)}`);
  }
}
