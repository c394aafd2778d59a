import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { configDir, credentialsPath, deleteLogin, loadLogin, saveLogin, type StoredLogin, withLoginLock } from '../server/cli/login-store.ts';
import { serviceCredential, serviceOrigin } from '../server/cli/login.ts';
import { AppError } from '../server/errors.ts';
import { closedPort } from './support/grpc-peers.ts';
import { assertOneLineError, CLI, type CliResult, json, perTestCleanup, runCli, startTestService, type TestService } from './support/harness.ts';
import { eventually } from './support/wait.ts';

/**
 * The command line's side of OAuth: `statusdesk oauth pending|approve|deny` deciding on requests a
 * browser made, and `statusdesk login` as a client of the real service, its stored tokens used,
 * refreshed and revoked by the client commands. The browser is played with fetch: it follows
 * /oauth/authorize to the dashboard, keeps the cookie that binds it, and collects the decision.
 */

const T = { timeout: 60_000 };
const MATCH_CODE = /^[A-Z2-9]{4}-[A-Z2-9]{4}$/;

/** No setting from the surrounding shell leaks in: no stray key, address or config folder. */
const clean: NodeJS.ProcessEnv = { SERVICE_API_KEY: undefined, SERVICE_API_URL: undefined, STATUSDESK_LOG_LEVEL: undefined, STATUSDESK_CONFIG_DIR: undefined };

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc?.stop();
});

const { folder, children } = perTestCleanup();

/** A config folder of its own: every test logs in afresh. */
async function configEnv(): Promise<NodeJS.ProcessEnv> {
  return { ...clean, STATUSDESK_CONFIG_DIR: join(await folder(), 'config') };
}

function cli(args: string[], env: NodeJS.ProcessEnv = clean): Promise<CliResult> {
  return runCli(args, env);
}

function assertOk(result: CliResult): void {
  assert.equal(result.code, 0, `exit code (stderr: ${result.stderr})`);
}

const storedLogins = (env: NodeJS.ProcessEnv): Record<string, StoredLogin> => JSON.parse(readFileSync(credentialsPath(env.STATUSDESK_CONFIG_DIR!), 'utf8'));

/** The browser's side of one consent request: where it is, and the cookie that binds this browser to it. */
interface Browser {
  requestId: string;
  cookie: string;
  dashboardUrl: string;
}

/** Follows an authorization URL as a browser does: /oauth/authorize, then the dashboard's ticket, which sets the binding cookie. */
async function openAuthorization(url: string): Promise<Browser> {
  const authorize = await fetch(url, { redirect: 'manual' });
  assert.ok([302, 303].includes(authorize.status), `authorize answered ${authorize.status}: ${await authorize.text()}`);
  const consent = new URL(authorize.headers.get('location')!);
  assert.equal(consent.pathname, '/oauth/consent');
  assert.ok(consent.searchParams.get('ticket'));
  const ticket = await fetch(consent, { redirect: 'manual' });
  assert.equal(ticket.status, 303);
  const cookie = ticket.headers.getSetCookie()[0]!.split(';')[0]!;
  const requestId = new URL(ticket.headers.get('location')!, consent).searchParams.get('request')!;
  return { requestId, cookie, dashboardUrl: consent.origin };
}

/** Polls the request as the waiting page does, until the decision gives the browser somewhere to go. */
async function collect(browser: Browser): Promise<URL> {
  const request = await eventually(
    async () => {
      const response = await fetch(`${browser.dashboardUrl}/oauth/consent/requests/${browser.requestId}`, { headers: { cookie: browser.cookie } });
      assert.equal(response.status, 200);
      return json(response);
    },
    (answer) => Boolean(answer.redirectTo),
    `consent request ${browser.requestId} decided`,
  );
  return new URL(request.redirectTo);
}

/** An app of the kind the CLI approves for: registered with a loopback redirect, asking for `scope`. */
async function appRequest(scope = 'write', name = 'Test Editor') {
  const registered = await svc.api('/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: ['http://127.0.0.1/callback'] }),
  });
  assert.equal(registered.status, 201, await registered.clone().text());
  const { client_id: clientId } = await json(registered);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const redirectUri = 'http://127.0.0.1:45873/callback';
  const url = new URL(`${svc.apiUrl}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    scope,
    state,
  }).toString();
  const browser = await openAuthorization(url.href);
  const view = await json(await fetch(`${browser.dashboardUrl}/oauth/consent/requests/${browser.requestId}`, { headers: { cookie: browser.cookie } }));
  assert.match(view.matchCode, MATCH_CODE);
  return { clientId, verifier, state, redirectUri, browser, matchCode: view.matchCode as string };
}

async function pendingRequests(dataDir = svc.dataDir): Promise<any[]> {
  const result = await cli(['oauth', 'pending', '--json', '--data-dir', dataDir]);
  assertOk(result);
  return JSON.parse(result.stdout);
}

describe('statusdesk oauth pending, approve and deny', () => {
  test('pending lists a request made at /oauth/authorize with its code, client, redirect host, access and expiry', T, async () => {
    const app = await appRequest('write', 'Pending Editor');
    const listed = (await pendingRequests()).find((r) => r.matchCode === app.matchCode);
    assert.ok(listed, 'the request is listed');
    assert.equal(listed.client.id, app.clientId);
    assert.equal(listed.client.name, 'Pending Editor');
    assert.equal(listed.status, 'pending');
    assert.equal(listed.redirectHost, '127.0.0.1:45873');
    assert.equal(listed.loopbackRedirect, true);
    assert.equal(listed.access, 'write');

    const table = await cli(['oauth', 'pending', '--data-dir', svc.dataDir]);
    assertOk(table);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    assert.match(header!, /^CODE\s+CLIENT\s+SOURCE\s+REDIRECT HOST\s+ACCESS\s+EXPIRES$/);
    const row = rows.find((r) => r.startsWith(app.matchCode));
    assert.match(
      row ?? '',
      new RegExp(`^${app.matchCode}\\s+Pending Editor\\s+registered\\s+127\\.0\\.0\\.1:45873 \\(loopback\\)\\s+write\\s+${listed.expiresAt}$`),
    );
    assert.match(table.stderr, /Approve only the code your browser shows/);
  });

  test('pending with nothing waiting says so and prints no table', T, async () => {
    const empty = await folder();
    const result = await cli(['oauth', 'pending', '--data-dir', empty]);
    assertOk(result);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, 'No app is waiting for approval.\n');
    assert.deepEqual(await pendingRequests(empty), []);
  });

  test('approve CODE --workspace personal --access read: the waiting browser gets a code, its state and iss; the token is read only', T, async () => {
    const app = await appRequest('write', 'Approved Editor');
    const result = await cli(['oauth', 'approve', app.matchCode, '--workspace', 'personal', '--access', 'read', '--data-dir', svc.dataDir]);
    assertOk(result);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, 'approved Approved Editor for personal with read access\n');
    assert.equal(
      (await pendingRequests()).find((r) => r.matchCode === app.matchCode),
      undefined,
      'no longer pending',
    );

    const redirect = await collect(app.browser);
    assert.equal(`${redirect.origin}${redirect.pathname}`, app.redirectUri);
    assert.equal(redirect.searchParams.get('state'), app.state);
    assert.equal(redirect.searchParams.get('iss'), svc.apiUrl);
    const code = redirect.searchParams.get('code');
    assert.ok(code);

    const token = await svc.api('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: app.redirectUri,
        client_id: app.clientId,
        code_verifier: app.verifier,
      }),
    });
    assert.equal(token.status, 200);
    assert.equal((await json(token)).scope, 'read');
  });

  test('a code is accepted in lower case and without its hyphen', T, async () => {
    const app = await appRequest('read');
    const typed = app.matchCode.toLowerCase().replace('-', '');
    assertOk(await cli(['oauth', 'approve', typed, '--data-dir', svc.dataDir]));
    const redirect = await collect(app.browser);
    assert.ok(redirect.searchParams.get('code'));
  });

  test('deny CODE sends the waiting browser back with error=access_denied, its state and iss', T, async () => {
    const app = await appRequest('write', 'Denied Editor');
    const result = await cli(['oauth', 'deny', app.matchCode, '--data-dir', svc.dataDir]);
    assertOk(result);
    assert.equal(result.stderr, 'denied Denied Editor\n');
    const redirect = await collect(app.browser);
    assert.equal(redirect.searchParams.get('error'), 'access_denied');
    assert.equal(redirect.searchParams.get('state'), app.state);
    assert.equal(redirect.searchParams.get('iss'), svc.apiUrl);
    assert.equal(redirect.searchParams.get('code'), null);
  });

  test('an unknown code is one line, exit 1, pointing to oauth pending', T, async () => {
    for (const command of ['approve', 'deny']) {
      assertOneLineError(
        await cli(['oauth', command, 'zzzz-zzzz', '--data-dir', svc.dataDir]),
        /no pending consent request has the code ZZZZ-ZZZZ: see `statusdesk oauth pending`/,
      );
    }
  });

  test('a decided request cannot be decided again', T, async () => {
    const app = await appRequest();
    assertOk(await cli(['oauth', 'deny', app.matchCode, '--data-dir', svc.dataDir]));
    assertOneLineError(await cli(['oauth', 'approve', app.matchCode, '--workspace', 'personal', '--data-dir', svc.dataDir]), new RegExp(app.matchCode));
  });

  test('--access must be read or write, and read cannot be raised to write', T, async () => {
    const app = await appRequest('read');
    const usage = await cli(['oauth', 'approve', app.matchCode, '--access', 'admin', '--data-dir', svc.dataDir]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--access must be one of read, write, got "admin"/);
    const raised = await cli(['oauth', 'approve', app.matchCode, '--access', 'write', '--data-dir', svc.dataDir]);
    assert.equal(raised.code, 2);
    assert.match(raised.stderr, /^statusdesk: --access: .*read only[^\n]*\n$/);
    assert.ok(
      (await pendingRequests()).some((r) => r.matchCode === app.matchCode),
      'still pending',
    );
  });

  test('an unknown --workspace is refused and the request stays pending', T, async () => {
    const app = await appRequest();
    assertOneLineError(await cli(['oauth', 'approve', app.matchCode, '--workspace', 'nowhere', '--data-dir', svc.dataDir]), /nowhere/);
    assert.ok((await pendingRequests()).some((r) => r.matchCode === app.matchCode));
  });
});

interface LoginRun {
  env: NodeJS.ProcessEnv;
  clientId: string;
  stderr(): string;
}

/**
 * `statusdesk login --no-browser` up to the decision: the address it prints is opened in the
 * "browser", and the request is waiting for approval.
 */
async function startLogin(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [CLI, 'login', '--no-browser', '--api-url', svc.apiUrl], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  // 'close', not 'exit': by then everything it wrote to stderr has been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const address = new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stderr! });
    lines.on('line', (line) => {
      stderr += `${line}\n`;
      if (line.startsWith('http')) resolve(line);
    });
    void exited.then((code) => reject(new Error(`login exited with ${code} before printing an address: ${stderr}`)));
  });
  const authorization = new URL(await address);
  assert.equal(`${authorization.origin}${authorization.pathname}`, `${svc.apiUrl}/oauth/authorize`);
  const params = authorization.searchParams;
  assert.equal(params.get('code_challenge_method'), 'S256');
  assert.equal(params.get('resource'), svc.apiUrl);
  assert.equal(params.get('scope'), 'write');
  assert.match(params.get('redirect_uri')!, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  const clientId = params.get('client_id')!;

  const browser = await openAuthorization(authorization.href);
  const request = (await pendingRequests()).find((r) => r.client.id === clientId);
  assert.ok(request, 'the login is waiting for approval');
  assert.equal(request.client.name, 'Statusdesk CLI');
  return { clientId, browser, matchCode: request.matchCode as string, exited, stderr: () => stderr };
}

/** A whole login: approved with `statusdesk oauth approve`, and the browser follows the decision to the command's own loopback callback. */
async function logIn(access: 'read' | 'write' = 'write', env?: NodeJS.ProcessEnv): Promise<LoginRun> {
  env ??= await configEnv();
  const login = await startLogin(env);
  assertOk(await cli(['oauth', 'approve', login.matchCode, '--workspace', 'personal', '--access', access, '--data-dir', svc.dataDir]));
  const callback = await fetch(await collect(login.browser));
  assert.equal(callback.status, 200);
  assert.match(await callback.text(), /You can close this tab/);

  assert.equal(await login.exited, 0, login.stderr());
  assert.match(login.stderr(), new RegExp(`^logged in to ${svc.apiUrl} \\(workspace access: ${access}\\)$`, 'm'));
  return { env, clientId: login.clientId, stderr: login.stderr };
}

describe('statusdesk login and logout', () => {
  test('login stores the tokens (0600, folder 0700); whoami, monitors list and mcp work without SERVICE_API_KEY; logout ends it', T, async () => {
    const { env, clientId } = await logIn('write');
    const dir = env.STATUSDESK_CONFIG_DIR!;
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(credentialsPath(dir)).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), ['credentials.json']);
    const stored = storedLogins(env)[svc.apiUrl]!;
    assert.deepEqual(Object.keys(stored).sort(), ['accessToken', 'clientId', 'expiresAt', 'issuer', 'refreshToken', 'scope']);
    assert.equal(stored.issuer, svc.apiUrl);
    assert.equal(stored.clientId, clientId);
    assert.match(stored.accessToken, /^svc_oat_/);
    assert.equal(stored.scope, 'write');
    assert.ok(Date.parse(stored.expiresAt) > Date.now() + 50 * 60_000);

    const withUrl = { ...env, SERVICE_API_URL: svc.apiUrl };
    const whoami = await cli(['whoami', '--json'], withUrl);
    assertOk(whoami);
    const identity = JSON.parse(whoami.stdout);
    assert.equal(identity.slug, 'personal');
    assert.equal(identity.actor.type, 'oauth');
    assert.equal(identity.actor.clientId, clientId);
    assert.deepEqual(identity.actor.scopes, ['write']);
    const table = await cli(['whoami'], withUrl);
    assertOk(table);
    assert.match(table.stdout.split('\n')[1]!, new RegExp(`\\bpersonal\\s+scale\\s+${identity.actor.grantId}\\s+write$`));

    assertOk(await cli(['monitors', 'list', '--json'], withUrl));
    const created = await cli(
      ['monitors', 'create', 'tcp', '--name', 'via-login', '--target', 'db.internal:5432', '--frequency', '1m', '--api-url', svc.apiUrl],
      env,
    );
    assertOk(created);

    const mcp = spawn(process.execPath, [CLI, 'mcp', '--api-url', svc.apiUrl], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(mcp);
    const answer = new Promise<string>((resolve) => createInterface({ input: mcp.stdout! }).once('line', resolve));
    mcp.stdin!.end(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } })}\n`,
    );
    assert.equal(JSON.parse(await answer).result?.protocolVersion, '2025-06-18');

    const logout = await cli(['logout', '--api-url', svc.apiUrl], env);
    assertOk(logout);
    assert.equal(logout.stderr, `logged out of ${svc.apiUrl}\n`);
    assert.deepEqual(storedLogins(env), {});
    const refused = await fetch(`${svc.apiUrl}/v1/whoami`, { headers: { authorization: `Bearer ${stored.accessToken}` } });
    assert.equal(refused.status, 401);
    const notLoggedIn = new RegExp(`SERVICE_API_KEY is not set and there is no login to ${svc.apiUrl}: run \`statusdesk login --api-url ${svc.apiUrl}\``);
    assertOneLineError(await cli(['whoami'], withUrl), notLoggedIn);
    assertOneLineError(await cli(['monitors', 'list'], withUrl), notLoggedIn);
  });

  test('a read login is stored as read and cannot change anything', T, async () => {
    const { env } = await logIn('read');
    assert.equal(storedLogins(env)[svc.apiUrl]!.scope, 'read');
    const created = await cli(['monitors', 'create', 'tcp', '--name', 'refused', '--target', 'db.internal:5432', '--api-url', svc.apiUrl], env);
    assert.equal(created.code, 1);
    assert.match(created.stderr, /permission_denied.*read-only/);
  });

  test('SERVICE_API_KEY wins over a stored login', T, async () => {
    const { env } = await logIn();
    const key = await svc.createKey('read');
    const whoami = await cli(['whoami', '--json', '--url', svc.apiUrl], { ...env, SERVICE_API_KEY: key.secret });
    assertOk(whoami);
    assert.deepEqual(JSON.parse(whoami.stdout).actor, { type: 'apiKey', keyId: key.id, scopes: ['read'] });
  });

  test('logging in again replaces the stored login and revokes the one it replaced', T, async () => {
    const first = await logIn();
    const replaced = storedLogins(first.env)[svc.apiUrl]!;
    await logIn('write', first.env);
    const current = storedLogins(first.env)[svc.apiUrl]!;
    assert.notEqual(current.clientId, replaced.clientId);
    const old = await fetch(`${svc.apiUrl}/v1/whoami`, { headers: { authorization: `Bearer ${replaced.accessToken}` } });
    assert.equal(old.status, 401);
    assertOk(await cli(['whoami', '--url', svc.apiUrl], first.env));
  });

  test('a denied login exits 1 saying so, stores nothing, and its callback is answered once', T, async () => {
    const env = await configEnv();
    const login = await startLogin(env);
    assertOk(await cli(['oauth', 'deny', login.matchCode, '--data-dir', svc.dataDir]));
    const redirect = await collect(login.browser);
    const stray = new URL(redirect);
    stray.searchParams.set('state', 'another');
    const refused = await fetch(stray);
    assert.equal(refused.status, 400, 'an answer with another state does not end the login');
    const callback = await fetch(redirect);
    assert.match(await callback.text(), /not connected/);
    assert.equal(await login.exited, 1);
    assert.match(login.stderr(), /^statusdesk: login refused: access_denied/m);
    assert.equal(existsSync(credentialsPath(env.STATUSDESK_CONFIG_DIR!)), false);
  });

  test('logout without a login says so and exits 0', T, async () => {
    const result = await cli(['logout', '--api-url', svc.apiUrl], await configEnv());
    assertOk(result);
    assert.equal(result.stderr, `not logged in to ${svc.apiUrl}\n`);
  });

  test('login to an address where nothing listens is one line, exit 1', T, async () => {
    const port = await closedPort();
    assertOneLineError(
      await cli(['login', '--no-browser', '--api-url', `http://127.0.0.1:${port}`], await configEnv()),
      new RegExp(`Statusdesk is not running at http://127\\.0\\.0\\.1:${port}: start it with statusdesk serve`),
    );
  });
});

describe('tokens of a login in use', () => {
  test('an access token about to expire is refreshed first, and the rotated tokens are stored', T, async () => {
    const { env } = await logIn();
    const before = storedLogins(env)[svc.apiUrl]!;
    writeFileSync(
      credentialsPath(env.STATUSDESK_CONFIG_DIR!),
      JSON.stringify({ [svc.apiUrl]: { ...before, expiresAt: new Date(Date.now() + 30_000).toISOString() } }),
    );
    assertOk(await cli(['monitors', 'list', '--api-url', svc.apiUrl], env));
    const after = storedLogins(env)[svc.apiUrl]!;
    assert.notEqual(after.refreshToken, before.refreshToken);
    assert.notEqual(after.accessToken, before.accessToken);
    assert.ok(Date.parse(after.expiresAt) > Date.now() + 50 * 60_000);
    assert.equal(statSync(credentialsPath(env.STATUSDESK_CONFIG_DIR!)).mode & 0o777, 0o600);
    // The retired token no longer works; the new one does.
    assert.equal((await fetch(`${svc.apiUrl}/v1/whoami`, { headers: { authorization: `Bearer ${after.accessToken}` } })).status, 200);
  });

  test('commands that find the token expired at the same moment refresh it once between them', T, async () => {
    const { env } = await logIn();
    const before = storedLogins(env)[svc.apiUrl]!;
    writeFileSync(credentialsPath(env.STATUSDESK_CONFIG_DIR!), JSON.stringify({ [svc.apiUrl]: { ...before, expiresAt: new Date(0).toISOString() } }));
    // A retired refresh token presented twice would revoke the login: each must see the other's refresh.
    const results = await Promise.all([1, 2, 3, 4].map(() => cli(['whoami', '--url', svc.apiUrl], env)));
    for (const result of results) assertOk(result);
    assertOk(await cli(['whoami', '--url', svc.apiUrl], env));
  });

  test('an access token the service refuses is refreshed once and the call sent again', T, async () => {
    const { env } = await logIn();
    const before = storedLogins(env)[svc.apiUrl]!;
    writeFileSync(credentialsPath(env.STATUSDESK_CONFIG_DIR!), JSON.stringify({ [svc.apiUrl]: { ...before, accessToken: `svc_oat_${'x'.repeat(43)}` } }));
    assertOk(await cli(['monitors', 'list', '--api-url', svc.apiUrl], env));
    assertOk(await cli(['whoami', '--url', svc.apiUrl], env));
    assert.notEqual(storedLogins(env)[svc.apiUrl]!.refreshToken, before.refreshToken);
  });

  test('a revoked login is forgotten and the command says to log in again', T, async () => {
    const { env } = await logIn();
    const stored = storedLogins(env)[svc.apiUrl]!;
    const revoked = await svc.api('/oauth/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: stored.refreshToken, client_id: stored.clientId }),
    });
    assert.equal(revoked.status, 200);
    const expired = new RegExp(`^statusdesk: your login has expired or was revoked: run \`statusdesk login --api-url ${svc.apiUrl}\`\n$`);
    assertOneLineError(await cli(['monitors', 'list', '--api-url', svc.apiUrl], env), expired);
    assert.deepEqual(storedLogins(env), {});
    assertOneLineError(await cli(['whoami', '--api-url', svc.apiUrl], env), /there is no login to/);
  });
});

describe('the login store', () => {
  const login = (issuer: string, token = 'svc_oat_a'): StoredLogin => ({
    issuer,
    clientId: 'sdc_x',
    accessToken: token,
    refreshToken: 'svc_ort_a',
    expiresAt: new Date().toISOString(),
    scope: 'write',
  });

  test('keeps one login per issuer, in a file only its owner can read, written whole', async () => {
    const dir = join(await folder(), 'nested', 'statusdesk');
    saveLogin(dir, login('http://localhost:3000'));
    saveLogin(dir, login('http://127.0.0.1:4000'));
    saveLogin(dir, login('http://localhost:3000', 'svc_oat_b'));
    assert.equal(loadLogin(dir, 'http://localhost:3000')?.accessToken, 'svc_oat_b');
    assert.equal(loadLogin(dir, 'http://127.0.0.1:4000')?.accessToken, 'svc_oat_a');
    assert.equal(loadLogin(dir, 'http://localhost:9999'), undefined);
    assert.equal(loadLogin(dir, 'constructor'), undefined);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(credentialsPath(dir)).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), ['credentials.json'], 'no temporary file is left behind');

    assert.equal(deleteLogin(dir, 'http://localhost:3000'), true);
    assert.equal(deleteLogin(dir, 'http://localhost:3000'), false);
    assert.equal(loadLogin(dir, 'http://127.0.0.1:4000')?.issuer, 'http://127.0.0.1:4000');
  });

  test('a file that is not a credentials file is refused, naming it', async () => {
    const dir = await folder();
    for (const text of ['{not json', '[]', 'null']) {
      writeFileSync(credentialsPath(dir), text);
      assert.throws(
        () => loadLogin(dir, 'http://localhost:3000'),
        (error: unknown) => error instanceof AppError && error.message.includes(credentialsPath(dir)),
      );
    }
  });

  test('the config folder is STATUSDESK_CONFIG_DIR, else the platform one', () => {
    assert.equal(configDir({ STATUSDESK_CONFIG_DIR: '/tmp/x' }), '/tmp/x');
    assert.match(configDir({}), /statusdesk$/);
  });

  test('the lock lets one refresh run at a time, and clears a lock left by a command that died', async () => {
    const dir = await folder();
    let running = 0;
    let most = 0;
    await Promise.all(
      [1, 2, 3].map(() =>
        withLoginLock(dir, async () => {
          most = Math.max(most, ++running);
          await new Promise((resolve) => setTimeout(resolve, 30));
          running--;
        }),
      ),
    );
    assert.equal(most, 1);
    const lock = `${credentialsPath(dir)}.lock`;
    writeFileSync(lock, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    assert.equal(await withLoginLock(dir, async () => 'ran'), 'ran');
    assert.equal(existsSync(lock), false);
  });

  test('SERVICE_API_KEY wins; without it and without a login the error says how to get either', async () => {
    const dir = await folder();
    assert.deepEqual(serviceCredential('http://localhost:3000/rpc', { SERVICE_API_KEY: 'svc_k', STATUSDESK_CONFIG_DIR: dir }), { apiKey: 'svc_k' });
    assert.throws(
      () => serviceCredential('http://localhost:3000/rpc', { STATUSDESK_CONFIG_DIR: dir }),
      /there is no login to http:\/\/localhost:3000: run `statusdesk login`, or create a key/,
    );
    assert.throws(
      () => serviceCredential('http://127.0.0.1:4000', { STATUSDESK_CONFIG_DIR: dir }),
      /run `statusdesk login --api-url http:\/\/127\.0\.0\.1:4000`/,
    );
    saveLogin(dir, login('http://127.0.0.1:4000'));
    assert.equal(typeof (serviceCredential('http://127.0.0.1:4000/rpc', { STATUSDESK_CONFIG_DIR: dir }) as { accessToken: unknown }).accessToken, 'function');
  });

  test('logins are kept under the service origin', () => {
    assert.equal(serviceOrigin('http://localhost:3000/rpc'), 'http://localhost:3000');
    assert.equal(serviceOrigin('http://localhost:3000/'), 'http://localhost:3000');
    assert.throws(() => serviceOrigin('localhost:3000'), /http\(s\)/);
    assert.throws(() => serviceOrigin('not a url'), /not a service address/);
  });
});
