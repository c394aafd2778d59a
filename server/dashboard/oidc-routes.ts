import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { Logger } from 'pino';
import { createOidcSignIn, type OidcRefusal, type OidcSettings, PENDING_TTL_MS } from '../domain/users/oidc.ts';
import type { AppEnv, HonoApp } from '../http/hono-app.ts';
import { STATUS_PAGE_CSP } from '../public/html-document.ts';
import { renderNoticePage } from '../public/notice-page.ts';
import type { Services } from '../services.ts';
import { setSessionCookie } from './session-cookie.ts';

/** Where a sign-in with the organisation's provider starts; `?invitation=<token>` joins the invitation's workspace. */
export const OIDC_START_PATH = '/signin/oidc';
/** Where the provider sends the browser back: `<dashboard origin>/signin/oidc/callback`, registered at the provider. */
export const OIDC_CALLBACK_PATH = '/signin/oidc/callback';
/**
 * The cookie binding a sign-in to the browser that started it: a random id, for the time a sign-in
 * may take. SameSite=Lax, as the provider sends the browser back with a top-level GET from its own site.
 */
const PENDING_COOKIE = 'statusdesk_oidc';

export interface OidcRoutesOptions {
  services: Services;
  /** The provider, when one is set up (STATUSDESK_OIDC_*); without it, neither route exists. */
  oidc?: OidcSettings;
  /** The dashboard's address (DASHBOARD_URL), whose callback is registered at the provider. */
  dashboardUrl: string;
  log: Logger;
  /** The UI's page, signed in with the page's half of a new session (as the one-time link's answer is). */
  signedInPage(token: string): Promise<string>;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Sign-in with the organisation's OpenID Connect provider: `GET /signin/oidc` sends the browser to
 * the provider, `GET /signin/oidc/callback` takes its answer and opens a session (see
 * server/domain/users/oidc.ts). Every outcome is a page: the signed-in app, or why not.
 */
export function registerOidcRoutes(app: HonoApp, options: OidcRoutesOptions): void {
  const { oidc, services, dashboardUrl, log } = options;
  if (!oidc) return;
  const dashboard = new URL(dashboardUrl);
  const signIn = createOidcSignIn(services, { ...oidc, redirectUri: `${dashboard.origin}${OIDC_CALLBACK_PATH}` });

  const refusalPage = (c: Context<AppEnv>, refusal: OidcRefusal) => {
    if (refusal.cause) log.warn({ err: refusal.cause }, 'a sign-in with the OpenID Connect provider failed');
    c.header('content-security-policy', STATUS_PAGE_CSP);
    c.header('cache-control', 'no-store');
    c.header('referrer-policy', 'no-referrer');
    return c.html(renderNoticePage({ title: 'Statusdesk', heading: refusal.heading, message: refusal.message }), refusal.unavailable ? 503 : 401);
  };

  app.get(OIDC_START_PATH, async (c) => {
    c.header('cache-control', 'no-store');
    // The address of the invitation stays out of the provider's logs.
    c.header('referrer-policy', 'no-referrer');
    // The provider sends the browser back to the dashboard's own address, whose cookie must be the
    // one set here: a browser on another loopback name of this port starts there instead.
    const here = new URL(c.req.url);
    if (here.host !== dashboard.host && LOOPBACK.has(here.hostname) && LOOPBACK.has(dashboard.hostname) && here.port === dashboard.port) {
      return c.redirect(`${dashboard.origin}${OIDC_START_PATH}${here.search}`, 302);
    }
    const invitation = c.req.query('invitation');
    const started = await signIn.start({ browser: getCookie(c, PENDING_COOKIE), ...(invitation ? { invitation } : {}) });
    if (!started.ok) return refusalPage(c, started);
    setCookie(c, PENDING_COOKIE, started.browser, {
      httpOnly: true,
      sameSite: 'Lax',
      secure: dashboard.protocol === 'https:',
      path: OIDC_START_PATH,
      maxAge: PENDING_TTL_MS / 1000,
    });
    return c.redirect(started.url, 302);
  });

  app.get(OIDC_CALLBACK_PATH, async (c) => {
    c.header('cache-control', 'no-store');
    // The address holds the provider's code: it goes nowhere else.
    c.header('referrer-policy', 'no-referrer');
    const outcome = await signIn.finish({
      query: new URL(c.req.url).searchParams,
      browser: getCookie(c, PENDING_COOKIE),
      userAgent: c.req.header('user-agent'),
    });
    if (!outcome.ok) return refusalPage(c, outcome);
    setSessionCookie(c, outcome.session.secret);
    // The page's half of the session travels in this answer's body, as the one-time link's does.
    return c.html(await options.signedInPage(outcome.session.token));
  });
}
