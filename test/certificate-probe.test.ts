/**
 * The certificate check (server/checks/certificate-probe.ts) against TLS servers on loopback whose
 * certificates are made here: each row of the outcome table of docs/reference/monitors.md
 * (Certificate) against a real server, and what the record says of the certificate. Then the
 * existing TLS checks (HTTPS, gRPC over TLS), which carry the same record beside an outcome that
 * is what it was before.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureContext } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { type CertificateProbeConfig, probeCertificate } from '../server/checks/certificate-probe.ts';
import { trustStore } from '../server/checks/connection.ts';
import { probeGrpc } from '../server/checks/grpc-probe.ts';
import { probeHttp } from '../server/checks/http-probe.ts';
import { createDestinationPolicy } from '../server/domain/destinations.ts';
import type { CertificateCheck, ProbeResult } from '../server/domain/monitors/check-results.ts';
import { closedPort, startGrpcPeer, startTcpListener } from './support/grpc-peers.ts';
import { days, type KeyAndCert, makeServerCert, makeTestCa, startTlsPeer, type TlsPeer } from './support/tls-peers.ts';

const config = (uri: string, overrides: Partial<CertificateProbeConfig> = {}): CertificateProbeConfig => ({
  uri,
  serverName: '',
  minDaysLeft: 14,
  timeout: 5_000,
  degraded: null,
  retry: 0,
  ...overrides,
});

let ca: KeyAndCert;
let trusted: SecureContext;
let publicTrust: SecureContext;
let valid: KeyAndCert;
const peers: { close(): Promise<void> }[] = [];

async function peer(certificate: KeyAndCert, options: Parameters<typeof startTlsPeer>[1] = {}): Promise<TlsPeer> {
  const started = await startTlsPeer(certificate, options);
  peers.push(started);
  return started;
}

const check = (uri: string, overrides: Partial<CertificateProbeConfig> = {}, trust = trusted) => probeCertificate(config(uri, overrides), { trust });

/** The record of `result`, which must have one. */
function recordOf(result: ProbeResult): CertificateCheck {
  assert.ok(result.certificate, `the result carries the certificate (${result.message})`);
  return result.certificate;
}

before(async () => {
  ca = await makeTestCa();
  valid = await makeServerCert({ ca });
  trusted = trustStore([ca.cert]);
  publicTrust = trustStore();
});

after(async () => {
  await Promise.all(peers.map((p) => p.close()));
});

describe('the certificate check: each outcome against a real TLS server', () => {
  test('a valid certificate signed by a trusted CA: up, with the whole record', async () => {
    const server = await peer(valid);
    const result = await check(server.uri);
    assert.equal(result.result, 'up', result.message);
    assert.match(result.message, /^the certificate is valid for (89|90) more days, until \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    const x509 = new X509Certificate(valid.cert);
    assert.deepEqual(recordOf(result), {
      subject: 'CN=statusdesk test server',
      issuer: 'CN=Statusdesk Test CA',
      subjectAltNames: ['DNS:localhost', 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1'],
      notBefore: new Date(x509.validFrom).toISOString(),
      notAfter: new Date(x509.validTo).toISOString(),
      daysLeft: recordOf(result).daysLeft,
      fingerprintSha256: x509.fingerprint256,
      serialNumber: x509.serialNumber,
      verified: true,
      nameMatches: true,
      serverName: '127.0.0.1',
      error: null,
    });
    assert.ok([89, 90].includes(recordOf(result).daysLeft));
    assert.equal(result.timing.dns, null, 'an IP address is not looked up');
    assert.equal(typeof result.timing.connect, 'number');
    assert.equal(typeof result.timing.tls, 'number');
    assert.equal(result.timing.total, result.latencyMs);
    assert.equal(server.connections, 1);
    assert.deepEqual(server.serverNames, [], 'no SNI is sent for an IP address');
  });

  test('by name: the host is sent in SNI and matched; over IPv6 the address is matched', async () => {
    const server = await peer(valid);
    const byName = await check(`localhost:${server.port}`);
    assert.equal(byName.result, 'up', byName.message);
    assert.equal(recordOf(byName).serverName, 'localhost');
    assert.equal(server.serverNames.at(-1), 'localhost');
    assert.equal(typeof byName.timing.dns, 'number');

    const six = await peer(valid, { host: '::1' });
    const overSix = await check(six.uri);
    assert.equal(overSix.result, 'up', overSix.message);
    assert.equal(recordOf(overSix).serverName, '::1');
  });

  test('expiring in 3 days: degraded below the 14 days of min days left; up when fewer days are asked for', async () => {
    const soon = await peer(await makeServerCert({ ca, validFromMs: -days(10), validForMs: days(13) + 3_600_000 }));
    const result = await check(soon.uri);
    assert.equal(result.result, 'degraded');
    assert.match(result.message, /^the certificate expires in 3 days, on \d{4}-\d\d-\d\d \d\d:\d\d UTC: fewer than 14 days left$/);
    assert.equal(recordOf(result).daysLeft, 3);
    assert.equal(recordOf(result).verified, true);

    const relaxed = await check(soon.uri, { minDaysLeft: 3 });
    assert.equal(relaxed.result, 'up', relaxed.message);
    assert.match(relaxed.message, /valid for 3 more days/);
    const never = await check(soon.uri, { minDaysLeft: 0 });
    assert.equal(never.result, 'up');
  });

  test('expired: down, saying when, and the record says it does not verify', async () => {
    const old = await peer(await makeServerCert({ ca, validFromMs: -days(92.5), validForMs: days(90) }));
    const result = await check(old.uri, { retry: 3 });
    assert.equal(result.result, 'down');
    assert.match(result.message, /^the certificate expired 2 days ago, on \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    assert.equal(result.attempts, 1, 'a certificate is an answer: never retried');
    const record = recordOf(result);
    assert.equal(record.daysLeft, -3, 'whole days from the check to its end, rounded down: -1 within a day after it');
    assert.equal(record.verified, false);
    assert.equal(record.error, 'it has expired');
  });

  test('not valid yet: down, saying from when', async () => {
    const early = await peer(await makeServerCert({ ca, validFromMs: days(5), validForMs: days(90) }));
    const result = await check(early.uri);
    assert.equal(result.result, 'down');
    assert.match(result.message, /^the certificate is not valid until \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    assert.equal(recordOf(result).error, 'it is not valid yet');
  });

  test('the wrong name: down, naming the name checked and the names it is for', async () => {
    const other = await peer(await makeServerCert({ ca, names: [{ type: 2, value: 'other.example' }] }));
    const result = await check(other.uri);
    assert.equal(result.result, 'down');
    assert.equal(result.message, 'the certificate is not for 127.0.0.1: it names DNS:other.example');
    const record = recordOf(result);
    assert.equal(record.verified, true, 'its chain verifies');
    assert.equal(record.nameMatches, false);
    assert.equal(record.error, 'it is not for 127.0.0.1: it names DNS:other.example');

    // Node checks a socket it did not connect against `localhost` when no name is sent: the
    // address connected to is what the certificate must name.
    const localOnly = await peer(await makeServerCert({ ca, names: [{ type: 2, value: 'localhost' }] }));
    const byAddress = await check(localOnly.uri);
    assert.equal(byAddress.result, 'down');
    assert.equal(byAddress.message, 'the certificate is not for 127.0.0.1: it names DNS:localhost');
    assert.equal((await check(`localhost:${localOnly.port}`)).result, 'up');
  });

  test('self-signed: down, does not verify; up once the certificate itself is trusted', async () => {
    const own = await makeServerCert();
    const server = await peer(own);
    const result = await check(server.uri, { retry: 3 });
    assert.equal(result.result, 'down');
    assert.equal(result.message, 'the certificate does not verify: it is self-signed, and not in the trust store');
    assert.equal(result.attempts, 1);
    assert.equal(recordOf(result).verified, false);
    assert.equal(recordOf(result).subject, recordOf(result).issuer);

    const pinned = await check(server.uri, {}, trustStore([own.cert]));
    assert.equal(pinned.result, 'up', pinned.message);
  });

  test("a CA the checks' trust store does not hold: down, its issuer is not trusted", async () => {
    const server = await peer(valid);
    const result = await check(server.uri, {}, publicTrust);
    assert.equal(result.result, 'down');
    assert.equal(result.message, 'the certificate does not verify: its issuer is unknown: the server may not send its intermediate certificates');
  });

  test('a server name: sent in SNI instead of the host, and the certificate matched against it', async () => {
    const shop = await makeServerCert({ ca, names: [{ type: 2, value: 'shop.statusdesk.test' }] });
    const server = await peer(valid, { byName: { 'shop.statusdesk.test': shop } });
    const named = await check(server.uri, { serverName: 'shop.statusdesk.test' });
    assert.equal(named.result, 'up', named.message);
    assert.equal(server.serverNames.at(-1), 'shop.statusdesk.test');
    assert.equal(recordOf(named).serverName, 'shop.statusdesk.test');
    assert.deepEqual(recordOf(named).subjectAltNames, ['DNS:shop.statusdesk.test']);

    const unknown = await check(server.uri, { serverName: 'www.statusdesk.test' });
    assert.equal(unknown.result, 'down', 'the default certificate is not for the name asked for');
    assert.match(unknown.message, /^the certificate is not for www\.statusdesk\.test: it names DNS:localhost/);
  });

  test('a slow handshake: degraded above the degraded threshold', async () => {
    const slow = await peer(valid, { delayMs: 80 });
    const result = await check(`localhost:${slow.port}`, { degraded: 40 });
    assert.equal(result.result, 'degraded');
    assert.match(result.message, /^handshake done in [\d.]+ ms, slower than the degraded threshold of 40 ms$/);
    assert.ok(result.certificate);
  });

  test('no TLS on the port: down, saying so (an HTTP server; a server that hangs up)', async () => {
    const plain = createHttpServer((_req, res) => res.end('plain'));
    plain.listen(0, '127.0.0.1');
    await new Promise((resolve) => plain.once('listening', resolve));
    peers.push({ close: () => new Promise<void>((resolve) => plain.close(() => resolve())) });
    const http = await check(`127.0.0.1:${(plain.address() as AddressInfo).port}`);
    assert.equal(http.result, 'down');
    assert.match(http.message, /^no TLS on this port: the server answered the handshake with something else \(.+\)$/);
    assert.equal(http.certificate, undefined);

    const hangsUp = await startTcpListener('127.0.0.1', 0, true);
    peers.push(hangsUp);
    const closed = await check(hangsUp.uri);
    assert.equal(closed.result, 'down');
    assert.equal(closed.message, 'TLS handshake failed: the server closed the connection during the handshake');
  });

  test('no connection: refused, a silent server timing out, and a destination the policy refuses', async () => {
    const refused = await check(`127.0.0.1:${await closedPort()}`);
    assert.equal(refused.result, 'down');
    assert.equal(refused.message, 'connection refused');
    assert.equal(refused.timing.tls, null);

    const silent = await startTcpListener();
    peers.push(silent);
    const timedOut = await check(silent.uri, { timeout: 300 });
    assert.equal(timedOut.result, 'down');
    assert.equal(timedOut.message, 'timed out after 300 ms');

    const server = await peer(valid);
    const destinations = createDestinationPolicy();
    destinations.listening('127.0.0.1', [server.port]);
    const before = server.connections;
    const policy = await probeCertificate(config(server.uri), { trust: trusted, destinations });
    assert.equal(policy.result, 'down');
    assert.match(policy.message, /destination policy refuses/);
    assert.equal(server.connections, before, 'nothing was connected to');
  });
});

describe('the existing TLS checks carry the certificate, their outcomes unchanged', () => {
  const userAgent = 'statusdesk/test';
  const httpConfig = (url: string) => ({
    url,
    method: 'GET' as const,
    headers: {},
    body: '',
    followRedirects: true,
    statusCodeAssertions: [],
    headerAssertions: [],
    bodyAssertions: [],
    timeout: 5_000,
    degraded: null,
    retry: 0,
  });

  test('HTTPS: up with the certificate; a self-signed server still fails as "certificate verification failed", with its record', async () => {
    const signed = createHttpsServer(valid, (_req, res) => res.end('ok'));
    signed.listen(0, '127.0.0.1');
    await new Promise((resolve) => signed.once('listening', resolve));
    peers.push({ close: () => new Promise<void>((resolve) => signed.close(() => resolve())) });
    const result = await probeHttp(httpConfig(`https://localhost:${(signed.address() as AddressInfo).port}/`), { trust: trusted, userAgent });
    assert.equal(result.result, 'up', result.message);
    assert.equal(recordOf(result).serverName, 'localhost');
    assert.equal(recordOf(result).verified, true);
    assert.equal(recordOf(result).fingerprintSha256, new X509Certificate(valid.cert).fingerprint256);

    const own = await makeServerCert();
    const selfSigned = createHttpsServer(own, (_req, res) => res.end('ok'));
    selfSigned.listen(0, '127.0.0.1');
    await new Promise((resolve) => selfSigned.once('listening', resolve));
    peers.push({ close: () => new Promise<void>((resolve) => selfSigned.close(() => resolve())) });
    const failed = await probeHttp(httpConfig(`https://127.0.0.1:${(selfSigned.address() as AddressInfo).port}/`), { trust: trusted, userAgent });
    assert.equal(failed.result, 'down');
    assert.equal(failed.message, 'certificate verification failed');
    assert.equal(failed.statusCode, null);
    assert.equal(recordOf(failed).verified, false);
    assert.equal(recordOf(failed).error, 'it is self-signed, and not in the trust store');
  });

  test('plain HTTP carries no certificate', async () => {
    const plain = createHttpServer((_req, res) => res.end('ok'));
    plain.listen(0, '127.0.0.1');
    await new Promise((resolve) => plain.once('listening', resolve));
    peers.push({ close: () => new Promise<void>((resolve) => plain.close(() => resolve())) });
    const result = await probeHttp(httpConfig(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/`), { trust: trusted, userAgent });
    assert.equal(result.result, 'up');
    assert.equal(result.certificate, undefined);
  });

  test('gRPC over TLS: verify and skip-verify carry the certificate; plaintext none', async () => {
    const secure = await startGrpcPeer({ health: { '': 'SERVING' }, tls: valid });
    peers.push(secure);
    const grpcConfig = (uri: string, tls: 'verify' | 'skip-verify' | 'plaintext') => ({
      uri,
      service: '',
      tls,
      metadata: {},
      timeout: 5_000,
      degraded: null,
      retry: 0,
    });
    const verified = await probeGrpc(grpcConfig(secure.uri, 'verify'), { trust: trusted, userAgent });
    assert.equal(verified.result, 'up', verified.message);
    assert.equal(recordOf(verified).verified, true);
    assert.equal(recordOf(verified).serverName, '127.0.0.1');

    const untrusted = await probeGrpc(grpcConfig(secure.uri, 'skip-verify'), { trust: publicTrust, userAgent });
    assert.equal(untrusted.result, 'up', 'skip-verify accepts any certificate, as before');
    assert.equal(recordOf(untrusted).verified, false, 'and the record says it does not verify');

    const refused = await probeGrpc(grpcConfig(secure.uri, 'verify'), { trust: publicTrust, userAgent });
    assert.equal(refused.result, 'down');
    assert.equal(refused.message, 'certificate verification failed');
    assert.equal(refused.grpcStatus, 'UNAVAILABLE');
    assert.ok(refused.certificate);

    const plain = await startGrpcPeer({ health: { '': 'SERVING' } });
    peers.push(plain);
    const h2c = await probeGrpc(grpcConfig(plain.uri, 'plaintext'), { trust: trusted, userAgent });
    assert.equal(h2c.result, 'up');
    assert.equal(h2c.certificate, undefined);
  });
});
