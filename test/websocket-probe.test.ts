/**
 * The WebSocket check (server/checks/websocket-probe.ts) against a real WebSocket server of the
 * `ws` package on loopback (test/support/websocket-peer.ts), over ws:// and wss:// with
 * certificates made here: each outcome of the type's table in docs/reference/monitors.md, with its
 * message, its record and its phases; that it closes cleanly (the server receives 1000); that a
 * message's text is never recorded; and that the destination policy judges the address connected to.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import type { SecureContext } from 'node:tls';
import { trustStore } from '../server/checks/connection.ts';
import { closeCodeWords } from '../contract/websocket-close-codes.ts';
import { probeWebSocket, type WebSocketProbeConfig } from '../server/checks/websocket-probe.ts';
import { createDestinationPolicy } from '../server/domain/destinations.ts';
import type { ProbeResult } from '../server/domain/monitors/check-results.ts';
import { closedPort, makeCertificates, type TestCertificates } from './support/grpc-peers.ts';
import { until } from './support/wait.ts';
import { GREETING, LARGE_BYTES, startWebSocketPeer, type WebSocketPeer } from './support/websocket-peer.ts';

const USER_AGENT = 'statusdesk/test';

const config = (url: string, overrides: Partial<WebSocketProbeConfig> = {}): WebSocketProbeConfig => ({
  url,
  headers: {},
  subprotocol: '',
  sendText: '',
  expectText: '',
  timeout: 3000,
  degraded: null,
  retry: 0,
  ...overrides,
});

let trust: SecureContext;
const probe = (url: string, overrides: Partial<WebSocketProbeConfig> = {}, options: Partial<Parameters<typeof probeWebSocket>[1]> = {}) =>
  probeWebSocket(config(url, overrides), { trust, userAgent: USER_AGENT, ...options });

function assertUp(result: ProbeResult): void {
  assert.equal(result.result, 'up', `expected up, got ${result.result}: ${result.message}`);
  assert.equal(result.websocket?.status, 'OK');
  assert.equal(result.statusCode, 101);
  assert.equal(result.timing.total, result.latencyMs);
  assert.equal(typeof result.timing.connect, 'number');
  assert.equal(typeof result.timing.ttfb, 'number');
}

function assertDown(result: ProbeResult, status: string, message: string | RegExp): void {
  assert.equal(result.result, 'down', `expected down, got ${result.result}: ${result.message}`);
  assert.equal(result.websocket?.status, status, result.message);
  if (typeof message === 'string') assert.equal(result.message, message);
  else assert.match(result.message, message);
  assert.equal(result.timing.total, result.latencyMs);
}

/** What the server received as close codes on `path`, once the check's connection has closed. */
async function closeCodesOn(peer: WebSocketPeer, path: string, count = 1): Promise<number[]> {
  await until(() => peer.closes.filter((c) => c.path === path).length >= count, `the server saw ${count} close on ${path}`);
  return peer.closes.filter((c) => c.path === path).map((c) => c.code);
}

/** What a server answers in Sec-WebSocket-Accept to the client's key (RFC 6455 4.2.2). */
const acceptOf = (key: string) => createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');

/** A server that answers every upgrade with 101 and the headers `extra` gives for the client's key, then holds the socket. */
async function startRawHandshake(extra: (key: string) => string): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    let head = '';
    let answered = false;
    socket.on('data', (chunk) => {
      // What follows the handshake (frames, the close) is read and left unanswered.
      if (answered) return;
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      answered = true;
      const key = /sec-websocket-key: *(\S+)/i.exec(head)?.[1] ?? '';
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n${extra(key)}\r\n`);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('WebSocket probe', { timeout: 30_000 }, () => {
  let peer: WebSocketPeer;
  let certificates: TestCertificates;

  before(async () => {
    trust = trustStore();
    peer = await startWebSocketPeer();
    certificates = await makeCertificates();
  });
  after(() => peer?.close());

  test('an upgrade: up with 101, the connection and upgrade timed, no message waited for, and the socket closed cleanly with 1000', async () => {
    const before = peer.closes.filter((c) => c.path === '/').length;
    const result = await probe(peer.url('/'));
    assertUp(result);
    assert.match(result.message, /^upgraded in [\d.]+ ms$/);
    assert.equal(result.timing.dns, null, 'an IP literal is not looked up');
    assert.equal(result.timing.tls, null);
    assert.equal(result.timing.transfer, null, 'no message was waited for');
    assert.equal(result.attempts, 1);
    assert.deepEqual(result.websocket, { status: 'OK', subprotocol: null, closeCode: null, closeReason: '', expectedMatched: null, messageBytes: null });
    const codes = await closeCodesOn(peer, '/', before + 1);
    assert.equal(codes.at(-1), 1000, 'the check closes with 1000 (normal closure)');
  });

  test('the headers, the user agent and the subprotocol reach the server; the handshake headers are the client’s own', async () => {
    const result = await probe(peer.url('/chat?room=1'), {
      headers: { authorization: 'Bearer ws-secret', origin: 'https://app.example' },
      subprotocol: 'chat.v1',
    });
    assertUp(result);
    assert.match(result.message, /^upgraded with subprotocol chat\.v1 in [\d.]+ ms$/);
    assert.equal(result.websocket?.subprotocol, 'chat.v1');
    const upgrade = peer.upgrades.findLast((u) => u.path === '/chat')!;
    assert.equal(upgrade.headers.authorization, 'Bearer ws-secret');
    assert.equal(upgrade.headers.origin, 'https://app.example');
    assert.equal(upgrade.headers['user-agent'], USER_AGENT);
    assert.equal(upgrade.headers.host, `127.0.0.1:${peer.port}`);
    assert.deepEqual(upgrade.protocols, ['chat.v1']);
    assert.equal(upgrade.headers['sec-websocket-extensions'], undefined, 'no compression is offered: a check reads little');
  });

  test('a refused upgrade: down with its HTTP status in words (401, 404), and not retried', async () => {
    const unauthorized = await probe(peer.url('/unauthorized'), { retry: 2 });
    assertDown(unauthorized, 'HANDSHAKE_REFUSED', 'the server refused the upgrade: 401 Unauthorized');
    assert.equal(unauthorized.statusCode, 401);
    assert.equal(unauthorized.attempts, 1, 'an answer is not retried');
    assert.equal(typeof unauthorized.timing.ttfb, 'number');
    const missing = await probe(peer.url('/nowhere'));
    assertDown(missing, 'HANDSHAKE_REFUSED', 'the server refused the upgrade: 404 Not Found');
    assert.equal(missing.statusCode, 404);
    const plain = await probe(peer.url('/plain'));
    assertDown(plain, 'HANDSHAKE_REFUSED', 'the server refused the upgrade: 200 OK (a plain HTTP answer: the URL may not be a WebSocket endpoint)');
  });

  test('a subprotocol the server does not agree to: down, naming what was asked and what it chose', async () => {
    const none = await probe(peer.url('/chat'), { subprotocol: 'chat.v2' });
    assertDown(none, 'SUBPROTOCOL_REFUSED', 'the server did not agree to subprotocol "chat.v2": it chose none');
    assert.equal(none.statusCode, 101);
    const other = await probe(peer.url('/other-protocol'), { subprotocol: 'chat.v1' });
    assertDown(other, 'SUBPROTOCOL_REFUSED', 'the server did not agree to subprotocol "chat.v1": it chose "other"');
    // The ws server names a subprotocol only when offered one: a handshake of its own names one unasked.
    const raw = await startRawHandshake((key) => `Sec-WebSocket-Accept: ${acceptOf(key)}\r\nSec-WebSocket-Protocol: other\r\n`);
    try {
      const unasked = await probe(raw.url);
      assertDown(unasked, 'SUBPROTOCOL_REFUSED', 'the server chose subprotocol "other", which the check did not ask for');
    } finally {
      await raw.close();
    }
  });

  test('a server that never answers the close: the wait for it is bounded, and not counted in the check', async () => {
    const raw = await startRawHandshake((key) => `Sec-WebSocket-Accept: ${acceptOf(key)}\r\n`);
    try {
      const started = performance.now();
      const result = await probe(raw.url, { timeout: 5000 });
      const took = performance.now() - started;
      assertUp(result);
      assert.ok(took >= 900 && took < 3000, `the close was waited for about a second, not the timeout (${took} ms)`);
      assert.ok(result.latencyMs < took - 500, `the check's time (${result.latencyMs} ms) leaves the close out (${took} ms in all)`);
    } finally {
      await raw.close();
    }
  });

  test('an upgrade answer that is not a WebSocket handshake (a wrong Sec-WebSocket-Accept): down, a protocol error', async () => {
    const raw = await startRawHandshake(() => 'Sec-WebSocket-Accept: bm90IHRoZSByaWdodCBrZXk=\r\n');
    try {
      const result = await probe(raw.url);
      assertDown(result, 'PROTOCOL_ERROR', "the server's answer is not a WebSocket handshake: invalid Sec-WebSocket-Accept header");
      assert.equal(result.statusCode, 101);
    } finally {
      await raw.close();
    }
  });

  test('the server closing with 1008 and a reason before the expected message: down, the code and the reason in words', async () => {
    const result = await probe(peer.url('/policy'), { expectText: 'ready' });
    assertDown(result, 'CLOSED', 'the server closed the socket before the first message: 1008 policy violation ("token expired")');
    assert.equal(result.websocket?.closeCode, 1008);
    assert.equal(result.websocket?.closeReason, 'token expired');
    assert.equal(result.websocket?.messageBytes, null);
    const going = await probe(peer.url('/going-away'), { sendText: 'hi', expectText: 'ready' });
    assertDown(going, 'CLOSED', 'the server closed the socket before the reply: 1001 going away');
    const dropped = await probe(peer.url('/drop'), { expectText: 'ready' });
    assertDown(dropped, 'CLOSED', 'the connection was dropped before the first message, without a close frame (1006)');
    assert.equal(dropped.websocket?.closeCode, 1006);
  });

  test('a close by the server does not matter once the check has what it waits for: without an expected text, the upgrade is enough', async () => {
    assertUp(await probe(peer.url('/policy')));
  });

  test('the expected message arrives: up, its size recorded and its text not, the wait timed as transfer', async () => {
    const result = await probe(peer.url('/greet'), { expectText: 'statusdesk' });
    assertUp(result);
    assert.match(result.message, /^upgraded, and the first message held the expected text in [\d.]+ ms$/);
    assert.equal(typeof result.timing.transfer, 'number');
    assert.deepEqual(result.websocket, {
      status: 'OK',
      subprotocol: null,
      closeCode: null,
      closeReason: '',
      expectedMatched: true,
      messageBytes: Buffer.byteLength(GREETING),
    });
    assert.ok(!JSON.stringify(result).includes(GREETING), 'the message text is never recorded');
    const binary = await probe(peer.url('/greet-binary'), { expectText: 'hello' });
    assertUp(binary);
  });

  test('a first message without the expected text: down, its size and no text; the socket still closed with 1000', async () => {
    const before = peer.closes.filter((c) => c.path === '/greet').length;
    const result = await probe(peer.url('/greet'), { expectText: 'goodbye' });
    assertDown(result, 'UNEXPECTED_MESSAGE', `the first message (${Buffer.byteLength(GREETING)} bytes) did not contain the expected text`);
    assert.equal(result.websocket?.expectedMatched, false);
    assert.equal(result.websocket?.messageBytes, Buffer.byteLength(GREETING));
    assert.ok(!JSON.stringify(result).includes(GREETING));
    const codes = await closeCodesOn(peer, '/greet', before + 1);
    assert.equal(codes.at(-1), 1000);
  });

  test('the expected message not arriving: down at the timeout, naming what was waited for', async () => {
    const result = await probe(peer.url('/'), { expectText: 'ready', timeout: 400 });
    assertDown(result, 'TIMEOUT', 'timed out after 400 ms waiting for the first message');
    assert.equal(result.statusCode, 101, 'the upgrade happened');
    assert.ok(result.latencyMs >= 400);
    const reply = await probe(peer.url('/'), { sendText: 'ping', expectText: 'pong', timeout: 400 });
    assertDown(reply, 'TIMEOUT', 'timed out after 400 ms waiting for the reply');
  });

  test('an echo reply to a sent message: up, the reply held the expected text', async () => {
    const result = await probe(peer.url('/echo'), { sendText: '{"op":"ping","id":7}', expectText: '"op":"ping"' });
    assertUp(result);
    assert.match(result.message, /^upgraded, and the reply held the expected text in [\d.]+ ms$/);
    assert.equal(result.websocket?.messageBytes, Buffer.byteLength('{"op":"ping","id":7}'));
    const sentOnly = await probe(peer.url('/echo'), { sendText: 'fire and forget' });
    assertUp(sentOnly);
    assert.match(sentOnly.message, /^upgraded, and the message was sent in [\d.]+ ms$/);
  });

  test('an oversized message: down unread, the socket closed with 1009', async () => {
    const before = peer.closes.filter((c) => c.path === '/large').length;
    const result = await probe(peer.url('/large'), { expectText: 'x' });
    assertDown(
      result,
      'MESSAGE_TOO_LARGE',
      'a message larger than 64 KiB arrived: the check reads none that large, and closed the socket with 1009 message too big',
    );
    assert.equal(result.websocket?.messageBytes, null);
    assert.ok(LARGE_BYTES > 64 * 1024);
    const codes = await closeCodesOn(peer, '/large', before + 1);
    assert.equal(codes.at(-1), 1009);
  });

  test('degraded when slower than the threshold', async () => {
    const result = await probe(peer.url('/'), { degraded: 1, timeout: 3000 });
    // Loopback may be faster than a millisecond: then it is up, and the threshold is not crossed.
    if (result.latencyMs > 1) {
      assert.equal(result.result, 'degraded');
      assert.match(result.message, /^upgraded in [\d.]+ ms, slower than the degraded threshold of 1 ms$/);
    } else assertUp(result);
  });

  test('a closed port: down, connection refused, retried', async () => {
    const port = await closedPort();
    const result = await probe(`ws://127.0.0.1:${port}/`, { retry: 1 });
    assertDown(result, 'UNREACHABLE', 'connection refused');
    assert.equal(result.attempts, 2);
    assert.equal(result.statusCode, null);
  });

  test('the destination policy judges the address connected to: a refused one is never connected, nor retried', async () => {
    const policy = createDestinationPolicy();
    policy.listening('127.0.0.1', [peer.port]);
    const upgrades = peer.upgrades.length;
    const result = await probe(peer.url('/'), { retry: 2 }, { destinations: policy });
    assertDown(result, 'UNREACHABLE', /this service's own port, which the destination policy refuses/);
    assert.equal(result.attempts, 1);
    assert.equal(peer.upgrades.length, upgrades);
  });

  test('a server that does not speak HTTP: down, a protocol error', async () => {
    const server = createServer((socket: Socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const result = await probe(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      assertDown(result, 'PROTOCOL_ERROR', /^the server did not answer the upgrade with HTTP\/1\.1: /);
    } finally {
      server.close();
    }
  });

  test('a server that accepts the connection and never answers: down at the timeout, during the upgrade', async () => {
    const held: Socket[] = [];
    const server = createServer((socket: Socket) => void held.push(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const result = await probe(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`, { timeout: 300 });
      assertDown(result, 'TIMEOUT', 'timed out after 300 ms during the upgrade');
      assert.equal(result.statusCode, null);
    } finally {
      for (const socket of held) socket.destroy();
      server.close();
    }
  });

  test('the engine stopping ends a check in flight', async () => {
    const stop = new AbortController();
    const checking = probe(peer.url('/'), { expectText: 'never', timeout: 10_000 }, { stop: stop.signal });
    setTimeout(() => stop.abort(), 100);
    const result = await checking;
    assertDown(result, 'TIMEOUT', 'timed out after 10000 ms waiting for the first message');
    assert.ok(result.latencyMs < 5000, `ended at once, not at the timeout (${result.latencyMs} ms)`);
  });

  describe('wss', () => {
    let secure: WebSocketPeer;
    before(async () => {
      secure = await startWebSocketPeer({ tls: certificates.leaf });
    });
    after(() => secure?.close());

    test('a certificate signed by a CA of the trust store: up, with a TLS phase; the expected message read over TLS', async () => {
      const result = await probe(secure.url('/greet'), { expectText: 'hello' }, { trust: trustStore([certificates.ca.cert]) });
      assertUp(result);
      assert.equal(typeof result.timing.tls, 'number');
      assert.equal(result.websocket?.expectedMatched, true);
      // The server's certificate, as every TLS check records it.
      assert.equal(result.certificate?.verified, true);
      assert.ok((result.certificate?.daysLeft ?? 0) > 0);
    });

    test('a certificate the trust store does not know: down, certificate verification failed, not retried', async () => {
      const upgrades = secure.upgrades.length;
      const result = await probe(secure.url('/'), { retry: 2 });
      assertDown(result, 'UNREACHABLE', 'certificate verification failed');
      assert.equal(result.attempts, 1);
      assert.equal(result.certificate?.verified, false, 'the certificate that failed is recorded');
      assert.equal(secure.upgrades.length, upgrades, 'nothing is sent to a server whose certificate fails');
    });
  });

  test('an IPv6 loopback server', async (t) => {
    let six: WebSocketPeer;
    try {
      six = await startWebSocketPeer({ host: '::1' });
    } catch {
      return t.skip('no IPv6 loopback on this machine');
    }
    try {
      const result = await probe(six.url('/greet'), { expectText: GREETING });
      assertUp(result);
      assert.equal(six.upgrades[0]!.headers.host, `[::1]:${six.port}`);
    } finally {
      await six.close();
    }
  });

  test('close codes in words', () => {
    assert.equal(closeCodeWords(1000), '1000 normal closure');
    assert.equal(closeCodeWords(1011), '1011 internal error');
    assert.equal(closeCodeWords(4001), "4001 (the application's own code)");
    assert.equal(closeCodeWords(3500), '3500 (a registered code)');
    assert.equal(closeCodeWords(2999), '2999');
  });
});
