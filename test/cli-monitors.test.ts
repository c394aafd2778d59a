import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { toJson } from '@bufbuild/protobuf';
import {
  createClient,
  type GRPCMonitor,
  GRPCMonitorSchema,
  HTTPMethod,
  NumberComparator,
  Periodicity,
  StringComparator,
  type StatusdeskClient,
  TLSMode,
} from '../client/index.ts';
import { withLocalOwner } from './support/database.ts';
import { monitorTypeNames } from '../server/domain/monitors/monitor-types.ts';
import { monitorWords } from '../server/rpc/monitor-codec.ts';
import { assertOneLineError, type CliResult, jsonOf, runCli, startTestService, tableOf, type TestService } from './support/harness.ts';

/**
 * `statusdesk monitors ...` as a user runs it: the real command in a child process against the
 * real service (in this process). Fixtures a test only reads are made through the client library,
 * which is quicker than a command per monitor; whatever a test is about goes through the command.
 */

const T = { timeout: 60_000 };

/** The regions a TCP or HTTP monitor gets on a paid plan when it names none: the first 6 of the catalogue. */
const SIX_REGIONS = ['iad', 'ams', 'sin', 'syd', 'fra', 'gru'];

/** No setting from the surrounding shell leaks in. */
const clean: NodeJS.ProcessEnv = {
  SERVICE_API_KEY: undefined,
  SERVICE_API_URL: undefined,
  STATUSDESK_LOG_LEVEL: undefined,
  STATUSDESK_DATA_DIR: undefined,
};

let svc: TestService;
/** The RPC base address of the service, as SERVICE_API_URL holds it. */
let rpc: string;
/** Keys of the default workspace (`personal`, plan scale). */
let write: string;
let read: string;
/** Keys of a workspace of its own, so that listing knows exactly what is there. */
let listsWrite: string;
let listsRead: string;
/** A write key of a workspace on the hobby plan. */
let hobbyWrite: string;
/** The service through the client library, with the write key of `personal`. */
let api: StatusdeskClient;

before(async () => {
  svc = await startTestService();
  rpc = `${svc.apiUrl}/rpc`;
  await withLocalOwner(svc.dataDir, async (services, owner) => {
    await services.workspaces.create(owner, { name: 'Lists', slug: 'lists', plan: 'scale' });
    await services.workspaces.create(owner, { name: 'Hobby', slug: 'hobby', plan: 'hobby' });
  });
  write = (await svc.createKey('write')).secret;
  read = (await svc.createKey('read')).secret;
  listsWrite = (await svc.createKey('write', 'lists')).secret;
  listsRead = (await svc.createKey('read', 'lists')).secret;
  hobbyWrite = (await svc.createKey('write', 'hobby')).secret;
  api = createClient({ baseUrl: rpc, apiKey: write });
});

after(() => svc?.stop());

/** `statusdesk monitors ARGS` with the write key and SERVICE_API_URL of the test service unless `env` says otherwise. */
function monitors(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runCli(['monitors', ...args], { ...clean, SERVICE_API_KEY: write, SERVICE_API_URL: rpc, ...env });
}

/** A usage error: exit 2, the reason and the usage on stderr, nothing on stdout. */
function assertUsageError(result: CliResult, pattern: RegExp): void {
  assert.equal(result.code, 2, `exit code (stdout: ${result.stdout}, stderr: ${result.stderr})`);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /^statusdesk[^:\n]*: [^\n]+\n/);
  assert.match(result.stderr, pattern);
  assert.match(result.stderr, /\nRun statusdesk [^\n]*--help/);
}

/** A loopback address nothing listens on. */
async function closedAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/rpc`;
}

/** The stored gRPC monitor `id`, in its JSON form. */
async function storedGrpc(id: string): Promise<unknown> {
  const { monitor } = await api.monitors.getMonitor({ id });
  assert.equal(monitor.case, 'grpcMonitor');
  return toJson(GRPCMonitorSchema, monitor.value);
}

const isoTime = (value: unknown) => typeof value === 'string' && !Number.isNaN(Date.parse(value));

async function tcpFixture(name: string, regions?: string[]) {
  const { monitor } = await api.monitors.createTCPMonitor({
    monitor: { name, uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_5M, ...(regions ? { regions } : {}) },
  });
  return monitor!;
}

async function grpcFixture(name: string) {
  const { monitor } = await api.monitors.createGRPCMonitor({
    monitor: {
      name,
      uri: 'api.internal:50051',
      service: 'shop.v1.Orders',
      tls: TLSMode.TLS_MODE_SKIP_VERIFY,
      metadata: { 'x-tenant': 'acme' },
      periodicity: Periodicity.PERIODICITY_1M,
      regions: ['iad', 'lhr'],
      timeout: { seconds: 10n },
      degraded: { seconds: 2n },
      retry: 1,
      tags: ['orders'],
    },
  });
  return monitor!;
}

async function httpFixture(name: string) {
  const { monitor } = await api.monitors.createHTTPMonitor({
    monitor: {
      name,
      url: 'https://shop.example/health',
      method: HTTPMethod.HTTP_METHOD_POST,
      headers: { 'x-probe': '1' },
      body: 'ping',
      statusCodeAssertions: [{ comparator: NumberComparator.EQUAL, target: 200 }],
      bodyAssertions: [{ comparator: StringComparator.CONTAINS, target: 'ok' }],
      periodicity: Periodicity.PERIODICITY_10M,
    },
  });
  return monitor!;
}

/** A JSON form without the field every change moves. */
function withoutUpdatedAt(monitor: Record<string, unknown>): Record<string, unknown> {
  const { updatedAt: _, ...rest } = monitor;
  return rest;
}

describe('monitors create', () => {
  test('create tcp --json returns the new monitor with its id and the defaults filled in (6 regions on scale, 45s, retry 3)', T, async () => {
    const body = jsonOf(await monitors(['create', 'tcp', '--name', 'postgres', '--target', 'db.internal:5432', '--frequency', '1m', '--json']));
    assert.match(body.id, /^[1-9]\d*$/);
    assert.equal(body.name, 'postgres');
    assert.equal(body.type, 'tcp');
    assert.equal(body.target, 'db.internal:5432');
    assert.equal(body.frequency, '1m');
    assert.deepEqual(body.regions, SIX_REGIONS);
    assert.equal(body.timeout, 45_000);
    assert.equal(body.retry, 3);
    assert.equal(body.active, true);
    assert.equal(body.degraded, null, 'no degraded threshold unless one is given');
    assert.equal(body.openTelemetry, null);
    assert.ok(isoTime(body.createdAt) && isoTime(body.updatedAt));
    // What came back is what is stored.
    const { monitor } = await api.monitors.getMonitor({ id: body.id });
    assert.equal(monitor.case, 'tcpMonitor');
    assert.deepEqual(monitorWords('tcp', monitor.value!), body);
  });

  test('create grpc --json sends every flag: service, tls, repeated metadata, regions, frequency, timeout, degraded, retry 0', T, async () => {
    const body = jsonOf(
      await monitors([
        'create',
        'grpc',
        '--name',
        'orders',
        '--target',
        'api.internal:50051',
        '--service',
        'shop.v1.Orders',
        '--tls',
        'plaintext',
        '--metadata',
        'x-tenant=acme',
        '--metadata',
        'x-query=a=b',
        '--metadata',
        'x-token=t0ken',
        '--regions',
        'iad,fra',
        '--frequency',
        '30s',
        '--timeout',
        '5s',
        '--degraded',
        '1s',
        '--retry',
        '0',
        '--description',
        'order service',
        '--tag',
        'shop',
        '--tag',
        'grpc',
        '--json',
      ]),
    );
    assert.match(body.id, /^[1-9]\d*$/);
    assert.equal(body.name, 'orders');
    assert.equal(body.description, 'order service');
    assert.equal(body.target, 'api.internal:50051');
    assert.equal(body.service, 'shop.v1.Orders');
    assert.equal(body.tls, 'plaintext');
    // A value keeps the = after the first; a credential-like one comes back [redacted].
    assert.deepEqual(body.metadata, { 'x-tenant': 'acme', 'x-query': 'a=b', 'x-token': '[redacted]' });
    assert.deepEqual(body.regions, ['iad', 'fra']);
    assert.equal(body.frequency, '30s');
    assert.equal(body.timeout, 5000);
    assert.equal(body.degraded, 1000);
    assert.equal(body.retry, 0, 'retry 0 is kept, not replaced by the default');
    assert.deepEqual(body.tags, ['shop', 'grpc']);
    assert.equal(body.active, true);
  });

  test('create http --json sends method, headers, body and every assertion, and fills the defaults', T, async () => {
    const body = jsonOf(
      await monitors([
        'create',
        'http',
        '--name',
        'storefront',
        '--target',
        'https://shop.example/health',
        '--method',
        'post',
        '--header',
        'x-probe=statusdesk',
        '--header',
        'accept=application/json',
        '--body',
        '{"ping":true}',
        '--assert-status',
        '200',
        '--assert-status',
        '>=200',
        '--assert-header',
        'content-type=application/json',
        '--assert-body-contains',
        'ok',
        '--frequency',
        '5m',
        '--json',
      ]),
    );
    assert.match(body.id, /^[1-9]\d*$/);
    assert.equal(body.name, 'storefront');
    assert.equal(body.target, 'https://shop.example/health');
    assert.equal(body.method, 'POST');
    assert.deepEqual(body.headers, { 'x-probe': 'statusdesk', accept: 'application/json' });
    assert.equal(body.body, '{"ping":true}');
    assert.deepEqual(body.statusCodeAssertions, [
      { comparator: 'equal', target: 200 },
      { comparator: 'greater_than_or_equal', target: 200 },
    ]);
    assert.deepEqual(body.headerAssertions, [{ key: 'content-type', comparator: 'equal', target: 'application/json' }]);
    assert.deepEqual(body.bodyAssertions, [{ comparator: 'contains', target: 'ok' }]);
    assert.equal(body.frequency, '5m');
    assert.equal(body.followRedirects, true);
    assert.deepEqual(body.regions, SIX_REGIONS);
    assert.equal(body.timeout, 45_000);
    assert.equal(body.retry, 3);
  });

  test('create without --json prints only the new id on stdout and a note on stderr', T, async () => {
    const result = await monitors(['create', 'tcp', '--name', 'redis', '--target', 'cache.internal:6379', '--frequency', '10m']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^[1-9]\d*\n$/);
    const id = result.stdout.trim();
    assert.equal(result.stderr, `Created tcp monitor ${id} (redis).\n`);
    const { monitor } = await api.monitors.getMonitor({ id });
    assert.equal(monitor.case, 'tcpMonitor');
    assert.equal(monitor.value?.name, 'redis');
  });

  test('create http takes --target as the monitor URL and the service from --api-url, which wins over SERVICE_API_URL', T, async () => {
    const result = await monitors(['create', 'http', '--name', 'docs', '--target', 'https://docs.example/', '--frequency', '1h', '--api-url', rpc, '--json'], {
      SERVICE_API_URL: await closedAddress(),
    });
    const body = jsonOf(result);
    assert.equal(body.target, 'https://docs.example/');
    assert.equal(body.method, 'GET', 'GET by default');
  });

  test('on a hobby workspace a TCP monitor without regions gets the plan default of 4 regions', T, async () => {
    const body = jsonOf(
      await monitors(['create', 'tcp', '--name', 'small', '--target', 'db.internal:5432', '--frequency', '10m', '--json'], { SERVICE_API_KEY: hobbyWrite }),
    );
    assert.deepEqual(body.regions, SIX_REGIONS.slice(0, 4));
  });

  test('what create --help says of a left-out --frequency and --regions is what the command does, for every type', T, async () => {
    const help = (await monitors(['create', '--help'])).stdout;
    assert.doesNotMatch(help, /plan's fastest|all of the plan/);
    assert.ok(
      help.startsWith(
        `Usage: statusdesk monitors create ${monitorTypeNames.join('|')} --name N --target T --frequency 30s|1m|5m|10m|30m|1h (grpc: --regions a,b or --private-location ID,`,
      ),
      help.split('\n')[0],
    );
    assert.match(help, /\n {2}--frequency \S+ +how often to check \(required by create; the plan may allow fewer\)\n/);
    assert.match(
      help,
      /\n {2}--regions a,b +the regions to check from, comma-separated \(left out by create: for tcp, http(?:, [a-z]+)* and [a-z]+ the plan's default regions, the first 4 of the catalogue on hobby and 6 on paid plans, or none with --private-location; grpc needs --regions or --private-location\)\n/,
    );

    const before = (await api.monitors.listMonitors({})).totalSize;
    const name = ['--name', 'left out'];
    const refused = await Promise.all([
      monitors(['create', 'tcp', ...name, '--target', 'db.internal:5432']),
      monitors(['create', 'grpc', ...name, '--target', 'api.internal:50051', '--regions', 'iad']),
      monitors(['create', 'http', ...name, '--target', 'https://shop.example/']),
      monitors(['create', 'grpc', ...name, '--target', 'api.internal:50051', '--frequency', '1m']),
    ]);
    for (const result of refused.slice(0, 3)) {
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /^statusdesk: --frequency: is required: one of 30s, 1m, 5m, 10m, 30m, 1h\n$/);
    }
    assert.equal(refused[3]!.code, 2, refused[3]!.stderr);
    assert.match(refused[3]!.stderr, /^statusdesk: --regions: is required: name at least one region, or at least one private location\n$/);
    assert.equal((await api.monitors.listMonitors({})).totalSize, before, 'nothing was created');

    const made = await Promise.all([
      monitors(['create', 'tcp', ...name, '--target', 'db.internal:5432', '--frequency', '10m', '--json']),
      monitors(['create', 'http', ...name, '--target', 'https://shop.example/', '--frequency', '10m', '--json']),
      monitors(['create', 'http', ...name, '--target', 'https://shop.example/', '--frequency', '10m', '--json'], { SERVICE_API_KEY: hobbyWrite }),
    ]);
    assert.deepEqual(
      made.map((result) => jsonOf(result).regions),
      [SIX_REGIONS, SIX_REGIONS, SIX_REGIONS.slice(0, 4)],
    );
  });
});

describe('monitors list', () => {
  /** Created oldest first: tcp, grpc, http, in the `lists` workspace. */
  let ids: { tcp: string; grpc: string; http: string };

  before(async () => {
    const lists = createClient({ baseUrl: rpc, apiKey: listsWrite });
    const tcp = (await lists.monitors.createTCPMonitor({ monitor: { name: 'db', uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M } })).monitor!;
    const grpc = (
      await lists.monitors.createGRPCMonitor({
        monitor: { name: 'orders', uri: 'api.internal:50051', periodicity: Periodicity.PERIODICITY_30S, regions: ['iad', 'fra'] },
      })
    ).monitor!;
    const http = (await lists.monitors.createHTTPMonitor({ monitor: { name: 'web', url: 'https://shop.example/', periodicity: Periodicity.PERIODICITY_5M } }))
      .monitor!;
    ids = { tcp: tcp.id, grpc: grpc.id, http: http.id };
  });

  test('list prints a table: a header row, then one line per monitor of the workspace, newest first', T, async () => {
    const result = await monitors(['list'], { SERVICE_API_KEY: listsRead });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(tableOf(result.stdout), [
      ['ID', 'TYPE', 'NAME', 'TARGET', 'FREQUENCY', 'REGIONS', 'ACTIVE'],
      [ids.http, 'http', 'web', 'https://shop.example/', '5m', SIX_REGIONS.join(','), 'true'],
      [ids.grpc, 'grpc', 'orders', 'api.internal:50051', '30s', 'iad,fra', 'true'],
      [ids.tcp, 'tcp', 'db', 'db.internal:5432', '1m', SIX_REGIONS.join(','), 'true'],
    ]);
    assert.equal(result.stderr, '3 of 3 monitors\n');
  });

  test('list --json gives the monitors newest first, each with its type, and totalSize', T, async () => {
    const body = jsonOf(await monitors(['list', '--json'], { SERVICE_API_KEY: listsRead }));
    assert.deepEqual(Object.keys(body).sort(), ['monitors', 'totalSize']);
    assert.deepEqual(
      body.monitors.map((m: any) => [m.id, m.type, m.target, m.frequency, m.regions]),
      [
        [ids.http, 'http', 'https://shop.example/', '5m', SIX_REGIONS],
        [ids.grpc, 'grpc', 'api.internal:50051', '30s', ['iad', 'fra']],
        [ids.tcp, 'tcp', 'db.internal:5432', '1m', SIX_REGIONS],
      ],
    );
    assert.equal(body.totalSize, 3);
  });

  test('--limit and --offset page through the monitors newest first across types; totalSize stays the whole count', T, async () => {
    const [second, firstTwo, pastTheEnd] = await Promise.all([
      monitors(['list', '--limit', '1', '--offset', '1', '--json'], { SERVICE_API_KEY: listsRead }),
      monitors(['list', '--limit', '2'], { SERVICE_API_KEY: listsRead }),
      monitors(['list', '--offset', '3'], { SERVICE_API_KEY: listsRead }),
    ]);
    const page = jsonOf(second);
    assert.deepEqual(
      page.monitors.map((m: any) => m.id),
      [ids.grpc],
    );
    assert.equal(page.totalSize, 3);

    assert.equal(firstTwo.code, 0, firstTwo.stderr);
    assert.deepEqual(
      tableOf(firstTwo.stdout).map((row) => row[0]),
      ['ID', ids.http, ids.grpc],
    );
    assert.equal(firstTwo.stderr, '2 of 3 monitors\n');

    assert.equal(pastTheEnd.code, 0, pastTheEnd.stderr);
    assert.deepEqual(tableOf(pastTheEnd.stdout), [['ID', 'TYPE', 'NAME', 'TARGET', 'FREQUENCY', 'REGIONS', 'ACTIVE']]);
    assert.equal(pastTheEnd.stderr, '0 of 3 monitors\n');
  });

  test('an out-of-range --limit is refused by the service, naming --limit (exit 2)', T, async () => {
    assert.deepEqual(await monitors(['list', '--limit', '101'], { SERVICE_API_KEY: listsRead }), {
      code: 2,
      stdout: '',
      stderr: 'statusdesk: --limit: must be 1 to 100\n',
    });
  });

  test('a --limit or --offset that is not a number is a usage error (exit 2)', T, async () => {
    const [limit, offset] = await Promise.all([
      monitors(['list', '--limit', 'abc'], { SERVICE_API_KEY: listsRead }),
      monitors(['list', '--offset', '1.5'], { SERVICE_API_KEY: listsRead }),
    ]);
    assertUsageError(limit, /--limit/);
    assertUsageError(offset, /--offset/);
  });
});

describe('monitors get, update and delete', () => {
  test('get prints the monitor as a FIELD/VALUE table; get --json is the same monitor in the same words', T, async () => {
    const monitor = await grpcFixture('get-me');
    const [table, json] = await Promise.all([monitors(['get', monitor.id]), monitors(['get', monitor.id, '--json'])]);
    assert.equal(table.code, 0, table.stderr);
    const rows = new Map(tableOf(table.stdout).map((row) => [row[0], row[1]]));
    assert.equal(rows.get('FIELD'), 'VALUE');
    assert.equal(rows.get('id'), monitor.id);
    assert.equal(rows.get('type'), 'grpc');
    assert.equal(rows.get('name'), 'get-me');
    assert.equal(rows.get('target'), 'api.internal:50051');
    assert.equal(rows.get('frequency'), '1m');
    assert.equal(rows.get('regions'), 'iad,lhr');
    assert.equal(rows.get('timeout'), '10000 ms');
    assert.equal(rows.get('degraded'), '2000 ms');
    assert.equal(rows.get('retry'), '1');
    assert.equal(rows.get('service'), 'shop.v1.Orders');
    assert.equal(rows.get('tls'), 'skip-verify');
    assert.equal(rows.get('tags'), 'orders');
    assert.deepEqual(jsonOf(json), monitorWords('grpc', monitor));
  });

  test('update changes only the given fields; --clear degraded removes the threshold and keeps the rest', T, async () => {
    const original = monitorWords('grpc', await grpcFixture('to-update')) as Record<string, any>;
    const updated = jsonOf(await monitors(['update', original.id, '--name', 'renamed', '--retry', '5', '--frequency', '5m', '--json']));
    assert.equal(updated.name, 'renamed');
    assert.equal(updated.retry, 5);
    assert.equal(updated.frequency, '5m');
    assert.deepEqual(withoutUpdatedAt(updated), withoutUpdatedAt({ ...original, name: 'renamed', retry: 5, frequency: '5m' }));
    assert.ok(Date.parse(updated.updatedAt) >= Date.parse(original.updatedAt));

    const cleared = jsonOf(await monitors(['update', original.id, '--clear', 'degraded', '--json']));
    assert.equal(cleared.degraded, null);
    assert.deepEqual(withoutUpdatedAt(cleared), withoutUpdatedAt({ ...updated, degraded: null }));
    assert.deepEqual(
      monitorWords('grpc', (await api.monitors.getMonitor({ id: original.id })).monitor.value as GRPCMonitor),
      cleared,
      'stored, not only answered',
    );
  });

  test('update of an HTTP monitor takes --target as the monitor URL and leaves headers, body and assertions alone', T, async () => {
    const original = monitorWords('http', await httpFixture('to-move')) as Record<string, any>;
    const updated = jsonOf(await monitors(['update', original.id, '--target', 'https://shop.example/v2/health', '--method', 'PUT', '--json']));
    assert.deepEqual(withoutUpdatedAt(updated), withoutUpdatedAt({ ...original, target: 'https://shop.example/v2/health', method: 'PUT' }));
  });

  test('update with a read key exits 1 with permission_denied and changes nothing', T, async () => {
    const original = toJson(GRPCMonitorSchema, await grpcFixture('read-only')) as Record<string, any>;
    const result = await monitors(['update', original.id, '--name', 'hijacked', '--clear', 'degraded'], { SERVICE_API_KEY: read });
    assertOneLineError(result, /\[permission_denied\]/);
    assert.match(result.stderr, /read-only/);
    assert.deepEqual(await storedGrpc(original.id), original, 'nothing changed, not even updatedAt');
  });

  test('update with a flag of another monitor type, or with nothing to change, is a usage error (exit 2)', T, async () => {
    const tcp = await tcpFixture('wrong-flags');
    const [foreign, nothing] = await Promise.all([monitors(['update', tcp.id, '--service', 'x.Y']), monitors(['update', tcp.id])]);
    assertUsageError(foreign, /--service does not apply to tcp monitors/);
    assertUsageError(nothing, /nothing to change/);
    const { monitor } = await api.monitors.getMonitor({ id: tcp.id });
    assert.deepEqual(monitor.value, tcp);
  });

  test('update --clear of a field that does not exist exits 2 and names the fields that can be changed', T, async () => {
    const tcp = await tcpFixture('bad-clear');
    const clear = await monitors(['update', tcp.id, '--clear', 'bogus']);
    assert.equal(clear.code, 2);
    assert.match(clear.stderr, /^statusdesk: --clear: "bogus" is not a field that can be changed; fields: .*\bdegraded\b/);
  });

  test('update of an HTTP monitor refuses --url, which could be its URL or the service (exit 2), rather than guessing', T, async () => {
    const http = await httpFixture('url-on-http');
    assertUsageError(
      await monitors(['update', http.id, '--url', rpc, '--name', 'changed']),
      /--url is ambiguous for an HTTP monitor: give its URL as --target, and the service as --api-url/,
    );
    const { monitor } = await api.monitors.getMonitor({ id: http.id });
    assert.equal(monitor.value?.name, 'url-on-http');
  });

  test('--otlp-header without --otlp-endpoint is a usage error rather than silently dropped', T, async () => {
    assertUsageError(
      await monitors(['create', 'tcp', '--name', 'otel', '--target', 'db.internal:5432', '--frequency', '1m', '--otlp-header', 'authorization=Bearer x']),
      /--otlp-header/,
    );
  });

  test('update --otlp-endpoint changes the endpoint and keeps the OTLP headers (credential-like values shown [redacted])', T, async () => {
    const { monitor } = await api.monitors.createTCPMonitor({
      monitor: {
        name: 'otel-move',
        uri: 'db.internal:5432',
        periodicity: Periodicity.PERIODICITY_1M,
        openTelemetry: { endpoint: 'https://otel.example/v1/metrics', headers: { authorization: 'Bearer x' } },
      },
    });
    const updated = jsonOf(await monitors(['update', monitor!.id, '--otlp-endpoint', 'https://otel2.example/v1/metrics', '--json']));
    // The headers the command read back were [redacted]; sent back so, the stored value is kept.
    assert.deepEqual(updated.openTelemetry, { endpoint: 'https://otel2.example/v1/metrics', headers: { authorization: '[redacted]' } });
  });

  test('delete removes the monitor; get and delete of it then exit 1 with not_found', T, async () => {
    const tcp = await tcpFixture('doomed');
    const deleted = await monitors(['delete', tcp.id, '--yes']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout, '');
    assert.equal(deleted.stderr, `Deleted monitor ${tcp.id}.\n`);
    const [get, again] = await Promise.all([monitors(['get', tcp.id]), monitors(['delete', tcp.id, '--yes'])]);
    assertOneLineError(get, new RegExp(`\\[not_found\\] monitor ${tcp.id} does not exist`));
    assertOneLineError(again, /\[not_found\]/);
  });
});

describe('monitors status and summary before any check has run', () => {
  let id: string;
  const regions = ['iad', 'fra', 'lhr'];

  before(async () => {
    id = (await tcpFixture('unchecked', regions)).id;
  });

  test('status lists each region of the monitor as "no check yet", with no time and no invented status', T, async () => {
    const [table, json] = await Promise.all([monitors(['status', id]), monitors(['status', id, '--json'], { SERVICE_API_KEY: read })]);
    assert.equal(table.code, 0, table.stderr);
    assert.deepEqual(tableOf(table.stdout), [
      ['REGION', 'STATUS', 'LAST CHECK'],
      ...regions.map((r) => [r, 'no check yet', '-']),
      ['overall', 'no check yet', '-'],
    ]);
    assert.deepEqual(jsonOf(json), { monitorId: id, overall: null, regions: regions.map((region) => ({ region, status: null, lastCheckedAt: null })) });
  });

  test('summary shows zero counts, no percentiles and "no check yet"; --json holds the window and every count as 0', T, async () => {
    const [table, json, week] = await Promise.all([
      monitors(['summary', id]),
      monitors(['summary', id, '--window', '14d', '--json'], { SERVICE_API_KEY: read }),
      monitors(['summary', id, '--window', '7d']),
    ]);
    assert.equal(table.code, 0, table.stderr);
    assert.deepEqual(tableOf(table.stdout), [
      ['WINDOW', 'SUCCESS', 'DEGRADED', 'ERROR', 'P50', 'P75', 'P90', 'P95', 'P99', 'LAST PING'],
      ['1d', '0', '0', '0', '-', '-', '-', '-', '-', 'no check yet'],
    ]);
    assert.deepEqual(
      jsonOf(json),
      { monitorId: id, window: '14d', successCount: 0, degradedCount: 0, errorCount: 0, latency: null, lastPingAt: null, gaps: [] },
      'no latency or last ping made up',
    );
    assert.equal(week.code, 0, week.stderr);
    assert.equal(tableOf(week.stdout)[1]?.[0], '7d');
  });

  test('summary with a window other than 1d, 7d or 14d is a usage error (exit 2)', T, async () => {
    assertUsageError(await monitors(['summary', id, '--window', '30d']), /--window must be one of 1d, 7d, 14d, got "30d"/);
  });

  test('status, summary and trigger of a monitor that does not exist exit 1 with not_found', T, async () => {
    const results = await Promise.all([monitors(['status', '999999']), monitors(['summary', '999999']), monitors(['trigger', '999999'])]);
    for (const result of results) assertOneLineError(result, /\[not_found\] monitor 999999 does not exist/);
  });
});

describe('monitors trigger, status, summary and logs after real checks', () => {
  let closedPort: number;
  let web: HttpServer;
  let webUrl: string;

  before(async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    web = createHttpServer((_req, res) => res.writeHead(503, { 'content-type': 'text/plain' }).end('maintenance'));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}/health`;
  });
  after(() => new Promise((resolve) => web.close(resolve)));

  test('trigger --json prints the result record of each region: down, "connection refused", null phases', T, async () => {
    const { monitor } = await api.monitors.createTCPMonitor({
      monitor: { name: 'refused', uri: `127.0.0.1:${closedPort}`, periodicity: Periodicity.PERIODICITY_5M, regions: ['iad', 'fra'], retry: 0 },
    });
    const result = await monitors(['trigger', monitor!.id, '--json']);
    assert.equal(result.code, 0, result.stderr);
    const { results } = jsonOf(result) as { results: Record<string, unknown>[] };
    assert.deepEqual(
      results.map((r) => r.region),
      ['iad', 'fra'],
    );
    for (const r of results) {
      assert.deepEqual(Object.keys(r), [
        'monitorId',
        'region',
        'runner',
        'startedAt',
        'result',
        'latencyMs',
        'timing',
        'attempts',
        'message',
        'grpcStatus',
        'statusCode',
        'url',
        'responseHeaders',
        'assertionResults',
      ]);
      assert.equal(r.result, 'down');
      assert.equal(r.message, 'connection refused');
      assert.equal(r.runner, 'local');
      assert.equal(r.attempts, 1);
      assert.deepEqual({ ...(r.timing as object), total: null }, { dns: null, connect: null, tls: null, ttfb: null, transfer: null, total: null });
      assert.equal(r.grpcStatus, null);
      assert.equal(r.statusCode, null);
    }
    const status = await monitors(['status', monitor!.id]);
    assert.deepEqual(
      tableOf(status.stdout).map((row) => row.slice(0, 2)),
      [
        ['REGION', 'STATUS'],
        ['iad', 'error'],
        ['fra', 'error'],
        ['overall', 'error'],
      ],
    );
    const summary = await monitors(['summary', monitor!.id]);
    assert.deepEqual(tableOf(summary.stdout)[1]?.slice(0, 4), ['1d', '0', '0', '1']);
  });

  test("logs lists an HTTP monitor's checks with status code and the failed assertion; --json holds the records", T, async () => {
    const { monitor } = await api.monitors.createHTTPMonitor({
      monitor: { name: 'web', url: webUrl, periodicity: Periodicity.PERIODICITY_5M, regions: ['iad'], retry: 0 },
    });
    const trigger = await monitors(['trigger', monitor!.id]);
    assert.equal(trigger.code, 0, trigger.stderr);
    assert.deepEqual(tableOf(trigger.stdout)[1]?.slice(0, 2), ['iad', 'down']);
    const logs = await monitors(['logs', monitor!.id]);
    assert.equal(logs.code, 0, logs.stderr);
    const [header, row] = tableOf(logs.stdout);
    assert.deepEqual(header, ['STARTED', 'REGION', 'RESULT', 'STATUS', 'LATENCY', 'MESSAGE']);
    assert.deepEqual(row?.slice(1, 4), ['iad', 'down', '503']);
    const json = jsonOf(await monitors(['logs', monitor!.id, '--json', '--limit', '1'])) as { results: Record<string, unknown>[] };
    assert.equal(json.results.length, 1);
    assert.equal(json.results[0]!.url, webUrl);
    assert.match(String(json.results[0]!.message), /^assertion failed: status code 2xx \(got 503\)/);
  });

  test('logs of a TCP monitor exits 1 naming the rule', T, async () => {
    const tcp = await tcpFixture('no-logs');
    assertOneLineError(await monitors(['logs', tcp.id]), /\[invalid_argument\] id: response logs exist for HTTP monitors only/);
  });
});

describe('monitors errors', () => {
  test('without SERVICE_API_KEY every command exits 1 with a message naming SERVICE_API_KEY', T, async () => {
    const results = await Promise.all([
      monitors(['list'], { SERVICE_API_KEY: undefined }),
      monitors(['create', 'tcp', '--name', 'x', '--target', 'db.internal:5432', '--frequency', '1m'], { SERVICE_API_KEY: '' }),
      monitors(['update', '1', '--name', 'x'], { SERVICE_API_KEY: undefined }),
    ]);
    for (const result of results) assertOneLineError(result, /SERVICE_API_KEY is not set/);
  });

  test('an unknown key exits 1: the service refused the credential, and what to do', T, async () => {
    assertOneLineError(
      await monitors(['list'], { SERVICE_API_KEY: `svc_${'x'.repeat(43)}` }),
      /refused the credential .*: run statusdesk login, or set SERVICE_API_KEY/,
    );
  });

  test('a target with a scheme exits 2; stderr names --target and says to drop the scheme', T, async () => {
    const before = (await api.monitors.listMonitors({})).totalSize;
    const result = await monitors(['create', 'grpc', '--name', 'bad', '--target', 'grpc://a:1', '--regions', 'iad', '--frequency', '1m']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^statusdesk: --target: must be host:port without a scheme: drop "grpc:\/\/"/);
    assert.equal((await api.monitors.listMonitors({})).totalSize, before, 'nothing was created');
  });

  test('a bad --frequency, --timeout, --retry, --assert-status or --metadata is a usage error (exit 2)', T, async () => {
    const tcp = ['create', 'tcp', '--name', 'x', '--target', 'db.internal:5432'];
    const [frequency, timeout, retry, status, metadata] = await Promise.all([
      monitors([...tcp, '--frequency', '2m']),
      monitors([...tcp, '--frequency', '1m', '--timeout', '5']),
      monitors([...tcp, '--frequency', '1m', '--retry', '1.5']),
      monitors(['create', 'http', '--name', 'x', '--target', 'https://e.example/', '--frequency', '1m', '--assert-status', '2xx']),
      monitors(['create', 'grpc', '--name', 'x', '--target', 'a.b:1', '--regions', 'iad', '--frequency', '1m', '--metadata', 'novalue']),
    ]);
    assertUsageError(frequency, /--frequency must be one of 30s, 1m, 5m, 10m, 30m, 1h, got "2m"/);
    assertUsageError(timeout, /--timeout must be a duration like 500ms, 45s, 15m, 2h or 1d, got "5"/);
    assertUsageError(retry, /--retry must be a whole number, got "1.5"/);
    assertUsageError(status, /--assert-status takes a status code/);
    assertUsageError(metadata, /--metadata takes key=value, got "novalue"/);
  });

  test('a flag of another monitor type is a usage error (create tcp --service)', T, async () => {
    assertUsageError(
      await monitors(['create', 'tcp', '--name', 'x', '--target', 'db.internal:5432', '--frequency', '1m', '--service', 'x']),
      /--service does not apply to tcp monitors/,
    );
  });

  test('an unreachable service address exits 1 with a message naming the address', T, async () => {
    const result = await monitors(['list', '--api-url', 'http://127.0.0.1:1/rpc']);
    assertOneLineError(result, /Statusdesk is not running at http:\/\/127\.0\.0\.1:1: start it with statusdesk serve/);
  });

  test('--url wins over SERVICE_API_URL, which is used when --url is absent', T, async () => {
    // A monitor of its own: an empty list would leave totalSize out of the JSON.
    await tcpFixture('url precedence');
    const unreachable = await closedAddress();
    const port = new URL(unreachable).port;
    const [withUrl, withoutUrl, withApiUrl] = await Promise.all([
      monitors(['list', '--url', rpc, '--json'], { SERVICE_API_URL: unreachable }),
      monitors(['list', '--json'], { SERVICE_API_URL: unreachable }),
      monitors(['list', '--api-url', rpc, '--json'], { SERVICE_API_URL: unreachable }),
    ]);
    assert.equal(typeof JSON.parse(withUrl.stdout).totalSize, 'number');
    assert.equal(withUrl.stderr, 'statusdesk: --url is now --api-url\n');
    assert.equal(typeof jsonOf(withApiUrl).totalSize, 'number');
    assertOneLineError(withoutUrl, new RegExp(`Statusdesk is not running at http://127\\.0\\.0\\.1:${port}:`));
  });
});
