/**
 * The authorization server under attack: each row is something a hostile client, page or
 * program tries, and the refusal the contract (docs/reference/oauth.md) promises, with the RFC 6749
 * error shape where one is answered and no code leaking into any redirect. Client ID Metadata
 * Documents are fetched through a stand-in network: DNS answers are the test's, and every
 * connection goes to a local TLS server or fails the test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { queryRows } from './support/database.ts';
import { REFRESH_REPEAT_MS } from '../server/domain/oauth/tokens.ts';
import { hashSecret } from '../server/domain/secrets.ts';
import { rawHttp } from './support/mcp-client.ts';
import {
  assertOAuthError,
  authorizeAndApprove,
  authorizeUrl,
  bearer,
  connectClient,
  decide,
  type DnsGuard,
  guardSystemDns,
  type Hop,
  listMonitorsRpc,
  type MetadataHost,
  mcpStatus,
  type OAuthTestService,
  pkce,
  randomState,
  type Receiver,
  registerClient,
  registerRaw,
  startConsent,
  startMetadataHost,
  startOAuthService,
  startReceiver,
  type StubNetwork,
  stubNetwork,
  TestBrowser,
  tokenRaw,
  viewConsent,
  waitForRedirect,
} from './support/oauth-peers.ts';

/** No hop of a redirect chain hands a code to anyone. */
function assertNoCodeLeaked(hops: Hop[]): void {
  for (const hop of hops) {
    if (!hop.location) continue;
    const location = new URL(hop.location, hop.url);
    assert.equal(location.searchParams.get('code'), null, `a code leaked in ${hop.location}`);
  }
}

/** The authorization was shown as an error page (400, HTML, no redirect); returns its text. */
async function assertErrorPage(browser: TestBrowser, url: string, receiver: Receiver, description: RegExp, first?: () => void): Promise<void> {
  const before = receiver.hits.length;
  const response = await browser.fetch(url);
  const html = await response.text();
  first?.();
  assert.equal(response.status, 400, `expected an error page, got ${response.status} ${response.headers.get('location') ?? ''}`);
  assert.equal(response.headers.get('location'), null);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  assert.match(html, description);
  assert.equal(receiver.hits.length, before, 'the redirect receiver was reached');
}

/** The authorization went back to the client with `error` (and state and iss), and no code. */
async function assertRedirectedError(service: OAuthTestService, url: string, state: string, error: string): Promise<URLSearchParams> {
  const browser = new TestBrowser();
  const hops = await browser.open(url);
  assertNoCodeLeaked(hops);
  const first = hops[0]!;
  assert.equal(first.status, 302, `expected a redirect with ${error}, got ${first.status}`);
  const location = new URL(first.location!);
  assert.equal(location.searchParams.get('error'), error, first.location);
  assert.ok(location.searchParams.get('error_description'));
  assert.equal(location.searchParams.get('state'), state);
  assert.equal(location.searchParams.get('iss'), service.apiUrl);
  assert.equal(location.searchParams.get('code'), null);
  return location.searchParams;
}

describe('attacks on the authorization server', { timeout: 180_000 }, () => {
  let svc: OAuthTestService;
  let receiver: Receiver;

  before(async () => {
    svc = await startOAuthService();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await svc.stop();
  });

  /** The repeat window of a used refresh token is over: its use is moved back past it (tokens are stored only as hashes). */
  async function pastRepeatWindow(refreshToken: string): Promise<void> {
    const moved = await queryRows(
      svc.dataDir,
      "update oauth_tokens set used_at = ? where token_hash = ? and kind = 'refresh' returning kind",
      new Date(Date.now() - REFRESH_REPEAT_MS - 1000).toISOString(),
      hashSecret(refreshToken),
    );
    assert.equal(moved.length, 1, 'the refresh token is not stored as the SHA-256 of itself');
  }

  const newClient = async (uris = [receiver.redirectUri()]) => ({ client_id: (await registerClient(svc.apiUrl, uris)).client_id, redirect_uri: uris[0]! });

  /** Approved and collected, not yet exchanged: the code and what goes with it. */
  async function freshCode(options: { resource?: string; client?: { client_id: string; redirect_uri: string } } = {}) {
    const client = options.client ?? (await newClient());
    const done = await authorizeAndApprove(svc, { client, resource: options.resource, receiver });
    const code = done.params.get('code');
    assert.ok(code);
    return { client, code, verifier: done.pkce.verifier };
  }

  const exchange = (client: { client_id: string; redirect_uri: string }, code: string, verifier: string, extra: Record<string, string> = {}) =>
    tokenRaw(svc.apiUrl, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirect_uri,
      client_id: client.client_id,
      code_verifier: verifier,
      ...extra,
    });

  // ---- before the client and its redirect are trusted: pages, never redirects ---------------------

  test('a redirect URI that is not registered: error page 400, no redirect', async () => {
    const client = await newClient();
    const keys = pkce();
    const url = authorizeUrl(svc.apiUrl, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: receiver.redirectUri('127.0.0.1', '/elsewhere'),
      code_challenge: keys.challenge,
      code_challenge_method: 'S256',
      state: 's',
    });
    await assertErrorPage(new TestBrowser(), url, receiver, /redirect_uri/);
    const evil = authorizeUrl(svc.apiUrl, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: 'https://evil.example/cb',
      code_challenge: keys.challenge,
      code_challenge_method: 'S256',
    });
    await assertErrorPage(new TestBrowser(), evil, receiver, /redirect_uri/);
  });

  test('an unknown client_id: error page 400, no redirect', async () => {
    const keys = pkce();
    const url = authorizeUrl(svc.apiUrl, {
      response_type: 'code',
      client_id: 'sdc_unknown',
      redirect_uri: receiver.redirectUri(),
      code_challenge: keys.challenge,
      code_challenge_method: 'S256',
    });
    await assertErrorPage(new TestBrowser(), url, receiver, /invalid_client/);
  });

  test('localhost registered, 127.0.0.1 used (and the other way round): refused as a page', async () => {
    const keys = pkce();
    const local = await newClient([receiver.redirectUri('localhost')]);
    await assertErrorPage(
      new TestBrowser(),
      authorizeUrl(svc.apiUrl, {
        response_type: 'code',
        client_id: local.client_id,
        redirect_uri: receiver.redirectUri('127.0.0.1'),
        code_challenge: keys.challenge,
        code_challenge_method: 'S256',
      }),
      receiver,
      /redirect_uri/,
    );
    const numeric = await newClient([receiver.redirectUri('127.0.0.1')]);
    await assertErrorPage(
      new TestBrowser(),
      authorizeUrl(svc.apiUrl, {
        response_type: 'code',
        client_id: numeric.client_id,
        redirect_uri: receiver.redirectUri('localhost'),
        code_challenge: keys.challenge,
        code_challenge_method: 'S256',
      }),
      receiver,
      /redirect_uri/,
    );
  });

  test('a loopback redirect on another port is accepted (RFC 8252), on another path it is not', async () => {
    const client = await newClient([`http://127.0.0.1:1/callback`]);
    const keys = pkce();
    const { requestId } = await startConsent(svc, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: receiver.redirectUri(),
      code_challenge: keys.challenge,
      code_challenge_method: 'S256',
    });
    assert.ok(requestId);
    await assertErrorPage(
      new TestBrowser(),
      authorizeUrl(svc.apiUrl, {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: receiver.redirectUri('127.0.0.1', '/other'),
        code_challenge: keys.challenge,
        code_challenge_method: 'S256',
      }),
      receiver,
      /redirect_uri/,
    );
  });

  test('a redirect URI with a fragment: refused at registration, and at authorization as a page', async () => {
    const answer = await registerRaw(svc.apiUrl, { redirect_uris: [`${receiver.redirectUri()}#frag`] });
    assertOAuthError(answer, 400, 'invalid_redirect_uri');
    assert.match(answer.body.error_description, /fragment/);
    const client = await newClient();
    const keys = pkce();
    await assertErrorPage(
      new TestBrowser(),
      authorizeUrl(svc.apiUrl, {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: `${receiver.redirectUri()}#frag`,
        code_challenge: keys.challenge,
        code_challenge_method: 'S256',
      }),
      receiver,
      /redirect_uri/,
    );
  });

  for (const uri of [
    'javascript:alert(1)',
    'http://evil.example/cb',
    'ftp://127.0.0.1/cb',
    'data:text/html,hi',
    'https://evil.example/cb',
    'http://user:pw@127.0.0.1:1/cb',
    'file:///etc/passwd',
    'https://claude.ai.evil.example/cb',
  ]) {
    test(`registration refuses ${uri}: 400 invalid_redirect_uri naming it`, async () => {
      const answer = await registerRaw(svc.apiUrl, { client_name: 'Hostile', redirect_uris: [receiver.redirectUri(), uri] });
      assertOAuthError(answer, 400, 'invalid_redirect_uri');
      assert.ok(answer.body.error_description.includes(uri), answer.body.error_description);
      assert.equal(answer.headers.get('cache-control'), 'no-store');
    });
  }

  test('registration refuses a client_name with a NUL byte or a line break: 400 invalid_client_metadata naming client_name', async () => {
    for (const name of ['Editor\u0000', 'Editor\r\nX-Injected: 1']) {
      const answer = await registerRaw(svc.apiUrl, { client_name: name, redirect_uris: [receiver.redirectUri()] });
      assertOAuthError(answer, 400, 'invalid_client_metadata');
      assert.match(answer.body.error_description, /client_name must be one line/);
    }
  });

  test('registration refuses a client_name with an invisible or bidirectional control character, naming it and where it is', async () => {
    const hidden: [string, string][] = [
      ['\u200d', 'U+200D'], // zero-width joiner
      ['\u200b', 'U+200B'], // zero-width space
      ['\u200c', 'U+200C'], // zero-width non-joiner
      ['\u2060', 'U+2060'], // word joiner
      ['\ufeff', 'U+FEFF'], // byte order mark
      ['\u200e', 'U+200E'], // left-to-right mark
      ['\u200f', 'U+200F'], // right-to-left mark
      ['\u061c', 'U+061C'], // Arabic letter mark
      ['\u202a', 'U+202A'],
      ['\u202e', 'U+202E'], // right-to-left override
      ['\u2066', 'U+2066'],
      ['\u2069', 'U+2069'],
      ['\u0085', 'U+0085'], // a C1 control
      ['\u2028', 'U+2028'], // line separator
    ];
    for (const [ch, name] of hidden) {
      const answer = await registerRaw(svc.apiUrl, { client_name: `Claude${ch}Code`, redirect_uris: [receiver.redirectUri()] });
      assertOAuthError(answer, 400, 'invalid_client_metadata');
      assert.match(
        answer.body.error_description,
        /^client_name must be one line of visible text, without control, invisible or bidirectional control characters/,
      );
      assert.ok(answer.body.error_description.endsWith(`it holds ${name} at character 7`), answer.body.error_description);
    }
    // Letters of any script, and emoji that are one character, stay names.
    for (const name of ['Éditeur Zed', 'محرر', '编辑器 🚀']) {
      const answer = await registerRaw(svc.apiUrl, { client_name: name, redirect_uris: [receiver.redirectUri()] });
      assert.equal(answer.status, 201, `${name}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.client_name, name);
    }
  });

  test('registration accepts the allowed kinds: loopback, an editor scheme, https on a vendor domain', async () => {
    for (const uri of [
      'http://[::1]:8123/cb',
      'cursor://anysphere.cursor-retrieval/oauth/callback',
      'vscode://ms-vscode.mcp/cb',
      'https://claude.ai/api/mcp/auth_callback',
      'https://app.cursor.com/cb',
    ]) {
      const answer = await registerRaw(svc.apiUrl, { redirect_uris: [uri] });
      assert.equal(answer.status, 201, `${uri}: ${JSON.stringify(answer.body)}`);
    }
  });

  // ---- after trust: errors go back to the client ---------------------------------------------------

  test('PKCE plain: redirected with error=invalid_request, the state and iss, no code', async () => {
    const client = await newClient();
    const state = randomState();
    const { verifier } = pkce();
    await assertRedirectedError(
      svc,
      authorizeUrl(svc.apiUrl, {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: client.redirect_uri,
        code_challenge: verifier,
        code_challenge_method: 'plain',
        state,
      }),
      state,
      'invalid_request',
    );
  });

  test('PKCE missing: redirected with error=invalid_request (no challenge; no method)', async () => {
    const client = await newClient();
    const state = randomState();
    await assertRedirectedError(
      svc,
      authorizeUrl(svc.apiUrl, { response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect_uri, state }),
      state,
      'invalid_request',
    );
    await assertRedirectedError(
      svc,
      authorizeUrl(svc.apiUrl, {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: client.redirect_uri,
        code_challenge: pkce().challenge,
        state,
      }),
      state,
      'invalid_request',
    );
  });

  test('response_type token, a scope that does not exist, a resource served elsewhere: unsupported_response_type, invalid_scope, invalid_target', async () => {
    const client = await newClient();
    const state = randomState();
    const base = { client_id: client.client_id, redirect_uri: client.redirect_uri, code_challenge: pkce().challenge, code_challenge_method: 'S256', state };
    await assertRedirectedError(svc, authorizeUrl(svc.apiUrl, { ...base, response_type: 'token' }), state, 'unsupported_response_type');
    await assertRedirectedError(svc, authorizeUrl(svc.apiUrl, { ...base, response_type: 'code', scope: 'admin' }), state, 'invalid_scope');
    await assertRedirectedError(
      svc,
      authorizeUrl(svc.apiUrl, { ...base, response_type: 'code', resource: 'https://evil.example/mcp' }),
      state,
      'invalid_target',
    );
  });

  // ---- the token endpoint --------------------------------------------------------------------------

  test('a wrong code_verifier: invalid_grant', async () => {
    const { client, code } = await freshCode();
    assertOAuthError(await exchange(client, code, pkce().verifier), 400, 'invalid_grant');
  });

  test('code replay: invalid_grant, and the tokens of the first exchange then get 401', async () => {
    const { client, code, verifier } = await freshCode();
    const first = await exchange(client, code, verifier);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(await mcpStatus(svc.apiUrl, bearer(first.body.access_token)), 200);
    const replay = await exchange(client, code, verifier);
    assertOAuthError(replay, 400, 'invalid_grant');
    assert.equal(replay.headers.get('cache-control'), 'no-store');
    assert.equal(await mcpStatus(svc.apiUrl, bearer(first.body.access_token)), 401);
    assertOAuthError(
      await tokenRaw(svc.apiUrl, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: client.client_id }),
      400,
      'invalid_grant',
    );
  });

  test('a code presented by another client: invalid_grant (RFC 6749 section 5.2, as the docs say), and no tokens', async () => {
    const { client, code, verifier } = await freshCode();
    const thief = await newClient();
    const stolen = await exchange(thief, code, verifier, { redirect_uri: client.redirect_uri });
    assertOAuthError(stolen, 400, 'invalid_grant');
    assert.match(stolen.body.error_description, /issued to another client/);
    // The code is still its client's.
    const own = await exchange(client, code, verifier);
    assert.equal(own.status, 200, JSON.stringify(own.body));
  });

  test('redirect_uri differing at the token endpoint: invalid_grant (another path; another port)', async () => {
    const { client, code, verifier } = await freshCode();
    assertOAuthError(await exchange(client, code, verifier, { redirect_uri: receiver.redirectUri('127.0.0.1', '/other') }), 400, 'invalid_grant');
    // RFC 6749 4.1.3: identical to the authorization request's; the port leeway is for matching the registered URI.
    const port = await freshCode();
    assertOAuthError(
      await exchange(port.client, port.code, port.verifier, { redirect_uri: `http://127.0.0.1:${receiver.port === 1 ? 2 : 1}/callback` }),
      400,
      'invalid_grant',
    );
  });

  test('an expired code: invalid_grant', async () => {
    const { client, code, verifier } = await freshCode();
    // Ten minutes are over: the stored expiry is moved into the past (codes are kept only as hashes).
    const changed = await queryRows(
      svc.dataDir,
      "update oauth_tokens set expires_at = ? where token_hash = ? and kind = 'code' returning kind",
      new Date(Date.now() - 1000).toISOString(),
      hashSecret(code),
    );
    assert.equal(changed.length, 1, 'the code is not stored as the SHA-256 of itself');
    const answer = await exchange(client, code, verifier);
    assertOAuthError(answer, 400, 'invalid_grant');
  });

  test('refresh token reuse after the repeat window: invalid_grant, and the grant is revoked', async () => {
    const { client, tokens } = await connectClient(svc, receiver);
    const rotated = await tokenRaw(svc.apiUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
    assert.equal(rotated.status, 200);
    await pastRepeatWindow(tokens.refresh_token);
    assertOAuthError(
      await tokenRaw(svc.apiUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id }),
      400,
      'invalid_grant',
    );
    assert.equal(await mcpStatus(svc.apiUrl, bearer(rotated.body.access_token)), 401);
  });

  test('a used refresh token presented within the repeat window by another client: invalid_grant, and the grant is revoked', async () => {
    const { client, tokens } = await connectClient(svc, receiver);
    const rotated = await tokenRaw(svc.apiUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
    assert.equal(rotated.status, 200);
    const thief = await newClient();
    const stolen = await tokenRaw(svc.apiUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: thief.client_id });
    assertOAuthError(stolen, 400, 'invalid_grant');
    assert.equal(await mcpStatus(svc.apiUrl, bearer(rotated.body.access_token)), 401);
  });

  test('a refresh token presented by another client: invalid_grant (RFC 6749 section 5.2), and no tokens', async () => {
    const { tokens } = await connectClient(svc, receiver);
    const thief = await newClient();
    const answer = await tokenRaw(svc.apiUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: thief.client_id });
    assertOAuthError(answer, 400, 'invalid_grant');
    assert.match(answer.body.error_description, /issued to another client/);
  });

  test('a token for another resource: invalid_target at the token endpoint; a /mcp token is refused at /rpc', async () => {
    const { client, code, verifier } = await freshCode({ resource: `${svc.apiUrl}/mcp` });
    assertOAuthError(await exchange(client, code, verifier, { resource: `${svc.apiUrl}/rpc` }), 400, 'invalid_target');
    const ok = await exchange(client, code, verifier, { resource: `${svc.apiUrl}/mcp` });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal((await listMonitorsRpc(svc.apiUrl, bearer(ok.body.access_token))).status, 401);
    assertOAuthError(
      await tokenRaw(svc.apiUrl, { grant_type: 'refresh_token', refresh_token: ok.body.refresh_token, client_id: client.client_id, resource: svc.apiUrl }),
      400,
      'invalid_target',
    );
  });

  test("the token endpoint refuses what is not a public client's grant: unsupported_grant_type, a client_secret, a missing field", async () => {
    assertOAuthError(await tokenRaw(svc.apiUrl, { grant_type: 'client_credentials', client_id: 'sdc_x' }), 400, 'unsupported_grant_type');
    assertOAuthError(await tokenRaw(svc.apiUrl, { grant_type: 'password', client_id: 'sdc_x', username: 'a', password: 'b' }), 400, 'unsupported_grant_type');
    assertOAuthError(
      await tokenRaw(svc.apiUrl, { grant_type: 'authorization_code', client_id: 'sdc_x', code: 'c', redirect_uri: receiver.redirectUri() }),
      400,
      'invalid_request',
    );
    const response = await fetch(`${svc.apiUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'grant_type=authorization_code',
    });
    assertOAuthError({ status: response.status, body: await response.json() }, 400, 'invalid_request');
  });

  // ---- the consent step ----------------------------------------------------------------------------

  test("a consent decision without the anti-forgery token, or with another request's: 403, and the request stays pending", async () => {
    const client = await newClient();
    const first = await startConsent(svc, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: client.redirect_uri,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const second = await startConsent(svc, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: client.redirect_uri,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const owner = new TestBrowser();
    await owner.signIn(svc);
    const otherToken = (await viewConsent(svc, owner, second.requestId)).body.csrfToken;
    assert.ok(otherToken);
    for (const body of [
      { workspaceId: svc.personalId, access: 'write' },
      { workspaceId: svc.personalId, access: 'write', csrfToken: otherToken },
      { workspaceId: svc.personalId, access: 'write', csrfToken: '' },
    ]) {
      for (const action of ['approve', 'deny']) {
        const response = await owner.fetch(`${svc.dashboardUrl}/api/oauth/requests/${first.requestId}/${action}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: svc.dashboardUrl },
          body: JSON.stringify(body),
        });
        assert.equal(response.status, 403, `${action} with ${JSON.stringify(body)}: ${response.status}`);
      }
    }
    assert.equal((await viewConsent(svc, first.browser, first.requestId)).body.status, 'pending');
  });

  test("consent pages cannot be framed: frame-ancestors 'none' and X-Frame-Options DENY", async () => {
    const client = await newClient();
    const { browser, hops, requestId } = await startConsent(svc, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: client.redirect_uri,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const pages = [
      ...hops.filter((h) => h.url.startsWith(svc.dashboardUrl)).map((h) => h.headers),
      (await browser.fetch(`${svc.dashboardUrl}/oauth/consent?request=${requestId}`)).headers,
      (await browser.fetch(`${svc.dashboardUrl}/oauth/consent/requests/${requestId}`)).headers,
    ];
    assert.ok(pages.length >= 3);
    for (const headers of pages) {
      assert.match(headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      assert.equal(headers.get('x-frame-options'), 'DENY');
    }
    // The error page of /oauth/authorize too.
    const error = await fetch(authorizeUrl(svc.apiUrl, { response_type: 'code', client_id: 'sdc_none', redirect_uri: client.redirect_uri }));
    assert.match(error.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.equal(error.headers.get('x-frame-options'), 'DENY');
  });

  test('the consent cookie is HttpOnly, SameSite=Lax, path /oauth/consent; the ticket works once', async () => {
    const client = await newClient();
    const browser = new TestBrowser();
    const first = await browser.fetch(
      authorizeUrl(svc.apiUrl, {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: client.redirect_uri,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    );
    const ticketUrl = first.headers.get('location')!;
    assert.ok(ticketUrl.startsWith(`${svc.dashboardUrl}/oauth/consent?ticket=`), ticketUrl);
    const redeemed = await browser.fetch(ticketUrl);
    assert.equal(redeemed.status, 303);
    const cookie = redeemed.headers.getSetCookie().find((c) => c.startsWith('statusdesk_consent_'));
    assert.ok(cookie, 'no consent cookie');
    assert.match(cookie, /;\s*HttpOnly/i);
    assert.match(cookie, /;\s*SameSite=Lax/i);
    assert.match(cookie, /;\s*Path=\/oauth\/consent/i);
    // Another browser with the same ticket (it leaked through history or a referrer) gets nothing.
    const other = new TestBrowser();
    const again = await other.fetch(ticketUrl);
    assert.equal(again.status, 400);
    assert.deepEqual(again.headers.getSetCookie(), []);
  });

  test('the waiting page polled from another browser: 403 and no redirectTo, before and after the decision', async () => {
    const client = await newClient();
    const mine = await startConsent(svc, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: client.redirect_uri,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      state: 'st',
    });
    const theirs = await startConsent(svc, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: client.redirect_uri,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const stranger = new TestBrowser();
    const probe = async () => {
      for (const browser of [stranger, theirs.browser]) {
        const { status, body } = await viewConsent(svc, browser, mine.requestId);
        assert.equal(status, 403, JSON.stringify(body));
        assert.equal(body.redirectTo, undefined);
        assert.ok(!JSON.stringify(body).includes('code='), JSON.stringify(body));
      }
    };
    await probe();
    await decide(svc, mine.requestId, { decide: 'approve' });
    await probe();
    // The browser that made it still collects it.
    const redirectTo = await waitForRedirect(svc, mine.browser, mine.requestId);
    assert.ok(new URL(redirectTo).searchParams.get('code'));
    await probe();
  });

  test("a Host header that is not the service's: 403 at the authorization server and at the consent page", async () => {
    const apiPort = Number(new URL(svc.apiUrl).port);
    const dashboardPort = Number(new URL(svc.dashboardUrl).port);
    for (const [port, path, method] of [
      [apiPort, '/oauth/authorize?response_type=code&client_id=x', 'GET'],
      [apiPort, '/oauth/token', 'POST'],
      [apiPort, '/oauth/register', 'POST'],
      [apiPort, '/.well-known/oauth-authorization-server', 'GET'],
      [dashboardPort, '/oauth/consent?ticket=x', 'GET'],
      [dashboardPort, '/oauth/consent/requests/AAAAAAAAAAAAAAAAAAAAAA', 'GET'],
    ] as const) {
      const answer = await rawHttp(port, {
        method,
        path,
        headers: { host: 'evil.example', 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      assert.equal(answer.status, 403, `${method} ${path}: ${answer.status} ${answer.text.slice(0, 200)}`);
      assert.equal(answer.headers.location, undefined);
    }
  });
});

// ---- Client ID Metadata Documents ---------------------------------------------------------------------

describe('Client ID Metadata Documents through a stand-in network', { timeout: 120_000 }, () => {
  const HOST = 'editor.example';
  /** A public address the stand-in DNS gives the editor's host; nothing is ever sent there. */
  const PUBLIC = '93.184.215.14';
  let svc: OAuthTestService;
  let receiver: Receiver;
  let host: MetadataHost;
  let network: StubNetwork;
  let systemDns: DnsGuard;
  /** Hosts the stand-in DNS answers with addresses a fetch must refuse. */
  const hostile: Record<string, string[]> = {
    'loopback.example': ['127.0.0.1'],
    'ten.example': ['10.1.2.3'],
    'mixed.example': [PUBLIC, '10.0.0.8'],
    'mapped.example': ['::ffff:127.0.0.1'],
    'compatible.example': ['::7f00:1'],
    'v6-loopback.example': ['::1'],
    'link-local.example': ['169.254.169.254'],
    'private172.example': ['172.16.5.4'],
    'cgnat.example': ['100.64.1.1'],
    'ula.example': ['fd00::1'],
  };

  before(async () => {
    systemDns = guardSystemDns();
    host = await startMetadataHost(HOST);
    network = stubNetwork({ [HOST]: [PUBLIC], 'redirecting.example': [PUBLIC], ...hostile }, { port: host.port, ca: host.ca });
    svc = await startOAuthService({ metadataNetwork: network });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await host.close();
    await svc.stop();
    systemDns.restore();
  });

  /** The fetch went through the given resolver only: the system's was never asked. */
  const fresh = () => {
    systemDns.refused.length = 0;
  };
  const assertOnlyStubResolver = () =>
    assert.deepEqual(
      systemDns.refused,
      [],
      `the metadata fetch resolved ${systemDns.refused.join(', ')} through the system DNS, around the resolver whose answers it checked`,
    );

  const documentUrl = (name: string, h = HOST) => `https://${h}/oauth/${name}.json`;
  const serve = (name: string, doc: unknown, status = 200) => host.documents.set(`/oauth/${name}.json`, { status, body: JSON.stringify(doc) });

  test('a valid document: the consent names its host, the flow completes, and the connection went to the address that was checked', async () => {
    const clientId = documentUrl('good');
    serve('good', { client_id: clientId, client_name: 'Metadata editor', redirect_uris: [receiver.redirectUri()], token_endpoint_auth_method: 'none' });
    fresh();
    const connectedBefore = network.connected.length;
    const done = await authorizeAndApprove(svc, { client: { client_id: clientId, redirect_uri: receiver.redirectUri() }, receiver }).catch((error: unknown) => {
      assertOnlyStubResolver();
      throw error;
    });
    assertOnlyStubResolver();
    assert.ok(done.params.get('code'));
    const checked = network.connected.slice(connectedBefore);
    assert.ok(checked.length >= 1);
    for (const target of checked) {
      assert.equal(target.address, PUBLIC, 'the connection did not go to the address that was checked');
      assert.equal(target.servername, HOST);
    }
    const token = await tokenRaw(svc.apiUrl, {
      grant_type: 'authorization_code',
      code: done.params.get('code')!,
      redirect_uri: receiver.redirectUri(),
      client_id: clientId,
      code_verifier: done.pkce.verifier,
    });
    assert.equal(token.status, 200, JSON.stringify(token.body));
    const connection = (await svc.services.connections.list(svc.owner, svc.personalId)).find((c) => c.clientId === clientId);
    assert.equal(connection?.clientSource, 'metadata');
    assert.equal(connection?.clientHost, HOST);
  });

  for (const [name, addresses] of Object.entries(hostile)) {
    test(`a host resolving to ${addresses.join(', ')} is refused after resolution, before any connection: error page, no redirect`, async () => {
      const before = network.connected.length;
      const resolvedBefore = network.resolved.length;
      const url = authorizeUrl(svc.apiUrl, {
        response_type: 'code',
        client_id: documentUrl('client', name),
        redirect_uri: receiver.redirectUri(),
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        state: 's',
      });
      await assertErrorPage(new TestBrowser(), url, receiver, /not a public address|could not be used/);
      assert.ok(network.resolved.slice(resolvedBefore).includes(name), `${name} was not resolved through the given resolver`);
      assert.equal(network.connected.length, before, `a connection was opened for ${name}`);
    });
  }

  for (const literal of ['127.0.0.1', '10.0.0.1', '[::1]', '169.254.169.254']) {
    test(`an address literal ${literal} as the document host is refused without a connection`, async () => {
      const before = network.connected.length;
      const url = authorizeUrl(svc.apiUrl, {
        response_type: 'code',
        client_id: `https://${literal}/client.json`,
        redirect_uri: receiver.redirectUri(),
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      });
      await assertErrorPage(new TestBrowser(), url, receiver, /could not be used|not a public address/);
      assert.equal(network.connected.length, before);
    });
  }

  test('a document whose client_id differs from its URL: error page, no redirect', async () => {
    const clientId = documentUrl('impostor');
    serve('impostor', { client_id: documentUrl('someone-else'), client_name: 'Impostor', redirect_uris: [receiver.redirectUri()] });
    const url = authorizeUrl(svc.apiUrl, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: receiver.redirectUri(),
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    fresh();
    await assertErrorPage(new TestBrowser(), url, receiver, /must name its own URL as client_id/, assertOnlyStubResolver);
  });

  test('a document that redirects, is not 200, or is not JSON: error page, the redirect is not followed', async () => {
    host.documents.set('/oauth/moved.json', { status: 302, body: '' });
    serve('gone', { client_id: documentUrl('gone') }, 404);
    host.documents.set('/oauth/html.json', { status: 200, body: '<html></html>', contentType: 'text/html' });
    for (const name of ['moved', 'gone', 'html']) {
      const url = authorizeUrl(svc.apiUrl, {
        response_type: 'code',
        client_id: documentUrl(name),
        redirect_uri: receiver.redirectUri(),
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      });
      fresh();
      await assertErrorPage(new TestBrowser(), url, receiver, /could not be used: it (answered|is not JSON)/, assertOnlyStubResolver);
    }
  });

  test('a redirect URI the document does not list: error page, no redirect', async () => {
    const clientId = documentUrl('narrow');
    serve('narrow', { client_id: clientId, client_name: 'Narrow', redirect_uris: ['http://127.0.0.1:1/only-here'] });
    const url = authorizeUrl(svc.apiUrl, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: receiver.redirectUri('127.0.0.1', '/elsewhere'),
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    fresh();
    await assertErrorPage(new TestBrowser(), url, receiver, /redirect_uri/, assertOnlyStubResolver);
  });
});
