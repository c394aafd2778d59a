import type { Context } from 'hono';
import { parse as parseCookies } from 'hono/utils/cookie';
import type { Logger } from 'pino';
import { DASHBOARD_API, SESSION_TOKEN_HEADER, SESSION_TOKEN_META, WORKSPACE_HEADER } from '../../contract/dashboard.ts';
import type { Services } from '../services.ts';
import type { OidcSettings } from '../domain/users/oidc.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError } from '../errors.ts';
import { parseId } from '../domain/validation.ts';
import type { ResolveCaller } from '../rpc/auth.ts';
import { type AppEnv, createHonoApp } from '../http/hono-app.ts';
import { STATUS_PAGE_CSP } from '../public/html-document.ts';
import { html } from '../public/markup.ts';
import { renderNoticePage } from '../public/notice-page.ts';
import { registerAuditRoutes } from './audit-routes.ts';
import { registerConfigRoutes } from './config-routes.ts';
import { registerConsentRoutes } from './consent-routes.ts';
import { registerExportRoute } from './export-route.ts';
import { jsonBodyOf, jsonRoute } from './json-route.ts';
import { registerLiveRoutes } from './live-routes.ts';
import { registerMcpServerRoutes } from './mcp-server-routes.ts';
import { registerMonitorViewRoutes } from './monitor-view-routes.ts';
import { registerPagePreviewRoute } from './page-preview-route.ts';
import { workspaceIdOf } from './route-params.ts';
import { clearSessionCookie, SESSION_COOKIE, sessionHalves, setSessionCookie } from './session-cookie.ts';
import { registerMemberRoutes } from './member-routes.ts';
import { registerOidcRoutes } from './oidc-routes.ts';
import { registerPasskeyRoutes } from './passkey-routes.ts';
import { readIndexHtml, registerUi } from './ui-routes.ts';

/**
 * Every dashboard answer: scripts, styles and connections only from the dashboard itself, and no
 * page inside a frame, so no other site can script or overlay the consent screen.
 */
export const DASHBOARD_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
} as const;
/** Every dashboard answer but the sign-in answer, whose address holds a one-time link and says so itself. */
const DEFAULT_REFERRER_POLICY = 'same-origin';

export interface DashboardAppOptions {
  services: Services;
  /** The dashboard's own origins: changes are accepted only from them. */
  origins: string[];
  log: Logger;
  docsBase: string;
  maxBodyBytes: number;
  /** The API port's address, where editors and scripts connect (MCP at `{apiUrl}/mcp`). */
  apiUrl: string;
  /**
   * Where the MCP server import reads the AI editors' files: a home folder (with no environment
   * moving its folders elsewhere) and a project folder. The service user's home and the service's
   * working folder when not given; tests give folders of fixtures.
   */
  editorFolders?: { home: string; project: string };
  /** The dashboard's address (DASHBOARD_URL); the last of `origins` when not given. */
  dashboardUrl?: string;
  /** The organisation's OpenID Connect provider people may sign in with (STATUSDESK_OIDC_*), when one is set up. */
  oidc?: OidcSettings;
}

const NOT_BUILT_PAGE =
  '<!doctype html><html lang="en"><head><title>Statusdesk</title></head><body><p>Signed in. The Statusdesk UI is not built: run npm run build.</p></body></html>';

/** The UI's page with the session token in a meta element, which the app reads once and removes. */
function withSessionToken(html: string, token: string): string {
  const meta = `<meta name="${SESSION_TOKEN_META}" content="${token}">`;
  return html.includes('</head>') ? html.replace('</head>', `${meta}</head>`) : `${meta}${html}`;
}

/** The person of a live dashboard session: the cookie's secret and the page's token, both. */
async function personOf(services: Services, cookieSecret: string | undefined, token: string | undefined): Promise<Actor | undefined> {
  return cookieSecret && token ? services.sessions.resolveSession(cookieSecret, token) : undefined;
}

const notSignedIn = () => new AppError('UNAUTHORIZED', 'not signed in: sign in at /signin, or run statusdesk dashboard at the server for a one-time link');

/**
 * The callers of the RPC services on the dashboard port: the signed-in person, from one of the
 * dashboard's own pages, acting in the workspace the page names (membership is checked by the
 * domain services, as for every other call).
 */
export function dashboardCaller(services: Services, origins: readonly string[]): ResolveCaller {
  const own = new Set(origins.map((o) => o.toLowerCase()));
  return async (headers) => {
    // The Connect protocol itself refuses the bodies another site can send unasked (415).
    requireOwnOrigin(own, headers.get('origin') ?? undefined);
    const secret = parseCookies(headers.get('cookie') ?? '', SESSION_COOKIE)[SESSION_COOKIE];
    const actor = await personOf(services, secret, headers.get(SESSION_TOKEN_HEADER) ?? undefined);
    if (!actor) throw notSignedIn();
    return { actor, workspaceId: parseId(WORKSPACE_HEADER, 'workspace', headers.get(WORKSPACE_HEADER)) };
  };
}

/** Refuses a request that does not carry one of the dashboard's own origins exactly. */
function requireOwnOrigin(origins: ReadonlySet<string>, origin: string | undefined): void {
  if (!origin || !origins.has(origin.toLowerCase()))
    throw new AppError('FORBIDDEN', `changes are accepted only from the dashboard's own pages (origin ${origin ?? '(none)'})`);
}

/**
 * Refuses a change that does not come from one of the dashboard's own pages: it must carry one of
 * `origins` exactly, and a JSON body (a form or text body is what another site can send unasked).
 */
function requireOwnPage(origins: ReadonlySet<string>, origin: string | undefined, contentType: string | undefined): void {
  requireOwnOrigin(origins, origin);
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json')
    throw new AppError('VALIDATION', `content-type: must be application/json, got ${type || '(none)'}`, [
      { field: 'content-type', rule: 'must be application/json' },
    ]);
}

/**
 * The dashboard's own port: the one-time sign-in link, the session cookie, and the JSON API the
 * desktop UI uses for what only the owner's local tools may do (issuing and revoking API keys).
 */
export function createDashboardApp(options: DashboardAppOptions) {
  const { services } = options;
  const personOfPage = (c: Context<AppEnv>) => {
    const { secret, token } = sessionHalves(c);
    return personOf(services, secret, token);
  };
  const origins = new Set(options.origins.map((o) => o.toLowerCase()));
  const app = createHonoApp({
    ...options,
    authenticate: {
      path: '/api/*',
      async actor(c) {
        const actor = await personOfPage(c);
        if (!actor) throw notSignedIn();
        return actor;
      },
    },
  });
  app.use(async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(DASHBOARD_SECURITY_HEADERS)) {
      // A page written here rather than by the UI (the expired sign-in link's) brings its own, stricter policy.
      if (name === 'content-security-policy' && c.res.headers.has(name)) continue;
      c.res.headers.set(name, value);
    }
    if (!c.res.headers.has('referrer-policy')) c.res.headers.set('referrer-policy', DEFAULT_REFERRER_POLICY);
  });
  // A change comes only from the dashboard's own pages: JSON (a form or text/plain body is what a
  // cross-site request can send without asking) from the dashboard's exact origin.
  const fromOwnPage = (c: Context<AppEnv>) => requireOwnPage(origins, c.req.header('origin'), c.req.header('content-type'));
  app.use('/api/*', async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') fromOwnPage(c);
    await next();
  });

  app.get('/signin', async (c) => {
    const link = c.req.query('token');
    // Without a link: the sign-in screen, for people who are not at the server (passkey, OpenID Connect).
    if (link === undefined) {
      c.header('cache-control', 'no-store');
      return c.html((await readIndexHtml()) ?? NOT_BUILT_PAGE);
    }
    const session = await services.sessions.redeemSignIn(link, c.req.header('user-agent'));
    if (!session) {
      // Styled as the other pages the service writes itself, whose policy allows their one stylesheet.
      c.header('content-security-policy', STATUS_PAGE_CSP);
      c.header('cache-control', 'no-store');
      return c.html(
        renderNoticePage({
          title: 'Statusdesk',
          heading: 'This sign-in link can no longer be used',
          message: html`It expired or was already used: a sign-in link works once, within 15 minutes of being made. For a new one, run <code>statusdesk dashboard</code> on this computer, or choose Open Statusdesk in the tray menu of the Statusdesk desktop app.`,
        }),
        401,
      );
    }
    setSessionCookie(c, session.secret);
    // The page's half of the session travels in this answer's body, which only the browser that
    // opened the one-time link reads: never in an address, never in a cookie other ports receive.
    c.header('cache-control', 'no-store');
    c.header('referrer-policy', 'no-referrer');
    return c.html(withSessionToken((await readIndexHtml()) ?? NOT_BUILT_PAGE, session.token));
  });

  jsonRoute(app, 'session', async (c) => {
    const actor = c.get('actor');
    const user = actor.type === 'user' ? await services.users.get(actor.userId) : undefined;
    return {
      ...(user ? { user } : {}),
      workspaces: await services.workspaces.list(actor),
      apiUrl: options.apiUrl,
      mcpUrl: `${options.apiUrl}/mcp`,
      emailAvailable: await services.emailAvailable(),
    };
  });

  app.post(DASHBOARD_API.signOut.path, async (c) => {
    const { secret, token } = sessionHalves(c);
    await services.sessions.endSession(secret, token);
    clearSessionCookie(c);
    return c.body(null, 204);
  });

  jsonRoute(app, 'keys', async (c) => ({ keys: await services.keys.list(c.get('actor'), workspaceIdOf(c)) }));

  jsonRoute(
    app,
    'createKey',
    async (c) => {
      return services.keys.create(c.get('actor'), { ...(await jsonBodyOf(c)), workspaceId: workspaceIdOf(c) } as never);
    },
    { status: 201 },
  );

  jsonRoute(app, 'revokeKey', async (c) => ({ key: await services.keys.revoke(c.get('actor'), c.req.param('keyId') ?? '') }));

  jsonRoute(app, 'connections', async (c) => ({ connections: await services.connections.list(c.get('actor'), workspaceIdOf(c)) }));
  jsonRoute(app, 'activity', async (c) => ({ entries: await services.connections.activity(c.get('actor'), c.req.param('connectionId') ?? '') }));
  jsonRoute(app, 'revokeConnection', async (c) => ({ connection: await services.connections.revoke(c.get('actor'), c.req.param('connectionId') ?? '') }));

  registerMemberRoutes(app, { services, fromOwnPage });
  registerOidcRoutes(app, {
    ...options,
    dashboardUrl: options.dashboardUrl ?? options.origins.at(-1)!,
    signedInPage: async (token) => withSessionToken((await readIndexHtml()) ?? NOT_BUILT_PAGE, token),
  });
  registerPasskeyRoutes(app, { services, fromOwnPage, oidcName: () => options.oidc?.name ?? null });
  registerMonitorViewRoutes(app, options);
  registerAuditRoutes(app, options);
  registerMcpServerRoutes(app, options);
  registerLiveRoutes(app, { ...options, personOf: personOfPage });
  registerExportRoute(app, options);
  registerConfigRoutes(app, options);
  registerPagePreviewRoute(app, options);
  registerConsentRoutes(app, { services, pageToken: (c) => c.req.header(SESSION_TOKEN_HEADER) ?? '', personOf: personOfPage });
  registerUi(app);

  return app;
}
