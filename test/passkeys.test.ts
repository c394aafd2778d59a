// Passkeys on the dashboard's JSON API and in the domain: the challenges the service hands out
// (bound to the page's origin, for a person or for no one), what it refuses before and instead of
// an authenticator's answer, and who may hold passkeys at all. The whole ceremony with an
// authenticator runs in Chromium (ui-passkeys.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Actor } from '../server/domain/actor.ts';
import { signInLink } from './support/browser.ts';
import { queryRows, withLocalOwner } from './support/database.ts';
import { json, rejectsWith, sessionTokenOf, startTestService, type TestService } from './support/harness.ts';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

/** The headers a signed-in page sends: a new session of the owner, opened with a one-time link. */
async function signedIn(): Promise<Record<string, string>> {
  const answer = await fetch(await signInLink(service), { redirect: 'manual' });
  assert.equal(answer.status, 200);
  const cookie = answer.headers.getSetCookie()[0]!.split(';')[0]!;
  return { cookie, 'x-statusdesk-session': sessionTokenOf(await answer.text()), origin: service.dashboardUrl };
}

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${service.dashboardUrl}${path}`, {
    method: 'POST',
    headers: { origin: service.dashboardUrl, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** A made-up authenticator answer for a credential id: well formed, signed by no one. */
const forgedAssertion = (id: string) => ({
  id,
  rawId: id,
  type: 'public-key',
  clientExtensionResults: {},
  response: {
    clientDataJSON: Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: 'x', origin: service.dashboardUrl })).toString('base64url'),
    authenticatorData: Buffer.alloc(37).toString('base64url'),
    signature: Buffer.alloc(64).toString('base64url'),
  },
});

describe('signing in with a passkey, without a session', () => {
  test('the sign-in screen learns the ways offered: passkeys, and no OpenID Connect provider unless one is set up', async () => {
    const answer = await fetch(`${service.dashboardUrl}/signin/methods`);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await json(answer), { passkey: true, oidc: null });
  });

  test('the challenge names no one (any passkey the authenticator holds for this address) and is for the page that asked', async () => {
    const answer = await post('/signin/passkey/options', {});
    assert.equal(answer.status, 200);
    const { options } = await json(answer);
    assert.equal(options.rpId, 'localhost');
    assert.deepEqual(options.allowCredentials, []);
    assert.equal(options.userVerification, 'preferred');
    assert.equal(options.timeout, 5 * 60_000);
    assert.match(options.challenge, /^[A-Za-z0-9_-]{20,}$/);
    const again = await json(await post('/signin/passkey/options', {}));
    assert.notEqual(again.options.challenge, options.challenge, 'each request has its own challenge');
  });

  test('another site cannot ask for a challenge or send an answer: the dashboard’s own origin and a JSON body only', async () => {
    for (const path of ['/signin/passkey/options', '/signin/passkey']) {
      const foreign = await post(path, {}, { origin: 'http://evil.test' });
      assert.equal(foreign.status, 403, path);
      const form = await fetch(`${service.dashboardUrl}${path}`, {
        method: 'POST',
        headers: { origin: service.dashboardUrl, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'response=x',
      });
      assert.equal(form.status, 400, path);
      assert.equal((await json(form)).code, 'VALIDATION');
    }
  });

  test('a passkey works on a name, never on an IP address: the page at 127.0.0.1 is told where to go', async () => {
    const port = new URL(service.dashboardUrl).port;
    const answer = await post('/signin/passkey/options', {}, { origin: `http://127.0.0.1:${port}` });
    assert.equal(answer.status, 400);
    const body = await json(answer);
    assert.equal(body.code, 'PRECONDITION_FAILED');
    assert.match(body.message, new RegExp(`http://localhost:${port}`));
  });

  test('an answer that is not one, or of a passkey not known here, signs no one in and sets no cookie', async () => {
    const shapeless = await post('/signin/passkey', { response: 'nope' });
    assert.equal(shapeless.status, 400);
    assert.deepEqual((await json(shapeless)).violations, [{ field: 'response', rule: "must be the authenticator's answer" }]);

    const unknown = await post('/signin/passkey', { response: forgedAssertion('bm90LWEtcGFzc2tleQ') });
    assert.equal(unknown.status, 401);
    assert.equal(unknown.headers.getSetCookie().length, 0);
    const body = await json(unknown);
    assert.equal(body.code, 'UNAUTHORIZED');
    assert.match(body.message, /not known here/);
  });

  test('a forged answer for a passkey that exists is refused without saying which check failed', async () => {
    const id = 'Zm9yZ2VkLWNyZWRlbnRpYWw';
    const ownerId = await withLocalOwner(service.dataDir, async (_services, owner) => (owner.type === 'user' ? owner.userId : 0));
    await queryRows(
      service.dataDir,
      'insert into passkeys (id, user_id, public_key, counter, transports, name, created_at) values (?, ?, ?, 0, ?, ?, ?)',
      id,
      ownerId,
      Buffer.alloc(77).toString('base64url'),
      '[]',
      'Planted',
      new Date().toISOString(),
    );
    await post('/signin/passkey/options', {});
    const forged = await post('/signin/passkey', { response: forgedAssertion(id) });
    assert.equal(forged.status, 401);
    assert.equal(forged.headers.getSetCookie().length, 0);
    const body = await json(forged);
    assert.equal(body.code, 'UNAUTHORIZED');
    assert.equal(body.message, 'the passkey sign-in did not succeed: start it again, or sign in another way');
  });
});

describe("a person's passkeys, signed in", () => {
  test('without a session there is nothing to list or add', async () => {
    const list = await fetch(`${service.dashboardUrl}/api/passkeys`);
    assert.equal(list.status, 401);
    const options = await post('/api/passkeys/options', {});
    assert.equal(options.status, 401);
  });

  test('the challenge to add one is for this person, and asks for a passkey the authenticator keeps', async () => {
    const headers = await signedIn();
    const answer = await post('/api/passkeys/options', {}, headers);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    const { options } = await json(answer);
    assert.deepEqual(options.rp, { name: 'Statusdesk', id: 'localhost' });
    const owner = await withLocalOwner(service.dataDir, async (services, actor) => services.users.get(actor.type === 'user' ? actor.userId : 0));
    assert.equal(options.user.name, owner?.name);
    assert.equal(options.authenticatorSelection.residentKey, 'required');
    assert.equal(options.authenticatorSelection.userVerification, 'preferred');
    assert.equal(options.attestation, 'none');
    assert.ok(Array.isArray(options.excludeCredentials));
    // A change from another site is refused before it reaches the service.
    const foreign = await post('/api/passkeys/options', {}, { ...headers, origin: 'http://evil.test' });
    assert.equal(foreign.status, 403);
  });

  test('a name is one line of at most 60 characters; an answer that does not match a challenge adds nothing', async () => {
    const headers = await signedIn();
    const long = await post('/api/passkeys', { name: 'x'.repeat(61), response: { id: 'a' } }, headers);
    assert.equal(long.status, 400);
    assert.deepEqual((await json(long)).violations, [{ field: 'name', rule: 'must be at most 60 characters' }]);
    const twoLines = await post('/api/passkeys', { name: 'Laptop\nevil', response: { id: 'a' } }, headers);
    assert.equal(twoLines.status, 400);
    assert.equal((await json(twoLines)).violations[0].field, 'name');

    await post('/api/passkeys/options', {}, headers);
    const forged = await post('/api/passkeys', { name: 'Laptop', response: { id: 'YQ', rawId: 'YQ', type: 'public-key', response: {} } }, headers);
    assert.equal(forged.status, 400);
    const body = await json(forged);
    assert.equal(body.code, 'VALIDATION');
    assert.match(body.message, /the passkey was not added/);
    const list = await json(await fetch(`${service.dashboardUrl}/api/passkeys`, { headers }));
    assert.ok(!list.passkeys.some((p: { name: string }) => p.name === 'Laptop'));
  });

  test("one cannot remove a passkey that is not one's own", async () => {
    const headers = await signedIn();
    const answer = await post('/api/passkeys/bm9wZQ/remove', {}, headers);
    assert.equal(answer.status, 404);
  });

  test('passkeys belong to people: an API key holds none', async () => {
    await withLocalOwner(service.dataDir, async (services) => {
      const key: Actor = { type: 'apiKey', keyId: '1', scopes: ['write'], workspaceId: 1, userId: null, surface: 'rest' };
      await rejectsWith(services.passkeys.list(key), 'FORBIDDEN');
      await rejectsWith(services.passkeys.registrationOptions(key, service.dashboardUrl), 'FORBIDDEN');
      await rejectsWith(services.passkeys.remove(key, 'x'), 'FORBIDDEN');
    });
  });
});
