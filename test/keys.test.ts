import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, mock, test } from 'node:test';
import { DATABASE_FILE, type Db } from '../server/db/open.ts';
import { failingInserts, openTestDatabase } from './support/database.ts';
import { writeTransaction } from '../server/db/transaction.ts';
import { markKeyRevoked } from '../server/domain/keys/key-repository.ts';
import { type Actor, requireWriteScope, type Scope, type Surface } from '../server/domain/actor.ts';
import { changedFields, recordAudit } from '../server/domain/audit/audit.ts';
import { planNames, plans, planOf, frequencies, type PlanName } from '../server/domain/plans.ts';
import { defaultTcpRegions, isRegion, regions } from '../server/domain/regions.ts';
import { createServices, type Services } from '../server/services.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { AppError, type ErrorCode } from '../server/errors.ts';
import { tempDir } from './support/harness.ts';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const SECRET_FORMAT = /^svc_[A-Za-z0-9_-]{43,}$/;

interface Store {
  dataDir: string;
  db: Db;
  services: Services;
  ownerId: number;
  owner: Actor;
  /** The id of the default `personal` workspace. */
  personal: number;
  close(): Promise<void>;
}

/** A fresh data folder with the real schema, as the service has it after its first start. */
async function openStore(): Promise<Store> {
  const dir = await tempDir();
  const db = await openTestDatabase(dir.path);
  const services = createServices(db);
  const ownerId = await ensureOwner(db);
  const owner: Actor = { type: 'user', userId: ownerId, surface: 'cli' };
  const personal = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
  return {
    dataDir: dir.path,
    db,
    services,
    ownerId,
    owner,
    personal,
    async close() {
      await db.destroy();
      await dir.remove();
    },
  };
}

/** Asserts an AppError with this code; with `field`, also that the error names that field. */
async function rejectsWith(promise: Promise<unknown>, code: ErrorCode, field?: string): Promise<AppError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof AppError, `expected an AppError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (field !== undefined) {
    assert.ok(
      caught.violations.some((v) => v.field === field),
      `violations ${JSON.stringify(caught.violations)} do not name ${field}`,
    );
    assert.match(caught.message, new RegExp(`(^|; )${field}: `));
  }
  return caught;
}

function throwsWith(fn: () => unknown, code: ErrorCode): void {
  assert.throws(fn, (error: unknown) => error instanceof AppError && error.code === code);
}

async function auditRows(db: Db, entityType: string, entityId: string) {
  return db.selectFrom('audit_log').selectAll().where('entity_type', '=', entityType).where('entity_id', '=', entityId).orderBy('id').execute();
}

describe('API keys', () => {
  let s: Store;
  let other: number;
  before(async () => {
    s = await openStore();
    other = Number((await s.services.workspaces.create(s.owner, { name: 'Other', slug: 'other', plan: 'pro' })).id);
  });
  after(() => s.close());

  async function issue(scope: Scope, workspaceId = s.personal, name = `${scope} key`) {
    return s.services.keys.create(s.owner, { workspaceId, name, scope });
  }

  async function actorOf(secret: string, surface: Surface = 'rest') {
    const actor = await s.services.keys.authenticate(secret, surface);
    assert.ok(actor, 'the key should authenticate');
    return actor;
  }

  /** A key as a version without scopes stored it: scopes NULL, written straight to the table. */
  async function insertLegacyKey(workspaceId = s.personal) {
    const secret = `svc_${randomBytes(32).toString('base64url')}`;
    const row = await s.db
      .insertInto('api_keys')
      .values({
        workspace_id: workspaceId,
        name: 'from before scopes',
        prefix: secret.slice(0, 12),
        secret_hash: sha256(secret),
        scopes: null,
        created_by_user_id: null,
        created_at: '2024-01-01T00:00:00.000Z',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: String(row.id), secret };
  }

  describe('the secret', () => {
    test('is svc_ and at least 43 base64url characters from 32 random bytes, different every time', async () => {
      const secrets = new Set<string>();
      for (let i = 0; i < 20; i++) {
        const { secret } = await issue('read');
        assert.match(secret, SECRET_FORMAT);
        assert.ok(secret.length - 'svc_'.length >= 43);
        assert.ok(Buffer.from(secret.slice(4), 'base64url').length >= 32);
        assert.ok(!secret.startsWith('svc_oat_'));
        secrets.add(secret);
      }
      assert.equal(secrets.size, 20);
    });

    test('never starts with svc_oat_, even when the random part begins with oat_', async () => {
      const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
      const real = crypto.randomBytes;
      const oat = Buffer.from(`oat_${'A'.repeat(39)}`, 'base64url');
      assert.equal(oat.length, 32);
      let calls = 0;
      mock.method(crypto, 'randomBytes', (size: number) => (calls++ === 0 && size === 32 ? oat : real(size)));
      syncBuiltinESMExports();
      try {
        const { secret } = await issue('write');
        assert.ok(calls >= 2, 'a secret that looks like an OAuth token must be drawn again');
        assert.ok(!secret.startsWith('svc_oat_'), secret);
        assert.match(secret, SECRET_FORMAT);
      } finally {
        mock.restoreAll();
        syncBuiltinESMExports();
      }
    });

    test('is stored only as its SHA-256 hash and a 12-character prefix', async () => {
      const { key, secret } = await issue('write', s.personal, 'stored');
      const row = await s.db.selectFrom('api_keys').selectAll().where('id', '=', Number(key.id)).executeTakeFirstOrThrow();
      assert.equal(row.secret_hash, sha256(secret));
      assert.equal(row.prefix, secret.slice(0, 12));
      assert.equal(key.prefix, secret.slice(0, 12));
      assert.equal(row.scopes, '["write"]');
      assert.equal(row.created_by_user_id, s.ownerId);
      const stored = JSON.stringify(row);
      assert.ok(!stored.includes(secret), 'the row holds the secret');
      assert.ok(!stored.includes(secret.slice(12)), 'the row holds the secret part beyond the prefix');
      assert.ok(!JSON.stringify(key).includes(secret.slice(12)));
      assert.ok(!('secretHash' in key) && !('secret_hash' in key) && !('secret' in key));

      // Nor anywhere in the files of the data folder.
      for (const file of [DATABASE_FILE, `${DATABASE_FILE}-wal`]) {
        const path = join(s.dataDir, file);
        if (!existsSync(path)) continue;
        const bytes = readFileSync(path);
        assert.equal(bytes.indexOf(secret), -1, `${file} holds the secret`);
        assert.equal(bytes.indexOf(secret.slice(12)), -1, `${file} holds the secret part beyond the prefix`);
      }
    });
  });

  describe('authenticate', () => {
    test('resolves a read key to its workspace, creator and [read]', async () => {
      const { key, secret } = await issue('read');
      assert.deepEqual(await s.services.keys.authenticate(secret, 'rpc'), {
        type: 'apiKey',
        keyId: key.id,
        scopes: ['read'],
        workspaceId: s.personal,
        userId: s.ownerId,
        surface: 'rpc',
      });
    });

    test('resolves a write key to [write]', async () => {
      const { key, secret } = await issue('write', other);
      const actor = await actorOf(secret, 'mcp');
      assert.deepEqual(actor, { type: 'apiKey', keyId: key.id, scopes: ['write'], workspaceId: other, userId: s.ownerId, surface: 'mcp' });
    });

    test('refuses unknown, altered, malformed and OAuth-shaped secrets', async () => {
      const { secret } = await issue('write');
      const last = secret.at(-1) === 'A' ? 'B' : 'A';
      for (const wrong of [
        `${secret.slice(0, -1)}${last}`,
        `${secret}x`,
        secret.slice(0, -1),
        secret.slice(0, 12),
        secret.replace(/^svc_/, 'sk_'),
        secret.slice(4),
        '',
        `svc_${'a'.repeat(300)}`,
      ]) {
        assert.equal(await s.services.keys.authenticate(wrong, 'rest'), undefined, wrong);
      }
    });

    test('never treats an svc_oat_ token as a key, even if a row matches it', async () => {
      const token = `svc_oat_${'B'.repeat(43)}`;
      await s.db
        .insertInto('api_keys')
        .values({
          workspace_id: s.personal,
          name: 'oauth-looking',
          prefix: token.slice(0, 12),
          secret_hash: sha256(token),
          scopes: '["write"]',
          created_by_user_id: null,
          created_at: new Date().toISOString(),
        })
        .execute();
      assert.equal(await s.services.keys.authenticate(token, 'mcp'), undefined);
    });

    test('records the last-used time, at most once a minute, and never audits it', async () => {
      const { key, secret } = await issue('read');
      const lastUsed = async () =>
        (await s.db.selectFrom('api_keys').select('last_used_at').where('id', '=', Number(key.id)).executeTakeFirstOrThrow()).last_used_at;
      assert.equal(await lastUsed(), null);
      const start = Date.now();
      await actorOf(secret);
      const first = await lastUsed();
      assert.ok(first, 'last_used_at is set on use');
      assert.ok(Math.abs(Date.parse(first) - start) < 5_000, first);
      await actorOf(secret);
      assert.equal(await lastUsed(), first, 'a second use within the minute does not write');
      const listed = (await s.services.keys.list(s.owner, s.personal)).find((k) => k.id === key.id);
      assert.equal(listed?.lastUsedAt, first);
      assert.equal((await auditRows(s.db, 'api_key', key.id)).length, 1, 'only the create entry');
    });

    test('a key is read outside a transaction still open: a revocation rolled back never shows', async () => {
      const { key, secret } = await issue('read');
      let during: Promise<unknown> | undefined;
      await assert.rejects(
        writeTransaction(s.db, async (trx) => {
          await markKeyRevoked(trx, Number(key.id), new Date().toISOString());
          during = s.services.keys.authenticate(secret, 'rpc');
          await new Promise((resolve) => setTimeout(resolve, 20));
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      assert.equal(((await during) as { keyId: string } | undefined)?.keyId, key.id);
    });
  });

  describe('legacy keys (no stored scope)', () => {
    test('authenticate as [write]', async () => {
      const legacy = await insertLegacyKey();
      const actor = await actorOf(legacy.secret);
      assert.deepEqual(actor.scopes, ['write']);
      assert.equal(actor.keyId, legacy.id);
      assert.equal(actor.userId, null);
      assert.doesNotThrow(() => requireWriteScope(actor));
    });

    test('are listed as legacy with scopes [write]', async () => {
      const legacy = await insertLegacyKey();
      const { key } = await issue('read');
      const listed = await s.services.keys.list(s.owner, s.personal);
      const old = listed.find((k) => k.id === legacy.id);
      assert.ok(old);
      assert.deepEqual(old.scopes, ['write']);
      assert.equal(old.legacy, true);
      const fresh = listed.find((k) => k.id === key.id);
      assert.equal(fresh?.legacy, false);
      assert.deepEqual(fresh?.scopes, ['read']);
    });

    test('may revoke another key of their workspace, as a write key may', async () => {
      const legacy = await insertLegacyKey();
      const target = await issue('read');
      const revoked = await s.services.keys.revoke(await actorOf(legacy.secret), target.key.id);
      assert.ok(revoked.revokedAt);
      const [, entry] = await auditRows(s.db, 'api_key', target.key.id);
      assert.equal(entry?.actor_type, 'apiKey');
      assert.equal(entry?.actor_id, legacy.id);
      assert.equal(entry?.actor_user_id, null, 'a key nobody is known to have created has no user');
    });
  });

  describe('list', () => {
    test('shows the keys of one workspace, newest first, with every listed field and no secret', async () => {
      const a = await issue('read', other, 'list-a');
      const b = await issue('write', other, 'list-b');
      const listed = await s.services.keys.list(s.owner, other);
      const ids = listed.map((k) => Number(k.id));
      assert.deepEqual(
        ids,
        [...ids].sort((x, y) => y - x),
      );
      assert.ok(listed.every((k) => k.workspaceId === String(other)));
      const got = listed.find((k) => k.id === b.key.id);
      assert.deepEqual(Object.keys(got ?? {}).sort(), [
        'createdAt',
        'createdByUserId',
        'id',
        'lastUsedAt',
        'legacy',
        'name',
        'prefix',
        'revokedAt',
        'scopes',
        'workspaceId',
      ]);
      const text = JSON.stringify(listed);
      for (const { secret } of [a, b]) {
        assert.ok(!text.includes(secret.slice(12)));
        assert.ok(!text.includes(sha256(secret)));
      }
      assert.ok(!(await s.services.keys.list(s.owner, s.personal)).some((k) => k.id === a.key.id));
    });

    test('a key may list its own workspace; another workspace is NOT_FOUND', async () => {
      const { secret } = await issue('read');
      const actor = await actorOf(secret);
      assert.ok((await s.services.keys.list(actor, s.personal)).length > 0);
      await rejectsWith(s.services.keys.list(actor, other), 'NOT_FOUND');
    });
  });

  describe('revoke', () => {
    test('a read-only key may revoke itself', async () => {
      const { key, secret } = await issue('read');
      const revoked = await s.services.keys.revoke(await actorOf(secret), key.id);
      assert.equal(revoked.id, key.id);
      assert.ok(revoked.revokedAt && !Number.isNaN(Date.parse(revoked.revokedAt)));
      assert.equal(await s.services.keys.authenticate(secret, 'rest'), undefined);
    });

    test('a read-only key revoking another key is FORBIDDEN and the other key still works', async () => {
      const reader = await issue('read');
      const target = await issue('write');
      const error = await rejectsWith(s.services.keys.revoke(await actorOf(reader.secret), target.key.id), 'FORBIDDEN');
      assert.match(error.message, /read-only/);
      assert.deepEqual((await actorOf(target.secret)).scopes, ['write']);
      const row = await s.db.selectFrom('api_keys').select('revoked_at').where('id', '=', Number(target.key.id)).executeTakeFirstOrThrow();
      assert.equal(row.revoked_at, null);
      assert.equal((await auditRows(s.db, 'api_key', target.key.id)).length, 1, 'no revoke entry');
      // The refused reader itself is untouched too.
      assert.deepEqual((await actorOf(reader.secret)).scopes, ['read']);
    });

    test('a write key may revoke another key of its workspace', async () => {
      const writer = await issue('write');
      const target = await issue('read');
      const revoked = await s.services.keys.revoke(await actorOf(writer.secret), target.key.id);
      assert.ok(revoked.revokedAt);
      assert.equal(await s.services.keys.authenticate(target.secret, 'rest'), undefined);
      assert.ok(await s.services.keys.authenticate(writer.secret, 'rest'), 'the revoking key still works');
    });

    test('a key of another workspace is NOT_FOUND for read and write keys alike, and stays live', async () => {
      const foreign = await issue('write', other);
      for (const scope of ['read', 'write'] as const) {
        const { secret } = await issue(scope);
        const error = await rejectsWith(s.services.keys.revoke(await actorOf(secret), foreign.key.id), 'NOT_FOUND');
        assert.match(error.message, new RegExp(`\\b${foreign.key.id}\\b`));
      }
      assert.ok(await s.services.keys.authenticate(foreign.secret, 'rest'));
    });

    test('an unknown id is NOT_FOUND; one that cannot be an id is VALIDATION naming keyId', async () => {
      await rejectsWith(s.services.keys.revoke(s.owner, '999999'), 'NOT_FOUND');
      for (const id of ['abc', '', '1.5', '-1']) {
        await rejectsWith(s.services.keys.revoke(s.owner, id), 'VALIDATION', 'keyId');
      }
    });

    test('a revoked key no longer authenticates, and revoking it again changes nothing and writes no entry', async () => {
      const { key, secret } = await issue('write');
      const first = await s.services.keys.revoke(s.owner, key.id);
      assert.equal(await s.services.keys.authenticate(secret, 'rest'), undefined);
      const entries = (await auditRows(s.db, 'api_key', key.id)).length;
      assert.equal(entries, 2);
      const again = await s.services.keys.revoke(s.owner, key.id);
      assert.equal(again.revokedAt, first.revokedAt);
      assert.equal((await auditRows(s.db, 'api_key', key.id)).length, entries);
      const listed = (await s.services.keys.list(s.owner, s.personal)).find((k) => k.id === key.id);
      assert.equal(listed?.revokedAt, first.revokedAt, 'a revoked key stays in the list, marked revoked');
    });
  });

  describe('create', () => {
    test('an API key cannot create keys, whatever its scope', async () => {
      for (const scope of ['read', 'write'] as const) {
        const { secret } = await issue(scope);
        const before = await s.db.selectFrom('api_keys').select(s.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
        await rejectsWith(s.services.keys.create(await actorOf(secret), { workspaceId: s.personal, name: 'x', scope: 'read' }), 'FORBIDDEN');
        const after = await s.db.selectFrom('api_keys').select(s.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
        assert.equal(after.n, before.n);
      }
    });

    test('refuses an invalid scope, naming the field', async () => {
      for (const scope of ['admin', 'READ', '', 'read,write', undefined]) {
        await rejectsWith(s.services.keys.create(s.owner, { workspaceId: s.personal, name: 'ok', scope: scope as Scope }), 'VALIDATION', 'scope');
      }
    });

    test('refuses an empty, blank or overlong name, naming the field', async () => {
      for (const name of ['', '   ', 'n'.repeat(101)]) {
        await rejectsWith(s.services.keys.create(s.owner, { workspaceId: s.personal, name, scope: 'read' }), 'VALIDATION', 'name');
      }
      const { key } = await s.services.keys.create(s.owner, { workspaceId: s.personal, name: `  ${'n'.repeat(100)}  `, scope: 'read' });
      assert.equal(key.name, 'n'.repeat(100), 'the name is trimmed');
    });

    test('names every bad field at once', async () => {
      const error = await rejectsWith(s.services.keys.create(s.owner, { workspaceId: 0, name: '', scope: 'root' as Scope }), 'VALIDATION');
      assert.deepEqual(error.violations.map((v) => v.field).sort(), ['name', 'scope', 'workspaceId']);
    });

    test('a workspace the person is not a member of is NOT_FOUND; a plain member is FORBIDDEN', async () => {
      const now = new Date().toISOString();
      const stranger = await s.db.insertInto('users').values({ name: 'stranger', email: null, created_at: now }).returning('id').executeTakeFirstOrThrow();
      const member = await s.db.insertInto('users').values({ name: 'member', email: null, created_at: now }).returning('id').executeTakeFirstOrThrow();
      await s.db.insertInto('memberships').values({ workspace_id: s.personal, user_id: member.id, role: 'member', created_at: now }).execute();
      const asStranger: Actor = { type: 'user', userId: stranger.id, surface: 'dashboard' };
      const asMember: Actor = { type: 'user', userId: member.id, surface: 'dashboard' };
      await rejectsWith(s.services.keys.create(asStranger, { workspaceId: s.personal, name: 'x', scope: 'read' }), 'NOT_FOUND');
      await rejectsWith(s.services.keys.create(asMember, { workspaceId: s.personal, name: 'x', scope: 'read' }), 'FORBIDDEN');
      const { key } = await issue('read');
      await rejectsWith(s.services.keys.revoke(asStranger, key.id), 'NOT_FOUND');
      await rejectsWith(s.services.keys.revoke(asMember, key.id), 'FORBIDDEN');
      assert.equal((await s.services.keys.list(s.owner, s.personal)).find((k) => k.id === key.id)?.revokedAt, null);
    });
  });

  describe('audit', () => {
    test('create writes exactly one entry: who, no before, the key after, every field changed', async () => {
      const { key, secret } = await issue('read', s.personal, 'audited');
      const rows = await auditRows(s.db, 'api_key', key.id);
      assert.equal(rows.length, 1);
      const [row] = rows;
      assert.ok(row);
      assert.equal(row.workspace_id, s.personal);
      assert.equal(row.action, 'api_key.create');
      assert.equal(row.actor_type, 'user');
      assert.equal(row.actor_id, String(s.ownerId));
      assert.equal(row.actor_user_id, s.ownerId);
      assert.equal(row.before, null);
      const { lastUsedAt: _omitted, ...expected } = key;
      assert.deepEqual(JSON.parse(row.after ?? 'null'), expected);
      assert.deepEqual(JSON.parse(row.changed_fields), Object.keys(expected).sort());
      const text = JSON.stringify(row);
      assert.ok(!text.includes(secret.slice(12)), 'the entry holds the secret');
      assert.ok(!text.includes(sha256(secret)), 'the entry holds the hash');
      assert.ok(!/secret|hash/i.test(text), text);
    });

    test('revoke writes exactly one entry with before, after and changedFields [revokedAt]', async () => {
      const { key, secret } = await issue('read');
      const actor = await actorOf(secret);
      const revoked = await s.services.keys.revoke(actor, key.id);
      const rows = await auditRows(s.db, 'api_key', key.id);
      assert.deepEqual(
        rows.map((r) => r.action),
        ['api_key.create', 'api_key.revoke'],
      );
      const entry = rows[1]!;
      assert.equal(entry.actor_type, 'apiKey');
      assert.equal(entry.actor_id, key.id);
      assert.equal(entry.actor_user_id, s.ownerId, 'the user who created the key');
      assert.deepEqual(JSON.parse(entry.changed_fields), ['revokedAt']);
      const beforeSnap = JSON.parse(entry.before ?? 'null');
      const afterSnap = JSON.parse(entry.after ?? 'null');
      assert.equal(beforeSnap.revokedAt, null);
      assert.equal(afterSnap.revokedAt, revoked.revokedAt);
      assert.deepEqual({ ...beforeSnap, revokedAt: revoked.revokedAt }, afterSnap);
      assert.ok(!('lastUsedAt' in afterSnap), 'last use is not part of the audited state');
      const text = JSON.stringify(rows);
      assert.ok(!text.includes(secret.slice(12)) && !text.includes(sha256(secret)));
    });

    test('a change made over MCP is audited with actor_type mcp and the key id', async () => {
      const { key, secret } = await issue('read');
      await s.services.keys.revoke(await actorOf(secret, 'mcp'), key.id);
      const entry = (await auditRows(s.db, 'api_key', key.id))[1];
      assert.equal(entry?.actor_type, 'mcp');
      assert.equal(entry?.actor_id, key.id);
      assert.equal(entry?.actor_user_id, s.ownerId);
    });

    test('revoking an already revoked key writes no entry', async () => {
      const { key } = await issue('write');
      await s.services.keys.revoke(s.owner, key.id);
      const count = async () => (await s.db.selectFrom('audit_log').select(s.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
      const before = await count();
      await s.services.keys.revoke(s.owner, key.id);
      assert.equal(await count(), before);
    });

    test('an update that changes nothing writes no entry; changedFields names the top-level fields that differ', async () => {
      const count = async () => (await s.db.selectFrom('audit_log').select(s.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
      const before = await count();
      const change = { workspaceId: s.personal, entityType: 'thing', entityId: 7, action: 'thing.update', actor: s.owner };
      const same = await recordAudit(s.db, { ...change, before: { a: 1, b: [1, 2], c: null }, after: { c: null, b: [1, 2], a: 1 } });
      assert.equal(same, false);
      assert.equal(await count(), before);
      const changed = await recordAudit(s.db, { ...change, before: { a: 1, b: [1, 2] }, after: { a: 1, b: [2, 1], c: null } });
      assert.equal(changed, true);
      const [row] = await auditRows(s.db, 'thing', '7');
      assert.deepEqual(JSON.parse(row?.changed_fields ?? 'null'), ['b', 'c']);
      assert.deepEqual(changedFields(null, { z: 1, a: false }), ['a', 'z']);
      assert.deepEqual(changedFields({ gone: 1, kept: 'x' }, null), ['gone', 'kept']);
      assert.deepEqual(changedFields({ n: { deep: 1 } }, { n: { deep: 2 } }), ['n']);
      assert.deepEqual(changedFields({ same: 'x' }, { same: 'x' }), []);
    });

    test('the entry is written in the mutation transaction: if it cannot be written, nothing changes', async () => {
      const { key, secret } = await issue('write');
      const keys = async () => (await s.db.selectFrom('api_keys').select(s.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
      const workspaces = async () => (await s.db.selectFrom('workspaces').select(s.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
      const keyCount = await keys();
      const workspaceCount = await workspaces();
      const failAudit = await failingInserts(s.db, 'audit_log', 'audit log unavailable');
      try {
        await assert.rejects(s.services.keys.create(s.owner, { workspaceId: s.personal, name: 'never', scope: 'read' }), /audit log unavailable/);
        await assert.rejects(s.services.keys.revoke(s.owner, key.id), /audit log unavailable/);
        await assert.rejects(s.services.workspaces.create(s.owner, { name: 'Never', slug: 'never', plan: 'hobby' }), /audit log unavailable/);
      } finally {
        await failAudit.remove();
      }
      assert.equal(await keys(), keyCount, 'the key was created without its entry');
      assert.ok(await s.services.keys.authenticate(secret, 'rest'), 'the key was revoked without its entry');
      assert.equal(await workspaces(), workspaceCount, 'the workspace was created without its entry');
    });
  });
});

describe('requireWriteScope', () => {
  const key = (scopes: Scope[]): Actor => ({ type: 'apiKey', keyId: '1', scopes, workspaceId: 1, userId: null, surface: 'rest' });

  test('refuses a read-only key with FORBIDDEN', () => {
    throwsWith(() => requireWriteScope(key(['read'])), 'FORBIDDEN');
    throwsWith(() => requireWriteScope(key([])), 'FORBIDDEN');
  });

  test('lets write keys, people and the system through', () => {
    assert.doesNotThrow(() => requireWriteScope(key(['write'])));
    assert.doesNotThrow(() => requireWriteScope({ type: 'user', userId: 1, surface: 'dashboard' }));
    assert.doesNotThrow(() => requireWriteScope({ type: 'system', surface: 'cli' }));
  });
});

describe('workspaces', () => {
  let s: Store;
  before(async () => {
    s = await openStore();
  });
  after(() => s.close());

  test('create makes the person its owner and writes one audit entry', async () => {
    const ws = await s.services.workspaces.create(s.owner, { name: ' Acme ', slug: 'acme-2', plan: 'starter' });
    assert.deepEqual({ ...ws, id: undefined, createdAt: undefined }, { id: undefined, name: 'Acme', slug: 'acme-2', plan: 'starter', createdAt: undefined });
    const membership = await s.db.selectFrom('memberships').selectAll().where('workspace_id', '=', Number(ws.id)).execute();
    assert.deepEqual(
      membership.map((m) => [m.user_id, m.role]),
      [[s.ownerId, 'owner']],
    );
    assert.ok((await s.services.workspaces.list(s.owner)).some((w) => w.slug === 'acme-2'));
    const rows = await auditRows(s.db, 'workspace', ws.id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.action, 'workspace.create');
    assert.equal(rows[0]?.actor_type, 'user');
    assert.equal(rows[0]?.before, null);
    assert.deepEqual(JSON.parse(rows[0]?.after ?? 'null'), { ...ws, ownerUserId: String(s.ownerId) });
  });

  test('refuses a bad slug, naming the field', async () => {
    for (const slug of ['', 'a', 'Acme', 'has space', '-lead', 'trail-', 'double--hyphen', 'under_score', 'é', 'x'.repeat(49)]) {
      await rejectsWith(s.services.workspaces.create(s.owner, { name: 'N', slug, plan: 'hobby' }), 'VALIDATION', 'slug');
    }
    for (const slug of ['ab', 'a1', 'x'.repeat(48), 'a-b-c', '42']) {
      const ws = await s.services.workspaces.create(s.owner, { name: 'N', slug, plan: 'hobby' });
      assert.equal(ws.slug, slug);
    }
  });

  test('refuses an empty name, naming the field', async () => {
    await rejectsWith(s.services.workspaces.create(s.owner, { name: '  ', slug: 'no-name', plan: 'hobby' }), 'VALIDATION', 'name');
  });

  test('a taken slug is CONFLICT naming the slug, and nothing is written', async () => {
    const count = async () => (await s.db.selectFrom('workspaces').select(s.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
    const before = await count();
    const error = await rejectsWith(s.services.workspaces.create(s.owner, { name: 'Again', slug: 'personal', plan: 'pro' }), 'CONFLICT');
    assert.deepEqual(error.violations, [{ field: 'slug', rule: 'must be unique' }]);
    assert.match(error.message, /^slug: .*personal/);
    assert.equal(await count(), before);
  });

  test('the plan must be one of hobby, starter, pro, scale', async () => {
    for (const plan of ['free', 'enterprise', 'Pro', '']) {
      const error = await rejectsWith(
        s.services.workspaces.create(s.owner, { name: 'N', slug: `plan-${plan.toLowerCase() || 'empty'}`, plan: plan as PlanName }),
        'VALIDATION',
        'plan',
      );
      assert.match(error.message, /hobby, starter, pro, scale/);
    }
    for (const plan of planNames) {
      const ws = await s.services.workspaces.create(s.owner, { name: plan, slug: `on-${plan}`, plan });
      assert.equal(ws.plan, plan);
      assert.equal((await s.services.workspaces.getBySlug(s.owner, `on-${plan}`)).plan, plan);
    }
  });

  test('an API key cannot create workspaces and sees only its own', async () => {
    const { secret } = await s.services.keys.create(s.owner, { workspaceId: s.personal, name: 'ws', scope: 'write' });
    const actor = await s.services.keys.authenticate(secret, 'rest');
    assert.ok(actor);
    await rejectsWith(s.services.workspaces.create(actor, { name: 'N', slug: 'by-key', plan: 'hobby' }), 'FORBIDDEN');
    assert.deepEqual(
      (await s.services.workspaces.list(actor)).map((w) => w.slug),
      ['personal'],
    );
    await rejectsWith(s.services.workspaces.getBySlug(actor, 'on-pro'), 'NOT_FOUND');
    await rejectsWith(s.services.workspaces.getBySlug(s.owner, 'missing'), 'NOT_FOUND');
  });
});

describe('plans and regions', () => {
  const expected: Record<PlanName, { frequencies: string[]; tcpRegions: number; auditLog: boolean; subscriberNotifications: boolean }> = {
    hobby: { frequencies: ['10m', '30m', '1h'], tcpRegions: 4, auditLog: false, subscriberNotifications: false },
    starter: { frequencies: ['1m', '5m', '10m', '30m', '1h'], tcpRegions: 6, auditLog: false, subscriberNotifications: true },
    pro: { frequencies: ['30s', '1m', '5m', '10m', '30m', '1h'], tcpRegions: 6, auditLog: true, subscriberNotifications: true },
    scale: { frequencies: ['30s', '1m', '5m', '10m', '30m', '1h'], tcpRegions: 6, auditLog: true, subscriberNotifications: true },
  };

  test('there are exactly four plans and six frequencies', () => {
    assert.deepEqual([...planNames], ['hobby', 'starter', 'pro', 'scale']);
    assert.deepEqual(Object.keys(plans).sort(), [...planNames].sort());
    assert.deepEqual([...frequencies], ['30s', '1m', '5m', '10m', '30m', '1h']);
  });

  for (const name of planNames) {
    test(`${name}: frequencies, default TCP regions and features`, () => {
      const plan = planOf(name);
      const want = expected[name];
      assert.equal(plan.name, name);
      assert.deepEqual([...plan.frequencies], want.frequencies);
      assert.equal(plan.defaultTcpRegionCount, want.tcpRegions);
      const defaults = defaultTcpRegions(plan);
      assert.equal(defaults.length, want.tcpRegions);
      assert.equal(new Set(defaults).size, defaults.length);
      assert.ok(defaults.every(isRegion));
      assert.equal(plan.auditLog, want.auditLog);
      assert.equal(plan.subscriberNotifications, want.subscriberNotifications);
    });
  }

  test('starter adds exactly 1m and 5m to hobby; 30s is pro and scale only', () => {
    const hobby = new Set<string>(plans.hobby.frequencies);
    assert.ok(plans.hobby.frequencies.every((f) => plans.starter.frequencies.includes(f)));
    assert.deepEqual(
      plans.starter.frequencies.filter((f) => !hobby.has(f)),
      ['1m', '5m'],
    );
    assert.deepEqual(
      planNames.filter((p) => plans[p].frequencies.includes('30s')),
      ['pro', 'scale'],
    );
  });

  test('the free plan default regions are the first of the paid ones', () => {
    assert.deepEqual(defaultTcpRegions(plans.hobby), ['iad', 'ams', 'sin', 'syd']);
    assert.deepEqual(defaultTcpRegions(plans.pro), ['iad', 'ams', 'sin', 'syd', 'fra', 'gru']);
    assert.deepEqual(defaultTcpRegions(plans.starter), defaultTcpRegions(plans.scale));
  });

  test('the region catalogue has unique ids; isRegion knows only them', () => {
    const ids = regions.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.every(isRegion));
    for (const bad of ['', 'IAD', 'xyz', 'iad ']) assert.equal(isRegion(bad), false, bad);
  });

  test('an unknown plan name is refused', () => {
    assert.throws(() => planOf('enterprise'), /unknown plan enterprise/);
  });
});
