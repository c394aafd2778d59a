/**
 * The service's side of the runner protocol, driven by a Connect client that plays the runner:
 * what the assignment stream carries and when, a second runner of one location, and a trigger
 * answered by the runner. (test/runner-*.test.ts run the real `statusdesk runner`.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Code, ConnectError } from '@connectrpc/connect';
import type { ConnectResponse } from '../proto/gen/runner/v1/runner_pb.js';
import { VERSION } from '../server/package-root.ts';
import { queryRows } from './support/database.ts';
import { startTestService, type TestService } from './support/harness.ts';
import { eventually } from './support/wait.ts';
import { runnerApiUrl, runnerRpc, runnerWorkspace, type RunnerWorkspace } from './support/runner.ts';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service.close());

/** Reads a stream's events one by one, each within a bounded time. */
function reader(stream: AsyncIterable<ConnectResponse>) {
  const iterator = stream[Symbol.asyncIterator]();
  return {
    async next(what: string, timeoutMs = 5_000): Promise<ConnectResponse> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms: ${what}`)), timeoutMs)));
      try {
        const next = await Promise.race([iterator.next(), timeout]);
        assert.ok(!next.done, `the stream ended before ${what}`);
        return next.value;
      } finally {
        clearTimeout(timer);
      }
    },
    /** The error the stream ends with, within a bounded time. */
    async end(timeoutMs = 5_000): Promise<ConnectError> {
      const deadline = Date.now() + timeoutMs;
      try {
        while (Date.now() < deadline) {
          const next = await Promise.race([
            iterator.next(),
            new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the stream did not end')), deadline - Date.now())),
          ]);
          if (next.done) assert.fail('the stream ended without an error');
        }
      } catch (error) {
        return ConnectError.from(error);
      }
      assert.fail('the stream did not end');
    },
  };
}

const definitionOf = (event: ConnectResponse, id: string) => {
  const assigned = event.monitors.find((m) => m.id === id);
  return assigned && JSON.parse(new TextDecoder().decode(assigned.definition));
};

describe('the runner protocol, on the service side', () => {
  let ws: RunnerWorkspace;
  before(async () => {
    ws = await runnerWorkspace(service, 'protocol');
  });

  test('a runner is sent its whole assignment first, with credentials opened, then each change as it is made', async () => {
    const location = await ws.location('stream');
    const checked = await ws.monitors.createHTTPMonitor({
      monitor: {
        name: 'api',
        url: 'http://127.0.0.1:9/health',
        periodicity: 2,
        headers: { authorization: 'Bearer inner-secret' },
        privateLocations: [location.id],
      },
    });
    const id = checked.monitor!.id;
    const paused = await ws.tcpMonitor('127.0.0.1:9', [location.id]);
    await ws.monitors.updateTCPMonitor({ id: paused, monitor: { active: false }, updateMask: { paths: ['active'] } });
    const elsewhere = await ws.tcpMonitor('127.0.0.1:9', []).catch(() => undefined);

    const abort = new AbortController();
    const events = reader(
      runnerRpc(runnerApiUrl(service), location.token).connect({ version: VERSION, instanceId: 'protocol-1', hostname: 'lab' }, { signal: abort.signal }),
    );
    try {
      const first = await events.next('the whole assignment');
      assert.equal(first.hello?.serviceVersion, VERSION);
      assert.equal(first.hello?.locationName, location.name);
      assert.equal(first.hello?.acknowledgedSequence, 0n);
      assert.equal(first.full, true);
      assert.deepEqual(
        first.monitors.map((m) => m.id),
        [id],
        'only the active monitor choosing the location',
      );
      assert.notEqual(elsewhere, id);
      const definition = definitionOf(first, id);
      assert.equal(definition.url, 'http://127.0.0.1:9/health');
      assert.equal(definition.headers.authorization, 'Bearer inner-secret', 'the runner probes with the real credential');
      assert.equal(definition.description, undefined, 'what only people read is not sent');

      await ws.monitors.updateHTTPMonitor({ id, monitor: { name: 'api v2' }, updateMask: { paths: ['name'] } });
      let event = await events.next('the change');
      while (event.monitors.length === 0) event = await events.next('the change');
      assert.equal(event.full, false);
      assert.equal(definitionOf(event, id).name, 'api v2');
      assert.ok(event.monitors[0]!.revision > first.monitors[0]!.revision);

      await ws.monitors.deleteMonitor({ id });
      event = await events.next('the removal');
      while (event.removedMonitorIds.length === 0) event = await events.next('the removal');
      assert.deepEqual(event.removedMonitorIds, [id]);
    } finally {
      abort.abort();
    }
  });

  test("a second runner of the same location ends the first one's stream with aborted", async () => {
    const location = await ws.location('twice');
    const rpc = runnerRpc(runnerApiUrl(service), location.token);
    const abort = new AbortController();
    const first = reader(rpc.connect({ version: VERSION, instanceId: 'first', hostname: 'a' }, { signal: abort.signal }));
    try {
      // The second connects once the first is admitted: connected together, either may be admitted first.
      await first.next('the first hello');
      const second = reader(rpc.connect({ version: VERSION, instanceId: 'second', hostname: 'b' }, { signal: abort.signal }));
      await second.next('the second hello');
      const ended = await first.end();
      assert.equal(ended.code, Code.Aborted);
      assert.match(ended.rawMessage, /another runner connected with this location's token/);
      const listed = (await ws.locations.getPrivateLocation({ id: location.id })).privateLocation!;
      assert.equal(listed.runnerHostname, 'b');
      assert.equal(listed.runnerVersion, VERSION);
    } finally {
      abort.abort();
    }
  });

  test('a trigger asks the connected runner to check at once and answers with its result, named by the location', async () => {
    const location = await ws.location('trigger');
    const id = await ws.tcpMonitor('127.0.0.1:9', [location.id]);
    const rpc = runnerRpc(runnerApiUrl(service), location.token);
    const abort = new AbortController();
    const events = reader(rpc.connect({ version: VERSION, instanceId: 'trigger-1', hostname: 'lab' }, { signal: abort.signal }));
    try {
      await events.next('the whole assignment');
      const triggered = ws.monitors.triggerMonitor({ id });
      let event = await events.next('the check-now');
      while (event.checkNowMonitorIds.length === 0) event = await events.next('the check-now');
      assert.deepEqual(event.checkNowMonitorIds, [id]);
      const report = await rpc.report({
        version: VERSION,
        instanceId: 'trigger-1',
        checks: [
          {
            sequence: 1n,
            monitorId: id,
            startedAtMs: BigInt(Date.now()),
            result: 'down',
            latencyMs: 3,
            attempts: 1,
            message: 'connection refused',
            timing: { connect: 3, total: 3 },
          },
        ],
      });
      assert.deepEqual([report.acknowledgedSequence, report.stored, report.skipped], [1n, 1, 0]);
      const { results } = await triggered;
      assert.equal(results.length, 1, 'no region: the embedded runner does not check it');
      assert.equal(results[0]!.runner, location.name);
      assert.equal(results[0]!.region, location.name);
      assert.equal(results[0]!.message, 'connection refused');
    } finally {
      abort.abort();
    }
  });

  test('a monitor moved from a location where it was down recovers with its next check from the new one', async () => {
    const [from, to] = [await ws.location('from'), await ws.location('to')];
    const id = await ws.tcpMonitor('127.0.0.1:9', [from.id]);
    const check = (sequence: bigint, result: string) => ({
      sequence,
      monitorId: id,
      startedAtMs: BigInt(Date.now()),
      result,
      latencyMs: 1,
      attempts: 1,
      message: result,
    });
    await runnerRpc(runnerApiUrl(service), from.token).report({ version: VERSION, instanceId: 'from-1', checks: [check(1n, 'down')] });
    const overall = async () =>
      (await queryRows<{ state: string }>(service.dataDir, 'select state from monitor_state where monitor_id = ?', Number(id)))[0]?.state;
    assert.equal(await overall(), 'down');
    await ws.monitors.updateTCPMonitor({ id, monitor: { privateLocations: [to.id] }, updateMask: { paths: ['private_locations'] } });
    const runners = async () =>
      (await queryRows<{ runner: string }>(service.dataDir, 'select runner from check_state where monitor_id = ?', Number(id))).map((r) => r.runner);
    await eventually(runners, (list) => list.length === 0, 'the state of the location it left dropped');
    await runnerRpc(runnerApiUrl(service), to.token).report({ version: VERSION, instanceId: 'to-1', checks: [check(1n, 'up')] });
    assert.equal(await overall(), 'up', 'the location it no longer chooses does not hold it down');
    assert.deepEqual(await runners(), [to.name]);
  });

  test("deleting a location drops its runner's states, so the monitors it checked no longer count it", async () => {
    const [gone, kept] = [await ws.location('gone'), await ws.location('kept')];
    const id = await ws.tcpMonitor('127.0.0.1:9', [gone.id, kept.id]);
    const check = { sequence: 1n, monitorId: id, startedAtMs: BigInt(Date.now()), result: 'down', latencyMs: 1, attempts: 1, message: 'refused' };
    await runnerRpc(runnerApiUrl(service), gone.token).report({ version: VERSION, instanceId: 'gone-1', checks: [check] });
    await runnerRpc(runnerApiUrl(service), kept.token).report({ version: VERSION, instanceId: 'kept-1', checks: [check] });
    await ws.locations.deletePrivateLocation({ id: gone.id });
    const runners = async () =>
      (await queryRows<{ runner: string }>(service.dataDir, 'select runner from check_state where monitor_id = ?', Number(id))).map((r) => r.runner);
    await eventually(runners, (list) => list.length === 1, "the deleted location's state dropped");
    assert.deepEqual(await runners(), [kept.name]);
  });

  test("a check reported as another runner or for other regions is stored as the location's own", async () => {
    const location = await ws.location('own');
    const id = await ws.tcpMonitor('127.0.0.1:9', [location.id]);
    const rpc = runnerRpc(runnerApiUrl(service), location.token);
    const report = await rpc.report({
      version: VERSION,
      instanceId: 'own-1',
      checks: [{ sequence: 1n, monitorId: id, startedAtMs: BigInt(Date.now()), result: 'up', latencyMs: 1, attempts: 1, message: 'connected' }],
      droppedResults: 7n,
    });
    assert.equal(report.stored, 1);
    const { regions } = await ws.monitors.getMonitorStatus({ id });
    assert.deepEqual(
      regions.map((r) => r.region),
      [location.name],
    );
    const listed = (await ws.locations.getPrivateLocation({ id: location.id })).privateLocation!;
    assert.equal(listed.droppedResults, 7n);
  });
});
