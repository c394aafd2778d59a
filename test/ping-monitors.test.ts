/**
 * Ping monitors through the whole service: created, read, listed and changed over ConnectRPC,
 * the `statusdesk` command, an `apply -f` file and its export, shown by MCP's get_monitor and the
 * dashboard's results; checked by the system's ping against 127.0.0.1 and ::1 where this machine
 * lets it run; bad input for every field refused naming the field and the rule, storing nothing.
 * What loopback cannot give (lost packets, slow answers, a ping that may not send) is tested on
 * the probe, with recorded outputs (ping-probe.test.ts).
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { durationFromMs, durationMs } from '@bufbuild/protobuf/wkt';
import { Periodicity, type PingMonitor, PingMonitorSchema } from '../proto/gen/monitor/v1/monitor_pb.js';
import { createOf, emptyForm, formOf, updateOf, wireOf } from '../renderer/src/screens/monitor-form/monitor-form-model.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { probePing, usePingSearchPath } from '../server/checks/ping-probe.ts';
import { createDestinationPolicy } from '../server/domain/destinations.ts';
import { assertViolation, dashboardSession, jsonOf, monitorRpc, newWorkspace, runCli, startTestService, type TestService, tempDir } from './support/harness.ts';
import { fakePing } from './support/fake-ping.ts';
import { connectMcp, ERAS, ok } from './support/mcp-client.ts';
import { queryRows } from './support/database.ts';
import { runnerApiUrl, runnerWorkspace, startRunner } from './support/runner.ts';
import { eventually, until } from './support/wait.ts';

const T = { timeout: 120_000 };

describe('ping monitors', () => {
  let service: TestService;
  /** Why the system's ping cannot ping each loopback address here; undefined where it can. */
  const unavailable = new Map<string, string | undefined>();

  before(async () => {
    service = await startTestService();
    for (const host of ['127.0.0.1', '::1']) {
      const probe = await probePing(
        { host, count: 1, packetTimeout: 1000, degradedLoss: 0, timeout: 5000, degraded: null, retry: 0 },
        { destinations: createDestinationPolicy() },
      );
      unavailable.set(host, probe.result === 'down' ? `the system's ping cannot ping ${host} on this machine: ${probe.message}` : undefined);
    }
  });
  after(() => service.stop());

  async function setUp(prefix: string) {
    const workspace = await newWorkspace(service, prefix);
    const key = await service.createKey('write', workspace.slug);
    return { workspace, key: key.secret, rpc: monitorRpc(service, key.secret) };
  }

  const base = { name: 'nas', periodicity: 3, regions: ['iad'] };

  test('create fills the defaults; get, list and update carry every field', T, async () => {
    const { rpc } = await setUp('ping-rpc');
    const { monitor } = await rpc.createPingMonitor({ monitor: { ...base, host: ' 127.0.0.1 ' } });
    assert.equal(monitor!.host, '127.0.0.1');
    assert.equal(monitor!.count, 3);
    assert.equal(durationMs(monitor!.packetTimeout!), 1000);
    assert.equal(monitor!.degradedLoss, 0);

    const got = await rpc.getMonitor({ id: monitor!.id });
    assert.equal(got.monitor.case, 'pingMonitor');
    assert.equal((got.monitor.value as PingMonitor).host, '127.0.0.1');
    const listed = await rpc.listMonitors({});
    assert.deepEqual(
      listed.pingMonitors.map((m) => m.id),
      [monitor!.id],
    );

    const { monitor: changed } = await rpc.updatePingMonitor({
      id: monitor!.id,
      monitor: { host: 'localhost', count: 5, packetTimeout: { seconds: 2n }, degradedLoss: 20 },
      updateMask: { paths: ['host', 'count', 'packet_timeout', 'degraded_loss'] },
    });
    assert.deepEqual([changed!.host, changed!.count, durationMs(changed!.packetTimeout!), changed!.degradedLoss], ['localhost', 5, 2000, 20]);
    const { monitor: reset } = await rpc.updatePingMonitor({ id: monitor!.id, monitor: {}, updateMask: { paths: ['count', 'degraded_loss'] } });
    assert.deepEqual(
      [reset!.count, reset!.degradedLoss, durationMs(reset!.packetTimeout!)],
      [3, 0, 2000],
      'a field named without a value returns to its default',
    );
  });

  for (const host of ['127.0.0.1', '::1']) {
    test(`a check of ${host} with the system's ping is up, with its packets and round trips in the record`, T, async (t) => {
      if (unavailable.get(host)) return t.skip(unavailable.get(host));
      const { rpc, workspace } = await setUp('ping-check');
      const { monitor } = await rpc.createPingMonitor({ monitor: { ...base, host, count: 2 } });
      const [result] = (await rpc.triggerMonitor({ id: monitor!.id })).results;
      assert.equal(result!.result, 'up', result!.message);
      assert.match(result!.message, new RegExp(`^2 of 2 packets answered by ${host.replace(/\./g, '\\.')}, round trip`));
      const ping = result!.ping!;
      assert.deepEqual([ping.address, ping.transmitted, ping.received, ping.lossPercent], [host, 2, 2, 0]);
      assert.equal(result!.latencyMs, ping.rttAvgMs, 'the latency is the average round trip');
      assert.ok(ping.rttMinMs! <= ping.rttAvgMs! && ping.rttAvgMs! <= ping.rttMaxMs!);

      // Stored with the check, and read back by the dashboard's view of the latest checks.
      const session = await dashboardSessionOnce();
      const response = await fetch(`${service.dashboardUrl}/api/workspaces/${workspace.id}/monitors/${monitor!.id}/results`, { headers: session });
      assert.equal(response.status, 200, await response.clone().text());
      const { results } = (await response.json()) as { results: { ping: unknown }[] };
      assert.deepEqual(results[0]!.ping, {
        address: host,
        transmitted: 2,
        received: 2,
        lossPercent: 0,
        rttMinMs: ping.rttMinMs,
        rttAvgMs: ping.rttAvgMs,
        rttMaxMs: ping.rttMaxMs,
      });
    });
  }

  let session: Record<string, string> | undefined;
  /** The dashboard's sign-in link works once per service. */
  const dashboardSessionOnce = async () => (session ??= await dashboardSession(service));

  test('a name that does not resolve is down with its own message, without a record', T, async () => {
    const { rpc } = await setUp('ping-dns');
    const { monitor } = await rpc.createPingMonitor({ monitor: { ...base, host: 'no-such-host.invalid', retry: 0 } });
    const [result] = (await rpc.triggerMonitor({ id: monitor!.id })).results;
    assert.equal(result!.result, 'down');
    assert.equal(result!.message, 'DNS lookup failed: no such host (no-such-host.invalid)');
    assert.equal(result!.ping, undefined);
  });

  test('bad input for every field is refused naming the field and the rule, and nothing is stored', T, async () => {
    const { rpc } = await setUp('ping-bad');
    const refusals: [Record<string, unknown>, string, RegExp][] = [
      [{ host: '' }, 'monitor.host', /is required: a hostname or an IP address/],
      [{ host: '-f' }, 'monitor.host', /not an option: it must not start with "-"/],
      [{ host: '-c 1000 127.0.0.1' }, 'monitor.host', /not an option/],
      [{ host: ';rm -rf /' }, 'monitor.host', /must be a hostname .* spaces and characters such as ; \$ \( \) are refused/],
      [{ host: '$(x)' }, 'monitor.host', /must be a hostname/],
      [{ host: 'nas local' }, 'monitor.host', /must be a hostname/],
      [{ host: `${'a'.repeat(60)}.`.repeat(5) }, 'monitor.host', /must be at most 253 characters/],
      [{ host: 'nas.local:80' }, 'monitor.host', /must be a host without a port: ping has no ports, write e\.g\. nas\.local$/],
      [{ host: 'https://nas.local' }, 'monitor.host', /without a scheme: drop "https:\/\/"/],
      [{ host: '[::1]' }, 'monitor.host', /without brackets here: ::1/],
      [{ host: '169.254.169.254' }, 'monitor.host', /^169\.254\.169\.254 is a cloud metadata address, which the destination policy refuses/],
      [{ host: 'metadata.google.internal' }, 'monitor.host', /cloud metadata address/],
      [{ host: 'nas.local', count: 0 }, 'monitor.count', /must be 1 to 10/],
      [{ host: 'nas.local', count: 11 }, 'monitor.count', /must be 1 to 10/],
      [{ host: 'nas.local', packetTimeout: { nanos: 50_000_000 } }, 'monitor.packetTimeout', /must be at least 100 ms/],
      [{ host: 'nas.local', packetTimeout: { seconds: 20n } }, 'monitor.packetTimeout', /must be at most 10 s/],
      [{ host: 'nas.local', degradedLoss: -1 }, 'monitor.degradedLoss', /must be 0 to 100/],
      [{ host: 'nas.local', degradedLoss: 101 }, 'monitor.degradedLoss', /must be 0 to 100/],
      [
        { host: 'nas.local', count: 10, packetTimeout: { seconds: 5n }, timeout: { seconds: 30n } },
        'monitor.packetTimeout',
        /count × packetTimeout \(10 × 5000 ms\) must not exceed timeout \(30000 ms\)/,
      ],
    ];
    for (const [fields, field, rule] of refusals) {
      await assertViolation(rpc.createPingMonitor({ monitor: { ...base, ...fields } }), field, rule).catch((error: Error) => {
        throw new Error(`${JSON.stringify(fields, (_, v) => (typeof v === 'bigint' ? String(v) : v))}: ${error.message}`);
      });
    }
    assert.equal((await rpc.listMonitors({})).totalSize, 0, 'nothing was created');

    const { monitor } = await rpc.createPingMonitor({ monitor: { ...base, host: 'nas.local' } });
    await assertViolation(rpc.updatePingMonitor({ id: monitor!.id, monitor: { host: '`id`' } }), 'monitor.host', /must be a hostname/);
    await assertViolation(
      rpc.updatePingMonitor({ id: monitor!.id, monitor: { count: 10, packetTimeout: { seconds: 10n } } }),
      'monitor.packetTimeout',
      /must not exceed timeout/,
    );
    const kept = (await rpc.getMonitor({ id: monitor!.id })).monitor.value as PingMonitor;
    assert.deepEqual([kept.host, kept.count, durationMs(kept.packetTimeout!)], ['nas.local', 3, 1000], 'a refused update changes nothing');
  });

  test('statusdesk monitors create, get, update and trigger a ping monitor; bad flags name the flag', T, async (t) => {
    const { key } = await setUp('ping-cli');
    const env = { SERVICE_API_KEY: key, SERVICE_API_URL: service.apiUrl };
    const cli = (args: string[]) => runCli(['monitors', ...args], env);
    const made = jsonOf(
      await cli([
        'create',
        'ping',
        '--name',
        'router',
        '--target',
        '127.0.0.1',
        '--count',
        '2',
        '--packet-timeout',
        '500ms',
        '--degraded-loss',
        '10',
        '--frequency',
        '10m',
        '--regions',
        'iad',
        '--json',
      ]),
    );
    assert.deepEqual([made.type, made.target, made.count, made.packetTimeout, made.degradedLoss], ['ping', '127.0.0.1', 2, 500, 10]);
    const shown = await cli(['get', made.id]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /count\s+2\n/);
    assert.match(shown.stdout, /packet timeout\s+500 ms\n/);
    assert.match(shown.stdout, /degraded loss\s+above 10 %\n/);
    const updated = jsonOf(await cli(['update', made.id, '--count', '4', '--packet-timeout', '2s', '--json']));
    assert.deepEqual([updated.count, updated.packetTimeout, updated.degradedLoss], [4, 2000, 10]);

    const badDuration = await cli(['update', made.id, '--packet-timeout', '5x']);
    assert.equal(badDuration.code, 2);
    assert.match(badDuration.stderr, /--packet-timeout must be a duration like 500ms, 45s, 15m, 2h or 1d, got "5x"/);
    const badHost = await cli(['create', 'ping', '--name', 'x', '--target=-f', '--frequency', '10m', '--regions', 'iad']);
    assert.equal(badHost.code, 2, badHost.stderr);
    assert.match(badHost.stderr, /^statusdesk: --target: must be a hostname or an IP address, not an option/);
    const badCount = await cli(['update', made.id, '--count', '12']);
    assert.equal(badCount.code, 2, badCount.stderr);
    assert.match(badCount.stderr, /^statusdesk: --count: must be 1 to 10/);

    if (unavailable.get('127.0.0.1')) return t.skip(unavailable.get('127.0.0.1'));
    const checked = jsonOf(await cli(['trigger', made.id, '--json']));
    assert.equal(checked.results[0].result, 'up', checked.results[0].message);
    assert.deepEqual([checked.results[0].ping.transmitted, checked.results[0].ping.received], [4, 4]);
  });

  test('an apply -f file makes a ping monitor with every field, export writes it back, and applying it again changes nothing', T, async () => {
    const { key, workspace } = await setUp('ping-apply');
    const env = { SERVICE_API_KEY: key, SERVICE_API_URL: service.apiUrl };
    const folder = await tempDir();
    try {
      const path = join(folder.path, 'statusdesk.yaml');
      await writeFile(
        path,
        `version: 1
monitors:
  - name: Router
    type: ping
    target: 192.168.1.1
    frequency: 1m
    count: 5
    packetTimeout: 2000
    degradedLoss: 20
    degraded: 50
`,
      );
      const applied = await runCli(['apply', '-f', path], env);
      assert.equal(applied.code, 0, applied.stderr);
      const { pingMonitors } = await monitorRpc(service, key).listMonitors({});
      const [router] = pingMonitors;
      assert.deepEqual(
        [router!.host, router!.count, durationMs(router!.packetTimeout!), router!.degradedLoss, durationMs(router!.degraded!)],
        ['192.168.1.1', 5, 2000, 20, 50],
      );
      const exported = await runCli(['export'], env);
      assert.equal(exported.code, 0, exported.stderr);
      assert.match(exported.stdout, /- name: Router\n {4}type: ping\n {4}target: 192\.168\.1\.1\n {4}frequency: 1m\n/);
      assert.match(exported.stdout, /count: 5\n/);
      assert.match(exported.stdout, /packetTimeout: 2000\n/);
      assert.match(exported.stdout, /degradedLoss: 20\n/);
      const again = join(folder.path, 'exported.yaml');
      await writeFile(again, exported.stdout);
      const plan = await runCli(['apply', '-f', again, '--dry-run'], env);
      assert.equal(plan.code, 0, plan.stderr);
      assert.match(plan.stdout, /0 to create, 0 to update, 0 to delete, 1 unchanged/);

      const bad = join(folder.path, 'bad.yaml');
      await writeFile(bad, 'version: 1\nmonitors:\n  - name: Bad\n    type: ping\n    target: "$(reboot)"\n    frequency: 1m\n    count: 40\n');
      const refused = await runCli(['apply', '-f', bad], env);
      assert.equal(refused.code, 2, refused.stdout);
      assert.match(refused.stderr, /target: must be a hostname/);
      assert.match(refused.stderr, /count: must be 1 to 10/);
      assert.equal((await monitorRpc(service, key).listMonitors({})).totalSize, 1, `nothing of ${workspace.slug}'s bad file was made`);
    } finally {
      await folder.remove();
    }
  });

  test("a private location's runner pings with its machine's ping and reports the record", T, async (t) => {
    if (unavailable.get('127.0.0.1')) return t.skip(unavailable.get('127.0.0.1'));
    const ws = await runnerWorkspace(service, 'ping-location');
    const location = await ws.location('ping-office');
    const { monitor } = await ws.monitors.createPingMonitor({
      monitor: { name: 'from the office', host: '127.0.0.1', count: 2, periodicity: Periodicity.PERIODICITY_30S, retry: 0, privateLocations: [location.id] },
    });
    const dir = await tempDir();
    const runner = startRunner({ apiUrl: runnerApiUrl(service), token: location.token, dataDir: dir.path });
    try {
      const [row] = await eventually(
        () =>
          queryRows<{ result: string; message: string; details: string | null }>(
            service.dataDir,
            'SELECT result, message, details FROM check_results WHERE monitor_id = ? AND runner = ?',
            Number(monitor!.id),
            location.name,
          ),
        (rows) => rows.length > 0,
        `a check of monitor ${monitor!.id} by ${location.name}`,
        45_000,
        250,
      );
      assert.equal(row!.result, 'up', `${row!.message}\n${runner.output()}`);
      const { ping } = JSON.parse(row!.details!);
      assert.deepEqual([ping.address, ping.transmitted, ping.received, ping.lossPercent], ['127.0.0.1', 2, 2, 0]);
      assert.equal(typeof ping.rttAvgMs, 'number');
    } finally {
      await runner.stop();
      await dir.remove();
    }
  });

  test("MCP's get_monitor and list_monitors show a ping monitor with its fields", T, async () => {
    const { rpc, key } = await setUp('ping-mcp');
    const { monitor } = await rpc.createPingMonitor({ monitor: { ...base, host: 'nas.local', count: 4, degradedLoss: 25 } });
    const mcp = await connectMcp(service.apiUrl, ERAS[0], key);
    try {
      const { monitor: shown } = ok(await mcp.call('get_monitor', { monitorId: Number(monitor!.id) }));
      assert.deepEqual(
        [shown.type, shown.url, shown.host, shown.count, shown.packetTimeout, shown.degradedLoss],
        ['ping', 'nas.local', 'nas.local', 4, 1000, 25],
      );
      const { monitors } = ok(await mcp.call('list_monitors', {}));
      assert.deepEqual(
        monitors.map((m: { type: string; url: string }) => [m.type, m.url]),
        [['ping', 'nas.local']],
      );
    } finally {
      await mcp.close();
    }
  });
});

/** One of three packets lost, as iputils writes it. */
const ONE_OF_THREE_LOST = `PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.
64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=2.91 ms
64 bytes from 127.0.0.1: icmp_seq=3 ttl=64 time=3.05 ms

--- 127.0.0.1 ping statistics ---
3 packets transmitted, 2 received, 33.3333% packet loss, time 2003ms
rtt min/avg/max/mdev = 2.910/2.980/3.050/0.070 ms
`;

/** The value of each `statusdesk.ping.packet_loss` point of OTLP/JSON bodies, with its unit and monitor. */
function packetLossPoints(body: any): { value: number; unit: string; monitorId: string; type: string }[] {
  const points = [];
  for (const rm of body.resourceMetrics ?? [])
    for (const sm of rm.scopeMetrics ?? [])
      for (const m of sm.metrics ?? []) {
        if (m.name !== 'statusdesk.ping.packet_loss') continue;
        for (const p of m.gauge.dataPoints) {
          const attribute = (key: string) => p.attributes.find((a: { key: string }) => a.key === key)?.value.stringValue;
          points.push({
            value: p.asDouble ?? Number(p.asInt),
            unit: m.unit,
            monitorId: attribute('statusdesk.monitor.id'),
            type: attribute('statusdesk.monitor.type'),
          });
        }
      }
  return points;
}

describe('a ping monitor through the engine, with a ping that loses packets', {
  skip: process.platform === 'win32' && 'the fake ping is a shell script',
}, () => {
  let service: TestService;
  const bodies: unknown[] = [];
  const collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  let ping: Awaited<ReturnType<typeof fakePing>>;

  before(async () => {
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    ping = await fakePing(ONE_OF_THREE_LOST);
    // The service's checks run this ping, in this process.
    usePingSearchPath(ping.path);
    service = await startTestService({ OTEL_METRIC_EXPORT_INTERVAL: '200' });
  });
  after(async () => {
    usePingSearchPath(undefined);
    await service.stop();
    await new Promise((resolve) => collector.close(resolve));
    await ping.remove();
  });

  test('the check is degraded by the loss, records it, and exports it as statusdesk.ping.packet_loss', T, async () => {
    const workspace = await newWorkspace(service, 'ping-otlp');
    const rpc = monitorRpc(service, (await service.createKey('write', workspace.slug)).secret);
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/metrics`;
    const { monitor } = await rpc.createPingMonitor({
      monitor: { name: 'lossy', host: 'localhost', periodicity: 3, regions: ['iad'], openTelemetry: { endpoint } },
    });
    const [result] = (await rpc.triggerMonitor({ id: monitor!.id })).results;
    assert.equal(result!.result, 'degraded');
    assert.match(result!.message, /^1 of 3 packets lost \(33\.3 %\), above the degraded threshold of 0 % loss/);
    assert.deepEqual([result!.ping!.transmitted, result!.ping!.received, result!.ping!.lossPercent], [3, 2, 33.3]);
    assert.equal(result!.latencyMs, 2.98);
    const args = (await ping.args())!;
    assert.match(args.at(-1)!, /^(127\.0\.0\.1|::1)$/, 'ping was given the address localhost resolved to');

    await until(() => bodies.some((body) => packetLossPoints(body).some((p) => p.monitorId === monitor!.id)), 'the packet loss exported');
    const point = bodies.flatMap(packetLossPoints).find((p) => p.monitorId === monitor!.id)!;
    assert.deepEqual(point, { value: 33.3, unit: '%', monitorId: monitor!.id, type: 'ping' });
  });
});

describe("the dashboard's form model of a ping monitor", () => {
  const typed = (over: Partial<ReturnType<typeof emptyForm>>) => ({
    ...emptyForm(),
    name: 'nas',
    periodicity: Periodicity.PERIODICITY_5M,
    regions: ['iad'],
    ...over,
  });

  test("a new form holds the service's defaults; the host goes in host, the wait as a Duration", () => {
    const empty = emptyForm();
    assert.deepEqual([empty.count, empty.packetTimeout, empty.degradedLoss], ['3', '1000', '0']);
    const { wire, local } = wireOf('ping', typed({ host: ' nas.local ', count: '5', packetTimeout: '2000', degradedLoss: '20' }));
    assert.deepEqual(local, []);
    assert.equal(wire.type, 'ping');
    const monitor = wire.monitor as { host: string; count: number; packetTimeout: { seconds: bigint; nanos: number }; degradedLoss: number; uri?: string };
    assert.deepEqual(
      [monitor.host, monitor.count, durationMs(create(PingMonitorSchema, monitor).packetTimeout!), monitor.degradedLoss],
      ['nas.local', 5, 2000, 20],
    );
    assert.equal(monitor.uri, undefined, 'a ping has no host:port');
    assert.equal(createOf('ping', typed({ host: 'nas.local' })).wire.type, 'ping');
  });

  test('what the wire cannot carry is refused before sending, named as the service names it', () => {
    const { local } = wireOf('ping', typed({ host: 'nas.local', count: '2.5', packetTimeout: '150.5', degradedLoss: '1.5' }));
    assert.deepEqual(
      local.map((v) => v.field),
      ['monitor.packetTimeout', 'monitor.count', 'monitor.degradedLoss'],
    );
  });

  test('a stored monitor fills the form, and an edit names only what changed, the host by its own name', () => {
    const stored = create(PingMonitorSchema, { id: '7', name: 'nas', host: '192.168.1.10', count: 4, packetTimeout: durationFromMs(1500), degradedLoss: 30 });
    const form = formOf({ type: 'ping', monitor: stored });
    assert.deepEqual([form.host, form.count, form.packetTimeout, form.degradedLoss], ['192.168.1.10', '4', '1500', '30']);
    const { update } = updateOf('ping', { ...form, host: 'nas.local', degradedLoss: '10' }, { host: true, degradedLoss: true });
    assert.deepEqual(update!.updateMask.paths, ['host', 'degraded_loss']);
    assert.deepEqual(update!.monitor, { host: 'nas.local', degradedLoss: 10 });
  });
});
