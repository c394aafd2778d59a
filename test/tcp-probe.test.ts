import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { type AddressInfo, createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { probeTcp } from '../server/checks/tcp-probe.ts';
import type { ProbeResult } from '../server/domain/monitors/check-results.ts';
import {
  type Blackhole,
  closedPort,
  hostPort,
  type LoopbackHost,
  startBlackhole,
  startTcpListener,
  type TcpListener,
  withFailingResolver,
} from './support/grpc-peers.ts';
import { until } from './support/wait.ts';

type TcpMonitor = Parameters<typeof probeTcp>[0];

const monitor = (uri: string, overrides: Partial<TcpMonitor> = {}): TcpMonitor => ({ uri, timeout: 2000, degraded: null, retry: 0, ...overrides });

/** The fields a TCP probe never fills, and the total that must be the latency. */
function assertTcpShape(result: ProbeResult): void {
  assert.equal(result.grpcStatus, null);
  assert.equal(result.statusCode, null);
  assert.equal(result.url, null);
  assert.deepEqual(result.responseHeaders, {});
  assert.deepEqual(result.assertionResults, []);
  assert.equal(result.timing.tls, null);
  assert.equal(result.timing.ttfb, null);
  assert.equal(result.timing.transfer, null);
  assert.equal(result.timing.total, result.latencyMs);
}

describe('TCP probe', () => {
  const closers: (() => Promise<void>)[] = [];
  let listener: TcpListener;
  let listener6: TcpListener;
  let localhostListener: TcpListener;
  let blackhole: Blackhole;

  before(async () => {
    listener = await startTcpListener('127.0.0.1');
    listener6 = await startTcpListener('::1');
    // `localhost` is answered by the hosts file; listen on whatever address it gives.
    const { address } = await lookup('localhost');
    localhostListener = await startTcpListener(address as LoopbackHost);
    blackhole = await startBlackhole();
    closers.push(listener.close, listener6.close, localhostListener.close, blackhole.close);
  });

  after(async () => {
    await Promise.all(closers.map((close) => close()));
  });

  test('an open IPv4 port is up: connect timed, no DNS phase for an IP literal, then the connection is closed', async () => {
    const accepted = listener.connections;
    const closed = listener.closedByPeer;
    const result = await probeTcp(monitor(listener.uri, { degraded: 1500 }));
    assert.equal(result.result, 'up');
    assert.equal(result.attempts, 1);
    assert.equal(result.message, `connected in ${result.latencyMs} ms`);
    assert.equal(result.timing.dns, null);
    assert.equal(typeof result.timing.connect, 'number');
    assert.ok(result.timing.connect! >= 0 && result.timing.connect! <= result.latencyMs);
    assertTcpShape(result);
    assert.equal(listener.connections, accepted + 1);
    await until(() => listener.closedByPeer === closed + 1, 'the probe closes its connection');
  });

  test('the connection is closed in the ordinary way: the target reads its end (FIN), never a reset', async () => {
    const seen: string[] = [];
    const server = createServer((socket) => {
      socket.on('end', () => seen.push('end'));
      socket.on('error', (error: NodeJS.ErrnoException) => seen.push(error.code ?? error.message));
      socket.on('close', () => seen.push('close'));
      socket.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const result = await probeTcp(monitor(`127.0.0.1:${(server.address() as AddressInfo).port}`));
      assert.equal(result.result, 'up');
      await until(() => seen.includes('close'), 'the target sees the connection close');
      assert.deepEqual(seen, ['end', 'close']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('an IPv6 literal in brackets ([::1]:port) is connected the same way', async () => {
    const result = await probeTcp(monitor(listener6.uri));
    assert.equal(result.result, 'up');
    assert.equal(result.attempts, 1);
    assert.equal(result.timing.dns, null);
    assert.equal(typeof result.timing.connect, 'number');
    assertTcpShape(result);
    await until(() => listener6.connections === 1, 'the ::1 listener sees the connection');
  });

  test('a hostname (localhost) is resolved in a timed DNS phase before the connect', async () => {
    const result = await probeTcp(monitor(hostPort('localhost', localhostListener.port)));
    assert.equal(result.result, 'up');
    assert.equal(typeof result.timing.dns, 'number');
    assert.equal(typeof result.timing.connect, 'number');
    assert.ok(result.timing.dns! + result.timing.connect! <= result.latencyMs);
    assertTcpShape(result);
    await until(() => localhostListener.connections === 1, 'the listener sees the connection');
  });

  test('a refused port is down with "connection refused" and no connect time', async () => {
    const port = await closedPort();
    const result = await probeTcp(monitor(hostPort('127.0.0.1', port)));
    assert.equal(result.result, 'down');
    assert.equal(result.message, 'connection refused');
    assert.equal(result.attempts, 1);
    assert.equal(result.timing.dns, null);
    assert.equal(result.timing.connect, null);
    assertTcpShape(result);
  });

  test('a refused IPv6 port is down with "connection refused"', async () => {
    const port = await closedPort('::1');
    const result = await probeTcp(monitor(hostPort('::1', port)));
    assert.equal(result.result, 'down');
    assert.equal(result.message, 'connection refused');
  });

  test('a refused connection is retried: retry 2 makes 3 attempts, with the pauses in the latency', async () => {
    const port = await closedPort();
    const result = await probeTcp(monitor(hostPort('127.0.0.1', port), { retry: 2, timeout: 3000 }));
    assert.equal(result.result, 'down');
    assert.equal(result.message, 'connection refused');
    assert.equal(result.attempts, 3);
    // 100 ms then 200 ms between the attempts: the latency is the whole check.
    assert.ok(result.latencyMs >= 300 && result.latencyMs < 1000, `latency ${result.latencyMs}`);
    assertTcpShape(result);
  });

  test('the timeout bounds the retries: retry 10 within 500 ms stops after 3 attempts, inside the budget', async () => {
    const port = await closedPort();
    const result = await probeTcp(monitor(hostPort('127.0.0.1', port), { retry: 10, timeout: 500 }));
    assert.equal(result.result, 'down');
    assert.equal(result.message, 'connection refused');
    // Attempts at ~0, ~100, ~300 ms; the next pause (400 ms) would not fit in the 500 ms budget.
    assert.equal(result.attempts, 3);
    assert.ok(result.latencyMs < 500, `latency ${result.latencyMs} within the 500 ms budget`);
  });

  test('a connection that succeeds on a retry counts 2 attempts, and is degraded when that made it slower than the threshold', async () => {
    const port = await closedPort();
    // Refused at first; the listener opens 30 ms in, before the retry (100 ms after the first attempt).
    const opening = sleep(30).then(() => startTcpListener('127.0.0.1', port));
    const result = await probeTcp(monitor(hostPort('127.0.0.1', port), { retry: 3, degraded: 50 }));
    const late = await opening;
    closers.push(late.close);
    assert.equal(late.connections, 1);
    assert.equal(result.attempts, 2);
    assert.equal(result.result, 'degraded');
    assert.ok(result.latencyMs > 100, `latency ${result.latencyMs}`);
    assert.equal(result.message, `connected in ${result.latencyMs} ms, slower than the degraded threshold of 50 ms`);
    assert.equal(typeof result.timing.connect, 'number');
    assertTcpShape(result);
  });

  test('a connect that never completes is down with "timed out after 400 ms" at the timeout, not retried past it', async () => {
    const result = await probeTcp(monitor(blackhole.uri, { timeout: 400, retry: 3 }));
    assert.equal(result.result, 'down');
    assert.equal(result.message, 'timed out after 400 ms');
    assert.equal(result.attempts, 1);
    assert.ok(result.latencyMs >= 399 && result.latencyMs < 550, `latency ${result.latencyMs}`);
    assert.equal(result.timing.dns, null);
    assert.equal(result.timing.connect, null);
    assertTcpShape(result);
  });

  test('a name that does not resolve is down with "DNS lookup failed: …", no connect, and is retried', async () => {
    const port = await closedPort();
    const result = await withFailingResolver('ENOTFOUND', () => probeTcp(monitor(hostPort('localhost', port), { retry: 1 })));
    assert.equal(result.result, 'down');
    assert.ok(result.message.startsWith('DNS lookup failed:'), result.message);
    assert.equal(result.message, 'DNS lookup failed: no such host (localhost)');
    assert.equal(result.attempts, 2);
    assert.equal(result.timing.connect, null);
    assertTcpShape(result);
  });
});
