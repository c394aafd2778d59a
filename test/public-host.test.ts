/**
 * The public address of the status pages (STATUSDESK_PUBLIC_URL, e.g. a tunnel) reaches the status
 * pages and nothing else: not the API, ConnectRPC, MCP, OAuth, the documentation or the dashboard.
 * Requests connect to 127.0.0.1 and only name the public host in Host.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Actor } from '../server/domain/actor.ts';
import { createOriginGuard } from '../server/http/guard.ts';
import { startTestService, type TestService } from './support/harness.ts';
import { h2Request, type RawResponse, request } from './support/raw-http.ts';

const system: Actor = { type: 'system', surface: 'cli' };
const PUBLIC_URL = 'https://status.example.com';
const PUBLIC_HOST = 'status.example.com';

/** A refusal by the Host/Origin guard: 403 and exactly the four fields of the error envelope. */
function assertForbidden(response: RawResponse, docsBase: string, message: RegExp, what: string, path = ''): void {
  assert.equal(response.status, 403, `${what}: ${response.body}`);
  assert.match(String(response.headers['content-type']), /^application\/json/, what);
  const body = JSON.parse(response.body);
  // The OAuth endpoints answer every error in RFC 6749's shape (SPEC 7, rule 5), this one too.
  if (path.startsWith('/oauth/') || path.startsWith('/.well-known/oauth-')) {
    assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description'], what);
    assert.equal(body.error, 'access_denied', what);
    assert.match(body.error_description, message, what);
    assert.equal(response.headers['cache-control'], 'no-store', what);
    return;
  }
  assert.deepEqual(Object.keys(body).sort(), ['code', 'docs', 'message', 'requestId'], what);
  assert.equal(body.code, 'FORBIDDEN', what);
  assert.match(body.message, message, what);
  assert.equal(body.requestId, response.headers['x-request-id'], what);
  assert.equal(body.docs, `${docsBase}/docs/reference/errors#forbidden`, what);
}

/** Every surface of the API port other than the status pages, as (method, path, body). */
const API_SURFACES: [string, string, string?][] = [
  ['GET', '/v1/whoami'],
  ['GET', '/v1/workspaces'],
  ['POST', '/mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })],
  ['GET', '/mcp'],
  ['POST', '/rpc/statusdesk.monitor.v1.MonitorService/ListMonitors', '{}'],
  ['POST', '/oauth/register', JSON.stringify({ redirect_uris: ['http://127.0.0.1:1/cb'] })],
  ['GET', '/oauth/authorize?client_id=x'],
  ['POST', '/oauth/token', 'grant_type=refresh_token&refresh_token=x'],
  ['GET', '/.well-known/oauth-authorization-server'],
  ['GET', '/.well-known/oauth-protected-resource/mcp'],
  ['GET', '/openapi.json'],
  ['GET', '/docs/reference/security'],
  ['GET', '/llms.txt'],
  ['GET', '/'],
  ['GET', '/status'],
  ['GET', '/statusx/open'],
  // Dot segments and their encodings resolve before routing: they must not climb out of /status/.
  ['GET', '/status/../v1/whoami'],
  ['GET', '/status/%2e%2e/v1/whoami'],
  ['GET', '/status/open/../../v1/whoami'],
  ['GET', '/status\\..\\v1\\whoami'],
  ['POST', '/status/../mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })],
  ['POST', '/status/../rpc/statusdesk.monitor.v1.MonitorService/ListMonitors', '{}'],
];

describe('the public status-page address (STATUSDESK_PUBLIC_URL)', () => {
  let svc: TestService;
  let apiPort: number;
  let dashboardPort: number;
  let key: string;

  before(async () => {
    svc = await startTestService({ STATUSDESK_PUBLIC_URL: PUBLIC_URL });
    apiPort = Number(new URL(svc.apiUrl).port);
    dashboardPort = Number(new URL(svc.dashboardUrl).port);
    key = (await svc.createKey('write')).secret;
    const wsId = Number((await svc.services.workspaces.getBySlug(system, 'personal')).id);
    await svc.services.pages.create(system, wsId, { slug: 'open', title: 'Open Page' });
  });
  after(() => svc?.stop());

  test('the public host reaches the status page, its feed and its summary', async () => {
    for (const host of [PUBLIC_HOST, 'Status.Example.COM']) {
      const html = await request(apiPort, '/status/open', { host });
      assert.equal(html.status, 200, `${host}: ${html.body}`);
      assert.match(html.body, /Open Page/);
      assert.equal((await request(apiPort, '/status/open/feed.atom', { host })).status, 200);
      const summary = await request(apiPort, '/status/open/summary.json', { host });
      assert.equal(summary.status, 200);
      assert.equal(JSON.parse(summary.body).page.url, `${PUBLIC_URL}/status/open`);
    }
  });

  test("the public host and origin may post the page's forms (answered by the page, not refused by the guard)", async () => {
    const answer = await request(
      apiPort,
      '/status/open/subscribe',
      { host: PUBLIC_HOST, origin: PUBLIC_URL, 'content-type': 'application/x-www-form-urlencoded' },
      'POST',
      'email=not-an-address',
    );
    assert.equal(answer.status, 400, answer.body);
    assert.match(String(answer.headers['content-type']), /^text\/html/);
  });

  test('refuses the public host on the API, MCP, ConnectRPC, OAuth and documentation with 403, even with a valid key', async () => {
    for (const [method, path, body] of API_SURFACES) {
      const headers: Record<string, string> = { host: PUBLIC_HOST, 'x-service-key': key, authorization: 'Bearer x' };
      if (body) headers['content-type'] = path.startsWith('/oauth/token') ? 'application/x-www-form-urlencoded' : 'application/json';
      if (path === '/mcp') headers.accept = 'application/json, text/event-stream';
      const response = await request(apiPort, path, headers, method, body);
      assertForbidden(
        response,
        svc.apiUrl,
        new RegExp(`^host ${PUBLIC_HOST.replaceAll('.', '\\.')} is not this service; use localhost:${apiPort}$`),
        `${method} ${path}`,
        path,
      );
    }
  });

  test('refuses the public host in an absolute-form request target aimed at the API', async () => {
    const response = await request(apiPort, `http://localhost:${apiPort}/v1/whoami`, { host: PUBLIC_HOST, 'x-service-key': key });
    assertForbidden(response, svc.apiUrl, /is not this service/, 'absolute form');
  });

  test('refuses the public host over h2c outside /status/, and serves the page there', async () => {
    const refused = await h2Request(apiPort, { ':path': '/v1/whoami', ':authority': PUBLIC_HOST, 'x-service-key': key });
    assertForbidden(refused, svc.apiUrl, /^host status\.example\.com is not this service/, 'h2 whoami');
    const page = await h2Request(apiPort, { ':path': '/status/open/summary.json', ':authority': PUBLIC_HOST });
    assert.equal(page.status, 200, page.body);
  });

  test('refuses the public host on the dashboard port, pages and API alike', async () => {
    for (const path of ['/', '/api/session', '/status/open', '/signin?token=x']) {
      assertForbidden(
        await request(dashboardPort, path, { host: PUBLIC_HOST }),
        svc.apiUrl,
        /^host status\.example\.com is not this service/,
        `dashboard ${path}`,
      );
    }
  });

  test('refuses the public origin outside /status/ on both ports, even under an own Host', async () => {
    assertForbidden(
      await request(apiPort, '/v1/whoami', { host: `localhost:${apiPort}`, origin: PUBLIC_URL, 'x-service-key': key }),
      svc.apiUrl,
      /^origin https:\/\/status\.example\.com may not call this service$/,
      'API whoami',
    );
    assertForbidden(
      await request(
        apiPort,
        '/mcp',
        {
          host: `localhost:${apiPort}`,
          origin: PUBLIC_URL,
          'x-service-key': key,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        'POST',
        '{}',
      ),
      svc.apiUrl,
      /may not call this service$/,
      'API mcp',
    );
    assertForbidden(
      await request(dashboardPort, '/api/session', { host: `localhost:${dashboardPort}`, origin: PUBLIC_URL }),
      svc.apiUrl,
      /may not call this service$/,
      'dashboard',
    );
    const page = await request(apiPort, '/status/open', { host: `localhost:${apiPort}`, origin: PUBLIC_URL });
    assert.equal(page.status, 200, page.body);
  });

  test("the service's own hosts keep reaching everything", async () => {
    for (const host of [`localhost:${apiPort}`, `127.0.0.1:${apiPort}`, `[::1]:${apiPort}`]) {
      const whoami = await request(apiPort, '/v1/whoami', { host, 'x-service-key': key });
      assert.equal(whoami.status, 200, `${host}: ${whoami.body}`);
      assert.equal((await request(apiPort, '/openapi.json', { host })).status, 200);
      assert.equal((await request(apiPort, '/status/open', { host })).status, 200);
      const mcp = await request(
        apiPort,
        '/mcp',
        { host, 'x-service-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        'POST',
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      );
      assert.equal(mcp.status, 200, `${host} mcp: ${mcp.body}`);
    }
    assert.equal((await request(dashboardPort, '/', { host: `localhost:${dashboardPort}` })).status, 200);
  });

  test('another foreign host is still refused on /status/', async () => {
    assertForbidden(
      await request(apiPort, '/status/open', { host: 'other.example.com' }),
      svc.apiUrl,
      /^host other\.example\.com is not this service/,
      'other host',
    );
  });
});

describe('a public address confined to some paths, in the guard', () => {
  const own = ['localhost:3000', 'status.localhost:3000'];
  const origins = ['http://localhost:3000'];

  test('refuses a confined host and origin outside their paths, and passes them inside', () => {
    const guard = createOriginGuard(own, origins, { hosts: ['status.example.com'], origins: ['https://status.example.com'], paths: ['/status/'] });
    assert.equal(guard.check('status.example.com', undefined), undefined);
    assert.equal(guard.check('status.example.com', 'https://status.example.com'), undefined);
    assert.equal(guard.checkPath('status.example.com', undefined, '/status/open'), undefined);
    assert.equal(guard.checkPath('localhost:3000', 'https://status.example.com', '/status/open/subscribe'), undefined);
    assert.match(String(guard.checkPath('status.example.com', undefined, '/v1/whoami')), /^host status\.example\.com is not this service; use localhost:3000$/);
    assert.match(String(guard.checkPath('status.example.com', undefined, '/status/../mcp')), /is not this service/);
    assert.match(
      String(guard.checkPath('localhost:3000', 'https://status.example.com', '/v1/whoami')),
      /^origin https:\/\/status\.example\.com may not call this service$/,
    );
    assert.equal(guard.checkPath('localhost:3000', 'http://localhost:3000', '/v1/whoami'), undefined);
  });

  test('a public address equal to an own host or origin changes nothing', () => {
    const guard = createOriginGuard(own, origins, { hosts: ['status.localhost:3000'], origins: ['http://localhost:3000'], paths: ['/status/'] });
    assert.equal(guard.checkPath('status.localhost:3000', 'http://localhost:3000', '/v1/whoami'), undefined);
    assert.equal(guard.checkPath('localhost:3000', undefined, '/mcp'), undefined);
    let reached = 0;
    const route = guard.confine(() => void reached++, 'http://localhost:3000');
    route({ headers: { host: 'status.localhost:3000' }, url: '/v1/whoami' } as never, {} as never);
    assert.equal(reached, 1);
  });
});
