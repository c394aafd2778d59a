import { join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { withLocalOwner as localOwnerTools } from '../../server/cli/local.ts';
import { isPostgres } from '../../server/db/engine.ts';
import { DATABASE_FILE, type Db, openDatabase } from '../../server/db/open.ts';
import { openPostgres } from '../../server/db/postgres.ts';
import { sharedPostgres, withoutPostgres } from './postgres.ts';

/**
 * STATUSDESK_TEST_DATABASE=postgres runs every service the tests start, and every database they
 * open through this file, on a fresh PostgreSQL database of one server per test process
 * (`npm run test:postgres`). Without PostgreSQL's binaries it says so and the tests run on SQLite.
 */
const asked = process.env.STATUSDESK_TEST_DATABASE === 'postgres';
export const onPostgres = asked && !withoutPostgres;
if (asked && withoutPostgres) process.stderr.write(`STATUSDESK_TEST_DATABASE=postgres: ${withoutPostgres}; running on SQLite\n`);

/** For node:test's `skip`: tests about SQLite itself (its file, migrations, durability) run on SQLite only. */
export const sqliteOnly: string | false = onPostgres && 'about the SQLite file itself: runs on SQLite only, not under STATUSDESK_TEST_DATABASE=postgres';

/** The PostgreSQL database of each data folder the tests used, so a service restarted on a folder finds its data. */
const databases = new Map<string, Promise<string>>();

/** The PostgreSQL database of the data folder `dataDir` (made with its first use), or undefined on SQLite. */
export function databaseOf(dataDir: string): Promise<string> | undefined {
  if (!onPostgres) return undefined;
  const folder = resolve(dataDir);
  let url = databases.get(folder);
  if (!url) {
    url = sharedPostgres().then((server) => server.createDatabase());
    databases.set(folder, url);
  }
  return url;
}

/** The environment naming the data folder's database for `serve` and the owner's local tools: empty on SQLite. */
export async function databaseEnv(dataDir: string): Promise<NodeJS.ProcessEnv> {
  const url = await databaseOf(dataDir);
  return url ? { STATUSDESK_DATABASE_URL: url } : {};
}

/** The database of a data folder as a service on it opens it (close it with destroy). */
export async function openTestDatabase(dataDir: string): Promise<Db> {
  const url = await databaseOf(dataDir);
  return url ? openPostgres(url, dataDir) : openDatabase(dataDir);
}

/**
 * The owner's local tools on a data folder (server/cli/local.ts), on the folder's database: they
 * read STATUSDESK_DATABASE_URL as they start, before their first await, so it is set only then.
 */
export async function withLocalOwner<T>(dataDir: string, ...rest: Tail<Parameters<typeof localOwnerTools<T>>>): Promise<T> {
  const url = await databaseOf(dataDir);
  if (!url) return localOwnerTools(dataDir, ...rest);
  const before = process.env.STATUSDESK_DATABASE_URL;
  process.env.STATUSDESK_DATABASE_URL = url;
  try {
    return localOwnerTools(dataDir, ...rest);
  } finally {
    if (before === undefined) delete process.env.STATUSDESK_DATABASE_URL;
    else process.env.STATUSDESK_DATABASE_URL = before;
  }
}

type Tail<T extends unknown[]> = T extends [unknown, ...infer Rest] ? Rest : never;

/** int8 (ids, epoch milliseconds, counts) as numbers, as SQLite gives them and the service reads them. */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC
      ? Number
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * The rows of `sql` (a read, or a write giving none) on the data folder's database, with `?`
 * placeholders on both engines: SQLite's file or the folder's PostgreSQL database, beside the
 * service, also after it stopped.
 */
export async function queryRows<T = Record<string, unknown>>(dataDir: string, sql: string, ...params: unknown[]): Promise<T[]> {
  const url = await databaseOf(dataDir);
  if (!url) {
    const sqlite = new SQLite(join(dataDir, DATABASE_FILE), { fileMustExist: true, timeout: 5_000 });
    try {
      const statement = sqlite.prepare(sql);
      if (statement.reader) return statement.all(...params) as T[];
      statement.run(...params);
      return [];
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client({ connectionString: url, types });
  await client.connect();
  try {
    let n = 0;
    return (
      await client.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      )
    ).rows as T[];
  } finally {
    await client.end();
  }
}

/** A trigger that makes every insert into `table` fail with `message`, on either engine, until removed. */
export async function failingInserts(db: Db, table: string, message: string): Promise<{ remove(): Promise<void> }> {
  const name = sql.id(`${table}_fails`);
  if (!isPostgres(db)) {
    await sql`create trigger ${name} before insert on ${sql.table(table)} begin select raise(abort, ${sql.lit(message)}); end`.execute(db);
    return { remove: async () => void (await sql`drop trigger ${name}`.execute(db)) };
  }
  await sql`create function ${name}() returns trigger language plpgsql as $$ begin raise exception ${sql.lit(message)}; end $$`.execute(db);
  await sql`create trigger ${name} before insert on ${sql.table(table)} for each row execute function ${name}()`.execute(db);
  return {
    async remove() {
      await sql`drop trigger ${name} on ${sql.table(table)}`.execute(db);
      await sql`drop function ${name}()`.execute(db);
    },
  };
}
