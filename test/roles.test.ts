// Roles decide what each person may do, in the domain services and so on every surface: a member
// manages monitors but not channels, keys, private locations or members; an admin does, but makes
// no owner; an owner does everything. A credential acts within the role of the person who made it:
// a key made by an admin who is then made a member is refused a channel over ConnectRPC, naming the
// role it needs, and allowed again once they are an admin; removing the person revokes the key, so
// its next call over ConnectRPC and MCP is 401. The real service, its real database.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Code, createClient, Periodicity } from '../client/index.ts';
import type { Actor } from '../server/domain/actor.ts';
import { AppError } from '../server/errors.ts';
import { queryRows } from './support/database.ts';
import { assertCode, newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { connectMcp, MODERN_ERA } from './support/mcp-client.ts';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

type Person = Extract<Actor, { type: 'user' }>;
const person = (userId: string): Person => ({ type: 'user', userId: Number(userId), surface: 'dashboard' });
const idOf = (p: Person) => String(p.userId);
const WEBHOOK = { url: 'http://127.0.0.1:9/hook', secret: 'a-signing-secret-of-some-length' };

/** A workspace of its own whose owner is the machine's owner, with one member and one admin added. */
async function team(prefix: string) {
  const ws = await newWorkspace(service, prefix);
  const workspaceId = Number(ws.id);
  const owner = person(String(service.ownerId));
  const member = person((await service.services.members.add(owner, workspaceId, { name: `${prefix} member`, role: 'member' })).userId);
  const admin = person((await service.services.members.add(owner, workspaceId, { name: `${prefix} admin`, role: 'admin' })).userId);
  return { ws, workspaceId, owner, member, admin };
}

/** Whether `call` is refused as FORBIDDEN naming `role`, or allowed. */
async function outcome(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return 'allowed';
  } catch (error) {
    if (error instanceof AppError && error.code === 'FORBIDDEN') {
      const needed = /needs the (\w+) role/.exec(error.message)?.[1];
      return `needs ${needed}`;
    }
    throw error;
  }
}

describe('roles in the domain', () => {
  test('each action as a member, an admin and an owner', async () => {
    const { workspaceId, owner, member, admin } = await team('roles-matrix');
    const { services } = service;
    let n = 0;
    const actions: Record<string, (actor: Actor) => Promise<unknown>> = {
      'read monitors': (actor) => services.monitors.list(actor, workspaceId, {}),
      'create a monitor': (actor) =>
        services.monitors.create(actor, workspaceId, 'tcp', { name: `db ${++n}`, uri: 'db.internal:5432', periodicity: '1h', regions: ['iad'] }),
      'create a status page': (actor) => services.pages.create(actor, workspaceId, { title: 'Status', slug: `roles-${process.pid}-${++n}` }),
      'create a channel': (actor) => services.channels.create(actor, workspaceId, { name: `hook ${++n}`, kind: 'webhook', config: WEBHOOK }),
      'create a private location': (actor) => services.locations.create(actor, workspaceId, { name: `office-${++n}` }),
      'create an API key': (actor) => services.keys.create(actor, { workspaceId, name: `key ${++n}`, scope: 'read' }),
      'invite a member': (actor) => services.members.invite(actor, workspaceId, { role: 'member' }),
      'invite an owner': (actor) => services.members.invite(actor, workspaceId, { role: 'owner' }),
      'list invitations': (actor) => services.members.invitations(actor, workspaceId),
    };
    const table: Record<string, string[]> = {};
    for (const [name, action] of Object.entries(actions)) {
      table[name] = [];
      for (const actor of [member, admin, owner]) table[name].push(await outcome(() => action(actor)));
    }
    assert.deepEqual(table, {
      'read monitors': ['allowed', 'allowed', 'allowed'],
      'create a monitor': ['allowed', 'allowed', 'allowed'],
      'create a status page': ['allowed', 'allowed', 'allowed'],
      'create a channel': ['needs admin', 'allowed', 'allowed'],
      'create a private location': ['needs admin', 'allowed', 'allowed'],
      'create an API key': ['needs admin', 'allowed', 'allowed'],
      'invite a member': ['needs admin', 'allowed', 'allowed'],
      'invite an owner': ['needs admin', 'needs owner', 'allowed'],
      'list invitations': ['needs admin', 'allowed', 'allowed'],
    });
  });

  test('an admin cannot make or unmake an owner; the last owner stays; anyone may leave', async () => {
    const { workspaceId, owner, member, admin } = await team('roles-owners');
    const { members } = service.services;
    assert.equal(await outcome(() => members.changeRole(admin, workspaceId, idOf(member), { role: 'owner' })), 'needs owner');
    assert.equal(await outcome(() => members.changeRole(admin, workspaceId, String(service.ownerId), { role: 'member' })), 'needs owner');
    assert.equal(await outcome(() => members.changeRole(admin, workspaceId, idOf(member), { role: 'admin' })), 'allowed');
    await assert.rejects(members.changeRole(owner, workspaceId, String(service.ownerId), { role: 'admin' }), /last owner/);
    await assert.rejects(members.remove(owner, workspaceId, String(service.ownerId)), /last owner/);
    // A member leaves on their own.
    const { userId } = await members.add(owner, workspaceId, { name: 'leaver', role: 'member' });
    await members.remove(person(userId), workspaceId, userId);
    assert.ok(!(await members.list(owner, workspaceId)).some((m) => m.userId === userId));
  });
});

describe('a credential acts within its person’s role', () => {
  test('a key made by an admin, who is then a member: refused a channel over RPC naming the role, allowed a monitor; revoked with its person (RPC and MCP 401)', async () => {
    const { workspaceId, owner, admin } = await team('roles-key');
    const { members, keys } = service.services;
    const adminId = idOf(admin);
    const { secret } = await keys.create(admin, { workspaceId, name: 'made by the admin', scope: 'write' });
    const api = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: secret, env: {} });
    const channel = () =>
      api.notifications.createNotificationChannel({ name: 'Pager', config: { case: 'webhook', value: { url: WEBHOOK.url, secret: WEBHOOK.secret } } });

    await channel();
    await members.changeRole(owner, workspaceId, adminId, { role: 'member' });
    await assertCode(channel(), Code.PermissionDenied, /needs the admin role in this workspace \(or owner\); you are a member/);
    await api.monitors.createTCPMonitor({
      monitor: { name: 'still allowed', uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1H, regions: ['iad'] },
    });
    await members.changeRole(owner, workspaceId, adminId, { role: 'admin' });
    await channel();

    const mcp = await connectMcp(service.apiUrl, MODERN_ERA, secret);
    try {
      const listed = await mcp.call('list_monitors', {});
      assert.ok(!listed.isError);
    } finally {
      await mcp.close();
    }

    await members.remove(owner, workspaceId, adminId);
    await assertCode(api.monitors.listMonitors({}), Code.Unauthenticated);
    const mcpAnswer = await fetch(`${service.apiUrl}/mcp`, {
      method: 'POST',
      headers: { 'x-service-key': secret, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(mcpAnswer.status, 401);
    const revoked = await queryRows<{ action: string }>(
      service.dataDir,
      "select action from audit_log where workspace_id = ? and entity_type = 'api_key' and action = 'api_key.revoke'",
      workspaceId,
    );
    assert.equal(revoked.length, 1, 'the key’s revocation is audited');
  });
});
