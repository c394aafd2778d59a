/**
 * The authorization server's rules at the domain level, against a real SQLite file: which redirect
 * URIs a client may use, who may see and decide a consent request, one live grant per client and
 * person, revocation when a member leaves, and the addresses a metadata document may come from.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../server/db/open.ts';
import { openTestDatabase } from './support/database.ts';
import type { Actor } from '../server/domain/actor.ts';
import type { OAuthClient } from '../server/domain/oauth/clients.ts';
import { normalizeMatchCode } from '../server/domain/oauth/consent.ts';
import { OAuthError } from '../server/domain/oauth/oauth-error.ts';
import { DEFAULT_REDIRECT_DOMAINS, redirectMatches, registrationProblem } from '../server/domain/oauth/redirect-uris.ts';
import { createServices, type Services } from '../server/services.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { isPublicAddress } from '../server/oauth/client-metadata.ts';
import { rejectsWith, tempDir } from './support/harness.ts';

const ISSUER = 'http://localhost:3000';
const policy = { ownHosts: ['localhost'], vendorDomains: DEFAULT_REDIRECT_DOMAINS };

let dir: Awaited<ReturnType<typeof tempDir>>;
let db: Db;
let services: Services;
let owner: Extract<Actor, { type: 'user' }>;
let personal: number;

before(async () => {
  dir = await tempDir();
  db = await openTestDatabase(dir.path);
  services = createServices(db, { issuer: ISSUER });
  owner = { type: 'user', userId: await ensureOwner(db), surface: 'cli' };
  personal = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
});
after(async () => {
  services.close();
  await db.destroy();
  await dir.remove();
});

const challenge = () => createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');

async function registeredClient(name = 'Editor'): Promise<OAuthClient> {
  const { client_id } = await services.oauth.clients.register({ client_name: name, redirect_uris: ['http://127.0.0.1/callback'] });
  return services.oauth.clients.resolve(client_id, async () => assert.fail('a registered client is never fetched'));
}

async function pendingRequest(client: OAuthClient, scope: 'read' | 'write' = 'write') {
  return services.oauth.start({
    client,
    redirectUri: 'http://127.0.0.1:4000/callback',
    codeChallenge: challenge(),
    scope,
    resource: `${ISSUER}/mcp`,
    state: 's',
  });
}

async function oauthRefusal(call: Promise<unknown>, error: string): Promise<OAuthError> {
  const thrown = await call.then(
    () => assert.fail(`expected ${error}`),
    (e: unknown) => e,
  );
  assert.ok(thrown instanceof OAuthError, String(thrown));
  assert.equal(thrown.error, error, thrown.message);
  return thrown;
}

describe('redirect URIs at registration', () => {
  const allowed = [
    'http://127.0.0.1/callback',
    'http://127.0.0.1:33418/callback',
    'http://[::1]:8080/cb',
    'http://localhost/oauth/callback',
    'https://localhost/cb',
    'https://claude.ai/api/mcp/auth_callback',
    'https://app.cursor.com/cb',
    'cursor://anysphere.cursor-retrieval/oauth/callback',
    'vscode://vscode.github-authentication/did-authenticate',
    'vscode-insiders://ms-vscode.mcp/callback',
  ];
  const refused: [string, RegExp][] = [
    ['http://evil.example/cb', /only on a loopback host/],
    ['http://127.0.0.2/cb', /only on a loopback host/],
    ['https://evil.example/cb', /allowed AI-assistant domain/],
    ['https://claude.ai.evil.example/cb', /allowed AI-assistant domain/],
    ['https://notclaude.ai/cb', /allowed AI-assistant domain/],
    ['http://127.0.0.1/cb#fragment', /fragment/],
    ['http://user:pass@127.0.0.1/cb', /user information/],
    ['javascript:alert(1)', /never allowed/],
    ['data:text/html,hi', /never allowed/],
    ['ftp://127.0.0.1/cb', /not allowed/],
    ['myapp://callback', /not allowed/],
    ['/relative/cb', /absolute/],
  ];
  for (const uri of allowed) test(`accepts ${uri}`, () => assert.equal(registrationProblem(uri, policy), undefined));
  for (const [uri, rule] of refused) test(`refuses ${uri}`, () => assert.match(registrationProblem(uri, policy) ?? 'accepted', rule));

  test('registration refuses a bad URI by name with invalid_redirect_uri, and stores nothing', async () => {
    const before = await db
      .selectFrom('oauth_clients')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const error = await oauthRefusal(
      services.oauth.clients.register({ redirect_uris: ['http://127.0.0.1/ok', 'https://evil.example/cb'] }),
      'invalid_redirect_uri',
    );
    assert.match(error.message, /https:\/\/evil\.example\/cb/);
    const afterCount = await db
      .selectFrom('oauth_clients')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(afterCount.n), Number(before.n));
    await oauthRefusal(
      services.oauth.clients.register({ redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'client_secret_basic' }),
      'invalid_client_metadata',
    );
    await oauthRefusal(services.oauth.clients.register({ redirect_uris: [] }), 'invalid_redirect_uri');
    await oauthRefusal(services.oauth.clients.register('not an object'), 'invalid_client_metadata');
  });
});

describe('redirect URI matching (RFC 8252)', () => {
  test('loopback matches on everything but the port', () => {
    assert.ok(redirectMatches('http://127.0.0.1/callback', 'http://127.0.0.1:51234/callback'));
    assert.ok(redirectMatches('http://[::1]:1/cb', 'http://[::1]:2/cb'));
    assert.ok(redirectMatches('http://localhost/cb', 'http://localhost:9/cb'));
  });
  test('localhost and 127.0.0.1 never match each other; paths, queries and schemes must be equal', () => {
    assert.ok(!redirectMatches('http://localhost/cb', 'http://127.0.0.1:9/cb'));
    assert.ok(!redirectMatches('http://127.0.0.1/cb', 'http://localhost:9/cb'));
    assert.ok(!redirectMatches('http://127.0.0.1/cb', 'http://127.0.0.1:9/other'));
    assert.ok(!redirectMatches('http://127.0.0.1/cb', 'http://127.0.0.1:9/cb?x=1'));
    assert.ok(!redirectMatches('http://127.0.0.1/cb', 'http://127.0.0.1:9/cb#f'));
  });
  test('anything else matches only exactly', () => {
    assert.ok(redirectMatches('https://claude.ai/cb', 'https://claude.ai/cb'));
    assert.ok(!redirectMatches('https://claude.ai/cb', 'https://claude.ai:444/cb'));
    assert.ok(!redirectMatches('cursor://a/cb', 'cursor://a/cb2'));
  });
});

describe('addresses of metadata documents', () => {
  test('loopback, private, link-local, CGNAT, multicast, unspecified and mapped forms are refused', () => {
    for (const address of [
      '127.0.0.1',
      '127.9.9.9',
      '10.0.0.1',
      '10.255.1.2',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      'fc00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
  });
  test('public addresses pass', () => {
    for (const address of ['93.184.216.34', '1.1.1.1', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])
      assert.equal(isPublicAddress(address), true, address);
  });
});

describe('consent requests', () => {
  test('matching codes are read in any case, with or without the hyphen', () => {
    assert.equal(normalizeMatchCode('kxrd7qpm'), 'KXRD-7QPM');
    assert.equal(normalizeMatchCode(' kxrd-7qpm '), 'KXRD-7QPM');
    assert.equal(normalizeMatchCode('KXRD 7QPM'), 'KXRD-7QPM');
  });

  test('only the browser that made a request or a signed-in person may see it', async () => {
    const { id, ticket } = await pendingRequest(await registeredClient());
    await rejectsWith(services.oauth.view(id, {}), 'FORBIDDEN');
    await rejectsWith(services.oauth.view(id, { browserSecret: 'guess' }), 'FORBIDDEN');
    const bound = await services.oauth.redeemTicket(ticket);
    assert.ok(bound);
    assert.equal(await services.oauth.redeemTicket(ticket), undefined, 'a ticket works once');
    const seen = await services.oauth.view(id, { browserSecret: bound.browserSecret });
    assert.equal(seen.canDecide, false);
    assert.match(seen.matchCode, /^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
    assert.equal((await services.oauth.view(id, { person: owner })).canDecide, true);
  });

  test('a credential can neither list nor decide consent requests', async () => {
    const { id } = await pendingRequest(await registeredClient());
    const key: Actor = { type: 'apiKey', keyId: '1', scopes: ['write'], workspaceId: personal, userId: owner.userId, surface: 'rest' };
    await rejectsWith(services.oauth.pending(key), 'FORBIDDEN');
    await rejectsWith(services.oauth.approve(key, { id }, { workspaceId: personal }), 'FORBIDDEN');
    await rejectsWith(services.oauth.deny(key, { id }), 'FORBIDDEN');
  });

  test('read asked cannot be raised to write; write asked may be lowered to read', async () => {
    const client = await registeredClient();
    const read = await pendingRequest(client, 'read');
    await rejectsWith(services.oauth.approve(owner, { id: read.id }, { workspaceId: personal, access: 'write' }), 'VALIDATION', 'access');
    const write = await pendingRequest(client, 'write');
    const approved = await services.oauth.approve(owner, { id: write.id }, { workspaceId: personal, access: 'read' });
    assert.equal(approved.status, 'approved');
    const grant = await db.selectFrom('oauth_grants').selectAll().where('client_id', '=', client.id).executeTakeFirstOrThrow();
    assert.equal(grant.scope, 'read');
  });

  test('a decided request cannot be decided again', async () => {
    const { id } = await pendingRequest(await registeredClient());
    await services.oauth.deny(owner, { id });
    await rejectsWith(services.oauth.approve(owner, { id }, { workspaceId: personal }), 'CONFLICT');
  });

  test('a workspace the person is not in is not found', async () => {
    const { id } = await pendingRequest(await registeredClient());
    await rejectsWith(services.oauth.approve(owner, { id }, { workspaceId: 987654 }), 'NOT_FOUND');
  });
});

describe('grants', () => {
  async function approve(client: OAuthClient, person: Extract<Actor, { type: 'user' }> = owner, workspaceId = personal) {
    const { id } = await pendingRequest(client);
    await services.oauth.approve(person, { id }, { workspaceId });
    return db
      .selectFrom('oauth_grants')
      .selectAll()
      .where('client_id', '=', client.id)
      .where('user_id', '=', person.userId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
  }

  test('approving the same client again replaces the live grant, audited as delete and create', async () => {
    const client = await registeredClient('Twice');
    const first = await approve(client);
    const second = await approve(client);
    const live = await db.selectFrom('oauth_grants').select('id').where('client_id', '=', client.id).where('revoked_at', 'is', null).execute();
    assert.deepEqual(
      live.map((g) => g.id),
      [second.id],
    );
    const entries = await db
      .selectFrom('audit_log')
      .select(['action', 'entity_id', 'after'])
      .where('entity_type', '=', 'oauth_grant')
      .where('entity_id', 'in', [String(first.id), String(second.id)])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      entries.map((e) => `${e.action} ${e.entity_id}`),
      [`oauth_grant.create ${first.id}`, `oauth_grant.delete ${first.id}`, `oauth_grant.create ${second.id}`],
    );
    assert.equal(JSON.parse(entries[1]!.after!).reason, 'replaced');
  });

  test('removing a member revokes the connections they approved there, and only theirs', async () => {
    const member = await services.members.add(owner, personal, { name: 'Ada', role: 'member' });
    const ada: Extract<Actor, { type: 'user' }> = { type: 'user', userId: Number(member.userId), surface: 'dashboard' };
    const client = await registeredClient('Shared editor');
    const adas = await approve(client, ada);
    const owners = await approve(client, owner);
    await services.members.remove(owner, personal, member.userId);
    const rows = await db.selectFrom('oauth_grants').select(['id', 'revoked_at']).where('id', 'in', [adas.id, owners.id]).execute();
    assert.ok(rows.find((r) => r.id === adas.id)?.revoked_at, "the removed member's grant is revoked");
    assert.equal(rows.find((r) => r.id === owners.id)?.revoked_at, null, "the owner's grant stays");
    const entry = await db
      .selectFrom('audit_log')
      .select('after')
      .where('action', '=', 'oauth_grant.delete')
      .where('entity_id', '=', String(adas.id))
      .executeTakeFirstOrThrow();
    assert.equal(JSON.parse(entry.after!).reason, 'member_removed');
    await rejectsWith(services.members.remove(owner, personal, String(owner.userId)), 'PRECONDITION_FAILED');
  });

  test('members see and revoke their own connections; owners and admins any', async () => {
    const member = await services.members.add(owner, personal, { name: 'Grace', role: 'member' });
    const grace: Extract<Actor, { type: 'user' }> = { type: 'user', userId: Number(member.userId), surface: 'dashboard' };
    const ownersGrant = await approve(await registeredClient('Owner app'), owner);
    const gracesGrant = await approve(await registeredClient('Grace app'), grace);
    // A member sees their own connections; an owner every one.
    const gracesView = (await services.connections.list(grace, personal)).map((c) => c.id);
    assert.ok(gracesView.includes(String(gracesGrant.id)) && !gracesView.includes(String(ownersGrant.id)));
    const ownersView = (await services.connections.list(owner, personal)).map((c) => c.id);
    assert.ok(ownersView.includes(String(gracesGrant.id)) && ownersView.includes(String(ownersGrant.id)));
    await rejectsWith(services.connections.revoke(grace, String(ownersGrant.id)), 'FORBIDDEN');
    assert.ok((await services.connections.revoke(grace, String(gracesGrant.id))).revokedAt);
    assert.ok((await services.connections.revoke(owner, String(ownersGrant.id))).revokedAt);
    const listed = await services.connections.list(grace, personal);
    assert.ok(!listed.some((c) => c.id === String(ownersGrant.id) || c.id === String(gracesGrant.id)), 'revoked connections leave the list');
  });
});
