/**
 * Runners of private locations against the real service: which runner checks which monitor, as
 * monitors choose locations and change their choice, and what the embedded runner leaves alone.
 * Runners are real `statusdesk runner` processes of the bundle; targets are loopback listeners.
 */
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { describe, test } from 'node:test';
import { MonitorStatus, Periodicity, TLSMode } from '../proto/gen/monitor/v1/monitor_pb.js';
import { offsetOf } from '../server/checks/scheduler.ts';
import { VERSION } from '../server/package-root.ts';
import { startGrpcPeer, startTcpListener } from './support/grpc-peers.ts';
import { startTestService } from './support/harness.ts';
import { resultsFrom, resultsOf, runnerWorkspace, useRunnerService } from './support/runner.ts';
import { eventually } from './support/wait.ts';

const PERIOD_MS = 30_000;

/** The first scheduled slot of a 30 s monitor after `t`, epoch ms. */
const nextSlot = (monitorId: string, t: number) => {
  const offset = offsetOf(Number(monitorId), PERIOD_MS);
  return Math.ceil((t - offset) / PERIOD_MS) * PERIOD_MS + offset;
};

describe('runners of private locations: assignment', () => {
  const shared = useRunnerService();
  const { runner } = shared;

  test('a monitor is checked by the runner of the location it chooses, and by the other one once it is moved there, without restarting either', {
    timeout: 90_000,
  }, async () => {
    const { service, target } = shared;
    const ws = await runnerWorkspace(service, 'assign');
    const [a, b] = [await ws.location('office'), await ws.location('lab')];
    const id = await ws.tcpMonitor(target.uri, [a.id]);
    const [runnerA, runnerB] = [await runner(a.token), await runner(b.token)];
    await ws.locationStatus(a.id, 'active');
    await ws.locationStatus(b.id, 'active');

    await ws.monitors.triggerMonitor({ id });
    const before = await resultsFrom(service, id, a.name);
    for (const row of before) {
      assert.equal(row.runner, a.name, 'only the chosen location checks the monitor');
      assert.deepEqual(JSON.parse(row.regions), [a.name], 'a result of a private location stands for its own region');
    }

    const moved = await ws.monitors.updateTCPMonitor({ id, monitor: { privateLocations: [b.id] } });
    assert.deepEqual(moved.monitor!.privateLocations, [b.id]);
    const movedAt = Date.now();
    // The next scheduled slot after the move: B checks it there on its own, and A no longer does.
    const slot = nextSlot(id, movedAt + 1_000);
    const after = await eventually(
      () => resultsOf(service, id),
      (rows) => rows.some((r) => r.runner === b.name && r.started_at >= slot - 1_000),
      `a scheduled check of ${b.name} at the slot ${new Date(slot).toISOString()}`,
      slot - Date.now() + 15_000,
    );
    // A check of A already in flight at the move may still land: none starts after it.
    assert.deepEqual(
      after.filter((r) => r.runner === a.name && r.started_at > movedAt + 1_000),
      [],
      'the runner of the location left keeps checking the monitor',
    );
    assert.ok(after.filter((r) => r.runner === b.name).every((r) => JSON.parse(r.regions)[0] === b.name));
    assert.equal(runnerA.child.exitCode, null, `runner A exited: ${runnerA.output()}`);
    assert.equal(runnerB.child.exitCode, null, `runner B exited: ${runnerB.output()}`);
  });

  test('two runners on one monitor each report their own results, and its status lists both locations', { timeout: 60_000 }, async () => {
    const { service, target } = shared;
    const ws = await runnerWorkspace(service, 'pair');
    const [a, b] = [await ws.location('east'), await ws.location('west')];
    const id = await ws.tcpMonitor(target.uri, [a.id, b.id]);
    await runner(a.token);
    await runner(b.token);
    await ws.locationStatus(a.id, 'active');
    await ws.locationStatus(b.id, 'active');

    await ws.monitors.triggerMonitor({ id });
    await resultsFrom(service, id, a.name);
    const rows = await resultsFrom(service, id, b.name);
    for (const row of rows) {
      assert.ok([a.name, b.name].includes(row.runner), `a result of runner ${row.runner}`);
      assert.deepEqual(JSON.parse(row.regions), [row.runner], 'each result names its own runner as its region');
      assert.equal(row.result, 'up');
    }

    const status = await eventually(
      () => ws.monitors.getMonitorStatus({ id }),
      (s) => s.regions.filter((r) => r.status === MonitorStatus.ACTIVE).length === 2,
      'both locations up in the status',
    );
    assert.deepEqual(status.regions.map((r) => r.region).sort(), [a.name, b.name].sort());
    assert.equal(status.overall, MonitorStatus.ACTIVE);

    const listed = (await ws.locations.listPrivateLocations({})).privateLocations.filter((l) => l.id === a.id || l.id === b.id);
    assert.deepEqual(
      listed.map((l) => [l.runnerVersion, l.runnerHostname, l.droppedResults]),
      [
        [VERSION, hostname(), 0n],
        [VERSION, hostname(), 0n],
      ],
      'each location shows the version and host its runner connected with',
    );
  });
  test('a runner checks a gRPC monitor of a location alone, sending the credential the service keeps sealed', { timeout: 60_000 }, async () => {
    const { service } = shared;
    const peer = await startGrpcPeer({ health: { '': 'SERVING' } });
    try {
      const ws = await runnerWorkspace(service, 'grpc');
      const location = await ws.location('grpc');
      const credential = 'Bearer only-the-runner-sends-this';
      const created = await ws.monitors.createGRPCMonitor({
        monitor: {
          name: 'health',
          uri: peer.uri,
          tls: TLSMode.TLS_MODE_PLAINTEXT,
          metadata: { authorization: credential },
          periodicity: Periodicity.PERIODICITY_30S,
          retry: 0,
          privateLocations: [location.id],
        },
      });
      assert.deepEqual(created.monitor!.regions, [], 'a gRPC monitor with a private location needs no region');
      await runner(location.token);
      await ws.locationStatus(location.id, 'active');

      await ws.monitors.triggerMonitor({ id: created.monitor!.id });
      const [row] = await resultsFrom(service, created.monitor!.id, location.name);
      assert.equal(row!.result, 'up');
      assert.ok(peer.calls.length > 0, 'the health server was called');
      assert.deepEqual(
        peer.calls.map((call) => call.metadata.get('authorization')),
        peer.calls.map(() => [credential]),
        'the runner sends the monitor credential, unsealed by the service for it',
      );
    } finally {
      await peer.close();
    }
  });
});

describe('the embedded runner and private locations', () => {
  test('the embedded runner does not check a monitor that has only private locations, nor one moved from regions to a location', {
    timeout: 120_000,
  }, async () => {
    const service = await startTestService({ STATUSDESK_CHECKS: 'on' });
    const [privateTarget, regionTarget] = [await startTcpListener(), await startTcpListener()];
    try {
      const ws = await runnerWorkspace(service, 'embedded');
      const location = await ws.location('branch');
      const privateOnly = await ws.tcpMonitor(privateTarget.uri, [location.id]);
      // A monitor of regions beside it, which the embedded runner checks on schedule: the engine runs.
      const withRegions = (
        await ws.monitors.createTCPMonitor({
          monitor: { name: 'regions', uri: regionTarget.uri, periodicity: Periodicity.PERIODICITY_30S, retry: 0, regions: ['iad'] },
        })
      ).monitor!.id;
      const createdAt = Date.now();
      const [privateSlot, regionSlot] = [nextSlot(privateOnly, createdAt + 1_000), nextSlot(withRegions, createdAt + 1_000)];
      await resultsFrom(service, withRegions, 'local', regionSlot - Date.now() + 10_000);
      await eventually(
        () => Date.now(),
        (now) => now > privateSlot + 3_000,
        'the private-only monitor slot passed',
        privateSlot - Date.now() + 5_000,
      );

      assert.equal(privateTarget.connections, 0, 'the embedded runner connected to the target of a monitor with only private locations');
      assert.deepEqual(await resultsOf(service, privateOnly), []);
      const status = await ws.monitors.getMonitorStatus({ id: privateOnly });
      assert.deepEqual(
        status.regions.map((r) => [r.region, r.status]),
        [[location.name, MonitorStatus.UNSPECIFIED]],
      );

      // The monitor of regions moved to the location alone: the embedded runner forgets it.
      await ws.monitors.updateTCPMonitor({
        id: withRegions,
        monitor: { regions: [], privateLocations: [location.id] },
        updateMask: { paths: ['regions', 'private_locations'] },
      });
      const movedAt = Date.now();
      const movedSlot = nextSlot(withRegions, movedAt + 1_000);
      await eventually(
        () => Date.now(),
        (now) => now > movedSlot + 3_000,
        'the moved monitor slot passed',
        movedSlot - Date.now() + 5_000,
      );
      assert.deepEqual(
        (await resultsOf(service, withRegions)).filter((r) => r.runner === 'local' && r.started_at > movedAt + 1_000),
        [],
        'the embedded runner still checks a monitor moved from its regions to a private location',
      );
    } finally {
      await privateTarget.close();
      await regionTarget.close();
      await service.stop();
    }
  });
});
