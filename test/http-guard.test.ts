import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { databaseEnv, withLocalOwner } from './support/database.ts';
import { serviceConfig } from '../server/config.ts';
import { type RunningService, startService } from '../server/main.ts';
import { sessionTokenOf, startTestService, tempDir, type TestService } from './support/harness.ts';
import { h2Request, type RawResponse, request } from './support/raw-http.ts';

/** The raw bytes of one request on a fresh TCP connection, for requests Node's client will not send. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(text));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}

/** One HPACK field, literal without indexing and without Huffman coding (RFC 7541, 6.2.2); names and values under 127 bytes. */
function literalField(name: string, value: string): Buffer {
  return Buffer.concat([Buffer.from([0, name.length]), Buffer.from(name), Buffer.from([value.length]), Buffer.from(value)]);
}

function h2Frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

/**
 * An HTTP/2 request whose header block the test writes field by field (Node's client refuses to
 * repeat :authority or Host): the preface, empty SETTINGS, one HEADERS frame (END_STREAM,
 * END_HEADERS) on stream 1. Gives the frames the server sent until its first word on stream 1.
 */
function rawH2Exchange(port: number, fields: [string, string][]): Promise<{ type: number; stream: number; payload: Buffer }[]> {
  return new Promise((resolve, reject) => {
    const block = Buffer.concat(fields.map(([name, value]) => literalField(name, value)));
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), h2Frame(4, 0, 0, Buffer.alloc(0)), h2Frame(1, 0x5, 1, block)]));
    });
    let received = Buffer.alloc(0);
    const frames = () => {
      const list: { type: number; stream: number; payload: Buffer }[] = [];
      for (let at = 0; at + 9 <= received.length; ) {
        const length = received.readUIntBE(at, 3);
        list.push({ type: received[at + 3]!, stream: received.readUInt32BE(at + 5) & 0x7fffffff, payload: received.subarray(at + 9, at + 9 + length) });
        at += 9 + length;
      }
      return list;
    };
    // The exchange ends with the server's first word on stream 1 (HEADERS or RST_STREAM), or after 2 s of quiet.
    let quiet = setTimeout(() => socket.destroy(), 2_000);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      clearTimeout(quiet);
      if (frames().some((f) => f.stream === 1 && (f.type === 1 || f.type === 3))) socket.destroy();
      else quiet = setTimeout(() => socket.destroy(), 2_000);
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(quiet);
      resolve(frames());
    });
  });
}

/** Ports free on loopback right now, for a start that must know its ports in advance. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** A refusal by the Host/Origin guard: 403 and exactly the four fields of the error envelope. */
function assertForbidden(response: RawResponse, docsBase: string, message: RegExp): void {
  assert.equal(response.status, 403, response.body);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  const body = JSON.parse(response.body);
  assert.deepEqual(Object.keys(body).sort(), ['code', 'docs', 'message', 'requestId']);
  assert.equal(body.code, 'FORBIDDEN');
  assert.match(body.message, message);
  assert.equal(typeof body.requestId, 'string');
  assert.equal(body.requestId, response.headers['x-request-id']);
  assert.equal(body.docs, `${docsBase}/docs/reference/errors#forbidden`);
}

describe('Host and Origin guard', () => {
  let service: TestService;
  let apiPort: number;
  let dashboardPort: number;
  let key: string;
  let keyId: string;

  before(async () => {
    service = await startTestService();
    apiPort = portOf(service.apiUrl);
    dashboardPort = portOf(service.dashboardUrl);
    ({ secret: key, id: keyId } = await service.createKey('read'));
  });
  after(() => service.stop());

  /** A request that passes the guard is answered 200: whoami with a key, or the dashboard's page. */
  function probe(port: number, headers: Record<string, string>): Promise<RawResponse> {
    return port === apiPort ? request(port, '/v1/whoami', { 'x-service-key': key, ...headers }) : request(port, '/', headers);
  }

  const ports = () => [
    { name: 'API', port: apiPort, other: dashboardPort },
    { name: 'dashboard', port: dashboardPort, other: apiPort },
  ];

  test('the service reports loopback addresses of its two ports', () => {
    assert.match(service.apiUrl, /^http:\/\/localhost:\d+$/);
    assert.match(service.dashboardUrl, /^http:\/\/localhost:\d+$/);
    assert.notEqual(apiPort, dashboardPort);
  });

  for (const side of ['API', 'dashboard'] as const) {
    test(`the ${side} port refuses a foreign Host with 403 FORBIDDEN, even with a valid key`, async () => {
      const { port, other } = ports().find((p) => p.name === side)!;
      const foreign = [
        `evil.example:${port}`,
        `127.0.0.1.nip.io:${port}`,
        `localhost.evil.example:${port}`,
        `localtest.me:${port}`,
        `127.0.0.2:${port}`,
        `0.0.0.0:${port}`,
        'localhost',
        '127.0.0.1',
        `localhost:${other}`,
        `127.0.0.1:${other}`,
      ];
      for (const host of foreign) {
        const response = await probe(port, { host });
        assertForbidden(response, service.apiUrl, new RegExp(`^host ${host.replaceAll('.', '\\.')} is not this service; use localhost:${port}$`));
      }
    });

    test(`the ${side} port refuses an empty Host and a request without one`, async () => {
      const { port } = ports().find((p) => p.name === side)!;
      assertForbidden(await probe(port, { host: '' }), service.apiUrl, /is not this service/);
      // HTTP/1.0 allows leaving Host out; HTTP/1.1 without Host is refused by Node itself (400).
      const answer = await rawExchange(port, 'GET / HTTP/1.0\r\n\r\n');
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      assert.match(head, /^HTTP\/1\.1 403 /);
      const envelope = JSON.parse(body);
      assert.equal(envelope.code, 'FORBIDDEN');
      assert.equal(envelope.message, `host (none) is not this service; use localhost:${port}`);
      assert.equal(envelope.docs, `${service.apiUrl}/docs/reference/errors#forbidden`);
    });

    test(`the ${side} port answers 400 to a request with two Host header lines`, async () => {
      const { port } = ports().find((p) => p.name === side)!;
      const path = port === apiPort ? '/v1/whoami' : '/';
      const own = `localhost:${port}`;
      // The same host twice, a foreign one after an own one, and an own one after a foreign one:
      // whichever line a reader took first, the request is ambiguous and refused whole.
      for (const [first, second] of [
        [own, own],
        [own, `evil.example:${port}`],
        [`evil.example:${port}`, own],
      ]) {
        const answer = await rawExchange(port, `GET ${path} HTTP/1.1\r\nHost: ${first}\r\nx-service-key: ${key}\r\nHost: ${second}\r\n\r\n`);
        const [head = '', body = ''] = answer.split('\r\n\r\n');
        assert.match(head, /^HTTP\/1\.1 400 /, `${first}, ${second}: ${head}`);
        assert.match(head, /^connection: close$/im);
        const envelope = JSON.parse(body);
        assert.equal(envelope.code, 'VALIDATION');
        assert.equal(envelope.message, 'the request has 2 Host header fields; send exactly one');
        assert.deepEqual(envelope.violations, [{ field: 'host', rule: 'must be sent once' }]);
        assert.equal(envelope.docs, `${service.apiUrl}/docs/reference/errors#validation`);
      }
      // One Host line is still answered as before.
      assert.equal((await probe(port, { host: own })).status, 200);
    });

    test(`the ${side} port accepts its own loopback hosts, in any letter case`, async () => {
      const { port } = ports().find((p) => p.name === side)!;
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LocalHost:${port}`]) {
        const response = await probe(port, { host });
        assert.equal(response.status, 200, `${host}: ${response.body}`);
      }
    });

    test(`the ${side} port refuses a foreign Origin with 403 FORBIDDEN`, async () => {
      const { port } = ports().find((p) => p.name === side)!;
      const foreign = [
        'http://evil.example',
        'null',
        `http://evil.example:${port}`,
        `http://127.0.0.1.nip.io:${port}`,
        `https://localhost:${port}`,
        'http://localhost',
        'http://localhost:1',
      ];
      for (const origin of foreign) {
        const response = await probe(port, { host: `localhost:${port}`, origin });
        assertForbidden(response, service.apiUrl, new RegExp(`^origin ${origin.replaceAll('.', '\\.')} may not call this service$`));
      }
    });

    test(`the ${side} port accepts the service's own origins, API and dashboard alike`, async () => {
      const { port } = ports().find((p) => p.name === side)!;
      const own = [
        service.apiUrl,
        service.dashboardUrl,
        `http://127.0.0.1:${apiPort}`,
        `http://127.0.0.1:${dashboardPort}`,
        `http://[::1]:${apiPort}`,
        `http://[::1]:${dashboardPort}`,
      ];
      for (const origin of own) {
        const response = await probe(port, { host: `localhost:${port}`, origin });
        assert.equal(response.status, 200, `${origin}: ${response.body}`);
      }
    });
  }

  test('a refused request echoes a well-formed caller request id', async () => {
    const response = await probe(apiPort, { host: `evil.example:${apiPort}`, 'x-request-id': 'rebind-probe-0001' });
    assertForbidden(response, service.apiUrl, /is not this service/);
    assert.equal(response.headers['x-request-id'], 'rebind-probe-0001');
  });

  test('a cross-site POST with the session cookie is refused before it can create a key', async () => {
    const signIn = await fetch(service.signInUrl, { redirect: 'manual' });
    assert.equal(signIn.status, 200);
    const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
    const token = sessionTokenOf(await signIn.text());
    const listKeys = async () => {
      const response = await request(dashboardPort, '/api/workspaces/1/keys', { host: `localhost:${dashboardPort}`, cookie, 'x-statusdesk-session': token });
      assert.equal(response.status, 200);
      return JSON.parse(response.body).keys as unknown[];
    };
    const before = (await listKeys()).length;
    const response = await request(
      dashboardPort,
      '/api/workspaces/1/keys',
      { host: `localhost:${dashboardPort}`, origin: 'http://evil.example', cookie, 'x-statusdesk-session': token, 'content-type': 'text/plain' },
      'POST',
      JSON.stringify({ name: 'stolen', scope: 'write' }),
    );
    assertForbidden(response, service.apiUrl, /^origin http:\/\/evil\.example may not call this service$/);
    assert.equal((await listKeys()).length, before);
  });

  describe('cleartext HTTP/2 on the same ports', () => {
    test('whoami answers over h2c with a key', async () => {
      const response = await h2Request(apiPort, { ':path': '/v1/whoami', 'x-service-key': key });
      assert.equal(response.status, 200, response.body);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.match(String(response.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      const body = JSON.parse(response.body);
      assert.equal(body.slug, 'personal');
      assert.deepEqual(body.actor, { type: 'apiKey', keyId, scopes: ['read'] });
    });

    test('whoami over h2c without a key is 401', async () => {
      const response = await h2Request(apiPort, { ':path': '/v1/whoami' });
      assert.equal(response.status, 401);
      assert.equal(JSON.parse(response.body).code, 'UNAUTHORIZED');
    });

    test('a foreign :authority is refused with 403 on both ports', async () => {
      for (const port of [apiPort, dashboardPort]) {
        for (const authority of [`evil.example:${port}`, `127.0.0.1.nip.io:${port}`]) {
          const response = await h2Request(port, { ':path': port === apiPort ? '/v1/whoami' : '/', ':authority': authority, 'x-service-key': key });
          assertForbidden(response, service.apiUrl, new RegExp(`^host ${authority.replaceAll('.', '\\.')} is not this service`));
        }
      }
    });

    test('a foreign Origin is refused over h2c, an own one passes', async () => {
      const refused = await h2Request(apiPort, { ':path': '/v1/whoami', origin: 'http://evil.example', 'x-service-key': key });
      assertForbidden(refused, service.apiUrl, /^origin http:\/\/evil\.example may not call this service$/);
      const passed = await h2Request(apiPort, { ':path': '/v1/whoami', origin: service.dashboardUrl, 'x-service-key': key });
      assert.equal(passed.status, 200, passed.body);
    });

    test('a Host that differs from :authority is 400 on both ports, an equal one passes', async () => {
      for (const port of [apiPort, dashboardPort]) {
        const path = port === apiPort ? '/v1/whoami' : '/';
        for (const [authority, host] of [
          [`localhost:${port}`, `evil.example:${port}`],
          [`evil.example:${port}`, `localhost:${port}`],
        ]) {
          const response = await h2Request(port, { ':path': path, ':authority': authority, host, 'x-service-key': key });
          assert.equal(response.status, 400, response.body);
          const envelope = JSON.parse(response.body);
          assert.equal(envelope.code, 'VALIDATION');
          assert.equal(envelope.message, `the Host header (${host}) differs from :authority (${authority}); send one host`);
        }
        const same = await h2Request(port, { ':path': path, ':authority': `localhost:${port}`, host: `LOCALHOST:${port}`, 'x-service-key': key });
        assert.equal(same.status, 200, same.body);
      }
    });

    test('a repeated :authority or Host is reset as a protocol error on both ports', async () => {
      for (const port of [apiPort, dashboardPort]) {
        for (const name of [':authority', 'host']) {
          const frames = await rawH2Exchange(port, [
            [':method', 'GET'],
            [':scheme', 'http'],
            [':path', '/healthz'],
            [name, `localhost:${port}`],
            [name, `evil.example:${port}`],
          ]);
          // RST_STREAM (type 3) of stream 1 with PROTOCOL_ERROR (1), and no HEADERS (type 1) answer.
          assert.ok(
            frames.some((f) => f.type === 3 && f.stream === 1 && f.payload.readUInt32BE(0) === 1),
            `${port} ${name}: ${JSON.stringify(frames)}`,
          );
          assert.ok(!frames.some((f) => f.type === 1), `${port} ${name}: answered`);
        }
      }
    });

    test('the dashboard port speaks h2c too', async () => {
      const response = await h2Request(dashboardPort, { ':path': '/' });
      assert.equal(response.status, 200);
      assert.match(String(response.headers['content-type']), /^text\/html/);
    });
  });
});

describe('OAUTH_ISSUER and DASHBOARD_URL', () => {
  let service: RunningService;
  let dir: { path: string; remove(): Promise<void> };
  let apiPort: number;
  let dashboardPort: number;
  let issuer: string;
  let dashboardAddress: string;
  let key: string;

  before(async () => {
    // The configured addresses name the real ports under other loopback names, so the ports are
    // chosen before the start (the service reports only the configured addresses).
    const [first, second] = await freePorts(2);
    apiPort = first!;
    dashboardPort = second!;
    issuer = `http://statusdesk.localhost:${apiPort}`;
    dashboardAddress = `http://dash.localhost:${dashboardPort}`;
    dir = await tempDir();
    const config = serviceConfig(
      { dataDir: dir.path, port: String(apiPort), dashboardPort: String(dashboardPort) },
      { OAUTH_ISSUER: issuer, DASHBOARD_URL: dashboardAddress, ...(await databaseEnv(dir.path)) },
    );
    service = await startService(config, pino({ level: 'silent' }));
    key = await withLocalOwner(dir.path, async (services, owner) => {
      const ws = await services.workspaces.getBySlug(owner, 'personal');
      return (await services.keys.create(owner, { workspaceId: Number(ws.id), name: 'issuer test', scope: 'read' })).secret;
    });
  });
  after(async () => {
    await service?.close();
    await dir?.remove();
  });

  test('the configured addresses are reported as apiUrl, dashboardUrl and the sign-in link', () => {
    assert.equal(service.apiUrl, issuer);
    assert.equal(service.dashboardUrl, dashboardAddress);
    assert.match(service.signInUrl, new RegExp(`^${dashboardAddress.replaceAll('.', '\\.')}/signin\\?token=[A-Za-z0-9_-]{43}$`));
  });

  test('the API port accepts the issuer host, and still its loopback hosts', async () => {
    for (const host of [new URL(issuer).host, `STATUSDESK.localhost:${apiPort}`, `localhost:${apiPort}`, `127.0.0.1:${apiPort}`]) {
      const response = await request(apiPort, '/v1/whoami', { host, 'x-service-key': key });
      assert.equal(response.status, 200, `${host}: ${response.body}`);
      assert.equal(JSON.parse(response.body).slug, 'personal');
    }
  });

  test('the issuer host is not accepted on the dashboard port, nor the dashboard host on the API port', async () => {
    assertForbidden(
      await request(dashboardPort, '/', { host: `statusdesk.localhost:${dashboardPort}` }),
      issuer,
      new RegExp(`^host statusdesk\\.localhost:${dashboardPort} is not this service; use localhost:${dashboardPort}$`),
    );
    assertForbidden(
      await request(apiPort, '/v1/whoami', { host: `dash.localhost:${apiPort}`, 'x-service-key': key }),
      issuer,
      new RegExp(`^host dash\\.localhost:${apiPort} is not this service; use localhost:${apiPort}$`),
    );
    assertForbidden(await request(apiPort, '/v1/whoami', { host: 'statusdesk.localhost', 'x-service-key': key }), issuer, /is not this service/);
  });

  test('the issuer and dashboard origins may call both ports; the issuer name on another port may not', async () => {
    for (const origin of [issuer, dashboardAddress]) {
      assert.equal((await request(apiPort, '/v1/whoami', { host: `localhost:${apiPort}`, origin, 'x-service-key': key })).status, 200);
      assert.equal((await request(dashboardPort, '/', { host: `localhost:${dashboardPort}`, origin })).status, 200);
    }
    assertForbidden(
      await request(apiPort, '/v1/whoami', { host: `localhost:${apiPort}`, origin: `http://statusdesk.localhost:${dashboardPort}`, 'x-service-key': key }),
      issuer,
      /may not call this service$/,
    );
  });

  test('error envelopes link to the docs under the issuer, and the OpenAPI server is the issuer', async () => {
    const refused = await request(apiPort, '/v1/whoami', { host: `localhost:${apiPort}` });
    assert.equal(refused.status, 401);
    assert.equal(JSON.parse(refused.body).docs, `${issuer}/docs/reference/errors#unauthorized`);
    const openapi = await request(apiPort, '/openapi.json', { host: new URL(issuer).host });
    assert.equal(openapi.status, 200);
    assert.deepEqual(JSON.parse(openapi.body).servers, [{ url: issuer }]);
  });

  test('the sign-in link works through the configured dashboard host', async () => {
    const url = new URL(service.signInUrl);
    const signIn = await request(dashboardPort, `${url.pathname}${url.search}`, { host: url.host });
    assert.equal(signIn.status, 200);
    const cookie = String((signIn.headers['set-cookie'] as string[])[0]).split(';')[0]!;
    const token = sessionTokenOf(signIn.body);
    const session = await request(dashboardPort, '/api/session', { host: url.host, cookie, 'x-statusdesk-session': token });
    assert.equal(session.status, 200);
    assert.equal(JSON.parse(session.body).workspaces[0].slug, 'personal');
  });
});
