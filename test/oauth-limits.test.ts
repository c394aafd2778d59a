/**
 * What the authorization server keeps bounded, and how it says so: registrations per client address
 * and registrations never used, consent requests waiting for a decision, refreshes racing on one
 * token, and the RFC 6749 shape of every refusal under /oauth/, including those no endpoint makes
 * (a body over the limit, a wrong method, an unknown path). docs/reference/oauth.md is the contract.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../server/db/open.ts';
import type { Actor } from '../server/domain/actor.ts';
import type { OAuthClient } from '../server/domain/oauth/clients.ts';
import { createOAuthService, type OAuthService } from '../server/domain/oauth/oauth.ts';
import { OAuthError } from '../server/domain/oauth/oauth-error.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { REGISTRATIONS_PER_MINUTE } from '../server/oauth/register.ts';
import { createServices, type Services } from '../server/services.ts';
import { openTestDatabase, queryRows } from './support/database.ts';
import { tempDir } from './support/harness.ts';
import {
  assertOAuthError,
  authorizeUrl,
  bearer,
  connectClient,
  mcpStatus,
  type OAuthTestService,
  pkce,
  type Receiver,
  registerClient,
  startOAuthService,
  startReceiver,
  tokenRaw,
} from './support/oauth-peers.ts';

const MiB = 1024 * 1024;

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/**
 * One request to the API port from `localAddress` (a loopback address of the test's choice: the
 * service counts registrations per client address), its body written by `write`. Resolves on the
 * answer, which may come before the body is done.
 */
function send(
  port: number,
  options: { method: string; path: string; headers?: Record<string, string>; localAddress?: string },
  write: (req: http.ClientRequest) => void,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method,
        path: options.path,
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
        localAddress: options.localAddress,
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) });
          req.destroy();
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    write(req);
  });
}

const endWith = (body: string) => (req: http.ClientRequest) => req.end(body);

/** Writes `total` bytes in 64 KiB chunks without a Content-Length (so chunked), then ends. */
function writeChunked(total: number): (req: http.ClientRequest) => void {
  return (req) => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    const pump = () => {
      while (sent < total && !req.destroyed) {
        const part = chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += part.length;
        if (!req.write(part)) return void req.once('drain', pump);
      }
      if (!req.destroyed) req.end();
    };
    pump();
  };
}

/** RFC 6749's shape, uncached, as JSON. */
function assertRfcShaped(answer: RawAnswer, status: number, error: string, what: string): void {
  assert.equal(answer.status, status, `${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  assert.match(String(answer.headers['content-type']), /^application\/json/, what);
  assert.equal(answer.headers['cache-control'], 'no-store', what);
  assertOAuthError(answer, status, error);
}

describe("the authorization server's limits, over HTTP", { timeout: 120_000 }, () => {
  let svc: OAuthTestService;
  let receiver: Receiver;
  let port: number;

  before(async () => {
    svc = await startOAuthService();
    receiver = await startReceiver();
    port = Number(new URL(svc.apiUrl).port);
  });
  after(async () => {
    await receiver.close();
    await svc.stop();
  });

  const countClients = async () => Number((await queryRows<{ n: number }>(svc.dataDir, 'select count(*) as n from oauth_clients'))[0]!.n);

  test('a registration flood from one address: 429 temporarily_unavailable with Retry-After, RFC-shaped; the database grows only by what was admitted; other addresses still register', async () => {
    // An address of its own on the loopback network, so this test's budget is no other test's.
    const flooder = `127.0.${randomInt(1, 255)}.${randomInt(2, 255)}`;
    const body = JSON.stringify({ client_name: 'Flood', redirect_uris: [receiver.redirectUri()] });
    const before = await countClients();
    const started = performance.now();
    const answers: RawAnswer[] = [];
    const attempts = REGISTRATIONS_PER_MINUTE + 40;
    for (let batch = 0; batch < attempts; batch += 10) {
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, () =>
            send(port, { method: 'POST', path: '/oauth/register', headers: { 'content-type': 'application/json' }, localAddress: flooder }, endWith(body)),
          ),
        )),
      );
    }
    const seconds = (performance.now() - started) / 1000;
    const admitted = answers.filter((a) => a.status === 201).length;
    const refused = answers.filter((a) => a.status !== 201);
    // The budget refills at one a second: what the flood took longer than that may add.
    assert.ok(
      admitted >= REGISTRATIONS_PER_MINUTE && admitted <= REGISTRATIONS_PER_MINUTE + Math.ceil(seconds) + 1,
      `${admitted} of ${attempts} admitted in ${seconds.toFixed(1)} s`,
    );
    assert.ok(refused.length > 0);
    for (const answer of refused) {
      assertRfcShaped(answer, 429, 'temporarily_unavailable', 'a refused registration');
      assert.match(answer.body.error_description, new RegExp(`at most ${REGISTRATIONS_PER_MINUTE} a minute`));
      assert.ok(Number(answer.headers['retry-after']) >= 1, `Retry-After: ${answer.headers['retry-after']}`);
    }
    assert.equal(await countClients(), before + admitted, 'a refused registration stored a client');
    // The address this suite's other tests register from has a budget of its own.
    await registerClient(svc.apiUrl, [receiver.redirectUri()]);
  });

  test('an app with 10 consent requests waiting gets temporarily_unavailable at its redirect URI, with state and iss; a decision makes room', async () => {
    const { client_id } = await registerClient(svc.apiUrl, [receiver.redirectUri()], 'Eager editor');
    const authorize = (state: string) =>
      fetch(
        authorizeUrl(svc.apiUrl, {
          response_type: 'code',
          client_id,
          redirect_uri: receiver.redirectUri(),
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
          state,
        }),
        { redirect: 'manual' },
      );
    const ours = async () => (await svc.services.oauth.pending(svc.owner)).filter((r) => r.client.id === client_id);
    try {
      for (let i = 0; i < 10; i++) {
        const started = await authorize(`s${i}`);
        assert.equal(started.status, 303, `request ${i + 1}: ${started.status} ${started.headers.get('location')}`);
      }
      const refused = await authorize('eleventh');
      assert.equal(refused.status, 302);
      const location = new URL(refused.headers.get('location')!);
      assert.equal(`${location.origin}${location.pathname}`, receiver.redirectUri());
      assert.equal(location.searchParams.get('error'), 'temporarily_unavailable');
      assert.match(location.searchParams.get('error_description') ?? '', /already has 10 consent requests waiting/);
      assert.equal(location.searchParams.get('state'), 'eleventh');
      assert.equal(location.searchParams.get('iss'), svc.apiUrl);
      assert.equal(location.searchParams.get('code'), null);
      assert.equal((await ours()).length, 10, 'the refused request was stored');

      const waiting = await ours();
      await svc.services.oauth.deny(svc.owner, { matchCode: waiting[0]!.matchCode });
      assert.equal((await authorize('after')).status, 303);
    } finally {
      for (const request of await ours()) await svc.services.oauth.deny(svc.owner, { matchCode: request.matchCode });
    }
  });

  test('ten parallel refreshes of one refresh token all get the same new pair, and the grant lives on', async () => {
    const { client, tokens } = await connectClient(svc, receiver);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => tokenRaw(svc.apiUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id })),
    );
    for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const pairs = new Set(answers.map((a) => `${a.body.access_token} ${a.body.refresh_token}`));
    assert.equal(pairs.size, 1, `${pairs.size} different pairs`);
    const [pair] = answers.map((a) => a.body);
    assert.notEqual(pair.refresh_token, tokens.refresh_token);
    assert.match(pair.access_token, /^svc_oat_[A-Za-z0-9_-]{43}$/);
    assert.match(pair.refresh_token, /^svc_ort_[A-Za-z0-9_-]{43}$/);
    for (const answer of answers) assert.ok(answer.body.expires_in > 3590 && answer.body.expires_in <= 3600, String(answer.body.expires_in));
    assert.equal(await mcpStatus(svc.apiUrl, bearer(pair.access_token)), 200);
    // The new refresh token is the one that works next.
    const next = await tokenRaw(svc.apiUrl, { grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: client.client_id });
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.equal(await mcpStatus(svc.apiUrl, bearer(next.body.access_token)), 200);
    // Only hashes are stored: no token of the pair is in the database as it is.
    const stored = await queryRows<{ token_hash: string }>(svc.dataDir, 'select token_hash from oauth_tokens');
    assert.ok(!stored.some((row) => [pair.access_token, pair.refresh_token].includes(row.token_hash)));
    assert.ok(stored.some((row) => row.token_hash === createHash('sha256').update(pair.refresh_token).digest('hex')));
  });

  test("a body over the limit on /oauth/*: 413 in RFC 6749's shape, whether its length is declared or it comes chunked", async () => {
    for (const path of ['/oauth/token', '/oauth/register', '/oauth/revoke']) {
      const declared = await send(port, { method: 'POST', path, headers: { 'content-type': 'application/json', 'content-length': String(2 * MiB) } }, (req) =>
        req.write('{"a":"'),
      );
      assertRfcShaped(declared, 413, 'invalid_request', `${path} with a declared length`);
      assert.match(declared.body.error_description, /over the limit of 1048576 bytes/);
      const chunked = await send(port, { method: 'POST', path, headers: { 'content-type': 'application/x-www-form-urlencoded' } }, writeChunked(2 * MiB));
      assertRfcShaped(chunked, 413, 'invalid_request', `${path} chunked`);
      assert.match(chunked.body.error_description, /over the limit of 1048576 bytes/);
    }
  });

  test("a method an endpoint does not answer: 405 with Allow, in RFC 6749's shape", async () => {
    const cases: [string, string, string][] = [
      ['GET', '/oauth/token', 'POST'],
      ['PUT', '/oauth/register', 'POST'],
      ['GET', '/oauth/register', 'POST'],
      ['DELETE', '/oauth/revoke', 'POST'],
      ['POST', '/oauth/authorize', 'GET, HEAD'],
      ['POST', '/.well-known/oauth-authorization-server', 'GET, HEAD'],
      ['DELETE', '/.well-known/oauth-protected-resource/mcp', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const answer = await send(
        port,
        { method, path, headers: method === 'GET' || method === 'DELETE' ? {} : { 'content-type': 'application/json' } },
        endWith(method === 'GET' || method === 'DELETE' ? '' : '{}'),
      );
      assertRfcShaped(answer, 405, 'invalid_request', `${method} ${path}`);
      assert.equal(answer.headers.allow, allow, `${method} ${path}`);
      assert.match(answer.body.error_description, new RegExp(`^${method} is not allowed on ${path.replaceAll('.', '\\.')}`));
    }
  });

  test("an unknown path under /oauth/: 404 in RFC 6749's shape; the dashboard's consent requests keep the dashboard's envelope", async () => {
    const unknown: [string, string][] = [
      ['GET', '/oauth/userinfo'],
      ['POST', '/oauth/introspect'],
      ['GET', '/oauth/consent'],
    ];
    for (const [method, path] of unknown) {
      const answer = await send(
        port,
        { method, path, headers: method === 'POST' ? { 'content-type': 'application/json' } : {} },
        endWith(method === 'POST' ? '{}' : ''),
      );
      assertRfcShaped(answer, 404, 'invalid_request', `${method} ${path}`);
      assert.match(answer.body.error_description, /is not an endpoint of this authorization server/);
    }
    const dashboard = await fetch(`${svc.dashboardUrl}/oauth/consent/requests/${'A'.repeat(22)}`);
    const body = (await dashboard.json()) as Record<string, unknown>;
    assert.ok('code' in body && 'requestId' in body, JSON.stringify(body));
  });
});

// ---- the limits in the domain, with small numbers ---------------------------------------------------

describe("the authorization server's limits, in the domain", () => {
  const ISSUER = 'http://localhost:3000';
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let db: Db;
  let services: Services;
  let owner: Extract<Actor, { type: 'user' }>;

  before(async () => {
    dir = await tempDir();
    db = await openTestDatabase(dir.path);
    services = createServices(db, { issuer: ISSUER });
    owner = { type: 'user', userId: await ensureOwner(db), surface: 'cli' };
  });
  after(async () => {
    services.close();
    await db.destroy();
    await dir.remove();
  });

  /** An authorization server over the same database, with limits of its own. */
  const withLimits = (limits: NonNullable<Parameters<typeof createOAuthService>[1]['limits']>): OAuthService =>
    createOAuthService(db, { issuer: ISSUER, limits });

  const register = (oauth: OAuthService, name: string) => oauth.clients.register({ client_name: name, redirect_uris: ['http://127.0.0.1/callback'] });

  async function refusal(call: Promise<unknown>): Promise<OAuthError> {
    const thrown = await call.then(
      () => assert.fail('expected a refusal'),
      (error: unknown) => error,
    );
    assert.ok(thrown instanceof OAuthError, String(thrown));
    return thrown;
  }

  test('registrations never used are kept under the cap: the oldest past ten minutes make room; while all are newer, 429 temporarily_unavailable', async () => {
    // Every registered client left unused by other tests is out of this test's way.
    await db.updateTable('oauth_clients').set({ granted_at: new Date().toISOString() }).where('granted_at', 'is', null).execute();
    const oauth = withLimits({ unusedClients: 3 });
    const first = await register(oauth, 'First');
    const second = await register(oauth, 'Second');
    await register(oauth, 'Third');
    const full = await refusal(register(oauth, 'Fourth'));
    assert.equal(full.error, 'temporarily_unavailable');
    assert.equal(full.status, 429);
    assert.match(full.message, /3 registered clients have not connected yet/);
    assert.ok(full.retryAfterSeconds! > 0 && full.retryAfterSeconds! <= 600, String(full.retryAfterSeconds));

    // The first two registered eleven and twelve minutes ago: the older one makes room, once.
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    await queryRows(dir.path, 'update oauth_clients set created_at = ? where id = ?', ago(12), first.client_id);
    await queryRows(dir.path, 'update oauth_clients set created_at = ? where id = ?', ago(11), second.client_id);
    const fourth = await register(oauth, 'Fourth');
    const unused = await db.selectFrom('oauth_clients').select('id').where('granted_at', 'is', null).execute();
    assert.ok(!unused.some((r) => r.id === first.client_id), 'the oldest was not dropped');
    assert.equal(unused.length, 3);
    assert.ok(unused.some((r) => r.id === fourth.client_id));
    assert.ok(unused.some((r) => r.id === second.client_id));
    await oauth.clients.resolve(second.client_id, async () => assert.fail('never fetched'));
    await db.updateTable('oauth_clients').set({ granted_at: new Date().toISOString() }).where('granted_at', 'is', null).execute();
  });

  test('consent requests pending at once are capped per app and in total; a decision makes room', async () => {
    // Requests left pending by other tests are out of this test's way.
    await db
      .updateTable('oauth_requests')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('status', '=', 'pending')
      .execute();
    const oauth = withLimits({ pendingPerClient: 2, pendingTotal: 3 });
    const client = async (name: string): Promise<OAuthClient> =>
      oauth.clients.resolve((await register(oauth, name)).client_id, async () => assert.fail('never fetched'));
    const start = (c: OAuthClient) =>
      oauth.start({
        client: c,
        redirectUri: 'http://127.0.0.1:4000/callback',
        codeChallenge: pkce().challenge,
        scope: 'write',
        resource: `${ISSUER}/mcp`,
        state: randomBytes(4).toString('hex'),
      });
    const a = await client('App A');
    const b = await client('App B');
    const c = await client('App C');
    await start(a);
    await start(a);
    const perApp = await refusal(start(a));
    assert.equal(perApp.error, 'temporarily_unavailable');
    assert.match(perApp.message, /^App A already has 2 consent requests waiting for a decision/);
    await start(b);
    const total = await refusal(start(c));
    assert.equal(total.error, 'temporarily_unavailable');
    assert.match(total.message, /^3 consent requests are waiting for a decision, the most this server keeps/);
    const pending = await oauth.pending(owner);
    assert.equal(pending.length, 3);
    await oauth.deny(owner, { matchCode: pending.find((r) => r.client.id === a.id)!.matchCode });
    await start(c);
    await db
      .updateTable('oauth_requests')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('status', '=', 'pending')
      .execute();
  });
});
