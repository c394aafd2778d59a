/**
 * The destination policy (server/domain/destinations.ts): the classifier over every encoding of a
 * refused address, then each kind of outbound connection asking it (the probes and their redirect
 * hops, webhooks, mail, OTLP export, the Client ID Metadata Document fetch), then the running
 * service refusing at write time and on a hop, and its allow setting. Every target is on loopback;
 * a refused address such as 169.254.169.254 is named but never connected to, which the tests
 * assert by watching every TCP connection the process starts.
 */
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { trustStore } from '../server/checks/connection.ts';
import { probeGrpc } from '../server/checks/grpc-probe.ts';
import { type HttpProbeConfig, probeHttp } from '../server/checks/http-probe.ts';
import { createOtlpExport } from '../server/checks/otlp-export.ts';
import type { StoredCheck } from '../server/checks/result-store.ts';
import { probeTcp } from '../server/checks/tcp-probe.ts';
import { serviceConfig } from '../server/config.ts';
import { postJson } from '../server/delivery/http-post.ts';
import { createMailer } from '../server/delivery/mail.ts';
import type { Actor } from '../server/domain/actor.ts';
import { addressKind, ALLOW_SETTING, createDestinationPolicy, isPublicAddress, parseAllowList } from '../server/domain/destinations.ts';
import { AppError } from '../server/errors.ts';
import { createMetadataFetcher } from '../server/oauth/client-metadata.ts';
import { startHttpReceiver, startSmtpReceiver } from './support/receivers.ts';
import { newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { eventually, until } from './support/wait.ts';

// ---- watching connections -----------------------------------------------------------------------

/**
 * Every TCP connection the process starts while `run` runs, as `host:port` (the host as given to
 * net.connect, before any lookup). net.connect, node:http and the TLS of the probes all open
 * their sockets through Socket#connect.
 */
async function connectionsDuring<T>(run: () => Promise<T>): Promise<{ value: T; connections: string[] }> {
  const connections: string[] = [];
  const original = Socket.prototype.connect;
  Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
    const first = args[0];
    const options = (Array.isArray(first) ? first[0] : first) as { host?: string; port?: number; path?: string } | number;
    if (typeof options === 'object' && options !== null && options.path === undefined) connections.push(`${options.host}:${options.port}`);
    return (original as (...a: unknown[]) => Socket).apply(this, args);
  } as typeof original;
  try {
    return { value: await run(), connections };
  } finally {
    Socket.prototype.connect = original;
  }
}

const METADATA_SENTENCE = /is a cloud metadata address, which the destination policy refuses \(the owner can allow it with STATUSDESK_ALLOWED_DESTINATIONS\)/;
const LINK_LOCAL_SENTENCE = /is a link-local address, which the destination policy refuses \(the owner can allow it with STATUSDESK_ALLOWED_DESTINATIONS\)/;
const OWN_PORT_SENTENCE = /is this service's own port, which the destination policy refuses \(the owner can allow it with STATUSDESK_ALLOWED_DESTINATIONS\)/;

/** No connection went to a link-local or metadata address, in any form. */
function assertNoneRefused(connections: string[]): void {
  for (const c of connections) {
    const host = c.slice(0, c.lastIndexOf(':'));
    assert.ok(!['metadata', 'link-local'].includes(addressKind(host)) && !/a9fe|169\.254|metadata/i.test(host), `connected to ${c}`);
  }
}

/** A free loopback port (nothing listens there once this returns). */
async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// ---- the classifier -----------------------------------------------------------------------------

/** 169.254.169.254 as IP addresses in the forms a resolver or a socket accepts them. */
const METADATA_ADDRESSES = [
  '169.254.169.254',
  '::ffff:a9fe:a9fe',
  '::FFFF:A9FE:A9FE',
  '::ffff:169.254.169.254',
  '0:0:0:0:0:ffff:a9fe:a9fe',
  '::a9fe:a9fe',
  '::169.254.169.254',
  '::ffff:0:a9fe:a9fe',
  '64:ff9b::a9fe:a9fe',
  'fd00:ec2::254',
  'fd00:0ec2:0000:0000:0000:0000:0000:0254',
  'fd20:ce::254',
  '100.100.100.200',
];
/** 169.254.169.254 as a URL or a target may write it; resolvers (inet_aton) read each as the address. */
const METADATA_AS_WRITTEN = [
  '2852039166',
  '0xa9fea9fe',
  '0XA9FEA9FE',
  '0251.0376.0251.0376',
  '0xa9.0xfe.0xa9.0xfe',
  '169.254.43518',
  '169.16689662',
  'metadata.google.internal',
  'METADATA.Google.Internal.',
];

describe('the classifier', () => {
  const policy = createDestinationPolicy();

  test('every encoding of a metadata address is refused, on any port', () => {
    for (const address of METADATA_ADDRESSES) {
      assert.equal(addressKind(address), 'metadata', address);
      for (const port of [80, 443, 8080]) assert.match(policy.refusal(address, port) ?? '', METADATA_SENTENCE, `${address}:${port}`);
      assert.match(policy.refusalAsWritten(address, 80) ?? '', METADATA_SENTENCE, address);
    }
    for (const host of METADATA_AS_WRITTEN) {
      const refused = policy.refusalAsWritten(host, 80);
      assert.match(refused ?? '', METADATA_SENTENCE, host);
      assert.match(refused!, /\(169\.254\.169\.254\)/, `${host}: the message names the address it stands for`);
    }
    assert.match(policy.refusalOfUrl('http://2852039166/latest/meta-data/') ?? '', METADATA_SENTENCE);
    assert.match(policy.refusalOfUrl('http://[::ffff:a9fe:a9fe]/') ?? '', METADATA_SENTENCE);
    assert.match(policy.refusalOfUrl('https://metadata.google.internal/computeMetadata/v1/') ?? '', METADATA_SENTENCE);
    assert.match(policy.refusalOfHostPort('0xa9fea9fe:80') ?? '', METADATA_SENTENCE);
    assert.match(policy.refusalOfHostPort('[fd00:ec2::254]:80') ?? '', METADATA_SENTENCE);
    assert.match(policy.refusalOfName('metadata.google.internal', 80) ?? '', METADATA_SENTENCE);
  });

  test('link-local addresses are refused, IPv4 and IPv6, with a zone or inside IPv6', () => {
    for (const address of [
      '169.254.0.1',
      '169.254.255.255',
      '169.254.170.2',
      'fe80::1',
      'fe80::1%lo',
      'FE80::a:b:c:d',
      'febf:ffff::1',
      '::ffff:169.254.3.4',
      '::a9fe:1',
    ]) {
      assert.equal(addressKind(address), 'link-local', address);
      assert.match(policy.refusal(address, 80) ?? '', LINK_LOCAL_SENTENCE, address);
    }
    assert.match(policy.refusalOfUrl('smtp://169.254.1.2') ?? '', /169\.254\.1\.2:587 is a link-local address/);
  });

  test('an IPv6 address written with a dotted tail is the IPv6 address it spells: ::0.0.0.1 is ::1, not 0.0.0.1', () => {
    assert.equal(addressKind('::0.0.0.1'), 'loopback');
    assert.equal(addressKind('::0.0.0.0'), 'unspecified');
  });

  test('loopback, private and public addresses are allowed: checking them is what the service is for', () => {
    for (const address of [
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '0.0.0.0',
      '::',
      '10.0.0.1',
      '172.16.0.1',
      '192.168.1.1',
      '100.64.0.1',
      'fd00::1',
      'fec0::1',
      '169.253.255.255',
      '169.255.0.0',
      '8.8.8.8',
      '2001:4860::8888',
      '::ffff:10.1.2.3',
    ]) {
      assert.equal(policy.refusal(address, 3000), undefined, address);
      assert.equal(policy.refusalAsWritten(address, 3000), undefined, address);
    }
    for (const host of ['db.internal', 'localhost', 'example.com', 'metadata', 'metadata.google.internal.example.com'])
      assert.equal(policy.refusalAsWritten(host, 80), undefined, host);
  });

  test("the service's own ports, on every loopback and unspecified address, in every form; other ports stay allowed", () => {
    const own = createDestinationPolicy();
    own.listening('127.0.0.1', [3100, 3101]);
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::7f00:1', '0.0.0.0', '::', '0:0:0:0:0:0:0:1']) {
      for (const port of [3100, 3101]) assert.match(own.refusal(address, port) ?? '', OWN_PORT_SENTENCE, `${address}:${port}`);
      assert.equal(own.refusal(address, 3102), undefined, `${address}:3102`);
    }
    assert.equal(own.refusal('10.0.0.1', 3100), undefined, 'another machine on the same port');
    assert.match(own.refusalOfUrl('http://localhost:3100/healthz') ?? '', /localhost:3100 \(127\.0\.0\.1\) is this service's own port/);
    assert.equal(own.refusalOfUrl('http://localhost:3100/healthz', { ownPorts: false }), undefined, 'a private location checks from another machine');
    assert.match(own.refusalOfUrl('http://169.254.169.254/', { ownPorts: false }) ?? '', METADATA_SENTENCE, 'metadata is refused wherever it is checked from');
  });

  test('listening on every interface makes every address of the machine one of its own', () => {
    const own = createDestinationPolicy();
    own.listening('0.0.0.0', [3200]);
    const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
    assert.ok(addresses.length > 0);
    // A link-local address of the machine is refused as link-local, on every port.
    for (const address of addresses)
      assert.match(own.refusal(address, 3200) ?? '', addressKind(address) === 'link-local' ? LINK_LOCAL_SENTENCE : OWN_PORT_SENTENCE, address);
    assert.equal(own.refusal('192.0.2.7', 3200), undefined, 'an address of another machine');
  });

  test('the allow-list lets through what it names, and only that', () => {
    const allowing = createDestinationPolicy({ allow: parseAllowList(' 169.254.169.254:80 , fe80::/10,[::1]:3300, 127.0.0.0/8:3301 ,') });
    allowing.listening('127.0.0.1', [3300, 3301, 3302]);
    assert.equal(allowing.refusal('169.254.169.254', 80), undefined);
    assert.equal(allowing.refusal('::ffff:a9fe:a9fe', 80), undefined, 'the same address in IPv6');
    assert.equal(allowing.refusalOfUrl('http://metadata.google.internal/'), undefined, 'the name stands for the address');
    assert.match(allowing.refusal('169.254.169.254', 8080) ?? '', METADATA_SENTENCE, 'another port');
    assert.equal(allowing.refusal('fe80::99', 443), undefined);
    assert.match(allowing.refusal('169.254.1.1', 443) ?? '', LINK_LOCAL_SENTENCE);
    assert.equal(allowing.refusal('::1', 3300), undefined);
    assert.match(allowing.refusal('127.0.0.1', 3300) ?? '', OWN_PORT_SENTENCE, 'only [::1] is allowed on 3300');
    assert.equal(allowing.refusal('127.0.0.1', 3301), undefined);
    assert.equal(allowing.refusal('127.3.2.1', 3301), undefined);
    assert.match(allowing.refusal('::1', 3301) ?? '', OWN_PORT_SENTENCE, '127.0.0.0/8 is not ::1');
    assert.match(allowing.refusal('127.0.0.1', 3302) ?? '', OWN_PORT_SENTENCE);
  });

  test('a bad allow-list entry is named, with the rule; the setting names itself', () => {
    for (const bad of [
      'nope',
      '1.2.3',
      '300.1.1.1',
      '10.0.0.0/33',
      '1.2.3.4:0',
      '1.2.3.4:70000',
      '[1.2.3.4]:80',
      '::1:80x',
      '[::1]/200',
      'fe80::/129',
      'localhost:3000',
    ]) {
      assert.throws(
        () => parseAllowList(bad),
        (error: Error) => error.message.includes(`got ${bad}`) && /separated by commas/.test(error.message),
        bad,
      );
    }
    assert.throws(
      () => serviceConfig({}, { [ALLOW_SETTING]: '127.0.0.1:3000,bogus' }),
      (error: unknown) =>
        error instanceof AppError && error.code === 'VALIDATION' && error.message.startsWith(`${ALLOW_SETTING}: `) && error.message.includes('got bogus'),
    );
    assert.equal(serviceConfig({}, {}).allowedDestinations, undefined);
    assert.equal(serviceConfig({}, { [ALLOW_SETTING]: '10.0.0.0/8,[::1]:3000' }).allowedDestinations?.length, 2);
  });

  test('public addresses for metadata documents: IPv6 standing for a private IPv4 address is not public', () => {
    for (const address of [
      '::7f00:1',
      '::ffff:7f00:1',
      '::ffff:127.0.0.1',
      '::127.0.0.1',
      '::a00:1',
      '::ffff:a00:1',
      '::ffff:0:7f00:1',
      '64:ff9b::7f00:1',
      '::ffff:a9fe:a9fe',
      '::c0a8:101',
      'fd00:ec2::254',
      'fe80::1%eth0',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
    for (const address of ['93.184.216.34', '::ffff:8.8.8.8', '::ffff:808:808', '2606:4700::1111']) assert.equal(isPublicAddress(address), true, address);
  });
});

// ---- the probes ---------------------------------------------------------------------------------

const VERSION = 'test';
const SECRET_BODY = 'INTERNAL-ANSWER: root-credentials=hunter2';

function httpConfig(url: string, overrides: Partial<HttpProbeConfig> = {}): HttpProbeConfig {
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

interface Peer {
  origin: string;
  port: number;
  /** Requests by path, with their headers. */
  seen: { path: string; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

/** A loopback HTTP server: `routes` answer by path; it records every request. */
async function startPeer(host: string, urlHost: string, routes: Record<string, (res: ServerResponse) => void>): Promise<Peer> {
  const seen: Peer['seen'] = [];
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://peer').pathname;
    seen.push({ path, headers: req.headers });
    const route = routes[path];
    if (route) route(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${urlHost.includes(':') ? `[${urlHost}]` : urlHost}:${port}`,
    port,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const redirectTo = (location: () => string) => (res: ServerResponse) => void res.writeHead(302, { location: location() }).end();

describe('the probes ask the policy', { timeout: 20_000 }, () => {
  let a: Peer; // http://127.0.0.1:port
  let b: Peer; // http://localhost:port: another origin, reached through a lookup
  const trust = trustStore();

  before(async () => {
    const local = await lookup('localhost');
    b = await startPeer(local.address, 'localhost', {
      '/landing': (res) => void res.writeHead(200).end('landed'),
    });
    a = await startPeer('127.0.0.1', '127.0.0.1', {
      '/to-metadata': redirectTo(() => 'http://169.254.169.254/latest/meta-data/iam/security-credentials/'),
      '/to-metadata-hex': redirectTo(() => 'http://0xa9fea9fe/latest/'),
      '/to-metadata-v6': redirectTo(() => 'http://[::ffff:a9fe:a9fe]/latest/'),
      '/to-b': redirectTo(() => `${b.origin}/landing`),
      '/to-a': redirectTo(() => '/landing'),
      '/landing': (res) => void res.writeHead(200).end('landed'),
      '/secret': (res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end(SECRET_BODY),
    });
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  for (const path of ['/to-metadata', '/to-metadata-hex', '/to-metadata-v6']) {
    test(`an HTTP check whose loopback target redirects to a metadata address (${path}) is refused on the hop, before connecting`, async () => {
      const { value: result, connections } = await connectionsDuring(() =>
        probeHttp(httpConfig(`${a.origin}${path}`, { retry: 3 }), { trust, userAgent: VERSION, destinations: createDestinationPolicy() }),
      );
      assert.equal(result.result, 'down');
      assert.match(result.message, /^redirected to http:\/\/(169\.254\.169\.254|\[::ffff:a9fe:a9fe\]): /);
      assert.match(result.message, METADATA_SENTENCE);
      assert.equal(result.attempts, 1, 'a refusal is not retried');
      assert.match(result.url ?? '', /169\.254\.169\.254|a9fe:a9fe/);
      assert.deepEqual(connections, [`127.0.0.1:${a.port}`], 'only the loopback target was connected to');
      assertNoneRefused(connections);
    });
  }

  test("a redirect to the service's own port, reached by a name, is refused after resolution", async () => {
    const own = createDestinationPolicy();
    own.listening('127.0.0.1', [b.port]);
    const before = b.seen.length;
    const result = await probeHttp(httpConfig(`${a.origin}/to-b`), { trust, userAgent: VERSION, destinations: own });
    assert.equal(result.result, 'down');
    assert.match(
      result.message,
      new RegExp(`^redirected to http://localhost:${b.port}: localhost:${b.port} \\((127\\.0\\.0\\.1|::1)\\) is this service's own port`),
    );
    assert.equal(typeof result.timing.dns, 'number', 'the name was resolved, then its address judged');
    assert.equal(b.seen.length, before, 'the refused hop sent nothing');
  });

  test("the monitor's own URL on a refused port is refused before connecting, and not retried", async () => {
    const own = createDestinationPolicy();
    own.listening('127.0.0.1', [a.port]);
    const before = a.seen.length;
    const { value: result, connections } = await connectionsDuring(() =>
      probeHttp(httpConfig(`${a.origin}/landing`, { retry: 2 }), { trust, userAgent: VERSION, destinations: own }),
    );
    assert.equal(result.result, 'down');
    assert.match(result.message, new RegExp(`^127\\.0\\.0\\.1:${a.port} is this service's own port`));
    assert.equal(result.attempts, 1);
    assert.deepEqual(connections, []);
    assert.equal(a.seen.length, before);
  });

  test('TCP and gRPC checks of metadata addresses are refused before connecting', async () => {
    const policy = createDestinationPolicy();
    const { value: results, connections } = await connectionsDuring(() =>
      Promise.all([
        probeTcp({ uri: '169.254.169.254:80', timeout: 2000, degraded: null, retry: 3 }, { destinations: policy }),
        probeTcp({ uri: '[fd00:ec2::254]:80', timeout: 2000, degraded: null, retry: 0 }, { destinations: policy }),
        probeTcp({ uri: 'metadata.google.internal:80', timeout: 2000, degraded: null, retry: 0 }, { destinations: policy }),
        probeGrpc(
          { uri: '[::a9fe:a9fe]:50051', service: '', tls: 'plaintext', metadata: {}, timeout: 2000, degraded: null, retry: 3 },
          { trust, userAgent: VERSION, destinations: policy },
        ),
      ]),
    );
    for (const result of results) {
      assert.equal(result.result, 'down');
      assert.match(result.message, METADATA_SENTENCE);
      assert.equal(result.attempts, 1);
      assert.equal(result.timing.connect, null);
    }
    assert.equal(results[2]!.timing.dns, null, 'the metadata name is refused without a lookup');
    assert.equal(results[3]!.grpcStatus, 'UNAVAILABLE');
    assert.deepEqual(connections, []);
  });

  test('a body assertion records whether it matched, never the body', async () => {
    const result = await probeHttp(
      httpConfig(`${a.origin}/secret`, {
        bodyAssertions: [
          { comparator: 'contains', target: 'all good' },
          { comparator: 'equal', target: 'x' },
          { comparator: 'not_contains', target: 'root' },
          { comparator: 'empty', target: '' },
          { comparator: 'contains', target: 'INTERNAL' },
        ],
      }),
      { trust, userAgent: VERSION },
    );
    assert.equal(result.result, 'down');
    assert.deepEqual(
      result.assertionResults.map((r) => [r.passed, r.actual]),
      [
        [true, '200'],
        [false, 'a body without it'],
        [false, 'a different body'],
        [false, 'a body containing it'],
        [false, 'a body that is not empty'],
        [true, 'a body containing it'],
      ],
    );
    assert.equal(result.message, 'assertion failed: body contains "all good" (got a body without it) and 3 more');
    for (const text of [JSON.stringify(result.assertionResults), result.message]) {
      for (const piece of ['INTERNAL-ANSWER', 'hunter2', 'root-credentials=']) assert.ok(!text.includes(piece), `${piece} in ${text}`);
    }
  });

  test('credential-like custom headers (those sealed at rest) do not follow a redirect to another origin', async () => {
    const before = b.seen.length;
    const headers = { 'X-Api-Key': 'k-123', 'X-Session-Token': 't-456', 'X-Client-Secret': 's-789', Authorization: 'Bearer a', 'X-Trace': 'kept' };
    const result = await probeHttp(httpConfig(`${a.origin}/to-b`, { headers }), { trust, userAgent: VERSION, destinations: createDestinationPolicy() });
    assert.equal(result.result, 'up', result.message);
    const sentToA = a.seen.filter((r) => r.path === '/to-b').at(-1)!;
    assert.equal(sentToA.headers['x-api-key'], 'k-123');
    const [landing] = b.seen.slice(before);
    assert.ok(landing);
    for (const name of ['x-api-key', 'x-session-token', 'x-client-secret', 'authorization']) assert.equal(landing.headers[name], undefined, name);
    assert.equal(landing.headers['x-trace'], 'kept');
  });

  test('credential-like custom headers follow a redirect within the origin', async () => {
    const before = a.seen.length;
    const result = await probeHttp(httpConfig(`${a.origin}/to-a`, { headers: { 'X-Api-Key': 'k-123', 'X-Session-Token': 't-456' } }), {
      trust,
      userAgent: VERSION,
    });
    assert.equal(result.result, 'up', result.message);
    const landing = a.seen.slice(before).find((r) => r.path === '/landing');
    assert.equal(landing?.headers['x-api-key'], 'k-123');
    assert.equal(landing?.headers['x-session-token'], 't-456');
  });
});

// ---- deliveries, exports and metadata documents ---------------------------------------------------

describe('deliveries and exports ask the policy', { timeout: 20_000 }, () => {
  test('a webhook POST to a metadata address is refused before connecting; one to an own port by name after resolution', async () => {
    const receiver = await startHttpReceiver();
    try {
      const own = createDestinationPolicy();
      own.listening('127.0.0.1', [receiver.port]);
      const { value: errors, connections } = await connectionsDuring(() =>
        Promise.all(
          ['http://169.254.169.254/hook', 'http://[::ffff:a9fe:a9fe]:8080/hook', 'https://metadata.google.internal/hook'].map((url) =>
            postJson(url, { a: 1 }, { destinations: own }).then(
              () => assert.fail(`${url} was posted to`),
              (error: Error) => error,
            ),
          ),
        ),
      );
      for (const error of errors) assert.match(error.message, new RegExp(`^POST \\S+ failed: .*${METADATA_SENTENCE.source}`));
      assert.deepEqual(connections, []);

      const byName = await postJson(`http://localhost:${receiver.port}/hook/token-123`, {}, { destinations: own }).then(
        () => assert.fail('posted to the own port'),
        (error: Error) => error,
      );
      assert.match(
        byName.message,
        new RegExp(`^POST http://localhost:${receiver.port} failed: localhost:${receiver.port} \\((127\\.0\\.0\\.1|::1)\\) is this service's own port`),
      );
      assert.ok(!byName.message.includes('token-123'));
      assert.equal(receiver.requests.length, 0);

      // The same receiver, not one of the service's ports: delivered, through the policy's lookup.
      await postJson(`http://localhost:${receiver.port}/hook`, { a: 1 }, { destinations: createDestinationPolicy() });
      assert.equal((await receiver.waitFor(1))[0]!.body, '{"a":1}');
    } finally {
      await receiver.close();
    }
  });

  test('mail to a relay at a metadata address or an own port is refused; an allowed relay still gets it', async () => {
    const smtp = await startSmtpReceiver();
    const own = createDestinationPolicy();
    own.listening('127.0.0.1', [smtp.port]);
    const mail = { from: 'a@acme.test', to: ['b@acme.test'], subject: 's', text: 't', html: 'h' };
    const mailers = [
      createMailer('smtp://169.254.169.254:25', own),
      createMailer(`smtp://localhost:${smtp.port}`, own),
      createMailer(`smtp://localhost:${smtp.port}`, createDestinationPolicy()),
    ];
    try {
      const { value: refused, connections } = await connectionsDuring(() =>
        mailers[0]!.send(mail).then(
          () => assert.fail('sent'),
          (error: Error) => error,
        ),
      );
      assert.match(refused.message, new RegExp(`^SMTP 169\\.254\\.169\\.254:25 failed: 169\\.254\\.169\\.254:25 ${METADATA_SENTENCE.source}`));
      assert.deepEqual(connections, []);
      const ownPort = await mailers[1]!.send(mail).then(
        () => assert.fail('sent'),
        (error: Error) => error,
      );
      assert.match(
        ownPort.message,
        new RegExp(`^SMTP localhost:${smtp.port} failed: localhost:${smtp.port} \\((127\\.0\\.0\\.1|::1)\\) is this service's own port`),
      );
      assert.equal(smtp.mails.length, 0);
      await mailers[2]!.send(mail);
      assert.equal((await smtp.waitFor(1))[0]!.subject, 's');
    } finally {
      for (const m of mailers) m.close();
      await smtp.close();
    }
  });

  test('metrics export to a refused endpoint sends nothing and logs why; an allowed one exports', async () => {
    const local = await lookup('localhost');
    const received: number[] = [];
    const collectors = await Promise.all(
      [0, 1].map(async (n) => {
        const server = createServer((req, res) => {
          received.push(n);
          req.resume();
          req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
        });
        await new Promise<void>((resolve) => server.listen(0, local.address, resolve));
        return { server, port: (server.address() as AddressInfo).port };
      }),
    );
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, new Writable({ write: (chunk: Buffer, _encoding, done) => void (lines.push(chunk.toString()), done()) }));
    const own = createDestinationPolicy();
    own.listening('127.0.0.1', [collectors[0]!.port]);
    const otlp = createOtlpExport({ intervalMs: 100, log, version: VERSION, destinations: own });
    const check = (monitorId: number): StoredCheck => ({
      monitorId,
      workspaceId: 1,
      runner: 'local',
      regions: ['iad'],
      startedAt: Date.now(),
      result: 'up',
      latencyMs: 1,
      timing: { dns: null, connect: 1, tls: null, ttfb: null, transfer: null, total: 1 },
      attempts: 1,
      message: 'ok',
      grpcStatus: null,
      statusCode: null,
      url: null,
      responseHeaders: {},
      assertionResults: [],
    });
    const monitor = (id: number, endpoint: string) => ({ id: String(id), name: `m${id}`, type: 'tcp' as const, openTelemetry: { endpoint, headers: {} } });
    try {
      const { connections } = await connectionsDuring(async () => {
        otlp.record(monitor(1, `http://localhost:${collectors[0]!.port}/v1/metrics`), check(1));
        otlp.record(monitor(2, `http://localhost:${collectors[1]!.port}/v1/metrics`), check(2));
        otlp.record(monitor(3, 'http://169.254.169.254:4318/v1/metrics'), check(3));
        await until(() => received.includes(1) && lines.filter((l) => l.includes('metrics export refused')).length >= 2, 'an export and two refusals');
      });
      assert.ok(!received.includes(0), 'the refused collector received nothing');
      assertNoneRefused(connections);
      const refusals = lines.filter((l) => l.includes('metrics export refused')).map((l) => JSON.parse(l) as { monitorId: number; msg: string });
      assert.ok(
        refusals.some((r) => r.monitorId === 3 && METADATA_SENTENCE.test(r.msg)),
        JSON.stringify(refusals),
      );
      assert.ok(
        refusals.some((r) => r.monitorId === 1 && OWN_PORT_SENTENCE.test(r.msg)),
        JSON.stringify(refusals),
      );
    } finally {
      await otlp.close();
      for (const { server } of collectors) server.close();
    }
  });

  test('a Client ID Metadata Document whose host resolves to ::7f00:1 (or another IPv4-in-IPv6 form of loopback) is refused before connecting', async () => {
    for (const address of ['::7f00:1', '::ffff:7f00:1', '::127.0.0.1', '::ffff:0:7f00:1']) {
      const connected: string[] = [];
      const fetchDocument = createMetadataFetcher({
        resolve: async () => [address],
        connect: (target) => {
          connected.push(target.address);
          throw new Error('connected');
        },
      });
      await assert.rejects(fetchDocument('https://editor.example/oauth/client.json'), {
        message: `the host editor.example resolves to ${address}, which is not a public address`,
      });
      assert.deepEqual(connected, [], address);
    }
  });
});

// ---- the service --------------------------------------------------------------------------------

/** A VALIDATION AppError naming `field`, with the policy's sentence. */
async function refusedAt(write: Promise<unknown>, field: string, sentence: RegExp): Promise<void> {
  await assert.rejects(write, (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, 'VALIDATION');
    assert.equal(error.violations?.[0]?.field, field, error.message);
    assert.match(error.message, new RegExp(`^${field.replace('.', '\\.')}: `));
    assert.match(error.message, sentence);
    return true;
  });
}

describe('the service', { timeout: 60_000 }, () => {
  let svc: TestService;
  let owner: Actor;
  let peer: Peer;
  /** A workspace for each test, made before any runs: one made through the owner's local tools right after a check waits seconds for the database. */
  const workspaces: number[] = [];
  const workspace = () => workspaces.pop()!;

  before(async () => {
    svc = await startTestService();
    owner = { type: 'user', userId: svc.ownerId, surface: 'cli' };
    for (let n = 0; n < 4; n++) workspaces.push(Number((await newWorkspace(svc, 'policy')).id));
    peer = await startPeer('127.0.0.1', '127.0.0.1', {
      '/to-api': redirectTo(() => `http://127.0.0.1:${svc.ports.api}/healthz`),
      '/to-dashboard': redirectTo(() => `http://localhost:${svc.ports.dashboard}/`),
      '/to-metadata': redirectTo(() => 'http://169.254.169.254/latest/meta-data/'),
      '/secret': (res) => void res.writeHead(200).end(SECRET_BODY),
    });
  });
  after(async () => {
    await peer?.close();
    await svc?.stop();
  });

  const httpMonitor = (url: string, extra: Record<string, unknown> = {}) => ({ name: 'policy', periodicity: '1m', url, ...extra });

  test("an HTTP monitor whose loopback target redirects to the service's own port or to a metadata address is down, refused on the hop", async () => {
    const ws = workspace();
    for (const [path, port, sentence] of [
      ['/to-api', svc.ports.api, OWN_PORT_SENTENCE],
      ['/to-dashboard', svc.ports.dashboard, OWN_PORT_SENTENCE],
      ['/to-metadata', 80, METADATA_SENTENCE],
    ] as const) {
      const monitor = await svc.services.monitors.create(owner, ws, 'http', httpMonitor(`${peer.origin}${path}`));
      const { value: results, connections } = await connectionsDuring(() => svc.services.monitors.trigger(owner, ws, monitor.id));
      assert.ok(results.length > 0);
      for (const result of results) {
        assert.equal(result.result, 'down', path);
        assert.match(result.message, /^redirected to http:\/\//, path);
        assert.match(result.message, new RegExp(`:${port} `), path);
        assert.match(result.message, sentence, path);
      }
      assert.ok(!connections.some((c) => c.endsWith(`:${svc.ports.api}`) || c.endsWith(`:${svc.ports.dashboard}`)), `${path}: ${connections.join(', ')}`);
      assertNoneRefused(connections);
    }
  });

  test('what a write names that the policy refuses is a VALIDATION error naming the field', async () => {
    const ws = workspace();
    const { monitors, channels } = svc.services;
    await refusedAt(monitors.create(owner, ws, 'http', httpMonitor('http://169.254.169.254/latest/meta-data/')), 'url', METADATA_SENTENCE);
    await refusedAt(monitors.create(owner, ws, 'http', httpMonitor('http://2852039166/')), 'url', METADATA_SENTENCE);
    await refusedAt(monitors.create(owner, ws, 'http', httpMonitor(`http://localhost:${svc.ports.api}/healthz`)), 'url', OWN_PORT_SENTENCE);
    await refusedAt(monitors.create(owner, ws, 'tcp', { name: 'policy', periodicity: '1m', uri: '0xa9fea9fe:80' }), 'uri', METADATA_SENTENCE);
    await refusedAt(monitors.create(owner, ws, 'tcp', { name: 'policy', periodicity: '1m', uri: '[fe80::1]:22' }), 'uri', LINK_LOCAL_SENTENCE);
    await refusedAt(
      monitors.create(
        owner,
        ws,
        'http',
        httpMonitor(`${peer.origin}/secret`, { openTelemetry: { endpoint: 'http://[fd00:ec2::254]:4318/v1/metrics', headers: {} } }),
      ),
      'openTelemetry.endpoint',
      METADATA_SENTENCE,
    );
    const made = await monitors.create(owner, ws, 'http', httpMonitor(`${peer.origin}/secret`));
    await refusedAt(monitors.update(owner, ws, 'http', made.id, { url: 'http://metadata.google.internal/computeMetadata/v1/' }), 'url', METADATA_SENTENCE);

    const webhook = (url: string) => ({ name: 'policy', kind: 'webhook', config: { url, secret: 'a-signing-secret-of-16+' } });
    await refusedAt(channels.create(owner, ws, webhook(`http://127.0.0.1:${svc.ports.api}/v1/monitors`)), 'config.url', OWN_PORT_SENTENCE);
    await refusedAt(channels.create(owner, ws, webhook(`http://localhost:${svc.ports.dashboard}/api/session`)), 'config.url', OWN_PORT_SENTENCE);
    await refusedAt(channels.create(owner, ws, webhook('http://[::a9fe:a9fe]/')), 'config.url', METADATA_SENTENCE);
    await refusedAt(
      channels.create(owner, ws, { name: 'policy', kind: 'slack', config: { webhookUrl: 'https://169.254.169.254/services/x' } }),
      'config.webhookUrl',
      METADATA_SENTENCE,
    );
    await refusedAt(
      channels.create(owner, ws, { name: 'policy', kind: 'ntfy', config: { server: 'http://169.254.1.1', topic: 'alerts' } }),
      'config.server',
      LINK_LOCAL_SENTENCE,
    );
    await refusedAt(
      channels.create(owner, ws, { name: 'policy', kind: 'email', config: { to: ['a@acme.test'], smtpUrl: `smtp://127.0.0.1:${svc.ports.api}` } }),
      'config.smtpUrl',
      OWN_PORT_SENTENCE,
    );
    const page = await svc.services.pages.create(owner, ws, { title: 'Policy', slug: `policy-${ws}` });
    await refusedAt(svc.services.subscribers.add(owner, ws, page.id, { webhookUrl: 'http://169.254.169.254/hook' }), 'webhookUrl', METADATA_SENTENCE);
    await refusedAt(
      svc.services.subscribers.add(owner, ws, page.id, { webhookUrl: `http://localhost:${svc.ports.api}/hook` }),
      'webhookUrl',
      OWN_PORT_SENTENCE,
    );

    // Loopback and private destinations on other ports stay allowed.
    await channels.create(owner, ws, webhook(`http://127.0.0.1:${peer.port}/hook`));
    await monitors.create(owner, ws, 'tcp', { name: 'policy', periodicity: '1m', uri: `127.0.0.1:${peer.port}` });
    await monitors.create(owner, ws, 'tcp', { name: 'policy', periodicity: '1m', uri: '10.1.2.3:5432' });
  });

  test('a monitor checked only from a private location may name a loopback port of the service: its runner is elsewhere', async () => {
    const ws = workspace();
    const location = await svc.services.locations.create(owner, ws, { name: `elsewhere-${ws}` });
    const made = await svc.services.monitors.create(owner, ws, 'tcp', {
      name: 'policy',
      periodicity: '1m',
      uri: `127.0.0.1:${svc.ports.api}`,
      privateLocations: [location.location.id],
    });
    assert.equal('uri' in made && made.uri, `127.0.0.1:${svc.ports.api}`);
    await refusedAt(
      svc.services.monitors.create(owner, ws, 'tcp', {
        name: 'policy',
        periodicity: '1m',
        uri: '169.254.169.254:80',
        privateLocations: [location.location.id],
      }),
      'uri',
      METADATA_SENTENCE,
    );
  });

  test('response logs of a body assertion hold whether it matched, not the body', async () => {
    const ws = workspace();
    const monitor = await svc.services.monitors.create(
      owner,
      ws,
      'http',
      httpMonitor(`${peer.origin}/secret`, { bodyAssertions: [{ comparator: 'contains', target: 'healthy' }] }),
    );
    const [result] = await svc.services.monitors.trigger(owner, ws, monitor.id);
    assert.equal(result!.result, 'down');
    const logs = await eventually(
      () => svc.services.monitors.responseLogs(owner, ws, monitor.id),
      (found) => found.length > 0,
      'the check in the response log',
    );
    assert.deepEqual(logs[0]!.assertionResults.at(-1), { assertion: 'body contains "healthy"', passed: false, actual: 'a body without it' });
    const text = JSON.stringify(logs);
    assert.ok(text.includes('a body without it'), text);
    for (const piece of ['INTERNAL-ANSWER', 'hunter2']) assert.ok(!text.includes(piece), `${piece} in ${text}`);
  });
});

describe('the allow setting', { timeout: 60_000 }, () => {
  test("lets the owner allow one of the service's own ports, and only that one", async () => {
    const port = await freePort();
    const svc = await startTestService({ [ALLOW_SETTING]: `127.0.0.1:${port}` }, undefined, { port });
    try {
      assert.equal(svc.ports.api, port);
      const owner: Actor = { type: 'user', userId: svc.ownerId, surface: 'cli' };
      const ws = Number((await newWorkspace(svc, 'allowed')).id);
      const allowed = await svc.services.monitors.create(owner, ws, 'http', {
        name: 'own healthz',
        periodicity: '1m',
        url: `http://127.0.0.1:${port}/healthz`,
      });
      const [result] = await svc.services.monitors.trigger(owner, ws, allowed.id);
      assert.equal(result!.result, 'up', result!.message);
      await refusedAt(
        svc.services.monitors.create(owner, ws, 'http', { name: 'dashboard', periodicity: '1m', url: `http://127.0.0.1:${svc.ports.dashboard}/` }),
        'url',
        OWN_PORT_SENTENCE,
      );
    } finally {
      await svc.stop();
    }
  });
});
