import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { OAuthScope } from '../db/schema.ts';
import type { Actor } from '../domain/actor.ts';
import { CONSENT_TTL_MS, type ConsentRequestView } from '../domain/oauth/consent.ts';
import { derivedSecret, sameSecret } from '../domain/secrets.ts';
import { parseId } from '../domain/validation.ts';
import type { Services } from '../services.ts';
import { AppError } from '../errors.ts';
import type { AppEnv, HonoApp } from '../http/hono-app.ts';
import { errorPage } from '../oauth/error-page.ts';
import { jsonRoute } from './json-route.ts';

/** The cookie that binds one consent request to the browser that made it. */
const bindingCookie = (requestId: string) => `statusdesk_consent_${requestId}`;
const REQUEST_ID = /^[A-Za-z0-9_-]{22}$/;

/**
 * The anti-forgery token of a decision: bound to the page's half of the dashboard session (never
 * the cookie, which other local servers receive) and the request, so only a page that could read
 * the request with that session can approve or deny it.
 */
function csrfToken(pageToken: string, requestId: string): string {
  return derivedSecret(pageToken, `consent:${requestId}`);
}

function checkCsrf(pageToken: string, requestId: string, given: unknown): void {
  if (typeof given !== 'string' || !sameSecret(given, csrfToken(pageToken, requestId))) {
    throw new AppError('FORBIDDEN', 'csrfToken: missing or not valid for this session and request; reload the page');
  }
}

export interface ConsentRoutesOptions {
  services: Services;
  /** The page's half of the dashboard session a request carries. */
  pageToken(c: Context<AppEnv>): string;
  /** The signed-in person of a request, if any. */
  personOf(c: Context<AppEnv>): Promise<Actor | undefined>;
}

async function readBody(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  try {
    const body: unknown = await c.req.json();
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new AppError('VALIDATION', 'the request body must be a JSON object');
}

/**
 * The dashboard's side of consent: the ticket that binds a browser, the request as the consent
 * page sees it, and the decisions of a signed-in person (SPEC 5.2, step 3).
 */
export function registerConsentRoutes(app: HonoApp, options: ConsentRoutesOptions): void {
  const { services, pageToken } = options;

  /** A request decorated for a signed-in person: the anti-forgery token and the workspaces to choose from. */
  async function forPerson(c: Context<AppEnv>, request: ConsentRequestView, person: Actor | undefined) {
    if (!request.canDecide || person?.type !== 'user') return request;
    const workspaces = await services.workspaces.listWithRoles(person);
    const user = await services.users.get(person.userId);
    return { ...request, csrfToken: csrfToken(pageToken(c), request.id), workspaces, approver: { userId: String(person.userId), name: user?.name ?? '' } };
  }

  // The ticket from /oauth/authorize becomes this browser's cookie, and leaves the address at once.
  app.use('/oauth/consent', async (c, next) => {
    const ticket = c.req.query('ticket');
    if (ticket === undefined) return next();
    const redeemed = await services.oauth.redeemTicket(ticket);
    if (!redeemed) return errorPage('invalid_request', 'This consent link was already used or has expired. Start connecting again from the app.');
    setCookie(c, bindingCookie(redeemed.id), redeemed.browserSecret, {
      httpOnly: true,
      sameSite: 'Lax',
      path: '/oauth/consent',
      maxAge: Math.floor((2 * CONSENT_TTL_MS) / 1000),
    });
    c.header('cache-control', 'no-store');
    c.header('referrer-policy', 'no-referrer');
    return c.redirect(`/oauth/consent?request=${redeemed.id}`, 303);
  });

  jsonRoute(app, 'consentRequest', async (c) => {
    const id = c.req.param('id') ?? '';
    if (!REQUEST_ID.test(id)) throw new AppError('NOT_FOUND', `consent request ${id} does not exist`);
    const person = await options.personOf(c);
    const request = await services.oauth.view(id, { browserSecret: getCookie(c, bindingCookie(id)), person });
    c.header('cache-control', 'no-store');
    return forPerson(c, request, person);
  });

  jsonRoute(app, 'pendingRequests', async (c) => {
    const person = c.get('actor');
    const requests = await services.oauth.pending(person);
    return { requests: await Promise.all(requests.map((r) => forPerson(c, r, person))) };
  });

  jsonRoute(app, 'approve', async (c) => {
    const id = c.req.param('id') ?? '';
    const body = await readBody(c);
    checkCsrf(pageToken(c), id, body.csrfToken);
    const workspaceId = body.workspaceId === undefined ? undefined : parseId('workspaceId', 'workspace', body.workspaceId);
    const person = c.get('actor');
    const approved = await services.oauth.approve(person, { id }, { workspaceId, access: body.access as OAuthScope | undefined });
    return forPerson(c, approved, person);
  });

  jsonRoute(app, 'deny', async (c) => {
    const id = c.req.param('id') ?? '';
    const body = await readBody(c);
    checkCsrf(pageToken(c), id, body.csrfToken);
    const person = c.get('actor');
    return forPerson(c, await services.oauth.deny(person, { id }), person);
  });
}
