import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Configuration, IDToken, UserInfoResponse } from 'openid-client';
import type { Database } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import type { MemberService } from '../members/members.ts';
import type { SessionService } from '../sessions/sessions.ts';
import { findIdentityUser, insertIdentity } from './identity-repository.ts';

/** The provider the dashboard's people may sign in with (the STATUSDESK_OIDC_* settings). */
export interface OidcSettings {
  /** The issuer identifier, as the provider's discovery document names it. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The provider's name on the sign-in button. */
  name: string;
}

/** The provider's name on the sign-in button when STATUSDESK_OIDC_NAME is unset. */
export const DEFAULT_OIDC_NAME = "your organisation's sign-in";

/** A sign-in started at the provider is finished within this time, once. */
export const PENDING_TTL_MS = 10 * 60_000;
/** At most this many sign-ins wait for the provider's answer; past it, the oldest are forgotten. */
const MAX_PENDING = 1_000;
/** What the service asks the provider for: who the person is, and their name and address to name a new person. */
const SCOPE = 'openid profile email';
/** How long a request to the provider may take, in seconds. */
const PROVIDER_TIMEOUT_S = 10;
/** A person's name is kept to this length, as an invitation's acceptance allows. */
const NAME_LENGTH = 100;

/** The OpenID Connect code, loaded with the first sign-in rather than at start. */
const openIdClient = () => import('openid-client');

/** A sign-in sent to the provider, waiting for its answer in the browser that started it. */
interface PendingLogin {
  /** The random id of the browser's short-lived cookie: only that browser may finish it. */
  browser: string;
  codeVerifier: string;
  nonce: string;
  /** The invitation the person follows, whose workspace they join when the provider names someone new. */
  invitation?: string;
  createdAt: number;
}

/** How a sign-in with the provider ended: a session, or a refusal in the words of its page. */
export type OidcOutcome = { ok: true; userId: number; session: { secret: string; token: string } } | OidcRefusal;

/** Why a sign-in with the provider could not start or finish, in the words of its page. */
export interface OidcRefusal {
  ok: false;
  heading: string;
  message: string;
  /** Whether the provider itself failed to answer (trying later may help) rather than the sign-in being refused. */
  unavailable?: true;
  /** What went wrong, for the log (never shown). */
  cause?: unknown;
}

const refused = (heading: string, message: string, cause?: unknown): OidcRefusal => ({ ok: false, heading, message, cause });

/** The words of the page when no one here signs in with the provider's account. */
export const UNKNOWN_ACCOUNT = 'No one here signs in with this account. Ask an owner or admin of the workspace for an invitation.';
const START_AGAIN = 'Start again from the sign-in page.';

/** The people's accounts at OpenID Connect providers (user_identities). */
export function createUserIdentityService(db: Kysely<Database>) {
  return {
    /** The person who signs in with the provider's account, if anyone does. */
    find: (issuer: string, subject: string) => findIdentityUser(db, issuer, subject),
    /** Links the provider's account to the person; the person it is linked to afterwards. */
    link: (issuer: string, subject: string, userId: number) => insertIdentity(db, { issuer, subject, userId, createdAt: new Date().toISOString() }),
  };
}

export type UserIdentityService = ReturnType<typeof createUserIdentityService>;

/** Text of a claim fit for a person's name: one line, trimmed, at most NAME_LENGTH characters. */
function nameText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text ? [...text].slice(0, NAME_LENGTH).join('').trim() : undefined;
}

/** The name a new person gets from the provider's claims: their name, else their user name or address. */
function personNameOf(claims: Partial<IDToken & UserInfoResponse>): string | undefined {
  const given = [claims.given_name, claims.family_name].filter((part) => typeof part === 'string').join(' ');
  return nameText(claims.name) ?? nameText(given) ?? nameText(claims.preferred_username) ?? nameText(claims.email);
}

const hasName = (claims: Partial<IDToken & UserInfoResponse>) => personNameOf(claims) !== undefined;

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Sign-in with the organisation's OpenID Connect provider: the authorization code flow with PKCE,
 * state and nonce (openid-client). The provider's metadata is discovered with the first sign-in
 * and kept; a failed discovery is tried again by the next. A sign-in waits for the provider's
 * answer in memory, bound to the browser that started it. The provider's account (issuer and
 * subject) finds the person in user_identities; an account no one has yet joins only through an
 * invitation, as a new person named from its claims.
 */
export function createOidcSignIn(
  services: { sessions: SessionService; members: MemberService; userIdentities: UserIdentityService },
  settings: OidcSettings & {
    /** `<dashboard origin>/signin/oidc/callback`, as registered at the provider. */
    redirectUri: string;
    now?: () => number;
  },
) {
  const now = settings.now ?? Date.now;
  const pending = new Map<string, PendingLogin>();
  let discovered: Promise<Configuration> | undefined;

  function configuration(): Promise<Configuration> {
    discovered ??= (async () => {
      const client = await openIdClient();
      const issuer = new URL(settings.issuer);
      // http only ever reaches a provider on this machine: the setting refuses it elsewhere.
      const execute = issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [];
      return client.discovery(issuer, settings.clientId, settings.clientSecret, client.ClientSecretBasic(settings.clientSecret), {
        execute,
        timeout: PROVIDER_TIMEOUT_S,
      });
    })().catch((error: unknown) => {
      discovered = undefined;
      throw error;
    });
    return discovered;
  }

  function forgetExpired(): void {
    const oldest = now() - PENDING_TTL_MS;
    for (const [state, login] of pending) {
      if (login.createdAt > oldest && pending.size < MAX_PENDING) break;
      pending.delete(state);
    }
  }

  /** The provider's name at the start of a sentence. */
  const Name = settings.name.charAt(0).toUpperCase() + settings.name.slice(1);

  return {
    /**
     * Starts a sign-in: where to send the browser, at the provider. `browser` is the id of the
     * browser's sign-in cookie, to keep or to set. An invitation that can no longer be used is
     * refused here, before the person goes to the provider.
     */
    async start(input: { browser?: string; invitation?: string }): Promise<{ ok: true; url: string; browser: string } | OidcRefusal> {
      if (input.invitation !== undefined) {
        try {
          await services.members.preview(input.invitation);
        } catch (error) {
          return invitationRefused(error);
        }
      }
      let config: Configuration;
      try {
        config = await configuration();
      } catch (error) {
        return {
          ...refused(`${Name} cannot be reached`, `Its address ${settings.issuer} did not answer as an OpenID Connect provider. Try again in a moment.`, error),
          unavailable: true,
        };
      }
      const client = await openIdClient();
      const codeVerifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const browser = input.browser && /^[\w-]{43}$/.test(input.browser) ? input.browser : randomBytes(32).toString('base64url');
      forgetExpired();
      pending.set(state, {
        browser,
        codeVerifier,
        nonce,
        ...(input.invitation !== undefined ? { invitation: input.invitation } : {}),
        createdAt: now(),
      });
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUri,
        scope: SCOPE,
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { ok: true, url: url.href, browser };
    },

    /**
     * Finishes a sign-in with the provider's answer (the callback's query), in the browser whose
     * sign-in cookie holds `browser`: a session of the person the account is linked to, or of the
     * new person its invitation made; otherwise why not. A sign-in is finished once.
     */
    async finish(input: { query: URLSearchParams; browser?: string; userAgent?: string }): Promise<OidcOutcome> {
      const stale = 'This sign-in can no longer be finished';
      const state = input.query.get('state') ?? '';
      const login = pending.get(state);
      if (!login || !input.browser || !sameText(login.browser, input.browser)) {
        return refused(stale, `It was started in another browser, more than 10 minutes ago, or it was finished already. ${START_AGAIN}`);
      }
      // Once: a replayed answer finds nothing.
      pending.delete(state);
      if (login.createdAt <= now() - PENDING_TTL_MS) return refused(stale, `It was started more than 10 minutes ago. ${START_AGAIN}`);

      const client = await openIdClient();
      let config: Configuration;
      let claims: Partial<IDToken & UserInfoResponse>;
      let accessToken: string;
      try {
        config = await configuration();
        const callback = new URL(settings.redirectUri);
        callback.search = input.query.toString();
        const tokens = await client.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: login.codeVerifier,
          expectedState: state,
          expectedNonce: login.nonce,
          idTokenExpected: true,
        });
        claims = tokens.claims() ?? {};
        accessToken = tokens.access_token;
      } catch (error) {
        if (error instanceof client.AuthorizationResponseError) {
          const said = error.error_description ? `${error.error}: ${error.error_description}` : error.error;
          return refused(`${Name} did not sign you in`, `It answered ${said}. ${START_AGAIN}`, error);
        }
        return refused(`The answer of ${settings.name} could not be verified`, `Nothing was signed in. ${START_AGAIN}`, error);
      }
      const issuer = config.serverMetadata().issuer;
      const subject = String(claims.sub);
      const known = await services.userIdentities.find(issuer, subject);

      if (known !== undefined) {
        if (login.invitation !== undefined) {
          // Someone who signs in here already follows an invitation: they join one more workspace.
          try {
            await services.members.accept(login.invitation, { userId: known });
          } catch (error) {
            if (!(error instanceof AppError && error.code === 'CONFLICT')) return invitationRefused(error);
          }
        }
        return { ok: true, userId: known, session: await services.sessions.open(known, 'oidc', input.userAgent) };
      }
      if (login.invitation === undefined) return refused('This account cannot sign in here', UNKNOWN_ACCOUNT);

      // A new person, named as the provider knows them; the ID token may leave the name to UserInfo.
      if (!hasName(claims) && config.serverMetadata().userinfo_endpoint) {
        try {
          claims = { ...(await client.fetchUserInfo(config, accessToken, subject)), ...claims };
        } catch {
          // Named from what the ID token says, then.
        }
      }
      let joined: { userId: number };
      try {
        joined = await services.members.accept(login.invitation, { name: personNameOf(claims) ?? subject.slice(0, NAME_LENGTH) });
      } catch (error) {
        return invitationRefused(error);
      }
      const userId = await services.userIdentities.link(issuer, subject, joined.userId);
      return { ok: true, userId, session: await services.sessions.open(userId, 'oidc', input.userAgent) };
    },
  };
}

/** An invitation that could not be accepted, in the words of the acceptance's refusal. */
function invitationRefused(error: unknown): OidcRefusal {
  if (!(error instanceof AppError)) throw error;
  const said = error.message.charAt(0).toUpperCase() + error.message.slice(1);
  return refused('This invitation cannot be used', `${said}.`, error);
}

export type OidcSignIn = ReturnType<typeof createOidcSignIn>;
