import type { Context } from 'hono';
import type { Actor } from '../domain/actor.ts';
import type { AppEnv, HonoApp } from '../http/hono-app.ts';
import type { Services } from '../services.ts';
import { jsonBodyOf, jsonRoute } from './json-route.ts';
import { setSessionCookie } from './session-cookie.ts';

export interface PasskeyRoutesOptions {
  services: Services;
  /** Refuses a change that does not come from one of the dashboard's own pages. */
  fromOwnPage(c: Context<AppEnv>): void;
  /** The OpenID Connect provider's name for the sign-in screen's button, or null when none is set up. */
  oidcName: () => string | null;
}

/**
 * A person's passkeys in the dashboard (listed, added, removed while signed in) and the sign-in
 * screen's calls, which need no session: the ways to sign in, a passkey's challenge and its answer,
 * which opens a session. A passkey belongs to the address of the page it is made on: the request's
 * origin, one of the dashboard's own (fromOwnPage checks it), is the one the answer must name.
 */
export function registerPasskeyRoutes(app: HonoApp, { services, fromOwnPage, oidcName }: PasskeyRoutesOptions): void {
  const actorOf = (c: Context<AppEnv>): Actor => c.get('actor');
  /** The origin of one of the dashboard's own pages, sending JSON. */
  const pageOrigin = (c: Context<AppEnv>): string => {
    fromOwnPage(c);
    return c.req.header('origin') ?? '';
  };

  jsonRoute(app, 'passkeys', async (c) => ({ passkeys: await services.passkeys.list(actorOf(c)) }));
  jsonRoute(app, 'passkeyOptions', async (c) => {
    c.header('cache-control', 'no-store');
    return { options: { ...(await services.passkeys.registrationOptions(actorOf(c), pageOrigin(c))) } };
  });
  jsonRoute(
    app,
    'addPasskey',
    async (c) => {
      const origin = pageOrigin(c);
      const body = await jsonBodyOf(c);
      return { passkey: await services.passkeys.register(actorOf(c), origin, { name: body.name, response: body.response }) };
    },
    { status: 201 },
  );
  jsonRoute(app, 'removePasskey', async (c) => {
    await services.passkeys.remove(actorOf(c), c.req.param('passkeyId') ?? '');
    return {};
  });

  jsonRoute(app, 'signInMethods', async (c) => {
    c.header('cache-control', 'no-store');
    const name = oidcName();
    return { passkey: true, oidc: name === null ? null : { name } };
  });
  jsonRoute(app, 'signInOptions', async (c) => {
    c.header('cache-control', 'no-store');
    return { options: { ...(await services.passkeys.signInOptions(pageOrigin(c))) } };
  });
  jsonRoute(app, 'signInPasskey', async (c) => {
    const origin = pageOrigin(c);
    const body = await jsonBodyOf(c);
    const session = await services.passkeys.signIn(origin, { response: body.response }, c.req.header('user-agent'));
    setSessionCookie(c, session.secret);
    c.header('cache-control', 'no-store');
    return { token: session.token };
  });
}
