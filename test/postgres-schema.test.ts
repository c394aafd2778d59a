import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { migrations } from '../server/db/migrations/index.ts';
import * as compactLatencies from '../server/db/migrations/0011-compact-latencies.ts';
import { type Db, openDatabase } from '../server/db/open.ts';
import { openPostgres } from '../server/db/postgres.ts';
import { AppError } from '../server/errors.ts';
import { tempDir } from './support/harness.ts';
import { legacyHistograms } from './support/legacy-histograms.ts';
import { startPostgres, type TestPostgres, withoutPostgres } from './support/postgres.ts';

type Columns = Record<string, string[]>;

async function sqliteColumns(db: Db): Promise<Columns> {
  const { rows } = await sql<{ tbl: string; col: string }>`
    select m.name as tbl, p.name as col from sqlite_master m, pragma_table_info(m.name) p
    where m.type = 'table' and m.name not like 'sqlite_%' order by m.name, p.cid`.execute(db);
  return byTable(rows);
}

async function postgresColumns(db: Db): Promise<Columns> {
  const { rows } = await sql<{ tbl: string; col: string }>`
    select table_name as tbl, column_name as col from information_schema.columns
    where table_schema = current_schema() order by table_name, ordinal_position`.execute(db);
  return byTable(rows);
}

function byTable(rows: { tbl: string; col: string }[]): Columns {
  const tables: Columns = {};
  for (const { tbl, col } of rows) (tables[tbl] ??= []).push(col);
  return tables;
}

async function refusal(open: Promise<Db>): Promise<string> {
  const error = await open.then(
    async (db) => {
      await db.destroy();
      return undefined;
    },
    (e: unknown) => e,
  );
  assert.ok(error instanceof AppError && error.code === 'PRECONDITION_FAILED', `expected a refusal, got ${String(error)}`);
  assert.ok(!error.message.includes('\n'), 'the refusal is one line');
  return error.message;
}

/** A workspace with one monitor, written directly: what rows of check results need. */
async function insertMonitor(db: Db): Promise<{ id: number }> {
  const workspace = await db
    .insertInto('workspaces')
    .values({ name: 'W', slug: 'w', plan: 'hobby', created_at: new Date().toISOString() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return db
    .insertInto('monitors')
    .values({
      workspace_id: workspace.id,
      type: 'tcp',
      name: 'm',
      description: '',
      active: 1,
      periodicity: '30s',
      regions: '[]',
      timeout_ms: 1000,
      degraded_ms: null,
      retry: 0,
      open_telemetry: null,
      tags: '[]',
      settings: '{}',
      revision: 1,
      created_at: '',
      updated_at: '',
    } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
}

describe('PostgreSQL schema', { skip: withoutPostgres }, () => {
  let server: TestPostgres;
  let dataDir: Awaited<ReturnType<typeof tempDir>>;
  const open = (url: string) => openPostgres(url, dataDir.path);
  before(async () => {
    dataDir = await tempDir();
    server = await startPostgres();
  });
  after(async () => {
    await server?.stop();
    await dataDir?.remove();
  });

  test('the harness starts a server of its own on loopback, and stopping it ends it and removes its folder', async () => {
    const own = await startPostgres();
    const url = await own.createDatabase();
    assert.match(url, /^postgres:\/\/statusdesk@127\.0\.0\.1:\d+\/test_1$/);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ n: number }>('select 1 as n');
    assert.deepEqual(rows, [{ n: 1 }]);
    await client.end();
    assert.ok(existsSync(own.folder));
    await own.stop();
    assert.ok(!existsSync(own.folder), 'the folder is removed');
    const late = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    await assert.rejects(late.connect(), /ECONNREFUSED/, 'the server is gone');
  });

  test('every migration runs, and each table has the columns and indexes SQLite gives it', async () => {
    const pgDb = await open(await server.createDatabase());
    const dir = await tempDir();
    const sqliteDb = await openDatabase(dir.path);
    try {
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(pgDb);
      assert.deepEqual(
        applied.rows.map((r) => r.name),
        Object.keys(migrations),
      );
      assert.deepEqual(await postgresColumns(pgDb), await sqliteColumns(sqliteDb));
      // The indexes migrations name (those of keys and unique constraints are each engine's own).
      const sqliteIndexes = await sql<{ name: string }>`
        select name from sqlite_master where type = 'index' and name not like 'sqlite_%' order by name`.execute(sqliteDb);
      const postgresIndexes = await sql<{ name: string }>`
        select i.relname as name from pg_index x join pg_class i on i.oid = x.indexrelid join pg_namespace n on n.oid = i.relnamespace
        where n.nspname = current_schema() and not exists (select 1 from pg_constraint c where c.conindid = x.indexrelid) order by name`.execute(pgDb);
      assert.deepEqual(postgresIndexes.rows, sqliteIndexes.rows);
      const local = await pgDb.selectFrom('private_locations').select(['id', 'name']).execute();
      assert.deepEqual(local, [{ id: 1, name: 'local' }], 'the embedded runner is the first location');
    } finally {
      await pgDb.destroy();
      await sqliteDb.destroy();
      await dir.remove();
    }
  });

  test('epoch milliseconds, ids and counts come back as numbers, and floats keep 8 bytes', async () => {
    const db = await open(await server.createDatabase());
    try {
      const types = await sql<{ column_name: string; data_type: string }>`
        select column_name, data_type from information_schema.columns
        where table_name = 'check_results' and column_name in ('id', 'started_at', 'latency_ms') order by column_name`.execute(db);
      assert.deepEqual(types.rows, [
        { column_name: 'id', data_type: 'bigint' },
        { column_name: 'latency_ms', data_type: 'double precision' },
        { column_name: 'started_at', data_type: 'bigint' },
      ]);
      const monitor = await insertMonitor(db);
      const startedAt = Date.UTC(2026, 0, 1) + 0.5 * 2 ** 40; // far past 2^31
      const latency = 123.456789012345;
      await db
        .insertInto('check_results')
        .values({
          monitor_id: monitor.id,
          runner: 'local',
          regions: '[]',
          started_at: startedAt,
          result: 'up',
          latency_ms: latency,
          attempts: 1,
          message: '',
        } as never)
        .execute();
      const row = await db.selectFrom('check_results').select(['id', 'started_at', 'latency_ms']).executeTakeFirstOrThrow();
      assert.deepEqual(row, { id: 1, started_at: startedAt, latency_ms: latency });
      const counted = await db
        .selectFrom('check_results')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('started_at').as('total')])
        .executeTakeFirstOrThrow();
      assert.deepEqual(counted, { n: 1, total: startedAt });
    } finally {
      await db.destroy();
    }
  });

  test("0011 re-encodes stored rollups' latency histograms: the same buckets and counts", async () => {
    const db = await open(await server.createDatabase());
    try {
      const monitor = await insertMonitor(db);
      // Hours past 2^31, in more rows than the migration takes a batch.
      const rows = legacyHistograms(2_345).map((histogram, i) => ({ ...histogram, hour: Date.UTC(2026, 0, 1) + i * 3_600_000 }));
      await db
        .insertInto('check_rollups')
        .values(
          rows.map((row) => ({
            monitor_id: monitor.id,
            hour: row.hour,
            success_count: 1,
            degraded_count: 0,
            error_count: 0,
            latency: row.pairs,
            last_ping_at: 0,
          })),
        )
        .execute();

      await compactLatencies.up(db as Kysely<any>);

      const stored = await db.selectFrom('check_rollups').select(['hour', 'latency']).orderBy('hour').execute();
      assert.equal(stored.length, rows.length);
      rows.forEach((row, i) => assert.deepEqual(stored[i]!.latency, row.expected, `the row of hour ${row.hour}`));
    } finally {
      await db.destroy();
    }
  });

  test('an empty list matches nothing with in and everything with not in, as on SQLite', async () => {
    const db = await open(await server.createDatabase());
    try {
      const none: number[] = [];
      assert.deepEqual(await db.selectFrom('private_locations').select('name').where('id', 'in', none).execute(), []);
      assert.deepEqual(await db.selectFrom('private_locations').select('name').where('id', 'not in', none).execute(), [{ name: 'local' }]);
      const updated = await db
        .updateTable('private_locations')
        .set({ status: 'error' })
        .where((eb) => eb.or([eb('id', 'in', none), eb('name', '=', 'local')]))
        .executeTakeFirst();
      assert.equal(Number(updated.numUpdatedRows), 1);
    } finally {
      await db.destroy();
    }
  });

  test('opening again migrates nothing, and two processes opening a new database together take turns', async () => {
    const url = await server.createDatabase();
    const [a, b] = await Promise.all([open(url), open(url)]);
    await Promise.all([a.destroy(), b.destroy()]);
    const again = await open(url);
    try {
      const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(again);
      assert.equal(applied.rows.length, Object.keys(migrations).length);
    } finally {
      await again.destroy();
    }
  });

  test('a database of something else, or one a newer version migrated, is refused and left as it was', async () => {
    const foreign = await server.createDatabase();
    const client = new pg.Client({ connectionString: foreign });
    await client.connect();
    try {
      await client.query('create table inventory (sku text primary key)');
      assert.match(await refusal(open(foreign)), /holds tables that are not Statusdesk's; refusing to touch it/);
      const tables = await client.query<{ name: string }>(`select table_name as name from information_schema.tables where table_schema = 'public'`);
      assert.deepEqual(tables.rows, [{ name: 'inventory' }]);
    } finally {
      await client.end();
    }

    const newer = await server.createDatabase();
    await (await open(newer)).destroy();
    const writer = new pg.Client({ connectionString: newer });
    await writer.connect();
    try {
      await writer.query(`insert into kysely_migration (name, timestamp) values ('9999-from-the-future', now()::text)`);
      assert.match(await refusal(open(newer)), /migrated by a newer Statusdesk \(9999-from-the-future\); refusing to write to it: upgrade Statusdesk/);
    } finally {
      await writer.end();
    }
  });

  test('an unreachable server is refused with one line naming the database but not the password', async () => {
    const message = await refusal(open('postgres://someone:hunter2@127.0.0.1:1/statusdesk'));
    assert.match(message, /^cannot open PostgreSQL database statusdesk at 127\.0\.0\.1:1: /);
    assert.doesNotMatch(message, /hunter2/);
  });
});
