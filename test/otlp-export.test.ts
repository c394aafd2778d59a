/**
 * Metrics export over OTLP/HTTP (server/checks/otlp-export.ts through the check engine), end to
 * end: the real service, monitors created over ConnectRPC, checks triggered against loopback
 * targets, and OTLP collectors played by node:http servers on 127.0.0.1 that record every
 * request. The exporter sends OTLP/JSON (content-type application/json), so bodies are read with
 * JSON.parse. Exports are cumulative: the latest request that carries a monitor holds its totals.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { type CheckResult, MonitorService, MonitorStatus, Periodicity, TLSMode } from '../proto/gen/monitor/v1/monitor_pb.js';
import { closedPort, type GrpcPeer, startGrpcPeer, startTcpListener, type TcpListener } from './support/grpc-peers.ts';
import { runCli, spawnServe, startTestService, tempDir, type TestService, withHeaders } from './support/harness.ts';
import { DEFAULT_TOOLS, type HttpMcpServer, startHttpMcpServer } from './support/mcp-servers.ts';
import { until } from './support/wait.ts';

const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
const INTERVAL_MS = 200;
const SECRET = 'Bearer otlp-secret';

const DURATION = 'statusdesk.check.duration';
const PHASE = (phase: string) => `statusdesk.check.${phase}.duration`;
const COUNT = 'statusdesk.check.count';
const SERVING = 'statusdesk.grpc.health.serving';
const MCP_TOOLS = 'statusdesk.mcp.tools';
const ID = 'statusdesk.monitor.id';

type MonitorClient = Client<typeof MonitorService>;

// ---- OTLP/JSON, as far as these tests read it ------------------------------------------------

interface OtlpKeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}
interface OtlpDataPoint {
  attributes: OtlpKeyValue[];
  count?: number | string;
  sum?: number;
  explicitBounds?: number[];
  asDouble?: number;
  asInt?: number | string;
}
interface OtlpMetric {
  name: string;
  unit: string;
  histogram?: { dataPoints: OtlpDataPoint[] };
  sum?: { dataPoints: OtlpDataPoint[]; isMonotonic?: boolean };
  gauge?: { dataPoints: OtlpDataPoint[] };
}
interface OtlpRequest {
  resourceMetrics: { resource: { attributes: OtlpKeyValue[] }; scopeMetrics: { scope: { name: string; version?: string }; metrics: OtlpMetric[] }[] }[];
}

type Attributes = Record<string, string | number | boolean>;

/** One data point, flattened with its metric, scope and resource. */
interface Point {
  metric: string;
  unit: string;
  kind: 'histogram' | 'sum' | 'gauge';
  attributes: Attributes;
  resource: Attributes;
  scope: string;
  /** Histograms. */
  count: number;
  sum: number;
  bounds: number[];
  /** Sums and gauges. */
  value: number;
  monotonic: boolean | undefined;
}

function attributesOf(list: OtlpKeyValue[]): Attributes {
  const out: Attributes = {};
  for (const { key, value } of list) {
    out[key] = value.stringValue ?? value.doubleValue ?? value.boolValue ?? Number(value.intValue);
  }
  return out;
}

function pointsOf(body: OtlpRequest): Point[] {
  const points: Point[] = [];
  for (const rm of body.resourceMetrics) {
    const resource = attributesOf(rm.resource.attributes);
    for (const sm of rm.scopeMetrics) {
      for (const m of sm.metrics) {
        const kind = m.histogram ? 'histogram' : m.sum ? 'sum' : 'gauge';
        for (const p of (m.histogram ?? m.sum ?? m.gauge)!.dataPoints) {
          points.push({
            metric: m.name,
            unit: m.unit,
            kind,
            attributes: attributesOf(p.attributes),
            resource,
            scope: sm.scope.name,
            count: Number(p.count ?? NaN),
            sum: p.sum ?? NaN,
            bounds: p.explicitBounds ?? [],
            value: p.asDouble ?? Number(p.asInt ?? NaN),
            monotonic: m.sum?.isMonotonic,
          });
        }
      }
    }
  }
  return points;
}

// ---- a collector on loopback --------------------------------------------------------------------

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as OTLP/JSON, or the parse error. */
  points: Point[];
  parseError?: string;
}

interface Receiver {
  endpoint: string;
  requests: Received[];
  /** Requests this collector holds without answering ('never' only). */
  held(): number;
  /** A monitor's points in the latest request that carries it (exports are cumulative). */
  latest(monitorId: string): Point[];
  /** Every monitor id seen in any request. */
  monitorIds(): Set<string>;
  close(): Promise<void>;
}

/** 'ok' answers 200 with an empty OTLP response, 'error' answers 500, 'never' accepts the request and never answers. */
async function startReceiver(answer: 'ok' | 'error' | 'never'): Promise<Receiver> {
  const requests: Received[] = [];
  const holding = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: Received = { method: req.method!, url: req.url!, headers: req.headers, points: [] };
      try {
        received.points = pointsOf(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest);
      } catch (error) {
        received.parseError = (error as Error).message;
      }
      requests.push(received);
      if (answer === 'ok') res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else if (answer === 'error') res.writeHead(500, { 'content-type': 'text/plain' }).end('collector failure');
      else {
        holding.add(res);
        res.once('close', () => holding.delete(res));
      }
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/v1/metrics`,
    requests,
    held: () => holding.size,
    latest(monitorId) {
      for (let i = requests.length - 1; i >= 0; i--) {
        const points = requests[i]!.points.filter((p) => p.attributes[ID] === monitorId);
        if (points.length > 0) return points;
      }
      return [];
    },
    monitorIds: () => new Set(requests.flatMap((r) => r.points.map((p) => String(p.attributes[ID])))),
    async close() {
      // Held requests are answered (success) rather than cut: a cut request is retried by the
      // exporter for up to its timeout, which would keep this test process alive.
      for (const res of holding) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      server.close();
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
    },
  };
}

// ---- helpers ------------------------------------------------------------------------------------

function monitorClient(baseUrl: string, secret: string): MonitorClient {
  return createClient(
    MonitorService,
    createConnectTransport({ baseUrl: `${baseUrl}/rpc`, httpVersion: '1.1', interceptors: [withHeaders({ 'x-service-key': secret })] }),
  );
}

/** Triggers a check and measures how long the call took. */
async function trigger(client: MonitorClient, id: string): Promise<{ results: CheckResult[]; ms: number }> {
  const start = performance.now();
  const { results } = await client.triggerMonitor({ id });
  return { results, ms: performance.now() - start };
}

const otel = (receiver: Receiver, headers: Record<string, string>) => ({ endpoint: receiver.endpoint, headers });
const byMetric = (points: Point[], metric: string) => points.filter((p) => p.metric === metric);
const regionsOf = (points: Point[]) => points.map((p) => String(p.attributes['statusdesk.region'])).sort();
const metricNames = (points: Point[]) => [...new Set(points.map((p) => p.metric))].sort();
const near = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);

// ---- exporting --------------------------------------------------------------------------------------

describe('OTLP export of check metrics', () => {
  let svc: TestService;
  let client: MonitorClient;
  let tcp: TcpListener;
  let grpc: GrpcPeer;
  /** TCP monitors' collector; its own header. */
  let collectorA: Receiver;
  /** gRPC monitors' collector; another header. */
  let collectorB: Receiver;
  const ids = { tcp: '', refused: '', serving: '', notServing: '', plain: '', mcp: '' };
  let mcpServer: HttpMcpServer;
  const results: Record<string, CheckResult[][]> = {};
  /** Requests each collector had received when the monitor without openTelemetry was checked. */
  let seenAtPlainCheck = { a: 0, b: 0 };

  before(async () => {
    [collectorA, collectorB, tcp, grpc, mcpServer] = await Promise.all([
      startReceiver('ok'),
      startReceiver('ok'),
      startTcpListener(),
      startGrpcPeer({ health: { '': 'SERVING', 'statusdesk.test.Down': 'NOT_SERVING' } }),
      startHttpMcpServer('v2'),
    ]);
    svc = await startTestService({ OTEL_METRIC_EXPORT_INTERVAL: String(INTERVAL_MS) });
    client = monitorClient(svc.apiUrl, (await svc.createKey('write')).secret);
    const common = { periodicity: Periodicity.PERIODICITY_1M, retry: 0 };
    const headersA = { authorization: SECRET };
    const headersB = { authorization: 'Bearer grpc-collector', 'x-scope-orgid': 'statusdesk-tests' };
    ids.tcp = (
      await client.createTCPMonitor({
        monitor: { ...common, name: 'tcp up', uri: tcp.uri, regions: ['iad', 'fra'], openTelemetry: otel(collectorA, headersA) },
      })
    ).monitor!.id;
    const refusedUri = `127.0.0.1:${await closedPort()}`;
    ids.refused = (
      await client.createTCPMonitor({
        monitor: { ...common, name: 'tcp refused', uri: refusedUri, regions: ['sin'], openTelemetry: otel(collectorA, headersA) },
      })
    ).monitor!.id;
    const grpcCommon = { ...common, uri: grpc.uri, tls: TLSMode.TLS_MODE_PLAINTEXT, openTelemetry: otel(collectorB, headersB) };
    ids.serving = (await client.createGRPCMonitor({ monitor: { ...grpcCommon, name: 'grpc serving', regions: ['iad', 'fra'] } })).monitor!.id;
    ids.notServing = (
      await client.createGRPCMonitor({ monitor: { ...grpcCommon, name: 'grpc not serving', service: 'statusdesk.test.Down', regions: ['ams'] } })
    ).monitor!.id;
    ids.plain = (await client.createTCPMonitor({ monitor: { ...common, name: 'no export', uri: tcp.uri, regions: ['iad'] } })).monitor!.id;
    ids.mcp = (
      await client.createMCPMonitor({
        monitor: { ...common, name: 'mcp tools', server: mcpServer.url, regions: ['iad'], openTelemetry: otel(collectorB, headersB) },
      })
    ).monitor!.id;

    const run = async (key: keyof typeof ids) => (results[key] ??= []).push((await trigger(client, ids[key])).results);
    await run('tcp');
    await run('tcp');
    await run('refused');
    await run('serving');
    await run('notServing');
    await run('mcp');
    seenAtPlainCheck = { a: collectorA.requests.length, b: collectorB.requests.length };
    await run('plain');
    // Every check above is exported before any test reads the collectors.
    const counted = (receiver: Receiver, id: string, checks: number) => byMetric(receiver.latest(id), COUNT).reduce((sum, p) => sum + p.value, 0) === checks;
    await until(() => counted(collectorA, ids.tcp, 4) && counted(collectorA, ids.refused, 1), 'the TCP monitors exported to collector A');
    await until(
      () => counted(collectorB, ids.serving, 2) && counted(collectorB, ids.notServing, 1) && counted(collectorB, ids.mcp, 1),
      'the gRPC and MCP monitors exported to collector B',
    );
  });

  after(async () => {
    await svc?.stop();
    await Promise.all([collectorA?.close(), collectorB?.close(), tcp?.close(), grpc?.close(), mcpServer?.close()]);
  });

  test('the checks themselves ran as expected', () => {
    assert.deepEqual(
      results['tcp']!.map((r) => r.map((x) => [x.region, x.result])),
      [
        [
          ['iad', 'up'],
          ['fra', 'up'],
        ],
        [
          ['iad', 'up'],
          ['fra', 'up'],
        ],
      ],
    );
    assert.deepEqual(
      results['refused']![0]!.map((x) => x.result),
      ['down'],
    );
    assert.deepEqual(
      results['serving']![0]!.map((x) => [x.result, x.grpcStatus]),
      [
        ['up', 'SERVING'],
        ['up', 'SERVING'],
      ],
    );
    assert.deepEqual(
      results['notServing']![0]!.map((x) => [x.result, x.grpcStatus]),
      [['down', 'NOT_SERVING']],
    );
    assert.deepEqual(
      results['plain']![0]!.map((x) => x.result),
      ['up'],
    );
  });

  test("each monitor's metrics reach its own endpoint as OTLP/HTTP JSON, with its configured headers", async () => {
    for (const [receiver, headers] of [
      [collectorA, { authorization: SECRET }],
      [collectorB, { authorization: 'Bearer grpc-collector', 'x-scope-orgid': 'statusdesk-tests' }],
    ] as const) {
      for (const request of receiver.requests) {
        assert.equal(request.method, 'POST');
        assert.equal(request.url, '/v1/metrics', 'the path of the configured endpoint, as given');
        assert.match(request.headers['content-type'] ?? '', /^application\/json\b/);
        assert.equal(request.headers['content-encoding'] ?? 'identity', 'identity');
        assert.equal(request.parseError, undefined, 'the body is OTLP/JSON');
        for (const [name, value] of Object.entries(headers)) assert.equal(request.headers[name], value, `header ${name}`);
      }
    }
    // Collector A sees the TCP monitors and never the gRPC ones, and B the other way round (other
    // tests may add monitors of their own that export to A).
    const seenByA = collectorA.monitorIds();
    const seenByB = collectorB.monitorIds();
    for (const id of [ids.tcp, ids.refused]) assert.ok(seenByA.has(id) && !seenByB.has(id), `monitor ${id} exports to A only`);
    for (const id of [ids.serving, ids.notServing]) assert.ok(seenByB.has(id) && !seenByA.has(id), `monitor ${id} exports to B only`);
    // Each monitor has its own exporter, so no export mixes monitors (and a removed one stops cleanly).
    for (const r of [...collectorA.requests, ...collectorB.requests])
      assert.ok(new Set(r.points.map((p) => p.attributes[ID])).size <= 1, 'one monitor per export');

    for (const point of [...collectorA.latest(ids.tcp), ...collectorB.latest(ids.serving)]) {
      assert.equal(point.resource['service.name'], 'statusdesk');
      assert.equal(point.resource['service.version'], VERSION);
      assert.equal(point.scope, 'statusdesk.checks');
    }
  });

  test('a TCP check is recorded once per region, in seconds, with only the phases that happened (connect, not DNS/TLS/TTFB/transfer)', async () => {
    const points = collectorA.latest(ids.tcp);
    // A literal IP has no DNS phase; TCP has no TLS, TTFB or transfer.
    assert.deepEqual(metricNames(points), [COUNT, PHASE('connect'), DURATION].sort());

    for (const point of points) {
      const expected: Attributes = {
        [ID]: ids.tcp,
        'statusdesk.monitor.name': 'tcp up',
        'statusdesk.monitor.type': 'tcp',
        'statusdesk.region': point.attributes['statusdesk.region']!,
        'statusdesk.runner': 'local',
      };
      if (point.metric === COUNT) expected['statusdesk.check.result'] = 'up';
      assert.deepEqual(point.attributes, expected, `attributes of ${point.metric}`);
    }
    for (const metric of [DURATION, PHASE('connect'), COUNT])
      assert.deepEqual(regionsOf(byMetric(points, metric)), ['fra', 'iad'], `${metric}: one series per region`);

    const checks = results['tcp']!.map((r) => r[0]!);
    for (const point of byMetric(points, DURATION)) {
      assert.equal(point.kind, 'histogram');
      assert.equal(point.unit, 's');
      assert.equal(point.count, 2);
      near(point.sum, checks.reduce((s, c) => s + c.latencyMs, 0) / 1000, 'duration sum in seconds');
      assert.equal(point.bounds[0], 0.001, 'bucket boundaries in seconds, from 1 ms');
      assert.ok(point.bounds.includes(1) && point.bounds.at(-1)! >= 60, `bucket boundaries in seconds: ${point.bounds}`);
    }
    for (const point of byMetric(points, PHASE('connect'))) {
      assert.equal(point.kind, 'histogram');
      assert.equal(point.unit, 's');
      assert.equal(point.count, 2);
      near(point.sum, checks.reduce((s, c) => s + c.timing!.connect!, 0) / 1000, 'connect sum in seconds');
    }
    for (const point of byMetric(points, COUNT)) {
      assert.equal(point.kind, 'sum');
      assert.equal(point.monotonic, true);
      assert.equal(point.value, 2);
    }
  });

  test('a check that cannot connect counts as down and records no connect phase', async () => {
    const points = collectorA.latest(ids.refused);
    assert.deepEqual(metricNames(points), [COUNT, DURATION].sort());
    const [count] = byMetric(points, COUNT);
    assert.deepEqual([count!.attributes['statusdesk.check.result'], count!.attributes['statusdesk.region'], count!.value], ['down', 'sin', 1]);
    assert.equal(byMetric(points, DURATION)[0]!.count, 1);
  });

  test('gRPC health: the serving gauge is 1 for SERVING and 0 for NOT_SERVING, in each region, next to the phases of the call', async () => {
    const serving = collectorB.latest(ids.serving);
    const notServing = collectorB.latest(ids.notServing);
    // Plaintext to a literal IP: no DNS and no TLS phase; the call has a first byte and a transfer.
    assert.deepEqual(metricNames(serving), [COUNT, PHASE('connect'), PHASE('transfer'), PHASE('ttfb'), DURATION, SERVING].sort());
    for (const point of [...serving, ...notServing]) assert.equal(point.attributes['statusdesk.monitor.type'], 'grpc');

    const gauge = byMetric(serving, SERVING);
    assert.deepEqual(regionsOf(gauge), ['fra', 'iad']);
    for (const point of gauge) {
      assert.equal(point.kind, 'gauge');
      assert.equal(point.unit, '1');
      assert.equal(point.value, 1);
    }
    const down = byMetric(notServing, SERVING);
    assert.deepEqual(
      down.map((p) => [p.attributes['statusdesk.region'], p.value]),
      [['ams', 0]],
    );
    assert.deepEqual(
      byMetric(notServing, COUNT).map((p) => [p.attributes['statusdesk.check.result'], p.value]),
      [['down', 1]],
    );
    assert.deepEqual(
      byMetric(serving, COUNT).map((p) => [p.attributes['statusdesk.check.result'], p.value]),
      [
        ['up', 1],
        ['up', 1],
      ],
    );

    const check = results['serving']![0]![0]!;
    for (const phase of ['connect', 'ttfb', 'transfer'] as const) {
      for (const point of byMetric(serving, PHASE(phase))) {
        assert.equal(point.unit, 's');
        near(point.sum, check.timing![phase]! / 1000, `${phase} in seconds`);
      }
    }
  });

  test('MCP: the tools gauge holds the count of tools the server listed', async () => {
    assert.equal(results['mcp']![0]![0]!.result, 'up', results['mcp']![0]![0]!.message);
    const points = collectorB.latest(ids.mcp);
    for (const point of points) assert.equal(point.attributes['statusdesk.monitor.type'], 'mcp');
    const tools = byMetric(points, MCP_TOOLS);
    assert.deepEqual(
      tools.map((p) => [p.kind, p.unit, p.value, p.attributes['statusdesk.region']]),
      [['gauge', '{tool}', DEFAULT_TOOLS.length, 'iad']],
    );
  });

  test('a monitor without openTelemetry exports nothing', async () => {
    // Two more rounds of exports on each collector after that monitor was checked.
    await until(() => collectorA.requests.length >= seenAtPlainCheck.a + 2 && collectorB.requests.length >= seenAtPlainCheck.b + 2, 'two more export rounds');
    assert.ok(!collectorA.monitorIds().has(ids.plain));
    assert.ok(!collectorB.monitorIds().has(ids.plain));
  });

  test("a monitor moved to another endpoint exports its new checks there, with that endpoint's headers", async () => {
    const collectorC = await startReceiver('ok');
    try {
      const { id } = (
        await client.createTCPMonitor({
          monitor: {
            name: 'moving',
            uri: tcp.uri,
            periodicity: Periodicity.PERIODICITY_1M,
            retry: 0,
            regions: ['gru'],
            openTelemetry: otel(collectorA, { authorization: SECRET }),
          },
        })
      ).monitor!;
      await trigger(client, id);
      await until(() => collectorA.latest(id).length > 0, 'first check exported to A');
      await client.updateTCPMonitor({ id, monitor: { openTelemetry: otel(collectorC, { 'x-collector': 'c' }) }, updateMask: { paths: ['open_telemetry'] } });
      await trigger(client, id);
      await until(() => collectorC.latest(id).length > 0, 'the check after the move exported to C');
      assert.equal(byMetric(collectorC.latest(id), COUNT)[0]!.value, 1, 'C counts the checks made since the move');
      for (const request of collectorC.requests) {
        assert.equal(request.headers['x-collector'], 'c');
        assert.equal(request.headers['authorization'], undefined, "A's header does not follow the monitor");
      }
      assert.deepEqual([...collectorC.monitorIds()], [id]);
    } finally {
      await collectorC.close();
    }
  });

  test('a monitor whose openTelemetry is cleared disappears from the exports of an endpoint that other monitors still use', async () => {
    const { id } = (
      await client.createTCPMonitor({
        monitor: {
          name: 'leaving',
          uri: tcp.uri,
          periodicity: Periodicity.PERIODICITY_1M,
          retry: 0,
          regions: ['syd'],
          openTelemetry: otel(collectorA, { authorization: SECRET }),
        },
      })
    ).monitor!;
    // Collector A stays in use by another monitor of this test's own.
    const staying = (
      await client.createTCPMonitor({
        monitor: {
          name: 'staying',
          uri: tcp.uri,
          periodicity: Periodicity.PERIODICITY_1M,
          retry: 0,
          regions: ['syd'],
          openTelemetry: otel(collectorA, { authorization: SECRET }),
        },
      })
    ).monitor!.id;
    await trigger(client, id);
    await until(() => collectorA.latest(id).length > 0, 'exported to A');
    await client.updateTCPMonitor({ id, monitor: {}, updateMask: { paths: ['open_telemetry'] } });
    await trigger(client, staying);
    await trigger(client, id);
    const seen = collectorA.requests.length;
    await until(() => collectorA.requests.length >= seen + 2, 'two more export rounds on A');
    const last = collectorA.requests.at(-1)!;
    assert.deepEqual(
      last.points.filter((p) => p.attributes[ID] === id).map((p) => p.metric),
      [],
      'collector A still receives the series of a monitor that no longer exports there',
    );
  });
});

// ---- collectors that fail ------------------------------------------------------------------------

describe('a failing collector never slows or breaks checks', () => {
  let svc: TestService;
  let client: MonitorClient;
  let tcp: TcpListener;
  let failing: Receiver;
  let silent: Receiver;
  let healthy: Receiver;
  const ids = { failing: '', silent: '', healthy: '' };

  before(async () => {
    [failing, silent, healthy, tcp] = await Promise.all([startReceiver('error'), startReceiver('never'), startReceiver('ok'), startTcpListener()]);
    svc = await startTestService({ OTEL_METRIC_EXPORT_INTERVAL: String(INTERVAL_MS) });
    client = monitorClient(svc.apiUrl, (await svc.createKey('write')).secret);
    for (const [key, receiver] of [
      ['failing', failing],
      ['silent', silent],
      ['healthy', healthy],
    ] as const) {
      ids[key] = (
        await client.createTCPMonitor({
          monitor: {
            name: key,
            uri: tcp.uri,
            periodicity: Periodicity.PERIODICITY_1M,
            retry: 0,
            regions: ['iad'],
            openTelemetry: otel(receiver, { authorization: SECRET }),
          },
        })
      ).monitor!.id;
    }
  });

  after(async () => {
    await svc?.stop();
    await Promise.all([failing?.close(), silent?.close(), healthy?.close(), tcp?.close()]);
  });

  test('checks return promptly with correct results while one collector answers 500 and another never answers', async () => {
    for (let round = 1; round <= 3; round++) {
      for (const [key, id] of Object.entries(ids)) {
        const { results, ms } = await trigger(client, id);
        assert.ok(ms < 1000, `round ${round}, ${key}: the trigger took ${ms.toFixed(0)} ms`);
        assert.deepEqual(
          results.map((r) => [r.region, r.result]),
          [['iad', 'up']],
          `round ${round}, ${key}`,
        );
      }
      // The exports of this round go out (and fail) before the next.
      await until(() => byMetric(healthy.latest(ids.healthy), COUNT)[0]?.value === round, `the exports of round ${round}`);
    }
    // The collectors were really asked, and kept being asked after failing.
    await until(() => failing.requests.length >= 2, 'the failing collector was tried again after a 500');
    await until(() => silent.held() >= 1, 'the silent collector holds an export');
    await until(() => byMetric(healthy.latest(ids.healthy), COUNT)[0]?.value === 3, 'the healthy collector has all three checks');
    assert.deepEqual(
      byMetric(failing.requests.at(-1)!.points, COUNT).map((p) => p.attributes[ID]),
      [ids.failing],
    );

    // The results were stored, too.
    for (const id of Object.values(ids)) {
      const status = await client.getMonitorStatus({ id });
      assert.equal(status.overall, MonitorStatus.ACTIVE);
    }
  });

  test('the service stops within a few seconds while a collector holds an export unanswered', async () => {
    // A service of its own, since it is stopped here.
    const held = await startReceiver('never');
    const other = await startReceiver('ok');
    const stopping = await startTestService({ OTEL_METRIC_EXPORT_INTERVAL: String(INTERVAL_MS) });
    let stopped = false;
    try {
      const ownClient = monitorClient(stopping.apiUrl, (await stopping.createKey('write')).secret);
      for (const [name, receiver] of [
        ['held', held],
        ['other', other],
      ] as const) {
        const { id } = (
          await ownClient.createTCPMonitor({
            monitor: {
              name,
              uri: tcp.uri,
              periodicity: Periodicity.PERIODICITY_1M,
              retry: 0,
              regions: ['iad'],
              openTelemetry: otel(receiver, { authorization: SECRET }),
            },
          })
        ).monitor!;
        await trigger(ownClient, id);
      }
      await until(() => held.held() >= 1 && other.requests.length >= 1, 'an export is in flight to the silent collector');
      const start = performance.now();
      await stopping.stop();
      stopped = true;
      const ms = performance.now() - start;
      assert.ok(ms < 4000, `stopping took ${ms.toFixed(0)} ms`);
      // Stopped means stopped: no further exports anywhere.
      const counts = [held, other].map((r) => r.requests.length);
      await sleep(3 * INTERVAL_MS);
      assert.deepEqual(
        [held, other].map((r) => r.requests.length),
        counts,
      );
    } finally {
      if (!stopped) await stopping.stop();
      await Promise.all([held.close(), other.close()]);
    }
  });

  test('`statusdesk serve` exits within a few seconds of SIGTERM while a collector holds an export unanswered', async () => {
    const collector = await startReceiver('never');
    const dir = await tempDir();
    const serve = await spawnServe(['--data-dir', dir.path], { OTEL_METRIC_EXPORT_INTERVAL: String(INTERVAL_MS), STATUSDESK_LOG_LEVEL: 'silent' });
    try {
      const key = await runCli(['keys', 'create', '--workspace', 'personal', '--scope', 'write', '--name', 'otlp', '--data-dir', dir.path]);
      assert.equal(key.code, 0, key.stderr);
      const served = monitorClient(serve.ready.apiUrl, key.stdout.trim());
      const { id } = (
        await served.createTCPMonitor({
          monitor: { name: 'silent', uri: tcp.uri, periodicity: Periodicity.PERIODICITY_1M, retry: 0, regions: ['iad'], openTelemetry: otel(collector, {}) },
        })
      ).monitor!;
      const { results, ms } = await trigger(served, id);
      // The first check of a fresh process loads the exporter; held by the collector it would take
      // the export's 5 s timeout, so half of that tells the two apart on a busy machine too.
      assert.ok(ms < 2500, `the trigger took ${ms.toFixed(0)} ms`);
      assert.equal(results[0]!.result, 'up');
      await until(() => collector.held() >= 1, 'an export is held by the collector');

      const start = performance.now();
      const exited = serve.stop('SIGTERM');
      const code = await Promise.race([exited, sleep(5000).then(() => 'still running' as const)]);
      const ms2 = performance.now() - start;
      assert.equal(code, 0, `serve after SIGTERM: ${code} (${ms2.toFixed(0)} ms)`);
      assert.ok(ms2 < 4000, `serve took ${ms2.toFixed(0)} ms to exit`);
    } finally {
      if (serve.child.exitCode === null && serve.child.signalCode === null) {
        serve.child.kill('SIGKILL');
        await once(serve.child, 'exit');
      }
      await collector.close();
      await dir.remove();
    }
  });
});
