/**
 * The official MCP SDK clients' own OAuth, as an editor runs it: connect, get a 401, discover the
 * authorization server from the protected-resource metadata, register, hand the authorization
 * address to the browser, get the code on a loopback port, finish, reconnect, list tools. Both the
 * 1.x SDK (`@modelcontextprotocol/sdk`) and the 2.x client (`@modelcontextprotocol/client`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError as UnauthorizedV2 } from '@modelcontextprotocol/client';
import { UnauthorizedError as UnauthorizedV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ALL_TOOLS, READ_TOOLS } from './support/mcp-client.ts';
import {
  bearer,
  decide,
  mcpStatus,
  type OAuthTestService,
  type Receiver,
  startConsent,
  startOAuthService,
  startReceiver,
  waitForRedirect,
} from './support/oauth-peers.ts';

const REQUEST_TIMEOUT_MS = 15_000;

/**
 * A minimal in-memory OAuthClientProvider, the shape both SDK majors accept: a loopback redirect
 * on the receiver's ephemeral port, storage for client information, tokens and the verifier, and
 * `redirectToAuthorization` keeping the address for the test's browser.
 */
class MemoryProvider {
  clientInfo: any;
  saved: any;
  verifier = '';
  authorizationUrls: URL[] = [];

  private readonly redirect: string;
  private readonly name: string;

  constructor(redirect: string, name: string) {
    this.redirect = redirect;
    this.name = name;
  }

  get redirectUrl(): string {
    return this.redirect;
  }

  get clientMetadata() {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.clientInfo;
  }

  saveClientInformation(info: unknown) {
    this.clientInfo = info;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: unknown) {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }

  codeVerifier() {
    assert.ok(this.verifier, 'no code verifier was saved before the redirect');
    return this.verifier;
  }
}

/** The test's browser on the address the SDK asked for: consent, the owner's decision, the callback. */
async function browse(svc: OAuthTestService, receiver: Receiver, authorizationUrl: URL, access: 'read' | 'write'): Promise<URLSearchParams> {
  assert.equal(`${authorizationUrl.origin}${authorizationUrl.pathname}`, `${svc.apiUrl}/oauth/authorize`);
  assert.equal(authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
  const params = Object.fromEntries(authorizationUrl.searchParams) as Record<string, string>;
  const { browser, requestId } = await startConsent(svc, params as never);
  await decide(svc, requestId, { decide: 'approve', access });
  const redirectTo = await waitForRedirect(svc, browser, requestId);
  const before = receiver.hits.length;
  await browser.open(redirectTo);
  assert.equal(receiver.hits.length, before + 1, 'the callback did not reach the loopback receiver');
  const callback = receiver.hits[before]!;
  assert.ok(callback.get('code'), `no code: ${callback}`);
  assert.equal(callback.get('iss'), svc.apiUrl);
  if (authorizationUrl.searchParams.has('state')) assert.equal(callback.get('state'), authorizationUrl.searchParams.get('state'));
  return callback;
}

describe('MCP SDK clients authorize themselves with OAuth', { timeout: 180_000 }, () => {
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

  for (const access of ['write', 'read'] as const) {
    test(`1.x SDK: 401 → UnauthorizedError → consent (${access}) → finishAuth(code) → tools/list shows the ${access} tools`, async () => {
      const provider = new MemoryProvider(receiver.redirectUri(), `SDK 1.x ${access}`);
      const mcpUrl = new URL(`${svc.apiUrl}/mcp`);
      const transport = new TransportV1(mcpUrl, { authProvider: provider as never });
      const client = new ClientV1({ name: 'sdk-1x', version: '1.0.0' });
      await assert.rejects(client.connect(transport, { timeout: REQUEST_TIMEOUT_MS }), (error: unknown) => error instanceof UnauthorizedV1);
      assert.match(provider.clientInfo?.client_id ?? '', /^sdc_/, 'the SDK did not register');
      assert.equal(provider.authorizationUrls.length, 1);
      const authorizationUrl = provider.authorizationUrls[0]!;
      assert.equal(authorizationUrl.searchParams.get('resource'), `${svc.apiUrl}/mcp`);

      const callback = await browse(svc, receiver, authorizationUrl, access);
      await transport.finishAuth(callback.get('code')!);
      assert.match(provider.saved?.access_token ?? '', /^svc_oat_/);
      assert.match(provider.saved?.refresh_token ?? '', /^svc_ort_/);
      assert.equal(provider.saved?.scope, access);
      await transport.close();

      const connected = new ClientV1({ name: 'sdk-1x', version: '1.0.0' });
      await connected.connect(new TransportV1(mcpUrl, { authProvider: provider as never }), { timeout: REQUEST_TIMEOUT_MS });
      try {
        const names = (await connected.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS })).tools.map((t) => t.name).sort();
        assert.deepEqual(names, access === 'write' ? ALL_TOOLS : [...READ_TOOLS].sort());
      } finally {
        await connected.close();
      }
    });
  }

  for (const access of ['write', 'read'] as const) {
    test(`2.x client: 401 → UnauthorizedError → consent (${access}) → finishAuth(callback, with iss) → tools/list shows the ${access} tools`, async () => {
      const provider = new MemoryProvider(receiver.redirectUri(), `SDK 2.x ${access}`);
      const mcpUrl = new URL(`${svc.apiUrl}/mcp`);
      const transport = new TransportV2(mcpUrl, { authProvider: provider as never });
      const client = new ClientV2({ name: 'sdk-2x', version: '1.0.0' });
      await assert.rejects(client.connect(transport, { timeout: REQUEST_TIMEOUT_MS }), (error: unknown) => error instanceof UnauthorizedV2);
      assert.match(provider.clientInfo?.client_id ?? '', /^sdc_/, 'the SDK did not register');
      assert.equal(provider.authorizationUrls.length, 1);
      const authorizationUrl = provider.authorizationUrls[0]!;
      assert.equal(authorizationUrl.searchParams.get('resource'), `${svc.apiUrl}/mcp`);

      const callback = await browse(svc, receiver, authorizationUrl, access);
      // The whole callback: the SDK checks iss against the issuer it discovered (RFC 9207).
      await transport.finishAuth(callback);
      assert.match(provider.saved?.access_token ?? '', /^svc_oat_/);
      assert.equal(provider.saved?.scope, access);
      await transport.close();

      const connected = new ClientV2({ name: 'sdk-2x', version: '1.0.0' });
      await connected.connect(new TransportV2(mcpUrl, { authProvider: provider as never }), { timeout: REQUEST_TIMEOUT_MS });
      try {
        const names = (await connected.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS })).tools.map((t) => t.name).sort();
        assert.deepEqual(names, access === 'write' ? ALL_TOOLS : [...READ_TOOLS].sort());
      } finally {
        await connected.close();
      }
    });
  }

  test('2.x client: a callback with another issuer is refused before the code is redeemed', async () => {
    const provider = new MemoryProvider(receiver.redirectUri(), 'SDK 2.x mix-up');
    const mcpUrl = new URL(`${svc.apiUrl}/mcp`);
    const transport = new TransportV2(mcpUrl, { authProvider: provider as never });
    await assert.rejects(
      new ClientV2({ name: 'sdk-2x', version: '1.0.0' }).connect(transport, { timeout: REQUEST_TIMEOUT_MS }),
      (error: unknown) => error instanceof UnauthorizedV2,
    );
    const callback = await browse(svc, receiver, provider.authorizationUrls[0]!, 'write');
    const forged = new URLSearchParams(callback);
    forged.set('iss', 'http://127.0.0.1:1');
    await assert.rejects(transport.finishAuth(forged));
    assert.equal(provider.saved, undefined);
    // The real callback still works: the code was not spent by the refused one.
    await transport.finishAuth(callback);
    assert.equal(await mcpStatus(svc.apiUrl, bearer(provider.tokens().access_token)), 200);
  });

  test('1.x SDK: an expired access token is refreshed with the rotated refresh token on the next connect', async () => {
    const provider = new MemoryProvider(receiver.redirectUri(), 'SDK 1.x refresh');
    const mcpUrl = new URL(`${svc.apiUrl}/mcp`);
    const transport = new TransportV1(mcpUrl, { authProvider: provider as never });
    await assert.rejects(
      new ClientV1({ name: 'sdk-1x', version: '1.0.0' }).connect(transport, { timeout: REQUEST_TIMEOUT_MS }),
      (error: unknown) => error instanceof UnauthorizedV1,
    );
    await transport.finishAuth((await browse(svc, receiver, provider.authorizationUrls[0]!, 'write')).get('code')!);
    const first = provider.saved;
    assert.ok(first);
    // The access token stops working (revoked server-side would end the grant; a dead token stands in for an expired one).
    provider.saved = { ...first, access_token: `svc_oat_${'e'.repeat(43)}` };
    const client = new ClientV1({ name: 'sdk-1x', version: '1.0.0' });
    await client.connect(new TransportV1(mcpUrl, { authProvider: provider as never }), { timeout: REQUEST_TIMEOUT_MS });
    try {
      assert.equal((await client.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS })).tools.length, ALL_TOOLS.length);
    } finally {
      await client.close();
    }
    assert.notEqual(provider.saved.refresh_token, first.refresh_token, 'the refresh token was not rotated');
    assert.equal(provider.authorizationUrls.length, 1, 'the SDK went back to the browser instead of refreshing');
  });
});
