/**
 * WebSocket monitors through the whole service, against a real WebSocket server on loopback
 * (test/support/websocket-peer.ts): created, read, listed and changed over ConnectRPC, checked on
 * demand (the record of each check on the wire), by the `statusdesk` command, in an `apply -f`
 * file and its export, through MCP's get_monitor, exported over OTLP, and checked by a private
 * location's runner. Credential-like headers are sealed at rest, shown `[redacted]` and sent as
 * they are; bad input for every field is refused naming the field and the rule, and changes nothing.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { Periodicity, WebSocketMonitorSchema } from '../proto/gen/monitor/v1/monitor_pb.js';
import { type RunnerCheck, RunnerCheckSchema } from '../proto/gen/runner/v1/runner_pb.js';
import { fromRunnerCheck, toRunnerCheck } from '../server/checks/check-runner.ts';
import type { StoredCheck } from '../server/checks/result-store.ts';
import { emptyForm, formOf, updateOf, type WebSocketMonitorInit, wireOf } from '../renderer/src/screens/monitor-form/monitor-form-model.ts';
import { DATABASE_FILE } from '../server/db/open.ts';
import { AppError } from '../server/errors.ts';
import { storedCheck } from './support/checks.ts';
import { queryRows, sqliteOnly } from './support/database.ts';
import { assertViolation, jsonOf, monitorRpc, newWorkspace, runCli, startTestService, type TestService, tempDir } from './support/harness.ts';
import { connectMcp, ok } from './support/mcp-client.ts';
import { runnerApiUrl, runnerWorkspace, startRunner } from './support/runner.ts';
import { eventually, until } from './support/wait.ts';
import { GREETING, startWebSocketPeer, type WebSocketPeer } from './support/websocket-peer.ts';

const REDACTED = '[redacted]';
// Each run its own value, so a match in the data folder can only come from this run.
const SECRET = `Bearer ws-secret-${Math.random().toString(36).slice(2, 10)}`;

/** An OTLP/HTTP collector on loopback that keeps the JSON bodies it receives. */
async function startCollector() {
  const bodies: any[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      bodies.push(JSON.parse(body));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  /** The latest value of the gauge `name` for the monitor `monitorId`, or undefined. */
  const gauge = (name: string, monitorId: string): number | undefined => {
    let value: number | undefined;
    for (const body of bodies)
      for (const rm of body.resourceMetrics)
        for (const sm of rm.scopeMetrics)
          for (const metric of sm.metrics) {
            if (metric.name !== name) continue;
            for (const point of metric.gauge.dataPoints) {
              const id = point.attributes.find((a: { key: string }) => a.key === 'statusdesk.monitor.id')?.value.stringValue;
              if (id === monitorId) value = Number(point.asInt ?? point.asDouble);
            }
          }
    return value;
  };
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/metrics`, gauge, close: () => new Promise((r) => server.close(r)) };
}

describe('WebSocket monitors', { timeout: 120_000 }, () => {
  let service: TestService;
  let peer: WebSocketPeer;

  before(async () => {
    service = await startTestService({ OTEL_METRIC_EXPORT_INTERVAL: '200' });
    peer = await startWebSocketPeer();
  });
  after(async () => {
    await peer?.close();
    await service?.stop();
  });

  async function setUp(prefix: string) {
    const workspace = await newWorkspace(service, prefix);
    const key = await service.createKey('write', workspace.slug);
    return { workspace, key: key.secret, rpc: monitorRpc(service, key.secret) };
  }

  test('over ConnectRPC: create, get, list, check now with the record on the wire, update; a credential-like header sealed and used as it is', async () => {
    const { rpc } = await setUp('ws-rpc');
    const { monitor } = await rpc.createWebSocketMonitor({
      monitor: {
        name: 'greeter',
        url: peer.url('/greet'),
        headers: { Authorization: SECRET, origin: 'https://app.example' },
        expectText: 'statusdesk',
        periodicity: Periodicity.PERIODICITY_1M,
        regions: ['iad'],
        retry: 0,
      },
    });
    assert.equal(monitor!.url, peer.url('/greet'));
    assert.deepEqual(monitor!.headers, { Authorization: REDACTED, origin: 'https://app.example' });
    assert.equal(monitor!.subprotocol, '');
    assert.equal(monitor!.expectText, 'statusdesk');

    const got = await rpc.getMonitor({ id: monitor!.id });
    assert.equal(got.monitor.case, 'websocketMonitor');
    assert.deepEqual(got.monitor.value!.headers, { Authorization: REDACTED, origin: 'https://app.example' });
    const listed = await rpc.listMonitors({});
    assert.deepEqual(
      listed.websocketMonitors.map((m) => m.id),
      [monitor!.id],
    );

    const [result] = (await rpc.triggerMonitor({ id: monitor!.id })).results;
    assert.equal(result!.result, 'up', result!.message);
    assert.match(result!.message, /^upgraded, and the first message held the expected text in [\d.]+ ms$/);
    assert.equal(result!.statusCode, 101);
    assert.equal(result!.websocket?.status, 'OK');
    assert.equal(result!.websocket?.expectedMatched, true);
    assert.equal(result!.websocket?.messageBytes, Buffer.byteLength(GREETING));
    assert.equal(result!.websocket?.closeCode, undefined);
    assert.equal(typeof result!.timing?.ttfb, 'number');
    assert.equal(typeof result!.timing?.transfer, 'number');
    assert.equal(peer.upgrades.findLast((u) => u.path === '/greet')!.headers.authorization, SECRET, 'the check sends the sealed value as it is');

    // [redacted] sent back keeps the stored value; a mask clears what it names.
    const { monitor: updated } = await rpc.updateWebSocketMonitor({
      id: monitor!.id,
      monitor: { url: peer.url('/policy'), headers: { Authorization: REDACTED, origin: 'https://app.example' }, expectText: '' },
      updateMask: { paths: ['url', 'headers', 'expect_text'] },
    });
    assert.equal(updated!.expectText, '');
    assert.equal(updated!.url, peer.url('/policy'));
    await rpc.updateWebSocketMonitor({ id: monitor!.id, monitor: { expectText: 'ready', subprotocol: 'chat.v1' } });
    const [closed] = (await rpc.triggerMonitor({ id: monitor!.id })).results;
    assert.equal(closed!.result, 'down');
    assert.equal(closed!.message, 'the server closed the socket before the first message: 1008 policy violation ("token expired")');
    assert.equal(closed!.websocket?.status, 'CLOSED');
    assert.equal(closed!.websocket?.closeCode, 1008);
    assert.equal(closed!.websocket?.closeReason, 'token expired');
    assert.equal(closed!.websocket?.subprotocol, 'chat.v1');
    assert.equal(peer.upgrades.findLast((u) => u.path === '/policy')!.headers.authorization, SECRET, '[redacted] kept the stored value');

    const [refused] = (
      await rpc.triggerMonitor({
        id: (
          await rpc.createWebSocketMonitor({
            monitor: { name: 'refused', url: peer.url('/unauthorized'), periodicity: Periodicity.PERIODICITY_1M, regions: ['iad'] },
          })
        ).monitor!.id,
      })
    ).results;
    assert.equal(refused!.message, 'the server refused the upgrade: 401 Unauthorized');
    assert.equal(refused!.statusCode, 401);
    assert.equal(refused!.websocket?.status, 'HANDSHAKE_REFUSED');
  });

  test('the data folder never holds a credential-like header in the clear', { skip: sqliteOnly }, async () => {
    const { rpc } = await setUp('ws-sealed');
    await rpc.createWebSocketMonitor({
      monitor: { name: 'sealed ws', url: peer.url('/'), headers: { 'X-Api-Key': SECRET }, periodicity: Periodicity.PERIODICITY_1M, regions: ['iad'] },
    });
    const raw = (file: string) => {
      try {
        return readFileSync(join(service.dataDir, file)).toString('latin1');
      } catch {
        return '';
      }
    };
    const bytes = raw(DATABASE_FILE) + raw(`${DATABASE_FILE}-wal`);
    assert.ok(bytes.includes('sealed ws'), 'the monitor is in the files read');
    assert.ok(!bytes.includes(SECRET), 'the header value is sealed at rest');
  });

  test('bad input for every field is refused naming the field and the rule, and stores nothing', async () => {
    const { rpc } = await setUp('ws-bad');
    const base = { name: 'bad', url: peer.url('/'), periodicity: Periodicity.PERIODICITY_1M, regions: ['iad'] };
    const refusals: [Record<string, unknown>, string, RegExp][] = [
      [{ url: '' }, 'monitor.url', /is required: a ws:\/\/ or wss:\/\/ URL/],
      [{ url: 'chat.example.com/socket' }, 'monitor.url', /must be an absolute ws:\/\/ or wss:\/\/ URL/],
      [{ url: 'https://chat.example.com/socket' }, 'monitor.url', /must use ws:\/\/ or wss:\/\/, not https:\/\/: write wss:\/\/chat\.example\.com\/socket/],
      [{ url: 'ftp://chat.example.com/' }, 'monitor.url', /must use ws:\/\/ or wss:\/\/, not ftp:\/\//],
      [{ url: 'wss://user:pass@chat.example.com/' }, 'monitor.url', /must not carry credentials; send them in a header instead/],
      [{ url: 'wss://chat.example.com/#top' }, 'monitor.url', /must not have a #fragment/],
      [{ url: `wss://chat.example.com/${'a'.repeat(2048)}` }, 'monitor.url', /must be at most 2048 characters/],
      [{ url: 'ws://169.254.169.254/' }, 'monitor.url', /169\.254\.169\.254:80 is a cloud metadata address, which the destination policy refuses/],
      [{ url: `ws://127.0.0.1:${service.ports.api}/` }, 'monitor.url', /this service's own port/],
      [{ headers: { 'Sec-WebSocket-Key': 'x' } }, 'monitor.headers.Sec-WebSocket-Key', /is set by the WebSocket handshake/],
      [{ headers: { upgrade: 'h2c' } }, 'monitor.headers.upgrade', /is set by the connection and cannot be configured/],
      [{ headers: { 'x-a': 'one\r\ntwo' } }, 'monitor.headers.x-a', /line breaks/],
      [{ subprotocol: 'chat, other' }, 'monitor.subprotocol', /must name one subprotocol, without spaces or commas/],
      [{ subprotocol: 'chat/v1' }, 'monitor.subprotocol', /must be a subprotocol name/],
      [{ subprotocol: 'a'.repeat(129) }, 'monitor.subprotocol', /must be at most 128 characters/],
      [{ sendText: 'x'.repeat(64 * 1024 + 1) }, 'monitor.sendText', /must be at most 65536 bytes/],
      [{ expectText: 'x'.repeat(1025) }, 'monitor.expectText', /must be at most 1024 characters/],
    ];
    for (const [change, field, rule] of refusals) await assertViolation(rpc.createWebSocketMonitor({ monitor: { ...base, ...change } as never }), field, rule);
    assert.equal((await rpc.listMonitors({})).totalSize, 0, 'nothing was stored');

    // At the limits, stored; an update refused changes nothing.
    const { monitor } = await rpc.createWebSocketMonitor({
      monitor: { ...base, subprotocol: 'a'.repeat(128), sendText: 'x'.repeat(64 * 1024), expectText: 'y'.repeat(1024) },
    });
    await assertViolation(rpc.updateWebSocketMonitor({ id: monitor!.id, monitor: { url: 'http://chat.example.com/' } }), 'monitor.url', /ws:\/\/ or wss:\/\//);
    const kept = (await rpc.getMonitor({ id: monitor!.id })).monitor.value as { url: string; updatedAt: unknown };
    assert.equal(kept.url, base.url);
  });

  test('the statusdesk command: create with every flag, get, update, trigger with the record in --json', async () => {
    const { key } = await setUp('ws-cli');
    const env = { SERVICE_API_KEY: key, SERVICE_API_URL: service.apiUrl };
    const created = await runCli(
      [
        'monitors',
        'create',
        'websocket',
        '--name',
        'echo',
        '--target',
        peer.url('/echo'),
        '--frequency',
        '1m',
        '--regions',
        'iad',
        '--header',
        `authorization=${SECRET}`,
        '--subprotocol',
        'chat.v1',
        '--send-text',
        '{"op":"ping"}',
        '--expect-text',
        '"op":"ping"',
        '--json',
      ],
      env,
    );
    const monitor = jsonOf(created);
    assert.equal(monitor.type, 'websocket');
    assert.equal(monitor.target, peer.url('/echo'));
    assert.deepEqual(monitor.headers, { authorization: REDACTED });
    assert.equal(monitor.subprotocol, 'chat.v1');
    assert.equal(monitor.sendText, '{"op":"ping"}');
    assert.equal(monitor.expectText, '"op":"ping"');

    const table = await runCli(['monitors', 'get', monitor.id], env);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /subprotocol\s+chat\.v1/);
    assert.match(table.stdout, /send\s+13 bytes/);
    assert.match(table.stdout, /expect\s+"\\"op\\":\\"ping\\""/);

    const triggered = jsonOf(await runCli(['monitors', 'trigger', monitor.id, '--json'], env));
    const [result] = triggered.results;
    assert.equal(result.result, 'up', result.message);
    assert.equal(result.statusCode, 101);
    assert.deepEqual(result.websocket, { status: 'OK', subprotocol: 'chat.v1', closeCode: null, closeReason: '', expectedMatched: true, messageBytes: 13 });

    const updated = jsonOf(await runCli(['monitors', 'update', monitor.id, '--expect-text', 'pong', '--json'], env));
    assert.equal(updated.expectText, 'pong');
    const [failed] = jsonOf(await runCli(['monitors', 'trigger', monitor.id, '--json'], env)).results;
    assert.equal(failed.message, 'the reply (13 bytes) did not contain the expected text');
    assert.equal(failed.websocket.status, 'UNEXPECTED_MESSAGE');

    const ambiguous = await runCli(
      ['monitors', 'create', 'websocket', '--name', 'x', '--url', service.apiUrl, '--target', peer.url('/'), '--frequency', '1m'],
      env,
    );
    assert.equal(ambiguous.code, 2);
    assert.match(ambiguous.stderr, /--url is ambiguous for a WebSocket monitor: give its URL as --target, and the service as --api-url/);

    const bad = await runCli(['monitors', 'update', monitor.id, '--subprotocol', 'a b'], env);
    assert.equal(bad.code, 2, 'a value the service refuses is named by its flag');
    assert.equal(bad.stderr, 'statusdesk: --subprotocol: must name one subprotocol, without spaces or commas\n');
  });

  test('apply -f makes a WebSocket monitor from a file, export writes it back, and applying the export changes nothing', async () => {
    const { key, rpc } = await setUp('ws-apply');
    const env = { SERVICE_API_KEY: key, SERVICE_API_URL: service.apiUrl, WS_TOKEN: SECRET };
    const dir = await tempDir();
    try {
      const file = join(dir.path, 'statusdesk.yaml');
      const text = `version: 1
monitors:
  - name: Live reload
    type: websocket
    target: ${peer.url('/echo')}
    frequency: 5m
    headers:
      authorization: \${WS_TOKEN}
    subprotocol: chat.v1
    sendText: hello
    expectText: hello
`;
      await import('node:fs/promises').then((fs) => fs.writeFile(file, text));
      const applied = await runCli(['apply', '-f', file], env);
      assert.equal(applied.code, 0, applied.stderr);
      const [made] = (await rpc.listMonitors({})).websocketMonitors;
      assert.equal(made!.name, 'Live reload');
      assert.deepEqual([made!.subprotocol, made!.sendText, made!.expectText], ['chat.v1', 'hello', 'hello']);
      const [result] = (await rpc.triggerMonitor({ id: made!.id })).results;
      assert.equal(result!.result, 'up', result!.message);
      assert.equal(peer.upgrades.findLast((u) => u.path === '/echo')!.headers.authorization, SECRET);

      const exported = await runCli(['export'], env);
      assert.equal(exported.code, 0, exported.stderr);
      assert.match(exported.stdout, /type: websocket\n {4}target: ws:\/\/127\.0\.0\.1:\d+\/echo\n/);
      assert.match(exported.stdout, /authorization: "?\[redacted\]"?/);
      assert.match(exported.stdout, /expectText: hello/);
      const out = join(dir.path, 'exported.yaml');
      await import('node:fs/promises').then((fs) => fs.writeFile(out, exported.stdout));
      const again = await runCli(['apply', '-f', out], env);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /0 to create, 0 to update, 0 to delete, 1 unchanged/);
    } finally {
      await dir.remove();
    }
  });

  test("MCP's get_monitor and list_monitors show the type, its URL and its fields, credentials [redacted]", async () => {
    const { workspace, rpc } = await setUp('ws-mcp');
    const { monitor } = await rpc.createWebSocketMonitor({
      monitor: {
        name: 'feed',
        url: peer.url('/'),
        headers: { authorization: SECRET },
        subprotocol: 'chat.v1',
        periodicity: Periodicity.PERIODICITY_1M,
        regions: ['iad'],
      },
    });
    const read = await service.createKey('read', workspace.slug);
    const mcp = await connectMcp(service.apiUrl, '2025-11-25', read.secret);
    try {
      const shown = ok(await mcp.call('get_monitor', { monitorId: Number(monitor!.id) })).monitor;
      assert.equal(shown.type, 'websocket');
      assert.equal(shown.url, peer.url('/'));
      assert.deepEqual(shown.headers, { authorization: REDACTED });
      assert.equal(shown.subprotocol, 'chat.v1');
      const { monitors } = ok(await mcp.call('list_monitors', {}));
      assert.deepEqual(
        monitors.map((m: { type: string }) => m.type),
        ['websocket'],
      );
    } finally {
      await mcp.close();
    }
  });

  test('OTLP: the size of the first message is the gauge statusdesk.websocket.message.size', async () => {
    const collector = await startCollector();
    try {
      const { rpc } = await setUp('ws-otlp');
      const { monitor } = await rpc.createWebSocketMonitor({
        monitor: {
          name: 'metered',
          url: peer.url('/greet'),
          expectText: 'hello',
          periodicity: Periodicity.PERIODICITY_1M,
          regions: ['iad'],
          openTelemetry: { endpoint: collector.endpoint, headers: {} },
        },
      });
      assert.equal((await rpc.triggerMonitor({ id: monitor!.id })).results[0]!.result, 'up');
      await until(() => collector.gauge('statusdesk.websocket.message.size', monitor!.id) === Buffer.byteLength(GREETING), 'the gauge exported');
    } finally {
      await collector.close();
    }
  });

  test('a check survives the runner protocol whole; what a hostile runner may not report of it is refused', () => {
    const check: StoredCheck = {
      ...storedCheck(7, 3, Date.UTC(2026, 0, 15), 'down', 12),
      statusCode: 101,
      websocket: { status: 'CLOSED', subprotocol: 'chat.v1', closeCode: 1008, closeReason: 'token expired', expectedMatched: null, messageBytes: null },
    };
    const wire = (c: StoredCheck): RunnerCheck => fromBinary(RunnerCheckSchema, toBinary(RunnerCheckSchema, create(RunnerCheckSchema, toRunnerCheck(1, c))));
    const office = { runner: 'office', regions: ['office'], workspaceId: 3 };
    assert.deepEqual(fromRunnerCheck(wire(check), office), { ...check, runner: 'office', regions: ['office'] });
    const matched = {
      ...check,
      websocket: { ...check.websocket!, status: 'OK' as const, closeCode: null, closeReason: '', expectedMatched: true, messageBytes: 16 },
    };
    assert.deepEqual(fromRunnerCheck(wire(matched), office), { ...matched, runner: 'office', regions: ['office'] });
    const refused = (change: (m: RunnerCheck) => void) => {
      const message = wire(check);
      change(message);
      try {
        fromRunnerCheck(message, office);
      } catch (error) {
        assert.ok(error instanceof AppError && error.code === 'VALIDATION');
        return error.message;
      }
      assert.fail('accepted');
    };
    assert.match(
      refused((m) => (m.websocket!.status = 'FINE')),
      /^websocket\.status: must be one of OK, /,
    );
    assert.match(
      refused((m) => (m.websocket!.closeCode = 99)),
      /^websocket\.closeCode: must be a close code/,
    );
    assert.match(
      refused((m) => (m.websocket!.messageBytes = 10_000_000)),
      /^websocket\.messageBytes: must be at most 65536/,
    );
    assert.match(
      refused((m) => (m.websocket!.closeReason = 'x'.repeat(500))),
      /^websocket\.closeReason: must be at most 123 characters/,
    );
  });

  test("a private location's runner checks a WebSocket monitor and reports its record", async () => {
    const ws = await runnerWorkspace(service, 'ws-location');
    const location = await ws.location('ws-office');
    const { monitor } = await ws.monitors.createWebSocketMonitor({
      monitor: {
        name: 'from the office',
        url: peer.url('/greet'),
        expectText: 'hello',
        periodicity: Periodicity.PERIODICITY_30S,
        retry: 0,
        privateLocations: [location.id],
      },
    });
    const dir = await tempDir();
    const runner = startRunner({ apiUrl: runnerApiUrl(service), token: location.token, dataDir: dir.path });
    try {
      const [row] = await eventually(
        () =>
          queryRows<{ result: string; message: string; details: string | null; status_code: number | null }>(
            service.dataDir,
            'SELECT * FROM check_results WHERE monitor_id = ? AND runner = ?',
            Number(monitor!.id),
            location.name,
          ),
        (rows) => rows.length > 0,
        `a check of monitor ${monitor!.id} by ${location.name}`,
        45_000,
        250,
      );
      assert.equal(row!.result, 'up', `${row!.message}\n${runner.output()}`);
      assert.deepEqual(JSON.parse(row!.details!).websocket, {
        status: 'OK',
        subprotocol: null,
        closeCode: null,
        closeReason: '',
        expectedMatched: true,
        messageBytes: Buffer.byteLength(GREETING),
      });
    } finally {
      await runner.stop();
      await dir.remove();
    }
  });
});

describe("the monitor form's model of a WebSocket monitor", () => {
  const stored = {
    type: 'websocket' as const,
    monitor: create(WebSocketMonitorSchema, {
      id: '5',
      name: 'feed',
      url: 'wss://feed.example/socket',
      headers: { authorization: REDACTED, origin: 'https://app.example' },
      subprotocol: 'chat.v1',
      sendText: ' {"op":"ping"} ',
      expectText: 'pong',
      periodicity: Periodicity.PERIODICITY_1M,
      regions: ['iad'],
    }),
  };

  test('a stored monitor fills the form, and the form is its message again, the hidden header kept as [redacted]', () => {
    const form = formOf(stored);
    assert.equal(form.url, 'wss://feed.example/socket');
    assert.deepEqual(
      form.headers.map((r) => [r.name, r.value]),
      [
        ['authorization', ''],
        ['origin', 'https://app.example'],
      ],
    );
    assert.deepEqual([form.subprotocol, form.sendText, form.expectText], ['chat.v1', ' {"op":"ping"} ', 'pong']);
    const { wire, local } = wireOf('websocket', form);
    assert.deepEqual(local, []);
    assert.equal(wire.type, 'websocket');
    const monitor = wire.monitor as WebSocketMonitorInit;
    assert.deepEqual(monitor.headers, { authorization: REDACTED, origin: 'https://app.example' });
    assert.equal(monitor.sendText, ' {"op":"ping"} ', 'a message is sent as typed, spaces and all');
    assert.equal(monitor.subprotocol, 'chat.v1');
  });

  test('an edit sends only what changed, named by its proto name', () => {
    const form = { ...formOf(stored), expectText: 'ready', subprotocol: '' };
    const { update } = updateOf('websocket', form, { expectText: true, subprotocol: true });
    assert.deepEqual(update?.updateMask.paths, ['subprotocol', 'expect_text']);
    assert.deepEqual(update?.monitor, { subprotocol: '', expectText: 'ready' });
    assert.equal(updateOf('websocket', formOf(stored), {}).update, undefined);
  });

  test('a new monitor starts at the declared defaults', () => {
    const form = emptyForm();
    assert.deepEqual([form.subprotocol, form.sendText, form.expectText], ['', '', '']);
  });
});
