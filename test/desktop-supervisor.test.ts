import assert from 'node:assert/strict';
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StartMessage } from '../server/desktop/host-protocol.ts';
import {
  createSupervisor,
  forkedHost,
  type HostEvent,
  type HostProcess,
  type Supervisor,
  type SupervisorOptions,
  type SupervisorState,
} from '../main/src/supervisor.ts';
import { perTestCleanup } from './support/harness.ts';
import { eventually, until } from './support/wait.ts';

const cleanup = perTestCleanup();

/**
 * A stand-in service host: answers the protocol as the real one does, and misbehaves as asked
 * (HOST_MODE): fails its start, exits or hangs before ready, crashes after ready, ignores stop.
 * It writes every message it receives to HOST_LOG, one JSON line each, with its pid.
 */
const TEST_HOST = `
import { appendFileSync } from 'node:fs';
const mode = process.env.HOST_MODE ?? 'normal';
const log = (message) => appendFileSync(process.env.HOST_LOG, JSON.stringify({ pid: process.pid, message }) + '\\n');
const send = (message) => new Promise((resolve) => process.send(message, resolve));
let dashboardUrl;
let links = 0;
process.on('message', async (message) => {
  log(message);
  if (message.type === 'start') {
    if (mode === 'fail-start') return send({ type: 'failed', message: 'the API port 1 is already in use by another program' }).then(() => process.exit(1));
    if (mode === 'exit-before-ready') process.exit(3);
    if (mode === 'never-ready') return;
    const ports = { api: message.ports.api || 40001, dashboard: message.ports.dashboard || 40002 };
    dashboardUrl = 'http://localhost:' + ports.dashboard;
    await send({ type: 'ready', apiUrl: 'http://localhost:' + ports.api, dashboardUrl, ports });
    await send({ type: 'not-a-message-of-the-protocol' });
    await send({ type: 'health', overall: 'down', down: [{ monitorId: '4', name: 'orders-db', workspaceId: '1' }], counts: { up: 1, degraded: 0, down: 1, pending: 0, paused: 0 } });
    if (mode === 'crash-after-ready') setTimeout(() => process.exit(70), 30);
  } else if (message.type === 'sign-in') {
    if (mode === 'no-sign-in') return;
    links += 1;
    await send({ type: 'sign-in', url: dashboardUrl + '/signin?token=' + process.pid + '-' + links });
  } else if (message.type === 'stop') {
    if (mode === 'ignore-stop') return;
    await send({ type: 'stopped' });
    process.exit(0);
  }
});
`;

interface Harness {
  supervisor: Supervisor;
  options: SupervisorOptions;
  states: { state: SupervisorState; reason?: string }[];
  events: HostEvent[];
  protocolErrors: string[];
  children: ChildProcess[];
  /** Every message the hosts received, in order. */
  received(): { pid: number; message: { type: string } & Record<string, unknown> }[];
  /** Resolves once the supervisor has reported `state` `times` times in all (bounded). */
  reached(state: SupervisorState, times?: number): Promise<void>;
}

/** Hosts forked from the stand-in script; `modeOf(n)` picks how the n-th one (from 0) behaves. */
async function harness(t: TestContext, modeOf: (spawned: number) => string, overrides: Partial<SupervisorOptions> = {}): Promise<Harness> {
  const dir = await cleanup.folder();
  const script = join(dir, 'host.mjs');
  const logFile = join(dir, 'host.log');
  writeFileSync(script, TEST_HOST);
  writeFileSync(logFile, '');
  const states: Harness['states'] = [];
  const events: HostEvent[] = [];
  const protocolErrors: string[] = [];
  const children: ChildProcess[] = [];
  const spawnHost = (): HostProcess => {
    const child = fork(script, [], {
      env: { ...process.env, HOST_MODE: modeOf(children.length), HOST_LOG: logFile },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    children.push(child);
    cleanup.children.push(child);
    return forkedHost(child);
  };
  const options: SupervisorOptions = {
    spawn: spawnHost,
    onEvent: (event) => events.push(event),
    onStateChange: (state, reason) => states.push(reason === undefined ? { state } : { state, reason }),
    onProtocolError: (error) => protocolErrors.push(error.message),
    backoffMs: 20,
    ...overrides,
  };
  const supervisor = createSupervisor(options);
  // Whatever a test left running or pending stops with it.
  t.after(() => supervisor.stop());
  return {
    supervisor,
    options,
    states,
    events,
    protocolErrors,
    children,
    received: () =>
      readFileSync(logFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    async reached(state, times = 1) {
      await eventually(
        () => states,
        (all) => all.filter((s) => s.state === state).length >= times,
        `reached ${state} ×${times}`,
        10_000,
      );
    },
  };
}

const START: StartMessage = {
  type: 'start',
  dataDir: '/tmp/statusdesk-data',
  ports: { api: 43100, dashboard: 43101 },
  sealingKey: Buffer.alloc(32, 7).toString('base64'),
};

const isGone = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

test('starts the host, passes its news on, hands out fresh sign-in links, and stops it cleanly', async (t) => {
  const h = await harness(t, () => 'normal');
  const { supervisor } = h;
  assert.equal(supervisor.state(), 'stopped');
  const ready = await supervisor.start(START);
  assert.deepEqual(ready, { type: 'ready', apiUrl: 'http://localhost:43100', dashboardUrl: 'http://localhost:43101', ports: START.ports });
  assert.equal(supervisor.state(), 'running');
  assert.deepEqual(h.received()[0]?.message, START);

  const first = await supervisor.requestSignIn();
  const second = await supervisor.requestSignIn();
  assert.match(first, /^http:\/\/localhost:43101\/signin\?token=\d+-1$/);
  assert.notEqual(first, second);
  await h.reached('running');
  const health = h.events.find((event) => event.type === 'health');
  assert.deepEqual(health && health.type === 'health' && health.down, [{ monitorId: '4', name: 'orders-db', workspaceId: '1' }]);
  // Something that is not a message of the protocol is reported, not passed on.
  assert.equal(
    h.events.some((event) => (event.type as string) === 'not-a-message-of-the-protocol'),
    false,
  );
  assert.match(h.protocolErrors[0] ?? '', /not a message of the service host/);

  await supervisor.stop();
  assert.ok(isGone(h.children[0]!));
  assert.equal(h.children[0]!.exitCode, 0);
  assert.deepEqual(h.states, [{ state: 'starting' }, { state: 'running' }, { state: 'stopped' }]);
  assert.deepEqual(
    h.received().map((entry) => entry.message.type),
    ['start', 'sign-in', 'sign-in', 'stop'],
  );
  await assert.rejects(supervisor.requestSignIn(), /the service is not running \(stopped\)/);
});

test('a start the host cannot make rejects with the host’s reason and leaves nothing running', async (t) => {
  const h = await harness(t, () => 'fail-start');
  const { supervisor } = h;
  await assert.rejects(supervisor.start(START), /^Error: the API port 1 is already in use by another program$/);
  assert.deepEqual(h.states, [{ state: 'starting' }, { state: 'stopped', reason: 'the API port 1 is already in use by another program' }]);
  await sleep(200);
  assert.equal(h.children.length, 1, 'a failed first start is not retried');
  assert.ok(isGone(h.children[0]!));
});

test('a host that exits before it is ready makes the start fail with how it ended', async (t) => {
  const h = await harness(t, () => 'exit-before-ready');
  const { supervisor } = h;
  await assert.rejects(supervisor.start(START), /the service host stopped before it was ready: it exited with code 3/);
  assert.equal(supervisor.state(), 'stopped');
});

test('a host that never gets ready is ended after the bound', async (t) => {
  const h = await harness(t, () => 'never-ready', { readyTimeoutMs: 300 });
  const { supervisor } = h;
  const began = Date.now();
  await assert.rejects(supervisor.start(START), /the service did not start within 300 ms/);
  assert.ok(Date.now() - began < 5_000);
  await until(() => isGone(h.children[0]!), 'the host was killed');
});

test('a host killed while running is started again, on the ports it had, and says so', async (t) => {
  const h = await harness(t, () => 'normal');
  const { supervisor } = h;
  // Port 0: the host picks; the restart must ask for the ports it picked, not for new ones.
  await supervisor.start({ ...START, ports: { api: 0, dashboard: 0 } });
  const before = await supervisor.requestSignIn();
  h.children[0]!.kill('SIGKILL');
  await h.reached('restarting');
  await h.reached('running', 2);
  assert.match(h.states.find((s) => s.state === 'restarting')?.reason ?? '', /the service host stopped: it was ended by SIGKILL/);
  assert.equal(h.children.length, 2);
  const starts = h.received().filter((entry) => entry.message.type === 'start');
  assert.equal(starts.length, 2);
  assert.notEqual(starts[0]!.pid, starts[1]!.pid);
  assert.deepEqual(starts[1]!.message, { ...START, ports: { api: 40001, dashboard: 40002 } });
  // The restarted host answers, and its ready was passed on for the app to follow.
  const after = await supervisor.requestSignIn();
  assert.notEqual(after, before);
  assert.ok(after.includes(`token=${starts[1]!.pid}-1`), after);
  assert.equal(h.events.filter((event) => event.type === 'ready').length, 2);
  await supervisor.stop();
});

test('gives up after too many crashes within a minute, and says why', async (t) => {
  const h = await harness(t, () => 'crash-after-ready', { maxRestartsPerMinute: 2 });
  const { supervisor } = h;
  await supervisor.start(START);
  await h.reached('stopped');
  assert.deepEqual(
    h.states.map((s) => s.state),
    ['starting', 'running', 'restarting', 'running', 'restarting', 'running', 'stopped'],
  );
  assert.match(
    h.states.at(-1)?.reason ?? '',
    /stopped unexpectedly 3 times within a minute, so it is not started again \(last: the service host stopped: it exited with code 70\)/,
  );
  await sleep(200);
  assert.equal(h.children.length, 3, 'no host after giving up');
  assert.equal(supervisor.state(), 'stopped');
});

test('the pause before a restart grows with each crash', async (t) => {
  const crashedAt: number[] = [];
  const runningAt: number[] = [];
  const h = await harness(t, (n) => (n < 3 ? 'crash-after-ready' : 'normal'), {
    backoffMs: 150,
    onStateChange: (state) => {
      if (state === 'restarting') crashedAt.push(Date.now());
      if (state === 'running') runningAt.push(Date.now());
    },
  });
  const { supervisor } = h;
  await supervisor.start(START);
  await until(() => runningAt.length >= 4, 'started, then restarted three times', 10_000);
  assert.equal(runningAt.length, 4, 'started, then restarted three times');
  const pauses = crashedAt.map((at, i) => runningAt[i + 1]! - at);
  assert.ok(pauses[0]! >= 150 && pauses[1]! >= 300 && pauses[2]! >= 600, JSON.stringify(pauses));
  await supervisor.stop();
});

test('a host that ignores stop is killed after the bound', async (t) => {
  const h = await harness(t, () => 'ignore-stop', { stopTimeoutMs: 300 });
  const { supervisor } = h;
  await supervisor.start(START);
  const began = Date.now();
  await supervisor.stop();
  assert.ok(Date.now() - began >= 300 && Date.now() - began < 5_000);
  assert.ok(isGone(h.children[0]!));
  assert.equal(h.children[0]!.signalCode, 'SIGTERM');
  assert.deepEqual(h.states.at(-1), { state: 'stopped', reason: 'the service did not stop within 300 ms and was ended' });
  // An ended host is not restarted.
  await sleep(200);
  assert.equal(h.children.length, 1);
});

test('a sign-in link the host never gives times out, and one pending when the host dies is refused', async (t) => {
  const h = await harness(t, () => 'no-sign-in', { signInTimeoutMs: 200 });
  const { supervisor } = h;
  await supervisor.start(START);
  await assert.rejects(supervisor.requestSignIn(), /gave no sign-in link within 200 ms/);
  const pending = supervisor.requestSignIn();
  h.children[0]!.kill('SIGKILL');
  await assert.rejects(pending, /the service host stopped: it was ended by SIGKILL/);
  await supervisor.stop();
});

test('stop during a pending restart cancels it', async (t) => {
  const h = await harness(t, () => 'crash-after-ready', { backoffMs: 500 });
  const { supervisor } = h;
  await supervisor.start(START);
  await h.reached('restarting');
  await supervisor.stop();
  await sleep(700);
  assert.equal(h.children.length, 1);
  assert.deepEqual(h.states.at(-1), { state: 'stopped' });
});

test('a second start while running is refused', async (t) => {
  const h = await harness(t, () => 'normal');
  const { supervisor } = h;
  await supervisor.start(START);
  await assert.rejects(supervisor.start(START), /already started/);
  assert.equal(h.children.length, 1);
  await supervisor.stop();
});
