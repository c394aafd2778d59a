import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Logger } from 'pino';
import { SESSION_TTL_MS } from '../domain/sessions/sessions.ts';
import type { Services } from '../domain/services.ts';
import { AppError } from '../errors.ts';
import { type AppEnv, createHonoApp } from '../http/hono-app.ts';
import { registerConsentRoutes } from './consent-routes.ts';
import { registerUi } from './ui-routes.ts';

export const SESSION_COOKIE = 'statusdesk_session';
/** The header in which the page sends its half of the session (see sessionToken). */
export const SESSION_TOKEN_HEADER = 'x-statusdesk-session';

/**
 * Every dashboard answer: scripts, styles and connections only from the dashboard itself, and no
 * page inside a frame, so no other site can script or overlay the consent screen.
 */
export const DASHBOARD_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
} as const;

export interface DashboardAppOptions {
  services: Services;
  /** The dashboard's own origins: changes are accepted only from them. */
  origins: string[];
  log: Logger;
  docsBase: string;
  maxBodyBytes: number;
}

async function readJson(c: Context<AppEnv>): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new AppError('VALIDATION', 'the request body is not valid JSON');
  }
}

function workspaceIdParam(c: Context<AppEnv>): number {
  const id = Number(c.req.param('workspaceId'));
  if (!Number.isSafeInteger(id) || id <= 0) throw new AppError('NOT_FOUND', `workspace ${c.req.param('workspaceId')} does not exist`);
  return id;
}

/**
 * The dashboard's own port: the one-time sign-in link, the session cookie, and the JSON API the
 * desktop UI uses for what only the owner's local tools may do (issuing and revoking API keys).
 */
export function createDashboardApp(options: DashboardAppOptions) {
  const { services } = options;
  const personOf = async (c: Context<AppEnv>) => {
    const secret = getCookie(c, SESSION_COOKIE);
    const token = c.req.header(SESSION_TOKEN_HEADER);
    return secret && token ? services.sessions.resolveSession(secret, token) : undefined;
  };
  const origins = new Set(options.origins.map((o) => o.toLowerCase()));
  const app = createHonoApp({
    ...options,
    authenticate: {
      path: '/api/*',
      async actor(c) {
        const actor = await personOf(c);
        if (!actor) throw new AppError('UNAUTHORIZED', 'not signed in: open the sign-in link that statusdesk serve printed');
        return actor;
      },
    },
  });
  app.use(async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(DASHBOARD_SECURITY_HEADERS)) c.res.headers.set(name, value);
  });
  // A change comes only from the dashboard's own pages: JSON (a form or text/plain body is what a
  // cross-site request can send without asking) from the dashboard's exact origin.
  app.use('/api/*', async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const origin = c.req.header('origin');
      if (!origin || !origins.has(origin.toLowerCase())) throw new AppError('FORBIDDEN', `changes are accepted only from the dashboard's own pages (origin ${origin ?? '(none)'})`);
      const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') throw new AppError('VALIDATION', `content-type: must be application/json, got ${type || '(none)'}`, [{ field: 'content-type', rule: 'must be application/json' }]);
    }
    await next();
  });

  app.get('/signin', async (c) => {
    const session = await services.sessions.redeemSignIn(c.req.query('token') ?? '');
    if (!session) {
      return c.html('<!doctype html><title>Statusdesk</title><p>This sign-in link has expired or was already used. Restart Statusdesk or run <code>statusdesk serve</code> for a new one.</p>', 401);
    }
    setCookie(c, SESSION_COOKIE, session.secret, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      maxAge: Math.floor(SESSION_TTL_MS / 1000),
    });
    // The page's half of the session travels in the fragment, which no server (and no log) sees.
    c.header('cache-control', 'no-store');
    c.header('referrer-policy', 'no-referrer');
    return c.redirect(`/#session=${session.token}`, 303);
  });

  app.get('/api/session', async (c) => {
    const actor = c.get('actor');
    const user = actor.type === 'user' ? await services.users.get(actor.userId) : undefined;
    return c.json({ ...(user ? { user } : {}), workspaces: await services.workspaces.list(actor) });
  });

  app.post('/api/signout', async (c) => {
    await services.sessions.endSession(getCookie(c, SESSION_COOKIE) ?? '');
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.body(null, 204);
  });

  app.get('/api/workspaces/:workspaceId/keys', async (c) =>
    c.json({ keys: await services.keys.list(c.get('actor'), workspaceIdParam(c)) }),
  );

  app.post('/api/workspaces/:workspaceId/keys', async (c) => {
    const body = (await readJson(c)) as Record<string, unknown> | null;
    const created = await services.keys.create(c.get('actor'), { ...(body ?? {}), workspaceId: workspaceIdParam(c) } as never);
    return c.json(created, 201);
  });

  app.post('/api/keys/:keyId/revoke', async (c) => c.json({ key: await services.keys.revoke(c.get('actor'), c.req.param('keyId')) }));

  app.get('/api/workspaces/:workspaceId/connections', async (c) =>
    c.json({ connections: await services.connections.list(c.get('actor'), workspaceIdParam(c)) }),
  );
  app.get('/api/connections/:connectionId/activity', async (c) =>
    c.json({ entries: await services.connections.activity(c.get('actor'), c.req.param('connectionId')) }),
  );
  app.post('/api/connections/:connectionId/revoke', async (c) =>
    c.json({ connection: await services.connections.revoke(c.get('actor'), c.req.param('connectionId')) }),
  );

  registerConsentRoutes(app, { services, sessionCookie: SESSION_COOKIE, personOf });
  registerUi(app);

  return app;
}
