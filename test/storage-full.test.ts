/**
 * A database with no room left: every surface answers STORAGE_FULL (REST 507, Connect unavailable,
 * MCP a JSON-RPC error) and the log names SQLite's own cause. The room runs out for real: the
 * service's own SQLite connection is held to the pages its file has (PRAGMA max_page_count), so
 * a write that needs one more page fails with SQLITE_FULL, and SQLite rolls the transaction back
 * itself, exactly as on a full disk.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Writable } from 'node:stream';
import { Code, ConnectError } from '@connectrpc/connect';
import { sql } from 'kysely';
import pino from 'pino';
import { createClient } from '../client/index.ts';
import { serviceConfig } from '../server/config.ts';
import { isStorageFull } from '../server/db/storage-full.ts';
import { writeTransaction } from '../server/db/transaction.ts';
import type { Actor } from '../server/domain/actor.ts';
import { type RunningService, startService } from '../server/main.ts';
import { databaseEnv, sqliteOnly, withLocalOwner } from './support/database.ts';
import { json, sessionTokenOf, tempDir } from './support/harness.ts';
import { assertRpcError, connectMcp, type McpConnection, MODERN_ERA } from './support/mcp-client.ts';

const system: Actor = { type: 'system', surface: 'cli' };
/** SQLite caps max_page_count at no less than the pages the file has: 1 means "no more than now". */
const NO_MORE_PAGES = 1;
const ANY_NUMBER_OF_PAGES = 1_073_741_823;

describe('a full database', { skip: sqliteOnly }, () => {
  let service: RunningService;
  let dir: { path: string; remove(): Promise<void> };
  const logLines: Record<string, unknown>[] = [];
  let session: Record<string, string>;
  let writeKey: string;
  let pageId: string;
  let mcp: McpConnection;

  before(async () => {
    dir = await tempDir();
    const config = serviceConfig({ dataDir: dir.path, port: '0', dashboardPort: '0' }, { STATUSDESK_CHECKS: 'off', ...(await databaseEnv(dir.path)) });
    const log = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
        done();
      },
    });
    service = await startService(config, pino({ level: 'info' }, log));
    const workspaceId = Number((await service.services.workspaces.getBySlug(system, 'personal')).id);
    pageId = (await service.services.pages.create(system, workspaceId, { slug: 'full-disk', title: 'Full disk' })).id;
    writeKey = await withLocalOwner(
      dir.path,
      async (services, owner) => (await services.keys.create(owner, { workspaceId, name: 'full disk', scope: 'write' })).secret,
    );
    const signIn = await fetch(service.signInUrl, { redirect: 'manual' });
    session = {
      cookie: signIn.headers.getSetCookie()[0]!.split(';')[0]!,
      'x-statusdesk-session': sessionTokenOf(await signIn.text()),
      origin: service.dashboardUrl,
    };
    mcp = await connectMcp(service.apiUrl, MODERN_ERA, writeKey);
  });
  after(async () => {
    await mcp?.close();
    await service?.close();
    await dir?.remove();
  });

  /** Runs `work` with the service's connection held to the pages its file has now, then lets it grow again. */
  async function whileFull(work: () => Promise<void>): Promise<void> {
    // No free page inside the file either: a write that needs a page finds none.
    const { rows } = await sql<{ freelist_count: number }>`pragma freelist_count`.execute(service.db);
    assert.equal(rows[0]?.freelist_count, 0);
    await sql.raw(`pragma max_page_count = ${NO_MORE_PAGES}`).execute(service.db);
    try {
      await work();
    } finally {
      await sql.raw(`pragma max_page_count = ${ANY_NUMBER_OF_PAGES}`).execute(service.db);
    }
  }

  /** A status report whose text needs pages of its own (more than one page of 4 KiB). */
  const bigReport = (title: string) => ({ pageId, title, message: 'The disk is full. '.repeat(550), notify: false });

  async function reportCount(): Promise<number> {
    const rows = await service.db
      .selectFrom('status_reports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(rows.n);
  }

  function storageFullLogLines(): Record<string, unknown>[] {
    return logLines.filter((line) => typeof line.msg === 'string' && line.msg.startsWith('the database is full'));
  }

  test('a write that finds no room keeps SQLITE_FULL, not the failed rollback after it', async () => {
    await whileFull(async () => {
      const failed = await writeTransaction(service.db, async (trx) => {
        // An entry whose snapshot needs pages of its own.
        await trx
          .insertInto('audit_log')
          .values({
            workspace_id: 1,
            entity_type: 'test',
            entity_id: '1',
            action: 'test.fill',
            actor_type: 'system',
            actor_id: 'test',
            actor_user_id: null,
            actor_surface: null,
            before: null,
            after: 'x'.repeat(20_000),
            changed_fields: '[]',
            created_at: new Date().toISOString(),
          })
          .execute();
      }).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(failed instanceof Error, 'the write was stored');
      assert.equal((failed as Error & { code?: string }).code, 'SQLITE_FULL', (failed as Error).message);
      assert.ok(isStorageFull(failed));
    });
  });

  test('the dashboard API answers 507 STORAGE_FULL in the error envelope, and the log names SQLITE_FULL', async () => {
    const keysUrl = `${service.dashboardUrl}/api/workspaces/1/keys`;
    const keyCount = async () => (await json(await fetch(keysUrl, { headers: session }))).keys.length as number;
    const before = await keyCount();
    let created = 0;
    await whileFull(async () => {
      // Each key takes a little of the last pages' room; the write that needs a new page is refused.
      let refused: Response | undefined;
      for (let i = 0; i < 500 && !refused; i++) {
        const response = await fetch(keysUrl, {
          method: 'POST',
          headers: { ...session, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `filler ${i} ${'k'.repeat(90)}`, scope: 'read' }),
        });
        if (response.status === 201) created++;
        else refused = response;
      }
      assert.ok(refused, 'the database never filled');
      assert.equal(refused.status, 507, await refused.clone().text());
      const body = await json(refused);
      assert.deepEqual(Object.keys(body).sort(), ['code', 'docs', 'message', 'requestId']);
      assert.equal(body.code, 'STORAGE_FULL');
      assert.match(body.message, /^the database has no room for this change: .* is full; nothing was stored; free some space, then retry$/);
      assert.equal(body.docs, `${service.apiUrl}/docs/reference/errors#storage_full`);
      const line = storageFullLogLines().find((l) => l.requestId === body.requestId);
      assert.ok(line, `no log line for ${body.requestId}`);
      assert.equal(line.level, 50);
      assert.match(String(line.msg), /\(SQLITE_FULL: database or disk is full\)$/);
      assert.ok(!logLines.some((l) => JSON.stringify(l).includes('cannot rollback')), 'the log shows the failed rollback');
    });
    // Every key but the refused one was stored; once there is room, the same request succeeds.
    assert.equal(await keyCount(), before + created);
    const again = await fetch(keysUrl, {
      method: 'POST',
      headers: { ...session, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'after', scope: 'read' }),
    });
    assert.equal(again.status, 201);
  });

  test('ConnectRPC answers unavailable with the same message, and stores nothing', async () => {
    const client = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: writeKey, env: {} });
    const before = await reportCount();
    await whileFull(async () => {
      const error = await client.reports.createStatusReport(bigReport('over RPC')).then(
        () => undefined,
        (thrown: unknown) => ConnectError.from(thrown),
      );
      assert.ok(error, 'the report was stored');
      assert.equal(error.code, Code.Unavailable, error.message);
      assert.match(error.rawMessage, /^the database has no room for this change: /);
      assert.ok(storageFullLogLines().some((l) => String(l.procedure).endsWith('/CreateStatusReport')));
    });
    assert.equal(await reportCount(), before);
    await client.reports.createStatusReport(bigReport('over RPC, with room'));
    assert.equal(await reportCount(), before + 1);
  });

  test('an MCP tool call is the JSON-RPC error -32007 with data.code STORAGE_FULL, and stores nothing', async () => {
    const before = await reportCount();
    await whileFull(async () => {
      await assertRpcError(mcp.call('create_status_report', bigReport('over MCP')), -32007, 'STORAGE_FULL', /the database has no room for this change/);
      assert.ok(storageFullLogLines().some((l) => l.tool === 'create_status_report'));
    });
    assert.equal(await reportCount(), before);
  });
});

describe('what counts as a full database', () => {
  test("SQLite's SQLITE_FULL, PostgreSQL's disk_full (53100) and the system's ENOSPC; nothing else", () => {
    const coded = (code: string, message: string) => Object.assign(new Error(message), { code });
    assert.ok(isStorageFull(coded('SQLITE_FULL', 'database or disk is full')));
    assert.ok(isStorageFull(coded('53100', 'could not extend file "base/16384/16385": No space left on device')));
    assert.ok(isStorageFull(coded('ENOSPC', 'no space left on device, write')));
    assert.ok(!isStorageFull(coded('SQLITE_ERROR', 'cannot rollback - no transaction is active')));
    assert.ok(!isStorageFull(coded('SQLITE_BUSY', 'database is locked')));
    assert.ok(!isStorageFull('SQLITE_FULL'));
  });
});
