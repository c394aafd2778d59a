/**
 * DNS monitors through the whole service, against a real DNS server on loopback
 * (support/dns-server.ts): created, read, listed and changed over ConnectRPC, checked and their
 * record carried on the wire, stored and shown by the dashboard's API; refused, naming the field
 * and the rule, for bad input of every field, with nothing stored; the `statusdesk monitors`
 * command, `apply -f` and `export`, MCP's get_monitor and list_monitors; and the record as a
 * private location's runner reports it.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { DNSMonitorSchema, DNSRecordType, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { createOf, emptyForm, formOf, updateOf } from '../renderer/src/screens/monitor-form/monitor-form-model.ts';
import { RunnerCheckSchema } from '../proto/gen/runner/v1/runner_pb.js';
import { fromRunnerCheck, toRunnerCheck } from '../server/checks/check-runner.ts';
import type { StoredCheck } from '../server/checks/result-store.ts';
import type { AppError } from '../server/errors.ts';
import { withLocalOwner } from './support/database.ts';
import { type DnsServer, startDnsServer } from './support/dns-server.ts';
import {
  assertViolation,
  dashboardSession,
  jsonOf,
  monitorRpc,
  newWorkspace,
  runCli,
  startTestService,
  type TestService,
  tableOf,
  tempDir,
} from './support/harness.ts';
import { connectMcp, ERAS, ok } from './support/mcp-client.ts';
import { until } from './support/wait.ts';

const ZONE = {
  'example.test': {
    A: ['192.0.2.10', '192.0.2.11'],
    MX: [
      { preference: 10, exchange: 'mail.example.test' },
      { preference: 20, exchange: 'mail2.example.test' },
    ],
  },
  'gone.example.test': { fail: 'NXDOMAIN' as const },
};

describe('DNS monitors', () => {
  let service: TestService;
  let dns: DnsServer;
  let folder: Awaited<ReturnType<typeof tempDir>>;

  before(async () => {
    service = await startTestService();
    dns = await startDnsServer(ZONE);
    folder = await tempDir();
  });
  after(async () => {
    await dns.close();
    await folder.remove();
    await service.stop();
  });

  async function setUp(prefix: string) {
    const workspace = await newWorkspace(service, prefix);
    const key = await service.createKey('write', workspace.slug);
    const env = { SERVICE_API_KEY: key.secret, SERVICE_API_URL: service.apiUrl };
    return { workspace, key: key.secret, rpc: monitorRpc(service, key.secret), cli: (args: string[]) => runCli(args, env) };
  }

  const base = { name: 'mail', periodicity: Periodicity.PERIODICITY_10M, regions: ['iad'] };

  test('created, read, listed and changed over ConnectRPC; every field as given, defaults filled', async () => {
    const { rpc } = await setUp('dns-rpc');
    const { monitor } = await rpc.createDNSMonitor({
      monitor: {
        ...base,
        host: 'Example.test.',
        recordType: DNSRecordType.DNS_RECORD_TYPE_MX,
        resolver: dns.address,
        contains: ['10 mail.example.test'],
        equals: ['10 mail.example.test', '20 mail2.example.test'],
        minAnswers: 2,
        maxAnswers: 3,
      },
    });
    assert.equal(monitor!.host, 'Example.test.', 'the name is kept as written; the check asks it in lower case');
    assert.equal(monitor!.recordType, DNSRecordType.DNS_RECORD_TYPE_MX);
    assert.deepEqual(
      [monitor!.resolver, monitor!.contains, monitor!.equals, monitor!.minAnswers, monitor!.maxAnswers],
      [dns.address, ['10 mail.example.test'], ['10 mail.example.test', '20 mail2.example.test'], 2, 3],
    );

    const plain = (await rpc.createDNSMonitor({ monitor: { ...base, name: 'plain', host: 'example.test' } })).monitor!;
    assert.deepEqual(
      [plain.recordType, plain.resolver, plain.contains, plain.equals, plain.minAnswers, plain.maxAnswers],
      [DNSRecordType.DNS_RECORD_TYPE_A, '', [], [], 1, 0],
    );

    const got = await rpc.getMonitor({ id: monitor!.id });
    assert.equal(got.monitor.case, 'dnsMonitor');
    assert.deepEqual(got.monitor.value, monitor);
    const listed = await rpc.listMonitors({});
    assert.deepEqual(listed.dnsMonitors.map((m) => m.name).sort(), ['mail', 'plain']);

    const { monitor: changed } = await rpc.updateDNSMonitor({
      id: monitor!.id,
      monitor: { recordType: DNSRecordType.DNS_RECORD_TYPE_A, contains: ['192.0.2.10'] },
      updateMask: { paths: ['record_type', 'contains', 'equals', 'min_answers', 'max_answers'] },
    });
    assert.deepEqual(
      [changed!.recordType, changed!.contains, changed!.equals, changed!.minAnswers, changed!.maxAnswers],
      [DNSRecordType.DNS_RECORD_TYPE_A, ['192.0.2.10'], [], 1, 0],
    );
    assert.equal(changed!.resolver, dns.address, 'a field not named keeps its value');
  });

  test('checked now: the record travels on the wire, is stored, and the dashboard shows it', async () => {
    const { workspace, rpc } = await setUp('dns-check');
    const { monitor } = await rpc.createDNSMonitor({
      monitor: { ...base, host: 'example.test', recordType: DNSRecordType.DNS_RECORD_TYPE_MX, resolver: dns.address, contains: ['10 mail.example.test'] },
    });
    const [result] = (await rpc.triggerMonitor({ id: monitor!.id })).results;
    assert.equal(result!.result, 'up', result!.message);
    assert.match(result!.message, /^2 MX answers in [\d.]+ ms from 127\.0\.0\.1:\d+: 10 mail\.example\.test, 20 mail2\.example\.test$/);
    assert.ok(result!.timing?.dns !== undefined);
    const record = {
      name: 'example.test',
      recordType: 'MX',
      rcode: 'NOERROR',
      resolver: dns.address,
      systemResolver: false,
      answers: ['10 mail.example.test', '20 mail2.example.test'],
      assertions: [{ assertion: 'contains 10 mail.example.test', passed: true, actual: '10 mail.example.test, 20 mail2.example.test' }],
    };
    const { $typeName: _, ...wire } = result!.dns!;
    assert.deepEqual({ ...wire, assertions: wire.assertions.map(({ assertion, passed, actual }) => ({ assertion, passed, actual })) }, record);

    const session = await dashboardSession(service);
    const response = await fetch(`${service.dashboardUrl}/api/workspaces/${workspace.id}/monitors/${monitor!.id}/results`, { headers: session });
    assert.equal(response.status, 200);
    const { results } = (await response.json()) as { results: { dns: unknown; mcp: unknown }[] };
    assert.deepEqual(results[0]!.dns, record, 'stored and read back as it was found');
    assert.equal(results[0]!.mcp, null);

    const { monitor: gone } = await rpc.createDNSMonitor({ monitor: { ...base, name: 'gone', host: 'gone.example.test', resolver: dns.address } });
    const [down] = (await rpc.triggerMonitor({ id: gone!.id })).results;
    assert.equal(down!.result, 'down');
    assert.equal(down!.message, `NXDOMAIN: gone.example.test does not exist (answered by ${dns.address})`);
    assert.equal(down!.dns?.rcode, 'NXDOMAIN');
  });

  test('bad input of every field is refused naming the field and the rule, and nothing is stored', async () => {
    const { rpc } = await setUp('dns-bad');
    const refused = (monitor: Record<string, unknown>, field: string, rule: RegExp) =>
      assertViolation(rpc.createDNSMonitor({ monitor: { ...base, host: 'example.test', ...monitor } }), `monitor.${field}`, rule);
    await refused({ host: '' }, 'host', /is required: the name to look up/);
    await refused({ host: 'https://example.test' }, 'host', /without a scheme: drop "https:\/\/"/);
    await refused({ host: 'example.test:53' }, 'host', /no port, path or spaces/);
    await refused({ host: 'a..example.test' }, 'host', /must not have an empty label/);
    await refused({ host: '-bad.example.test' }, 'host', /label "-bad" that is not one/);
    await refused({ host: 'bücher.example' }, 'host', /ASCII form: write an internationalized name as its xn-- form/);
    await refused({ host: `${'a'.repeat(60)}.`.repeat(5) }, 'host', /at most 253 characters/);
    await refused({ host: '192.0.2.10' }, 'host', /is an IP address: a A check looks up a name; to find the name of an address, use record type PTR/);
    await refused({ resolver: 'dns.google' }, 'resolver', /must be an IP address, not a name/);
    await refused({ resolver: '192.168.1.1:70000' }, 'resolver', /the port must be a number from 1 to 65535, got "70000"/);
    await refused({ resolver: '::1:5353x' }, 'resolver', /./);
    await refused({ resolver: '[::1' }, 'resolver', /./);
    await refused({ resolver: '192.168.1' }, 'resolver', /is not an IPv4 address/);
    await refused({ resolver: '169.254.169.254' }, 'resolver', /169\.254\.169\.254:53 is a cloud metadata address, which the destination policy refuses/);
    await refused({ resolver: `127.0.0.1:${new URL(service.apiUrl).port}` }, 'resolver', /this service's own port/);
    await refused(
      { contains: ['mail.example.test'], recordType: DNSRecordType.DNS_RECORD_TYPE_MX },
      'contains.0',
      /must be a preference and a mail server, e.g. 10 mail.example.com for record type MX/,
    );
    await refused({ contains: ['192.0.2.300'] }, 'contains.0', /must be an IPv4 address, e.g. 192.0.2.10 for record type A/);
    await refused({ contains: [''] }, 'contains.0', /a value must not be empty/);
    await refused({ contains: ['a\nb'], recordType: DNSRecordType.DNS_RECORD_TYPE_TXT }, 'contains.0', /line breaks/);
    await refused({ contains: Array.from({ length: 21 }, (_, i) => `192.0.2.${i}`) }, 'contains', /at most 20 values/);
    await refused({ equals: ['192.0.2.1', '192.0.2.1'] }, 'equals', /must not list a value twice/);
    await refused({ equals: ['2001:db8::1', '2001:DB8:0::1'], recordType: DNSRecordType.DNS_RECORD_TYPE_AAAA }, 'equals', /must not list a value twice/);
    await refused({ equals: ['10 5 sip.example.test'], recordType: DNSRecordType.DNS_RECORD_TYPE_SRV }, 'equals.0', /priority, weight, port and target/);
    await refused({ equals: ['192.0.2.1'], minAnswers: 2 }, 'equals', /lists 1 values, which the count of answers allowed \(at least 2\) can never match/);
    await refused({ minAnswers: 0 }, 'minAnswers', /must be 1 to 100/);
    await refused({ minAnswers: 101 }, 'minAnswers', /must be 1 to 100/);
    await refused({ maxAnswers: 101 }, 'maxAnswers', /must be 0 to 100/);
    await refused({ minAnswers: 3, maxAnswers: 2 }, 'maxAnswers', /must be at least minAnswers \(3\), or 0 for no maximum/);
    // A record type the wire cannot name reaches the domain only from a file or MCP: the service names the rule.
    await withLocalOwner(service.dataDir, async (services, owner) => {
      const workspaces = await services.workspaces.list(owner);
      const id = Number(workspaces.find((w) => w.name.startsWith('dns-bad'))!.id);
      await assert.rejects(
        services.monitors.create(owner, id, 'dns', { name: 'x', periodicity: '10m', host: 'example.test', recordType: 'ANY' }),
        (error: AppError) =>
          error.code === 'VALIDATION' &&
          error.violations[0]!.field === 'recordType' &&
          /must be one of A, AAAA, CNAME, MX, TXT, NS, SRV, SOA, PTR/.test(error.violations[0]!.rule),
      );
    });
    assert.equal((await rpc.listMonitors({})).totalSize, 0, 'nothing refused was stored');

    // An update refused changes nothing either.
    const { monitor } = await rpc.createDNSMonitor({ monitor: { ...base, host: 'example.test', resolver: dns.address } });
    await assertViolation(rpc.updateDNSMonitor({ id: monitor!.id, monitor: { resolver: 'dns.google' } }), 'monitor.resolver', /not a name/);
    assert.equal((await rpc.getMonitor({ id: monitor!.id })).monitor.value!.$typeName, 'monitor.v1.DNSMonitor');
    assert.equal(((await rpc.getMonitor({ id: monitor!.id })).monitor.value as { resolver: string }).resolver, dns.address);
  });

  test('statusdesk monitors create, get, update and trigger a DNS monitor', async () => {
    const { cli } = await setUp('dns-cli');
    const made = jsonOf(
      await cli([
        'monitors',
        'create',
        'dns',
        '--name',
        'mx',
        '--target',
        'example.test',
        '--record-type',
        'mx',
        '--resolver',
        dns.address,
        '--contains',
        '10 mail.example.test',
        '--contains',
        '20 mail2.example.test',
        '--min-answers',
        '2',
        '--frequency',
        '10m',
        '--regions',
        'iad',
        '--json',
      ]),
    );
    assert.deepEqual(
      [made.type, made.target, made.recordType, made.resolver, made.contains, made.equals, made.minAnswers, made.maxAnswers],
      ['dns', 'example.test', 'MX', dns.address, ['10 mail.example.test', '20 mail2.example.test'], [], 2, 0],
    );

    const shown = await cli(['monitors', 'get', made.id]);
    assert.equal(shown.code, 0, shown.stderr);
    const rows = Object.fromEntries(tableOf(shown.stdout).slice(1));
    assert.equal(rows['record type'], 'MX');
    assert.equal(rows.resolver, dns.address);
    assert.equal(rows.contains, '10 mail.example.test, 20 mail2.example.test');
    assert.equal(rows.answers, 'at least 2');

    const changed = jsonOf(await cli(['monitors', 'update', made.id, '--max-answers', '2', '--clear', 'contains', '--json']));
    assert.deepEqual([changed.contains, changed.maxAnswers, changed.minAnswers], [[], 2, 2]);

    const checked = jsonOf(await cli(['monitors', 'trigger', made.id, '--json']));
    assert.equal(checked.results[0].result, 'up', checked.results[0].message);
    assert.deepEqual(checked.results[0].dns.answers, ['10 mail.example.test', '20 mail2.example.test']);
    assert.deepEqual(checked.results[0].dns.assertions, [{ assertion: 'answers exactly 2', passed: true, actual: '2' }]);

    const bad = await cli(['monitors', 'create', 'dns', '--name', 'x', '--target', 'example.test', '--record-type', 'ANY', '--frequency', '10m']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--record-type.*A, AAAA, CNAME, MX, TXT, NS, SRV, SOA, PTR|--record-type.*one of/);
    const refused = await cli(['monitors', 'create', 'dns', '--name', 'x', '--target', 'example.test', '--resolver', 'dns.google', '--frequency', '10m']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /--resolver.*must be an IP address, not a name/);
  });

  test('apply -f makes a DNS monitor from a file, and export writes it back', async () => {
    const { cli } = await setUp('dns-apply');
    const file = join(folder.path, 'dns.yaml');
    await writeFile(
      file,
      `version: 1
monitors:
  - name: SPF
    type: dns
    target: example.test
    frequency: 10m
    regions: [iad]
    recordType: TXT
    resolver: "${dns.address}"
    contains: ["v=spf1 -all"]
    maxAnswers: 5
`,
    );
    const applied = await cli(['apply', '-f', file]);
    assert.equal(applied.code, 0, applied.stderr);
    const exported = await cli(['export']);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /type: dns\n\s+target: example\.test\n/);
    assert.match(exported.stdout, /recordType: TXT\n/);
    assert.match(exported.stdout, new RegExp(`resolver: "?${dns.address.replace(/\./g, '\\.')}"?\n`));
    assert.match(exported.stdout, /contains: \[v=spf1 -all\]\n/);
    assert.match(exported.stdout, /maxAnswers: 5\n/);
    const again = await cli(['apply', '-f', file, '--dry-run']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout + again.stderr, /0 to create, 0 to update, 0 to delete, 1 unchanged/, 'the file reads back as what is stored');

    const wrong = join(folder.path, 'wrong.yaml');
    await writeFile(wrong, 'version: 1\nmonitors:\n  - name: bad\n    type: dns\n    target: example.test\n    frequency: 10m\n    recordType: ANY\n');
    const refused = await cli(['apply', '-f', wrong]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /recordType.*must be one of A, AAAA, CNAME, MX, TXT, NS, SRV, SOA, PTR/);
  });

  test("MCP's get_monitor and list_monitors show a DNS monitor with its fields", async () => {
    const { rpc, key } = await setUp('dns-mcp');
    const { monitor } = await rpc.createDNSMonitor({
      monitor: { ...base, host: '192.0.2.10', recordType: DNSRecordType.DNS_RECORD_TYPE_PTR, resolver: dns.address, equals: ['host.example.test'] },
    });
    const mcp = await connectMcp(service.apiUrl, ERAS.at(-1)!, key);
    try {
      const got = ok(await mcp.call('get_monitor', { monitorId: Number(monitor!.id) })).monitor;
      assert.deepEqual(
        [got.type, got.url, got.host, got.recordType, got.resolver, got.equals, got.minAnswers, got.maxAnswers],
        ['dns', '192.0.2.10', '192.0.2.10', 'PTR', dns.address, ['host.example.test'], 1, 0],
      );
      const listed = ok(await mcp.call('list_monitors', {})).monitors;
      assert.equal(listed.find((m: { monitorId: number }) => m.monitorId === Number(monitor!.id)).type, 'dns');
    } finally {
      await mcp.close();
    }
  });
});

describe('a DNS check as a private location reports it', () => {
  const stored: StoredCheck = {
    monitorId: 7,
    workspaceId: 1,
    runner: 'office',
    regions: ['office'],
    startedAt: Date.now(),
    result: 'down',
    latencyMs: 3.5,
    timing: { dns: 3.1, connect: null, tls: null, ttfb: null, transfer: null, total: 3.5 },
    attempts: 1,
    message: 'expected the A answers to contain 192.0.2.12, found 192.0.2.10',
    grpcStatus: null,
    statusCode: null,
    url: null,
    responseHeaders: {},
    assertionResults: [],
    dns: {
      name: 'example.test',
      recordType: 'A',
      rcode: 'NOERROR',
      resolver: '192.168.1.1:53',
      systemResolver: true,
      answers: ['192.0.2.10'],
      assertions: [{ assertion: 'contains 192.0.2.12', passed: false, actual: '192.0.2.10' }],
    },
  };
  const where = { runner: 'office', regions: ['office'], workspaceId: 1 };

  test('its record goes to the service and back as it was', () => {
    const back = fromRunnerCheck(create(RunnerCheckSchema, toRunnerCheck(1, stored)), where);
    assert.deepEqual(back.dns, stored.dns);
  });

  test('a record no probe makes is refused, naming the field', () => {
    const wire = create(RunnerCheckSchema, toRunnerCheck(1, { ...stored, dns: { ...stored.dns!, rcode: 'NOERROR' } }));
    wire.dns!.rcode = 'YXDOMAIN';
    assert.throws(
      () => fromRunnerCheck(wire, where),
      (error: AppError) => error.code === 'VALIDATION' && /dns\.rcode/.test(error.message),
    );
    const many = create(
      RunnerCheckSchema,
      toRunnerCheck(1, { ...stored, dns: { ...stored.dns!, answers: Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`) } }),
    );
    assert.throws(
      () => fromRunnerCheck(many, where),
      (error: AppError) => error.code === 'VALIDATION' && /dns\.answers: must have at most 100 answers/.test(error.message),
    );
  });
});

describe("the dashboard form's model of a DNS monitor", () => {
  const stored = create(DNSMonitorSchema, {
    id: '5',
    name: 'mail',
    host: 'example.com',
    recordType: DNSRecordType.DNS_RECORD_TYPE_MX,
    resolver: '[::1]:5353',
    contains: ['10 mail.example.com'],
    equals: ['10 mail.example.com', '20 mail2.example.com'],
    minAnswers: 2,
    maxAnswers: 4,
    periodicity: Periodicity.PERIODICITY_10M,
    regions: ['iad'],
  });

  test('a stored monitor fills the form: the name in one input, the values one per line', () => {
    const form = formOf({ type: 'dns', monitor: stored });
    assert.deepEqual(
      [form.host, form.port, form.recordType, form.resolver, form.contains, form.equals, form.minAnswers, form.maxAnswers],
      ['example.com', '', 'MX', '[::1]:5353', '10 mail.example.com', '10 mail.example.com\n20 mail2.example.com', '2', '4'],
    );
  });

  test('a new one starts at the service defaults and is sent as typed', () => {
    const form = {
      ...emptyForm(),
      name: 'spf',
      host: ' example.com ',
      recordType: 'TXT' as const,
      contains: 'v=spf1 -all\r\n\r\n',
      periodicity: Periodicity.PERIODICITY_10M,
    };
    assert.deepEqual([emptyForm().recordType, emptyForm().resolver, emptyForm().minAnswers, emptyForm().maxAnswers], ['A', '', '1', '0']);
    const { wire, local } = createOf('dns', form);
    assert.deepEqual(local, []);
    assert.equal(wire.type, 'dns');
    const m = wire.monitor as { host: string; recordType: DNSRecordType; contains: string[]; equals: string[]; minAnswers: number; maxAnswers: number };
    assert.deepEqual(
      [m.host, m.recordType, m.contains, m.equals, m.minAnswers, m.maxAnswers],
      ['example.com', DNSRecordType.DNS_RECORD_TYPE_TXT, ['v=spf1 -all'], [], 1, 0],
    );
    assert.deepEqual(createOf('dns', { ...form, minAnswers: '1.5' }).local, [{ field: 'monitor.minAnswers', rule: 'must be a whole number' }]);
  });

  test('an edit sends the changed fields, the name in `host` itself (not a target of host and port)', () => {
    const form = { ...formOf({ type: 'dns', monitor: stored }), host: 'example.org', equals: '' };
    const { update } = updateOf('dns', form, { host: true, equals: true });
    assert.deepEqual(update!.updateMask.paths, ['host', 'equals']);
    assert.deepEqual(update!.monitor, { host: 'example.org', equals: [] });
  });
});

describe('OTLP export of a DNS monitor', () => {
  /** A metric of OTLP/JSON, as far as this test reads it. */
  interface OtlpPoints {
    dataPoints: { attributes: { key: string; value: { stringValue?: string } }[]; asInt?: string | number; asDouble?: number }[];
  }
  interface OtlpMetric {
    name: string;
    unit: string;
    gauge?: OtlpPoints;
    sum?: OtlpPoints;
    histogram?: OtlpPoints;
  }

  /** The gauge's data points a collector on loopback received, as OTLP/JSON carries them. */
  interface Gauge {
    monitorId: string;
    value: number;
    unit: string;
  }

  test('the records of its last answer are the gauge statusdesk.dns.answers', async () => {
    const gauges: Gauge[] = [];
    /** Monitors any export carried, by any metric. */
    const exported = new Set<string>();
    const collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceMetrics: { scopeMetrics: { metrics: OtlpMetric[] }[] }[] };
        for (const metric of body.resourceMetrics.flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics))) {
          for (const point of (metric.gauge ?? metric.sum ?? metric.histogram)?.dataPoints ?? []) {
            const monitorId = point.attributes.find((a) => a.key === 'statusdesk.monitor.id')!.value.stringValue!;
            exported.add(monitorId);
            if (metric.name === 'statusdesk.dns.answers') gauges.push({ monitorId, value: point.asDouble ?? Number(point.asInt), unit: metric.unit });
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    collector.listen(0, '127.0.0.1');
    await once(collector, 'listening');
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/metrics`;
    const dns = await startDnsServer(ZONE);
    const service = await startTestService({ OTEL_METRIC_EXPORT_INTERVAL: '200' });
    try {
      const rpc = monitorRpc(service, (await service.createKey('write')).secret);
      const common = { periodicity: Periodicity.PERIODICITY_10M, regions: ['iad'], resolver: dns.address, openTelemetry: { endpoint, headers: {} } };
      const mx = (await rpc.createDNSMonitor({ monitor: { ...common, name: 'mx', host: 'example.test', recordType: DNSRecordType.DNS_RECORD_TYPE_MX } }))
        .monitor!;
      const gone = (await rpc.createDNSMonitor({ monitor: { ...common, name: 'gone', host: 'gone.example.test' } })).monitor!;
      assert.equal((await rpc.triggerMonitor({ id: mx.id })).results[0]!.result, 'up');
      assert.equal((await rpc.triggerMonitor({ id: gone.id })).results[0]!.result, 'down');
      await until(() => gauges.some((g) => g.monitorId === mx.id) && exported.has(gone.id), 'an export of each monitor');
      assert.deepEqual(
        gauges.find((g) => g.monitorId === mx.id),
        { monitorId: mx.id, value: 2, unit: '{record}' },
      );
      assert.ok(!gauges.some((g) => g.monitorId === gone.id), 'an NXDOMAIN records no count');
    } finally {
      await service.stop();
      await dns.close();
      collector.close();
    }
  });
});
