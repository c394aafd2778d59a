import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { after, before, describe, test } from 'node:test';
import type { SecureContext } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { trustStore } from '../server/checks/connection.ts';
import { type GrpcProbeConfig, probeGrpc } from '../server/checks/grpc-probe.ts';
import type { ProbeResult } from '../server/domain/monitors/check-results.ts';
import {
  type Blackhole,
  closedPort,
  type GrpcPeer,
  grpcJsCheck,
  grpcJsSkipVerify,
  hostPort,
  type LoopbackHost,
  makeCertificates,
  type RawGrpcPeer,
  ServingStatus,
  startBlackhole,
  startGrpcPeer,
  startRawGrpcPeer,
  startTcpListener,
  startTlsWithoutAlpn,
  type TestCertificates,
  withFailingResolver,
} from './support/grpc-peers.ts';

const USER_AGENT = 'statusdesk-test/1.0';

/** Node's roots and the system's, without the test CA. */
let publicTrust: SecureContext;
/** The same plus the test CA. */
let caTrust: SecureContext;

const monitor = (uri: string, overrides: Partial<GrpcProbeConfig> = {}): GrpcProbeConfig => ({
  uri,
  service: '',
  tls: 'plaintext',
  metadata: {},
  timeout: 2000,
  degraded: null,
  retry: 0,
  ...overrides,
});

const probe = (config: GrpcProbeConfig, trust = publicTrust) => probeGrpc(config, { trust, userAgent: USER_AGENT });

const insecure = () => grpc.credentials.createInsecure();

/** The fields a gRPC probe never fills, and the total that must be the latency. */
function assertGrpcShape(result: ProbeResult): void {
  assert.equal(result.statusCode, null);
  assert.equal(result.url, null);
  assert.deepEqual(result.responseHeaders, {});
  assert.deepEqual(result.assertionResults, []);
  assert.equal(result.timing.total, result.latencyMs);
}

/** The phases of a check that reached the server over h2c, to an IP literal, and got an answer. */
function assertAnsweredPlaintext(result: ProbeResult): void {
  assert.equal(result.timing.dns, null, 'an IP literal has no DNS phase');
  assert.equal(typeof result.timing.connect, 'number', 'connect timed');
  assert.equal(result.timing.tls, null, 'no TLS in plaintext');
  assert.equal(typeof result.timing.ttfb, 'number', 'ttfb timed');
  assert.equal(typeof result.timing.transfer, 'number', 'transfer timed');
  assertGrpcShape(result);
}

describe('gRPC probe', () => {
  const closers: (() => Promise<void>)[] = [];
  const track = <T extends { close(): Promise<void> }>(peer: T): T => {
    closers.push(() => peer.close());
    return peer;
  };

  let certs: TestCertificates;
  let health: GrpcPeer;
  let health6: GrpcPeer;
  let noHealth: GrpcPeer;
  let notFound: GrpcPeer;
  let serviceUnknown: GrpcPeer;
  let delayed: GrpcPeer;
  let silent: RawGrpcPeer;
  let silentGrpcJs: GrpcPeer;
  let selfSignedTls: GrpcPeer;
  let selfSignedRaw: RawGrpcPeer;
  let caSigned: GrpcPeer;
  let caSignedLocalhost: GrpcPeer;
  let wrongName: GrpcPeer;
  let blackhole: Blackhole;

  before(async () => {
    certs = await makeCertificates();
    publicTrust = trustStore();
    caTrust = trustStore([certs.ca.cert]);
    const { address: localhostAddress } = await lookup('localhost'); // answered by the hosts file
    [
      health,
      health6,
      noHealth,
      notFound,
      serviceUnknown,
      delayed,
      silent,
      silentGrpcJs,
      selfSignedTls,
      selfSignedRaw,
      caSigned,
      caSignedLocalhost,
      wrongName,
      blackhole,
    ] = await Promise.all([
      startGrpcPeer({ health: { '': 'SERVING', 'app.Down': 'NOT_SERVING' } }).then(track),
      startGrpcPeer({ health: { '': 'SERVING' }, host: '::1' }).then(track),
      startGrpcPeer().then(track),
      startGrpcPeer({ check: () => ({ code: grpc.status.NOT_FOUND, details: 'no such service here' }) }).then(track),
      startGrpcPeer({ check: () => ({ status: ServingStatus.SERVICE_UNKNOWN }) }).then(track),
      startGrpcPeer({ health: { '': 'SERVING' }, delayMs: 200 }).then(track),
      startRawGrpcPeer({ answer: 'never' }).then(track),
      startGrpcPeer({ check: () => 'never' }).then(track),
      startGrpcPeer({ health: { '': 'SERVING' }, tls: certs.selfSigned }).then(track),
      startRawGrpcPeer({ answer: ServingStatus.SERVING, tls: certs.selfSigned }).then(track),
      startGrpcPeer({ health: { '': 'SERVING' }, tls: certs.leaf }).then(track),
      startGrpcPeer({ health: { '': 'SERVING' }, tls: certs.leaf, host: localhostAddress as LoopbackHost }).then(track),
      startGrpcPeer({ health: { '': 'SERVING' }, tls: certs.wrongName }).then(track),
      startBlackhole().then(track),
    ]);
  });

  after(async () => {
    await Promise.all(closers.map((close) => close()));
  });

  describe('answers', () => {
    test('SERVING is up: connect, ttfb and transfer timed, no DNS phase for an IP literal, no TLS phase in plaintext', async () => {
      const before = health.calls.length;
      const result = await probe(monitor(health.uri, { degraded: 1500 }));
      assert.equal(result.result, 'up');
      assert.equal(result.grpcStatus, 'SERVING');
      assert.equal(result.message, 'the server is SERVING');
      assert.equal(result.attempts, 1);
      assertAnsweredPlaintext(result);
      assert.equal(health.calls.length, before + 1);
      assert.equal(health.calls.at(-1)!.service, '');
      assert.equal(await grpcJsCheck({ uri: health.uri, credentials: insecure() }), 'SERVING');
    });

    test('an IPv6 literal target ([::1]:port) is checked the same way', async () => {
      const result = await probe(monitor(health6.uri));
      assert.equal(result.result, 'up');
      assert.equal(result.grpcStatus, 'SERVING');
      assertAnsweredPlaintext(result);
      assert.equal(health6.calls.length, 1);
      assert.equal(await grpcJsCheck({ uri: health6.uri, credentials: insecure() }), 'SERVING');
    });

    test('NOT_SERVING is down with its timings still recorded, and is not retried (retry 3 → 1 attempt)', async () => {
      const before = health.calls.length;
      const result = await probe(monitor(health.uri, { service: 'app.Down', retry: 3 }));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'NOT_SERVING');
      assert.equal(result.message, 'the service "app.Down" is NOT_SERVING');
      assert.equal(result.attempts, 1);
      assertAnsweredPlaintext(result);
      assert.equal(health.calls.length, before + 1, 'one health request');
      assert.equal(health.calls.at(-1)!.service, 'app.Down');
      assert.equal(await grpcJsCheck({ uri: health.uri, credentials: insecure(), service: 'app.Down' }), 'NOT_SERVING');
    });

    test('an unknown service (NOT_FOUND from the reference health service) is SERVICE_UNKNOWN, down, not retried', async () => {
      const before = health.calls.length;
      const result = await probe(monitor(health.uri, { service: 'app.Missing', retry: 3 }));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'SERVICE_UNKNOWN');
      assert.equal(result.message, 'the server does not know the service "app.Missing" (NOT_FOUND)');
      assert.equal(result.attempts, 1);
      assertAnsweredPlaintext(result);
      assert.equal(health.calls.length, before + 1);
      assert.equal(await grpcJsCheck({ uri: health.uri, credentials: insecure(), service: 'app.Missing' }), 'SERVICE_UNKNOWN');
    });

    test('a Check handler answering the NOT_FOUND status code is SERVICE_UNKNOWN, down, not retried', async () => {
      const result = await probe(monitor(notFound.uri, { retry: 3 }));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'SERVICE_UNKNOWN');
      assert.equal(result.message, 'the server does not know the server (NOT_FOUND)');
      assert.equal(result.attempts, 1);
      assertAnsweredPlaintext(result);
      assert.equal(notFound.calls.length, 1);
      assert.equal(await grpcJsCheck({ uri: notFound.uri, credentials: insecure() }), 'SERVICE_UNKNOWN');
    });

    test('a Check handler answering the SERVICE_UNKNOWN enum value is SERVICE_UNKNOWN, down, not retried', async () => {
      const result = await probe(monitor(serviceUnknown.uri, { service: 'app.Other', retry: 3 }));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'SERVICE_UNKNOWN');
      assert.equal(result.message, 'the server does not know the service "app.Other" (SERVICE_UNKNOWN)');
      assert.equal(result.attempts, 1);
      assertAnsweredPlaintext(result);
      assert.equal(serviceUnknown.calls.length, 1);
      assert.equal(await grpcJsCheck({ uri: serviceUnknown.uri, credentials: insecure(), service: 'app.Other' }), 'SERVICE_UNKNOWN');
    });

    test('a server without the health service is UNIMPLEMENTED, down, with its own message, not retried', async () => {
      const result = await probe(monitor(noHealth.uri, { retry: 3 }));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'UNIMPLEMENTED');
      assert.match(result.message, /^the server has no health service: \/grpc\.health\.v1\.Health\/Check is UNIMPLEMENTED/);
      assert.equal(result.attempts, 1);
      assertAnsweredPlaintext(result);
      assert.equal(await grpcJsCheck({ uri: noHealth.uri, credentials: insecure() }), 'UNIMPLEMENTED');
    });

    test('metadata is sent as HTTP/2 headers: the server call has authorization, x-tenant and the user agent', async () => {
      const before = health.calls.length;
      const metadata = { authorization: 'Bearer abc', 'x-tenant': 't1' };
      const result = await probe(monitor(health.uri, { metadata }));
      assert.equal(result.grpcStatus, 'SERVING');
      assert.equal(health.calls.length, before + 1);
      const received = health.calls.at(-1)!.metadata;
      assert.deepEqual(received.get('authorization'), ['Bearer abc']);
      assert.deepEqual(received.get('x-tenant'), ['t1']);
      assert.deepEqual(received.get('user-agent'), [USER_AGENT]);
      // grpc-js sending the same metadata is received the same way by this server.
      assert.equal(await grpcJsCheck({ uri: health.uri, credentials: insecure(), metadata }), 'SERVING');
      assert.deepEqual(health.calls.at(-1)!.metadata.get('x-tenant'), ['t1']);
    });

    test('each check opens a fresh connection and one HTTP/2 stream', async () => {
      const raw = track(await startRawGrpcPeer({ answer: ServingStatus.SERVING }));
      for (let i = 1; i <= 2; i++) {
        const result = await probe(monitor(raw.uri));
        assert.equal(result.grpcStatus, 'SERVING');
        assert.equal(raw.connections, i);
        assert.equal(raw.sessions, i);
        assert.equal(raw.streams.length, i);
      }
      const request = raw.streams[0]!;
      assert.equal(request[':method'], 'POST');
      assert.equal(request[':path'], '/grpc.health.v1.Health/Check');
      assert.equal(request['content-type'], 'application/grpc');
      assert.equal(request.te, 'trailers');
    });
  });

  describe('time', () => {
    test('a server that answers after 200 ms gives a ttfb of at least 200 ms and well under two answers', async () => {
      const result = await probe(monitor(delayed.uri));
      assert.equal(result.result, 'up');
      assert.equal(result.grpcStatus, 'SERVING');
      // A timer may fire a millisecond early; a busy machine delays the answer, so the upper bound
      // only catches a ttfb that counts more than one wait (a retry, or the wait counted twice).
      assert.ok(result.timing.ttfb! >= 199 && result.timing.ttfb! < 400, `ttfb ${result.timing.ttfb}`);
      assert.ok(result.latencyMs >= result.timing.ttfb! + result.timing.connect!, `latency ${result.latencyMs}`);
      assertAnsweredPlaintext(result);
    });

    test('SERVING slower than the degraded threshold is degraded, still SERVING', async () => {
      const result = await probe(monitor(delayed.uri, { degraded: 100 }));
      assert.equal(result.result, 'degraded');
      assert.equal(result.grpcStatus, 'SERVING');
      assert.equal(result.message, `SERVING in ${result.latencyMs} ms, slower than the degraded threshold of 100 ms`);
      assert.equal(result.attempts, 1);
      assertAnsweredPlaintext(result);
    });

    test('a server that never answers is DEADLINE_EXCEEDED "timed out after 400 ms", connected but no ttfb, not retried', async () => {
      const result = await probe(monitor(silent.uri, { timeout: 400, retry: 3 }));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'DEADLINE_EXCEEDED');
      assert.equal(result.message, 'timed out after 400 ms');
      assert.equal(result.attempts, 1);
      assert.ok(result.latencyMs >= 399 && result.latencyMs < 550, `latency ${result.latencyMs}`);
      assert.equal(typeof result.timing.connect, 'number');
      assert.equal(result.timing.ttfb, null);
      assert.equal(result.timing.transfer, null);
      assertGrpcShape(result);
      // The one request carried the remaining budget as its gRPC deadline.
      assert.equal(silent.streams.length, 1);
      const timeout = /^(\d+)m$/.exec(String(silent.streams[0]!['grpc-timeout']));
      assert.ok(timeout && Number(timeout[1]) > 0 && Number(timeout[1]) <= 400, `grpc-timeout ${silent.streams[0]!['grpc-timeout']}`);
      assert.equal(await grpcJsCheck({ uri: silent.uri, credentials: insecure(), deadlineMs: 400 }), 'DEADLINE_EXCEEDED');
    });

    test('a grpc-js handler that never answers is DEADLINE_EXCEEDED and down, not retried, whichever deadline fires first', async () => {
      const result = await probe(monitor(silentGrpcJs.uri, { timeout: 300, retry: 3 }));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'DEADLINE_EXCEEDED');
      // grpc-js enforces the grpc-timeout the probe sent, so its own DEADLINE_EXCEEDED can arrive a
      // hair before the probe's deadline fires: either message is a deadline.
      assert.ok(['timed out after 300 ms', 'the server answered DEADLINE_EXCEEDED: Deadline exceeded'].includes(result.message), result.message);
      assert.equal(result.attempts, 1);
      assert.equal(silentGrpcJs.calls.length, 1);
      assert.ok(result.latencyMs >= 295 && result.latencyMs < 450, `latency ${result.latencyMs}`);
      assertGrpcShape(result);
      assert.equal(await grpcJsCheck({ uri: silentGrpcJs.uri, credentials: insecure(), deadlineMs: 300 }), 'DEADLINE_EXCEEDED');
    });

    test('a connect that never completes is DEADLINE_EXCEEDED "timed out after 400 ms", with no connect time', async () => {
      const result = await probe(monitor(blackhole.uri, { timeout: 400, retry: 3 }));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'DEADLINE_EXCEEDED');
      assert.equal(result.message, 'timed out after 400 ms');
      assert.equal(result.attempts, 1);
      assert.ok(result.latencyMs >= 399 && result.latencyMs < 550, `latency ${result.latencyMs}`);
      assert.equal(result.timing.connect, null);
      assert.equal(result.timing.ttfb, null);
      assertGrpcShape(result);
      assert.equal(await grpcJsCheck({ uri: blackhole.uri, credentials: insecure(), deadlineMs: 400 }), 'DEADLINE_EXCEEDED');
    });
  });

  describe('connection failures', () => {
    test('a TCP server that never speaks HTTP/2 is DEADLINE_EXCEEDED "timed out after 400 ms" in the handshake, not retried', async () => {
      const mute = track(await startTcpListener());
      const result = await probe(monitor(mute.uri, { timeout: 400, retry: 3 }));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'DEADLINE_EXCEEDED');
      assert.equal(result.message, 'timed out after 400 ms');
      assert.equal(result.attempts, 1);
      assert.equal(mute.connections, 1);
      assert.equal(typeof result.timing.connect, 'number');
      assert.equal(result.timing.ttfb, null);
      assertGrpcShape(result);
      assert.equal(await grpcJsCheck({ uri: mute.uri, credentials: insecure(), deadlineMs: 400 }), 'DEADLINE_EXCEEDED');
    });

    test('a server that closes each connection at once is UNAVAILABLE, retried: retry 2 makes 3 connections', async () => {
      const closing = track(await startTcpListener('127.0.0.1', 0, true));
      const result = await probe(monitor(closing.uri, { retry: 2 }));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'UNAVAILABLE');
      assert.equal(result.attempts, 3);
      assert.equal(closing.connections, 3);
      assert.equal(result.timing.ttfb, null);
      assertGrpcShape(result);
      assert.equal(await grpcJsCheck({ uri: closing.uri, credentials: insecure() }), 'UNAVAILABLE');
    });

    test('the timeout bounds the retries: refused with retry 10 within 500 ms stops after 3 attempts, inside the budget', async () => {
      const port = await closedPort();
      const result = await probe(monitor(hostPort('127.0.0.1', port), { retry: 10, timeout: 500 }));
      assert.equal(result.grpcStatus, 'UNAVAILABLE');
      assert.equal(result.message, 'connection refused');
      assert.equal(result.attempts, 3); // pauses of 100 and 200 ms; the next (400 ms) does not fit
      assert.ok(result.latencyMs < 500, `latency ${result.latencyMs}`);
    });

    test('a stream reset after the request left is down as INTERNAL, as grpc-js reports it, and not retried (retry 3 → 1 attempt, 1 stream)', async () => {
      const resetting = track(await startRawGrpcPeer({ answer: 'reset' }));
      const result = await probe(monitor(resetting.uri, { retry: 3 }));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'UNKNOWN');
      assert.match(result.message, /^the server answered INTERNAL: the server reset the call \(HTTP\/2 error \d+\)$/);
      assert.equal(result.attempts, 1);
      assert.equal(resetting.streams.length, 1);
      assert.equal(resetting.connections, 1);
      assert.equal(result.timing.ttfb, null);
      assertGrpcShape(result);
    });

    test('a refused connection is UNAVAILABLE "connection refused", retried: retry 2 makes 3 attempts', async () => {
      const port = await closedPort();
      const result = await probe(monitor(hostPort('127.0.0.1', port), { retry: 2 }));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'UNAVAILABLE');
      assert.equal(result.message, 'connection refused');
      assert.equal(result.attempts, 3);
      assert.ok(result.latencyMs >= 300, `latency ${result.latencyMs} includes the 100 + 200 ms pauses`);
      assert.equal(result.timing.connect, null);
      assert.equal(result.timing.ttfb, null);
      assertGrpcShape(result);
      assert.equal(await grpcJsCheck({ uri: hostPort('127.0.0.1', port), credentials: insecure() }), 'UNAVAILABLE');
    });

    test('a name that does not resolve is UNAVAILABLE "DNS lookup failed: …", retried', async () => {
      const result = await withFailingResolver('ENOTFOUND', () => probe(monitor(hostPort('localhost', health.port), { retry: 1 })));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'UNAVAILABLE');
      assert.ok(result.message.startsWith('DNS lookup failed:'), result.message);
      assert.equal(result.message, 'DNS lookup failed: no such host (localhost)');
      assert.equal(result.attempts, 2);
      assert.equal(result.timing.connect, null);
      assertGrpcShape(result);
    });

    test('plaintext aimed at a TLS port is UNAVAILABLE before any health request: no handler call, no HTTP/2 stream', async () => {
      const grpcJsCalls = selfSignedTls.calls.length;
      const viaGrpcJs = await probe(monitor(selfSignedTls.uri));
      assert.equal(viaGrpcJs.result, 'down');
      assert.equal(viaGrpcJs.grpcStatus, 'UNAVAILABLE');
      assert.equal(viaGrpcJs.message, 'the server did not answer the HTTP/2 handshake: if it serves TLS, set the TLS mode to verify or skip-verify');
      assert.equal(viaGrpcJs.attempts, 1);
      assert.equal(viaGrpcJs.timing.ttfb, null);
      assert.equal(selfSignedTls.calls.length, grpcJsCalls, 'the grpc-js TLS server handled no Check');

      const seen = {
        connections: selfSignedRaw.connections,
        tlsClientErrors: selfSignedRaw.tlsClientErrors,
        sessions: selfSignedRaw.sessions,
        streams: selfSignedRaw.streams.length,
      };
      const viaRaw = await probe(monitor(selfSignedRaw.uri));
      assert.equal(viaRaw.grpcStatus, 'UNAVAILABLE');
      assert.equal(viaRaw.message, viaGrpcJs.message);
      assert.equal(selfSignedRaw.connections, seen.connections + 1, 'the probe did reach the TLS server');
      assert.equal(selfSignedRaw.tlsClientErrors, seen.tlsClientErrors + 1, 'the TLS server rejected what the probe sent');
      assert.equal(selfSignedRaw.sessions, seen.sessions, 'no HTTP/2 session was established');
      assert.equal(selfSignedRaw.streams.length, seen.streams, 'no HTTP/2 stream was opened');

      // The same server over TLS does get the request: the counts above would have seen one.
      const overTls = await probe(monitor(selfSignedRaw.uri, { tls: 'skip-verify' }));
      assert.equal(overTls.grpcStatus, 'SERVING');
      assert.equal(selfSignedRaw.streams.length, seen.streams + 1);

      assert.equal(await grpcJsCheck({ uri: selfSignedTls.uri, credentials: insecure() }), 'UNAVAILABLE');
    });

    test('TLS aimed at a plaintext port is UNAVAILABLE, a failed TLS handshake, with no health request', async () => {
      const before = health.calls.length;
      const result = await probe(monitor(health.uri, { tls: 'skip-verify' }));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'UNAVAILABLE');
      assert.ok(result.message.startsWith('TLS handshake failed: '), result.message);
      assert.equal(result.attempts, 1);
      assert.equal(typeof result.timing.connect, 'number');
      assert.equal(result.timing.tls, null);
      assert.equal(result.timing.ttfb, null);
      assert.equal(health.calls.length, before);
      assert.equal(await grpcJsCheck({ uri: health.uri, credentials: grpcJsSkipVerify() }), 'UNAVAILABLE');
    });

    test('a TLS server without HTTP/2 (no ALPN h2) is UNAVAILABLE', async () => {
      const plainTls = track(await startTlsWithoutAlpn(certs.selfSigned.key, certs.selfSigned.cert));
      const result = await probe(monitor(plainTls.uri, { tls: 'skip-verify' }));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'UNAVAILABLE');
      assert.equal(result.message, 'the server does not offer HTTP/2 over TLS (ALPN h2), which gRPC requires');
      assert.equal(typeof result.timing.tls, 'number');
      assert.equal(result.timing.ttfb, null);
      // No grpc-js comparison: grpc-js ignores ALPN, speaks HTTP/2 anyway and waits until its
      // deadline (DEADLINE_EXCEEDED) on this silent TLS server.
    });
  });

  describe('TLS modes', () => {
    test('verify: a self-signed certificate is UNAVAILABLE with exactly "certificate verification failed", no request sent', async () => {
      const before = selfSignedTls.calls.length;
      const result = await probe(monitor(selfSignedTls.uri, { tls: 'verify' }));
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'UNAVAILABLE');
      assert.equal(result.message, 'certificate verification failed');
      assert.equal(result.attempts, 1);
      assert.equal(result.timing.ttfb, null);
      assertGrpcShape(result);
      assert.equal(selfSignedTls.calls.length, before);
      assert.equal(await grpcJsCheck({ uri: selfSignedTls.uri, credentials: grpc.credentials.createSsl() }), 'UNAVAILABLE');
    });

    test('skip-verify: the same self-signed certificate is accepted, up with a timed TLS phase', async () => {
      const result = await probe(monitor(selfSignedTls.uri, { tls: 'skip-verify' }));
      assert.equal(result.result, 'up');
      assert.equal(result.grpcStatus, 'SERVING');
      assert.equal(result.attempts, 1);
      assert.equal(result.timing.dns, null);
      assert.equal(typeof result.timing.connect, 'number');
      assert.equal(typeof result.timing.tls, 'number');
      assert.equal(typeof result.timing.ttfb, 'number');
      assertGrpcShape(result);
      assert.equal(await grpcJsCheck({ uri: selfSignedTls.uri, credentials: grpcJsSkipVerify() }), 'SERVING');
    });

    test('verify: a leaf signed by a CA in the trust store (SAN IP 127.0.0.1) is up', async () => {
      const result = await probe(monitor(caSigned.uri, { tls: 'verify' }), caTrust);
      assert.equal(result.result, 'up');
      assert.equal(result.grpcStatus, 'SERVING');
      assert.equal(typeof result.timing.tls, 'number');
      assertGrpcShape(result);
      assert.equal(await grpcJsCheck({ uri: caSigned.uri, credentials: grpc.credentials.createSsl(Buffer.from(certs.ca.cert)) }), 'SERVING');
    });

    test('verify: the same CA-signed leaf without its CA in the trust store is "certificate verification failed"', async () => {
      const result = await probe(monitor(caSigned.uri, { tls: 'verify' }), publicTrust);
      assert.equal(result.grpcStatus, 'UNAVAILABLE');
      assert.equal(result.message, 'certificate verification failed');
      assert.equal(await grpcJsCheck({ uri: caSigned.uri, credentials: grpc.credentials.createSsl() }), 'UNAVAILABLE');
    });

    test('verify: a CA-signed certificate for another name (other.example) is exactly "certificate verification failed"', async () => {
      const before = wrongName.calls.length;
      const result = await probe(monitor(wrongName.uri, { tls: 'verify' }), caTrust);
      assert.equal(result.result, 'down');
      assert.equal(result.grpcStatus, 'UNAVAILABLE');
      assert.equal(result.message, 'certificate verification failed');
      assert.equal(result.attempts, 1);
      assert.equal(wrongName.calls.length, before);
      assert.equal(await grpcJsCheck({ uri: wrongName.uri, credentials: grpc.credentials.createSsl(Buffer.from(certs.ca.cert)) }), 'UNAVAILABLE');
      // skip-verify accepts it.
      assert.equal((await probe(monitor(wrongName.uri, { tls: 'skip-verify' }), caTrust)).grpcStatus, 'SERVING');
    });

    test('verify by hostname: localhost is resolved in a timed DNS phase and matched to the DNS SAN', async () => {
      const result = await probe(monitor(hostPort('localhost', caSignedLocalhost.port), { tls: 'verify' }), caTrust);
      assert.equal(result.result, 'up');
      assert.equal(result.grpcStatus, 'SERVING');
      assert.equal(result.message, 'the server is SERVING');
      assert.equal(result.attempts, 1);
      assert.equal(caSignedLocalhost.calls.length, 1);
      assert.equal(typeof result.timing.dns, 'number');
      assert.equal(typeof result.timing.connect, 'number');
      assert.equal(typeof result.timing.tls, 'number');
      assert.equal(typeof result.timing.ttfb, 'number');
      assertGrpcShape(result);
    });
  });
});
