import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { withLocalOwner } from './support/database.ts';
import { assertErrorEnvelope, json, sessionTokenOf, startTestService, type TestService } from './support/harness.ts';

const SESSION_TTL_SECONDS = 12 * 3600;
const KEY_FIELDS = ['createdAt', 'createdByUserId', 'id', 'lastUsedAt', 'legacy', 'name', 'prefix', 'revokedAt', 'scopes', 'workspaceId'];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let service: TestService;
/** The first use of the one-time link, made before the tests so every test can use the session. */
let signIn: Response;
/** A session's two halves: the cookie the browser keeps, and the token the page keeps. */
interface Session {
  cookie: string;
  token: string;
}
let session: Session;
let workspaceId: string;

/** The session a sign-in answer gives: the cookie, and the token in the page it answers with. */
async function sessionOf(response: Response): Promise<Session> {
  const cookie = (response.headers.getSetCookie()[0] ?? '').split(';')[0]!;
  return { cookie, token: sessionTokenOf(await response.text()) };
}

before(async () => {
  service = await startTestService();
  signIn = await fetch(service.signInUrl, { redirect: 'manual' });
  session = await sessionOf(signIn);
  workspaceId = (await json(await dashboard('/api/session'))).workspaces[0].id;
});
after(() => service.stop());

/** A request as the dashboard's page sends it: both halves of the session, and on a change its origin and a JSON body. */
function dashboard(path: string, init: RequestInit & { session?: Partial<Session> | null } = {}): Promise<Response> {
  const { session: given = session, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (given?.cookie) headers.set('cookie', given.cookie);
  if (given?.token) headers.set('x-statusdesk-session', given.token);
  if (rest.method === 'POST') {
    if (!headers.has('origin')) headers.set('origin', service.dashboardUrl);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  return fetch(`${service.dashboardUrl}${path}`, { ...rest, headers, redirect: 'manual' });
}

const createKey = (body: unknown, ws = workspaceId) => dashboard(`/api/workspaces/${ws}/keys`, { method: 'POST', body: JSON.stringify(body) });
const createKeyAs = (as: Partial<Session>, body: unknown) =>
  dashboard(`/api/workspaces/${workspaceId}/keys`, { session: as, method: 'POST', body: JSON.stringify(body) });

async function listKeys(): Promise<{ text: string; keys: Record<string, unknown>[] }> {
  const response = await dashboard(`/api/workspaces/${workspaceId}/keys`);
  assert.equal(response.status, 200);
  const text = await response.text();
  return { text, keys: JSON.parse(text).keys };
}

async function whoami(secret: string): Promise<Response> {
  return service.api('/v1/whoami', { key: secret });
}

/** A fresh one-time link for the owner, as a restart of the service would print. */
async function newSignInLink(): Promise<string> {
  const token = await withLocalOwner(service.dataDir, async (services, owner) => {
    assert.equal(owner.type, 'user');
    return services.sessions.createSignInToken(owner.type === 'user' ? owner.userId : 0);
  });
  return `${service.dashboardUrl}/signin?token=${token}`;
}

describe('sign-in link', () => {
  test("answers the UI with the page's token in its body (no address holds it), uncached, and sets an HttpOnly SameSite=Strict session cookie", () => {
    assert.equal(signIn.status, 200);
    assert.equal(signIn.headers.get('location'), null);
    assert.match(signIn.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(session.token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(signIn.headers.get('cache-control'), 'no-store');
    // The answer's address held a one-time link: no page it links to learns it.
    assert.equal(signIn.headers.get('referrer-policy'), 'no-referrer');
    const cookies = signIn.headers.getSetCookie();
    assert.equal(cookies.length, 1);
    const [pair = '', ...attributes] = cookies[0]!.split(';').map((part) => part.trim());
    assert.match(pair, /^statusdesk_session=[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(attributes.sort(), ['HttpOnly', `Max-Age=${SESSION_TTL_SECONDS}`, 'Path=/', 'SameSite=Strict']);
    // The cookie carries a new session secret, never the link's token.
    assert.ok(!service.signInUrl.includes(pair.slice('statusdesk_session='.length)));
  });

  test('works exactly once: the second use is 401 and sets no cookie', async () => {
    const again = await fetch(service.signInUrl, { redirect: 'manual' });
    assert.equal(again.status, 401);
    assert.match(again.headers.get('content-type') ?? '', /^text\/html/);
    const page = await again.text();
    assert.match(page, /expired or was already used/);
    // The way to a new link that works whether or not the service was started by hand.
    assert.match(page, /<code>statusdesk dashboard<\/code>/);
    assert.doesNotMatch(page, /statusdesk serve/);
    assert.deepEqual(again.headers.getSetCookie(), []);
  });

  test('an unknown or empty token is 401; without one, /signin is the sign-in screen, and neither sets a cookie', async () => {
    for (const query of ['?token=' + 'A'.repeat(43), '?token=']) {
      const response = await fetch(`${service.dashboardUrl}/signin${query}`, { redirect: 'manual' });
      assert.equal(response.status, 401, query);
      assert.deepEqual(response.headers.getSetCookie(), []);
      await response.text();
    }
    const screen = await fetch(`${service.dashboardUrl}/signin`, { redirect: 'manual' });
    assert.equal(screen.status, 200);
    assert.deepEqual(screen.headers.getSetCookie(), []);
    assert.doesNotMatch(await screen.text(), /statusdesk-session/, 'no session token in the page');
  });

  test('the session opens the dashboard page', async () => {
    const response = await dashboard('/', { session: { cookie: session.cookie } });
    assert.equal(response.status, 200);
    assert.match(await response.text(), /<title>Statusdesk<\/title>[\s\S]*<div id="root"><\/div>/);
  });
});

describe('dashboard API', () => {
  test('GET /api/session names the signed-in owner, lists their workspaces, and gives the API and MCP addresses', async () => {
    const response = await dashboard('/api/session');
    assert.equal(response.status, 200);
    const body = await json(response);
    assert.deepEqual(Object.keys(body), ['user', 'workspaces', 'apiUrl', 'mcpUrl', 'emailAvailable']);
    assert.equal(body.emailAvailable, false, 'this service has no mail server');
    assert.equal(body.apiUrl, service.apiUrl);
    assert.equal(body.mcpUrl, `${service.apiUrl}/mcp`);
    assert.deepEqual(Object.keys(body.user).sort(), ['id', 'name']);
    assert.match(body.user.id, /^\d+$/);
    assert.equal(body.workspaces.length, 1);
    const [workspace] = body.workspaces;
    assert.deepEqual(Object.keys(workspace).sort(), ['createdAt', 'id', 'name', 'plan', 'slug']);
    assert.equal(workspace.slug, 'personal');
    assert.equal(workspace.plan, 'scale');
    assert.match(workspace.id, /^\d+$/);
    assert.match(workspace.createdAt, ISO);
    assert.equal(workspace.id, workspaceId);
  });

  for (const scope of ['read', 'write'] as const) {
    test(`POST /api/workspaces/:id/keys issues a ${scope} key that works on the API port`, async () => {
      const response = await createKey({ name: `  ${scope} key from the dashboard  `, scope });
      assert.equal(response.status, 201);
      const body = await json(response);
      assert.deepEqual(Object.keys(body).sort(), ['key', 'secret']);
      const { key, secret } = body;
      assert.equal(typeof secret, 'string');
      assert.ok(secret.length >= 40, `secret of ${secret.length} characters`);
      assert.ok(secret.startsWith('svc_'));
      assert.ok(!secret.startsWith('svc_oat_'));
      assert.match(secret, /^svc_[A-Za-z0-9_-]+$/);

      assert.deepEqual(Object.keys(key).sort(), KEY_FIELDS);
      assert.equal(key.name, `${scope} key from the dashboard`);
      assert.deepEqual(key.scopes, [scope]);
      assert.equal(key.legacy, false);
      assert.equal(key.workspaceId, workspaceId);
      assert.equal(key.prefix, secret.slice(0, 12));
      assert.match(key.createdAt, ISO);
      assert.equal(key.lastUsedAt, null);
      assert.equal(key.revokedAt, null);
      assert.match(key.createdByUserId, /^\d+$/);

      const identity = await whoami(secret);
      assert.equal(identity.status, 200);
      const who = await json(identity);
      assert.equal(who.slug, 'personal');
      assert.deepEqual(who.actor, { type: 'apiKey', keyId: key.id, scopes: [scope] });
    });
  }

  test('each issued key has its own secret', async () => {
    const a = await json(await createKey({ name: 'a', scope: 'read' }));
    const b = await json(await createKey({ name: 'b', scope: 'read' }));
    assert.notEqual(a.secret, b.secret);
    assert.notEqual(a.key.id, b.key.id);
  });

  test('an invalid scope is 400 VALIDATION naming the field scope, and nothing is issued', async () => {
    const before = (await listKeys()).keys.length;
    for (const body of [
      { name: 'bad', scope: 'admin' },
      { name: 'bad', scope: 'READ' },
      { name: 'bad', scope: ['read'] },
      { name: 'bad', scopes: ['read'] },
      { name: 'bad' },
    ]) {
      const response = await createKey(body);
      const envelope = await assertErrorEnvelope(response, 400, 'VALIDATION', /^scope: must be read or write$/, service.apiUrl);
      assert.deepEqual(envelope.violations, [{ field: 'scope', rule: 'must be read or write' }]);
    }
    const both = await assertErrorEnvelope(await createKey({ name: '   ', scope: 'root' }), 400, 'VALIDATION', /name: must not be empty/, service.apiUrl);
    assert.deepEqual(both.violations.map((v: { field: string }) => v.field).sort(), ['name', 'scope']);
    assert.equal((await listKeys()).keys.length, before);
  });

  test('GET /api/workspaces/:id/keys lists keys newest first, with no secret or hash', async () => {
    await json(await createKey({ name: 'listed first', scope: 'read' }));
    const issued = await json(await createKey({ name: 'listed', scope: 'write' }));
    const { text, keys } = await listKeys();
    assert.ok(keys.length >= 2);
    assert.equal(keys[0]!.id, issued.key.id);
    const ids = keys.map((k) => Number(k.id));
    assert.deepEqual(
      ids,
      [...ids].sort((x, y) => y - x),
    );
    for (const key of keys) assert.deepEqual(Object.keys(key).sort(), KEY_FIELDS);
    assert.ok(!text.includes(issued.secret), 'the secret is never listed');
    assert.ok(!text.includes(issued.secret.slice(12)), 'no part of the secret beyond its prefix is listed');
    assert.doesNotMatch(text, /secret|hash/i);
    assert.deepEqual(keys[0], { ...issued.key });
  });

  test('POST /api/keys/:id/revoke revokes the key: whoami then answers 401', async () => {
    const issued = await json(await createKey({ name: 'to revoke', scope: 'write' }));
    const other = await json(await createKey({ name: 'stays', scope: 'read' }));
    assert.equal((await whoami(issued.secret)).status, 200);

    const response = await dashboard(`/api/keys/${issued.key.id}/revoke`, { method: 'POST' });
    assert.equal(response.status, 200);
    const body = await json(response);
    assert.deepEqual(Object.keys(body), ['key']);
    assert.equal(body.key.id, issued.key.id);
    assert.match(body.key.revokedAt, ISO);
    assert.equal(JSON.stringify(body).includes(issued.secret), false);

    const refused = await whoami(issued.secret);
    assert.equal(refused.status, 401);
    assert.equal((await json(refused)).code, 'UNAUTHORIZED');
    assert.equal((await whoami(other.secret)).status, 200, 'other keys keep working');

    const listed = (await listKeys()).keys.find((k) => k.id === issued.key.id);
    assert.equal(listed?.revokedAt, body.key.revokedAt);

    const again = await dashboard(`/api/keys/${issued.key.id}/revoke`, { method: 'POST' });
    assert.equal(again.status, 200);
    assert.equal((await json(again)).key.revokedAt, body.key.revokedAt, 'revoking twice keeps the first time');
  });

  test('without a session cookie every API route is 401 and nothing changes', async () => {
    const issued = await json(await createKey({ name: 'guarded', scope: 'read' }));
    const before = (await listKeys()).keys.length;
    for (const session of [null, { cookie: 'statusdesk_session=' + 'A'.repeat(43) }, { cookie: 'other_cookie=1' }]) {
      const attempts = [
        dashboard('/api/session', { session }),
        dashboard(`/api/workspaces/${workspaceId}/keys`, { session }),
        dashboard(`/api/workspaces/${workspaceId}/keys`, { session, method: 'POST', body: JSON.stringify({ name: 'x', scope: 'write' }) }),
        dashboard(`/api/keys/${issued.key.id}/revoke`, { session, method: 'POST' }),
      ];
      for (const response of await Promise.all(attempts)) {
        await assertErrorEnvelope(
          response,
          401,
          'UNAUTHORIZED',
          /^not signed in: sign in at \/signin, or run statusdesk dashboard at the server for a one-time link$/,
          service.apiUrl,
        );
      }
    }
    assert.equal((await listKeys()).keys.length, before);
    assert.equal((await whoami(issued.secret)).status, 200, 'the key was not revoked');
  });

  test('an unknown workspace id is 404 NOT_FOUND for listing and issuing; one that cannot be an id is 400 VALIDATION', async () => {
    await assertErrorEnvelope(await dashboard('/api/workspaces/999/keys'), 404, 'NOT_FOUND', /^workspace 999 does not exist$/, service.apiUrl);
    await assertErrorEnvelope(await createKey({ name: 'x', scope: 'read' }, '999'), 404, 'NOT_FOUND', /^workspace 999 does not exist$/, service.apiUrl);
    for (const id of ['0', '-1', 'abc', '1.5']) {
      const rule = new RegExp(`^workspaceId: must be a workspace id \\(a positive whole number\\), got "${id.replace('.', '\\.')}"$`);
      await assertErrorEnvelope(await dashboard(`/api/workspaces/${id}/keys`), 400, 'VALIDATION', rule, service.apiUrl);
      await assertErrorEnvelope(await createKey({ name: 'x', scope: 'read' }, id), 400, 'VALIDATION', rule, service.apiUrl);
    }
  });

  test('an unknown key id is 404 NOT_FOUND on revoke; one that cannot be an id is 400 VALIDATION', async () => {
    await assertErrorEnvelope(
      await dashboard('/api/keys/999999/revoke', { method: 'POST' }),
      404,
      'NOT_FOUND',
      /^API key 999999 does not exist in this workspace$/,
      service.apiUrl,
    );
    await assertErrorEnvelope(
      await dashboard('/api/keys/abc/revoke', { method: 'POST' }),
      400,
      'VALIDATION',
      /^keyId: must be an API key id \(a positive whole number\), got "abc"$/,
      service.apiUrl,
    );
  });
});

describe('the session cookie alone', () => {
  // Browsers send localhost cookies to every port: another local server the owner visits has the cookie.
  test("a replayed cookie without the page's token reads nothing and mints no key", async () => {
    const before = (await listKeys()).keys.length;
    const stolen = { cookie: session.cookie };
    for (const token of [undefined, 'A'.repeat(43), session.token.slice(1)]) {
      const thief = { ...stolen, token };
      await assertErrorEnvelope(await dashboard('/api/session', { session: thief }), 401, 'UNAUTHORIZED', /^not signed in/, service.apiUrl);
      await assertErrorEnvelope(await createKeyAs(thief, { name: 'stolen', scope: 'write' }), 401, 'UNAUTHORIZED', /^not signed in/, service.apiUrl);
      await assertErrorEnvelope(await dashboard('/api/oauth/requests', { session: thief }), 401, 'UNAUTHORIZED', /^not signed in/, service.apiUrl);
    }
    assert.equal((await listKeys()).keys.length, before);
  });

  test('the token of one session does not open another', async () => {
    const other = await sessionOf(await fetch(await newSignInLink(), { redirect: 'manual' }));
    await assertErrorEnvelope(
      await dashboard('/api/session', { session: { cookie: session.cookie, token: other.token } }),
      401,
      'UNAUTHORIZED',
      /^not signed in/,
      service.apiUrl,
    );
    assert.equal((await dashboard('/api/session', { session: other })).status, 200);
  });
});

describe("changes come only from the dashboard's pages", () => {
  test('another origin, or none, is refused 403 and nothing is created', async () => {
    const before = (await listKeys()).keys.length;
    for (const origin of [service.apiUrl, 'http://evil.example', 'null']) {
      const response = await dashboard(`/api/workspaces/${workspaceId}/keys`, {
        method: 'POST',
        body: JSON.stringify({ name: 'x', scope: 'write' }),
        headers: { origin },
      });
      assert.equal(response.status, 403, origin);
    }
    const noOrigin = await fetch(`${service.dashboardUrl}/api/workspaces/${workspaceId}/keys`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'x-statusdesk-session': session.token, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', scope: 'write' }),
    });
    await assertErrorEnvelope(noOrigin, 403, 'FORBIDDEN', /^changes are accepted only from the dashboard's own pages/, service.apiUrl);
    assert.equal((await listKeys()).keys.length, before);
  });

  test('a form or text body (what a cross-site page can send unasked) is refused, naming content-type', async () => {
    const before = (await listKeys()).keys.length;
    for (const [type, body] of [
      ['text/plain', JSON.stringify({ name: 'x', scope: 'write' })],
      ['application/x-www-form-urlencoded', 'name=x&scope=write'],
      ['multipart/form-data; boundary=b', '--b--'],
    ] as const) {
      const response = await dashboard(`/api/workspaces/${workspaceId}/keys`, { method: 'POST', body, headers: { 'content-type': type } });
      const error = await assertErrorEnvelope(response, 400, 'VALIDATION', /^content-type: must be application\/json/, service.apiUrl);
      assert.equal(error.violations[0].field, 'content-type');
    }
    assert.equal((await listKeys()).keys.length, before);
  });
});

describe('sign-out', () => {
  test('POST /api/signout ends the session and clears the cookie', async () => {
    const link = await newSignInLink();
    const response = await fetch(link, { redirect: 'manual' });
    assert.equal(response.status, 200);
    const second = await sessionOf(response);
    assert.notEqual(second.cookie, session.cookie);
    assert.notEqual(second.token, session.token);
    assert.equal((await dashboard('/api/session', { session: second })).status, 200);

    const out = await dashboard('/api/signout', { session: second, method: 'POST' });
    assert.equal(out.status, 204);
    assert.match(out.headers.getSetCookie()[0] ?? '', /^statusdesk_session=; Max-Age=0; Path=\//);
    await assertErrorEnvelope(await dashboard('/api/session', { session: second }), 401, 'UNAUTHORIZED', /^not signed in/, service.apiUrl);
    assert.equal((await dashboard('/api/session')).status, 200, 'other sessions stay signed in');
  });
});
