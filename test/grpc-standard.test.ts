/**
 * gRPC at the standard `/package.Service/Method` paths, called the way grpcurl and generated stubs
 * call it: a plain grpc-js client built from the `.proto` files, with no path prefix. Connect and
 * gRPC-Web stay under `/rpc` only.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { findTrailerError } from '@connectrpc/connect/protocol-grpc';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { BadRequestSchema } from '../proto/gen/google/rpc/error_details_pb.js';
import { encodeGrpcMessage } from '../server/rpc/routes.ts';
import { bearer, connectClient, type OAuthTestService, type Receiver, startOAuthService, startReceiver } from './support/oauth-peers.ts';
import { startTestService, type TestService } from './support/harness.ts';

const PROTO_DIR = fileURLToPath(new URL('../proto', import.meta.url));
const PROTO_FILES = [
  'monitor/v1/monitor.proto',
  'status_page/v1/status_page.proto',
  'status_report/v1/status_report.proto',
  'maintenance/v1/maintenance.proto',
  'notification/v1/notification.proto',
];

/** The service constructors, as `grpc.loadPackageDefinition` makes them from the schemas. */
const definitions = grpc.loadPackageDefinition(
  protoLoader.loadSync(PROTO_FILES, { includeDirs: [PROTO_DIR], longs: String, enums: String, defaults: true, oneofs: true }),
) as any;
const STUBS: Record<string, grpc.ServiceClientConstructor> = {
  monitors: definitions.monitor.v1.MonitorService,
  pages: definitions.status_page.v1.StatusPageService,
  reports: definitions.status_report.v1.StatusReportService,
  maintenances: definitions.maintenance.v1.MaintenanceService,
  notifications: definitions.notification.v1.NotificationService,
};

type Stub = grpc.Client & Record<string, (...args: any[]) => grpc.ClientUnaryCall>;

const openClients: grpc.Client[] = [];

/** A stub of `service` on the API port: the address only, as any gRPC client is configured. */
function stub(svc: { apiUrl: string }, service: keyof typeof STUBS): Stub {
  const client = new STUBS[service]!(`127.0.0.1:${new URL(svc.apiUrl).port}`, grpc.credentials.createInsecure()) as unknown as Stub;
  openClients.push(client);
  return client;
}

function metadata(headers: Record<string, string> = {}): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const [name, value] of Object.entries(headers)) md.set(name, value);
  return md;
}

const withKey = (secret: string) => metadata({ 'x-service-key': secret });

/** One unary call through the stub; resolves with the response. */
function call(client: Stub, method: string, request: object, md = new grpc.Metadata()): Promise<any> {
  return new Promise((resolve, reject) => {
    client[method]!(request, md, { deadline: Date.now() + 15_000 }, (error: grpc.ServiceError | null, response: unknown) =>
      error ? reject(error) : resolve(response),
    );
  });
}

/** The ServiceError a call fails with, checked for its code; fails the test if the call succeeds. */
async function failure(pending: Promise<unknown>, code: grpc.status): Promise<grpc.ServiceError> {
  const error = await pending.then(
    () => assert.fail(`expected ${grpc.status[code]}, but the call succeeded`),
    (e: grpc.ServiceError) => e,
  );
  assert.equal(error.code, code, `expected ${grpc.status[code]}, got ${grpc.status[error.code]}: ${error.details}`);
  return error;
}

/** `details` is the server's sentence as it was written: nothing left percent-encoded. */
function assertReadable(error: grpc.ServiceError, sentence: RegExp) {
  assert.doesNotMatch(error.details, /%[0-9A-Fa-f]{2}/, `details still percent-encoded: ${error.details}`);
  assert.match(error.details, sentence);
}

after(() => {
  for (const client of openClients) client.close();
});

describe('gRPC at the standard paths, with a grpc-js client from the .proto files', { timeout: 120_000 }, () => {
  let svc: TestService;
  let writeKey: string;
  let readKey: string;

  before(async () => {
    svc = await startTestService();
    writeKey = (await svc.createKey('write')).secret;
    readKey = (await svc.createKey('read')).secret;
  });
  after(async () => {
    await svc.stop();
  });

  test('ListMonitors with a key answers, and lists what CreateTCPMonitor made', async () => {
    const monitors = stub(svc, 'monitors');
    const created = await call(
      monitors,
      'CreateTCPMonitor',
      { monitor: { name: 'grpc-db', uri: 'db.internal:5432', periodicity: 'PERIODICITY_1M' } },
      withKey(writeKey),
    );
    assert.match(created.monitor.id, /^\d+$/);
    const listed = await call(monitors, 'ListMonitors', {}, withKey(readKey));
    assert.ok(
      listed.tcpMonitors.some((m: any) => m.id === created.monitor.id && m.name === 'grpc-db' && m.uri === 'db.internal:5432'),
      JSON.stringify(listed.tcpMonitors),
    );
    // Every type's list counts toward the total, whatever other tests of this service made.
    const lists = Object.entries(listed).filter(([name]) => name.endsWith('Monitors')) as [string, unknown[]][];
    assert.equal(
      Number(listed.totalSize),
      lists.reduce((sum, [, list]) => sum + list.length, 0),
    );
  });

  test('the newer types through a plain stub: a DNS monitor made and read, a heartbeat made with its ping URL once, rotated, and pinged', async () => {
    const monitors = stub(svc, 'monitors');
    const dns = await call(
      monitors,
      'CreateDNSMonitor',
      { monitor: { name: 'grpc-dns', host: 'example.test', recordType: 'DNS_RECORD_TYPE_MX', resolver: '127.0.0.1:5353', periodicity: 'PERIODICITY_10M' } },
      withKey(writeKey),
    );
    const got = await call(monitors, 'GetMonitor', { id: dns.monitor.id }, withKey(readKey));
    assert.deepEqual([got.monitor, got.dnsMonitor.host, got.dnsMonitor.recordType], ['dnsMonitor', 'example.test', 'DNS_RECORD_TYPE_MX']);

    const heartbeat = await call(
      monitors,
      'CreateHeartbeatMonitor',
      { monitor: { name: 'grpc-backup', schedule: '1d', periodicity: 'PERIODICITY_10M' } },
      withKey(writeKey),
    );
    assert.match(heartbeat.pingUrl, /\/ping\/hb_/);
    const listed = await call(monitors, 'ListMonitors', {}, withKey(readKey));
    const shown = listed.heartbeatMonitors.find((m: any) => m.id === heartbeat.monitor.id);
    assert.equal(shown.schedule, '1d');
    assert.ok(!JSON.stringify(listed).includes(new URL(heartbeat.pingUrl).pathname.split('/')[2]!), 'the token is shown once, never listed');
    const rotated = await call(monitors, 'RotateHeartbeatToken', { id: heartbeat.monitor.id }, withKey(writeKey));
    assert.notEqual(rotated.pingUrl, heartbeat.pingUrl);
    assert.equal((await fetch(heartbeat.pingUrl)).status, 404, 'the old URL is gone at once');
    assert.equal((await fetch(rotated.pingUrl)).status, 200);
  });

  test('without a key: UNAUTHENTICATED, with the plain sentence in details', async () => {
    const error = await failure(call(stub(svc, 'monitors'), 'ListMonitors', {}), grpc.status.UNAUTHENTICATED);
    assertReadable(error, /^missing credentials: send an API key in the x-service-key header, or an OAuth access token as Authorization: Bearer$/);
  });

  test('an unknown key: UNAUTHENTICATED, readable', async () => {
    const error = await failure(call(stub(svc, 'monitors'), 'ListMonitors', {}, withKey('svc_nope')), grpc.status.UNAUTHENTICATED);
    assertReadable(error, /^the x-service-key header does not hold a live API key \(unknown or revoked\)$/);
  });

  test('a read key calling a mutation: PERMISSION_DENIED, readable', async () => {
    const request = { monitor: { name: 'nope', uri: 'db.internal:5432', periodicity: 'PERIODICITY_1M' } };
    const error = await failure(call(stub(svc, 'monitors'), 'CreateTCPMonitor', request, withKey(readKey)), grpc.status.PERMISSION_DENIED);
    assertReadable(error, /^this API key is read-only; create a read & write key to make changes$/);
  });

  test('a broken rule: INVALID_ARGUMENT naming the field, in details and in the BadRequest detail', async () => {
    const request = { monitor: { name: 'no-port', uri: 'db.internal', periodicity: 'PERIODICITY_1M' } };
    const error = await failure(call(stub(svc, 'monitors'), 'CreateTCPMonitor', request, withKey(writeKey)), grpc.status.INVALID_ARGUMENT);
    assertReadable(error, /monitor\.uri: .*port is required/);
    const [bin] = error.metadata.get('grpc-status-details-bin');
    assert.ok(Buffer.isBuffer(bin), 'no grpc-status-details-bin trailer');
    // The google.rpc.Status in it, read as a Connect client reads it.
    const status = findTrailerError(new Headers({ 'grpc-status-details-bin': bin.toString('base64') }));
    assert.ok(status, 'no status in grpc-status-details-bin');
    assert.equal(status.rawMessage, error.details);
    const violations = status.findDetails(BadRequestSchema).flatMap((d) => d.fieldViolations);
    assert.ok(
      violations.some((v) => v.field === 'monitor.uri' && /port is required/.test(v.description)),
      JSON.stringify(violations),
    );
  });

  test('a name that is not here: NOT_FOUND, readable', async () => {
    const error = await failure(call(stub(svc, 'monitors'), 'GetMonitor', { id: '999999' }, withKey(readKey)), grpc.status.NOT_FOUND);
    assertReadable(error, /999999/);
  });

  test('every other service answers at its standard path', async () => {
    const page = await call(stub(svc, 'pages'), 'CreateStatusPage', { slug: 'grpc-standard', title: 'gRPC standard' }, withKey(writeKey));
    assert.equal(page.statusPage.slug, 'grpc-standard');
    const pages = await call(stub(svc, 'pages'), 'ListStatusPages', {}, withKey(readKey));
    assert.ok(pages.statusPages.some((p: any) => p.id === page.statusPage.id));

    const report = await call(
      stub(svc, 'reports'),
      'CreateStatusReport',
      { pageId: 'grpc-standard', title: 'API errors', message: 'Looking into it.', status: 'STATUS_REPORT_STATUS_INVESTIGATING', notify: false },
      withKey(writeKey),
    );
    const reports = await call(stub(svc, 'reports'), 'ListStatusReports', { pageId: 'grpc-standard' }, withKey(readKey));
    assert.deepEqual(
      reports.statusReports.map((r: any) => r.id),
      [report.statusReport.id],
    );

    const maintenance = await call(
      stub(svc, 'maintenances'),
      'CreateMaintenance',
      { pageId: 'grpc-standard', title: 'Upgrade', from: '2030-01-01T00:00:00Z', to: '2030-01-01T01:00:00Z', notify: false },
      withKey(writeKey),
    );
    const maintenances = await call(stub(svc, 'maintenances'), 'ListMaintenances', { pageId: 'grpc-standard' }, withKey(readKey));
    assert.deepEqual(
      maintenances.maintenances.map((m: any) => m.id),
      [maintenance.maintenance.id],
    );

    const channels = await call(stub(svc, 'notifications'), 'ListNotificationChannels', {}, withKey(readKey));
    assert.ok(Array.isArray(channels.channels), JSON.stringify(channels));
    const refused = await failure(call(stub(svc, 'notifications'), 'CreateNotificationChannel', { name: '' }, withKey(writeKey)), grpc.status.INVALID_ARGUMENT);
    assertReadable(refused, /name/);
  });

  test('a method that is not served: UNIMPLEMENTED, readable', async () => {
    const client = new grpc.Client(`127.0.0.1:${new URL(svc.apiUrl).port}`, grpc.credentials.createInsecure());
    openClients.push(client);
    const error = await failure(
      new Promise((resolve, reject) =>
        client.makeUnaryRequest(
          '/monitor.v1.MonitorService/NoSuchMethod',
          (value: Buffer) => value,
          (value: Buffer) => value,
          Buffer.alloc(0),
          withKey(readKey),
          { deadline: Date.now() + 15_000 },
          (error, value) => (error ? reject(error) : resolve(value)),
        ),
      ),
      grpc.status.UNIMPLEMENTED,
    );
    assertReadable(error, /^unknown method \/monitor\.v1\.MonitorService\/NoSuchMethod$/);
  });

  test('Connect and gRPC-Web are still only under /rpc', async () => {
    const connect = await svc.api('/monitor.v1.MonitorService/ListMonitors', {
      method: 'POST',
      key: readKey,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(connect.status, 404);
    await connect.body?.cancel();
    const grpcWeb = await svc.api('/monitor.v1.MonitorService/ListMonitors', {
      method: 'POST',
      key: readKey,
      headers: { 'content-type': 'application/grpc-web+proto' },
      body: new Uint8Array([0, 0, 0, 0, 0]),
    });
    assert.equal(grpcWeb.status, 404);
    await grpcWeb.body?.cancel();
    const under = await svc.api('/rpc/monitor.v1.MonitorService/ListMonitors', {
      method: 'POST',
      key: readKey,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(under.status, 200);
    // A ListMonitorsResponse (empty lists are left out of its JSON), not an error.
    const body: unknown = await under.json();
    assert.ok(typeof body === 'object' && body !== null && !('code' in body), JSON.stringify(body));
  });
});

describe('gRPC at the standard paths: rate limit', { timeout: 60_000 }, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ STATUSDESK_RATE_LIMIT: '2' });
  });
  after(async () => {
    await svc.stop();
  });

  test('the key budget is the same one: the third call in a minute is RESOURCE_EXHAUSTED with retry-after', async () => {
    const { secret } = await svc.createKey('read');
    const monitors = stub(svc, 'monitors');
    await call(monitors, 'ListMonitors', {}, withKey(secret));
    await call(monitors, 'ListMonitors', {}, withKey(secret));
    const error = await failure(call(monitors, 'ListMonitors', {}, withKey(secret)), grpc.status.RESOURCE_EXHAUSTED);
    assert.doesNotMatch(error.details, /%[0-9A-Fa-f]{2}/, error.details);
    const [retryAfter] = error.metadata.get('retry-after');
    assert.match(String(retryAfter), /^\d+$/);
  });
});

describe('gRPC at the standard paths: OAuth access tokens', { timeout: 120_000 }, () => {
  let svc: OAuthTestService;
  let receiver: Receiver;
  before(async () => {
    svc = await startOAuthService();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await svc.stop();
  });

  test('a token for {issuer}/rpc or {issuer} works as Authorization: Bearer; one for {issuer}/mcp is UNAUTHENTICATED', async () => {
    for (const resource of [`${svc.apiUrl}/rpc`, svc.apiUrl]) {
      const { tokens } = await connectClient(svc, receiver, { resource, decision: { decide: 'approve', access: 'read' } });
      const listed = await call(stub(svc, 'monitors'), 'ListMonitors', {}, metadata(bearer(tokens.access_token)));
      assert.ok(Array.isArray(listed.tcpMonitors), `${resource}: ${JSON.stringify(listed)}`);
      const denied = await failure(
        call(stub(svc, 'pages'), 'CreateStatusPage', { slug: 'by-token', title: 'By token' }, metadata(bearer(tokens.access_token))),
        grpc.status.PERMISSION_DENIED,
      );
      assertReadable(denied, /^this connection has read-only access; reconnect the app and choose Read & write to make changes$/);
    }
    const { tokens } = await connectClient(svc, receiver, { resource: `${svc.apiUrl}/mcp` });
    const refused = await failure(call(stub(svc, 'monitors'), 'ListMonitors', {}, metadata(bearer(tokens.access_token))), grpc.status.UNAUTHENTICATED);
    assertReadable(refused, /^the bearer token is not a live access token for this resource/);
  });
});

test('grpc-message is percent-encoded as the gRPC spec says: only % and bytes outside printable ASCII', () => {
  assert.equal(encodeGrpcMessage('missing credentials: send a key, or a token / Bearer'), 'missing credentials: send a key, or a token / Bearer');
  assert.equal(encodeGrpcMessage('50% done'), '50%25 done');
  assert.equal(encodeGrpcMessage('café\n'), 'caf%C3%A9%0A');
  // grpc-js decodes with decodeURI, Connect clients with decodeURIComponent: both get the sentence back.
  for (const sentence of ['a: b, c/d?e=f&g#h', '50% done', 'café\nnext line']) {
    assert.equal(decodeURI(encodeGrpcMessage(sentence)), sentence);
    assert.equal(decodeURIComponent(encodeGrpcMessage(sentence)), sentence);
  }
});
