/**
 * The peers of an OAuth flow, for tests that use the authorization server as real clients do: a
 * loopback redirect receiver, PKCE, a cookie-keeping "browser" that follows the authorize
 * redirects with fetch, the owner's decision (through the domain or the signed-in dashboard), and
 * a stand-in network for Client ID Metadata Documents that never leaves loopback.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import dns from 'node:dns';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { generate } from 'selfsigned';
import { withLocalOwner } from './database.ts';
import type { Actor } from '../../server/domain/actor.ts';
import type { MetadataNetwork } from '../../server/oauth/client-metadata.ts';
import { sessionTokenOf, startTestService, type TestService } from './harness.ts';
import { connectMcp, postMcp } from './mcp-client.ts';
import { eventually, until } from './wait.ts';

/** Every wait in this file gives up after this long, so a broken flow fails instead of hanging. */
const WAIT_MS = 10_000;

export type Owner = Extract<Actor, { type: 'user' }>;

export interface OAuthTestService extends TestService {
  /** The owner, as the signed-in person who decides on consent requests. */
  owner: Owner;
  /** The personal workspace's id. */
  personalId: number;
}

/**
 * The real service in this process, as `startTestService` starts it, with the owner at hand and
 * optionally a stand-in network for metadata documents (`config.metadataNetwork`).
 */
export async function startOAuthService(
  options: { env?: NodeJS.ProcessEnv; metadataNetwork?: MetadataNetwork; editorFolders?: { home: string; project: string } } = {},
): Promise<OAuthTestService> {
  const service = await startTestService(options.env, undefined, {
    ...(options.metadataNetwork ? { metadataNetwork: options.metadataNetwork } : {}),
    ...(options.editorFolders ? { editorFolders: options.editorFolders } : {}),
  });
  const owner = (await withLocalOwner(service.dataDir, async (_services, actor) => actor)) as Owner;
  const personalId = Number((await service.services.workspaces.getBySlug(owner, 'personal')).id);
  return { ...service, owner, personalId };
}

// ---- PKCE -----------------------------------------------------------------------------------------

export interface Pkce {
  verifier: string;
  challenge: string;
}

/** A fresh RFC 7636 verifier (43 characters) and its S256 challenge. */
export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const randomState = () => randomBytes(12).toString('base64url');

// ---- the loopback redirect receiver ---------------------------------------------------------------

export interface Receiver {
  port: number;
  /** `http://HOST:PORT/callback`; `host` is 127.0.0.1 unless told. */
  redirectUri(host?: string, path?: string): string;
  /** Every callback received, in order. */
  hits: URLSearchParams[];
  /** The next callback not yet taken (waits for it). */
  next(): Promise<URLSearchParams>;
  close(): Promise<void>;
}

/** An editor's loopback listener: records the query of every request and answers a short page. */
export async function startReceiver(): Promise<Receiver> {
  const hits: URLSearchParams[] = [];
  let taken = 0;
  const server: Server = createServer((req, res) => {
    hits.push(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this tab.');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    redirectUri: (host = '127.0.0.1', path = '/callback') => `http://${host}:${port}${path}`,
    hits,
    async next() {
      await until(() => hits.length > taken, 'a callback at the redirect receiver', WAIT_MS);
      return hits[taken++]!;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---- registration and the token endpoint ----------------------------------------------------------

export interface RegisteredClient {
  client_id: string;
  redirect_uris: string[];
  [field: string]: unknown;
}

/** POST /oauth/register with `body`; the raw answer. */
export async function registerRaw(apiUrl: string, body: unknown): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${apiUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(WAIT_MS),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** Registers a loopback client; fails unless 201. */
export async function registerClient(apiUrl: string, redirectUris: string[], name = 'Test editor'): Promise<RegisteredClient> {
  const answer = await registerRaw(apiUrl, {
    client_name: name,
    redirect_uris: redirectUris,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body;
}

/** POST /oauth/token, form-encoded unless `json`; the raw answer. */
export async function tokenRaw(apiUrl: string, params: Record<string, string>, json = false): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${apiUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
    body: json ? JSON.stringify(params) : new URLSearchParams(params).toString(),
    signal: AbortSignal.timeout(WAIT_MS),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** Asserts the RFC 6749 error shape `{error, error_description}` and nothing else. */
export function assertOAuthError(answer: { status: number; body: any }, status: number, error: string): void {
  assert.equal(answer.status, status, `expected ${status} ${error}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  assert.equal(answer.body.error, error, JSON.stringify(answer.body));
  assert.equal(typeof answer.body.error_description, 'string');
  assert.ok(answer.body.error_description.length > 0);
  assert.deepEqual(Object.keys(answer.body).sort(), ['error', 'error_description']);
}

// ---- the browser ----------------------------------------------------------------------------------

export interface Hop {
  url: string;
  status: number;
  location?: string;
  headers: Headers;
}

/**
 * A browser as far as OAuth cares: it follows redirects one by one (`redirect: 'manual'`), keeps
 * the cookies the dashboard sets, and sends them back to the host that set them.
 */
export class TestBrowser {
  /** host:port → name → value. Path and expiry are not tracked: tests never outlive a cookie. */
  readonly cookies = new Map<string, Map<string, string>>();

  cookieHeader(url: string): string | undefined {
    const jar = this.cookies.get(new URL(url).host);
    if (!jar || jar.size === 0) return undefined;
    return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private keep(url: string, response: Response): void {
    const host = new URL(url).host;
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const jar = this.cookies.get(host) ?? new Map<string, string>();
      if (/max-age=0/i.test(line) || value === '') jar.delete(name);
      else jar.set(name, value);
      this.cookies.set(host, jar);
    }
  }

  /** host:port → the session token the dashboard's page keeps (from the sign-in answer's page). */
  readonly sessionTokens = new Map<string, string>();

  /**
   * One request with this browser's cookies, as the page of that origin sends it: its session
   * token, and its Origin on a change. No redirect followed.
   */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.cookieHeader(url);
    if (cookie) headers.set('cookie', cookie);
    const token = this.sessionTokens.get(new URL(url).host);
    if (token && !headers.has('x-statusdesk-session')) headers.set('x-statusdesk-session', token);
    if ((init.method ?? 'GET') !== 'GET' && !headers.has('origin')) headers.set('origin', new URL(url).origin);
    const response = await fetch(url, { ...init, headers, redirect: 'manual', signal: AbortSignal.timeout(WAIT_MS) });
    this.keep(url, response);
    return response;
  }

  /** Follows redirects from `url` (at most 10), returning every hop; the last one is not a redirect. */
  async open(url: string): Promise<Hop[]> {
    const hops: Hop[] = [];
    let current = url;
    for (let i = 0; i < 10; i++) {
      const response = await this.fetch(current);
      const location = response.headers.get('location') ?? undefined;
      await response.arrayBuffer();
      hops.push({ url: current, status: response.status, location, headers: response.headers });
      if (response.status < 300 || response.status >= 400 || !location) return hops;
      current = new URL(location, current).toString();
    }
    assert.fail(`more than 10 redirects from ${url}: ${hops.map((h) => h.url).join(' → ')}`);
  }

  /** Signs this browser in to the dashboard as the owner. */
  async signIn(service: OAuthTestService): Promise<void> {
    const token = await service.services.sessions.createSignInToken(service.owner.userId);
    const response = await this.fetch(`${service.dashboardUrl}/signin?token=${token}`);
    assert.equal(response.status, 200, 'the sign-in link did not sign in');
    assert.ok(this.cookieHeader(service.dashboardUrl)?.includes('statusdesk_session='), 'no session cookie');
    this.sessionTokens.set(new URL(service.dashboardUrl).host, sessionTokenOf(await response.text()));
  }
}

// ---- one authorization, end to end ----------------------------------------------------------------

export interface AuthorizeParams {
  client_id: string;
  redirect_uri: string;
  scope?: string;
  resource?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  response_type?: string;
  [extra: string]: string | undefined;
}

/** The /oauth/authorize address of `params` (undefined ones left out). */
export function authorizeUrl(apiUrl: string, params: AuthorizeParams): string {
  const url = new URL(`${apiUrl}/oauth/authorize`);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

export interface ConsentStarted {
  browser: TestBrowser;
  hops: Hop[];
  /** The consent request id, from `/oauth/consent?request=ID`. */
  requestId: string;
}

/** Opens the authorize address in `browser` and follows it to the consent page; fails if it goes elsewhere. */
export async function startConsent(service: OAuthTestService, params: AuthorizeParams, browser = new TestBrowser()): Promise<ConsentStarted> {
  const hops = await browser.open(authorizeUrl(service.apiUrl, params));
  const last = new URL(hops.at(-1)!.url);
  assert.equal(
    `${last.origin}${last.pathname}`,
    `${service.dashboardUrl}/oauth/consent`,
    `the authorization did not reach the consent page: ${hops.map((h) => `${h.status} ${h.url}`).join(' → ')}`,
  );
  const requestId = last.searchParams.get('request');
  assert.ok(requestId, `no request id in ${last}`);
  assert.equal(last.searchParams.get('ticket'), null);
  return { browser, hops, requestId };
}

/** The consent request as `browser` sees it (its cookie, or its session). */
export async function viewConsent(service: OAuthTestService, browser: TestBrowser, requestId: string): Promise<{ status: number; body: any }> {
  const response = await browser.fetch(`${service.dashboardUrl}/oauth/consent/requests/${requestId}`);
  return { status: response.status, body: await response.json() };
}

export type Decision = { decide: 'approve'; workspaceId?: number; access?: 'read' | 'write' } | { decide: 'deny' };

/** The owner decides on a pending request: through the domain by its matching code, or in the signed-in dashboard. */
export async function decide(service: OAuthTestService, requestId: string, decision: Decision, via: 'domain' | 'dashboard' = 'domain'): Promise<any> {
  if (via === 'domain') {
    const pending = await service.services.oauth.pending(service.owner);
    const request = pending.find((r) => r.id === requestId);
    assert.ok(request, `consent request ${requestId} is not pending`);
    const ref = { matchCode: request.matchCode };
    if (decision.decide === 'deny') return service.services.oauth.deny(service.owner, ref);
    return service.services.oauth.approve(service.owner, ref, { workspaceId: decision.workspaceId ?? service.personalId, access: decision.access });
  }
  const owner = new TestBrowser();
  await owner.signIn(service);
  const list = await owner.fetch(`${service.dashboardUrl}/api/oauth/requests`);
  assert.equal(list.status, 200);
  const request = ((await list.json()) as { requests: any[] }).requests.find((r) => r.id === requestId);
  assert.ok(request, `consent request ${requestId} is not listed`);
  assert.ok(request.csrfToken, 'no csrfToken for a signed-in person');
  const body =
    decision.decide === 'deny'
      ? { csrfToken: request.csrfToken }
      : { csrfToken: request.csrfToken, workspaceId: decision.workspaceId ?? service.personalId, access: decision.access ?? request.access };
  const answer = await owner.fetch(`${service.dashboardUrl}/api/oauth/requests/${requestId}/${decision.decide}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: service.dashboardUrl },
    body: JSON.stringify(body),
  });
  const decided = await answer.json();
  assert.equal(answer.status, 200, JSON.stringify(decided));
  return decided;
}

/** Polls the waiting page's request with the browser's cookie until `redirectTo` appears. */
export async function waitForRedirect(service: OAuthTestService, browser: TestBrowser, requestId: string): Promise<string> {
  const { body } = await eventually(
    () => viewConsent(service, browser, requestId),
    (answer) => {
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return typeof answer.body.redirectTo === 'string';
    },
    'the decision gives the browser a redirectTo',
    WAIT_MS,
  );
  return body.redirectTo;
}

export interface AuthorizeOptions {
  client: { client_id: string; redirect_uri: string };
  scope?: string;
  resource?: string;
  /** What the owner grants (approve), or deny. */
  decision?: Decision;
  via?: 'domain' | 'dashboard';
  state?: string;
  pkce?: Pkce;
  browser?: TestBrowser;
  /** The receiver the redirect reaches; the callback is taken from it. */
  receiver: Receiver;
}

export interface Authorized {
  /** The query the redirect receiver got. */
  params: URLSearchParams;
  /** The address the browser was sent to. */
  redirectTo: string;
  pkce: Pkce;
  state: string;
  requestId: string;
  browser: TestBrowser;
}

/** authorize → consent page → the owner's decision → the waiting page's redirect → the client's callback. */
export async function authorizeAndApprove(service: OAuthTestService, options: AuthorizeOptions): Promise<Authorized> {
  const keys = options.pkce ?? pkce();
  const state = options.state ?? randomState();
  const { browser, requestId } = await startConsent(
    service,
    {
      response_type: 'code',
      client_id: options.client.client_id,
      redirect_uri: options.client.redirect_uri,
      code_challenge: keys.challenge,
      code_challenge_method: 'S256',
      scope: options.scope,
      resource: options.resource,
      state,
    },
    options.browser,
  );
  await decide(service, requestId, options.decision ?? { decide: 'approve' }, options.via);
  const redirectTo = await waitForRedirect(service, browser, requestId);
  const before = options.receiver.hits.length;
  const hops = await browser.open(redirectTo);
  assert.equal(hops[0]!.status, 200, `the receiver did not answer ${redirectTo}`);
  assert.equal(options.receiver.hits.length, before + 1);
  const params = options.receiver.hits[before]!;
  return { params, redirectTo, pkce: keys, state, requestId, browser };
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

/** A whole flow for a fresh loopback client: registered, approved as `decision`, code exchanged. */
export async function connectClient(
  service: OAuthTestService,
  receiver: Receiver,
  options: { scope?: string; resource?: string; decision?: Decision; name?: string; client?: { client_id: string; redirect_uri: string } } = {},
): Promise<{ client: { client_id: string; redirect_uri: string }; tokens: Tokens; grantId: number }> {
  const client = options.client ?? {
    client_id: (await registerClient(service.apiUrl, [receiver.redirectUri()], options.name)).client_id,
    redirect_uri: receiver.redirectUri(),
  };
  const done = await authorizeAndApprove(service, { client, scope: options.scope, resource: options.resource, decision: options.decision, receiver });
  const code = done.params.get('code');
  assert.ok(code, `no code: ${done.params}`);
  const answer = await tokenRaw(service.apiUrl, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirect_uri,
    client_id: client.client_id,
    code_verifier: done.pkce.verifier,
    ...(options.resource ? { resource: options.resource } : {}),
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  const grants = await service.services.connections.list(
    service.owner,
    (options.decision?.decide === 'approve' && options.decision.workspaceId) || service.personalId,
  );
  const grant = grants.find((g) => g.clientId === client.client_id);
  assert.ok(grant, 'no live connection for the client');
  return { client, tokens: answer.body, grantId: Number(grant.id) };
}

// ---- calling the resources with a token -----------------------------------------------------------

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The status of a tools/list on /mcp with `headers` (401 for a dead token). */
export async function mcpStatus(apiUrl: string, headers: Record<string, string>): Promise<number> {
  return (await postMcp(apiUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, headers)).status;
}

/** The tool names `tools/list` shows to the holder of `token`, through the SDK client. */
export async function toolNamesWith(apiUrl: string, headers: Record<string, string>): Promise<string[]> {
  const connection = await connectMcp(apiUrl, '2025-11-25', headers, { listTools: false });
  try {
    return (await connection.client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await connection.close();
  }
}

/** ConnectRPC ListMonitors with `headers`: the Connect protocol over JSON. */
export async function listMonitorsRpc(apiUrl: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await fetch(`${apiUrl}/rpc/monitor.v1.MonitorService/ListMonitors`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'connect-protocol-version': '1', ...headers },
    body: '{}',
    signal: AbortSignal.timeout(WAIT_MS),
  });
  return { status: response.status, body: await response.json() };
}

// ---- Client ID Metadata Documents without the internet -------------------------------------------

export interface StubNetwork extends MetadataNetwork {
  /** Host names resolved, in order. */
  resolved: string[];
  /** Connections opened, in order. */
  connected: { address: string; port: number; servername: string }[];
}

/**
 * A metadata network whose DNS answers come from `answers`, and whose connections go to a local
 * TLS server when `to` is given. Without `to`, any connection fails the test.
 */
export function stubNetwork(answers: Record<string, string[]>, to?: { port: number; ca: string }): StubNetwork {
  const resolved: string[] = [];
  const connected: StubNetwork['connected'] = [];
  return {
    resolved,
    connected,
    async resolve(host) {
      resolved.push(host);
      const addresses = answers[host];
      if (!addresses) throw new Error(`ENOTFOUND ${host}`);
      return addresses;
    },
    connect(target): Duplex {
      connected.push(target);
      if (!to) assert.fail(`the metadata fetch connected to ${target.address} for ${target.servername}; it should have been refused before connecting`);
      // Whatever address was checked, the bytes go to the local server: nothing leaves loopback.
      return tlsConnect({ host: '127.0.0.1', port: to.port, servername: target.servername, ca: to.ca, ALPNProtocols: ['http/1.1'] });
    },
  };
}

export interface MetadataHost {
  port: number;
  ca: string;
  /** Paths served: path → [status, body]. */
  documents: Map<string, { status: number; body: string; contentType?: string }>;
  requests: string[];
  close(): Promise<void>;
}

/** An https server on 127.0.0.1 with a certificate for `hostname`, serving metadata documents. */
export async function startMetadataHost(hostname: string): Promise<MetadataHost> {
  const pems = await generate([{ name: 'commonName', value: hostname }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: hostname }] },
    ],
  });
  const documents = new Map<string, { status: number; body: string; contentType?: string }>();
  const requests: string[] = [];
  const server: HttpsServer = createHttpsServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    requests.push(`${req.headers.host}${req.url}`);
    const doc = documents.get(req.url ?? '/');
    if (!doc) return void res.writeHead(404).end();
    res.writeHead(doc.status, { 'content-type': doc.contentType ?? 'application/json' }).end(doc.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    ca: pems.cert,
    documents,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface DnsGuard {
  /** Names the process tried to resolve through the system resolver, other than loopback ones. */
  refused: string[];
  restore(): void;
}

/**
 * Refuses, and records, every system DNS lookup of a name that is not loopback, in this process:
 * a metadata fetch that goes around its resolver (and so around its address checks) is caught
 * here instead of sending a query off this machine.
 */
export function guardSystemDns(): DnsGuard {
  const original = dns.lookup;
  const refused: string[] = [];
  const loopback = new Set(['localhost', '127.0.0.1', '::1']);
  const guarded = ((hostname: string, ...rest: unknown[]) => {
    if (loopback.has(hostname)) return (original as (...args: unknown[]) => unknown)(hostname, ...rest);
    refused.push(hostname);
    const callback = rest.at(-1) as (error: Error) => void;
    process.nextTick(() =>
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (system DNS refused by the test)`), { code: 'ENOTFOUND', hostname })),
    );
    return undefined;
  }) as typeof dns.lookup;
  dns.lookup = guarded;
  return {
    refused,
    restore() {
      dns.lookup = original;
    },
  };
}
