/**
 * A runner cut off from the service keeps checking, buffers every result on disk and uploads them
 * all once it is back: through a cut network (a loopback proxy that resets every connection), and
 * through a restart of the service during which the runner restarts too, on the assignment it kept. These tests are long by nature: a check every 30 s, 60 s of
 * silence before a location turns `error`, reconnection backing off up to 30 s.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTcpListener, type TcpListener } from './support/grpc-peers.ts';
import { queryRows } from './support/database.ts';
import { perTestCleanup, startTestService, tempDir, type TestService } from './support/harness.ts';
import {
  type ResultRow,
  resultsOf,
  runnerApiUrl,
  runnerWorkspace,
  type RunnerWorkspace,
  startProxy,
  startRunner,
  type TestLocation,
} from './support/runner.ts';
import { eventually } from './support/wait.ts';

const PERIOD_MS = 30_000;
/** Lateness of a scheduled check the tests allow, on a busy machine. */
const SLACK_MS = 5_000;
/** The runner backs off up to 30 s between attempts, with jitter. */
const RECONNECT_WITHIN_MS = 45_000;
const MONITORS = 3;

/** The location's acknowledged sequence and dropped total, as the service stores them. */
const locationRow = async (service: TestService, id: string) =>
  (
    await queryRows<{ last_sequence: number; dropped_results: number }>(
      service.dataDir,
      'SELECT last_sequence, dropped_results FROM private_locations WHERE id = ?',
      Number(id),
    )
  )[0]!;

/** Results of the location's runner stored in all, every monitor together. */
const storedOf = async (service: TestService, name: string) =>
  (await queryRows<{ n: number }>(service.dataDir, 'SELECT count(*) AS n FROM check_results WHERE runner = ?', name))[0]!.n;

/** When the newest stored result of the location's runner started, epoch ms (0 if none). */
const newestOf = async (service: TestService, name: string) =>
  (await queryRows<{ at: number | null }>(service.dataDir, 'SELECT max(started_at) AS at FROM check_results WHERE runner = ?', name))[0]!.at ?? 0;

/**
 * Once the runner is back, triggers a check and waits until it is stored: the runner uploads in
 * sequence order, so the results it buffered before are all in by then. Then asserts that every
 * sequence it made arrived once (its acknowledged sequence equals the count of its stored
 * results), that it dropped none, and that no monitor's results have a hole longer than a period
 * across `span`.
 */
async function assertNothingLost(
  service: TestService,
  ws: RunnerWorkspace,
  location: TestLocation,
  monitorIds: string[],
  span: { from: number; to: number },
): Promise<void> {
  const triggeredAt = Date.now();
  await ws.monitors.triggerMonitor({ id: monitorIds[0]! });
  await eventually(
    () => newestOf(service, location.name),
    (at) => at >= triggeredAt - 1_000,
    'a check triggered after the outage stored',
    30_000,
  );
  const state = { ...(await locationRow(service, location.id)), stored: await storedOf(service, location.name) };
  assert.equal(state.last_sequence, state.stored, 'sequences of the runner missing or stored twice');
  assert.equal(state.dropped_results, 0);
  for (const id of monitorIds) {
    const times = (await resultsOf(service, id)).filter((r: ResultRow) => r.runner === location.name).map((r) => r.started_at);
    const during = times.filter((t) => t > span.from && t < span.to);
    assert.ok(
      during.length >= Math.floor((span.to - span.from) / PERIOD_MS),
      `monitor ${id}: ${during.length} checks stored from the outage of ${span.to - span.from} ms`,
    );
    const around = times.filter((t) => t > span.from - PERIOD_MS - SLACK_MS && t < span.to + PERIOD_MS + SLACK_MS);
    const holes = around.slice(1).map((t, i) => t - around[i]!);
    assert.ok(
      holes.every((hole) => hole <= PERIOD_MS + SLACK_MS),
      `monitor ${id}: a hole in its results across the outage: ${JSON.stringify(around.map((t) => new Date(t).toISOString()))}`,
    );
  }
}

/** A location with MONITORS monitors of `target` choosing it; every monitor checked once at once. */
async function withMonitors(ws: RunnerWorkspace, target: TcpListener, name: string) {
  const location = await ws.location(name);
  const monitorIds: string[] = [];
  for (let i = 0; i < MONITORS; i++) monitorIds.push(await ws.tcpMonitor(target.uri, [location.id]));
  return { location, monitorIds };
}

describe('runners of private locations: outages', () => {
  const cleanup = perTestCleanup();
  const stops: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    while (stops.length) await stops.pop()!();
  });

  test('a network cut of 65 s: the location turns error, the runner keeps checking, and every check made during the cut arrives', {
    timeout: 240_000,
  }, async () => {
    const proxy = await startProxy();
    stops.push(() => proxy.close());
    // The service answers under the proxy's address too (its Host guard admits OAUTH_ISSUER's).
    const service = await startTestService({ OAUTH_ISSUER: proxy.url });
    stops.push(() => service.stop());
    proxy.target = service.ports.api;
    const target = await startTcpListener();
    stops.push(() => target.close());

    const ws = await runnerWorkspace(service, 'cut');
    const { location, monitorIds } = await withMonitors(ws, target, 'cut-off');
    const runner = startRunner({ apiUrl: proxy.url, token: location.token, dataDir: await cleanup.folder() });
    cleanup.children.push(runner.child);
    await ws.locationStatus(location.id, 'active');
    for (const id of monitorIds) await ws.monitors.triggerMonitor({ id });
    await eventually(
      () => storedOf(service, location.name),
      (n) => n >= MONITORS,
      'the triggered checks stored',
      20_000,
    );

    const cutAt = Date.now();
    proxy.cut();
    const connectionsAtCut = target.connections;
    await ws.locationStatus(location.id, 'error', 62_000);
    assert.ok(Date.now() - cutAt >= 44_000, `the location turned error ${Date.now() - cutAt} ms into the cut: only silence of 60 s turns it so`);
    await sleep(cutAt + 65_000 - Date.now());
    const restoredAt = Date.now();
    proxy.restore();
    assert.ok(target.connections - connectionsAtCut >= 2 * MONITORS, `the runner checked ${target.connections - connectionsAtCut} times during the cut`);

    await ws.locationStatus(location.id, 'active', RECONNECT_WITHIN_MS);
    await assertNothingLost(service, ws, location, monitorIds, { from: cutAt, to: restoredAt });
    assert.equal(runner.child.exitCode, null, `the runner exited: ${runner.output()}`);
  });

  test('the service restarted on its data folder and port, and the runner restarted while it is away: the runner checks its last assignment, reconnects and uploads what it buffered', {
    timeout: 180_000,
  }, async () => {
    const dir = await tempDir();
    stops.push(() => dir.remove());
    let service = await startTestService({}, dir.path);
    const port = service.ports.api;
    stops.push(() => service.stop());
    const target = await startTcpListener();
    stops.push(() => target.close());

    const ws = await runnerWorkspace(service, 'restart');
    const { location, monitorIds } = await withMonitors(ws, target, 'restarted');
    const runnerDir = await cleanup.folder();
    const first = startRunner({ apiUrl: runnerApiUrl(service), token: location.token, dataDir: runnerDir });
    cleanup.children.push(first.child);
    await ws.locationStatus(location.id, 'active');
    for (const id of monitorIds) await ws.monitors.triggerMonitor({ id });
    await eventually(
      () => storedOf(service, location.name),
      (n) => n >= MONITORS,
      'the triggered checks stored',
      20_000,
    );

    const stoppedAt = Date.now();
    const stopped = await Promise.race([service.stop().then(() => true), sleep(15_000, false)]);
    assert.ok(stopped, 'the service did not stop within 15 s while a runner was connected');
    // The runner restarted on its folder while the service is away: it can only check the assignment it kept.
    assert.equal(await first.stop(), 0, `the runner did not stop cleanly on SIGTERM: ${first.output()}`);
    const second = startRunner({ apiUrl: runnerApiUrl(service), token: location.token, dataDir: runnerDir });
    cleanup.children.push(second.child);
    // A whole period more down: every monitor has a slot while the service is away.
    const connectionsBefore = target.connections;
    await sleep(PERIOD_MS + 1_000);
    assert.ok(
      target.connections - connectionsBefore >= MONITORS,
      `the restarted runner checked ${target.connections - connectionsBefore} times without the service`,
    );
    service = await startTestService({}, dir.path, { port });
    const restartedAt = Date.now();

    await ws.locationStatus(location.id, 'active', RECONNECT_WITHIN_MS);
    await assertNothingLost(service, ws, location, monitorIds, { from: stoppedAt, to: restartedAt });
    assert.equal(second.child.exitCode, null, `the runner exited: ${second.output()}`);
  });
});
