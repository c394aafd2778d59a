/**
 * Members, roles and invitations over the real service and real HTTP: an invitation link works
 * once and only while it is pending; each role does what it may and is refused, naming the role
 * it needs, what it may not; the last owner stays; removing a person revokes what acts for them
 * (API keys, OAuth connections), each audited. The owner's local tools (`statusdesk members`) too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Code, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { MonitorService, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { NotificationService } from '../proto/gen/notification/v1/notification_pb.js';
import { queryRows } from './support/database.ts';
import { assertCode, dashboardSession, newWorkspace, runCli, withHeaders } from './support/harness.ts';
import { connectMcp, MODERN_ERA } from './support/mcp-client.ts';
import { connectClient, mcpStatus, bearer, type OAuthTestService, type Owner, type Receiver, startOAuthService, startReceiver } from './support/oauth-peers.ts';

let service: OAuthTestService;
let owner: Record<string, string>;
let receiver: Receiver;

before(async () => {
  service = await startOAuthService();
  owner = await dashboardSession(service);
  receiver = await startReceiver();
});
after(async () => {
  await receiver?.close();
  await service?.stop();
});

type Headers = Record<string, string>;

/** One call of the dashboard's JSON API with `headers` (a session's); a POST sends `body` as JSON. */
async function call(headers: Headers, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: any; response: Response }> {
  const response = await fetch(`${service.dashboardUrl}${path}`, {
    method,
    headers: { ...headers, ...(method === 'POST' ? { 'content-type': 'application/json', origin: service.dashboardUrl } : {}) },
    body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, response };
}

/** An invitation to `workspaceId` made by `headers`' person: its link's token. */
async function invite(headers: Headers, workspaceId: string, body: Record<string, unknown> = {}): Promise<{ token: string; id: string; link: string }> {
  const answer = await call(headers, 'POST', `/api/workspaces/${workspaceId}/invitations`, { role: 'member', ...body });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  const link: string = answer.body.link;
  return { token: link.split('/invite/')[1]!, id: answer.body.invitation.id, link };
}

/** Accepts an invitation as a new person named `name`: the session's headers and the person's id. */
async function join(token: string, name: string): Promise<{ headers: Headers; userId: string }> {
  const answer = await call({}, 'POST', `/invite/${token}/accept`, { name });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  const cookie = answer.response.headers.getSetCookie()[0]?.split(';')[0];
  assert.ok(cookie, 'the acceptance sets the session cookie');
  const headers = { cookie, 'x-statusdesk-session': answer.body.token, origin: service.dashboardUrl };
  const session = await call(headers, 'GET', '/api/session');
  assert.equal(session.status, 200);
  return { headers, userId: session.body.user.id };
}

/** A workspace of the owner's with a person of `role` in it, joined through an invitation. */
async function workspaceWith(role: 'member' | 'admin' | 'owner', name = `Person ${role}`) {
  const ws = await newWorkspace(service, 'team');
  const { token } = await invite(owner, ws.id, { role });
  return { ws, ...(await join(token, name)) };
}

const personOf = (userId: string): Owner => ({ type: 'user', userId: Number(userId), surface: 'dashboard' });

/** The dashboard's RPC services as a signed-in person's page calls them, about `workspaceId`. */
function dashboardRpc(headers: Headers, workspaceId: string) {
  const transport = createConnectTransport({
    baseUrl: `${service.dashboardUrl}/rpc`,
    httpVersion: '1.1',
    interceptors: [withHeaders({ ...headers, 'x-statusdesk-workspace': workspaceId })],
  });
  return { notifications: createClient(NotificationService, transport), monitors: createClient(MonitorService, transport) };
}

/** The API port's RPC services called with an API key. */
function keyRpc(key: string) {
  const transport = createConnectTransport({ baseUrl: `${service.apiUrl}/rpc`, httpVersion: '1.1', interceptors: [withHeaders({ 'x-service-key': key })] });
  return { notifications: createClient(NotificationService, transport), monitors: createClient(MonitorService, transport) };
}

const desktopChannel = (name: string) => ({ name, config: { case: 'desktop' as const, value: {} } });

describe('invitations', () => {
  test('a new person accepts with a name: a session opens in the workspace, and the link is used up', async () => {
    const ws = await newWorkspace(service, 'invite');
    const { token, link } = await invite(owner, ws.id, { role: 'member', note: 'Ana from support', expiresInHours: 24 });
    assert.equal(link, `${service.dashboardUrl}/invite/${token}`);
    assert.match(token, /^inv_/);

    const preview = await call({}, 'GET', `/invite/${token}/preview`);
    assert.equal(preview.status, 200);
    assert.equal(preview.body.workspaceName, ws.slug);
    assert.equal(preview.body.role, 'member');
    assert.ok(preview.body.invitedBy, 'the preview names who invited');
    assert.equal(preview.response.headers.get('cache-control'), 'no-store');

    const accepted = await call({}, 'POST', `/invite/${token}/accept`, { name: 'Ana' });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.equal(accepted.body.workspaceId, ws.id);
    const cookie = accepted.response.headers.getSetCookie()[0]!;
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Strict/i);
    const ana = { cookie: cookie.split(';')[0]!, 'x-statusdesk-session': accepted.body.token, origin: service.dashboardUrl };
    const session = await call(ana, 'GET', '/api/session');
    assert.equal(session.status, 200);
    assert.equal(session.body.user.name, 'Ana');
    assert.deepEqual(
      session.body.workspaces.map((w: { id: string }) => w.id),
      [ws.id],
      'the new person is in the workspace joined, and only there',
    );
    // The cookie alone, or the token alone, is no session.
    assert.equal((await call({ cookie: ana.cookie }, 'GET', '/api/session')).status, 401);
    assert.equal((await call({ 'x-statusdesk-session': ana['x-statusdesk-session'] }, 'GET', '/api/session')).status, 401);

    const members = await call(owner, 'GET', `/api/workspaces/${ws.id}/members`);
    assert.ok(members.body.members.some((m: { name: string; role: string }) => m.name === 'Ana' && m.role === 'member'));
    const listed = await call(owner, 'GET', `/api/workspaces/${ws.id}/invitations`);
    const invitation = listed.body.invitations[0];
    assert.equal(invitation.state, 'accepted');
    assert.equal(invitation.acceptedBy, 'Ana');
    assert.equal(invitation.note, 'Ana from support');

    const again = await call({}, 'POST', `/invite/${token}/accept`, { name: 'Mallory' });
    assert.equal(again.status, 401);
    assert.match(again.body.message, /already used/);
    assert.equal(again.response.headers.getSetCookie().length, 0, 'a refused link opens no session');
    assert.match((await call({}, 'GET', `/invite/${token}/preview`)).body.message, /already used/);

    const audit = await queryRows<{ action: string }>(
      service.dataDir,
      "SELECT action FROM audit_log WHERE workspace_id = ? AND action IN ('invitation.create', 'membership.create') ORDER BY id",
      Number(ws.id),
    );
    assert.deepEqual(
      audit.map((a) => a.action),
      ['invitation.create', 'membership.create'],
    );
  });

  test('an expired, a withdrawn and an unknown link are refused, each saying why', async () => {
    const ws = await newWorkspace(service, 'refused');
    const expired = await invite(owner, ws.id, { expiresInHours: 1 });
    await queryRows(service.dataDir, 'UPDATE invitations SET expires_at = ? WHERE id = ?', new Date(Date.now() - 60_000).toISOString(), Number(expired.id));
    for (const answer of [
      await call({}, 'GET', `/invite/${expired.token}/preview`),
      await call({}, 'POST', `/invite/${expired.token}/accept`, { name: 'Late' }),
    ]) {
      assert.equal(answer.status, 401);
      assert.match(answer.body.message, /expired/);
    }

    const withdrawn = await invite(owner, ws.id);
    assert.equal((await call(owner, 'POST', `/api/workspaces/${ws.id}/invitations/${withdrawn.id}/revoke`)).status, 200);
    const refused = await call({}, 'POST', `/invite/${withdrawn.token}/accept`, { name: 'Withdrawn' });
    assert.equal(refused.status, 401);
    assert.match(refused.body.message, /withdrawn/);
    // Withdrawing twice says what it is.
    const twice = await call(owner, 'POST', `/api/workspaces/${ws.id}/invitations/${withdrawn.id}/revoke`);
    assert.equal(twice.status, 400);
    assert.equal(twice.body.code, 'PRECONDITION_FAILED');
    assert.match(twice.body.message, /already revoked/);

    const unknown = await call({}, 'GET', '/invite/inv_notatoken/preview');
    assert.equal(unknown.status, 401);
    assert.match(unknown.body.message, /not one of this service/);

    const states = (await call(owner, 'GET', `/api/workspaces/${ws.id}/invitations`)).body.invitations.map((i: { state: string }) => i.state).sort();
    assert.deepEqual(states, ['expired', 'revoked']);
    const members = await call(owner, 'GET', `/api/workspaces/${ws.id}/members`);
    assert.equal(members.body.members.length, 1, 'nobody joined');
  });

  test('a person signed in already joins with their account, not as a new person', async () => {
    const { ws: first, headers, userId } = await workspaceWith('member', 'Bea');
    const second = await newWorkspace(service, 'second');
    const { token } = await invite(owner, second.id, { role: 'admin' });
    const joined = await call(headers, 'POST', `/invite/${token}/accept`, {});
    assert.equal(joined.status, 200, JSON.stringify(joined.body));
    assert.equal(joined.body.workspaceId, second.id);
    // The session stays the one the person has: a new cookie would sign out their other tabs.
    assert.equal(joined.response.headers.getSetCookie().length, 0);
    assert.equal(joined.body.token, headers['x-statusdesk-session']);
    const session = await call(headers, 'GET', '/api/session');
    assert.equal(session.body.user.id, userId);
    assert.deepEqual(session.body.workspaces.map((w: { id: string }) => w.id).sort(), [first.id, second.id].sort());
    const members = await call(owner, 'GET', `/api/workspaces/${second.id}/members`);
    assert.ok(members.body.members.some((m: { userId: string; role: string }) => m.userId === userId && m.role === 'admin'));
    // Joining twice is refused, saying why.
    const again = await call(headers, 'POST', `/invite/${(await invite(owner, second.id)).token}/accept`, {});
    assert.equal(again.status, 409);
    assert.match(again.body.message, /already a member/);
  });
});

describe('roles', () => {
  test('a member reads and manages monitors, but cannot invite or create a channel: the refusal names the admin role', async () => {
    const { ws, headers } = await workspaceWith('member');
    const you = await call(headers, 'GET', `/api/workspaces/${ws.id}/members`);
    assert.equal(you.body.you.role, 'member');

    const refused = await call(headers, 'POST', `/api/workspaces/${ws.id}/invitations`, { role: 'member' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'FORBIDDEN');
    assert.match(refused.body.message, /needs the admin role in this workspace \(or owner\); you are a member/);
    assert.equal((await call(headers, 'GET', `/api/workspaces/${ws.id}/invitations`)).status, 403);

    const rpc = dashboardRpc(headers, ws.id);
    await assertCode(rpc.notifications.createNotificationChannel(desktopChannel('Pager')), Code.PermissionDenied, /admin role/);
    const { monitor } = await rpc.monitors.createTCPMonitor({
      monitor: { name: 'by a member', uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M },
    });
    assert.ok(monitor?.id, 'a member creates monitors');
    const channels = await rpc.notifications.listNotificationChannels({});
    assert.ok(Array.isArray(channels.channels), 'a member reads channels');
  });

  test('an admin creates channels and invites, but makes no owner', async () => {
    const { ws, headers } = await workspaceWith('admin');
    const { channel } = await dashboardRpc(headers, ws.id).notifications.createNotificationChannel(desktopChannel('Desk'));
    assert.ok(channel?.id);
    await invite(headers, ws.id, { role: 'admin' });

    const asOwner = await call(headers, 'POST', `/api/workspaces/${ws.id}/invitations`, { role: 'owner' });
    assert.equal(asOwner.status, 403);
    assert.match(asOwner.body.message, /needs the owner role/);

    const { userId: memberId } = await join((await invite(owner, ws.id)).token, 'Colleague');
    const promote = await call(headers, 'POST', `/api/workspaces/${ws.id}/members/${memberId}/role`, { role: 'owner' });
    assert.equal(promote.status, 403);
    assert.match(promote.body.message, /needs the owner role/);
    const ownerId = (await call(owner, 'GET', `/api/workspaces/${ws.id}/members`)).body.you.userId;
    const demoteOwner = await call(headers, 'POST', `/api/workspaces/${ws.id}/members/${ownerId}/role`, { role: 'member' });
    assert.equal(demoteOwner.status, 403, 'an admin cannot demote an owner');
    const removeOwner = await call(headers, 'POST', `/api/workspaces/${ws.id}/members/${ownerId}/remove`);
    assert.equal(removeOwner.status, 403, 'an admin cannot remove an owner');
    const admin = await call(headers, 'POST', `/api/workspaces/${ws.id}/members/${memberId}/role`, { role: 'admin' });
    assert.equal(admin.status, 200);
    assert.equal(admin.body.member.role, 'admin');
  });

  test('the last owner can be neither demoted nor removed, until there is another', async () => {
    const { ws, userId: otherId } = await workspaceWith('admin');
    const ownerId = (await call(owner, 'GET', `/api/workspaces/${ws.id}/members`)).body.you.userId;
    const demote = await call(owner, 'POST', `/api/workspaces/${ws.id}/members/${ownerId}/role`, { role: 'admin' });
    assert.equal(demote.status, 400);
    assert.equal(demote.body.code, 'PRECONDITION_FAILED');
    assert.match(demote.body.message, /last owner/);
    const leave = await call(owner, 'POST', `/api/workspaces/${ws.id}/members/${ownerId}/remove`);
    assert.equal(leave.status, 400);
    assert.match(leave.body.message, /last owner/);

    assert.equal((await call(owner, 'POST', `/api/workspaces/${ws.id}/members/${otherId}/role`, { role: 'owner' })).status, 200);
    const now = await call(owner, 'POST', `/api/workspaces/${ws.id}/members/${ownerId}/role`, { role: 'admin' });
    assert.equal(now.status, 200, 'with a second owner, the first may step down');
  });
});

describe('removing a member', () => {
  test("revokes the person's API keys and OAuth connections in the workspace, each audited; their session stays, without the workspace", async () => {
    const { ws, headers, userId } = await workspaceWith('admin', 'Dana');
    // An admin makes a key; as a member again, the key acts within the member's role.
    const created = await call(headers, 'POST', `/api/workspaces/${ws.id}/keys`, { name: 'Dana laptop', scope: 'write' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const key: string = created.body.secret;
    const { tokens, grantId } = await connectClient({ ...service, owner: personOf(userId), personalId: Number(ws.id) }, receiver, {
      decision: { decide: 'approve', workspaceId: Number(ws.id), access: 'write' },
    });
    assert.equal(await mcpStatus(service.apiUrl, bearer(tokens.access_token)), 200);
    assert.equal((await call(owner, 'POST', `/api/workspaces/${ws.id}/members/${userId}/role`, { role: 'member' })).status, 200);

    await assertCode(keyRpc(key).notifications.createNotificationChannel(desktopChannel('By key')), Code.PermissionDenied, /admin role/);
    const mcp = await connectMcp(service.apiUrl, MODERN_ERA, key);
    try {
      const read = await mcp.call('list_notifications', {});
      assert.ok(!read.isError, JSON.stringify(read.content));
    } finally {
      await mcp.close();
    }

    const removed = await call(owner, 'POST', `/api/workspaces/${ws.id}/members/${userId}/remove`);
    assert.equal(removed.status, 200, JSON.stringify(removed.body));

    await assertCode(keyRpc(key).monitors.listMonitors({}), Code.Unauthenticated);
    assert.equal(await mcpStatus(service.apiUrl, bearer(tokens.access_token)), 401);

    const audit = await queryRows<{ action: string; entity_id: string | number }>(
      service.dataDir,
      "SELECT action, entity_id FROM audit_log WHERE workspace_id = ? AND action IN ('api_key.revoke', 'oauth_grant.delete', 'membership.delete') ORDER BY id",
      Number(ws.id),
    );
    assert.deepEqual(
      audit.map((a) => a.action),
      ['oauth_grant.delete', 'api_key.revoke', 'membership.delete'],
    );
    assert.equal(String(audit[0]!.entity_id), String(grantId));
    assert.equal(String(audit[1]!.entity_id), created.body.key.id);

    // The removed person's session is theirs still, without the workspace, whose calls are refused as not found.
    const session = await call(headers, 'GET', '/api/session');
    assert.equal(session.status, 200);
    assert.deepEqual(session.body.workspaces, []);
    assert.equal((await call(headers, 'GET', `/api/workspaces/${ws.id}/members`)).status, 404);
  });

  test('a member may leave; a member may not remove anyone else', async () => {
    const { ws, headers, userId } = await workspaceWith('member');
    const { userId: otherId } = await join((await invite(owner, ws.id)).token, 'Other');
    const refused = await call(headers, 'POST', `/api/workspaces/${ws.id}/members/${otherId}/remove`);
    assert.equal(refused.status, 403);
    assert.match(refused.body.message, /admin role/);
    assert.equal((await call(headers, 'POST', `/api/workspaces/${ws.id}/members/${userId}/remove`)).status, 200);
    assert.equal((await call(headers, 'GET', `/api/workspaces/${ws.id}/members`)).status, 404);
  });
});

describe('statusdesk members', () => {
  test('list, invite (the link printed once), role and remove, on the data folder as its owner', async () => {
    const ws = await newWorkspace(service, 'cli');
    const args = ['--workspace', ws.slug, '--data-dir', service.dataDir];

    const invited = await runCli(['members', 'invite', '--role', 'admin', '--note', 'Eve', '--expires', '2d', ...args]);
    assert.equal(invited.code, 0, invited.stderr);
    const link = invited.stdout.trim();
    // The service running on the folder gives the link its address.
    assert.match(link, new RegExp(`^${service.dashboardUrl}/invite/inv_[A-Za-z0-9_-]+$`));
    assert.match(invited.stderr, /works once/);
    const { userId } = await join(link.split('/invite/')[1]!, 'Eve');
    const listed = await call(owner, 'GET', `/api/workspaces/${ws.id}/invitations`);
    const hours = (Date.parse(listed.body.invitations[0].expiresAt) - Date.parse(listed.body.invitations[0].createdAt)) / 3_600_000;
    assert.equal(hours, 48);

    const list = await runCli(['members', 'list', '--json', ...args]);
    assert.equal(list.code, 0, list.stderr);
    const members = JSON.parse(list.stdout);
    assert.deepEqual(members.map((m: { name: string; role: string }) => m.role).sort(), ['admin', 'owner']);
    assert.ok(members.some((m: { userId: string; name: string }) => m.userId === userId && m.name === 'Eve'));
    const table = await runCli(['members', 'list', ...args]);
    assert.match(table.stdout, /ID\s+NAME\s+ROLE\s+JOINED/);

    const role = await runCli(['members', 'role', userId, 'member', ...args]);
    assert.equal(role.code, 0, role.stderr);
    assert.match(role.stderr, /Eve .* is now a member/);
    const badRole = await runCli(['members', 'role', userId, 'boss', ...args]);
    assert.notEqual(badRole.code, 0);
    assert.match(badRole.stderr, /member, admin, owner/);

    const unasked = await runCli(['members', 'remove', userId, ...args]);
    assert.notEqual(unasked.code, 0);
    assert.match(unasked.stderr, /--yes/);
    const removed = await runCli(['members', 'remove', userId, '--yes', ...args]);
    assert.equal(removed.code, 0, removed.stderr);
    const after = JSON.parse((await runCli(['members', 'list', '--json', ...args])).stdout);
    assert.equal(after.length, 1);

    const ownerId = after[0].userId;
    const last = await runCli(['members', 'remove', ownerId, '--yes', ...args]);
    assert.notEqual(last.code, 0);
    assert.match(last.stderr, /last owner/);
  });
});
