// The dashboard API the UI's screens read: the overview, a monitor's latency, results and regions,
// the plan, the audit log, the live feed and the export of a status page. Real service, real
// loopback targets, checks run with the RPC's TriggerMonitor.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { type Client, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { unzipSync } from 'fflate';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { HTTPMethod, MonitorService, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { openTestDatabase, sqliteOnly, withLocalOwner } from './support/database.ts';
import { DATABASE_FILE, openDatabase } from '../server/db/open.ts';
import { migrations } from '../server/db/migrations/index.ts';
import type { PlanName } from '../server/domain/plans.ts';
import { createAuditLogService } from '../server/domain/audit/audit-log.ts';
import { LatencyHistogram } from '../server/domain/monitors/latency-histogram.ts';
import { createResultStore, type StoredCheck } from '../server/checks/result-store.ts';
import type { CheckOutcome } from '../server/domain/monitors/check-results.ts';
import { createServices } from '../server/services.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { connectMcp, MODERN_ERA } from './support/mcp-client.ts';
import { dashboardSession, monitorRpc, newWorkspace, startTestService, tempDir, type TestService, withHeaders } from './support/harness.ts';

let service: TestService;
let session: Record<string, string>;
/** The signed-in person's name, as the audit log labels their changes. */
let personName: string;

before(async () => {
  service = await startTestService();
  session = await dashboardSession(service);
  personName = ((await (await fetch(`${service.dashboardUrl}/api/session`, { headers: session })).json()) as { user: { name: string } }).user.name;
});
after(() => service.stop());

const servers: (Server | HttpServer)[] = [];
after(() => {
  for (const server of servers) server.close();
});

let made = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++made}`;

type MonitorClient = Client<typeof MonitorService>;

interface Workspace {
  id: string;
  slug: string;
  /** The RPC with a write key of the workspace (named `write key`). */
  rpc: MonitorClient;
  key: string;
}

/** A workspace of its own for a test, the signed-in person its owner, with a write key. */
async function workspace(plan: PlanName = 'scale'): Promise<Workspace> {
  const ws = await newWorkspace(service, 'views', plan);
  const { secret } = await service.createKey('write', ws.slug);
  return { ...ws, rpc: monitorRpc(service, secret), key: secret };
}

/** The RPC as the dashboard's page calls it: the session, in the workspace it names. */
function dashboardRpc(workspaceId: string): MonitorClient {
  return createClient(
    MonitorService,
    createConnectTransport({
      baseUrl: `${service.dashboardUrl}/rpc`,
      httpVersion: '1.1',
      interceptors: [withHeaders({ ...session, 'x-statusdesk-workspace': workspaceId })],
    }),
  );
}

/** A TCP target that accepts every connection. */
async function tcpTarget(): Promise<{ server: Server; target: string }> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { server, target: `127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A loopback port nothing listens on. */
async function closedTarget(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `127.0.0.1:${port}`;
}

/** An HTTP target that answers 200 after `delayMs`. */
async function slowHttpTarget(delayMs: number): Promise<string> {
  const server = createHttpServer((_req, res) => {
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'), delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
}

async function tcpMonitor(ws: Workspace, name: string, target: string, extra: { tags?: string[]; regions?: string[]; active?: boolean } = {}): Promise<string> {
  const created = await ws.rpc.createTCPMonitor({
    monitor: {
      name,
      uri: target,
      periodicity: Periodicity.PERIODICITY_1M,
      retry: 0,
      regions: extra.regions ?? ['iad'],
      tags: extra.tags ?? [],
      active: extra.active,
    },
  });
  return created.monitor!.id;
}

const trigger = (ws: Workspace, id: string) => ws.rpc.triggerMonitor({ id });

function dashboardGet(path: string, headers: Record<string, string> = session): Promise<Response> {
  return fetch(`${service.dashboardUrl}/api/workspaces/${path}`, { headers });
}

async function read<T = any>(path: string): Promise<T> {
  const response = await dashboardGet(path);
  assert.equal(response.status, 200, `${path}: ${await response.clone().text()}`);
  return (await response.json()) as T;
}

/** Asserts the error envelope, and with `field`, that its violations name it. */
async function refused(path: string, status: number, code: string, field?: string): Promise<void> {
  const response = await dashboardGet(path);
  const body = (await response.json()) as { code: string; message: string; violations?: { field: string; rule: string }[] };
  assert.equal(response.status, status, `${path}: ${JSON.stringify(body)}`);
  assert.equal(body.code, code);
  if (field !== undefined)
    assert.ok(
      body.violations?.some((v) => v.field === field),
      `${path}: ${field} not named in ${JSON.stringify(body)}`,
    );
}

const HOUR_MS = 3_600_000;
const sum = (points: Record<string, number>[], field: string) => points.reduce((n, p) => n + p[field]!, 0);

describe('GET /api/workspaces/:id/overview', () => {
  let ws: Workspace;
  const ids: Record<string, string> = {};

  before(async () => {
    ws = await workspace();
    const up = await tcpTarget();
    const slow = await slowHttpTarget(200);
    ids.delta = await tcpMonitor(ws, 'delta', await closedTarget(), { tags: ['db', 'core'] });
    const echo = await ws.rpc.createHTTPMonitor({
      monitor: {
        name: 'Echo',
        url: slow,
        method: HTTPMethod.HTTP_METHOD_GET,
        body: '',
        periodicity: Periodicity.PERIODICITY_1M,
        regions: ['iad'],
        retry: 0,
        degraded: { nanos: 50_000_000 },
      },
    });
    ids.echo = echo.monitor!.id;
    ids.charlie = await tcpMonitor(ws, 'charlie', up.target);
    ids.beta = await tcpMonitor(ws, 'beta', up.target, { tags: ['Core', 'Überwachung'] });
    ids.Alpha = await tcpMonitor(ws, 'Alpha', up.target);
    ids.alpha = await tcpMonitor(ws, 'alpha', up.target);
    ids.zulu = await tcpMonitor(ws, 'zulu', up.target);
    for (const name of ['delta', 'echo', 'beta', 'Alpha', 'alpha', 'zulu']) await trigger(ws, ids[name]!);
    // Paused after a check: its state is paused whatever its checks said.
    await ws.rpc.updateTCPMonitor({ id: ids.zulu!, monitor: { active: false }, updateMask: { paths: ['active'] } });
  });

  test('orders down, degraded, pending, up, paused, then by name case-insensitively and by id; counts every state', async () => {
    const overview = await read(`${ws.id}/overview`);
    assert.deepEqual(
      overview.monitors.map((m: any) => [m.name, m.state]),
      [
        ['delta', 'down'],
        ['Echo', 'degraded'],
        ['charlie', 'pending'],
        ['Alpha', 'up'],
        ['alpha', 'up'],
        ['beta', 'up'],
        ['zulu', 'paused'],
      ],
    );
    assert.ok(Number(ids.Alpha) < Number(ids.alpha), 'the two alphas are told apart by id');
    assert.equal(overview.total, 7);
    assert.deepEqual(overview.counts, { up: 3, degraded: 1, down: 1, pending: 1, paused: 1 });
    assert.deepEqual(overview.tags, ['Core', 'core', 'db', 'Überwachung']);
  });

  test('a row: target, tags, last latency and check, when the state changed, and 24 hourly medians', async () => {
    const overview = await read(`${ws.id}/overview`);
    const readAt = Date.now();
    const beta = overview.monitors.find((m: any) => m.id === ids.beta);
    assert.deepEqual(Object.keys(beta).sort(), [
      'changedAt',
      'createdAt',
      'group',
      'id',
      'lastCheckedAt',
      'lastLatencyMs',
      'name',
      'reason',
      'recent',
      'sparkline',
      'state',
      'tags',
      'target',
      'toolsChanged',
      'type',
      'uptime',
    ]);
    assert.equal(beta.toolsChanged, false, 'only an MCP monitor whose server changed its tools');
    assert.equal(beta.type, 'tcp');
    assert.match(beta.target, /^127\.0\.0\.1:\d+$/);
    assert.deepEqual(beta.tags, ['Core', 'Überwachung']);
    assert.equal(typeof beta.lastLatencyMs, 'number');
    assert.ok(Date.now() - Date.parse(beta.lastCheckedAt) < 60_000);
    assert.equal(beta.changedAt, beta.lastCheckedAt, 'the first check counts as a change');
    assert.equal(beta.sparkline.length, 24);
    // The current hour is last (the hour may have turned since the check).
    const hourOfCheck = 23 - (Math.floor(readAt / HOUR_MS) - Math.floor(Date.parse(beta.lastCheckedAt) / HOUR_MS));
    assert.deepEqual(
      beta.sparkline.map((v: unknown, i: number) => (i === hourOfCheck ? typeof v : v)),
      Array.from({ length: 24 }, (_, i) => (i === hourOfCheck ? 'number' : null)),
    );
    const echo = overview.monitors.find((m: any) => m.id === ids.echo);
    assert.equal(echo.type, 'http');
    assert.match(echo.target, /^http:\/\/127\.0\.0\.1:\d+\/health$/);
    assert.ok(echo.lastLatencyMs >= 150, `the degraded check took its time (${echo.lastLatencyMs} ms)`);
    const charlie = overview.monitors.find((m: any) => m.id === ids.charlie);
    assert.deepEqual([charlie.lastLatencyMs, charlie.lastCheckedAt, charlie.changedAt], [null, null, null]);
    assert.deepEqual(charlie.sparkline, Array(24).fill(null));
    const delta = overview.monitors.find((m: any) => m.id === ids.delta);
    assert.deepEqual(delta.sparkline, Array(24).fill(null), 'a failed check has no latency to show');
    assert.equal(delta.lastLatencyMs, null, 'nor a last latency');
    assert.ok(Date.parse(delta.lastCheckedAt) <= Date.now());
  });

  test('a row says why a monitor is down or degraded, its uptime over 24 hours, and its latest checks as one letter each', async () => {
    const overview = await read(`${ws.id}/overview`);
    const row = (name: string) => overview.monitors.find((m: any) => m.id === ids[name]);
    assert.deepEqual(
      ['delta', 'echo', 'charlie', 'beta', 'zulu'].map((name) => [name, row(name).reason, row(name).uptime, row(name).recent]),
      [
        ['delta', 'connection refused', 0, 'x'],
        ['echo', row('echo').reason, 1, 'd'],
        ['charlie', null, null, ''],
        ['beta', null, 1, 'u'],
        ['zulu', null, 1, 'u'],
      ],
    );
    assert.match(row('echo').reason, /\d+ ms/, "a degraded check's message says what was slow");
    assert.ok(Date.now() - Date.parse(row('beta').createdAt) < 10 * 60_000);
  });

  test('the latest checks are the last 30, oldest first, whatever the history holds', async () => {
    const own = await workspace();
    const id = await tcpMonitor(own, 'long history', 'db.internal:5432');
    const db = await openTestDatabase(service.dataDir);
    const start = Date.now() - 40 * 60_000;
    try {
      // 40 checks a minute apart: 9 up, then one down, then 30 alternating up, degraded and down.
      const outcomes: CheckOutcome[] = [...Array(9).fill('up'), 'down', ...Array.from({ length: 30 }, (_, i) => (['up', 'degraded', 'down'] as const)[i % 3]!)];
      await db
        .insertInto('check_results')
        .values(
          outcomes.map((result, i) => ({
            monitor_id: Number(id),
            runner: 'local',
            regions: '["iad"]',
            started_at: start + i * 60_000,
            result,
            latency_ms: 5,
            attempts: 1,
            message: `check ${i}`,
          })),
        )
        .execute();
    } finally {
      await db.destroy();
    }
    const [row] = (await read(`${own.id}/overview`)).monitors;
    assert.equal(row.recent, 'udx'.repeat(10));
  });

  test("the sparkline holds each earlier hour's median where it has answered checks, oldest first", async () => {
    const past = await workspace();
    const id = await tcpMonitor(past, 'with history', 'db.internal:5432');
    const hour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
    // Hours written as the result store writes them: counts and a histogram of the answered checks.
    const db = await openTestDatabase(service.dataDir);
    try {
      for (const [hoursAgo, latencies, errors] of [
        [20, [10, 20, 30], 0],
        [5, [40, 50, 60, 70, 80], 1],
        [3, [], 2],
      ] as const) {
        const histogram = new LatencyHistogram();
        for (const ms of latencies) histogram.add(ms);
        await db
          .insertInto('check_rollups')
          .values({
            monitor_id: Number(id),
            hour: hour - hoursAgo * HOUR_MS,
            success_count: latencies.length,
            degraded_count: 0,
            error_count: errors,
            latency: histogram.encode(),
            last_ping_at: hour - hoursAgo * HOUR_MS,
          })
          .execute();
      }
    } finally {
      await db.destroy();
    }
    for (const round of ['first', 'again']) {
      const [row] = (await read(`${past.id}/overview`)).monitors;
      const readAt = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
      const at = (hoursAgo: number) => 23 - hoursAgo - (readAt - hour) / HOUR_MS;
      const filled = row.sparkline.flatMap((v: number | null, i: number) => (v === null ? [] : [[i, Math.round(v)]]));
      assert.deepEqual(
        filled,
        [
          [at(20), 20],
          [at(5), 60],
        ],
        `${round}: medians within 1%, and none for an hour of failures only`,
      );
      assert.equal(row.uptime, 8 / 11, `${round}: the 24 hours' checks that answered`);
    }
  });

  test('a check in the same state moves the last check but not when the state changed', async () => {
    const before = (await read(`${ws.id}/overview?q=alpha`)).monitors.find((m: any) => m.id === ids.alpha);
    await trigger(ws, ids.alpha!);
    const after = (await read(`${ws.id}/overview?q=alpha`)).monitors.find((m: any) => m.id === ids.alpha);
    assert.equal(after.changedAt, before.changedAt);
    assert.ok(Date.parse(after.lastCheckedAt) > Date.parse(before.lastCheckedAt));
  });

  test('q matches name, target or a tag, in any case and any script; state, type and tag filter; counts stay whole', async () => {
    const names = async (query: string) => {
      const overview = await read(`${ws.id}/overview?${query}`);
      assert.deepEqual(overview.counts, { up: 3, degraded: 1, down: 1, pending: 1, paused: 1 }, `counts of ${query}`);
      assert.equal(overview.total, overview.monitors.length);
      return overview.monitors.map((m: any) => m.name);
    };
    assert.deepEqual(await names('q=ALPHA'), ['Alpha', 'alpha']);
    assert.deepEqual(await names(`q=${encodeURIComponent('überWACHUNG')}`), ['beta']);
    assert.deepEqual(await names('q=%2Fhealth'), ['Echo']);
    assert.deepEqual(await names('q=CORE'), ['delta', 'beta']);
    assert.deepEqual(await names('state=up'), ['Alpha', 'alpha', 'beta']);
    assert.deepEqual(await names('state=paused'), ['zulu']);
    assert.deepEqual(await names('type=http'), ['Echo']);
    assert.deepEqual(await names('tag=core'), ['delta']);
    assert.deepEqual(await names('q=alpha&state=down'), []);
    assert.deepEqual(await names('q=%20%20'), ['delta', 'Echo', 'charlie', 'Alpha', 'alpha', 'beta', 'zulu'], 'a blank q filters nothing');
  });

  test('limit and offset page through the order; total counts every match', async () => {
    const page = await read(`${ws.id}/overview?limit=2&offset=1`);
    assert.deepEqual(
      page.monitors.map((m: any) => m.name),
      ['Echo', 'charlie'],
    );
    assert.equal(page.total, 7);
    const past = await read(`${ws.id}/overview?offset=50`);
    assert.deepEqual([past.monitors, past.total], [[], 7]);
  });

  test('bad query values are refused naming the field and the rule', async () => {
    await refused(`${ws.id}/overview?limit=0`, 400, 'VALIDATION', 'limit');
    await refused(`${ws.id}/overview?limit=201`, 400, 'VALIDATION', 'limit');
    await refused(`${ws.id}/overview?limit=ten`, 400, 'VALIDATION', 'limit');
    await refused(`${ws.id}/overview?offset=-1`, 400, 'VALIDATION', 'offset');
    await refused(`${ws.id}/overview?state=broken`, 400, 'VALIDATION', 'state');
    await refused(`${ws.id}/overview?type=ftp`, 400, 'VALIDATION', 'type');
    await refused(`${ws.id}/overview?q=${'x'.repeat(201)}`, 400, 'VALIDATION', 'q');
    const response = await dashboardGet(`${ws.id}/overview?limit=0`);
    const body = (await response.json()) as { violations: { field: string; rule: string }[] };
    assert.deepEqual(body.violations, [{ field: 'limit', rule: 'must be a whole number from 1 to 200' }]);
  });

  test('a workspace the person is not a member of does not exist, one that cannot be an id is refused naming it, and nothing answers without the session', async () => {
    const foreign = await withLocalOwner(service.dataDir, (services) =>
      services.workspaces.create({ type: 'system', surface: 'cli' }, { name: 'Theirs', slug: unique('theirs'), plan: 'scale' }),
    );
    await refused(`${foreign.id}/overview`, 404, 'NOT_FOUND');
    await refused('not-a-number/overview', 400, 'VALIDATION', 'workspaceId');
    const anonymous = await dashboardGet(`${ws.id}/overview`, { origin: service.dashboardUrl });
    assert.equal(anonymous.status, 401);
  });
});

describe("a monitor's latency, results and regions", () => {
  let ws: Workspace;
  let other: Workspace;
  let checked: string;
  let failing: string;
  let unchecked: string;

  before(async () => {
    ws = await workspace();
    other = await workspace();
    const up = await tcpTarget();
    checked = await tcpMonitor(ws, 'checked', up.target, { regions: ['iad', 'fra'] });
    failing = await tcpMonitor(ws, 'failing', await closedTarget());
    unchecked = await tcpMonitor(ws, 'unchecked', up.target, { regions: ['iad', 'ams'] });
    await trigger(ws, checked);
    await trigger(ws, checked);
    await trigger(ws, failing);
  });

  test('latency: aligned buckets over the whole window, percentiles of answered checks, outcome counts', async () => {
    for (const [window, bucketMs] of [
      ['1d', 15 * 60_000],
      ['7d', HOUR_MS],
      ['14d', 2 * HOUR_MS],
    ] as const) {
      const asked = Date.now();
      const series = await read(`${ws.id}/monitors/${checked}/latency?window=${window}`);
      const answered = Date.now();
      assert.equal(series.window, window);
      assert.equal(series.bucketMs, bucketMs);
      const windowMs = { '1d': 24, '7d': 168, '14d': 336 }[window] * HOUR_MS;
      assert.equal(series.points.length, windowMs / bucketMs + 1, `${window}: the bucket the window starts in, to the current one`);
      const times = series.points.map((p: any) => Date.parse(p.at));
      assert.ok(
        times.every((t: number, i: number) => t % bucketMs === 0 && (i === 0 || t - times[i - 1] === bucketMs)),
        `${window}: aligned and contiguous`,
      );
      assert.ok(times[0] <= answered - windowMs && asked < times.at(-1) + bucketMs, `${window}: covers the window`);
      const filled = series.points.filter((p: any) => p.up + p.degraded + p.down > 0);
      assert.deepEqual([sum(filled, 'up'), sum(filled, 'degraded'), sum(filled, 'down')], [2, 0, 0], `${window}: both checks counted`);
      assert.ok(filled.every((p: any) => p.p50 > 0 && p.p95 >= p.p50 && p.p99 >= p.p95));
      assert.ok(
        series.points.every((p: any) => filled.includes(p) || (p.p50 === null && p.p95 === null && p.p99 === null)),
        'no percentiles without checks',
      );
      assert.ok(Array.isArray(series.gaps));
    }
    const down = await read(`${ws.id}/monitors/${failing}/latency`);
    assert.equal(down.window, '1d', 'the default window');
    const failed = down.points.filter((p: any) => p.down > 0);
    assert.deepEqual(
      failed.map((p: any) => [p.up, p.down, p.p50]),
      [[0, 1, null]],
      'a failure counts but has no latency',
    );
  });

  test('results: newest first, one per check with the regions it stood for and the runner that made it', async () => {
    const { results } = await read(`${ws.id}/monitors/${checked}/results`);
    assert.deepEqual(
      results.map((r: any) => r.regions),
      [
        ['iad', 'fra'],
        ['iad', 'fra'],
      ],
      'two checks, each once, standing for both regions',
    );
    assert.ok(Date.parse(results[0].startedAt) >= Date.parse(results[1].startedAt));
    for (const r of results) {
      assert.deepEqual(Object.keys(r).sort(), [
        'attempts',
        'certificate',
        'dns',
        'grpcStatus',
        'heartbeat',
        'id',
        'latencyMs',
        'mcp',
        'message',
        'ping',
        'regions',
        'result',
        'runner',
        'startedAt',
        'statusCode',
        'timing',
        'websocket',
      ]);
      for (const record of ['mcp', 'certificate', 'dns', 'heartbeat', 'ping', 'websocket'])
        assert.equal(r[record], null, `only its type's check has a ${record} record`);
      assert.match(r.id, /^\d+$/, 'the id names the check');
      assert.deepEqual([r.result, r.runner, r.attempts, r.grpcStatus, r.statusCode], ['up', 'local', 1, null, null]);
      assert.deepEqual(Object.keys(r.timing).sort(), ['connect', 'dns', 'tls', 'total', 'transfer', 'ttfb']);
    }
    assert.notEqual(results[0].id, results[1].id);
    assert.equal((await read(`${ws.id}/monitors/${checked}/results?limit=1`)).results.length, 1, '`limit` counts checks');
    const [down] = (await read(`${ws.id}/monitors/${failing}/results?limit=1`)).results;
    assert.deepEqual([down.result, down.message], ['down', 'connection refused']);
    assert.deepEqual((await read(`${ws.id}/monitors/${unchecked}/results`)).results, []);
  });

  test('regions: health per region with the runner that checked it; none before the first check', async () => {
    const { regions } = await read(`${ws.id}/monitors/${checked}/regions`);
    assert.deepEqual(
      regions.map((r: any) => [r.region, r.status, r.runner]),
      [
        ['iad', 'active', 'local'],
        ['fra', 'active', 'local'],
      ],
    );
    assert.ok(regions.every((r: any) => Date.now() - Date.parse(r.lastCheckedAt) < 60_000));
    assert.deepEqual(
      (await read(`${ws.id}/monitors/${failing}/regions`)).regions.map((r: any) => r.status),
      ['error'],
    );
    assert.deepEqual((await read(`${ws.id}/monitors/${unchecked}/regions`)).regions, [
      { region: 'iad', status: null, lastCheckedAt: null, runner: null },
      { region: 'ams', status: null, lastCheckedAt: null, runner: null },
    ]);
  });

  test("another workspace's monitor is not found through this one; bad values name their field", async () => {
    for (const view of ['latency', 'results', 'regions']) {
      await refused(`${other.id}/monitors/${checked}/${view}`, 404, 'NOT_FOUND');
      await refused(`${ws.id}/monitors/999999999/${view}`, 404, 'NOT_FOUND');
      await refused(`${ws.id}/monitors/x1/${view}`, 404, 'NOT_FOUND');
    }
    await refused(`${ws.id}/monitors/${checked}/latency?window=30d`, 400, 'VALIDATION', 'window');
    await refused(`${ws.id}/monitors/${checked}/results?limit=101`, 400, 'VALIDATION', 'limit');
    await refused(`${ws.id}/monitors/${checked}/results?limit=0`, 400, 'VALIDATION', 'limit');
  });
});

describe('GET /api/workspaces/:id/plan', () => {
  test("what the workspace's plan allows", async () => {
    const scale = await read(`${(await workspace('scale')).id}/plan`);
    assert.deepEqual(scale, {
      plan: 'scale',
      frequencies: ['30s', '1m', '5m', '10m', '30m', '1h'],
      regions: ['iad', 'ams', 'sin', 'syd', 'fra', 'gru', 'jnb', 'lax', 'lhr', 'nrt', 'ord', 'bom', 'cdg', 'yyz'],
      defaultTcpRegions: ['iad', 'ams', 'sin', 'syd', 'fra', 'gru'],
      auditLog: true,
      subscriberNotifications: true,
    });
    const hobby = await read(`${(await workspace('hobby')).id}/plan`);
    assert.deepEqual(
      [hobby.plan, hobby.frequencies, hobby.defaultTcpRegions, hobby.auditLog, hobby.subscriberNotifications],
      ['hobby', ['10m', '30m', '1h'], ['iad', 'ams', 'sin', 'syd'], false, false],
    );
  });
});

describe('GET /api/workspaces/:id/audit', () => {
  let ws: Workspace;
  const monitorIds: Record<'dashboard' | 'apiKey' | 'cli', string> = { dashboard: '', apiKey: '', cli: '' };
  let pageId: string;

  before(async () => {
    ws = await workspace();
    monitorIds.dashboard = (
      await dashboardRpc(ws.id).createTCPMonitor({ monitor: { name: 'from the dashboard', uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M } })
    ).monitor!.id;
    monitorIds.apiKey = await tcpMonitor(ws, 'with a key', 'db.internal:5433');
    monitorIds.cli = await withLocalOwner(service.dataDir, async (services, owner) => {
      const monitor = await services.monitors.create(owner, Number(ws.id), 'tcp', { name: 'from the CLI', uri: 'db.internal:5434', periodicity: '1m' });
      pageId = (await services.pages.create(owner, Number(ws.id), { title: 'Status', slug: unique('audit-page') })).id;
      return monitor.id;
    });
    const mcp = await connectMcp(service.apiUrl, MODERN_ERA, ws.key);
    try {
      const result = await mcp.call('create_maintenance', {
        pageId,
        title: 'Upgrade',
        from: '2030-01-01T00:00:00Z',
        to: '2030-01-01T01:00:00Z',
        notify: false,
      });
      assert.ok(!result.isError, JSON.stringify(result.content));
    } finally {
      await mcp.close();
    }
  });

  test('entries newest first, with who acted as people name them, and the snapshots as stored', async () => {
    const { entries, next } = await read(`${ws.id}/audit?entityType=monitor`);
    assert.equal(next, null);
    assert.deepEqual(
      entries.map((e: any) => [e.entityId, e.action, e.actor.kind, e.actor.label]),
      [
        [monitorIds.cli, 'monitor.create', 'cli', personName],
        [monitorIds.apiKey, 'monitor.create', 'apiKey', 'write key'],
        [monitorIds.dashboard, 'monitor.create', 'dashboard', personName],
      ],
    );
    const entry = entries[2];
    assert.deepEqual(
      Object.keys(entry).sort(),
      ['action', 'actor', 'after', 'before', 'changedFields', 'createdAt', 'entityId', 'entityType', 'id', 'record', 'words'].sort(),
    );
    assert.equal(entry.before, null);
    assert.equal(entry.after.name, 'from the dashboard');
    assert.ok(entry.changedFields.includes('name'));
    const [maintenance] = (await read(`${ws.id}/audit?entityType=maintenance`)).entries;
    assert.deepEqual([maintenance.actor.kind, maintenance.actor.label], ['mcp', 'write key'], 'a change through MCP, whatever the credential');
  });

  test('the actor filter tells the dashboard from the CLI, and keys and MCP from both', async () => {
    const of = async (actor: string) => (await read(`${ws.id}/audit?actor=${actor}`)).entries.map((e: any) => `${e.action} ${e.entityId}`);
    assert.deepEqual(await of('dashboard'), [`monitor.create ${monitorIds.dashboard}`]);
    const cli = await of('cli');
    assert.ok(cli.includes(`monitor.create ${monitorIds.cli}`) && cli.includes(`workspace.create ${ws.id}`), cli.join(', '));
    assert.ok(!cli.includes(`monitor.create ${monitorIds.dashboard}`));
    assert.deepEqual(await of('apiKey'), [`monitor.create ${monitorIds.apiKey}`]);
    assert.equal((await of('mcp')).length, 1);
    assert.deepEqual(await of('oauth'), []);
    assert.deepEqual(await of('system'), []);
  });

  test('entity, time and keyset pages: every entry once, in order, however the page size', async () => {
    const all = (await read(`${ws.id}/audit?limit=100`)).entries;
    assert.ok(all.length >= 7, `workspace, key, three monitors, page, maintenance: ${all.length}`);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { entries: { id: string }[]; next: string | null } = await read(
        `${ws.id}/audit?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      assert.ok(page.entries.length <= 2);
      seen.push(...page.entries.map((e) => e.id));
      cursor = page.next;
    } while (cursor);
    assert.deepEqual(
      seen,
      all.map((e: any) => e.id),
    );
    const byEntity = (await read(`${ws.id}/audit?entityType=monitor&entityId=${monitorIds.apiKey}`)).entries;
    assert.deepEqual(
      byEntity.map((e: any) => e.entityId),
      [monitorIds.apiKey],
    );
    const middle = all[3];
    const since = (await read(`${ws.id}/audit?from=${encodeURIComponent(middle.createdAt)}&limit=100`)).entries;
    assert.ok(since.some((e: any) => e.id === middle.id) && since.every((e: any) => e.createdAt >= middle.createdAt), 'from is inclusive');
    const until = (await read(`${ws.id}/audit?to=${encodeURIComponent(middle.createdAt)}&limit=100`)).entries;
    assert.ok(until.some((e: any) => e.id === middle.id) && until.every((e: any) => e.createdAt <= middle.createdAt), 'to is inclusive');
  });

  test('bad values name their field; the plans without the audit log refuse it', async () => {
    await refused(`${ws.id}/audit?limit=0`, 400, 'VALIDATION', 'limit');
    await refused(`${ws.id}/audit?limit=101`, 400, 'VALIDATION', 'limit');
    await refused(`${ws.id}/audit?actor=someone`, 400, 'VALIDATION', 'actor');
    await refused(`${ws.id}/audit?from=yesterday`, 400, 'VALIDATION', 'from');
    await refused(`${ws.id}/audit?to=2026-13-45T00:00:00Z`, 400, 'VALIDATION', 'to');
    await refused(`${ws.id}/audit?cursor=not-a-cursor`, 400, 'VALIDATION', 'cursor');
    await refused(`${(await workspace('starter')).id}/audit`, 400, 'PRECONDITION_FAILED');
  });
});

/** The live feed as the UI reads it: fetch with the session, frames parsed as they arrive. */
async function openEvents(base: string, workspaceId: string, headers: Record<string, string>) {
  const abort = new AbortController();
  const response = await fetch(`${base}/api/workspaces/${workspaceId}/events`, { headers, signal: abort.signal });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let ended = false;
  /** The next frame: a comment, or an event with its JSON; fails after `ms`. */
  async function next(ms = 5_000): Promise<{ comment?: string; event?: string; data?: any }> {
    const deadline = Date.now() + ms;
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (frame.startsWith(': ')) return { comment: frame.slice(2) };
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        return { event, data: data === undefined ? undefined : JSON.parse(data) };
      }
      if (ended) throw new Error('the stream ended');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no frame in time')), Math.max(0, deadline - Date.now()));
      });
      try {
        const { done, value } = await Promise.race([reader.read(), timeout]);
        if (done) ended = true;
        else buffer += value;
      } finally {
        clearTimeout(timer);
      }
    }
  }
  /** The next event, skipping comments. */
  async function nextEvent(ms = 5_000) {
    for (;;) {
      const frame = await next(ms);
      if (frame.event) return frame as { event: string; data: any };
    }
  }
  /** Resolves true when the server ends the stream within `ms`. */
  async function endsWithin(ms: number): Promise<boolean> {
    try {
      for (;;) await next(ms);
    } catch (error) {
      return (error as Error).message === 'the stream ended';
    }
  }
  return { response, next, nextEvent, endsWithin, close: () => abort.abort() };
}

describe('GET /api/workspaces/:id/events', () => {
  test('opens with a comment, then announces state changes and committed changes of this workspace only', async () => {
    const ws = await workspace();
    const elsewhere = await workspace();
    const target = await tcpTarget();
    const id = await tcpMonitor(ws, 'watched', target.target);
    const otherId = await tcpMonitor(elsewhere, 'elsewhere', await closedTarget());
    await trigger(ws, id);
    const changedBefore = (await read(`${ws.id}/overview`)).monitors[0].changedAt;
    const events = await openEvents(service.dashboardUrl, ws.id, session);
    try {
      assert.equal(events.response.status, 200);
      assert.match(events.response.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.deepEqual(await events.next(), { comment: 'connected' });

      await new Promise((resolve) => target.server.close(resolve));
      await trigger(elsewhere, otherId);
      await trigger(ws, id);
      const state = await events.nextEvent();
      assert.equal(state.event, 'state');
      assert.deepEqual(
        { ...state.data, at: undefined },
        { type: 'state', monitorId: id, monitorName: 'watched', from: 'up', to: 'down', at: undefined, message: 'connection refused' },
      );
      const row = (await read(`${ws.id}/overview`)).monitors[0];
      assert.equal(row.state, 'down');
      assert.equal(row.changedAt, state.data.at, 'the overview keeps when the state changed');
      assert.ok(Date.parse(row.changedAt) > Date.parse(changedBefore));

      // A change in another workspace first: the stream must skip it.
      await elsewhere.rpc.updateTCPMonitor({ id: otherId, monitor: { name: 'elsewhere, renamed' }, updateMask: { paths: ['name'] } });
      await ws.rpc.updateTCPMonitor({ id, monitor: { name: 'watched, renamed' }, updateMask: { paths: ['name'] } });
      assert.deepEqual(await events.nextEvent(), { event: 'changed', data: { type: 'changed', entity: 'monitor', id } });

      // The owner's local tools write from another connection: read from the log within seconds.
      const key = await withLocalOwner(service.dataDir, (services, owner) =>
        services.keys.create(owner, { workspaceId: Number(ws.id), name: 'made by the CLI', scope: 'read' }),
      );
      assert.deepEqual(await events.nextEvent(10_000), { event: 'changed', data: { type: 'changed', entity: 'key', id: key.key.id } });
    } finally {
      events.close();
    }
  });

  test("another workspace's stream is not found, and none opens without the session", async () => {
    const foreign = await withLocalOwner(service.dataDir, (services) =>
      services.workspaces.create({ type: 'system', surface: 'cli' }, { name: 'Theirs', slug: unique('theirs'), plan: 'scale' }),
    );
    const response = await fetch(`${service.dashboardUrl}/api/workspaces/${foreign.id}/events`, { headers: session });
    assert.equal(response.status, 404);
    assert.equal(((await response.json()) as { code: string }).code, 'NOT_FOUND');
    const anonymous = await fetch(`${service.dashboardUrl}/api/workspaces/${foreign.id}/events`, { headers: { origin: service.dashboardUrl } });
    assert.equal(anonymous.status, 401);
  });

  test('the service stops at once with a stream open, and the stream ends', async () => {
    const own = await startTestService();
    let stopped = false;
    try {
      const headers = await dashboardSession(own);
      const { workspaces } = (await (await fetch(`${own.dashboardUrl}/api/session`, { headers })).json()) as { workspaces: { id: string }[] };
      const events = await openEvents(own.dashboardUrl, workspaces[0]!.id, headers);
      assert.deepEqual(await events.next(), { comment: 'connected' });
      const ended = events.endsWithin(3_000);
      const started = performance.now();
      await own.stop();
      stopped = true;
      const ms = performance.now() - started;
      assert.ok(ms < 2_000, `stop took ${Math.round(ms)} ms`);
      assert.ok(await ended, 'the stream ended');
    } finally {
      if (!stopped) await own.stop();
    }
  });
});

describe('POST /api/workspaces/:id/pages/:pageId/export', () => {
  test('the static site of a status page as a zip, made by the export of the CLI; nothing stays in the data folder', async () => {
    const ws = await workspace();
    const slug = unique('exported');
    const page = await withLocalOwner(service.dataDir, (services, owner) => services.pages.create(owner, Number(ws.id), { title: 'Exported status', slug }));
    const lasting = () =>
      readdirSync(service.dataDir)
        .filter((f) => !/-(wal|shm)$/.test(f))
        .sort();
    const exportFolders = () => readdirSync(tmpdir()).filter((f) => f.startsWith('statusdesk-export-'));
    const filesBefore = lasting();
    const response = await fetch(`${service.dashboardUrl}/api/workspaces/${ws.id}/pages/${page.id}/export`, {
      method: 'POST',
      headers: { ...session, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(response.headers.get('content-type'), 'application/zip');
    assert.equal(response.headers.get('content-disposition'), `attachment; filename="${slug}-status-page.zip"`);
    const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
    assert.deepEqual(Object.keys(files).sort(), ['feed.atom', 'index.html', 'page.js', 'summary.json']);
    const html = new TextDecoder().decode(files['index.html']);
    assert.match(html, /^<!doctype html>/i);
    assert.match(html, /Exported status/);
    assert.ok(!html.includes('<form'), 'the static copy has no subscription form');
    assert.equal(JSON.parse(new TextDecoder().decode(files['summary.json'])).page.title, 'Exported status');
    assert.deepEqual(lasting(), filesBefore, 'nothing was written into the data folder');
    assert.deepEqual(exportFolders(), [], 'the temporary folder is gone');
  });

  test("another workspace's page is not found; the request must come from the dashboard's page as JSON", async () => {
    const ws = await workspace();
    const other = await workspace();
    const page = await withLocalOwner(service.dataDir, (services, owner) =>
      services.pages.create(owner, Number(ws.id), { title: 'Mine', slug: unique('mine') }),
    );
    const post = (workspaceId: string, headers: Record<string, string>) =>
      fetch(`${service.dashboardUrl}/api/workspaces/${workspaceId}/pages/${page.id}/export`, { method: 'POST', headers, body: '{}' });
    const notFound = await post(other.id, { ...session, 'content-type': 'application/json' });
    assert.equal(notFound.status, 404);
    assert.equal(((await notFound.json()) as { code: string }).code, 'NOT_FOUND');
    assert.equal((await post(ws.id, { ...session, 'content-type': 'text/plain' })).status, 400);
  });
});

describe("a monitor's overall state, as the result store keeps it", () => {
  const check = (monitorId: number, runner: string, startedAt: number, result: CheckOutcome): StoredCheck => ({
    monitorId,
    workspaceId: 1,
    runner,
    regions: ['iad'],
    startedAt,
    result,
    latencyMs: 5,
    timing: { dns: null, connect: 5, tls: null, ttfb: null, transfer: null, total: 5 },
    attempts: 1,
    message: result,
    grpcStatus: null,
    statusCode: null,
    url: null,
    responseHeaders: {},
    assertionResults: [],
  });

  test('the worst of the runners, changed when a check changes it, and known again after a restart', async () => {
    const dir = await tempDir();
    const db = await openTestDatabase(dir.path);
    try {
      const owner = await ensureOwner(db);
      const monitor = await createServices(db).monitors.create({ type: 'user', userId: owner, surface: 'cli' }, 1, 'tcp', {
        name: 'm',
        uri: 'db.internal:1',
        periodicity: '1m',
        active: false,
      });
      const id = Number(monitor.id);
      const stored = async () => db.selectFrom('monitor_state').select(['state', 'changed_at']).where('monitor_id', '=', id).executeTakeFirst();
      const t = 1_800_000_000_000;
      const store = createResultStore(db);
      const moves = async (checks: StoredCheck[]) => (await store.write(checks)).map((m) => `${m.from}>${m.to}`);
      assert.deepEqual(await moves([check(id, 'local', t, 'up'), check(id, 'remote', t + 1, 'down'), check(id, 'remote', t + 2, 'down')]), [
        'null>up',
        'up>down',
        'down>down',
      ]);
      assert.deepEqual(await stored(), { state: 'down', changed_at: t + 1 });
      // A check older than its runner's latest changes nothing; the remote runner recovering does.
      assert.deepEqual(await moves([check(id, 'remote', t - 5, 'up'), check(id, 'remote', t + 3, 'degraded'), check(id, 'remote', t + 4, 'up')]), [
        'down>down',
        'down>degraded',
        'degraded>up',
      ]);
      assert.deepEqual(await stored(), { state: 'up', changed_at: t + 4 });
      // Another store on the same data (a restart) reads what the first one kept.
      assert.deepEqual(
        (await createResultStore(db).write([check(id, 'local', t + 5, 'up')])).map((m) => `${m.from}>${m.to}`),
        ['up>up'],
      );
      assert.deepEqual(await stored(), { state: 'up', changed_at: t + 4 });
    } finally {
      await db.destroy();
      await dir.remove();
    }
  });
});

describe('migration 0007 on data of an earlier version', { skip: sqliteOnly }, () => {
  test('fills the overall state with when it began, the last latency, and leaves old entries without a surface (the CLI)', async () => {
    const dir = await tempDir();
    try {
      // A database as version 6 left it, with a monitor that was down, then up for two checks.
      const sqlite = new SQLite(join(dir.path, DATABASE_FILE));
      const old = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
      const earlier = Object.fromEntries(Object.entries(migrations).slice(0, 6));
      const { error } = await new Migrator({ db: old, provider: { getMigrations: async () => earlier } }).migrateToLatest();
      assert.ifError(error);
      sqlite.pragma(`application_id = ${0x5344534b}`);
      sqlite.pragma('user_version = 6');
      const now = new Date().toISOString();
      sqlite.prepare("insert into workspaces (name, slug, plan, created_at) values ('w', 'w', 'scale', ?)").run(now);
      sqlite
        .prepare(
          "insert into monitors (workspace_id, type, name, description, active, periodicity, regions, timeout_ms, retry, tags, settings, revision, created_at, updated_at) values (1, 'tcp', 'm', '', 1, '1m', '[\"iad\"]', 1000, 0, '[]', '{\"uri\":\"db.internal:1\"}', 1, ?, ?)",
        )
        .run(now, now);
      const hour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
      const checks: [number, string, number][] = [
        [hour - 2 * HOUR_MS + 5_000, 'down', 900],
        [hour - HOUR_MS + 10_000, 'up', 12],
        [hour + 1_000, 'up', 15],
      ];
      for (const [at, result, latency] of checks) {
        sqlite
          .prepare(
            "insert into check_results (monitor_id, runner, regions, started_at, result, latency_ms, attempts, message) values (1, 'local', '[\"iad\"]', ?, ?, ?, 1, '')",
          )
          .run(at, result, latency);
        sqlite
          .prepare(
            'insert into check_rollups (monitor_id, hour, success_count, degraded_count, error_count, latency, last_ping_at) values (1, ?, ?, 0, ?, ?, ?)',
          )
          .run(Math.floor(at / HOUR_MS) * HOUR_MS, result === 'up' ? 1 : 0, result === 'down' ? 1 : 0, Buffer.alloc(0), at);
      }
      sqlite.prepare("insert into check_state (monitor_id, runner, result, regions, checked_at) values (1, 'local', 'up', '[\"iad\"]', ?)").run(hour + 1_000);
      sqlite
        .prepare(
          "insert into audit_log (workspace_id, entity_type, entity_id, action, actor_type, actor_id, actor_user_id, changed_fields, created_at) values (1, 'monitor', '1', 'monitor.create', 'user', '1', null, '[]', ?)",
        )
        .run(now);
      await old.destroy();

      const db = await openDatabase(dir.path);
      try {
        assert.deepEqual(
          await db.selectFrom('monitor_state').selectAll().execute(),
          [{ monitor_id: 1, state: 'up', changed_at: hour - HOUR_MS + 10_000 }],
          'up since the first check after the last failure',
        );
        assert.deepEqual(await db.selectFrom('check_state').select('latency_ms').execute(), [{ latency_ms: 15 }]);
        const { entries } = await createAuditLogService(db).entries({ type: 'system', surface: 'cli' }, 1, {});
        assert.deepEqual(
          entries.map((e) => e.actor.kind),
          ['cli'],
        );
      } finally {
        await db.destroy();
      }
    } finally {
      await dir.remove();
    }
  });
});
