/**
 * Monitors checked from private locations, over the API (ConnectRPC) and MCP against the real
 * service: the ids a monitor may name (its workspace's locations only, each once, at most 10),
 * regions when locations are given, updates that replace them, the revision the runners watch,
 * and a location standing as its own region, named by the location, in the monitor's status.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { FieldMaskSchema } from '@bufbuild/protobuf/wkt';
import { Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { openTestDatabase } from './support/database.ts';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertViolation, jsonOf, monitorRpc, newWorkspace, perTestCleanup, runCli, startTestService, type TestService } from './support/harness.ts';
import { connectMcp, ok } from './support/mcp-client.ts';

const SCALE_DEFAULT_REGIONS = ['iad', 'ams', 'sin', 'syd', 'fra', 'gru'];

/** A private location of the workspace, made in the database as the location service stores one: its id and name. */
async function location(svc: TestService, workspaceId: string): Promise<{ id: string; name: string }> {
  const db = await openTestDatabase(svc.dataDir);
  try {
    const name = `office-${randomBytes(4).toString('hex')}`;
    const row = await db
      .insertInto('private_locations')
      .values({
        name,
        status: 'active',
        metadata: '{}',
        regions: null,
        token_hash: null,
        last_seen_at: null,
        created_at: new Date().toISOString(),
        workspace_id: Number(workspaceId),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: String(row.id), name };
  } finally {
    await db.destroy();
  }
}

async function withDb<T>(svc: TestService, run: (db: Awaited<ReturnType<typeof openTestDatabase>>) => Promise<T>): Promise<T> {
  const db = await openTestDatabase(svc.dataDir);
  try {
    return await run(db);
  } finally {
    await db.destroy();
  }
}

const revisionOf = (svc: TestService, id: string) =>
  withDb(svc, async (db) => (await db.selectFrom('monitors').select('revision').where('id', '=', Number(id)).executeTakeFirstOrThrow()).revision);

const tcp = (fields: Record<string, unknown> = {}) => ({ name: 'db', uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M, ...fields });
const grpc = (fields: Record<string, unknown> = {}) => ({ name: 'api', uri: 'api.internal:50051', periodicity: Periodicity.PERIODICITY_1M, ...fields });
const http = (fields: Record<string, unknown> = {}) => ({ name: 'site', url: 'https://example.com/', periodicity: Periodicity.PERIODICITY_1M, ...fields });

describe('monitors with private locations', () => {
  let svc: TestService;
  const cleanup = perTestCleanup();
  /** A fresh workspace with a write key, its MonitorService, `statusdesk` with its key, and two of its locations. */
  async function workspace() {
    const ws = await newWorkspace(svc, 'locations');
    const key = await svc.createKey('write', ws.slug);
    const [first, second] = [await location(svc, ws.id), await location(svc, ws.id)];
    const env = { SERVICE_API_KEY: key.secret, SERVICE_API_URL: svc.apiUrl, STATUSDESK_DATA_DIR: undefined };
    return { ws, key, rpc: monitorRpc(svc, key.secret), cli: (args: string[]) => runCli(args, env), first, second };
  }

  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc.stop();
  });

  test('a monitor given private locations and no regions runs from its locations alone; with regions, from both', async () => {
    const { rpc, first, second } = await workspace();
    const only = (await rpc.createTCPMonitor({ monitor: tcp({ privateLocations: [second.id, first.id] }) })).monitor!;
    assert.deepEqual(only.regions, []);
    assert.deepEqual(only.privateLocations, [first.id, second.id], 'listed by id');
    const both = (await rpc.createHTTPMonitor({ monitor: http({ regions: ['fra'], privateLocations: [first.id] }) })).monitor!;
    assert.deepEqual([both.regions, both.privateLocations], [['fra'], [first.id]]);
    const plain = (await rpc.createTCPMonitor({ monitor: tcp() })).monitor!;
    assert.deepEqual([plain.regions, plain.privateLocations], [SCALE_DEFAULT_REGIONS, []]);

    const got = await rpc.getMonitor({ id: only.id });
    assert.equal(got.monitor.case, 'tcpMonitor');
    assert.deepEqual(got.monitor.value!.privateLocations, [first.id, second.id]);
    const listed = await rpc.listMonitors({});
    assert.deepEqual(listed.tcpMonitors.find((m) => m.id === only.id)!.privateLocations, [first.id, second.id]);
    assert.deepEqual(listed.httpMonitors.find((m) => m.id === both.id)!.privateLocations, [first.id]);
  });

  test('a gRPC monitor needs a region or a private location', async () => {
    const { rpc, first } = await workspace();
    await assertViolation(rpc.createGRPCMonitor({ monitor: grpc() }), 'monitor.regions', /at least one region, or at least one private location/);
    const created = (await rpc.createGRPCMonitor({ monitor: grpc({ privateLocations: [first.id] }) })).monitor!;
    assert.deepEqual([created.regions, created.privateLocations], [[], [first.id]]);
  });

  test('each id must be a private location of the workspace, named once, at most 10', async () => {
    const { rpc, first } = await workspace();
    const other = await newWorkspace(svc, 'elsewhere');
    const theirs = await location(svc, other.id);
    await assertViolation(
      rpc.createTCPMonitor({ monitor: tcp({ privateLocations: [first.id, theirs.id] }) }),
      'monitor.privateLocations.1',
      new RegExp(`no private location with id "${theirs.id}" in this workspace`),
    );
    // The embedded runner serves regions: it is not a location a monitor names.
    await assertViolation(rpc.createTCPMonitor({ monitor: tcp({ privateLocations: ['1'] }) }), 'monitor.privateLocations.0', /no private location with id "1"/);
    await assertViolation(
      rpc.createTCPMonitor({ monitor: tcp({ privateLocations: ['office'] }) }),
      'monitor.privateLocations.0',
      /no private location with id "office"/,
    );
    await assertViolation(rpc.createTCPMonitor({ monitor: tcp({ privateLocations: [first.id, first.id] }) }), 'monitor.privateLocations', /twice/);
    const eleven = Array.from({ length: 11 }, (_, i) => String(1000 + i));
    await assertViolation(rpc.createTCPMonitor({ monitor: tcp({ privateLocations: eleven }) }), 'monitor.privateLocations', /at most 10/);
    const { monitors } = await rpc.listMonitors({}).then((r) => ({ monitors: r.tcpMonitors }));
    assert.deepEqual(monitors, [], 'nothing refused was stored');
  });

  test('an update replaces the private locations and bumps the revision; one leaving nowhere to check from is refused', async () => {
    const { rpc, first, second } = await workspace();
    const created = (await rpc.createTCPMonitor({ monitor: tcp({ privateLocations: [first.id] }) })).monitor!;
    const revision = await revisionOf(svc, created.id);

    const replaced = (await rpc.updateTCPMonitor({ id: created.id, monitor: { privateLocations: [second.id] } })).monitor!;
    assert.deepEqual([replaced.regions, replaced.privateLocations], [[], [second.id]]);
    assert.equal(await revisionOf(svc, created.id), revision + 1, 'a change of locations alone is a new revision');

    await assertViolation(
      rpc.updateTCPMonitor({ id: created.id, monitor: {}, updateMask: create(FieldMaskSchema, { paths: ['private_locations'] }) }),
      'monitor.regions',
      /unless the monitor has private locations/,
    );
    const regained = (
      await rpc.updateTCPMonitor({ id: created.id, monitor: {}, updateMask: create(FieldMaskSchema, { paths: ['regions', 'private_locations'] }) })
    ).monitor!;
    assert.deepEqual([regained.regions, regained.privateLocations], [SCALE_DEFAULT_REGIONS, []], 'both cleared: the plan default regions');
    const added = (await rpc.updateTCPMonitor({ id: created.id, monitor: { privateLocations: [first.id, second.id] } })).monitor!;
    assert.deepEqual([added.regions, added.privateLocations], [SCALE_DEFAULT_REGIONS, [first.id, second.id]], 'locations besides regions');

    const grpcMonitor = (await rpc.createGRPCMonitor({ monitor: grpc({ privateLocations: [first.id] }) })).monitor!;
    await assertViolation(
      rpc.updateGRPCMonitor({ id: grpcMonitor.id, monitor: {}, updateMask: create(FieldMaskSchema, { paths: ['private_locations'] }) }),
      'monitor.regions',
      /at least one region, or the monitor at least one private location/,
    );
  });

  test("the status and the dashboard's regions list the regions, then each location by its name; a deleted location drops out", async () => {
    const { ws, rpc, first, second } = await workspace();
    const created = (await rpc.createTCPMonitor({ monitor: tcp({ regions: ['fra'], privateLocations: [first.id, second.id] }) })).monitor!;
    const status = await rpc.getMonitorStatus({ id: created.id });
    assert.deepEqual(
      status.regions.map((r) => r.region),
      ['fra', first.name, second.name],
    );
    const owner = { type: 'user', userId: svc.ownerId, surface: 'dashboard' } as const;
    const shown = await svc.services.monitorViews.regions(owner, Number(ws.id), created.id);
    assert.deepEqual(
      shown.map((r) => r.region),
      ['fra', first.name, second.name],
    );

    await withDb(svc, (db) => db.deleteFrom('private_locations').where('id', '=', Number(second.id)).execute());
    assert.deepEqual(
      (await rpc.getMonitorStatus({ id: created.id })).regions.map((r) => r.region),
      ['fra', first.name],
    );
    assert.deepEqual((await rpc.getMonitor({ id: created.id })).monitor.value!.privateLocations, [first.id]);
    const listed = await rpc.listMonitors({});
    assert.deepEqual(listed.tcpMonitors.find((m) => m.id === created.id)!.privateLocations, [first.id], 'a kept page sees the cascade');
  });

  test("response logs name a location's results by the location; a monitor checked from locations alone has none of the embedded runner's gaps", async () => {
    const { rpc, first } = await workspace();
    const only = (await rpc.createHTTPMonitor({ monitor: http({ privateLocations: [first.id] }) })).monitor!;
    const regional = (await rpc.createHTTPMonitor({ monitor: http({ name: 'regional', regions: ['fra'] }) })).monitor!;
    const startedAt = Date.now() - 60_000;
    await withDb(svc, async (db) => {
      await db
        .insertInto('check_results')
        .values({
          monitor_id: Number(only.id),
          runner: first.name,
          regions: JSON.stringify([first.name]),
          started_at: startedAt,
          result: 'up',
          latency_ms: 12,
          dns_ms: null,
          connect_ms: 3,
          tls_ms: null,
          ttfb_ms: 8,
          transfer_ms: 1,
          attempts: 1,
          message: 'ok',
          grpc_status: null,
          status_code: 200,
          details: null,
        })
        .execute();
      await db
        .insertInto('check_gaps')
        .values({ runner: 'local', started_at: startedAt - 30_000, ended_at: startedAt - 20_000 })
        .execute();
    });
    const { results } = await rpc.listResponseLogs({ id: only.id });
    assert.deepEqual(
      results.map((r) => [r.region, r.runner, r.statusCode]),
      [[first.name, first.name, 200]],
    );
    assert.deepEqual((await rpc.getMonitorSummary({ id: only.id })).gaps, [], 'the embedded runner does not check it');
    assert.equal((await rpc.getMonitorSummary({ id: regional.id })).gaps.length, 1, 'the embedded runner checks its regions');
  });

  test('MCP: list_monitors and get_monitor show privateLocations; get_monitor_status names the location', async () => {
    const { ws, rpc, first } = await workspace();
    const created = (await rpc.createHTTPMonitor({ monitor: http({ privateLocations: [first.id] }) })).monitor!;
    const read = await svc.createKey('read', ws.slug);
    const mcp = await connectMcp(svc.apiUrl, '2025-11-25', read.secret);
    try {
      const got = ok(await mcp.call('get_monitor', { monitorId: Number(created.id) }));
      assert.deepEqual([got.monitor.regions, got.monitor.privateLocations], [[], [first.id]]);
      const listed = ok(await mcp.call('list_monitors'));
      assert.deepEqual(listed.monitors.find((m: { monitorId: number }) => m.monitorId === Number(created.id)).privateLocations, [first.id]);
      const status = ok(await mcp.call('get_monitor_status', { monitorId: Number(created.id) }));
      assert.deepEqual(
        status.regions.map((r: { region: string }) => r.region),
        [first.name],
      );
    } finally {
      await mcp.close();
    }
  });

  test('statusdesk monitors: --private-location, repeated, sets them; on update it replaces them; a refused id names the flag', async () => {
    const { cli, first, second } = await workspace();
    const created = jsonOf(
      await cli([
        'monitors',
        'create',
        'grpc',
        '--name',
        'api',
        '--target',
        'api.internal:50051',
        '--frequency',
        '1m',
        '--private-location',
        second.id,
        '--private-location',
        first.id,
        '--json',
      ]),
    );
    assert.deepEqual([created.regions, created.privateLocations], [[], [first.id, second.id]]);
    const updated = jsonOf(await cli(['monitors', 'update', created.id, '--private-location', second.id, '--json']));
    assert.deepEqual(updated.privateLocations, [second.id]);
    const refused = await cli([
      'monitors',
      'create',
      'tcp',
      '--name',
      'db',
      '--target',
      'db.internal:5432',
      '--frequency',
      '1m',
      '--private-location',
      '999999',
    ]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /--private-location/);
    assert.match(refused.stderr, /no private location with id "999999" in this workspace/);
  });

  test('statusdesk export names private locations by name, and apply reads them back: a round trip changes nothing', async () => {
    const { cli, rpc, first, second } = await workspace();
    const folder = await cleanup.folder();
    const file = join(folder, 'monitors.yaml');
    await writeFile(
      file,
      `version: 1
monitors:
  - name: office-db
    type: tcp
    target: db.internal:5432
    frequency: 1m
    regions: []
    privateLocations: [${second.name}, ${first.name}]
`,
    );
    const applied = await cli(['apply', '-f', file]);
    assert.equal(applied.code, 0, applied.stderr);
    const [stored] = (await rpc.listMonitors({})).tcpMonitors;
    assert.deepEqual([stored!.regions, stored!.privateLocations], [[], [first.id, second.id]]);

    const exported = await cli(['export']);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, new RegExp(`privateLocations: \\[${first.name}, ${second.name}\\]`));
    await writeFile(file, exported.stdout);
    const again = await cli(['apply', '-f', file, '--json']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout).summary, { create: 0, update: 0, delete: 0, unchanged: 1 });

    await writeFile(file, exported.stdout.replace(first.name, 'nowhere'));
    const unknown = await cli(['apply', '-f', file]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /monitors\[0\]\.privateLocations\[0\]: no private location named "nowhere" in the workspace/);
  });
});
