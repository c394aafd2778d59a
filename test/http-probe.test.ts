import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SecureContext } from 'node:tls';
import { generate } from 'selfsigned';
import { trustStore } from '../server/checks/connection.ts';
import { type HttpProbeConfig, probeHttp } from '../server/checks/http-probe.ts';
import type { ProbeResult } from '../server/domain/monitors/check-results.ts';
import { closedPort } from './support/grpc-peers.ts';
import { until } from './support/wait.ts';

/*
 * The HTTP probe against real loopback servers (node:http / node:https), which record what reached
 * them. Two plain servers stand for two origins: one on 127.0.0.1 (no DNS phase) and one reached as
 * `localhost` (resolved, so a DNS phase). Certificates are made here with `selfsigned`.
 */

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
/** What the engine passes (server/checks/engine.ts): `statusdesk/<version>`. */
const USER_AGENT = `statusdesk/${VERSION}`;

// ---------------------------------------------------------------------------------------------
// Loopback peers

interface Recorded {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The server's end of the connection the request came on. */
  socket: Socket;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

interface Peer {
  server: Server;
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  port: number;
  /** Every request that reached the peer, in order, with its whole body. */
  requests: Recorded[];
  /** Sockets currently open on the server side. */
  sockets: Set<Socket>;
  route(path: string, handler: Handler): void;
  /** The recorded requests for a path. */
  seen(path: string): Recorded[];
  close(): Promise<void>;
}

async function startPeer(server: Server, host: string, urlHost: string, scheme: 'http' | 'https'): Promise<Peer> {
  const routes = new Map<string, Handler>();
  const requests: Recorded[] = [];
  const sockets = new Set<Socket>();
  server.on(scheme === 'https' ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://peer').pathname;
      requests.push({ method: req.method ?? '', path, headers: req.headers, body, socket: req.socket });
      const handler = routes.get(path);
      if (!handler) {
        res.writeHead(404).end('no such route');
        return;
      }
      Promise.resolve(handler(req, res, body)).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(599);
        res.end(String(error));
      });
    });
  });
  // A client that goes away mid-answer (the probe stops reading at 1 MiB) is not a test failure.
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    origin: `${scheme}://${urlHost}:${port}`,
    port,
    requests,
    sockets,
    route: (path, handler) => void routes.set(path, handler),
    seen: (path) => requests.filter((r) => r.path === path),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Waits at least `ms` of real (performance.now) time. A bare setTimeout may fire up to a millisecond
 * early against performance.now, which would make lower bounds on measured phases flaky.
 */
async function atLeast(ms: number): Promise<void> {
  const start = performance.now();
  for (let left = ms; left > 0; left = ms - (performance.now() - start)) await sleep(Math.ceil(left));
}

// ---------------------------------------------------------------------------------------------
// Certificates

interface Pems {
  cert: string;
  key: string;
}

type AltName = { type: 2; value: string } | { type: 7; ip: string };

async function makeCa(): Promise<Pems> {
  const ca = await generate([{ name: 'commonName', value: 'Statusdesk Test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  return { cert: ca.cert, key: ca.private };
}

/** A server certificate for `altNames`, signed by `ca`, or self-signed without one. */
async function makeServerCert(altNames: AltName[], ca?: Pems): Promise<Pems> {
  const leaf = await generate([{ name: 'commonName', value: 'statusdesk test server' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ...(ca ? { ca: { key: ca.key, cert: ca.cert } } : {}),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  return { cert: leaf.cert, key: leaf.private };
}

// ---------------------------------------------------------------------------------------------
// The probe

function config(url: string, overrides: Partial<HttpProbeConfig> = {}): HttpProbeConfig {
  return {
    url,
    method: 'GET',
    headers: {},
    body: '',
    followRedirects: true,
    statusCodeAssertions: [],
    headerAssertions: [],
    bodyAssertions: [],
    timeout: 3000,
    degraded: null,
    retry: 0,
    ...overrides,
  };
}

let defaultTrust: SecureContext;

const probe = (url: string, overrides: Partial<HttpProbeConfig> = {}, trust: SecureContext = defaultTrust) =>
  probeHttp(config(url, overrides), { trust, userAgent: USER_AGENT });

/** Shape shared by every answer that got judged. */
function assertJudged(result: ProbeResult): void {
  assert.equal(result.grpcStatus, null);
  assert.equal(typeof result.statusCode, 'number');
  assert.equal(result.timing.total, result.latencyMs);
  assert.equal(typeof result.timing.connect, 'number');
  assert.equal(typeof result.timing.ttfb, 'number');
  assert.equal(typeof result.timing.transfer, 'number');
}

function assertUp(result: ProbeResult): void {
  assert.equal(result.result, 'up', `expected up, got ${result.result}: ${result.message}`);
  assert.ok(result.assertionResults.every((a) => a.passed));
}

// ---------------------------------------------------------------------------------------------

describe('HTTP probe', { timeout: 12_000 }, () => {
  let a: Peer; // http://127.0.0.1:port
  let b: Peer; // http://localhost:port
  const TEXT = 'hello statusdesk';
  const LARGE_HEAD = 'START-OF-LARGE-BODY';
  const LARGE_TAIL = 'END-OF-LARGE-BODY';

  before(async () => {
    defaultTrust = trustStore();
    a = await startPeer(createHttpServer(), '127.0.0.1', '127.0.0.1', 'http');
    // `localhost` as this machine resolves it (127.0.0.1 or ::1): the probe connects to that address.
    const local = await lookup('localhost');
    b = await startPeer(createHttpServer(), local.address, 'localhost', 'http');

    for (const peer of [a, b]) {
      peer.route('/echo', (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('echoed'));
      peer.route('/landing', (_req, res) => void res.writeHead(200).end('landed'));
    }
    a.route('/text', (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain', 'x-trace': 'abc-123' }).end(TEXT));
    a.route('/empty', (_req, res) => void res.writeHead(200).end());
    a.route('/not-found', (_req, res) => void res.writeHead(404).end('missing'));
    a.route('/error', (_req, res) => void res.writeHead(500).end('boom'));
    a.route('/secret-headers', (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('set-cookie', ['session=s3cr3t-cookie; HttpOnly', 'theme=dark']);
      res.setHeader('x-api-key', 'k3y-value');
      res.setHeader('x-auth-token', 't0ken-value');
      res.setHeader('x-session-id', 'sess-value');
      res.setHeader('x-request-id', 'req-42');
      res.writeHead(200).end('{}');
    });
    a.route('/slow-200', async (_req, res) => {
      await atLeast(200);
      res.writeHead(200).end('slow');
    });
    a.route('/slow-120', async (_req, res) => {
      await atLeast(120);
      res.writeHead(200).end('slow');
    });
    a.route('/hang', () => {}); // never answers: the peer's close ends it
    a.route('/hang-up', (req) => void req.socket.destroy());
    a.route('/break-body', (req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('only part of it', () => req.socket.destroy());
    });
    a.route('/stall-body', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('the first part, and then nothing'); // never ended
    });
    const large = Buffer.alloc(2 * 1024 * 1024, 'x');
    large.write(LARGE_HEAD, 0);
    large.write(LARGE_TAIL, large.length - LARGE_TAIL.length);
    a.route('/large', (_req, res) => {
      res.on('error', () => {}); // the probe hangs up after the first MiB
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(large.length) }).end(large);
    });

    // Redirects
    const redirect =
      (status: number, location: () => string): Handler =>
      (_req, res) =>
        void res.writeHead(status, { location: location() }).end();
    a.route(
      '/hop-1',
      redirect(302, () => '/hop-2'),
    );
    a.route(
      '/hop-2',
      redirect(301, () => `${a.origin}/hop-3`),
    );
    a.route(
      '/hop-3',
      redirect(307, () => 'landing'),
    );
    a.route(
      '/loop',
      redirect(302, () => '/loop'),
    );
    a.route(
      '/moved',
      redirect(302, () => '/landing'),
    );
    a.route(
      '/see-other',
      redirect(303, () => '/landing'),
    );
    a.route(
      '/moved-permanently',
      redirect(301, () => '/landing'),
    );
    a.route(
      '/temporary',
      redirect(307, () => '/landing'),
    );
    a.route(
      '/to-localhost',
      redirect(302, () => `${b.origin}/landing`),
    );
    a.route(
      '/to-ftp',
      redirect(302, () => 'ftp://127.0.0.1/file'),
    );
    a.route('/slow-hop', async (req, res) => {
      await atLeast(120);
      redirect(302, () => '/slow-120')(req, res, '');
    });
  });

  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  describe('the request', () => {
    test('method, headers and body reach the server, with statusdesk as the user agent', async () => {
      const result = await probe(`${a.origin}/echo?q=1`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Custom': 'one' },
        body: '{"ping":true}',
      });
      assertUp(result);
      assertJudged(result);
      const [seen] = a.seen('/echo').slice(-1);
      assert.ok(seen);
      assert.equal(seen.method, 'POST');
      assert.equal(seen.body, '{"ping":true}');
      assert.equal(seen.headers['content-type'], 'application/json');
      assert.equal(seen.headers['x-custom'], 'one');
      assert.equal(seen.headers['content-length'], String(Buffer.byteLength('{"ping":true}')));
      assert.equal(seen.headers.host, new URL(a.origin).host);
      assert.equal(seen.headers['user-agent'], USER_AGENT);
      assert.match(seen.headers['user-agent'] ?? '', /^statusdesk\/\d+\.\d+\.\d+/);
    });

    for (const method of ['PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'] as const) {
      test(`${method} is sent as ${method}`, async () => {
        const body = method === 'PUT' || method === 'PATCH' ? `${method} body` : '';
        const before = a.seen('/echo').length;
        assertUp(await probe(`${a.origin}/echo`, { method, body }));
        const seen = a.seen('/echo').slice(before);
        assert.equal(seen.length, 1);
        assert.equal(seen[0]!.method, method);
        assert.equal(seen[0]!.body, body);
      });
    }

    test('a GET sends no body and no content headers', async () => {
      const before = a.seen('/echo').length;
      assertUp(await probe(`${a.origin}/echo`));
      const [seen] = a.seen('/echo').slice(before);
      assert.equal(seen!.method, 'GET');
      assert.equal(seen!.body, '');
      assert.equal(seen!.headers['content-length'], undefined);
      assert.equal(seen!.headers['transfer-encoding'], undefined);
    });
  });

  describe('results and timings', () => {
    test('an answer from an IP literal over http: up, no DNS phase, no TLS phase', async () => {
      const result = await probe(`${a.origin}/text`);
      assertUp(result);
      assertJudged(result);
      assert.equal(result.statusCode, 200);
      assert.equal(result.url, `${a.origin}/text`);
      assert.equal(result.attempts, 1);
      assert.match(result.message, /^200 OK in [\d.]+ ms$/);
      assert.deepEqual(result.assertionResults, [{ assertion: 'status code 2xx', passed: true, actual: '200' }]);
      assert.equal(result.timing.dns, null);
      assert.equal(result.timing.tls, null);
      for (const phase of ['connect', 'ttfb', 'transfer'] as const) assert.ok(result.timing[phase]! >= 0, `${phase} measured`);
      assert.ok(result.timing.connect! + result.timing.ttfb! + result.timing.transfer! <= result.latencyMs + 0.01);
    });

    test('a host name has a DNS phase', async () => {
      const result = await probe(`${b.origin}/echo`);
      assertUp(result);
      assert.equal(typeof result.timing.dns, 'number');
      assert.ok(result.timing.dns! >= 0);
      assert.equal(result.url, `${b.origin}/echo`);
    });

    // The upper bound leaves room for a busy machine: the peer runs in this process, and a
    // blocked event loop delays its answer too. The lower bound proves the wait is counted.
    test('ttfb of a server that waits 200 ms before answering is at least 200 ms, and not far above', async () => {
      const result = await probe(`${a.origin}/slow-200`);
      assertUp(result);
      const ttfb = result.timing.ttfb!;
      assert.ok(ttfb >= 200 && ttfb <= 450, `ttfb ${ttfb} ms`);
      assert.ok(result.latencyMs >= ttfb);
      assert.ok(result.timing.transfer! < 30, `transfer ${result.timing.transfer} ms`);
    });

    test('slower than the degraded threshold: degraded; faster: up', async () => {
      const slow = await probe(`${a.origin}/slow-120`, { degraded: 50 });
      assert.equal(slow.result, 'degraded', slow.message);
      assert.ok(slow.latencyMs > 50);
      assert.match(slow.message, /^200 OK in [\d.]+ ms, slower than the degraded threshold of 50 ms$/);
      assert.equal(slow.statusCode, 200);

      const fast = await probe(`${a.origin}/text`, { degraded: 1000 });
      assertUp(fast);
    });

    test('a failing assertion is down even when also slow', async () => {
      const result = await probe(`${a.origin}/slow-120`, { degraded: 50, bodyAssertions: [{ comparator: 'equal', target: 'fast' }] });
      assert.equal(result.result, 'down');
      assert.equal(result.message, 'assertion failed: body equal "fast" (got a different body)');
    });

    test('no answer within the timeout: down, timed out', async () => {
      const started = performance.now();
      const result = await probe(`${a.origin}/hang`, { timeout: 300, retry: 2 });
      const took = performance.now() - started;
      assert.equal(result.result, 'down');
      assert.equal(result.message, 'timed out after 300 ms');
      assert.equal(result.attempts, 1, 'a timeout after connecting is not retried');
      assert.equal(result.statusCode, null);
      assert.equal(result.url, `${a.origin}/hang`);
      assert.ok(took >= 295 && took < 600, `took ${took} ms`);
      assert.ok(result.latencyMs >= 299 && result.latencyMs < 600, `latency ${result.latencyMs} ms`);
      assert.equal(result.timing.total, result.latencyMs);
      assert.equal(typeof result.timing.connect, 'number', 'the connection was made');
      const seen = a.seen('/hang').at(-1)!;
      await until(() => !a.sockets.has(seen.socket), 'the probe closed the connection it gave up on', 500);
    });

    test('a body that stops coming: down, timed out', async () => {
      const result = await probe(`${a.origin}/stall-body`, { timeout: 300 });
      assert.equal(result.result, 'down');
      assert.equal(result.message, 'timed out after 300 ms');
      assert.equal(typeof result.timing.ttfb, 'number', 'the headers came');
    });

    test('a body that stops coming: the probe closes its connection', async () => {
      const before = a.seen('/stall-body').length;
      const result = await probe(`${a.origin}/stall-body`, { timeout: 200 });
      assert.equal(result.message, 'timed out after 200 ms');
      const [seen] = a.seen('/stall-body').slice(before);
      assert.ok(seen);
      await until(() => !a.sockets.has(seen.socket), 'the server saw the stalled connection closed', 500);
    });

    test('the server hangs up without answering: down, not retried', async () => {
      const before = a.seen('/hang-up').length;
      const result = await probe(`${a.origin}/hang-up`, { retry: 2 });
      assert.equal(result.result, 'down');
      assert.match(result.message, /^the server did not answer: /);
      assert.equal(result.attempts, 1);
      assert.equal(a.seen('/hang-up').length, before + 1);
    });

    test('the answer breaks off mid-body: down', async () => {
      const result = await probe(`${a.origin}/break-body`, { retry: 2 });
      assert.equal(result.result, 'down');
      assert.match(result.message, /^the answer broke off: /);
      assert.equal(result.attempts, 1);
    });

    test('https to a plain-http port: down, TLS handshake failed', async () => {
      const result = await probe(`https://127.0.0.1:${a.port}/echo`);
      assert.equal(result.result, 'down');
      assert.match(result.message, /^TLS handshake failed: /);
      assert.equal(result.statusCode, null);
    });

    test('refused with retry 2: three attempts, then down', async () => {
      const port = await closedPort();
      const result = await probe(`http://127.0.0.1:${port}/`, { retry: 2 });
      assert.equal(result.result, 'down');
      assert.equal(result.message, 'connection refused');
      assert.equal(result.attempts, 3);
      assert.ok(result.latencyMs >= 300, `pauses of 100 and 200 ms between attempts, latency ${result.latencyMs} ms`);
      assert.equal(result.statusCode, null);
      assert.equal(result.url, `http://127.0.0.1:${port}/`);
      assert.equal(result.timing.connect, null);
      assert.equal(result.timing.total, result.latencyMs);

      const once = await probe(`http://127.0.0.1:${port}/`, { retry: 0 });
      assert.equal(once.attempts, 1);
      assert.equal(once.message, 'connection refused');
    });

    test('a 500 is an answer: one attempt, down, never retried', async () => {
      const before = a.seen('/error').length;
      const result = await probe(`${a.origin}/error`, { retry: 2 });
      assert.equal(result.result, 'down');
      assert.equal(result.attempts, 1);
      assert.equal(result.statusCode, 500);
      assert.equal(result.message, 'assertion failed: status code 2xx (got 500)');
      assert.equal(a.seen('/error').length, before + 1, 'one request reached the server');
    });
  });

  describe('assertions', () => {
    const numberCases = [
      ['equal', 200, 201],
      ['not_equal', 404, 200],
      ['greater_than', 199, 200],
      ['greater_than_or_equal', 200, 201],
      ['less_than', 201, 200],
      ['less_than_or_equal', 200, 199],
    ] as const;
    for (const [comparator, passing, failing] of numberCases) {
      test(`status code ${comparator}`, async () => {
        const pass = await probe(`${a.origin}/text`, { statusCodeAssertions: [{ comparator, target: passing }] });
        assertUp(pass);
        assert.deepEqual(pass.assertionResults, [{ assertion: `status code ${comparator} ${passing}`, passed: true, actual: '200' }]);

        const fail = await probe(`${a.origin}/text`, { statusCodeAssertions: [{ comparator, target: failing }] });
        assert.equal(fail.result, 'down');
        assert.equal(fail.message, `assertion failed: status code ${comparator} ${failing} (got 200)`);
        assert.deepEqual(fail.assertionResults, [{ assertion: `status code ${comparator} ${failing}`, passed: false, actual: '200' }]);
      });
    }

    test('a status assertion replaces the implicit 2xx', async () => {
      const result = await probe(`${a.origin}/not-found`, { statusCodeAssertions: [{ comparator: 'equal', target: 404 }] });
      assertUp(result);
      assert.equal(result.statusCode, 404);
      assert.equal(result.assertionResults.length, 1);
      assert.match(result.message, /^404 Not Found in /);

      const implicit = await probe(`${a.origin}/not-found`);
      assert.equal(implicit.result, 'down');
      assert.equal(implicit.message, 'assertion failed: status code 2xx (got 404)');
    });

    // [comparator, body target that passes on TEXT, one that fails, header target that passes on
    // x-trace: abc-123, one that fails, what the body assertion found when it held and when it
    // failed (never the body's text)]; empty and not_empty are tested on their own below.
    const stringCases = [
      ['contains', 'statusdesk', 'nope', 'abc', 'xyz', 'a body containing it', 'a body without it'],
      ['not_contains', 'nope', 'hello', 'xyz', 'abc', 'a body without it', 'a body containing it'],
      ['equal', TEXT, 'hello', 'abc-123', 'abc', 'that body', 'a different body'],
      ['not_equal', 'hello', TEXT, 'abc', 'abc-123', 'a different body', 'that body'],
    ] as const;
    for (const [comparator, passing, failing, headerPassing, headerFailing, held, failed] of stringCases) {
      test(`body ${comparator}`, async () => {
        const pass = await probe(`${a.origin}/text`, { bodyAssertions: [{ comparator, target: passing }] });
        assertUp(pass);
        assert.deepEqual(pass.assertionResults.at(-1), { assertion: `body ${comparator} ${JSON.stringify(passing)}`, passed: true, actual: held });
        const fail = await probe(`${a.origin}/text`, { bodyAssertions: [{ comparator, target: failing }] });
        assert.equal(fail.result, 'down');
        assert.equal(fail.message, `assertion failed: body ${comparator} ${JSON.stringify(failing)} (got ${failed})`);
        assert.deepEqual(fail.assertionResults.at(-1), { assertion: `body ${comparator} ${JSON.stringify(failing)}`, passed: false, actual: failed });
      });

      test(`header ${comparator}`, async () => {
        const pass = await probe(`${a.origin}/text`, { headerAssertions: [{ key: 'X-Trace', comparator, target: headerPassing }] });
        assertUp(pass);
        const fail = await probe(`${a.origin}/text`, { headerAssertions: [{ key: 'X-Trace', comparator, target: headerFailing }] });
        assert.equal(fail.result, 'down');
        assert.equal(fail.message, `assertion failed: header x-trace ${comparator} ${JSON.stringify(headerFailing)} (got "abc-123")`);
      });
    }

    test('body empty and not_empty', async () => {
      assertUp(await probe(`${a.origin}/empty`, { bodyAssertions: [{ comparator: 'empty', target: '' }] }));
      assertUp(await probe(`${a.origin}/text`, { bodyAssertions: [{ comparator: 'not_empty', target: '' }] }));
      const notEmpty = await probe(`${a.origin}/text`, { bodyAssertions: [{ comparator: 'empty', target: '' }] });
      assert.equal(notEmpty.result, 'down');
      assert.equal(notEmpty.message, 'assertion failed: body empty (got a body that is not empty)');
      const empty = await probe(`${a.origin}/empty`, { bodyAssertions: [{ comparator: 'not_empty', target: '' }] });
      assert.equal(empty.result, 'down');
      assert.equal(empty.message, 'assertion failed: body not_empty (got an empty body)');
    });

    test('header empty and not_empty; a missing header is empty', async () => {
      assertUp(await probe(`${a.origin}/text`, { headerAssertions: [{ key: 'x-trace', comparator: 'not_empty', target: '' }] }));
      assertUp(await probe(`${a.origin}/text`, { headerAssertions: [{ key: 'x-missing', comparator: 'empty', target: '' }] }));
      const present = await probe(`${a.origin}/text`, { headerAssertions: [{ key: 'x-trace', comparator: 'empty', target: '' }] });
      assert.equal(present.message, 'assertion failed: header x-trace empty (got "abc-123")');
      const missing = await probe(`${a.origin}/text`, { headerAssertions: [{ key: 'x-missing', comparator: 'not_empty', target: '' }] });
      assert.equal(missing.result, 'down');
      assert.equal(missing.message, 'assertion failed: header x-missing not_empty (got no such header)');
    });

    test('several failures: the first is told, with how many more', async () => {
      const result = await probe(`${a.origin}/text`, {
        statusCodeAssertions: [{ comparator: 'equal', target: 204 }],
        headerAssertions: [{ key: 'x-trace', comparator: 'equal', target: 'other' }],
        bodyAssertions: [
          { comparator: 'contains', target: 'hello' },
          { comparator: 'contains', target: 'nope' },
        ],
      });
      assert.equal(result.result, 'down');
      assert.equal(result.message, 'assertion failed: status code equal 204 (got 200) and 2 more');
      assert.deepEqual(
        result.assertionResults.map((r) => r.passed),
        [false, false, true, false],
      );
    });

    test('a 2 MiB body: the first MiB is asserted on, the rest is not read', async () => {
      const head = await probe(`${a.origin}/large`, { bodyAssertions: [{ comparator: 'contains', target: LARGE_HEAD }] });
      assertUp(head);
      assertJudged(head);
      assert.equal(head.responseHeaders['content-length'], String(2 * 1024 * 1024));

      const tail = await probe(`${a.origin}/large`, { bodyAssertions: [{ comparator: 'not_contains', target: LARGE_TAIL }] });
      assertUp(tail);

      const fail = await probe(`${a.origin}/large`, { bodyAssertions: [{ comparator: 'contains', target: LARGE_TAIL }] });
      assert.equal(fail.result, 'down');
      assert.equal(fail.message, `assertion failed: body contains "${LARGE_TAIL}" (got a body without it)`, 'the body is never shown');
    });
  });

  describe('response headers', () => {
    test('credentials, cookies, tokens, sessions and api keys are redacted; the rest kept', async () => {
      const result = await probe(`${a.origin}/secret-headers`);
      assertUp(result);
      const headers = result.responseHeaders;
      assert.equal(headers['set-cookie'], '[redacted]');
      assert.equal(headers['x-api-key'], '[redacted]');
      assert.equal(headers['x-auth-token'], '[redacted]');
      assert.equal(headers['x-session-id'], '[redacted]');
      assert.equal(headers['content-type'], 'application/json');
      assert.equal(headers['x-request-id'], 'req-42');
      const shown = JSON.stringify(result);
      for (const secret of ['s3cr3t-cookie', 'k3y-value', 't0ken-value', 'sess-value']) assert.ok(!shown.includes(secret), `${secret} not in the result`);
    });

    test('assertions on a secret header use its value but never show it', async () => {
      const pass = await probe(`${a.origin}/secret-headers`, { headerAssertions: [{ key: 'X-API-Key', comparator: 'equal', target: 'k3y-value' }] });
      assertUp(pass);
      assert.equal(pass.assertionResults[1]!.actual, '[redacted]');

      const fail = await probe(`${a.origin}/secret-headers`, { headerAssertions: [{ key: 'set-cookie', comparator: 'contains', target: 'nope' }] });
      assert.equal(fail.result, 'down');
      assert.equal(fail.message, 'assertion failed: header set-cookie contains "nope" (got [redacted])');
      assert.ok(!JSON.stringify(fail).includes('s3cr3t-cookie'));
    });
  });

  describe('redirects', () => {
    test('followed to the end: the result is the final answer and URL', async () => {
      const before = a.requests.length;
      const result = await probe(`${a.origin}/hop-1`);
      assertUp(result);
      assert.equal(result.url, `${a.origin}/landing`);
      assert.equal(result.statusCode, 200);
      assert.deepEqual(
        a.requests.slice(before).map((r) => r.path),
        ['/hop-1', '/hop-2', '/hop-3', '/landing'],
      );
    });

    test('phases are summed over the hops', async () => {
      const result = await probe(`${a.origin}/slow-hop`);
      assertUp(result);
      assert.equal(result.url, `${a.origin}/slow-120`);
      // Each hop waits at least 120 ms before answering: one hop alone could not make 240.
      assert.ok(result.timing.ttfb! >= 240, `ttfb ${result.timing.ttfb} ms`);
      assert.ok(result.latencyMs >= result.timing.ttfb!);
    });

    test('a redirect loop stops after 10 redirects', async () => {
      const before = a.seen('/loop').length;
      const result = await probe(`${a.origin}/loop`);
      assert.equal(result.result, 'down');
      assert.equal(result.message, 'stopped after 10 redirects');
      assert.equal(result.url, `${a.origin}/loop`);
      assert.equal(a.seen('/loop').length - before, 11, 'the first request and 10 redirects');
    });

    test('followRedirects false: the 3xx is the answer, down without a status assertion', async () => {
      const before = a.requests.length;
      const result = await probe(`${a.origin}/moved`, { followRedirects: false });
      assert.equal(result.result, 'down');
      assert.equal(result.statusCode, 302);
      assert.equal(result.url, `${a.origin}/moved`);
      assert.equal(result.message, 'assertion failed: status code 2xx (got 302)');
      assert.equal(result.responseHeaders.location, '/landing');
      assert.deepEqual(
        a.requests.slice(before).map((r) => r.path),
        ['/moved'],
      );

      const expected = await probe(`${a.origin}/moved`, { followRedirects: false, statusCodeAssertions: [{ comparator: 'equal', target: 302 }] });
      assertUp(expected);
      assert.match(expected.message, /^302 Found in /);
    });

    test('303 turns a POST into a GET without body or content headers', async () => {
      const before = a.requests.length;
      const result = await probe(`${a.origin}/see-other`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-keep': 'yes' },
        body: '{"a":1}',
      });
      assertUp(result);
      const [first, second] = a.requests.slice(before);
      assert.equal(first!.method, 'POST');
      assert.equal(first!.body, '{"a":1}');
      assert.equal(second!.path, '/landing');
      assert.equal(second!.method, 'GET');
      assert.equal(second!.body, '');
      assert.equal(second!.headers['content-type'], undefined);
      assert.equal(second!.headers['content-length'], undefined);
      assert.equal(second!.headers['x-keep'], 'yes');
      assert.equal(second!.headers['user-agent'], USER_AGENT);
    });

    test('301 turns a POST into a GET; 307 keeps the POST and its body', async () => {
      let before = a.requests.length;
      assertUp(await probe(`${a.origin}/moved-permanently`, { method: 'POST', body: 'payload' }));
      let landing = a.requests.slice(before)[1]!;
      assert.equal(landing.method, 'GET');
      assert.equal(landing.body, '');

      before = a.requests.length;
      assertUp(await probe(`${a.origin}/temporary`, { method: 'POST', body: 'payload', headers: { 'content-type': 'text/plain' } }));
      landing = a.requests.slice(before)[1]!;
      assert.equal(landing.path, '/landing');
      assert.equal(landing.method, 'POST');
      assert.equal(landing.body, 'payload');
      assert.equal(landing.headers['content-type'], 'text/plain');
    });

    test('a cross-origin redirect drops credentials headers and keeps the rest', async () => {
      const before = b.seen('/landing').length;
      const result = await probe(`${a.origin}/to-localhost`, {
        headers: { Authorization: 'Bearer top-secret', Cookie: 'sid=abc', 'Proxy-Authorization': 'Basic eDp5', 'X-Custom': 'kept' },
      });
      assertUp(result);
      assert.equal(result.url, `${b.origin}/landing`);
      assert.equal(typeof result.timing.dns, 'number', 'the localhost hop resolved a name');

      const sentToA = a.seen('/to-localhost').at(-1)!;
      assert.equal(sentToA.headers.authorization, 'Bearer top-secret');
      assert.equal(sentToA.headers.cookie, 'sid=abc');

      const [landing] = b.seen('/landing').slice(before);
      assert.ok(landing, 'the other origin was reached');
      assert.equal(landing.headers.authorization, undefined);
      assert.equal(landing.headers.cookie, undefined);
      assert.equal(landing.headers['proxy-authorization'], undefined);
      assert.equal(landing.headers['x-custom'], 'kept');
      assert.equal(landing.headers['user-agent'], USER_AGENT);
      assert.equal(landing.headers.host, new URL(b.origin).host);
    });

    test('a same-origin redirect keeps credentials headers', async () => {
      const before = a.seen('/landing').length;
      assertUp(await probe(`${a.origin}/moved`, { headers: { authorization: 'Bearer same-origin', cookie: 'sid=1' } }));
      const [landing] = a.seen('/landing').slice(before);
      assert.equal(landing!.headers.authorization, 'Bearer same-origin');
      assert.equal(landing!.headers.cookie, 'sid=1');
    });

    test('a redirect out of http(s) is down and named', async () => {
      const result = await probe(`${a.origin}/to-ftp`);
      assert.equal(result.result, 'down');
      assert.equal(result.message, 'redirected to an address that is not http or https: ftp://127.0.0.1/file');
      assert.equal(result.url, `${a.origin}/to-ftp`);
    });
  });

  describe('https', () => {
    let ca: Pems;
    let selfSigned: Peer; // self-signed certificate for 127.0.0.1 and localhost
    let signed: Peer; // signed by `ca`, for 127.0.0.1 and localhost
    let signedLocal: Peer; // signed by `ca`, reached as localhost
    let nameOnly: Peer; // signed by `ca`, for localhost only, reached as 127.0.0.1
    let trusted: SecureContext;
    let ownCert: string;

    before(async () => {
      ca = await makeCa();
      const both: AltName[] = [
        { type: 2, value: 'localhost' },
        { type: 7, ip: '127.0.0.1' },
        { type: 7, ip: '::1' },
      ];
      const [own, leaf, localOnly] = await Promise.all([makeServerCert(both), makeServerCert(both, ca), makeServerCert([{ type: 2, value: 'localhost' }], ca)]);
      ownCert = own.cert;
      const answer = (_req: IncomingMessage, res: ServerResponse) => void res.writeHead(200).end('secure');
      selfSigned = await startPeer(createHttpsServer(own), '127.0.0.1', '127.0.0.1', 'https');
      signed = await startPeer(createHttpsServer(leaf), '127.0.0.1', '127.0.0.1', 'https');
      const local = await lookup('localhost');
      signedLocal = await startPeer(createHttpsServer(leaf), local.address, 'localhost', 'https');
      nameOnly = await startPeer(createHttpsServer(localOnly), '127.0.0.1', '127.0.0.1', 'https');
      for (const peer of [selfSigned, signed, signedLocal, nameOnly]) peer.route('/', answer);
      trusted = trustStore([ca.cert]);
    });

    after(async () => {
      await Promise.all([selfSigned, signed, signedLocal, nameOnly].map((peer) => peer?.close()));
    });

    test('a self-signed certificate: down, certificate verification failed, no request sent, not retried', async () => {
      const sent = selfSigned.requests.length;
      const result = await probe(`${selfSigned.origin}/`, { retry: 3 });
      assert.equal(result.result, 'down');
      assert.equal(result.message, 'certificate verification failed');
      assert.equal(result.attempts, 1, 'another attempt cannot change the certificate');
      assert.equal(typeof result.timing.tls, 'number', 'the handshake itself completed');
      assert.equal(result.statusCode, null);
      assert.equal(selfSigned.requests.length, sent, 'nothing was sent over the unverified connection');
    });

    test('a CA-signed certificate: down without the CA, up with it in the trust store', async () => {
      const untrusted = await probe(`${signed.origin}/`);
      assert.equal(untrusted.result, 'down');
      assert.equal(untrusted.message, 'certificate verification failed');

      const result = await probe(`${signed.origin}/`, {}, trusted);
      assertUp(result);
      assertJudged(result);
      assert.equal(result.url, `${signed.origin}/`);
      assert.equal(result.timing.dns, null);
      assert.equal(typeof result.timing.tls, 'number');
      assert.ok(result.timing.tls! > 0);
      assert.equal(signed.requests.at(-1)?.headers['user-agent'], USER_AGENT);
    });

    test('a trusted certificate reached by name: up, with DNS and TLS phases', async () => {
      const result = await probe(`${signedLocal.origin}/`, {}, trusted);
      assertUp(result);
      assert.equal(typeof result.timing.dns, 'number');
      assert.equal(typeof result.timing.tls, 'number');
    });

    test('a trusted certificate for another name: down, certificate verification failed', async () => {
      const result = await probe(`${nameOnly.origin}/`, {}, trusted);
      assert.equal(result.result, 'down');
      assert.equal(result.message, 'certificate verification failed');
      assert.equal(nameOnly.requests.length, 0);
    });

    test('trusting the self-signed certificate itself: up', async () => {
      const result = await probe(`${selfSigned.origin}/`, {}, trustStore([ownCert]));
      assertUp(result);
    });
  });
});
