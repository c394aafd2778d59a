import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, sql, SqliteDialect } from 'kysely';
import { DATABASE_FILE, type Db, openDatabase, runMigrations } from '../server/db/open.ts';
import { migrations } from '../server/db/migrations/index.ts';
import { createServices } from '../server/services.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { AppError } from '../server/errors.ts';
import { legacyHistograms } from './support/legacy-histograms.ts';
import { tempDir } from './support/harness.ts';
import { sqliteOnly } from './support/database.ts';

const APPLICATION_ID = 0x5344534b; // "SDSK"
const KNOWN_VERSION = Object.keys(migrations).length;
const SCHEMA_TABLES = [
  'invitations',
  'passkeys',
  'user_identities',
  'channel_deliveries',
  'api_keys',
  'audit_log',
  'dashboard_tokens',
  'memberships',
  'users',
  'workspaces',
  'monitors',
  'private_locations',
  'check_results',
  'check_rollups',
  'check_state',
  'monitor_state',
  'check_gaps',
  'status_pages',
  'page_components',
  'status_reports',
  'status_report_components',
  'status_report_updates',
  'maintenances',
  'maintenance_components',
  'page_subscribers',
  'notification_channels',
  'channel_monitors',
  'alerts',
  'oauth_clients',
  'oauth_grants',
  'oauth_requests',
  'oauth_tokens',
  'pending_sealing',
  'monitor_private_locations',
  'check_leases',
  'check_lease_holders',
  'heartbeats',
  'heartbeat_pings',
  'channel_deliveries',
  'email_settings',
  'monitor_badges',
  'monitor_incidents',
];

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function folder(): Promise<string> {
  const dir = await tempDir();
  cleanups.push(dir.remove);
  return dir.path;
}

async function open(dataDir: string): Promise<Db> {
  const db = await openDatabase(dataDir);
  cleanups.push(() => db.destroy());
  return db;
}

async function pragma(db: Db, name: string): Promise<unknown> {
  const { rows } = await sql<Record<string, unknown>>`${sql.raw(`pragma ${name}`)}`.execute(db);
  return Object.values(rows[0] ?? {})[0];
}

async function tableNames(db: Db): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(db);
  return rows.map((r) => r.name);
}

async function count(db: Db, table: 'users' | 'workspaces' | 'memberships' | 'audit_log' | 'api_keys'): Promise<number> {
  const row = await db.selectFrom(table).select(db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What says whether the database was written: the file's bytes and time, and what its log holds. */
function fingerprint(dataDir: string) {
  const file = join(dataDir, DATABASE_FILE);
  const wal = `${file}-wal`;
  return {
    bytes: readFileSync(file),
    mtimeMs: statSync(file).mtimeMs,
    wal: existsSync(wal) ? readFileSync(wal) : Buffer.alloc(0),
    files: readdirSync(dataDir).filter((f) => !f.endsWith('-shm') && !f.endsWith('-wal')),
  };
}

function assertUntouched(before: ReturnType<typeof fingerprint>, after: ReturnType<typeof fingerprint>): void {
  assert.ok(after.bytes.equals(before.bytes), 'the database file was modified');
  assert.equal(after.mtimeMs, before.mtimeMs, 'the database file was modified');
  assert.ok(after.wal.equals(before.wal), 'something was written to the write-ahead log');
  assert.deepEqual(after.files, before.files);
}

function rawPragma(dataDir: string, name: string): unknown {
  const raw = new SQLite(join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
  try {
    return raw.pragma(name, { simple: true });
  } finally {
    raw.close();
  }
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  let caught: unknown;
  try {
    const db = await promise;
    if (db && typeof db === 'object' && 'destroy' in db) await (db as Db).destroy();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof AppError, `expected a refusal, got ${String(caught)}`);
  assert.equal(caught.code, 'PRECONDITION_FAILED', caught.message);
  assert.ok(!caught.message.includes('\n'), 'the refusal is one line');
  return caught;
}

/** A Statusdesk database as a later version would leave it: our mark, a higher user_version. */
async function newerDatabase(journalMode: 'wal' | 'delete', version = KNOWN_VERSION + 1): Promise<string> {
  const dir = await folder();
  const db = await openDatabase(dir);
  await ensureOwner(db);
  await db.destroy();
  const raw = new SQLite(join(dir, DATABASE_FILE));
  raw.pragma(`journal_mode = ${journalMode}`);
  raw.exec('create table from_the_future (x integer)');
  raw.pragma(`user_version = ${version}`);
  raw.close();
  return dir;
}

describe('openDatabase', { skip: sqliteOnly }, () => {
  test('creates the folder, the file and the whole schema in an empty place', async () => {
    const dataDir = join(await folder(), 'nested', 'data');
    const db = await open(dataDir);
    assert.ok(existsSync(join(dataDir, DATABASE_FILE)));
    assert.equal(statSync(dataDir).mode & 0o777, 0o700, 'the data folder is private to its owner');
    assert.equal(await pragma(db, 'journal_mode'), 'wal');
    assert.equal(await pragma(db, 'foreign_keys'), 1);
    assert.equal(await pragma(db, 'busy_timeout'), 5000);
    assert.equal(await pragma(db, 'user_version'), KNOWN_VERSION);
    assert.equal(await pragma(db, 'application_id'), APPLICATION_ID);
    const tables = await tableNames(db);
    for (const t of SCHEMA_TABLES) assert.ok(tables.includes(t), `missing table ${t}`);
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
    assert.deepEqual(
      applied.rows.map((r) => r.name),
      Object.keys(migrations),
    );
    const subscriberColumns = await sql<{ name: string }>`select name from pragma_table_info('page_subscribers')`.execute(db);
    for (const c of ['last_delivery_at', 'last_delivery_error'])
      assert.ok(
        subscriberColumns.rows.some((r) => r.name === c),
        `missing column page_subscribers.${c}`,
      );
    const locationColumns = await sql<{ name: string }>`select name from pragma_table_info('private_locations')`.execute(db);
    for (const c of ['workspace_id', 'token_prefix', 'runner_version', 'runner_hostname', 'runner_instance', 'last_sequence', 'dropped_results']) {
      assert.ok(
        locationColumns.rows.some((r) => r.name === c),
        `missing column private_locations.${c}`,
      );
    }
    const leases = await sql<{ n: number }>`select count(*) as n from check_leases where holder is null`.execute(db);
    assert.equal(leases.rows[0]!.n, 65, 'every shard of the monitors and the upkeep, free');
    const channelColumns = await sql<{ name: string }>`select name from pragma_table_info('notification_channels')`.execute(db);
    for (const c of ['events', 'failures', 'last_error', 'last_failed_at', 'last_sent_at', 'backoff_until', 'all_monitors', 'default_for_new'])
      assert.ok(
        channelColumns.rows.some((r) => r.name === c),
        `missing column notification_channels.${c}`,
      );
    const pageColumns = await sql<{ name: string }>`select name from pragma_table_info('status_pages')`.execute(db);
    for (const c of ['accent_color', 'website_url', 'logo', 'custom_domain', 'former_slug'])
      assert.ok(
        pageColumns.rows.some((r) => r.name === c),
        `missing column status_pages.${c}`,
      );
    const monitorColumns = await sql<{ name: string }>`select name from pragma_table_info('monitors')`.execute(db);
    assert.ok(
      monitorColumns.rows.some((r) => r.name === 'remind_every_ms'),
      'missing column monitors.remind_every_ms',
    );
    assert.ok(
      monitorColumns.rows.some((r) => r.name === 'group_name'),
      'missing column monitors.group_name',
    );
    const maintenanceColumns = await sql<{ name: string }>`select name from pragma_table_info('maintenances')`.execute(db);
    assert.ok(
      maintenanceColumns.rows.some((r) => r.name === 'repeat_rule'),
      'missing column maintenances.repeat_rule',
    );
    assert.equal(KNOWN_VERSION, 22, 'update this suite when a migration is added');
  });

  test('enforces foreign keys and the plan check', async () => {
    const db = await open(await folder());
    const now = new Date().toISOString();
    await assert.rejects(
      db
        .insertInto('api_keys')
        .values({ workspace_id: 4242, name: 'orphan', prefix: 'svc_orphan00', secret_hash: 'h', scopes: null, created_by_user_id: null, created_at: now })
        .execute(),
      /FOREIGN KEY constraint failed/,
    );
    await assert.rejects(
      db.insertInto('workspaces').values({ name: 'x', slug: 'x-plan', plan: 'enterprise', created_at: now }).execute(),
      /CHECK constraint failed/,
    );
    const ws = await db.insertInto('workspaces').values({ name: 'x', slug: 'x-ok', plan: 'hobby', created_at: now }).returning('id').executeTakeFirstOrThrow();
    await db
      .insertInto('api_keys')
      .values({ workspace_id: ws.id, name: 'k', prefix: 'svc_k0000000', secret_hash: 'h2', scopes: '["read"]', created_by_user_id: null, created_at: now })
      .execute();
    await db.deleteFrom('workspaces').where('id', '=', ws.id).execute();
    assert.equal(await count(db, 'api_keys'), 0, 'keys go with their workspace');
  });

  test('opening again changes nothing and keeps the data', async () => {
    const dataDir = await folder();
    const first = await openDatabase(dataDir);
    const ownerId = await ensureOwner(first);
    const { secret } = await createServices(first).keys.create(
      { type: 'user', userId: ownerId, surface: 'cli' },
      { workspaceId: 1, name: 'kept', scope: 'read' },
    );
    const schema = await sql<{ sql: string | null }>`select sql from sqlite_master order by name`.execute(first);
    await first.destroy();

    for (let i = 0; i < 2; i++) {
      const again = await openDatabase(dataDir);
      try {
        assert.deepEqual((await sql<{ sql: string | null }>`select sql from sqlite_master order by name`.execute(again)).rows, schema.rows);
        const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(again);
        assert.equal(applied.rows.length, KNOWN_VERSION);
        assert.equal(await pragma(again, 'user_version'), KNOWN_VERSION);
        assert.equal(await pragma(again, 'journal_mode'), 'wal');
        assert.equal(await pragma(again, 'foreign_keys'), 1);
        const actor = await createServices(again).keys.authenticate(secret, 'rest');
        assert.deepEqual(actor?.scopes, ['read']);
        assert.equal(await count(again, 'api_keys'), 1);
      } finally {
        await again.destroy();
      }
    }
  });

  test('opening an empty (zero-byte) file treats it as new', async () => {
    const dataDir = await folder();
    writeFileSync(join(dataDir, DATABASE_FILE), '');
    const db = await open(dataDir);
    assert.equal(await pragma(db, 'application_id'), APPLICATION_ID);
  });
});

describe('a database written by a newer Statusdesk', { skip: sqliteOnly }, () => {
  for (const journalMode of ['wal', 'delete'] as const) {
    test(`is refused with PRECONDITION_FAILED and left byte for byte as it was (journal ${journalMode})`, async () => {
      const dataDir = await newerDatabase(journalMode);
      const before = fingerprint(dataDir);
      const error = await refusal(openDatabase(dataDir));
      assert.match(error.message, /written by a newer Statusdesk/);
      assert.ok(error.message.includes(dataDir), 'the message names the folder');
      assert.match(error.message, new RegExp(`schema ${KNOWN_VERSION + 1}\\b`));
      assert.match(error.message, /upgrade/i);
      assertUntouched(before, fingerprint(dataDir));
      assert.equal(rawPragma(dataDir, 'user_version'), KNOWN_VERSION + 1);
      assert.equal(rawPragma(dataDir, 'journal_mode'), journalMode);
    });
  }

  test('is refused at any higher version, every time', async () => {
    const dataDir = await newerDatabase('wal', 1000);
    for (let i = 0; i < 2; i++) {
      assert.match((await refusal(openDatabase(dataDir))).message, /schema 1000\b.*newer|newer.*schema 1000\b/);
    }
    assert.equal(rawPragma(dataDir, 'user_version'), 1000);
  });

  test('is not written even when a newer version left its write-ahead log behind', async () => {
    const source = await newerDatabase('wal');
    const raw = new SQLite(join(source, DATABASE_FILE));
    raw.pragma('wal_autocheckpoint = 0');
    raw.exec('insert into from_the_future values (1)');
    // Copy while the newer version still holds it open: what a crash of that version leaves.
    const dataDir = await folder();
    for (const f of [DATABASE_FILE, `${DATABASE_FILE}-wal`]) copyFileSync(join(source, f), join(dataDir, f));
    raw.close();
    const before = fingerprint(dataDir);
    await refusal(openDatabase(dataDir));
    assertUntouched(before, fingerprint(dataDir));
  });
});

describe('a file that is not a Statusdesk database', { skip: sqliteOnly }, () => {
  test('a SQLite file with its own tables is refused and left untouched', async () => {
    const dataDir = await folder();
    const raw = new SQLite(join(dataDir, DATABASE_FILE));
    raw.exec("create table notes (body text); insert into notes values ('mine')");
    raw.close();
    const before = fingerprint(dataDir);
    const error = await refusal(openDatabase(dataDir));
    assert.match(error.message, /is not a Statusdesk database/);
    assert.ok(error.message.includes(join(dataDir, DATABASE_FILE)), 'the message names the file');
    assertUntouched(before, fingerprint(dataDir));
    const check = new SQLite(join(dataDir, DATABASE_FILE), { readonly: true });
    try {
      const names = (check.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((r) => r.name);
      assert.deepEqual(names, ['notes']);
    } finally {
      check.close();
    }
  });

  test('a SQLite file marked by another application is refused even without tables', async () => {
    const dataDir = await folder();
    const raw = new SQLite(join(dataDir, DATABASE_FILE));
    raw.pragma('application_id = 1234');
    raw.close();
    const before = fingerprint(dataDir);
    assert.match((await refusal(openDatabase(dataDir))).message, /not a Statusdesk database/);
    assertUntouched(before, fingerprint(dataDir));
    assert.equal(rawPragma(dataDir, 'application_id'), 1234);
  });

  test('a file that is not SQLite at all is refused and left untouched', async () => {
    const dataDir = await folder();
    const text = 'these are my notes, not a database\n'.repeat(20);
    writeFileSync(join(dataDir, DATABASE_FILE), text);
    await assert.rejects(openDatabase(dataDir), /not a database/);
    assert.equal(readFileSync(join(dataDir, DATABASE_FILE), 'utf8'), text);
  });
});

describe('migrations', { skip: sqliteOnly }, () => {
  test('a new file gets in one step what every migration makes in turn, and a file of each older version is migrated to the same', async () => {
    const oneStep = await folder();
    await (await openDatabase(oneStep)).destroy();
    const expected = contents(oneStep);
    assert.deepEqual(expected.rows.pending_sealing, [], 'a new file holds nothing stored in the clear, so nothing to seal');
    // Migration 0006 lists every step for the service to seal, as it cannot look at what a file holds.
    const withPendingSealing = {
      ...expected,
      rows: { ...expected.rows, pending_sealing: [{ step: 'audit_log' }, { step: 'monitors' }, { step: 'page_subscribers' }] },
    };
    const made = await stepwise(await folder(), 0);
    assert.deepEqual(contents(made), withPendingSealing, 'the one-step schema (server/db/migrations/sqlite-latest.ts) differs from running every migration');
    for (const [version, name] of Object.keys(migrations).entries()) {
      if (version + 1 === KNOWN_VERSION) break;
      const older = await stepwise(await folder(), version + 1);
      assert.equal(rawPragma(older, 'user_version'), version + 1);
      await (await openDatabase(older)).destroy();
      assert.deepEqual(contents(older), withPendingSealing, `a file at ${name} migrated step by step`);
    }
  });

  test("0011 re-encodes the rollups' latency histograms: the same buckets and counts, in under half the bytes", async () => {
    const dataDir = await stepwise(await folder(), 10);
    const rows = legacyHistograms(2_345).map((histogram, i) => ({ ...histogram, hour: i * 3_600_000 }));
    const raw = new SQLite(join(dataDir, DATABASE_FILE));
    try {
      raw.pragma('foreign_keys = off');
      const insert = raw.prepare(
        'insert into check_rollups (monitor_id, hour, success_count, degraded_count, error_count, latency, last_ping_at) values (1, ?, 1, 0, 0, ?, 0)',
      );
      for (const row of rows) insert.run(row.hour, row.pairs);
    } finally {
      raw.close();
    }

    await (await openDatabase(dataDir)).destroy();

    const check = new SQLite(join(dataDir, DATABASE_FILE), { readonly: true });
    try {
      const stored = check.prepare('select hour, latency from check_rollups order by hour').all() as { hour: number; latency: Buffer }[];
      assert.equal(stored.length, rows.length);
      rows.forEach((row, i) => assert.deepEqual(stored[i]!.latency, row.expected, `the row of hour ${row.hour}`));
      const before = rows.reduce((sum, row) => sum + row.pairs.length, 0);
      const after = stored.reduce((sum, row) => sum + row.latency.length, 0);
      assert.ok(after < before / 2, `${after} bytes after, ${before} before`);
    } finally {
      check.close();
    }
  });

  test('0012 stops listing monitor types, alert kinds and channel kinds in their columns, and keeps every monitor, result, alert, channel and id counter', async () => {
    const dataDir = await stepwise(await folder(), 11);
    const raw = new SQLite(join(dataDir, DATABASE_FILE));
    const now = new Date().toISOString();
    try {
      raw.exec(`insert into workspaces (name, slug, plan, created_at) values ('w', 'w', 'pro', '${now}')`);
      const monitor = raw.prepare(
        `insert into monitors (workspace_id, type, name, description, active, periodicity, regions, timeout_ms, retry, tags, settings, revision, created_at, updated_at)
         values (1, ?, ?, '', 1, '1m', '["iad"]', 1000, 0, '[]', '{}', 1, '${now}', '${now}')`,
      );
      for (let i = 1; i <= 3; i++) monitor.run('tcp', `m${i}`);
      raw.exec('delete from monitors where id = 3'); // the counter stays at 3: id 3 is never given again
      raw.exec(
        `insert into check_results (monitor_id, runner, regions, started_at, result, latency_ms, attempts, message) values (1, 'local', '["iad"]', 1, 'up', 1, 1, 'ok')`,
      );
      raw.exec(`insert into alerts (monitor_id, kind, message, occurred_at, deliveries) values (2, 'down', 'refused', '${now}', '[]')`);
      raw.exec(
        `insert into notification_channels (workspace_id, name, kind, settings, credentials, created_at, updated_at) values (1, 'hook', 'webhook', '{}', '', '${now}', '${now}')`,
      );
      raw.exec('insert into channel_monitors (channel_id, monitor_id) values (1, 2)');
      assert.throws(() => monitor.run('mcp', 'refused before'), /CHECK constraint failed/);
    } finally {
      raw.close();
    }

    await (await openDatabase(dataDir)).destroy();

    const check = new SQLite(join(dataDir, DATABASE_FILE));
    try {
      assert.deepEqual(check.prepare('select id, name from monitors order by id').all(), [
        { id: 1, name: 'm1' },
        { id: 2, name: 'm2' },
      ]);
      assert.equal(check.prepare('select count(*) from check_results where monitor_id = 1').pluck().get(), 1, 'results kept');
      assert.equal(check.prepare("select count(*) from alerts where kind = 'down'").pluck().get(), 1, 'alerts kept');
      assert.equal(
        check.prepare('select count(*) from channel_monitors where channel_id = 1 and monitor_id = 2').pluck().get(),
        1,
        'channels and their monitors kept',
      );
      check.exec(
        `insert into notification_channels (workspace_id, name, kind, settings, credentials, created_at, updated_at) values (1, 't', 'telegram', '{}', '', '${now}', '${now}')`,
      );
      assert.equal(check.prepare("select seq from sqlite_sequence where name = 'monitors'").pluck().get(), 3);
      check.exec(`insert into monitors (workspace_id, type, name, description, active, periodicity, regions, timeout_ms, retry, tags, settings, revision, created_at, updated_at)
         values (1, 'mcp', 'now allowed', '', 1, '1m', '["iad"]', 1000, 0, '[]', '{}', 1, '${now}', '${now}')`);
      assert.equal(check.prepare("select id from monitors where name = 'now allowed'").pluck().get(), 4, 'a deleted id is not given again');
      assert.deepEqual(check.pragma('foreign_key_check'), []);
      check.exec('delete from monitors where id = 1');
      assert.equal(check.prepare('select count(*) from check_results').pluck().get(), 0, 'the rebuilt table still cascades to its results');
    } finally {
      check.close();
    }
  });

  test('a migration that fails part way leaves none of its tables behind', async () => {
    const dataDir = await folder();
    // A view named like a later table of 0001 makes the migration fail after its first tables.
    const raw = new SQLite(join(dataDir, DATABASE_FILE));
    raw.exec('create view audit_log as select 1 as x');
    raw.close();
    await assert.rejects(openDatabase(dataDir), (error: unknown) => error instanceof AppError && /0001-initial failed/.test(error.message));
    const check = new SQLite(join(dataDir, DATABASE_FILE), { readonly: true });
    try {
      const tables = (check.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((r) => r.name);
      for (const t of ['workspaces', 'users', 'memberships', 'api_keys']) assert.ok(!tables.includes(t), `half-applied: ${t} exists`);
    } finally {
      check.close();
    }
  });

  test('processes starting together on a new folder all succeed and agree on one owner', { timeout: 60_000 }, async () => {
    for (let round = 0; round < 3; round++) {
      const dataDir = await folder();
      const results = await Promise.all(Array.from({ length: 4 }, () => firstStart(dataDir)));
      assert.deepEqual(
        results.map((r) => r.code),
        [0, 0, 0, 0],
        results.map((r) => r.stderr).join(''),
      );
      const db = await open(dataDir);
      assert.equal(await count(db, 'users'), 1);
      assert.equal(await count(db, 'workspaces'), 1);
      assert.deepEqual(new Set(results.map((r) => r.stdout.trim())).size, 1, 'every process found the same owner');
    }
  });
});

/**
 * A data folder whose file the migrations made one by one up to `version` (all of them when 0),
 * as the Statusdesk of that version left it.
 */
async function stepwise(dataDir: string, version: number): Promise<string> {
  const raw = new SQLite(join(dataDir, DATABASE_FILE));
  // As openDatabase migrates: with foreign keys off, so that a table made again keeps what refers to it.
  raw.pragma('foreign_keys = off');
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: raw }) });
  try {
    if (version === 0) {
      await runMigrations(db);
      version = KNOWN_VERSION;
    } else {
      const { error } = await new Migrator({ db, provider: { getMigrations: async () => migrations } }).migrateTo(Object.keys(migrations)[version - 1]!);
      if (error) throw error;
    }
    raw.pragma(`application_id = ${APPLICATION_ID}`);
    raw.pragma(`user_version = ${version}`);
  } finally {
    await db.destroy();
  }
  return dataDir;
}

/** Every schema entry and every row of the folder's file, the times a migration wrote masked. */
function contents(dataDir: string): { schema: unknown[]; rows: Record<string, unknown[]> } {
  const raw = new SQLite(join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
  try {
    const schema = raw.prepare('select type, name, tbl_name, sql from sqlite_master order by type, name').all();
    const rows: Record<string, unknown[]> = {};
    for (const { name } of raw.prepare("select name from sqlite_master where type = 'table' order by name").all() as { name: string }[]) {
      rows[name] = (raw.prepare(`select * from "${name}" order by 1`).all() as Record<string, unknown>[]).map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([column, value]) => [column, typeof value === 'string' && /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(value) ? 'a time' : value]),
        ),
      );
    }
    return { schema, rows };
  } finally {
    raw.close();
  }
}

/** What every first start does (serve and each local command): open the folder, then find or create the owner. */
function firstStart(dataDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `
    const { openDatabase } = await import(${JSON.stringify(new URL('../server/db/open.ts', import.meta.url).href)});
    const { ensureOwner } = await import(${JSON.stringify(new URL('../server/domain/users/users.ts', import.meta.url).href)});
    const db = await openDatabase(process.argv[1]);
    try { process.stdout.write(String(await ensureOwner(db))); } finally { await db.destroy(); }`;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--input-type=module', '--eval', script, dataDir], { timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

describe('ensureOwner', { skip: sqliteOnly }, () => {
  async function snapshot(db: Db) {
    return {
      users: await count(db, 'users'),
      workspaces: await db.selectFrom('workspaces').select(['id', 'slug', 'plan', 'name']).execute(),
      memberships: await db.selectFrom('memberships').select(['workspace_id', 'user_id', 'role']).execute(),
      audit: await db.selectFrom('audit_log').select(['action', 'entity_type', 'entity_id', 'actor_type', 'actor_id', 'actor_user_id']).execute(),
    };
  }

  test('creates one owner with one personal workspace on plan scale, audited as the system', async () => {
    const db = await open(await folder());
    const ownerId = await ensureOwner(db);
    const state = await snapshot(db);
    assert.equal(state.users, 1);
    assert.equal(state.workspaces.length, 1);
    const [ws] = state.workspaces;
    assert.equal(ws?.slug, 'personal');
    assert.equal(ws?.plan, 'scale');
    assert.match(ws?.name ?? '', /'s workspace$/);
    assert.deepEqual(state.memberships, [{ workspace_id: ws?.id, user_id: ownerId, role: 'owner' }]);
    assert.deepEqual(state.audit, [
      { action: 'workspace.create', entity_type: 'workspace', entity_id: String(ws?.id), actor_type: 'system', actor_id: 'system', actor_user_id: null },
    ]);
  });

  test('is idempotent, within one run and across restarts', async () => {
    const dataDir = await folder();
    const first = await openDatabase(dataDir);
    const ownerId = await ensureOwner(first);
    assert.equal(await ensureOwner(first), ownerId);
    const state = await snapshot(first);
    await first.destroy();
    for (let restart = 0; restart < 3; restart++) {
      const db = await openDatabase(dataDir);
      try {
        assert.equal(await ensureOwner(db), ownerId);
        assert.deepEqual(await snapshot(db), state);
      } finally {
        await db.destroy();
      }
    }
  });

  test('keeps the owner when the personal workspace was renamed or more workspaces exist', async () => {
    const db = await open(await folder());
    const ownerId = await ensureOwner(db);
    const owner = { type: 'user', userId: ownerId, surface: 'cli' } as const;
    await createServices(db).workspaces.create(owner, { name: 'Team', slug: 'team', plan: 'pro' });
    await db.updateTable('workspaces').set({ slug: 'renamed' }).where('slug', '=', 'personal').execute();
    assert.equal(await ensureOwner(db), ownerId);
    assert.equal(await count(db, 'users'), 1);
    assert.equal(await count(db, 'workspaces'), 2);
  });
});
