import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../server/db/open.ts';
import { openPostgres } from '../server/db/postgres.ts';
import { writeTransaction } from '../server/db/transaction.ts';
import type { Actor } from '../server/domain/actor.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { AppError } from '../server/errors.ts';
import { createServices, type Services } from '../server/services.ts';
import { tempDir } from './support/harness.ts';
import { startPostgres, type TestPostgres, withoutPostgres } from './support/postgres.ts';

describe('domain services on PostgreSQL', { skip: withoutPostgres }, () => {
  let server: TestPostgres;
  let dataDir: Awaited<ReturnType<typeof tempDir>>;
  let dbUrl: string;
  let db: Db;
  let services: Services;
  let owner: Actor;
  before(async () => {
    dataDir = await tempDir();
    server = await startPostgres();
    dbUrl = await server.createDatabase();
    db = await openPostgres(dbUrl, dataDir.path);
    services = createServices(db);
    owner = { type: 'user', userId: await ensureOwner(db), surface: 'cli' };
  });
  after(async () => {
    services?.close();
    await db?.destroy();
    await server?.stop();
    await dataDir?.remove();
  });

  let slugs = 0;
  const newWorkspace = () => services.workspaces.create(owner, { name: 'Wombat Works', slug: `wombat-${++slugs}` });

  test('the owner and their personal workspace are made once', async () => {
    const again = await ensureOwner(db);
    assert.equal(again, (owner as { userId: number }).userId);
    const workspaces = await services.workspaces.list(owner);
    assert.deepEqual(workspaces.map((w) => w.slug), ['personal']);
  });

  test('a workspace is created with its owner, and a repeated slug is a conflict naming the field', async () => {
    const workspace = await newWorkspace();
    assert.equal(workspace.name, 'Wombat Works');
    assert.ok((await services.workspaces.list(owner)).some((w) => w.id === workspace.id));
    await assert.rejects(
      services.workspaces.create(owner, { name: 'Again', slug: workspace.slug }),
      (error: unknown) => error instanceof AppError && error.code === 'CONFLICT' && error.violations[0]?.field === 'slug',
    );
  });

  test('a member is added as a new user', async () => {
    const workspace = await newWorkspace();
    const member = await services.workspaces.addMember(owner, Number(workspace.id), { name: 'Numbat', role: 'admin' });
    assert.equal((await services.users.get(Number(member.userId)))?.name, 'Numbat');
  });

  test(
    'an API key is created, authenticates by its secret, and a wrong secret does not',
    { todo: 'keys are looked up through withSqlite (liveKeyLookup in server/domain/keys/key-repository.ts)' },
    async () => {
      const workspace = await newWorkspace();
      const { key, secret } = await services.keys.create(owner, { workspaceId: Number(workspace.id), name: 'deploys', scope: 'write' });
      const actor = await services.keys.authenticate(secret, 'rpc');
      assert.equal(actor?.keyId, key.id);
      assert.equal(actor?.workspaceId, Number(workspace.id));
      assert.equal(await services.keys.authenticate(`${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`, 'rpc'), undefined);
    },
  );

  test('changes are audited and the audit log reads them back', async () => {
    const workspace = await newWorkspace();
    const { auditLogs } = await services.auditLog.list(owner, Number(workspace.id));
    assert.deepEqual(auditLogs.map((e) => e.action), ['workspace.create']);
  });

  test('a status page is created and read back by its slug', async () => {
    const workspace = await newWorkspace();
    const page = await services.pages.create(owner, Number(workspace.id), { slug: `bilby-${slugs}`, title: 'Bilby Status' });
    assert.equal((await services.pages.get(owner, Number(workspace.id), page.slug)).title, 'Bilby Status');
  });

  test('ids up to 15 digits, as the domain takes them, name no record rather than fail', async () => {
    const workspace = Number((await newWorkspace()).id);
    for (const lookup of [() => services.pages.get(owner, workspace, '999999999999999'), () => services.monitors.update(owner, workspace, 'tcp', '999999999999999', { name: 'x' })]) {
      await assert.rejects(lookup(), (error: unknown) => error instanceof AppError && error.code === 'NOT_FOUND');
    }
  });

  test('write transactions take turns, on one pool or two, so what one reads holds until it commits', async () => {
    const other = await openPostgres(dbUrl, dataDir.path);
    try {
      // Each reads how many users there are, waits, and adds one named by that count: taking
      // turns, no two names are the same.
      const addCounted = (on: Db) =>
        writeTransaction(on, async (trx) => {
          const { n } = await trx.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
          await sleep(30);
          await trx.insertInto('users').values({ name: `counted-${n}`, email: null, created_at: new Date().toISOString() }).execute();
        });
      await Promise.all([addCounted(db), addCounted(db), addCounted(other), addCounted(other)]);
      const names = (await db.selectFrom('users').select('name').where('name', 'like', 'counted-%').execute()).map((r) => r.name);
      assert.equal(new Set(names).size, 4, `names: ${names.join(', ')}`);
    } finally {
      await other.destroy();
    }
  });
});
