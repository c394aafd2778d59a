import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { type Client, Code, type ConnectError, createClient, type Interceptor, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import {
  Code as ClientCode,
  ConnectError as ClientConnectError,
  createClient as createStatusdeskClient,
  DEFAULT_API_URL,
  MissingApiKeyError,
  Periodicity as ClientPeriodicity,
  TCPMonitorSchema as ClientTCPMonitorSchema,
} from 'statusdesk/client';
import {
  HTTPMethod,
  MonitorService,
  MonitorStatus,
  NumberComparator,
  Periodicity,
  StringComparator,
  SummaryWindow,
  TLSMode,
} from '../proto/gen/monitor/v1/monitor_pb.js';
import { withLocalOwner } from './support/database.ts';
import { openTestDatabase } from './support/database.ts';
import { assertCode, assertViolation, json, startTestService, type TestService, withHeaders } from './support/harness.ts';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUF = fileURLToPath(new URL('../node_modules/.bin/buf', import.meta.url));
const SCALE_DEFAULT_REGIONS = ['iad', 'ams', 'sin', 'syd', 'fra', 'gru'];

type MonitorClient = Client<typeof MonitorService>;

// ---- helpers -------------------------------------------------------------------------------

const transports: Record<string, (baseUrl: string, interceptors: Interceptor[]) => Transport> = {
  'Connect over HTTP/1.1': (baseUrl, interceptors) => createConnectTransport({ baseUrl, httpVersion: '1.1', interceptors }),
  'Connect over HTTP/2 (h2c)': (baseUrl, interceptors) => createConnectTransport({ baseUrl, httpVersion: '2', interceptors }),
  'gRPC (h2c)': (baseUrl, interceptors) => createGrpcTransport({ baseUrl, interceptors }),
  'gRPC-Web over HTTP/1.1': (baseUrl, interceptors) => createGrpcWebTransport({ baseUrl, httpVersion: '1.1', interceptors }),
};

/** A MonitorService client on the Connect protocol over HTTP/1.1; without a key when `secret` is undefined. */
function monitorClient(svc: TestService, secret: string | undefined, transport = 'Connect over HTTP/1.1'): MonitorClient {
  return createClient(MonitorService, transports[transport]!(`${svc.apiUrl}/rpc`, secret === undefined ? [] : [withHeaders({ 'x-service-key': secret })]));
}

/** Creates a workspace on `plan` through the owner's local tools and returns a write key of it. */
async function workspaceWithKey(svc: TestService, slug: string, plan: 'hobby' | 'starter' | 'pro' | 'scale' = 'scale') {
  await withLocalOwner(svc.dataDir, (services, owner) => services.workspaces.create(owner, { name: slug, slug, plan }));
  return svc.createKey('write', slug);
}

async function auditRows(svc: TestService, entityId: string) {
  const db = await openTestDatabase(svc.dataDir);
  try {
    return await db.selectFrom('audit_log').selectAll().where('entity_type', '=', 'monitor').where('entity_id', '=', entityId).orderBy('id').execute();
  } finally {
    await db.destroy();
  }
}

async function monitorAuditCount(svc: TestService): Promise<number> {
  const db = await openTestDatabase(svc.dataDir);
  try {
    const rows = await db.selectFrom('audit_log').select('id').where('entity_type', '=', 'monitor').execute();
    return rows.length;
  } finally {
    await db.destroy();
  }
}

const tcpInput = (name = 'postgres') => ({ name, uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M });
const grpcInput = (name = 'api') => ({
  name,
  uri: 'api.internal:50051',
  periodicity: Periodicity.PERIODICITY_5M,
  regions: ['iad', 'fra'],
  service: 'grpc.health.v1.Health',
  tls: TLSMode.TLS_MODE_PLAINTEXT,
  metadata: { authorization: 'Bearer abc' },
  degraded: { seconds: 2n },
  tags: ['core'],
});
const httpInput = (name = 'homepage') => ({
  name,
  url: 'https://example.test/health',
  method: HTTPMethod.HTTP_METHOD_POST,
  body: '{"ping":true}',
  headers: { 'content-type': 'application/json' },
  periodicity: Periodicity.PERIODICITY_10M,
  statusCodeAssertions: [{ comparator: NumberComparator.EQUAL, target: 200 }],
  bodyAssertions: [{ comparator: StringComparator.CONTAINS, target: 'ok' }],
});

function runBufCurl(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(BUF, ['curl', ...args], { cwd: REPO_ROOT, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`buf curl failed: ${error.message}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

// ---- the wire ------------------------------------------------------------------------------

describe('MonitorService on every protocol', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.stop());

  let workspaceNumber = 0;
  for (const [name, makeTransport] of Object.entries(transports)) {
    test(`${name}: create, list (split by type, newest first, paged), get, refuse with details, delete`, async () => {
      // A workspace of its own, so each protocol starts from an empty list.
      const key = await workspaceWithKey(svc, `wire-${++workspaceNumber}`);
      const client = createClient(MonitorService, makeTransport(`${svc.apiUrl}/rpc`, [withHeaders({ 'x-service-key': key.secret })]));

      const empty = await client.listMonitors({});
      assert.deepEqual([empty.httpMonitors, empty.tcpMonitors, empty.grpcMonitors, empty.totalSize], [[], [], [], 0]);

      const tcp = (await client.createTCPMonitor({ monitor: tcpInput() })).monitor!;
      const grpc = (await client.createGRPCMonitor({ monitor: grpcInput() })).monitor!;
      const http = (await client.createHTTPMonitor({ monitor: httpInput() })).monitor!;
      assert.ok(tcp.id && grpc.id && http.id);
      assert.equal(tcp.uri, 'db.internal:5432');
      assert.deepEqual(tcp.regions, SCALE_DEFAULT_REGIONS);
      assert.equal(grpc.service, 'grpc.health.v1.Health');
      assert.equal(grpc.tls, TLSMode.TLS_MODE_PLAINTEXT);
      assert.deepEqual(grpc.metadata, { authorization: '[redacted]' }, 'credential-like metadata comes back masked');
      assert.equal(http.method, HTTPMethod.HTTP_METHOD_POST);
      assert.equal(http.body, '{"ping":true}');
      assert.equal(http.statusCodeAssertions[0]?.target, 200);

      const all = await client.listMonitors({});
      assert.equal(all.totalSize, 3);
      assert.deepEqual(all.tcpMonitors, [tcp]);
      assert.deepEqual(all.grpcMonitors, [grpc]);
      assert.deepEqual(all.httpMonitors, [http]);

      // Newest first across types: http, then grpc, then tcp.
      const first = await client.listMonitors({ limit: 1 });
      assert.deepEqual([first.httpMonitors.map((m) => m.id), first.grpcMonitors.length, first.tcpMonitors.length, first.totalSize], [[http.id], 0, 0, 3]);
      const second = await client.listMonitors({ limit: 1, offset: 1 });
      assert.deepEqual([second.grpcMonitors.map((m) => m.id), second.httpMonitors.length, second.tcpMonitors.length], [[grpc.id], 0, 0]);
      const rest = await client.listMonitors({ limit: 5, offset: 1 });
      assert.deepEqual(
        [rest.grpcMonitors.map((m) => m.id), rest.tcpMonitors.map((m) => m.id), rest.httpMonitors.length, rest.totalSize],
        [[grpc.id], [tcp.id], 0, 3],
      );
      const past = await client.listMonitors({ offset: 3 });
      assert.deepEqual([past.httpMonitors, past.tcpMonitors, past.grpcMonitors, past.totalSize], [[], [], [], 3]);

      const gotTcp = await client.getMonitor({ id: tcp.id });
      assert.equal(gotTcp.monitor.case, 'tcpMonitor');
      assert.deepEqual(gotTcp.monitor.value, tcp);
      const gotGrpc = await client.getMonitor({ id: grpc.id });
      assert.equal(gotGrpc.monitor.case, 'grpcMonitor');
      assert.deepEqual(gotGrpc.monitor.value, grpc);
      const gotHttp = await client.getMonitor({ id: http.id });
      assert.equal(gotHttp.monitor.case, 'httpMonitor');
      assert.deepEqual(gotHttp.monitor.value, http);

      // Error details survive every protocol.
      await assertViolation(client.createTCPMonitor({ monitor: { ...tcpInput(), uri: 'db.internal' } }), 'monitor.uri', /port is required/);

      await client.deleteMonitor({ id: tcp.id });
      await assertCode(client.getMonitor({ id: tcp.id }), Code.NotFound, new RegExp(`monitor ${tcp.id} does not exist`));
      await assertCode(client.deleteMonitor({ id: tcp.id }), Code.NotFound);
      const after = await client.listMonitors({});
      assert.equal(after.totalSize, 2);
      assert.deepEqual(after.tcpMonitors, []);
    });
  }

  test('buf curl --schema proto with the gRPC protocol over h2c lists the created monitor', async () => {
    const key = await workspaceWithKey(svc, 'wire-buf');
    const created = (await monitorClient(svc, key.secret).createTCPMonitor({ monitor: tcpInput('seen by buf') })).monitor!;
    const common = ['--schema', 'proto', '--protocol', 'grpc', '--http2-prior-knowledge', '-H', `x-service-key: ${key.secret}`];

    const listed = await runBufCurl([...common, '-d', '{}', `${svc.apiUrl}/rpc/monitor.v1.MonitorService/ListMonitors`]);
    const list = JSON.parse(listed.stdout);
    assert.equal(list.totalSize, 1);
    assert.equal(list.tcpMonitors.length, 1);
    assert.equal(list.tcpMonitors[0].id, created.id);
    assert.equal(list.tcpMonitors[0].name, 'seen by buf');
    assert.equal(list.tcpMonitors[0].uri, 'db.internal:5432');
    assert.equal(list.tcpMonitors[0].periodicity, 'PERIODICITY_1M');
    assert.equal(list.tcpMonitors[0].timeout, '45s');

    const got = await runBufCurl([...common, '-d', JSON.stringify({ id: created.id }), `${svc.apiUrl}/rpc/monitor.v1.MonitorService/GetMonitor`]);
    assert.equal(JSON.parse(got.stdout).tcpMonitor.id, created.id);
  });
});

// ---- authentication and authorization ------------------------------------------------------

describe('MonitorService authentication and authorization', () => {
  let svc: TestService;
  let writer: MonitorClient;
  let reader: MonitorClient;
  let tcpId: string;
  let grpcId: string;
  let httpId: string;
  let otherClient: MonitorClient;
  let otherIds: { tcp: string; grpc: string; http: string };

  before(async () => {
    svc = await startTestService();
    writer = monitorClient(svc, (await svc.createKey('write')).secret);
    reader = monitorClient(svc, (await svc.createKey('read')).secret);
    tcpId = (await writer.createTCPMonitor({ monitor: tcpInput() })).monitor!.id;
    grpcId = (await writer.createGRPCMonitor({ monitor: grpcInput() })).monitor!.id;
    httpId = (await writer.createHTTPMonitor({ monitor: httpInput() })).monitor!.id;
    otherClient = monitorClient(svc, (await workspaceWithKey(svc, 'elsewhere')).secret);
    otherIds = {
      tcp: (await otherClient.createTCPMonitor({ monitor: tcpInput('theirs') })).monitor!.id,
      grpc: (await otherClient.createGRPCMonitor({ monitor: grpcInput('theirs') })).monitor!.id,
      http: (await otherClient.createHTTPMonitor({ monitor: httpInput('theirs') })).monitor!.id,
    };
  });
  after(() => svc.stop());

  test('a call without a key is unauthenticated and names the x-service-key header', async () => {
    const anonymous = monitorClient(svc, undefined);
    await assertCode(anonymous.listMonitors({}), Code.Unauthenticated, /x-service-key/);
    await assertCode(anonymous.getMonitor({ id: tcpId }), Code.Unauthenticated);
    await assertCode(anonymous.createTCPMonitor({ monitor: tcpInput() }), Code.Unauthenticated);
    // Also on gRPC, where the code travels in trailers.
    await assertCode(monitorClient(svc, undefined, 'gRPC (h2c)').listMonitors({}), Code.Unauthenticated);
  });

  test('an unknown key, a malformed key and a revoked key are unauthenticated', async () => {
    const unknown = `svc_${randomBytes(32).toString('base64url')}`;
    await assertCode(monitorClient(svc, unknown).listMonitors({}), Code.Unauthenticated, /unknown or revoked/);
    await assertCode(monitorClient(svc, 'not-a-key').listMonitors({}), Code.Unauthenticated);

    const key = await svc.createKey('write');
    const client = monitorClient(svc, key.secret);
    assert.equal((await client.listMonitors({})).totalSize, 3);
    await withLocalOwner(svc.dataDir, (services, owner) => services.keys.revoke(owner, key.id));
    await assertCode(client.listMonitors({}), Code.Unauthenticated, /unknown or revoked/);
    await assertCode(client.createTCPMonitor({ monitor: tcpInput('after revoke') }), Code.Unauthenticated);
    assert.equal((await writer.listMonitors({})).totalSize, 3);
  });

  test('a read key can list, get, and read status and summary', async () => {
    const page = await reader.listMonitors({});
    assert.equal(page.totalSize, 3);
    assert.equal((await reader.getMonitor({ id: tcpId })).monitor.case, 'tcpMonitor');
    assert.equal((await reader.getMonitor({ id: grpcId })).monitor.case, 'grpcMonitor');
    assert.equal((await reader.getMonitor({ id: httpId })).monitor.case, 'httpMonitor');
    assert.equal((await reader.getMonitorStatus({ id: tcpId })).regions.length, SCALE_DEFAULT_REGIONS.length);
    assert.equal((await reader.getMonitorSummary({ id: tcpId })).window, SummaryWindow.SUMMARY_WINDOW_1D);
  });

  test('a read key is refused every mutation with permission_denied, and nothing is stored', async () => {
    const before = await writer.listMonitors({});
    const auditBefore = await monitorAuditCount(svc);
    const readOnly = /read-only/;
    await assertCode(reader.createTCPMonitor({ monitor: tcpInput('by reader') }), Code.PermissionDenied, readOnly);
    await assertCode(reader.createGRPCMonitor({ monitor: grpcInput('by reader') }), Code.PermissionDenied, readOnly);
    await assertCode(reader.createHTTPMonitor({ monitor: httpInput('by reader') }), Code.PermissionDenied, readOnly);
    await assertCode(reader.updateTCPMonitor({ id: tcpId, monitor: { name: 'by reader' } }), Code.PermissionDenied, readOnly);
    await assertCode(reader.updateGRPCMonitor({ id: grpcId, monitor: { name: 'by reader' } }), Code.PermissionDenied, readOnly);
    await assertCode(reader.updateHTTPMonitor({ id: httpId, monitor: { name: 'by reader' } }), Code.PermissionDenied, readOnly);
    await assertCode(reader.deleteMonitor({ id: tcpId }), Code.PermissionDenied, readOnly);
    await assertCode(reader.triggerMonitor({ id: tcpId }), Code.PermissionDenied, readOnly);
    assert.deepEqual(await writer.listMonitors({}), before);
    assert.equal(await monitorAuditCount(svc), auditBefore);
  });

  test('a monitor id of another workspace is not_found on get, update and delete, like an unknown id, and stays unchanged', async () => {
    const theirs = await Promise.all([otherIds.tcp, otherIds.grpc, otherIds.http].map((id) => otherClient.getMonitor({ id })));
    const unknown = await assertCode(writer.getMonitor({ id: '999999' }), Code.NotFound);
    const sameShape = (error: ConnectError, id: string) => assert.equal(error.rawMessage.replace(id, 'ID'), unknown.rawMessage.replace('999999', 'ID'));

    for (const id of [otherIds.tcp, otherIds.grpc, otherIds.http]) {
      sameShape(await assertCode(writer.getMonitor({ id }), Code.NotFound), id);
      sameShape(await assertCode(writer.deleteMonitor({ id }), Code.NotFound), id);
      await assertCode(writer.getMonitorStatus({ id }), Code.NotFound);
      await assertCode(writer.getMonitorSummary({ id }), Code.NotFound);
      await assertCode(writer.triggerMonitor({ id }), Code.NotFound);
      await assertCode(reader.getMonitor({ id }), Code.NotFound);
    }
    sameShape(await assertCode(writer.updateTCPMonitor({ id: otherIds.tcp, monitor: { name: 'hijacked' } }), Code.NotFound), otherIds.tcp);
    sameShape(await assertCode(writer.updateGRPCMonitor({ id: otherIds.grpc, monitor: { name: 'hijacked' } }), Code.NotFound), otherIds.grpc);
    sameShape(await assertCode(writer.updateHTTPMonitor({ id: otherIds.http, monitor: { name: 'hijacked' } }), Code.NotFound), otherIds.http);
    // The wrong update method on a foreign id is still not_found, not a type mismatch that would confirm it exists.
    await assertCode(writer.updateGRPCMonitor({ id: otherIds.tcp, monitor: { name: 'hijacked' } }), Code.NotFound);

    const afterwards = await Promise.all([otherIds.tcp, otherIds.grpc, otherIds.http].map((id) => otherClient.getMonitor({ id })));
    assert.deepEqual(afterwards, theirs);
    assert.equal((await otherClient.listMonitors({})).totalSize, 3);
    assert.equal((await auditRows(svc, otherIds.tcp)).length, 1, 'only the create of the other workspace is audited');
  });

  test('a malformed monitor id is invalid_argument naming id', async () => {
    await assertViolation(writer.getMonitor({ id: 'abc' }), 'id', /positive whole number/);
    await assertViolation(writer.getMonitor({ id: '' }), 'id', /positive whole number/);
    await assertViolation(writer.deleteMonitor({ id: '-1' }), 'id', /positive whole number/);
  });

  test('ListMonitors refuses a limit outside 1 to 100 and a negative offset', async () => {
    await assertViolation(writer.listMonitors({ limit: 0 }), 'limit', /1 to 100/);
    await assertViolation(writer.listMonitors({ limit: 101 }), 'limit', /1 to 100/);
    await assertViolation(writer.listMonitors({ offset: -1 }), 'offset', /negative/);
  });
});

// ---- audit ---------------------------------------------------------------------------------

describe('MonitorService audit log', () => {
  let svc: TestService;
  let key: { id: string; secret: string };
  let client: MonitorClient;
  before(async () => {
    svc = await startTestService();
    key = await svc.createKey('write');
    client = monitorClient(svc, key.secret);
  });
  after(() => svc.stop());

  test('create, update and delete of a TCP monitor each write one entry with actor, snapshots and changed fields', async () => {
    const created = (await client.createTCPMonitor({ monitor: tcpInput('audited') })).monitor!;
    let rows = await auditRows(svc, created.id);
    assert.equal(rows.length, 1);
    const create = rows[0]!;
    assert.equal(create.entity_type, 'monitor');
    assert.equal(create.action, 'monitor.create');
    assert.equal(create.actor_type, 'apiKey');
    assert.equal(create.actor_id, key.id);
    assert.equal(create.before, null);
    const createdSnapshot = JSON.parse(create.after!);
    assert.equal(createdSnapshot.id, created.id);
    assert.equal(createdSnapshot.type, 'tcp');
    assert.equal(createdSnapshot.name, 'audited');
    assert.equal(createdSnapshot.uri, 'db.internal:5432');
    assert.deepEqual(createdSnapshot.regions, SCALE_DEFAULT_REGIONS);
    const createdFields: string[] = JSON.parse(create.changed_fields);
    for (const field of ['name', 'uri', 'periodicity', 'regions']) assert.ok(createdFields.includes(field), `${field} in ${createdFields}`);

    await client.updateTCPMonitor({ id: created.id, monitor: { name: 'renamed', retry: 5 } });
    rows = await auditRows(svc, created.id);
    assert.equal(rows.length, 2);
    const update = rows[1]!;
    assert.equal(update.action, 'monitor.update');
    assert.equal(update.actor_type, 'apiKey');
    assert.equal(update.actor_id, key.id);
    assert.deepEqual(JSON.parse(update.changed_fields), ['name', 'retry']);
    const [before, after] = [JSON.parse(update.before!), JSON.parse(update.after!)];
    assert.deepEqual([before.name, before.retry], ['audited', 3]);
    assert.deepEqual([after.name, after.retry], ['renamed', 5]);
    assert.equal(after.uri, 'db.internal:5432');

    await client.deleteMonitor({ id: created.id });
    rows = await auditRows(svc, created.id);
    assert.equal(rows.length, 3);
    const deletion = rows[2]!;
    assert.equal(deletion.action, 'monitor.delete');
    assert.equal(deletion.actor_id, key.id);
    assert.equal(JSON.parse(deletion.before!).name, 'renamed');
    assert.equal(deletion.after, null);
  });

  test('gRPC and HTTP monitors are audited on create, update and delete too', async () => {
    const grpc = (await client.createGRPCMonitor({ monitor: grpcInput() })).monitor!;
    await client.updateGRPCMonitor({ id: grpc.id, monitor: { service: 'my.pkg.Other' } });
    await client.deleteMonitor({ id: grpc.id });
    const http = (await client.createHTTPMonitor({ monitor: httpInput() })).monitor!;
    await client.updateHTTPMonitor({ id: http.id, monitor: { followRedirects: false } });
    await client.deleteMonitor({ id: http.id });

    const grpcRows = await auditRows(svc, grpc.id);
    assert.deepEqual(
      grpcRows.map((r) => r.action),
      ['monitor.create', 'monitor.update', 'monitor.delete'],
    );
    assert.deepEqual(JSON.parse(grpcRows[1]!.changed_fields), ['service']);
    const httpRows = await auditRows(svc, http.id);
    assert.deepEqual(
      httpRows.map((r) => r.action),
      ['monitor.create', 'monitor.update', 'monitor.delete'],
    );
    assert.deepEqual(JSON.parse(httpRows[1]!.changed_fields), ['followRedirects']);
    for (const row of [...grpcRows, ...httpRows]) {
      assert.deepEqual([row.entity_type, row.actor_type, row.actor_id], ['monitor', 'apiKey', key.id]);
    }
  });

  test('an update that changes nothing succeeds and writes no audit entry', async () => {
    const created = (await client.createTCPMonitor({ monitor: tcpInput('steady') })).monitor!;
    await client.updateTCPMonitor({ id: created.id, monitor: { name: 'steady', uri: 'db.internal:5432' } });
    // Clearing a field that is already clear changes nothing either.
    await client.updateTCPMonitor({ id: created.id, updateMask: { paths: ['degraded', 'tags'] } });
    const rows = await auditRows(svc, created.id);
    assert.deepEqual(
      rows.map((r) => r.action),
      ['monitor.create'],
    );
  });

  test('refused mutations write no audit entry', async () => {
    const created = (await client.createTCPMonitor({ monitor: tcpInput('guarded') })).monitor!;
    const count = await monitorAuditCount(svc);
    await assertCode(client.createTCPMonitor({ monitor: { ...tcpInput(), uri: 'tcp://x:1' } }), Code.InvalidArgument);
    await assertCode(client.updateTCPMonitor({ id: created.id, monitor: { uri: 'nope' } }), Code.InvalidArgument);
    await assertCode(client.updateGRPCMonitor({ id: created.id, monitor: { name: 'wrong type' } }), Code.InvalidArgument);
    await assertCode(client.deleteMonitor({ id: '999999' }), Code.NotFound);
    assert.equal(await monitorAuditCount(svc), count);
  });
});

// ---- status, summary, trigger --------------------------------------------------------------

describe('MonitorService status and summary before any check', () => {
  let svc: TestService;
  let client: MonitorClient;
  let tcpId: string;
  let grpcId: string;
  before(async () => {
    svc = await startTestService();
    client = monitorClient(svc, (await svc.createKey('write')).secret);
    tcpId = (await client.createTCPMonitor({ monitor: tcpInput() })).monitor!.id;
    grpcId = (await client.createGRPCMonitor({ monitor: { ...grpcInput(), regions: ['jnb', 'iad', 'nrt'] } })).monitor!.id;
  });
  after(() => svc.stop());

  test('status lists each configured region, in order, unspecified and never checked', async () => {
    const tcp = await client.getMonitorStatus({ id: tcpId });
    assert.deepEqual(
      tcp.regions.map((r) => r.region),
      SCALE_DEFAULT_REGIONS,
    );
    const grpc = await client.getMonitorStatus({ id: grpcId });
    assert.deepEqual(
      grpc.regions.map((r) => r.region),
      ['jnb', 'iad', 'nrt'],
    );
    for (const region of [...tcp.regions, ...grpc.regions]) {
      assert.equal(region.status, MonitorStatus.UNSPECIFIED);
      assert.equal(region.lastCheckedAt, undefined);
    }
  });

  test('summary has zero counts, no latency and no last ping; the window defaults to 1D and echoes 7D and 14D', async () => {
    const defaulted = await client.getMonitorSummary({ id: tcpId });
    assert.equal(defaulted.window, SummaryWindow.SUMMARY_WINDOW_1D);
    for (const window of [SummaryWindow.SUMMARY_WINDOW_1D, SummaryWindow.SUMMARY_WINDOW_7D, SummaryWindow.SUMMARY_WINDOW_14D]) {
      const summary = await client.getMonitorSummary({ id: grpcId, window });
      assert.equal(summary.window, window);
    }
    for (const summary of [defaulted, await client.getMonitorSummary({ id: grpcId, window: SummaryWindow.SUMMARY_WINDOW_14D })]) {
      assert.deepEqual([summary.successCount, summary.degradedCount, summary.errorCount], [0n, 0n, 0n]);
      assert.equal(summary.latency, undefined);
      assert.equal(summary.lastPingAt, undefined);
    }
  });

  test('a summary window the schema does not define is refused, not read as 1D', async () => {
    await assertCode(client.getMonitorSummary({ id: tcpId, window: 99 as SummaryWindow }), Code.InvalidArgument, /window: must be one of 1d, 7d, 14d/);
  });

  test('status and summary stay empty while nothing is checked: no result is invented', async () => {
    await assertCode(client.triggerMonitor({ id: '999999' }), Code.NotFound);
    const status = await client.getMonitorStatus({ id: tcpId });
    assert.ok(status.regions.every((r) => r.status === MonitorStatus.UNSPECIFIED && r.lastCheckedAt === undefined));
    assert.equal(status.overall, MonitorStatus.UNSPECIFIED);
    const summary = await client.getMonitorSummary({ id: tcpId });
    assert.deepEqual([summary.successCount, summary.degradedCount, summary.errorCount, summary.latency], [0n, 0n, 0n, undefined]);
  });

  test('status and summary of an unknown monitor are not_found', async () => {
    await assertCode(client.getMonitorStatus({ id: '999999' }), Code.NotFound);
    await assertCode(client.getMonitorSummary({ id: '999999' }), Code.NotFound);
  });
});

// ---- checks through the API ----------------------------------------------------------------

describe('MonitorService runs real checks against loopback peers', () => {
  let svc: TestService;
  let client: MonitorClient;
  let listener: Server;
  let web: HttpServer;
  let closedPort: number;
  before(async () => {
    svc = await startTestService();
    client = monitorClient(svc, (await svc.createKey('write')).secret);
    listener = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    web = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': 'session=s3cret' }).end('all ok'));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
  });
  after(async () => {
    listener.close();
    web.close();
    await svc.stop();
  });

  test('TriggerMonitor checks a TCP target now and answers once per region, from the local runner', async () => {
    const port = (listener.address() as AddressInfo).port;
    const { id } = (await client.createTCPMonitor({ monitor: { ...tcpInput(), uri: `127.0.0.1:${port}`, regions: ['iad', 'fra'] } })).monitor!;
    const { results } = await client.triggerMonitor({ id });
    assert.deepEqual(
      results.map((r) => r.region),
      ['iad', 'fra'],
    );
    for (const r of results) {
      assert.equal(r.monitorId, id);
      assert.equal(r.runner, 'local');
      assert.equal(r.result, 'up');
      assert.equal(r.attempts, 1);
      assert.equal(r.timing!.dns, undefined, 'a literal IP has no DNS phase');
      assert.ok(r.timing!.connect! >= 0 && r.timing!.total! >= r.timing!.connect!);
      assert.ok(r.startedAt);
    }
    const status = await client.getMonitorStatus({ id });
    assert.equal(status.overall, MonitorStatus.ACTIVE);
    assert.deepEqual(
      status.regions.map((r) => [r.region, r.status]),
      [
        ['iad', MonitorStatus.ACTIVE],
        ['fra', MonitorStatus.ACTIVE],
      ],
    );
    const summary = await client.getMonitorSummary({ id });
    assert.deepEqual([summary.successCount, summary.degradedCount, summary.errorCount], [1n, 0n, 0n]);
    assert.ok(summary.latency && summary.latency.p50 > 0 && summary.latency.p99 >= summary.latency.p50);
    assert.ok(summary.lastPingAt);
  });

  test('a refused target is down with "connection refused" after its retries, and the status says error', async () => {
    const { id } = (await client.createTCPMonitor({ monitor: { ...tcpInput('closed'), uri: `127.0.0.1:${closedPort}`, regions: ['iad'], retry: 1 } })).monitor!;
    const [result] = (await client.triggerMonitor({ id })).results;
    assert.equal(result!.result, 'down');
    assert.equal(result!.message, 'connection refused');
    assert.equal(result!.attempts, 2);
    const status = await client.getMonitorStatus({ id });
    assert.equal(status.overall, MonitorStatus.ERROR);
    const summary = await client.getMonitorSummary({ id });
    assert.deepEqual([summary.successCount, summary.errorCount, summary.latency], [0n, 1n, undefined]);
  });

  test("ListResponseLogs returns an HTTP monitor's results newest first, with status code, URL and redacted headers", async () => {
    const url = `http://127.0.0.1:${(web.address() as AddressInfo).port}/health`;
    const { id } = (await client.createHTTPMonitor({ monitor: { ...httpInput(), url, method: HTTPMethod.HTTP_METHOD_GET, body: '', regions: ['iad'] } }))
      .monitor!;
    await client.triggerMonitor({ id });
    await client.triggerMonitor({ id });
    const { results } = await client.listResponseLogs({ id });
    assert.equal(results.length, 2);
    assert.ok(results[0]!.startedAt!.seconds >= results[1]!.startedAt!.seconds);
    for (const r of results) {
      assert.equal(r.statusCode, 200);
      assert.equal(r.url, url);
      assert.equal(r.result, 'up');
      assert.equal(r.responseHeaders['set-cookie'], '[redacted]');
      assert.equal(r.responseHeaders['content-type'], 'text/plain');
      assert.deepEqual(
        r.assertionResults.map((a) => [a.assertion, a.passed]),
        [
          ['status code equal 200', true],
          ['body contains "ok"', true],
        ],
      );
    }
    assert.equal((await client.listResponseLogs({ id, limit: 1, offset: 1 })).results.length, 1);
  });

  test('ListResponseLogs refuses a TCP monitor and a limit above 100', async () => {
    const { id } = (await client.createTCPMonitor({ monitor: { ...tcpInput('not-http'), uri: `127.0.0.1:${closedPort}` } })).monitor!;
    await assertViolation(client.listResponseLogs({ id }), 'id', /for HTTP monitors only/);
    const http = (await client.createHTTPMonitor({ monitor: { ...httpInput('limits'), regions: ['iad'] } })).monitor!;
    await assertViolation(client.listResponseLogs({ id: http.id, limit: 101 }), 'limit', /must be 1 to 100/);
  });
});

// ---- partial updates -----------------------------------------------------------------------

describe('MonitorService partial updates', () => {
  let svc: TestService;
  let client: MonitorClient;
  let secret: string;
  before(async () => {
    svc = await startTestService();
    secret = (await svc.createKey('write')).secret;
    client = monitorClient(svc, secret);
  });
  after(() => svc.stop());

  const get = async (id: string) => (await client.getMonitor({ id })).monitor.value!;

  test('without update_mask only the given fields change: a new name keeps regions, metadata, degraded and the rest', async () => {
    const created = (await client.createGRPCMonitor({ monitor: grpcInput('before') })).monitor!;
    const updated = (await client.updateGRPCMonitor({ id: created.id, monitor: { name: 'after' } })).monitor!;
    assert.equal(updated.name, 'after');
    const { name: _n1, updatedAt: _u1, ...restBefore } = created;
    const { name: _n2, updatedAt: _u2, ...restAfter } = updated;
    assert.deepEqual(restAfter, restBefore);
    assert.deepEqual(updated.regions, ['iad', 'fra']);
    assert.deepEqual(updated.metadata, { authorization: '[redacted]' });
    assert.deepEqual(updated.degraded?.seconds, 2n);
    assert.deepEqual(updated.createdAt, created.createdAt);
    assert.deepEqual(await get(created.id), updated);
  });

  test('without update_mask explicit false and zero are applied (active, retry, followRedirects)', async () => {
    const tcp = (await client.createTCPMonitor({ monitor: tcpInput() })).monitor!;
    const changed = (await client.updateTCPMonitor({ id: tcp.id, monitor: { active: false, retry: 0 } })).monitor!;
    assert.deepEqual([changed.active, changed.retry, changed.name], [false, 0, tcp.name]);
    const http = (await client.createHTTPMonitor({ monitor: httpInput() })).monitor!;
    assert.equal(http.followRedirects, true);
    const noRedirects = (await client.updateHTTPMonitor({ id: http.id, monitor: { followRedirects: false } })).monitor!;
    assert.deepEqual([noRedirects.followRedirects, noRedirects.body, noRedirects.method], [false, http.body, http.method]);
  });

  test('update_mask naming degraded with no value clears degraded and nothing else', async () => {
    const created = (await client.createGRPCMonitor({ monitor: grpcInput() })).monitor!;
    assert.equal(created.degraded?.seconds, 2n);
    const updated = (await client.updateGRPCMonitor({ id: created.id, updateMask: { paths: ['degraded'] } })).monitor!;
    assert.equal(updated.degraded, undefined);
    const { degraded: _d1, updatedAt: _u1, ...restBefore } = created;
    const { degraded: _d2, updatedAt: _u2, ...restAfter } = updated;
    assert.deepEqual(restAfter, restBefore);
    assert.equal((await get(created.id)).degraded, undefined);
  });

  test('update_mask sets the named fields from the request and ignores unnamed ones', async () => {
    const created = (await client.createTCPMonitor({ monitor: { ...tcpInput(), tags: ['a', 'b'] } })).monitor!;
    const updated = (await client.updateTCPMonitor({ id: created.id, monitor: { name: 'not applied', tags: ['c'] }, updateMask: { paths: ['tags'] } }))
      .monitor!;
    assert.deepEqual(updated.tags, ['c']);
    assert.equal(updated.name, created.name);
    const emptied = (await client.updateTCPMonitor({ id: created.id, updateMask: { paths: ['tags'] } })).monitor!;
    assert.deepEqual(emptied.tags, []);
  });

  test('update_mask naming regions with no value returns a TCP monitor to the plan default regions', async () => {
    const created = (await client.createTCPMonitor({ monitor: { ...tcpInput(), regions: ['jnb'] } })).monitor!;
    assert.deepEqual(created.regions, ['jnb']);
    const updated = (await client.updateTCPMonitor({ id: created.id, updateMask: { paths: ['regions'] } })).monitor!;
    assert.deepEqual(updated.regions, SCALE_DEFAULT_REGIONS);
    assert.equal(updated.uri, created.uri);
  });

  test('update_mask naming regions with no value returns an HTTP monitor to the plan default regions', async () => {
    const created = (await client.createHTTPMonitor({ monitor: { ...httpInput(), regions: ['lhr', 'cdg'] } })).monitor!;
    const updated = (await client.updateHTTPMonitor({ id: created.id, updateMask: { paths: ['regions'] } })).monitor!;
    assert.deepEqual(updated.regions, SCALE_DEFAULT_REGIONS);
  });

  test('required fields (name, uri, periodicity) cannot be cleared through update_mask', async () => {
    const created = (await client.createTCPMonitor({ monitor: tcpInput() })).monitor!;
    for (const field of ['name', 'uri', 'periodicity']) {
      await assertViolation(client.updateTCPMonitor({ id: created.id, updateMask: { paths: [field] } }), `monitor.${field}`, /is required/);
    }
    assert.deepEqual(await get(created.id), created);
  });

  test('update_mask in Connect JSON is a comma-separated string of field names', async () => {
    const created = (await client.createTCPMonitor({ monitor: { ...tcpInput(), tags: ['x'], degraded: { seconds: 3n } } })).monitor!;
    const response = await fetch(`${svc.apiUrl}/rpc/monitor.v1.MonitorService/UpdateTCPMonitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-key': secret },
      body: JSON.stringify({ id: created.id, monitor: { retry: 7 }, updateMask: 'degraded,tags,retry' }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    const { monitor } = await json(response);
    assert.equal(monitor.degraded, undefined);
    assert.equal(monitor.tags, undefined);
    assert.equal(monitor.retry, 7);
    assert.equal(monitor.name, created.name);
  });

  test('update_mask naming regions with no value is refused on a gRPC monitor without private locations, where regions are required', async () => {
    const created = (await client.createGRPCMonitor({ monitor: grpcInput() })).monitor!;
    await assertViolation(client.updateGRPCMonitor({ id: created.id, updateMask: { paths: ['regions'] } }), 'monitor.regions', /required/);
    assert.deepEqual(await get(created.id), created);
  });

  test('an unknown update_mask path is invalid_argument naming update_mask and the path', async () => {
    const created = (await client.createTCPMonitor({ monitor: tcpInput() })).monitor!;
    await assertViolation(client.updateTCPMonitor({ id: created.id, updateMask: { paths: ['no_such_field'] } }), 'update_mask', /"no_such_field"/);
    await assertViolation(client.updateTCPMonitor({ id: created.id, updateMask: { paths: ['id'] } }), 'update_mask', /"id" is not a field that can be changed/);
    // A gRPC-only field is not a field of a TCP monitor.
    await assertViolation(client.updateTCPMonitor({ id: created.id, updateMask: { paths: ['service'] } }), 'update_mask', /"service"/);
    assert.deepEqual(await get(created.id), created);
  });

  test('an update request that sets nothing is invalid_argument', async () => {
    const created = (await client.createHTTPMonitor({ monitor: httpInput() })).monitor!;
    await assertViolation(client.updateHTTPMonitor({ id: created.id }), 'monitor', /at least one field/);
    await assertViolation(client.updateHTTPMonitor({ id: created.id, monitor: {}, updateMask: { paths: [] } }), 'monitor', /at least one field/);
    assert.deepEqual(await get(created.id), created);
  });

  test('updating a monitor through the update call of another type is invalid_argument on id', async () => {
    const tcp = (await client.createTCPMonitor({ monitor: tcpInput() })).monitor!;
    await assertViolation(client.updateGRPCMonitor({ id: tcp.id, monitor: { name: 'x' } }), 'id', /is a tcp monitor, not a grpc monitor/);
    await assertViolation(client.updateHTTPMonitor({ id: tcp.id, monitor: { name: 'x' } }), 'id', /is a tcp monitor, not a http monitor/);
    assert.deepEqual(await get(tcp.id), tcp);
  });

  test('updating an unknown id is not_found', async () => {
    await assertCode(client.updateTCPMonitor({ id: '999999', monitor: { name: 'x' } }), Code.NotFound);
  });
});

// ---- the client library --------------------------------------------------------------------

describe('statusdesk/client', () => {
  let svc: TestService;
  let secret: string;
  let rpcUrl: string;
  // A loopback address where nothing answers RPCs.
  const deadUrl = 'http://127.0.0.1:9/rpc';
  before(async () => {
    svc = await startTestService();
    secret = (await svc.createKey('write')).secret;
    rpcUrl = `${svc.apiUrl}/rpc`;
  });
  after(() => svc.stop());

  test('createClient with an explicit baseUrl and apiKey creates, gets and lists monitors', async () => {
    const client = createStatusdeskClient({ baseUrl: `${rpcUrl}/`, apiKey: secret, env: {} });
    assert.equal(client.baseUrl, rpcUrl);
    const created = (await client.monitors.createTCPMonitor({ monitor: { name: 'from client', uri: 'db:5432', periodicity: Periodicity.PERIODICITY_1M } }))
      .monitor!;
    const got = await client.monitors.getMonitor({ id: created.id });
    assert.equal(got.monitor.case, 'tcpMonitor');
    assert.equal(got.monitor.value?.name, 'from client');
    assert.ok((await client.monitors.listMonitors({})).tcpMonitors.some((m) => m.id === created.id));
  });

  test('createClient reads SERVICE_API_KEY and SERVICE_API_URL from env', async () => {
    const client = createStatusdeskClient({ env: { SERVICE_API_KEY: secret, SERVICE_API_URL: rpcUrl } });
    assert.equal(client.baseUrl, rpcUrl);
    assert.equal(typeof (await client.monitors.listMonitors({})).totalSize, 'number');
  });

  test('an explicit baseUrl wins over SERVICE_API_URL and an explicit apiKey over SERVICE_API_KEY', async () => {
    const client = createStatusdeskClient({
      baseUrl: rpcUrl,
      apiKey: secret,
      env: { SERVICE_API_URL: deadUrl, SERVICE_API_KEY: `svc_${randomBytes(32).toString('base64url')}` },
    });
    assert.equal(client.baseUrl, rpcUrl);
    await client.monitors.listMonitors({});
  });

  test('without an address the client targets http://localhost:3000/rpc', () => {
    const client = createStatusdeskClient({ apiKey: secret, env: {} });
    assert.equal(client.baseUrl, 'http://localhost:3000/rpc');
    assert.equal(DEFAULT_API_URL, 'http://localhost:3000/rpc');
  });

  test('without a key createClient throws MissingApiKeyError saying how to provide one', () => {
    assert.throws(
      () => createStatusdeskClient({ baseUrl: rpcUrl, env: {} }),
      (error: unknown) => {
        assert.ok(error instanceof MissingApiKeyError);
        assert.equal(error.name, 'MissingApiKeyError');
        assert.match(error.message, /SERVICE_API_KEY/);
        assert.match(error.message, /apiKey/);
        return true;
      },
    );
    assert.throws(() => createStatusdeskClient({ env: { SERVICE_API_URL: rpcUrl, SERVICE_API_KEY: '' } }), MissingApiKeyError);
  });

  test('the client surfaces service errors as ConnectError codes', async () => {
    const client = createStatusdeskClient({ baseUrl: rpcUrl, apiKey: secret, env: {} });
    await assertCode(client.monitors.getMonitor({ id: '999999' }), Code.NotFound);
    const bogus = createStatusdeskClient({ baseUrl: rpcUrl, apiKey: `svc_${randomBytes(32).toString('base64url')}`, env: {} });
    await assertCode(bogus.monitors.listMonitors({}), Code.Unauthenticated);
  });

  test('the module exports the generated enums and schemas, ConnectError and Code', async () => {
    assert.equal(ClientPeriodicity.PERIODICITY_30M, Periodicity.PERIODICITY_30M);
    assert.equal(ClientTCPMonitorSchema.typeName, 'monitor.v1.TCPMonitor');
    const client = createStatusdeskClient({ baseUrl: rpcUrl, apiKey: secret, env: {} });
    const created = (await client.monitors.createTCPMonitor({ monitor: { name: 'enum', uri: 'db:1', periodicity: ClientPeriodicity.PERIODICITY_30M } }))
      .monitor!;
    assert.equal(created.periodicity, ClientPeriodicity.PERIODICITY_30M);
    const error = await client.monitors.getMonitor({ id: '999999' }).then(
      () => assert.fail('expected not_found'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ClientConnectError);
    assert.equal(error.code, ClientCode.NotFound);
  });

  for (const protocol of ['grpc', 'grpc-web'] as const) {
    test(`protocol '${protocol}' creates and reads monitors, with error details`, async () => {
      const client = createStatusdeskClient({ baseUrl: rpcUrl, apiKey: secret, protocol, env: {} });
      const created = (
        await client.monitors.createGRPCMonitor({
          monitor: { name: `via ${protocol}`, uri: '[::1]:50051', periodicity: Periodicity.PERIODICITY_5M, regions: ['iad'] },
        })
      ).monitor!;
      const got = await client.monitors.getMonitor({ id: created.id });
      assert.equal(got.monitor.case, 'grpcMonitor');
      assert.equal(got.monitor.value?.uri, '[::1]:50051');
      await assertViolation(
        client.monitors.createGRPCMonitor({ monitor: { name: 'x', uri: 'grpc://a:1', periodicity: Periodicity.PERIODICITY_5M, regions: ['iad'] } }),
        'monitor.uri',
        /drop "grpc:\/\/"/,
      );
    });
  }
});
