/**
 * Sign-in with the organisation's OpenID Connect provider (server/domain/users/oidc.ts): a real
 * provider (oidc-provider) on loopback, driven as a browser drives it (its login and consent
 * forms, redirects, a cookie jar per browser). An invited person joins through it and is linked,
 * signs in again later; an account no one here has is refused; a forged or replayed answer is
 * refused; the settings go together.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Provider from 'oidc-provider';
import { serviceConfig } from '../server/config.ts';
import type { Actor } from '../server/domain/actor.ts';
import { AppError } from '../server/errors.ts';
import { queryRows } from './support/database.ts';
import { newWorkspace, sessionTokenOf, startTestService, type TestService } from './support/harness.ts';

const CLIENT_ID = 'statusdesk';
const CLIENT_SECRET = randomBytes(24).toString('base64url');
const PROVIDER_NAME = 'Example SSO';
const UNKNOWN_ACCOUNT = 'No one here signs in with this account. Ask an owner or admin of the workspace for an invitation.';

/** The provider's people: Ada and Edsger are invited, Grace never is. */
const ACCOUNTS: Record<string, { name: string; email: string }> = {
  ada: { name: 'Ada Lovelace', email: 'ada@example.com' },
  grace: { name: 'Grace Hopper', email: 'grace@example.com' },
  edsger: { name: 'Edsger Dijkstra', email: 'edsger@example.com' },
};

/** A browser: its own cookie jar (per host name and path, as browsers keep them), following redirects. */
class Browser {
  readonly userAgent = `TestBrowser/${randomBytes(3).toString('hex')}`;
  private readonly jar = new Map<string, { name: string; value: string; path: string; host: string }>();

  cookie(host: string, name: string): string | undefined {
    return [...this.jar.values()].find((c) => c.host === host && c.name === name)?.value;
  }

  /** One request, with the cookies this browser sends to its address; remembers those it is given. */
  async request(url: string, init: { method?: string; body?: URLSearchParams } = {}): Promise<Response> {
    const target = new URL(url);
    const cookies = [...this.jar.values()].filter((c) => c.host === target.hostname && target.pathname.startsWith(c.path));
    const headers: Record<string, string> = { 'user-agent': this.userAgent };
    if (cookies.length > 0) headers.cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    if (init.body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, { method: init.method ?? 'GET', headers, body: init.body, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      const attribute = (key: string) =>
        attributes
          .map((a) => a.trim())
          .find((a) => a.toLowerCase().startsWith(`${key}=`))
          ?.slice(key.length + 1);
      const path = attribute('path') ?? '/';
      const expires = attribute('expires');
      const maxAge = attribute('max-age');
      const key = `${target.hostname}\t${name}\t${path}`;
      if ((maxAge !== undefined && Number(maxAge) <= 0) || (expires !== undefined && Date.parse(expires) <= Date.now())) this.jar.delete(key);
      else this.jar.set(key, { name, value, path, host: target.hostname });
    }
    return response;
  }

  /**
   * Follows redirects from `url` as a browser does (a POST answered 302 or 303 goes on as a GET),
   * stopping before an address `stopAt` picks: the last answer and its address.
   */
  async follow(
    url: string,
    init: { method?: string; body?: URLSearchParams } = {},
    stopAt: (next: string) => boolean = () => false,
  ): Promise<{ response: Response; url: string }> {
    let current = url;
    let request = init;
    for (let hop = 0; hop < 20; hop++) {
      const response = await this.request(current, request);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { response, url: current };
      await response.body?.cancel();
      const next = new URL(location, current).href;
      if (stopAt(next)) return { response, url: next };
      current = next;
      request = {};
    }
    throw new Error(`more than 20 redirects from ${url}`);
  }
}

describe('sign-in with an OpenID Connect provider', () => {
  let server: Server;
  let issuer: string;
  let service: TestService;
  let owner: Actor;
  /** The answer to a sign-in started while the provider answered nothing but 503. */
  let firstTry: { status: number; text: string };

  before(async () => {
    // The provider's address is known before the service starts; its routes come once the service's is.
    let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
    server = createServer((req, res) => handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    service = await startTestService({
      STATUSDESK_OIDC_ISSUER: issuer,
      STATUSDESK_OIDC_CLIENT_ID: CLIENT_ID,
      STATUSDESK_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      STATUSDESK_OIDC_NAME: PROVIDER_NAME,
    });
    owner = { type: 'user', userId: service.ownerId, surface: 'dashboard' };
    const provider = new Provider(issuer, {
      clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [`${service.dashboardUrl}/signin/oidc/callback`] }],
      async findAccount(_ctx: unknown, sub: string) {
        const account = ACCOUNTS[sub];
        return account && { accountId: sub, claims: () => ({ sub, ...account }) };
      },
      claims: { openid: ['sub'], profile: ['name'], email: ['email'] },
      cookies: { keys: [randomBytes(16).toString('hex')] },
      features: { devInteractions: { enabled: true } },
    });
    // The first sign-in, before the provider answers (and so before any test has discovered it, in whatever order they run).
    const unavailable = await new Browser().request(startUrl());
    firstTry = { status: unavailable.status, text: await unavailable.text() };
    handle = provider.callback();
  });

  after(async () => {
    await service?.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  const startUrl = (invitation?: string) => `${service.dashboardUrl}/signin/oidc${invitation ? `?invitation=${invitation}` : ''}`;
  const isCallback = (url: string) => url.startsWith(`${service.dashboardUrl}/signin/oidc/callback`);

  /**
   * Signs in at the provider as `account` from `url` (its login form, then its consent form), up to
   * the provider's answer: the callback address it sends the browser to, not yet followed.
   */
  async function toCallback(browser: Browser, url: string, account: string): Promise<string> {
    let step = await browser.follow(url, {}, isCallback);
    for (let page = 0; page < 4; page++) {
      if (isCallback(step.url)) return step.url;
      const html = await step.response.text();
      assert.equal(step.response.status, 200, `${step.url} answered ${step.response.status}: ${html}`);
      assert.ok(step.url.startsWith(issuer), `expected the provider's page, got ${step.url}`);
      const action = /<form[^>]* action="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
      assert.ok(action && prompt, `no form on the provider's page ${step.url}`);
      const fields: Record<string, string> = prompt === 'login' ? { prompt, login: account, password: 'any' } : { prompt };
      step = await browser.follow(new URL(action, step.url).href, { method: 'POST', body: new URLSearchParams(fields) }, isCallback);
    }
    throw new Error('the provider never answered the service');
  }

  /** The whole sign-in: the service's answer to the provider's callback. */
  async function signIn(browser: Browser, account: string, invitation?: string): Promise<Response> {
    return (await browser.follow(await toCallback(browser, startUrl(invitation), account))).response;
  }

  /** Who the signed-in page's session names, and their workspaces' slugs. */
  async function sessionOf(browser: Browser, answer: Response): Promise<{ user?: { name: string }; workspaces: { slug: string }[] }> {
    assert.equal(answer.status, 200);
    const token = sessionTokenOf(await answer.text());
    const cookie = browser.cookie('localhost', 'statusdesk_session');
    assert.ok(cookie, 'the answer sets the session cookie');
    const response = await fetch(`${service.dashboardUrl}/api/session`, {
      headers: { cookie: `statusdesk_session=${cookie}`, 'x-statusdesk-session': token, origin: service.dashboardUrl },
    });
    assert.equal(response.status, 200);
    return (await response.json()) as { user?: { name: string }; workspaces: { slug: string }[] };
  }

  async function invite(workspaceId: string): Promise<string> {
    return (await service.services.members.invite(owner, Number(workspaceId), { role: 'member' })).token;
  }

  const auditOf = (workspaceId: string, action: string) =>
    queryRows<{ actor_user_id: number; after: string }>(
      service.dataDir,
      'select actor_user_id, after from audit_log where workspace_id = ? and action = ? order by id',
      Number(workspaceId),
      action,
    );

  test('a provider that does not answer is a page saying so, and is asked again at the next sign-in', async () => {
    assert.equal(firstTry.status, 503);
    assert.match(firstTry.text, /Example SSO cannot be reached/);
    const started = await new Browser().request(startUrl());
    assert.equal(started.status, 302);
    assert.ok(started.headers.get('location')?.startsWith(`${issuer}/`));
  });

  test('an invited person joins through the provider, is linked, and signs in with it again later', async () => {
    const workspace = await newWorkspace(service, 'oidc');
    const browser = new Browser();
    const joined = await sessionOf(browser, await signIn(browser, 'ada', await invite(workspace.id)));
    assert.equal(joined.user?.name, 'Ada Lovelace', 'named as the provider names them');
    assert.deepEqual(
      joined.workspaces.map((w) => w.slug),
      [workspace.slug],
    );

    const identities = await queryRows<{ issuer: string; subject: string; user_id: number }>(
      service.dataDir,
      "select issuer, subject, user_id from user_identities where subject = 'ada'",
    );
    assert.equal(identities.length, 1);
    assert.equal(identities[0]!.issuer, issuer);
    const userId = Number(identities[0]!.user_id);
    const [membership] = await auditOf(workspace.id, 'membership.create');
    assert.equal(Number(membership?.actor_user_id), userId);
    assert.equal(JSON.parse(membership!.after).name, 'Ada Lovelace');
    const sessions = await auditOf(workspace.id, 'session.create');
    assert.deepEqual(
      sessions.map((s) => [Number(s.actor_user_id), JSON.parse(s.after).method, JSON.parse(s.after).userAgent]),
      [[userId, 'oidc', browser.userAgent]],
    );

    // Later, in another browser, without an invitation: the provider's account finds her.
    const later = new Browser();
    const again = await sessionOf(later, await signIn(later, 'ada'));
    assert.equal(again.user?.name, 'Ada Lovelace');
    assert.equal((await auditOf(workspace.id, 'session.create')).length, 2);
    const people = await queryRows<{ count: number }>(service.dataDir, "select count(*) as count from users where name = 'Ada Lovelace'");
    assert.equal(Number(people[0]?.count), 1, 'no second person');

    // Another invitation brings her, as she is, into one more workspace.
    const other = await newWorkspace(service, 'oidc-more');
    const third = new Browser();
    const more = await sessionOf(third, await signIn(third, 'ada', await invite(other.id)));
    assert.deepEqual(more.workspaces.map((w) => w.slug).sort(), [workspace.slug, other.slug].sort());
    const [joinedOther] = await auditOf(other.id, 'membership.create');
    assert.equal(Number(joinedOther?.actor_user_id), userId);
  });

  test('an account no one here signs in with is refused, and nothing is made for it', async () => {
    const answer = await signIn(new Browser(), 'grace');
    assert.equal(answer.status, 401);
    const page = await answer.text();
    assert.ok(page.includes(UNKNOWN_ACCOUNT), page);
    assert.ok(!answer.headers.getSetCookie().some((c) => c.startsWith('statusdesk_session=')), 'no session');
    assert.deepEqual(await queryRows(service.dataDir, "select user_id from user_identities where subject = 'grace'"), []);
  });

  test('a forged, misdirected or replayed answer is refused', async () => {
    const workspace = await newWorkspace(service, 'oidc-replay');
    const browser = new Browser();
    const callback = await toCallback(browser, startUrl(await invite(workspace.id)), 'edsger');

    // Another state than the one this browser was given.
    const forged = new URL(callback);
    forged.searchParams.set('state', randomBytes(32).toString('base64url'));
    const wrongState = await browser.request(forged.href);
    assert.equal(wrongState.status, 401);
    assert.match(await wrongState.text(), /This sign-in can no longer be finished/);

    // The right answer, in a browser that did not start the sign-in (no cookie, or another's).
    const elsewhere = await new Browser().request(callback);
    assert.equal(elsewhere.status, 401);
    const stranger = new Browser();
    await stranger.request(startUrl()); // its own sign-in cookie, for a sign-in of its own
    assert.ok(stranger.cookie('localhost', 'statusdesk_oidc'));
    assert.equal((await stranger.request(callback)).status, 401);

    // None of these spent it: the browser that started it finishes it, once.
    const finished = await browser.request(callback);
    assert.equal(finished.status, 200, await finished.clone().text());
    assert.equal((await sessionOf(browser, finished)).user?.name, 'Edsger Dijkstra');
    const replayed = await browser.request(callback);
    assert.equal(replayed.status, 401);
    assert.match(await replayed.text(), /This sign-in can no longer be finished/);

    // An answer that no sign-in was sent for.
    const made = await browser.request(`${service.dashboardUrl}/signin/oidc/callback?code=made-up&state=made-up&iss=${encodeURIComponent(issuer)}`);
    assert.equal(made.status, 401);
  });

  test('the provider refusing to sign in is a page that says so', async () => {
    const browser = new Browser();
    const { response, url } = await browser.follow(startUrl(), {}, isCallback);
    assert.equal(response.status, 200);
    const uid = /\/interaction\/([\w-]+)/.exec(url)?.[1];
    assert.ok(uid, url);
    const callback = (await browser.follow(`${issuer}/interaction/${uid}/abort`, {}, isCallback)).url;
    assert.ok(isCallback(callback), callback);
    const answer = await browser.request(callback);
    assert.equal(answer.status, 401);
    assert.match(await answer.text(), /Example SSO did not sign you in/);
  });

  test('an invitation that can no longer be used is refused before the provider is asked', async () => {
    const workspace = await newWorkspace(service, 'oidc-revoked');
    const { invitation, token } = await service.services.members.invite(owner, Number(workspace.id), { role: 'member' });
    await service.services.members.revokeInvitation(owner, Number(workspace.id), invitation.id);
    const answer = await new Browser().request(startUrl(token));
    assert.equal(answer.status, 401);
    assert.match(await answer.text(), /withdrawn/);
    const unknown = await new Browser().request(startUrl('inv_not-one'));
    assert.equal(unknown.status, 401);
  });

  test("the sign-in screen's methods name the provider", async () => {
    const methods = await fetch(`${service.dashboardUrl}/signin/methods`);
    assert.equal(methods.status, 200);
    assert.deepEqual(((await methods.json()) as { oidc: unknown }).oidc, { name: PROVIDER_NAME });
  });

  test('the start sends the browser to the provider with PKCE, state and nonce, from the dashboard address', async () => {
    const browser = new Browser();
    const answer = await browser.request(startUrl());
    assert.equal(answer.status, 302);
    assert.equal(answer.headers.get('referrer-policy'), 'no-referrer');
    const cookie = answer.headers.getSetCookie().find((c) => c.startsWith('statusdesk_oidc='));
    assert.match(cookie ?? '', /HttpOnly/i);
    assert.match(cookie ?? '', /SameSite=Lax/i);
    const to = new URL(answer.headers.get('location')!);
    assert.equal(to.origin, issuer);
    assert.equal(to.searchParams.get('redirect_uri'), `${service.dashboardUrl}/signin/oidc/callback`);
    assert.equal(to.searchParams.get('code_challenge_method'), 'S256');
    for (const name of ['state', 'nonce', 'code_challenge']) assert.ok(to.searchParams.get(name), name);

    // Opened on another loopback name of the port, it starts again on the dashboard's own address.
    const port = new URL(service.dashboardUrl).port;
    const moved = await new Browser().request(`http://127.0.0.1:${port}/signin/oidc?invitation=x`);
    assert.equal(moved.status, 302);
    assert.equal(moved.headers.get('location'), `${service.dashboardUrl}/signin/oidc?invitation=x`);
  });
});

describe('the settings of sign-in with an OpenID Connect provider', () => {
  const settings = {
    STATUSDESK_OIDC_ISSUER: 'https://login.example.com',
    STATUSDESK_OIDC_CLIENT_ID: 'statusdesk',
    STATUSDESK_OIDC_CLIENT_SECRET: 's3cret',
  };

  const refusal = (env: NodeJS.ProcessEnv): string => {
    try {
      serviceConfig({ dataDir: 'unused' }, env);
    } catch (error) {
      assert.ok(error instanceof AppError && error.code === 'VALIDATION', String(error));
      return error.message;
    }
    assert.fail('accepted');
  };

  test('all or none: a partial set is refused naming what is missing', async () => {
    const { STATUSDESK_OIDC_CLIENT_SECRET: _secret, ...noSecret } = settings;
    assert.match(refusal(noSecret), /^STATUSDESK_OIDC_CLIENT_SECRET: must be set too/);
    assert.match(refusal({ STATUSDESK_OIDC_ISSUER: settings.STATUSDESK_OIDC_ISSUER }), /^STATUSDESK_OIDC_CLIENT_ID, STATUSDESK_OIDC_CLIENT_SECRET: /);
    assert.match(refusal({ STATUSDESK_OIDC_NAME: 'Example SSO' }), /^STATUSDESK_OIDC_ISSUER, STATUSDESK_OIDC_CLIENT_ID, STATUSDESK_OIDC_CLIENT_SECRET: /);
    assert.ok(!refusal(noSecret).includes('s3cret'));

    const all = serviceConfig({ dataDir: 'unused' }, settings);
    assert.equal(all.oidcIssuer, 'https://login.example.com');
    assert.equal(all.oidcName, undefined, 'the default name is the service\u2019s');
    assert.equal(serviceConfig({ dataDir: 'unused' }, {}).oidcIssuer, undefined);

    await assert.rejects(startTestService(noSecret), /STATUSDESK_OIDC_CLIENT_SECRET: must be set too/);
  });

  test('the issuer is https, or http on loopback only', () => {
    assert.match(refusal({ ...settings, STATUSDESK_OIDC_ISSUER: 'http://login.example.com' }), /^STATUSDESK_OIDC_ISSUER: must be an https URL/);
    assert.match(refusal({ ...settings, STATUSDESK_OIDC_ISSUER: 'login.example.com' }), /^STATUSDESK_OIDC_ISSUER: /);
    assert.equal(serviceConfig({}, { ...settings, STATUSDESK_OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidcIssuer, 'http://127.0.0.1:9000');
    assert.equal(
      serviceConfig({}, { ...settings, STATUSDESK_OIDC_ISSUER: 'https://login.example.com/tenant/v2.0' }).oidcIssuer,
      'https://login.example.com/tenant/v2.0',
    );
  });

  test('without them, the sign-in addresses do not exist', async () => {
    const service = await startTestService();
    try {
      assert.equal((await fetch(`${service.dashboardUrl}/signin/oidc`, { redirect: 'manual' })).status, 404);
      assert.equal((await fetch(`${service.dashboardUrl}/signin/oidc/callback?code=x&state=y`, { redirect: 'manual' })).status, 404);
      assert.equal(((await (await fetch(`${service.dashboardUrl}/signin/methods`)).json()) as { oidc: unknown }).oidc, null);
    } finally {
      await service.stop();
    }
  });
});
