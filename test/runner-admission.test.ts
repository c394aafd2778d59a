/**
 * Who the service lets report, and what it keeps: revoked tokens stop their runner, versions must
 * match on both sides, and a hostile runner's results for monitors it was not given are skipped.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { Code, type ConnectRouter } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { type RunnerCheckSchema, RunnerService } from '../proto/gen/runner/v1/runner_pb.js';
import { VERSION } from '../server/package-root.ts';
import { assertCode, connectRejection } from './support/harness.ts';
import { type RunnerProcess, resultsFrom, resultsOf, runnerApiUrl, runnerRpc, runnerWorkspace, useRunnerService } from './support/runner.ts';
import { eventually } from './support/wait.ts';

/** How long a runner may take to stop once its token no longer works. */
const STOP_WITHIN_MS = 20_000;
const OTHER_VERSION = '0.0.0-other';

/** A check as a runner reports it. */
const check = (sequence: number, monitorId: string): MessageInitShape<typeof RunnerCheckSchema> => ({
  sequence: BigInt(sequence),
  monitorId,
  startedAtMs: BigInt(Date.now() - 1_000 + sequence),
  result: 'up',
  latencyMs: 2,
  timing: { connect: 2, total: 2 },
  attempts: 1,
  message: 'connected in 2 ms',
});

/** Asserts that `text` names both this version and the other one. */
function assertNamesBothVersions(text: string): void {
  assert.ok(text.includes(VERSION) && text.includes(OTHER_VERSION), `not naming ${VERSION} and ${OTHER_VERSION}: ${text}`);
}

/** Waits for the runner to exit by itself; its exit code. */
async function exitOf(runner: RunnerProcess): Promise<number | null> {
  await eventually(
    () => runner.child.exitCode ?? runner.child.signalCode,
    (c) => c !== null,
    `the runner to exit (output: ${runner.output()})`,
    STOP_WITHIN_MS,
  );
  return runner.child.exitCode;
}

describe('runners of private locations: admission', () => {
  const shared = useRunnerService();
  const { runner } = shared;

  /** A location of a workspace of its own, its runner running, its status active. */
  async function runningLocation(name: string) {
    const ws = await runnerWorkspace(shared.service, name);
    const location = await ws.location(name);
    const running = await runner(location.token);
    await ws.locationStatus(location.id, 'active');
    return { ws, location, running };
  }

  /** The runner exits by itself with code 2 and the line saying its token was refused. */
  async function assertStoppedForToken(running: RunnerProcess): Promise<void> {
    assert.equal(await exitOf(running), 2, running.output());
    assert.match(running.output(), /the service refused this runner's token/);
  }

  test('rotating the token stops the runner with its message and exit code 2, and the old token is unauthenticated', { timeout: 60_000 }, async () => {
    const { service } = shared;
    const { ws, location, running } = await runningLocation('rotated');

    const rotated = await ws.locations.rotatePrivateLocationToken({ id: location.id });
    assert.notEqual(rotated.token, location.token);
    await assertStoppedForToken(running);

    const report = { version: VERSION, instanceId: randomUUID(), checks: [] };
    await assertCode(runnerRpc(runnerApiUrl(service), location.token).report(report), Code.Unauthenticated);
    const fresh = await runnerRpc(runnerApiUrl(service), rotated.token).report(report);
    assert.equal(fresh.stored, 0, 'the new token reports');
  });

  test('deleting the location stops its runner with its message and exit code 2', { timeout: 60_000 }, async () => {
    const { service } = shared;
    const { ws, location, running } = await runningLocation('deleted');

    await ws.locations.deletePrivateLocation({ id: location.id });
    await assertStoppedForToken(running);
    await assertCode(runnerRpc(runnerApiUrl(service), location.token).report({ version: VERSION, instanceId: randomUUID() }), Code.Unauthenticated);
  });

  test('a second runner with the same token takes the location over: the first exits 2 saying so, and the second checks', { timeout: 60_000 }, async () => {
    const { service, target } = shared;
    const { ws, location, running: first } = await runningLocation('taken');
    const id = await ws.tcpMonitor(target.uri, [location.id]);

    const second = await runner(location.token);
    assert.equal(await exitOf(first), 2, first.output());
    assert.match(first.output(), /another runner connected with this location's token/);
    await ws.monitors.triggerMonitor({ id });
    await resultsFrom(service, id, location.name);
    assert.equal(second.child.exitCode, null, `the second runner exited: ${second.output()}`);
  });

  test('a runner of another version is refused with failed_precondition naming both versions', async () => {
    const { service } = shared;
    const ws = await runnerWorkspace(service, 'version');
    const location = await ws.location('versioned');
    const rpc = runnerRpc(runnerApiUrl(service), location.token);

    const stream = rpc.connect({ version: OTHER_VERSION, instanceId: randomUUID(), hostname: 'elsewhere' });
    const refused = await connectRejection(
      (async () => {
        for await (const _ of stream) return;
      })(),
    );
    assert.equal(refused.code, Code.FailedPrecondition, `got ${Code[refused.code]}: ${refused.rawMessage}`);
    assertNamesBothVersions(refused.rawMessage);
    assertNamesBothVersions((await assertCode(rpc.report({ version: OTHER_VERSION, instanceId: randomUUID() }), Code.FailedPrecondition)).rawMessage);
  });

  test('a runner refuses a service of another version: exit 2 naming both versions', { timeout: 30_000 }, async () => {
    // A stand-in service that greets every runner as another version.
    const routes = (router: ConnectRouter) =>
      router.service(RunnerService, {
        async *connect(_request, context) {
          yield { hello: { serviceVersion: OTHER_VERSION, locationName: 'elsewhere', acknowledgedSequence: 0n }, full: true };
          // The stream stays open, as the service's does, until the runner hangs up.
          await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
        },
        async report() {
          return { acknowledgedSequence: 0n, stored: 0, skipped: 0 };
        },
      });
    const server = http.createServer(connectNodeAdapter({ routes, requestPathPrefix: '/rpc' }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const running = await runner(`svc_run_${'a'.repeat(43)}`, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      assert.equal(await exitOf(running), 2, running.output());
      assertNamesBothVersions(running.output());
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('a hostile runner: results for monitors not given to it are skipped, and a batch sent again is stored once', async () => {
    const { service, target } = shared;
    const ws = await runnerWorkspace(service, 'hostile');
    const other = await runnerWorkspace(service, 'victim');
    const [mine, sibling, theirs] = [await ws.location('hostile'), await ws.location('sibling'), await other.location('victim')];
    const assigned = await ws.tcpMonitor(target.uri, [mine.id]);
    const notAssigned = await ws.tcpMonitor(target.uri, [sibling.id]);
    const otherWorkspace = await other.tcpMonitor(target.uri, [theirs.id]);

    const rpc = runnerRpc(runnerApiUrl(service), mine.token);
    const instanceId = randomUUID();
    const abort = new AbortController();
    const events = rpc.connect({ version: VERSION, instanceId, hostname: 'hostile' }, { signal: abort.signal })[Symbol.asyncIterator]();
    try {
      const first = await events.next();
      assert.equal(first.done, false);
      assert.equal(first.value.hello?.locationName, mine.name);
      assert.deepEqual(
        first.value.monitors.map((m: { id: string }) => m.id),
        [assigned],
        'the assignment holds only the monitor that chose the location',
      );

      const foreign = await rpc.report({ version: VERSION, instanceId, checks: [check(1, otherWorkspace), check(2, notAssigned)] });
      assert.deepEqual([foreign.stored, foreign.skipped], [0, 2], 'results for monitors not given to this runner are skipped');
      assert.equal(foreign.acknowledgedSequence, 2n, 'skipped results are acknowledged, so the runner forgets them');

      const batch = { version: VERSION, instanceId, checks: [check(3, assigned), check(4, assigned)] };
      const stored = await rpc.report(batch);
      assert.deepEqual([stored.stored, stored.skipped, stored.acknowledgedSequence], [2, 0, 4n]);
      const replayed = await rpc.report(batch);
      assert.deepEqual([replayed.stored, replayed.skipped, replayed.acknowledgedSequence], [0, 2, 4n], 'a batch sent again is skipped');

      const bad: MessageInitShape<typeof RunnerCheckSchema> = { ...check(5, assigned), result: 'sideways' };
      const malformed = await rpc.report({ version: VERSION, instanceId, checks: [bad] });
      assert.deepEqual([malformed.stored, malformed.skipped, malformed.acknowledgedSequence], [0, 1, 5n], 'a malformed result is skipped, and forgotten');

      assert.deepEqual(
        (await resultsOf(service, assigned)).map((r) => [r.runner, r.regions]),
        [
          [mine.name, JSON.stringify([mine.name])],
          [mine.name, JSON.stringify([mine.name])],
        ],
      );
      assert.deepEqual(await resultsOf(service, notAssigned), []);
      assert.deepEqual(await resultsOf(service, otherWorkspace), []);
    } finally {
      abort.abort();
      await events.return?.().catch(() => {});
    }
  });
});
