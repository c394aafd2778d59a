import type { Context } from 'hono';
import type { Actor } from '../domain/actor.ts';
import { AppError } from '../errors.ts';
import type { AppEnv, HonoApp } from '../http/hono-app.ts';
import type { Services } from '../services.ts';
import { jsonBodyOf, jsonRoute } from './json-route.ts';
import { workspaceIdOf } from './route-params.ts';
import { sessionHalves, setSessionCookie } from './session-cookie.ts';

export interface MemberRoutesOptions {
  services: Services;
  /** Refuses a change that does not come from one of the dashboard's own pages. */
  fromOwnPage(c: Context<AppEnv>): void;
}

/**
 * A workspace's people in the dashboard (members, roles, invitations), a person's own sessions,
 * and the invitation link's two steps, which need no session: its preview and its acceptance, which
 * opens one. Every rule is the member and session services' own.
 */
export function registerMemberRoutes(app: HonoApp, { services, fromOwnPage }: MemberRoutesOptions): void {
  const actorOf = (c: Context<AppEnv>): Actor => c.get('actor');

  jsonRoute(app, 'members', async (c) => {
    const actor = actorOf(c);
    const workspaceId = workspaceIdOf(c);
    const members = await services.members.list(actor, workspaceId);
    const userId = actor.type === 'user' ? String(actor.userId) : '';
    const you = members.find((m) => m.userId === userId);
    if (!you) throw new AppError('FORBIDDEN', 'only people signed in to the dashboard have a role here');
    return { members, you: { userId, role: you.role } };
  });
  jsonRoute(app, 'changeRole', async (c) => ({
    member: await services.members.changeRole(actorOf(c), workspaceIdOf(c), c.req.param('userId') ?? '', await jsonBodyOf(c)),
  }));
  jsonRoute(app, 'removeMember', async (c) => {
    await services.members.remove(actorOf(c), workspaceIdOf(c), c.req.param('userId') ?? '');
    return {};
  });
  jsonRoute(app, 'invitations', async (c) => ({ invitations: await services.members.invitations(actorOf(c), workspaceIdOf(c)) }));
  jsonRoute(
    app,
    'invite',
    async (c) => {
      const { invitation, token } = await services.members.invite(actorOf(c), workspaceIdOf(c), await jsonBodyOf(c));
      // The link is on the address the inviter's page is served from (one of the dashboard's own, as fromOwnPage checked).
      return { invitation, link: `${c.req.header('origin')}/invite/${token}` };
    },
    { status: 201 },
  );
  jsonRoute(app, 'revokeInvitation', async (c) => {
    await services.members.revokeInvitation(actorOf(c), workspaceIdOf(c), c.req.param('invitationId') ?? '');
    return {};
  });

  jsonRoute(app, 'sessions', async (c) => ({ sessions: await services.sessions.list(actorOf(c), sessionHalves(c)) }));
  jsonRoute(app, 'endSession', async (c) => {
    await services.sessions.end(actorOf(c), c.req.param('sessionId') ?? '');
    return {};
  });

  jsonRoute(app, 'invitation', async (c) => {
    c.header('cache-control', 'no-store');
    return services.members.preview(c.req.param('token') ?? '');
  });
  jsonRoute(app, 'acceptInvitation', async (c) => {
    fromOwnPage(c);
    const token = c.req.param('token') ?? '';
    const { secret, token: pageToken } = sessionHalves(c);
    // A person signed in already joins with the account they have; anyone else becomes a new person.
    const signedIn = secret && pageToken ? await services.sessions.resolveSession(secret, pageToken) : undefined;
    const person = signedIn?.type === 'user' ? { userId: signedIn.userId } : { name: (await jsonBodyOf(c)).name };
    const joined = await services.members.accept(token, person);
    c.header('cache-control', 'no-store');
    // A person signed in keeps their session: a new cookie would sign out their other tabs of the dashboard.
    if (signedIn?.type === 'user') return { token: pageToken!, workspaceId: String(joined.workspaceId) };
    const session = await services.sessions.open(joined.userId, 'invitation', c.req.header('user-agent'));
    setSessionCookie(c, session.secret);
    return { token: session.token, workspaceId: String(joined.workspaceId) };
  });
}
