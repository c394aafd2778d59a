// What people expect of a service: GET /healthz on both ports, and logs that say when a monitor
// goes down and recovers, readable on a terminal and JSON lines elsewhere.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { createClient } from '../client/index.ts';
import { Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { CLI, json, perTestCleanup, runCli, spawnServe, startTestService, type TestService } from './support/harness.ts';
import { closedPort, startTcpListener } from './support/grpc-peers.ts';
import { request } from './support/raw-http.ts';
import { eventually } from './support/wait.ts';

const LOG_DESTINATION = new URL('../server/log-destination.ts', import.meta.url).href;

const T = { timeout: 60_000 };
const { folder, children } = perTestCleanup();

describe('GET /healthz', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.stop());

  test('answers ok and the version on both ports, without credentials', T, async () => {
    for (const base of [svc.apiUrl, svc.dashboardUrl]) {
      const response = await fetch(`${base}/healthz`);
      assert.equal(response.status, 200, base);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      const body = await json(response);
      assert.deepEqual(Object.keys(body), ['status', 'version']);
      assert.equal(body.status, 'ok');
      assert.match(body.version, /^\d+\.\d+\.\d+/);
    }
  });

  test('answers HEAD with the headers and no body', T, async () => {
    for (const port of Object.values(svc.ports)) {
      const head = await request(port, '/healthz', { host: `localhost:${port}` }, 'HEAD');
      assert.equal(head.status, 200);
      assert.equal(head.body, '');
      assert.match(String(head.headers['content-type']), /^application\/json/);
    }
  });

  test('refuses a foreign Host like every path', T, async () => {
    for (const port of Object.values(svc.ports)) {
      const refused = await request(port, '/healthz', { host: `evil.example:${port}` });
      assert.equal(refused.status, 403);
      assert.doesNotMatch(refused.body, /version/);
    }
  });
});

describe('serve logs', () => {
  test('a monitor going down and recovering logs one JSON line each, with its fields', T, async () => {
    const dataDir = await folder();
    const service = await spawnServe(['--data-dir', dataDir], { STATUSDESK_LOG_LEVEL: undefined });
    children.push(service.child);
    const key = (await runCli(['keys', 'create', '--workspace', 'personal', '--scope', 'write', '--name', 'logs', '--data-dir', dataDir])).stdout.trim();
    const api = createClient({ baseUrl: `${service.ready.apiUrl}/rpc`, apiKey: key, env: {} });
    const port = await closedPort();
    const { monitor } = await api.monitors.createTCPMonitor({
      monitor: { name: 'Database', uri: `127.0.0.1:${port}`, periodicity: Periodicity.PERIODICITY_5M, regions: ['iad'], retry: 0 },
    });
    const id = monitor!.id;
    const lines = () =>
      service
        .stderr()
        .split('\n')
        .filter((line) => line.includes(`"monitorId":"${id}"`))
        .map((line) => JSON.parse(line));

    await api.monitors.triggerMonitor({ id });
    const [down] = await eventually(lines, (l) => l.length === 1, 'the down line');
    assert.equal(down.msg, `monitor ${id} "Database" is down: connection refused`);
    assert.equal(down.level, 40, 'a warning');
    assert.deepEqual(
      { name: down.name, from: down.from, to: down.to, message: down.message },
      { name: 'Database', from: null, to: 'down', message: 'connection refused' },
    );

    const listener = await startTcpListener('127.0.0.1', port);
    try {
      await api.monitors.triggerMonitor({ id });
      const [, recovered] = await eventually(lines, (l) => l.length === 2, 'the recovered line');
      assert.equal(recovered.msg, `monitor ${id} "Database" has recovered`);
      assert.equal(recovered.level, 30, 'info');
      assert.deepEqual({ from: recovered.from, to: recovered.to }, { from: 'down', to: 'up' });
    } finally {
      await listener.close();
    }
  });

  test('on a terminal the lines are for people, and the ready line on stdout stays JSON', T, async () => {
    const dataDir = await folder();
    const command = [process.execPath, CLI, 'serve', '--port', '0', '--dashboard-port', '0', '--data-dir', dataDir].map((a) => `'${a}'`).join(' ');
    // `script` gives the service a terminal for stdout and stderr alike; its own group, ended as one.
    const child = spawn('/usr/bin/script', ['-qec', command, '/dev/null'], {
      env: { ...process.env, STATUSDESK_CHECKS: 'off', STATUSDESK_LOG_LEVEL: undefined },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    try {
      await eventually(
        () => out,
        (text) => /INFO.*ready/.test(text),
        'the pretty ready line',
        20_000,
      );
      assert.match(out, /\{"event":"ready","apiUrl":"http:\/\/localhost:\d+","dashboardUrl":/);
      assert.doesNotMatch(out, /"level":30/, 'no JSON log line on a terminal');
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
    }
  });
});

describe('the log destination', () => {
  /** A Node.js process that logs `line` through logDestination(), then runs `then`. */
  const logger = (line: string, then: string) =>
    `import pino from 'pino'; import { logDestination } from '${LOG_DESTINATION}';
     const log = pino({ base: undefined }, logDestination()); log.info(${JSON.stringify(line)}); ${then}`;
  const run = (script: string) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('..', import.meta.url), timeout: 30_000 }, (error, _stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr }),
      );
    });

  /** A logger that goes on running, and what it wrote on stderr so far. */
  function runningLogger(line: string) {
    const child = spawn(process.execPath, ['--input-type=module', '-e', logger(line, 'setTimeout(() => {}, 20_000);')], {
      cwd: new URL('..', import.meta.url),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    return {
      child,
      written: () =>
        eventually(
          () => stderr,
          (text) => text.includes(`"msg":"${line}"`),
          `the line "${line}", while the process runs`,
        ),
    };
  }

  test('writes a line within a moment while the process goes on, without a flush', T, async () => {
    const { child, written } = runningLogger('still running');
    await written();
    child.kill();
  });

  test('does not wake an idle process to write nothing', { ...T, skip: process.platform !== 'linux' && 'counts write calls in /proc' }, async () => {
    const { child, written } = runningLogger('then idle');
    await written();
    const writeCalls = () => Number(/^syscw: (\d+)$/m.exec(readFileSync(`/proc/${child.pid}/io`, 'utf8'))![1]);
    const before = writeCalls();
    await sleep(500);
    assert.equal(writeCalls(), before, 'write calls while idle');
    child.kill();
  });

  test('writes the lines that wait when the process exits, ends with an uncaught error, or runs out of work', T, async () => {
    for (const [how, then, code] of [
      ['process.exit', 'process.exit(3);', 3],
      ['an uncaught error', "setTimeout(() => { throw new Error('boom'); });", 1],
      ['an empty event loop', '', 0],
    ] as const) {
      const ended = await run(logger(`before ${how}`, then));
      assert.equal(ended.code, code, `${how}: ${ended.stderr}`);
      assert.match(ended.stderr, new RegExp(`"msg":"before ${how}"`), how);
    }
  });
});
