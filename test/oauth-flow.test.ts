/**
 * The OAuth 2.1 authorization server as an independent client uses it (oauth4webapi): discovery,
 * protected-resource metadata and the 401 that points at it, registration, authorize → consent →
 * callback, the code and refresh grants, revocation, denial; then what a token may do: the tool
 * split of its scope, audit entries in its name, its resource (/mcp, /rpc, both), its workspace,
 * the key that wins over it, reconnecting, and revoking from Connected apps. docs/reference/oauth.md
 * is the contract; everything runs against the real service on loopback ports.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { REFRESH_REPEAT_MS } from '../server/domain/oauth/tokens.ts';
import { hashSecret } from '../server/domain/secrets.ts';
import { queryRows } from './support/database.ts';
import { json } from './support/harness.ts';
import { ALL_TOOLS, connectMcp, ok, postMcp, READ_TOOLS } from './support/mcp-client.ts';
import {
  authorizeAndApprove,
  bearer,
  connectClient,
  decide,
  listMonitorsRpc,
  mcpStatus,
  type OAuthTestService,
  pkce,
  randomState,
  type Receiver,
  registerClient,
  registerRaw,
  startConsent,
  startOAuthService,
  startReceiver,
  TestBrowser,
  tokenRaw,
  toolNamesWith,
  waitForRedirect,
} from './support/oauth-peers.ts';

const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** The repeat window of a used refresh token is over: its use is moved back past it (tokens are stored only as hashes). */
async function pastRepeatWindow(dataDir: string, refreshToken: string): Promise<void> {
  const moved = await queryRows(
    dataDir,
    "update oauth_tokens set used_at = ? where token_hash = ? and kind = 'refresh' returning kind",
    new Date(Date.now() - REFRESH_REPEAT_MS - 1000).toISOString(),
    hashSecret(refreshToken),
  );
  assert.equal(moved.length, 1, 'the refresh token is not stored as the SHA-256 of itself');
}
const SCOPES = ['read', 'write'];

describe('OAuth with an independent client (oauth4webapi)', { timeout: 180_000 }, () => {
  let svc: OAuthTestService;
  let receiver: Receiver;
  let as: oauth.AuthorizationServer;

  before(async () => {
    svc = await startOAuthService();
    receiver = await startReceiver();
    as = await oauth.processDiscoveryResponse(new URL(svc.apiUrl), await oauth.discoveryRequest(new URL(svc.apiUrl), { algorithm: 'oauth2', ...insecure }));
  });
  after(async () => {
    await receiver.close();
    await svc.stop();
  });

  /** A registered public client of oauth4webapi, with its loopback redirect URI. */
  async function newClient(name = 'Flow editor'): Promise<{ client: oauth.Client; redirectUri: string }> {
    const redirectUri = receiver.redirectUri();
    const registered = await registerClient(svc.apiUrl, [redirectUri], name);
    return { client: { client_id: registered.client_id, token_endpoint_auth_method: 'none' }, redirectUri };
  }

  /** authorize → approve → callback validated by oauth4webapi → code grant; the tokens. */
  async function codeFlow(options: { scope?: string; resource?: string; access?: 'read' | 'write'; workspaceId?: number; via?: 'domain' | 'dashboard' } = {}) {
    const { client, redirectUri } = await newClient();
    const done = await authorizeAndApprove(svc, {
      client: { client_id: client.client_id, redirect_uri: redirectUri },
      scope: options.scope,
      resource: options.resource,
      decision: { decide: 'approve', access: options.access, workspaceId: options.workspaceId },
      via: options.via,
      receiver,
    });
    const params = oauth.validateAuthResponse(as, client, done.params, done.state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, done.pkce.verifier, {
      ...insecure,
      ...(options.resource ? { additionalParameters: { resource: options.resource } } : {}),
    });
    const headers = response.headers;
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    return { client, redirectUri, tokens, headers, done };
  }

  async function grantIdOf(clientId: string, workspaceId = svc.personalId): Promise<number> {
    const connection = (await svc.services.connections.list(svc.owner, workspaceId)).find((c) => c.clientId === clientId);
    assert.ok(connection, `no live connection of ${clientId}`);
    return Number(connection.id);
  }

  test('discovery: RFC 8414 metadata with the issuer exactly the API address and every field of the contract', async () => {
    const response = await oauth.discoveryRequest(new URL(svc.apiUrl), { algorithm: 'oauth2', ...insecure });
    const metadata = await oauth.processDiscoveryResponse(new URL(svc.apiUrl), response);
    assert.equal(metadata.issuer, svc.apiUrl);
    assert.equal(metadata.authorization_endpoint, `${svc.apiUrl}/oauth/authorize`);
    assert.equal(metadata.token_endpoint, `${svc.apiUrl}/oauth/token`);
    assert.equal(metadata.registration_endpoint, `${svc.apiUrl}/oauth/register`);
    assert.equal(metadata.revocation_endpoint, `${svc.apiUrl}/oauth/revoke`);
    assert.deepEqual(metadata.response_types_supported, ['code']);
    assert.deepEqual(metadata.grant_types_supported, ['authorization_code', 'refresh_token']);
    assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(metadata.token_endpoint_auth_methods_supported, ['none']);
    assert.deepEqual(metadata.revocation_endpoint_auth_methods_supported, ['none']);
    assert.deepEqual(metadata.scopes_supported, SCOPES);
    assert.equal(metadata.client_id_metadata_document_supported, true);
    assert.equal(metadata.authorization_response_iss_parameter_supported, true);
  });

  test('protected resource metadata: /mcp names {issuer}/mcp, the root names {issuer}', async () => {
    const mcp = await fetch(`${svc.apiUrl}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(mcp.status, 200);
    assert.match(mcp.headers.get('content-type') ?? '', /^application\/json/);
    const body = await json(mcp);
    assert.equal(body.resource, `${svc.apiUrl}/mcp`);
    assert.deepEqual(body.authorization_servers, [svc.apiUrl]);
    assert.deepEqual(body.scopes_supported, SCOPES);
    assert.deepEqual(body.bearer_methods_supported, ['header']);
    const root = await json(await fetch(`${svc.apiUrl}/.well-known/oauth-protected-resource`));
    assert.equal(root.resource, svc.apiUrl);
    assert.deepEqual(root.authorization_servers, [svc.apiUrl]);
  });

  test('/mcp without credentials: 401 whose WWW-Authenticate points at the metadata; a dead token adds invalid_token', async () => {
    const bare = await postMcp(svc.apiUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    assert.equal(bare.status, 401);
    assert.equal(bare.headers.get('www-authenticate'), `Bearer resource_metadata="${svc.apiUrl}/.well-known/oauth-protected-resource/mcp", scope="read write"`);
    const dead = await postMcp(svc.apiUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, bearer(`svc_oat_${'x'.repeat(43)}`));
    assert.equal(dead.status, 401);
    const header = dead.headers.get('www-authenticate') ?? '';
    assert.ok(
      header.startsWith(
        `Bearer resource_metadata="${svc.apiUrl}/.well-known/oauth-protected-resource/mcp", scope="read write", error="invalid_token", error_description="`,
      ),
      header,
    );

    // oauth4webapi, as a resource client, reads the same challenge.
    const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const error = await oauth.protectedResourceRequest(`svc_oat_${'y'.repeat(43)}`, 'POST', new URL(`${svc.apiUrl}/mcp`), headers, body, insecure).then(
      () => assert.fail('a dead token was accepted'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof oauth.WWWAuthenticateChallengeError, String(error));
    const challenge = error.cause[0]!;
    assert.equal(challenge.scheme, 'bearer');
    assert.equal(challenge.parameters.resource_metadata, `${svc.apiUrl}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(challenge.parameters.scope, 'read write');
    assert.equal(challenge.parameters.error, 'invalid_token');
  });

  test('registration: 201 with a public client of the contract, not cached', async () => {
    const redirectUri = receiver.redirectUri();
    const answer = await registerRaw(svc.apiUrl, { client_name: 'Registered editor', redirect_uris: [redirectUri] });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    assert.match(answer.body.client_id, /^sdc_[A-Za-z0-9_-]{32}$/);
    assert.equal(typeof answer.body.client_id_issued_at, 'number');
    assert.ok(Math.abs(answer.body.client_id_issued_at - Date.now() / 1000) < 60);
    assert.equal(answer.body.client_name, 'Registered editor');
    assert.deepEqual(answer.body.redirect_uris, [redirectUri]);
    assert.deepEqual(answer.body.grant_types, ['authorization_code', 'refresh_token']);
    assert.deepEqual(answer.body.response_types, ['code']);
    assert.equal(answer.body.token_endpoint_auth_method, 'none');
    assert.equal(answer.body.client_secret, undefined);
  });

  test('authorize → approve → callback (code, state, iss) → tokens; a write grant lists all 23 tools and its changes are audited in its name', async () => {
    const { client, tokens, headers, done } = await codeFlow({ scope: 'write', resource: `${svc.apiUrl}/mcp` });
    // The callback: code, the state unchanged, the issuer (RFC 9207), nothing else.
    assert.deepEqual([...done.params.keys()].sort(), ['code', 'iss', 'state']);
    assert.equal(done.params.get('iss'), svc.apiUrl);
    assert.equal(done.params.get('state'), done.state);
    assert.equal(headers.get('cache-control'), 'no-store');
    assert.match(tokens.access_token, /^svc_oat_[A-Za-z0-9_-]{43}$/);
    assert.match(tokens.refresh_token ?? '', /^svc_ort_[A-Za-z0-9_-]{43}$/);
    assert.equal(tokens.token_type, 'bearer'); // oauth4webapi lowercases it
    assert.equal(tokens.expires_in, 3600);
    assert.equal(tokens.scope, 'write');

    assert.deepEqual(await toolNamesWith(svc.apiUrl, bearer(tokens.access_token)), ALL_TOOLS);

    const page = await svc.services.pages.create(svc.owner, svc.personalId, {
      slug: `flow-${randomState()
        .toLowerCase()
        .replace(/[^a-z0-9]/g, 'x')}`,
      title: 'Flow',
    });
    const editor = await connectMcp(svc.apiUrl, '2025-11-25', bearer(tokens.access_token));
    let reportId: string;
    try {
      reportId = ok(await editor.call('create_status_report', { pageId: page.id, title: 'By an OAuth app', message: 'm', notify: false })).statusReport.id;
    } finally {
      await editor.close();
    }
    const grantId = await grantIdOf(client.client_id);
    const entries = (await svc.services.auditLog.list(svc.owner, svc.personalId, { entityType: 'status_report', entityId: reportId })).auditLogs;
    assert.equal(entries.length, 1);
    assert.equal(entries[0]!.actorType, 'mcp');
    assert.equal(entries[0]!.actorId, `oat_${grantId}`);
    assert.equal(entries[0]!.actorUserId, svc.owner.userId);
  });

  test('a token response is the same for a JSON body (form or JSON, SPEC 4.4)', async () => {
    const { client, redirectUri } = await newClient();
    const done = await authorizeAndApprove(svc, { client: { client_id: client.client_id, redirect_uri: redirectUri }, receiver });
    const answer = await tokenRaw(
      svc.apiUrl,
      {
        grant_type: 'authorization_code',
        code: done.params.get('code')!,
        redirect_uri: redirectUri,
        client_id: client.client_id,
        code_verifier: done.pkce.verifier,
      },
      true,
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    assert.deepEqual(Object.keys(answer.body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    assert.equal(answer.body.token_type, 'Bearer');
    assert.equal(answer.body.expires_in, 3600);
    assert.equal(answer.body.scope, 'write', 'no scope asks for write');
  });

  test('a read grant (lowered from write in the signed-in dashboard) lists only the read tools; a change is 403 insufficient_scope with -32003, and nothing changes', async () => {
    const { tokens } = await codeFlow({ scope: 'write', access: 'read', via: 'dashboard' });
    assert.equal(tokens.scope, 'read');
    assert.deepEqual(await toolNamesWith(svc.apiUrl, bearer(tokens.access_token)), [...READ_TOOLS].sort());
    const page = await svc.services.pages.create(svc.owner, svc.personalId, { slug: `read-${Date.now()}`, title: 'Read' });
    const call = await postMcp(
      svc.apiUrl,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'create_status_report', arguments: { pageId: page.id, title: 'No', message: 'm', notify: false } },
      },
      bearer(tokens.access_token),
    );
    // The contract: 403 whose body is the JSON-RPC error -32003, and a step-up challenge for write.
    assert.equal(call.status, 403, `a read token's change: ${call.status} ${call.text.slice(0, 300)}`);
    const body = JSON.parse(call.text);
    assert.equal(body.id, 7);
    assert.equal(body.error?.code, -32003);
    assert.equal(body.error?.data?.code, 'FORBIDDEN');
    const challenge = call.headers.get('www-authenticate') ?? '';
    assert.ok(challenge.startsWith('Bearer error="insufficient_scope", scope="write", '), challenge);
    assert.ok(challenge.includes(`resource_metadata="${svc.apiUrl}/.well-known/oauth-protected-resource/mcp"`), challenge);
    assert.match(challenge, /error_description="[^"]+"/);
    // A read key on the same call keeps SPEC 7's answer: -32003 inside a 200.
    const readKey = await svc.createKey('read');
    const byKey = await postMcp(
      svc.apiUrl,
      {
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'create_status_report', arguments: { pageId: page.id, title: 'No', message: 'm', notify: false } },
      },
      { 'x-service-key': readKey.secret },
    );
    assert.equal(byKey.status, 200);
    assert.equal(byKey.messages[0]?.error?.code, -32003);
    assert.equal((await svc.services.reports.list(svc.owner, svc.personalId, { filter: 'all', pageId: page.id })).pagination.totalSize, 0);
  });

  test('refresh rotates the refresh token; the retired one presented again is invalid_grant and revokes the grant', async () => {
    const { client, tokens } = await codeFlow({ resource: `${svc.apiUrl}/mcp` });
    const first = tokens.refresh_token!;
    const rotated = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), first, insecure));
    assert.notEqual(rotated.refresh_token, first);
    assert.notEqual(rotated.access_token, tokens.access_token);
    assert.match(rotated.access_token, /^svc_oat_/);
    assert.equal(rotated.expires_in, 3600);
    assert.equal(await mcpStatus(svc.apiUrl, bearer(rotated.access_token)), 200);

    // Presented again at once by the same client (a retry, a race): the same answer, and the grant lives.
    const repeated = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), first, insecure));
    assert.equal(repeated.access_token, rotated.access_token);
    assert.equal(repeated.refresh_token, rotated.refresh_token);
    assert.equal(await mcpStatus(svc.apiUrl, bearer(rotated.access_token)), 200);

    // Presented again once the repeat window is over: reuse.
    await pastRepeatWindow(svc.dataDir, first);
    const reuse = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), first, insecure);
    assert.equal(reuse.status, 400);
    const body = await json(reuse);
    assert.equal(body.error, 'invalid_grant');
    assert.equal(typeof body.error_description, 'string');
    // The whole grant is gone: the tokens of the rotation too.
    assert.equal(await mcpStatus(svc.apiUrl, bearer(rotated.access_token)), 401);
    assert.equal(await mcpStatus(svc.apiUrl, bearer(tokens.access_token)), 401);
    const again = await tokenRaw(svc.apiUrl, { grant_type: 'refresh_token', refresh_token: rotated.refresh_token!, client_id: client.client_id });
    assert.equal(again.body.error, 'invalid_grant');
  });

  test('refresh may lower write to read, never raise read to write', async () => {
    const { client, tokens } = await codeFlow({ scope: 'write' });
    const lowered = await tokenRaw(svc.apiUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: client.client_id,
      scope: 'read',
    });
    assert.equal(lowered.status, 200, JSON.stringify(lowered.body));
    assert.equal(lowered.body.scope, 'read');
    assert.deepEqual(await toolNamesWith(svc.apiUrl, bearer(lowered.body.access_token)), [...READ_TOOLS].sort());

    const reader = await codeFlow({ scope: 'read' });
    const raised = await tokenRaw(svc.apiUrl, {
      grant_type: 'refresh_token',
      refresh_token: reader.tokens.refresh_token!,
      client_id: reader.client.client_id,
      scope: 'write',
    });
    assert.equal(raised.status, 400);
    assert.equal(raised.body.error, 'invalid_scope');
  });

  test('revocation (RFC 7009): 200, the access token is then refused at /mcp; an unknown token is 200 too', async () => {
    const { client, tokens } = await codeFlow();
    assert.equal(await mcpStatus(svc.apiUrl, bearer(tokens.access_token)), 200);
    const response = await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token!, insecure);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    await oauth.processRevocationResponse(response);
    assert.equal(await mcpStatus(svc.apiUrl, bearer(tokens.access_token)), 401, 'revoking the refresh token revokes the whole grant');
    const refresh = await tokenRaw(svc.apiUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client.client_id });
    assert.equal(refresh.body.error, 'invalid_grant');

    const unknown = await oauth.revocationRequest(as, client, oauth.None(), `svc_oat_${'z'.repeat(43)}`, insecure);
    assert.equal(unknown.status, 200);
    await oauth.processRevocationResponse(unknown);
  });

  test('revoking with the access token revokes the grant too', async () => {
    const { client, tokens } = await codeFlow();
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), tokens.access_token, insecure));
    assert.equal(await mcpStatus(svc.apiUrl, bearer(tokens.access_token)), 401);
  });

  test('denial: the callback has error=access_denied, the state and iss, and no code', async () => {
    const { client, redirectUri } = await newClient();
    const done = await authorizeAndApprove(svc, { client: { client_id: client.client_id, redirect_uri: redirectUri }, decision: { decide: 'deny' }, receiver });
    assert.equal(done.params.get('error'), 'access_denied');
    assert.equal(done.params.get('state'), done.state);
    assert.equal(done.params.get('iss'), svc.apiUrl);
    assert.equal(done.params.get('code'), null);
    assert.throws(
      () => oauth.validateAuthResponse(as, client, done.params, done.state),
      (error: unknown) => error instanceof oauth.AuthorizationResponseError && error.error === 'access_denied',
    );
  });

  test('the waiting page gives redirectTo once: a second look after it was collected has none', async () => {
    const { client, redirectUri } = await newClient();
    const keys = pkce();
    const { browser, requestId } = await startConsent(svc, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      code_challenge: keys.challenge,
      code_challenge_method: 'S256',
    });
    await decide(svc, requestId, { decide: 'approve' });
    const redirectTo = await waitForRedirect(svc, browser, requestId);
    assert.ok(new URL(redirectTo).searchParams.get('code'));
    const second = await json(await browser.fetch(`${svc.dashboardUrl}/oauth/consent/requests/${requestId}`));
    assert.equal(second.redirectTo, undefined);
    assert.equal(second.status, 'completed');
  });

  test('/rpc accepts a token for {issuer} or {issuer}/rpc and refuses one for {issuer}/mcp; /mcp refuses one for {issuer}/rpc', async () => {
    const whole = await codeFlow({ resource: svc.apiUrl });
    const rpcOnly = await codeFlow({ resource: `${svc.apiUrl}/rpc` });
    const mcpOnly = await codeFlow({ resource: `${svc.apiUrl}/mcp` });
    for (const [name, tokens] of [
      ['{issuer}', whole.tokens],
      ['{issuer}/rpc', rpcOnly.tokens],
    ] as const) {
      const answer = await listMonitorsRpc(svc.apiUrl, bearer(tokens.access_token));
      assert.equal(answer.status, 200, `${name}: ${JSON.stringify(answer.body)}`);
      assert.ok(Array.isArray(answer.body.httpMonitors ?? []), JSON.stringify(answer.body));
    }
    const refused = await listMonitorsRpc(svc.apiUrl, bearer(mcpOnly.tokens.access_token));
    assert.equal(refused.status, 401);
    assert.equal(refused.body.code, 'unauthenticated');

    assert.equal(await mcpStatus(svc.apiUrl, bearer(whole.tokens.access_token)), 200);
    assert.equal(await mcpStatus(svc.apiUrl, bearer(mcpOnly.tokens.access_token)), 200);
    assert.equal(await mcpStatus(svc.apiUrl, bearer(rpcOnly.tokens.access_token)), 401);
  });

  test('a token works in the workspace chosen at consent only', async () => {
    const suffix = Date.now().toString(36);
    const other = await svc.services.workspaces.create(svc.owner, { name: `Other ${suffix}`, slug: `other-${suffix}` });
    const otherId = Number(other.id);
    const mine = await svc.services.pages.create(svc.owner, otherId, { slug: `ws-other-${suffix}`, title: 'In the other workspace' });
    const personal = await svc.services.pages.create(svc.owner, svc.personalId, { slug: `ws-personal-${suffix}`, title: 'In personal' });

    const { client, tokens } = await codeFlow({ workspaceId: otherId });
    assert.equal((await grantIdOf(client.client_id, otherId)) > 0, true);
    const editor = await connectMcp(svc.apiUrl, '2025-11-25', bearer(tokens.access_token));
    try {
      const pages = ok(await editor.call('list_status_pages')).statusPages.map((p: any) => p.id);
      assert.ok(pages.includes(mine.id), 'the chosen workspace is not the one the token reads');
      assert.ok(!pages.includes(personal.id), 'the token reads another workspace');
      const refused = await editor.client.callTool({
        name: 'create_status_report',
        arguments: { pageId: personal.id, title: 'Across', message: 'm', notify: false },
      });
      assert.equal(refused.isError, true, 'a page of another workspace was usable');
    } finally {
      await editor.close();
    }
    assert.equal((await svc.services.reports.list(svc.owner, svc.personalId, { filter: 'all', pageId: personal.id })).pagination.totalSize, 0);
  });

  test('x-service-key wins when both credentials are sent', async () => {
    const { tokens } = await codeFlow({ scope: 'write' });
    const readKey = await svc.createKey('read');
    assert.deepEqual(await toolNamesWith(svc.apiUrl, { 'x-service-key': readKey.secret, ...bearer(tokens.access_token) }), [...READ_TOOLS].sort());
    // A dead key beside a live token: the key is what counts.
    assert.equal(await mcpStatus(svc.apiUrl, { 'x-service-key': `svc_${'q'.repeat(43)}`, ...bearer(tokens.access_token) }), 401);
  });

  test('the same client approved again by the same user replaces the grant: the old tokens stop working', async () => {
    const first = await connectClient(svc, receiver);
    assert.equal(await mcpStatus(svc.apiUrl, bearer(first.tokens.access_token)), 200);
    const second = await connectClient(svc, receiver, { client: first.client });
    assert.notEqual(second.grantId, first.grantId);
    assert.equal(await mcpStatus(svc.apiUrl, bearer(first.tokens.access_token)), 401);
    const refresh = await tokenRaw(svc.apiUrl, { grant_type: 'refresh_token', refresh_token: first.tokens.refresh_token, client_id: first.client.client_id });
    assert.equal(refresh.body.error, 'invalid_grant');
    assert.equal(await mcpStatus(svc.apiUrl, bearer(second.tokens.access_token)), 200);
    const live = (await svc.services.connections.list(svc.owner, svc.personalId)).filter((c) => c.clientId === first.client.client_id);
    assert.deepEqual(
      live.map((c) => Number(c.id)),
      [second.grantId],
    );
  });

  test('Connected apps: approval is audited oauth_grant.create; revoking there is 401 on the next call and audited oauth_grant.delete', async () => {
    const { client, tokens, grantId } = await connectClient(svc, receiver, { name: 'Connected editor' });
    const owner = new TestBrowser();
    await owner.signIn(svc);
    const listed = await json(await owner.fetch(`${svc.dashboardUrl}/api/workspaces/${svc.personalId}/connections`));
    const connection = listed.connections.find((c: any) => c.id === String(grantId));
    assert.ok(connection, JSON.stringify(listed));
    assert.equal(connection.clientId, client.client_id);
    assert.equal(connection.clientName, 'Connected editor');
    assert.equal(connection.clientSource, 'registered');
    assert.equal(connection.access, 'write');
    assert.equal(connection.userId, String(svc.owner.userId));

    assert.equal(await mcpStatus(svc.apiUrl, bearer(tokens.access_token)), 200);
    const revoke = await owner.fetch(`${svc.dashboardUrl}/api/connections/${grantId}/revoke`, {
      method: 'POST',
      headers: { origin: svc.dashboardUrl, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(revoke.status, 200, await revoke.clone().text());
    assert.equal((await json(revoke)).connection.id, String(grantId));
    assert.equal(await mcpStatus(svc.apiUrl, bearer(tokens.access_token)), 401);

    const entries = (await svc.services.auditLog.list(svc.owner, svc.personalId, { entityType: 'oauth_grant', entityId: String(grantId) })).auditLogs;
    assert.deepEqual(entries.map((e) => e.action).sort(), ['oauth_grant.create', 'oauth_grant.delete']);
    for (const entry of entries) assert.equal(entry.actorUserId, svc.owner.userId);
  });
});
