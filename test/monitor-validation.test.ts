import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Client, Code, type ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { BadRequestSchema } from '../proto/gen/google/rpc/error_details_pb.js';
import { HTTPMethod, MonitorService, NumberComparator, Periodicity, StringComparator, TLSMode } from '../proto/gen/monitor/v1/monitor_pb.js';
import { withLocalOwner } from './support/database.ts';
import { openTestDatabase } from './support/database.ts';
import { connectRejection, json, startTestService, type TestService } from './support/harness.ts';

/**
 * The configuration rules of monitors (SPEC 2.7, 2.8), through the RPC on the Connect protocol.
 * Every refusal is invalid_argument with a google.rpc.BadRequest violation naming the field and a
 * rule a person can act on.
 */

type MonitorClient = Client<typeof MonitorService>;
type PlanName = 'hobby' | 'starter' | 'pro' | 'scale';

const PAID_DEFAULT_REGIONS = ['iad', 'ams', 'sin', 'syd', 'fra', 'gru'];
const HOBBY_DEFAULT_REGIONS = ['iad', 'ams', 'sin', 'syd'];

let svc: TestService;
/** One client per plan; `scale` is the default `personal` workspace. */
const clients = {} as Record<PlanName, MonitorClient>;
let writeSecret: string;

function clientFor(secret: string): MonitorClient {
  return createClient(
    MonitorService,
    createConnectTransport({
      baseUrl: `${svc.apiUrl}/rpc`,
      httpVersion: '1.1',
      interceptors: [
        (next) => (req) => {
          req.header.set('x-service-key', secret);
          return next(req);
        },
      ],
    }),
  );
}

before(async () => {
  svc = await startTestService();
  writeSecret = (await svc.createKey('write')).secret;
  clients.scale = clientFor(writeSecret);
  for (const plan of ['hobby', 'starter', 'pro'] as const) {
    await withLocalOwner(svc.dataDir, (services, owner) => services.workspaces.create(owner, { name: `${plan} team`, slug: `${plan}-team`, plan }));
    clients[plan] = clientFor((await svc.createKey('write', `${plan}-team`)).secret);
  }
});
after(() => svc.stop());

// ---- helpers -------------------------------------------------------------------------------

const tcp = (fields: Record<string, unknown> = {}) => ({ name: 'db', uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M, ...fields });
const grpc = (fields: Record<string, unknown> = {}) => ({
  name: 'api',
  uri: 'api.internal:50051',
  periodicity: Periodicity.PERIODICITY_1M,
  regions: ['iad'],
  ...fields,
});
const http = (fields: Record<string, unknown> = {}) => ({ name: 'site', url: 'https://example.test/', periodicity: Periodicity.PERIODICITY_1M, ...fields });

/**
 * Asserts invalid_argument with a violation of `field` (or, with a trailing `*`, of a field under
 * that prefix) whose description matches `rule`.
 */
async function refused(call: Promise<unknown>, field: string, rule: RegExp): Promise<ConnectError> {
  const error = await connectRejection(call);
  assert.equal(error.code, Code.InvalidArgument, `expected invalid_argument, got ${Code[error.code]}: ${error.rawMessage}`);
  const violations = error.findDetails(BadRequestSchema).flatMap((d) => d.fieldViolations);
  const shown = JSON.stringify(violations.map((v) => [v.field, v.description]));
  const matches = violations.filter((v) => (field.endsWith('*') ? v.field.startsWith(field.slice(0, -1)) : v.field === field));
  assert.ok(matches.length > 0, `no violation of ${field} in ${shown}`);
  assert.ok(
    matches.some((v) => rule.test(v.description)),
    `the violation of ${field} does not state the rule ${rule}: ${shown}`,
  );
  // The message repeats the field and rule for people reading logs.
  assert.match(error.rawMessage, new RegExp(field.endsWith('*') ? field.slice(0, -1).replace(/\./g, '\\.') : `${field.replace(/\./g, '\\.')}: `));
  return error;
}

async function monitorCount(client: MonitorClient = clients.scale): Promise<number> {
  return (await client.listMonitors({})).totalSize;
}

async function auditCount(): Promise<number> {
  const db = await openTestDatabase(svc.dataDir);
  try {
    return (await db.selectFrom('audit_log').select('id').where('entity_type', '=', 'monitor').execute()).length;
  } finally {
    await db.destroy();
  }
}

// ---- targets -------------------------------------------------------------------------------

describe('TCP uri', () => {
  for (const uri of ['db.internal:5432', 'localhost:1', '127.0.0.7:65535', '[::1]:5432', '[::ffff:127.0.0.1]:443']) {
    test(`accepts ${uri}`, async () => {
      const created = (await clients.scale.createTCPMonitor({ monitor: tcp({ uri }) })).monitor!;
      assert.equal(created.uri, uri);
    });
  }

  const refusals: [string, RegExp][] = [
    ['db.internal', /port is required: write host:port/],
    ['db.internal:0', /port must be a number from 1 to 65535, got "0"/],
    ['db.internal:65536', /port must be a number from 1 to 65535, got "65536"/],
    ['db.internal:pg', /port must be a number from 1 to 65535, got "pg"/],
    ['db.internal:', /port must be a number from 1 to 65535/],
    [':5432', /host is missing/],
    ['::1:5432', /IPv6 address must be in brackets, e.g. \[::1\]/],
    ['[::1]', /port is required/],
    ['[db.internal]:5432', /not an IPv6 address/],
    ['tcp://db.internal:5432', /without a scheme: drop "tcp:\/\/"/],
    ['db_internal!:5432', /not a hostname or IP address/],
    ['256.1.1.1:80', /"256.1.1.1" is not a hostname or IP address/],
  ];
  for (const [uri, rule] of refusals) {
    test(`refuses ${JSON.stringify(uri)}, naming monitor.uri and the rule`, async () => {
      await refused(clients.scale.createTCPMonitor({ monitor: tcp({ uri }) }), 'monitor.uri', rule);
    });
  }

  test('refuses a missing uri as required', async () => {
    await refused(clients.scale.createTCPMonitor({ monitor: tcp({ uri: '' }) }), 'monitor.uri', /is required.*host:port/);
  });

  test('refuses an enum number the schema does not define instead of reading it as the default', async () => {
    await refused(clients.scale.createTCPMonitor({ monitor: tcp({ periodicity: 99 }) }), 'monitor.periodicity', /must be one of 30s/);
  });
});

describe('gRPC uri and service', () => {
  test('requires a port', async () => {
    await refused(clients.scale.createGRPCMonitor({ monitor: grpc({ uri: 'api.internal' }) }), 'monitor.uri', /port is required/);
  });

  test('accepts IPv6 in brackets and refuses it without', async () => {
    assert.equal((await clients.scale.createGRPCMonitor({ monitor: grpc({ uri: '[::1]:50051' }) })).monitor!.uri, '[::1]:50051');
    await refused(clients.scale.createGRPCMonitor({ monitor: grpc({ uri: '::1:50051' }) }), 'monitor.uri', /in brackets/);
  });

  for (const scheme of ['grpc', 'https', 'http']) {
    test(`refuses a ${scheme}:// uri with a message saying to drop the scheme`, async () => {
      await refused(
        clients.scale.createGRPCMonitor({ monitor: grpc({ uri: `${scheme}://api.internal:50051` }) }),
        'monitor.uri',
        new RegExp(`drop "${scheme}://" and write e\\.g\\. api\\.internal:50051`),
      );
    });
  }

  test('refuses a method path as service, accepts empty (overall health) and grpc.health.v1.Health', async () => {
    await refused(clients.scale.createGRPCMonitor({ monitor: grpc({ service: '/pkg.Svc/Method' }) }), 'monitor.service', /service name, not a method path/);
    await refused(clients.scale.createGRPCMonitor({ monitor: grpc({ service: 'pkg.Svc/Method' }) }), 'monitor.service', /not a method path/);
    await refused(clients.scale.createGRPCMonitor({ monitor: grpc({ service: 'pkg..Svc' }) }), 'monitor.service', /service name like my\.pkg\.MyService/);
    assert.equal((await clients.scale.createGRPCMonitor({ monitor: grpc({ service: '' }) })).monitor!.service, '');
    assert.equal((await clients.scale.createGRPCMonitor({ monitor: grpc({ service: 'grpc.health.v1.Health' }) })).monitor!.service, 'grpc.health.v1.Health');
  });

  test('TLS defaults to verify; an explicit mode is kept', async () => {
    assert.equal((await clients.scale.createGRPCMonitor({ monitor: grpc() })).monitor!.tls, TLSMode.TLS_MODE_VERIFY);
    const plain = (await clients.scale.createGRPCMonitor({ monitor: grpc({ tls: TLSMode.TLS_MODE_PLAINTEXT }) })).monitor!;
    assert.equal(plain.tls, TLSMode.TLS_MODE_PLAINTEXT);
  });
});

describe('gRPC metadata', () => {
  const create = (metadata: Record<string, string>) => clients.scale.createGRPCMonitor({ monitor: grpc({ metadata }) });

  test('accepts lower-case header names with printable values (credential-like values come back [redacted])', async () => {
    const created = (await create({ authorization: 'Bearer abc', 'x-tenant': 'a b\tc', 'x-trace-bin': 'AAEC' })).monitor!;
    assert.deepEqual(created.metadata, { authorization: '[redacted]', 'x-tenant': 'a b\tc', 'x-trace-bin': 'AAEC' });
  });

  test('refuses an upper-case key, saying HTTP/2 names are lower-case', async () => {
    await refused(create({ Authorization: 'Bearer abc' }), 'monitor.metadata*', /lower-case/);
  });

  test('refuses the :authority pseudo-header', async () => {
    await refused(create({ ':authority': 'evil.test' }), 'monitor.metadata*', /pseudo-header/);
  });

  test('refuses grpc-timeout as reserved by gRPC', async () => {
    await refused(create({ 'grpc-timeout': '1S' }), 'monitor.metadata*', /grpc-.*reserved/);
  });

  test('refuses connection headers', async () => {
    await refused(create({ te: 'trailers' }), 'monitor.metadata*', /set by the connection/);
  });

  for (const [label, value] of [
    ['CR', 'a\rb'],
    ['LF', 'a\nb'],
    ['CRLF', 'x\r\nx-injected: 1'],
  ] as const) {
    test(`refuses a value containing ${label}`, async () => {
      await refused(create({ 'x-tenant': value }), 'monitor.metadata*', /line breaks/);
    });
  }

  test('refuses more than 32 entries and accepts 32', async () => {
    const entries = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`x-k${i}`, 'v']));
    assert.equal(Object.keys((await create(entries(32))).monitor!.metadata).length, 32);
    await refused(create(entries(33)), 'monitor.metadata', /at most 32 entries, got 33/);
  });

  test('refuses more than 8 KiB in all', async () => {
    await refused(create({ 'x-big': 'a'.repeat(8 * 1024) }), 'monitor.metadata', /at most 8192 bytes in all/);
  });

  test('refuses a -bin value that is not base64', async () => {
    await refused(create({ 'x-trace-bin': 'not base64!' }), 'monitor.metadata*', /base64/);
  });
});

// ---- regions and plans ---------------------------------------------------------------------

describe('regions', () => {
  test('refuses an unknown region, naming its position and the catalogue', async () => {
    await refused(clients.scale.createTCPMonitor({ monitor: tcp({ regions: ['iad', 'atlantis'] }) }), 'monitor.regions.1', /region of the catalogue: iad, ams/);
    await refused(clients.scale.createGRPCMonitor({ monitor: grpc({ regions: ['mars'] }) }), 'monitor.regions.0', /region of the catalogue/);
    await refused(clients.scale.createHTTPMonitor({ monitor: http({ regions: ['mars'] }) }), 'monitor.regions.0', /region of the catalogue/);
  });

  test('refuses a region named twice', async () => {
    await refused(clients.scale.createTCPMonitor({ monitor: tcp({ regions: ['iad', 'iad'] }) }), 'monitor.regions', /twice/);
  });

  for (const plan of ['scale', 'pro', 'starter'] as const) {
    test(`a TCP monitor without regions gets 6 default regions on ${plan}`, async () => {
      assert.deepEqual((await clients[plan].createTCPMonitor({ monitor: tcp() })).monitor!.regions, PAID_DEFAULT_REGIONS);
    });
  }

  test('a TCP or HTTP monitor without regions gets 4 default regions on hobby', async () => {
    const monitor = tcp({ periodicity: Periodicity.PERIODICITY_10M });
    assert.deepEqual((await clients.hobby.createTCPMonitor({ monitor })).monitor!.regions, HOBBY_DEFAULT_REGIONS);
    const web = http({ periodicity: Periodicity.PERIODICITY_10M });
    assert.deepEqual((await clients.hobby.createHTTPMonitor({ monitor: web })).monitor!.regions, HOBBY_DEFAULT_REGIONS);
  });

  test('explicit regions are kept as given', async () => {
    assert.deepEqual((await clients.scale.createTCPMonitor({ monitor: tcp({ regions: ['yyz', 'jnb'] }) })).monitor!.regions, ['yyz', 'jnb']);
  });

  test('a gRPC monitor requires a region or a private location', async () => {
    const before = await monitorCount();
    await refused(
      clients.scale.createGRPCMonitor({ monitor: grpc({ regions: [] }) }),
      'monitor.regions',
      /is required: name at least one region, or at least one private location/,
    );
    assert.equal(await monitorCount(), before);
  });
});

describe('periodicity', () => {
  test('is required', async () => {
    await refused(clients.scale.createTCPMonitor({ monitor: tcp({ periodicity: Periodicity.PERIODICITY_UNSPECIFIED }) }), 'monitor.periodicity', /is required/);
    await refused(
      clients.scale.createGRPCMonitor({ monitor: grpc({ periodicity: Periodicity.PERIODICITY_UNSPECIFIED }) }),
      'monitor.periodicity',
      /is required/,
    );
    await refused(
      clients.scale.createHTTPMonitor({ monitor: http({ periodicity: Periodicity.PERIODICITY_UNSPECIFIED }) }),
      'monitor.periodicity',
      /is required/,
    );
  });

  for (const [label, periodicity] of [
    ['1m', Periodicity.PERIODICITY_1M],
    ['30s', Periodicity.PERIODICITY_30S],
    ['5m', Periodicity.PERIODICITY_5M],
  ] as const) {
    test(`hobby refuses ${label}, naming the plan and listing 10m, 30m, 1h`, async () => {
      const before = await monitorCount(clients.hobby);
      await refused(
        clients.hobby.createTCPMonitor({ monitor: tcp({ periodicity }) }),
        'monitor.periodicity',
        new RegExp(`${label} is not available on the hobby plan, which allows 10m, 30m, 1h`),
      );
      assert.equal(await monitorCount(clients.hobby), before);
    });
  }

  test('hobby accepts 10m, 30m and 1h', async () => {
    for (const periodicity of [Periodicity.PERIODICITY_10M, Periodicity.PERIODICITY_30M, Periodicity.PERIODICITY_1H]) {
      assert.equal((await clients.hobby.createHTTPMonitor({ monitor: http({ periodicity }) })).monitor!.periodicity, periodicity);
    }
  });

  test('starter accepts 1m and 5m and refuses 30s, naming the plan', async () => {
    assert.equal(
      (await clients.starter.createTCPMonitor({ monitor: tcp({ periodicity: Periodicity.PERIODICITY_1M }) })).monitor!.periodicity,
      Periodicity.PERIODICITY_1M,
    );
    assert.equal(
      (await clients.starter.createGRPCMonitor({ monitor: grpc({ periodicity: Periodicity.PERIODICITY_5M }) })).monitor!.periodicity,
      Periodicity.PERIODICITY_5M,
    );
    await refused(
      clients.starter.createTCPMonitor({ monitor: tcp({ periodicity: Periodicity.PERIODICITY_30S }) }),
      'monitor.periodicity',
      /30s is not available on the starter plan, which allows 1m, 5m, 10m, 30m, 1h/,
    );
  });

  test('pro and scale accept 30s', async () => {
    for (const plan of ['pro', 'scale'] as const) {
      const created = (await clients[plan].createTCPMonitor({ monitor: tcp({ periodicity: Periodicity.PERIODICITY_30S }) })).monitor!;
      assert.equal(created.periodicity, Periodicity.PERIODICITY_30S);
    }
  });

  test('an update to a periodicity outside the plan is refused and leaves the monitor as it was', async () => {
    const created = (await clients.hobby.createTCPMonitor({ monitor: tcp({ periodicity: Periodicity.PERIODICITY_1H }) })).monitor!;
    await refused(
      clients.hobby.updateTCPMonitor({ id: created.id, monitor: { periodicity: Periodicity.PERIODICITY_1M } }),
      'monitor.periodicity',
      /hobby plan/,
    );
    assert.deepEqual((await clients.hobby.getMonitor({ id: created.id })).monitor.value, created);
  });
});

// ---- timing, retries, export ---------------------------------------------------------------

describe('timeout, degraded and retry', () => {
  test('timeout defaults to 45s and retry to 3; degraded is absent', async () => {
    for (const created of [
      (await clients.scale.createTCPMonitor({ monitor: tcp() })).monitor!,
      (await clients.scale.createGRPCMonitor({ monitor: grpc() })).monitor!,
      (await clients.scale.createHTTPMonitor({ monitor: http() })).monitor!,
    ]) {
      assert.deepEqual([created.timeout?.seconds, created.timeout?.nanos], [45n, 0]);
      assert.equal(created.retry, 3);
      assert.equal(created.degraded, undefined);
    }
  });

  test('timeout up to 120s is accepted; over 120s is refused', async () => {
    assert.equal((await clients.scale.createTCPMonitor({ monitor: tcp({ timeout: { seconds: 120n } }) })).monitor!.timeout?.seconds, 120n);
    await refused(clients.scale.createTCPMonitor({ monitor: tcp({ timeout: { seconds: 121n } }) }), 'monitor.timeout', /at most 120 s/);
    await refused(clients.scale.createGRPCMonitor({ monitor: grpc({ timeout: { seconds: 600n } }) }), 'monitor.timeout', /at most 120 s/);
  });

  test('degraded must be below timeout', async () => {
    await refused(
      clients.scale.createTCPMonitor({ monitor: tcp({ timeout: { seconds: 10n }, degraded: { seconds: 10n } }) }),
      'monitor.degraded',
      /must be below timeout \(10000 ms\)/,
    );
    await refused(clients.scale.createHTTPMonitor({ monitor: http({ degraded: { seconds: 50n } }) }), 'monitor.degraded', /below timeout \(45000 ms\)/);
    const ok = (await clients.scale.createTCPMonitor({ monitor: tcp({ timeout: { seconds: 10n }, degraded: { seconds: 9n } }) })).monitor!;
    assert.equal(ok.degraded?.seconds, 9n);
  });

  test('an update lowering timeout to or below degraded is refused on degraded', async () => {
    const created = (await clients.scale.createTCPMonitor({ monitor: tcp({ degraded: { seconds: 5n } }) })).monitor!;
    await refused(clients.scale.updateTCPMonitor({ id: created.id, monitor: { timeout: { seconds: 5n } } }), 'monitor.degraded', /below timeout/);
    assert.deepEqual((await clients.scale.getMonitor({ id: created.id })).monitor.value, created);
  });

  test('retry 0 and 10 are accepted; 11 and -1 are refused', async () => {
    assert.equal((await clients.scale.createTCPMonitor({ monitor: tcp({ retry: 0 }) })).monitor!.retry, 0);
    assert.equal((await clients.scale.createTCPMonitor({ monitor: tcp({ retry: 10 }) })).monitor!.retry, 10);
    await refused(clients.scale.createTCPMonitor({ monitor: tcp({ retry: 11 }) }), 'monitor.retry', /0 to 10/);
    await refused(clients.scale.createGRPCMonitor({ monitor: grpc({ retry: -1 }) }), 'monitor.retry', /0 to 10/);
  });

  test('every broken rule of one request is reported, not just the first', async () => {
    const error = await refused(
      clients.scale.createTCPMonitor({ monitor: { name: '', uri: 'tcp://x:1', timeout: { seconds: 121n }, retry: 11 } }),
      'monitor.uri',
      /drop "tcp:\/\/"/,
    );
    const fields = error.findDetails(BadRequestSchema).flatMap((d) => d.fieldViolations.map((v) => v.field));
    for (const field of ['monitor.name', 'monitor.uri', 'monitor.periodicity', 'monitor.timeout', 'monitor.retry']) {
      assert.ok(fields.includes(field), `${field} in ${fields}`);
    }
  });
});

describe('OpenTelemetry export', () => {
  for (const endpoint of ['http://localhost:4318/v1/metrics', 'https://otel.example.test/v1/metrics']) {
    test(`accepts ${endpoint}`, async () => {
      const created = (await clients.scale.createTCPMonitor({ monitor: tcp({ openTelemetry: { endpoint, headers: { Authorization: 'Bearer t' } } }) }))
        .monitor!;
      assert.deepEqual([created.openTelemetry?.endpoint, created.openTelemetry?.headers], [endpoint, { Authorization: '[redacted]' }]);
    });
  }

  for (const endpoint of ['grpc://localhost:4317', 'ftp://otel.example.test/metrics']) {
    test(`refuses ${endpoint}: OTLP/HTTP only`, async () => {
      await refused(
        clients.scale.createTCPMonitor({ monitor: tcp({ openTelemetry: { endpoint } }) }),
        'monitor.openTelemetry.endpoint',
        /must use http:\/\/ or https:\/\/.*OTLP\/HTTP only/,
      );
    });
  }

  test('refuses a missing endpoint', async () => {
    await refused(clients.scale.createTCPMonitor({ monitor: tcp({ openTelemetry: { endpoint: '' } }) }), 'monitor.openTelemetry.endpoint', /is required/);
  });

  test('refuses a header whose name is not an HTTP header name', async () => {
    await refused(
      clients.scale.createTCPMonitor({ monitor: tcp({ openTelemetry: { endpoint: 'http://localhost:4318/v1/metrics', headers: { 'bad name': 'x' } } }) }),
      'monitor.openTelemetry.headers*',
      /valid HTTP header name/,
    );
  });

  test('refuses a header value with a line break', async () => {
    await refused(
      clients.scale.createTCPMonitor({
        monitor: tcp({ openTelemetry: { endpoint: 'http://localhost:4318/v1/metrics', headers: { authorization: 'a\r\nb' } } }),
      }),
      'monitor.openTelemetry.headers*',
      /line breaks/,
    );
  });
});

// ---- HTTP monitors -------------------------------------------------------------------------

describe('HTTP monitors', () => {
  test('url is required', async () => {
    await refused(clients.scale.createHTTPMonitor({ monitor: http({ url: '' }) }), 'monitor.url', /is required: an http:\/\/ or https:\/\/ URL/);
  });

  for (const url of ['ftp://example.test/', 'ws://example.test/', 'file:///etc/passwd']) {
    test(`refuses ${url}: http(s) only`, async () => {
      await refused(clients.scale.createHTTPMonitor({ monitor: http({ url }) }), 'monitor.url', /must use http:\/\/ or https:\/\//);
    });
  }

  test('refuses a relative url', async () => {
    await refused(clients.scale.createHTTPMonitor({ monitor: http({ url: '/health' }) }), 'monitor.url', /absolute http:\/\/ or https:\/\/ URL/);
  });

  test('refuses a url with credentials, saying to send them in a header', async () => {
    await refused(clients.scale.createHTTPMonitor({ monitor: http({ url: 'https://user:secret@example.test/' }) }), 'monitor.url', /credentials.*header/);
  });

  test('refuses a body with GET (also by default) and HEAD; accepts it with POST', async () => {
    await refused(clients.scale.createHTTPMonitor({ monitor: http({ body: 'x' }) }), 'monitor.body', /not allowed with method GET/);
    await refused(clients.scale.createHTTPMonitor({ monitor: http({ body: 'x', method: HTTPMethod.HTTP_METHOD_GET }) }), 'monitor.body', /GET/);
    await refused(clients.scale.createHTTPMonitor({ monitor: http({ body: 'x', method: HTTPMethod.HTTP_METHOD_HEAD }) }), 'monitor.body', /HEAD/);
    const created = (await clients.scale.createHTTPMonitor({ monitor: http({ body: 'x', method: HTTPMethod.HTTP_METHOD_POST }) })).monitor!;
    assert.deepEqual([created.method, created.body], [HTTPMethod.HTTP_METHOD_POST, 'x']);
  });

  test('refuses a status code assertion target of 700', async () => {
    await refused(
      clients.scale.createHTTPMonitor({ monitor: http({ statusCodeAssertions: [{ comparator: NumberComparator.EQUAL, target: 700 }] }) }),
      'monitor.statusCodeAssertions.0.target',
      /status code from 100 to 599/,
    );
  });

  test('refuses an unspecified comparator', async () => {
    await refused(
      clients.scale.createHTTPMonitor({ monitor: http({ statusCodeAssertions: [{ comparator: NumberComparator.UNSPECIFIED, target: 200 }] }) }),
      'monitor.statusCodeAssertions.0.comparator',
      /must be one of/,
    );
    await refused(
      clients.scale.createHTTPMonitor({ monitor: http({ bodyAssertions: [{ comparator: StringComparator.UNSPECIFIED, target: 'ok' }] }) }),
      'monitor.bodyAssertions.0.comparator',
      /must be one of/,
    );
    await refused(
      clients.scale.createHTTPMonitor({
        monitor: http({ headerAssertions: [{ key: 'content-type', comparator: StringComparator.UNSPECIFIED, target: 'json' }] }),
      }),
      'monitor.headerAssertions.0.comparator',
      /must be one of/,
    );
  });

  test('refuses a target with the empty and not-empty comparators', async () => {
    await refused(
      clients.scale.createHTTPMonitor({ monitor: http({ bodyAssertions: [{ comparator: StringComparator.EMPTY, target: 'x' }] }) }),
      'monitor.bodyAssertions.0.target',
      /must be empty/,
    );
  });

  test('refuses a request header that belongs to the connection', async () => {
    await refused(clients.scale.createHTTPMonitor({ monitor: http({ headers: { Host: 'evil.test' } }) }), 'monitor.headers*', /set by the connection/);
  });

  test('defaults: method GET, follow redirects, no headers, no assertions, plan default regions', async () => {
    const created = (await clients.scale.createHTTPMonitor({ monitor: http() })).monitor!;
    assert.equal(created.method, HTTPMethod.HTTP_METHOD_GET);
    assert.equal(created.followRedirects, true);
    assert.equal(created.active, true);
    assert.equal(created.body, '');
    assert.deepEqual(created.headers, {});
    assert.deepEqual([created.statusCodeAssertions, created.headerAssertions, created.bodyAssertions], [[], [], []]);
    assert.deepEqual(created.regions, PAID_DEFAULT_REGIONS);
  });

  test('keeps assertions as given', async () => {
    const created = (
      await clients.scale.createHTTPMonitor({
        monitor: http({
          statusCodeAssertions: [{ comparator: NumberComparator.LESS_THAN, target: 400 }],
          headerAssertions: [{ key: 'Content-Type', comparator: StringComparator.CONTAINS, target: 'json' }],
          bodyAssertions: [{ comparator: StringComparator.NOT_EMPTY, target: '' }],
        }),
      })
    ).monitor!;
    assert.deepEqual(
      created.statusCodeAssertions.map((a) => [a.comparator, a.target]),
      [[NumberComparator.LESS_THAN, 400]],
    );
    assert.deepEqual(
      created.headerAssertions.map((a) => [a.key, a.comparator, a.target]),
      [['Content-Type', StringComparator.CONTAINS, 'json']],
    );
    assert.deepEqual(
      created.bodyAssertions.map((a) => [a.comparator, a.target]),
      [[StringComparator.NOT_EMPTY, '']],
    );
  });
});

// ---- refusals change nothing ---------------------------------------------------------------

describe('refusals change nothing', () => {
  test('a refused create of any type stores nothing and writes no audit entry', async () => {
    const [count, audits] = [await monitorCount(), await auditCount()];
    await refused(clients.scale.createTCPMonitor({ monitor: tcp({ uri: 'db.internal' }) }), 'monitor.uri', /port/);
    await refused(clients.scale.createGRPCMonitor({ monitor: grpc({ metadata: { 'x-a': 'a\nb' } }) }), 'monitor.metadata*', /line breaks/);
    await refused(clients.scale.createHTTPMonitor({ monitor: http({ url: 'ftp://x/' }) }), 'monitor.url', /http/);
    await refused(clients.scale.createTCPMonitor({}), 'monitor.uri', /is required/);
    assert.equal(await monitorCount(), count);
    assert.equal(await auditCount(), audits);
  });

  test('a refused update leaves the stored monitor exactly as it was', async () => {
    const created = (
      await clients.scale.createGRPCMonitor({ monitor: grpc({ name: 'steady', metadata: { authorization: 'x' }, degraded: { seconds: 1n }, tags: ['t'] }) })
    ).monitor!;
    const audits = await auditCount();
    // Valid and invalid fields together: nothing of it is applied.
    await refused(
      clients.scale.updateGRPCMonitor({ id: created.id, monitor: { name: 'changed', uri: 'grpc://api.internal:50051' } }),
      'monitor.uri',
      /drop "grpc:\/\/"/,
    );
    await refused(clients.scale.updateGRPCMonitor({ id: created.id, monitor: { name: 'changed', regions: ['nowhere'] } }), 'monitor.regions.0', /catalogue/);
    await refused(
      clients.scale.updateGRPCMonitor({ id: created.id, monitor: { name: 'changed' }, updateMask: { paths: ['name', 'uri'] } }),
      'monitor.uri',
      /is required/,
    );
    await refused(clients.scale.updateGRPCMonitor({ id: created.id, monitor: { retry: 11, name: 'changed' } }), 'monitor.retry', /0 to 10/);
    assert.deepEqual((await clients.scale.getMonitor({ id: created.id })).monitor.value, created);
    assert.equal(await auditCount(), audits);
  });
});

// ---- Connect JSON --------------------------------------------------------------------------

describe('Connect JSON requests', () => {
  const post = (body: unknown) =>
    fetch(`${svc.apiUrl}/rpc/monitor.v1.MonitorService/CreateTCPMonitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-key': writeSecret },
      body: JSON.stringify(body),
    });

  test('a well-formed JSON request is accepted', async () => {
    const response = await post({ monitor: { name: 'json', uri: 'db.internal:5432', periodicity: 'PERIODICITY_1M' } });
    assert.equal(response.status, 200);
    const body = await json(response);
    assert.equal(body.monitor.name, 'json');
    assert.equal(body.monitor.timeout, '45s');
  });

  test('an unknown JSON field is invalid_argument (HTTP 400) naming the field, and nothing is stored', async () => {
    const count = await monitorCount();
    const response = await post({ monitor: { name: 'json', uri: 'db.internal:5432', periodicity: 'PERIODICITY_1M', periodicty: 'PERIODICITY_5M' } });
    assert.equal(response.status, 400);
    const body = await json(response);
    assert.equal(body.code, 'invalid_argument');
    assert.match(body.message, /periodicty/);
    const topLevel = await post({ monitor: { name: 'json', uri: 'db.internal:5432', periodicity: 'PERIODICITY_1M' }, extra: true });
    assert.equal(topLevel.status, 400);
    assert.equal((await json(topLevel)).code, 'invalid_argument');
    assert.equal(await monitorCount(), count);
  });
});
