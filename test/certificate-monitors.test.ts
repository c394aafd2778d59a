/**
 * Certificate monitors through the whole service: created, read, listed and changed over
 * ConnectRPC, with the command (dist/statusdesk.js), with `apply -f` and `export`, and read through
 * MCP; bad input for each field refused naming it; checks against TLS servers on loopback whose
 * certificates are made here, the certificate carried on the wire, in the dashboard's results,
 * in MCP's response logs, in a runner's report and as an OTLP gauge. Where a check must trust
 * the test's CA, the engine is given it (extraCa), as NODE_EXTRA_CA_CERTS gives it to the service.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import pino from 'pino';
import { CertificateMonitorSchema, CreateCertificateMonitorRequestSchema, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { createOf, emptyForm, formOf, updateOf } from '../renderer/src/screens/monitor-form/monitor-form-model.ts';
import { RunnerCheckSchema } from '../proto/gen/runner/v1/runner_pb.js';
import { fromRunnerCheck, toRunnerCheck } from '../server/checks/check-runner.ts';
import { createCheckEngine } from '../server/checks/engine.ts';
import type { StoredCheck } from '../server/checks/result-store.ts';
import type { Actor } from '../server/domain/actor.ts';
import type { CertificateCheck } from '../server/domain/monitors/check-results.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { AppError } from '../server/errors.ts';
import { monitorTools } from '../server/mcp/monitor-tools.ts';
import { createServices } from '../server/services.ts';
import { openTestDatabase, withLocalOwner } from './support/database.ts';
import { startGrpcPeer } from './support/grpc-peers.ts';
import { assertViolation, jsonOf, monitorRpc, newWorkspace, runCli, startTestService, type TestService, tempDir } from './support/harness.ts';
import { days, type KeyAndCert, makeServerCert, makeTestCa, startTlsPeer, type TlsPeer } from './support/tls-peers.ts';
import { until } from './support/wait.ts';

const closers: { close(): Promise<void> }[] = [];
let ca: KeyAndCert;

before(async () => {
  ca = await makeTestCa();
});
after(async () => {
  await Promise.all(closers.map((c) => c.close()));
});

async function tlsPeer(certificate: KeyAndCert): Promise<TlsPeer> {
  const peer = await startTlsPeer(certificate);
  closers.push(peer);
  return peer;
}

describe('certificate monitors through the service', () => {
  let service: TestService;
  /** A self-signed server: the service's checks trust only the public roots, so it does not verify. */
  let selfSigned: TlsPeer;
  let selfSignedCert: KeyAndCert;

  before(async () => {
    service = await startTestService({ OTEL_METRIC_EXPORT_INTERVAL: '200' });
    selfSignedCert = await makeServerCert({ validForMs: days(40) });
    selfSigned = await tlsPeer(selfSignedCert);
  });
  after(() => service?.stop());

  async function setUp(prefix: string) {
    const workspace = await newWorkspace(service, prefix);
    const key = await service.createKey('write', workspace.slug);
    return { workspace, key: key.secret, rpc: monitorRpc(service, key.secret) };
  }

  test('RPC: created with its defaults, read by GetMonitor and ListMonitors, changed with and without a mask', async () => {
    const { rpc } = await setUp('cert-rpc');
    const { monitor } = await rpc.createCertificateMonitor({
      monitor: { name: 'shop certificate', uri: 'shop.example.com:443', periodicity: Periodicity.PERIODICITY_1H },
    });
    assert.equal(monitor!.serverName, '', 'the host is the server name by default');
    assert.equal(monitor!.minDaysLeft, 14);
    assert.equal(monitor!.regions.length, 6, "the plan's default regions, as for TCP");

    const got = await rpc.getMonitor({ id: monitor!.id });
    assert.equal(got.monitor.case, 'certificateMonitor');
    assert.equal(got.monitor.value!.uri, 'shop.example.com:443');
    const listed = await rpc.listMonitors({});
    assert.deepEqual(
      listed.certificateMonitors.map((m) => m.id),
      [monitor!.id],
    );

    const changed = await rpc.updateCertificateMonitor({ id: monitor!.id, monitor: { serverName: 'www.example.com', minDaysLeft: 30 } });
    assert.equal(changed.monitor!.serverName, 'www.example.com');
    assert.equal(changed.monitor!.minDaysLeft, 30);
    assert.equal(changed.monitor!.uri, 'shop.example.com:443', 'fields not given are kept');

    const cleared = await rpc.updateCertificateMonitor({ id: monitor!.id, monitor: {}, updateMask: { paths: ['min_days_left', 'server_name'] } });
    assert.equal(cleared.monitor!.minDaysLeft, 14, 'a masked field left empty returns to its default');
    assert.equal(cleared.monitor!.serverName, '');
    const zero = await rpc.updateCertificateMonitor({ id: monitor!.id, monitor: { minDaysLeft: 0 } });
    assert.equal(zero.monitor!.minDaysLeft, 0, '0 is a value of its own, not "not given"');
  });

  test('bad input for each field is refused naming the field and the rule, and changes nothing stored', async () => {
    const { rpc } = await setUp('cert-bad');
    const base = { name: 'bad', periodicity: Periodicity.PERIODICITY_1H, regions: ['iad'] };
    const made = (await rpc.createCertificateMonitor({ monitor: { ...base, uri: 'good.example.com:443' } })).monitor!;

    const refusals: [Record<string, unknown>, string, RegExp][] = [
      [{ uri: '' }, 'monitor.uri', /is required: host:port, e\.g\. example\.com:443/],
      [{ uri: 'https://shop.example.com:443' }, 'monitor.uri', /must be host:port without a scheme: drop "https:\/\/"/],
      [{ uri: 'shop.example.com' }, 'monitor.uri', /the port is required/],
      [{ uri: 'shop.example.com:70000' }, 'monitor.uri', /port must be a number from 1 to 65535/],
      [{ uri: 'shop.example.com:443', serverName: '192.0.2.7' }, 'monitor.serverName', /must be a hostname: TLS sends no IP address as a server name/],
      [{ uri: 'shop.example.com:443', serverName: 'www.example.com:443' }, 'monitor.serverName', /must be a hostname without a port/],
      [{ uri: 'shop.example.com:443', serverName: '*.example.com' }, 'monitor.serverName', /not a wildcard/],
      [{ uri: 'shop.example.com:443', serverName: 'shop example.com' }, 'monitor.serverName', /must be a hostname, e\.g\. www\.example\.com/],
      [{ uri: 'shop.example.com:443', serverName: `${'a'.repeat(250)}.com` }, 'monitor.serverName', /at most 253 characters/],
      [{ uri: 'shop.example.com:443', minDaysLeft: 366 }, 'monitor.minDaysLeft', /must be a whole number of days from 0 to 365/],
      [{ uri: 'shop.example.com:443', minDaysLeft: -1 }, 'monitor.minDaysLeft', /must be a whole number of days from 0 to 365/],
    ];
    for (const [fields, field, rule] of refusals) {
      await assertViolation(rpc.createCertificateMonitor({ monitor: { ...base, ...fields } }), field, rule);
      if (!('uri' in fields && fields.uri !== 'shop.example.com:443')) {
        const { uri: _uri, ...change } = fields;
        await assertViolation(rpc.updateCertificateMonitor({ id: made.id, monitor: change }), field, rule);
      }
    }
    const listed = await rpc.listMonitors({});
    assert.equal(listed.totalSize, 1, 'no refused create stored a monitor');
    const kept = (await rpc.getMonitor({ id: made.id })).monitor;
    assert.equal(kept.case, 'certificateMonitor');
    assert.deepEqual([kept.value.uri, kept.value.serverName, kept.value.minDaysLeft], ['good.example.com:443', '', 14]);
  });

  test("a check: down on a certificate that does not verify, its record on the wire and in the dashboard's results", async () => {
    const { workspace, rpc } = await setUp('cert-check');
    const { monitor } = await rpc.createCertificateMonitor({
      monitor: { name: 'self-signed', uri: selfSigned.uri, periodicity: Periodicity.PERIODICITY_1H, regions: ['iad', 'fra'], retry: 0 },
    });
    const { results } = await rpc.triggerMonitor({ id: monitor!.id });
    assert.deepEqual(
      results.map((r) => r.region),
      ['iad', 'fra'],
    );
    const [first] = results;
    assert.equal(first!.result, 'down');
    assert.equal(first!.message, 'the certificate does not verify: it is self-signed, and not in the trust store');
    const wire = first!.certificate!;
    assert.equal(wire.subject, 'CN=statusdesk test server');
    assert.equal(wire.verified, false);
    assert.equal(wire.nameMatches, true);
    assert.equal(wire.serverName, '127.0.0.1');
    assert.ok([38, 39].includes(wire.daysLeft), `${wire.daysLeft} days left`);
    assert.ok(Math.abs(timestampDate(wire.notAfter!).getTime() - (Date.now() + days(39))) < days(1));

    const owner = await withLocalOwner(service.dataDir, async (_services, actor) => actor);
    const recent = await service.services.monitorViews.results(owner, Number(workspace.id), monitor!.id, { limit: '5' });
    assert.equal(recent[0]!.certificate?.fingerprintSha256, wire.fingerprintSha256, 'stored with the check and read back');
    assert.equal(recent[0]!.certificate?.error, 'it is self-signed, and not in the trust store');
  });

  test('MCP get_monitor shows its fields, its target as url', async () => {
    const { workspace, rpc } = await setUp('cert-mcp');
    const { monitor } = await rpc.createCertificateMonitor({
      monitor: { name: 'mail', uri: 'mail.example.com:993', serverName: 'imap.example.com', minDaysLeft: 21, periodicity: Periodicity.PERIODICITY_1H },
    });
    const owner = await withLocalOwner(service.dataDir, async (_services, actor) => actor);
    const tool = monitorTools.find((t) => t.name === 'get_monitor')!;
    const answer = (await tool.run(
      { actor: owner, workspaceId: Number(workspace.id), services: service.services, content: undefined as never },
      { monitorId: Number(monitor!.id) },
    )) as { monitor: Record<string, unknown> };
    const shown = (tool.output.parse(answer) as { monitor: Record<string, unknown> }).monitor;
    assert.equal(shown.type, 'certificate');
    assert.equal(shown.url, 'mail.example.com:993');
    assert.equal(answer.monitor.serverName, 'imap.example.com');
    assert.equal(answer.monitor.minDaysLeft, 21);
  });

  test('the command: create, get, update, and trigger with its certificate line; a bad value exits 2 naming its flag', { timeout: 120_000 }, async () => {
    const { key } = await setUp('cert-cli');
    const env = { SERVICE_API_KEY: key, SERVICE_API_URL: service.apiUrl };
    const made = await runCli(
      [
        'monitors',
        'create',
        'certificate',
        '--name',
        'cli cert',
        '--target',
        selfSigned.uri,
        '--frequency',
        '1h',
        '--regions',
        'iad',
        '--retry',
        '0',
        '--min-days-left',
        '30',
        '--json',
      ],
      env,
    );
    assert.equal(made.code, 0, made.stderr);
    const created = jsonOf(made);
    assert.deepEqual([created.type, created.target, created.serverName, created.minDaysLeft], ['certificate', selfSigned.uri, '', 30]);

    const shown = await runCli(['monitors', 'get', created.id], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /server name\s+\(the host\)/);
    assert.match(shown.stdout, /min days left\s+30/);

    const updated = await runCli(['monitors', 'update', created.id, '--server-name', 'localhost', '--json'], env);
    assert.equal(updated.code, 0, updated.stderr);
    assert.equal(jsonOf(updated).serverName, 'localhost');

    const triggered = await runCli(['monitors', 'trigger', created.id], env);
    assert.equal(triggered.code, 0, triggered.stderr);
    assert.match(triggered.stdout, /iad\s+down .*the certificate does not verify: it is self-signed, and not in the trust store/);
    assert.match(
      triggered.stdout,
      /^Certificate for localhost: CN=statusdesk test server, issued by CN=statusdesk test server; valid until \S+ \(\d+ days left\); not valid for this check: it is self-signed, and not in the trust store$/m,
    );
    const asJson = jsonOf(await runCli(['monitors', 'trigger', created.id, '--json'], env));
    assert.equal(asJson.results[0].certificate.serverName, 'localhost');
    assert.equal(asJson.results[0].certificate.verified, false);

    const bad = await runCli(['monitors', 'update', created.id, '--min-days-left', 'soon'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--min-days-left/);
    const refused = await runCli(['monitors', 'update', created.id, '--server-name', '10.0.0.1'], env);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /--server-name: must be a hostname: TLS sends no IP address/);
  });

  test('apply -f makes it, export writes it back, and applying the export changes nothing', { timeout: 120_000 }, async () => {
    const { key } = await setUp('cert-apply');
    const env = { SERVICE_API_KEY: key, SERVICE_API_URL: service.apiUrl };
    const dir = await tempDir();
    try {
      const file = join(dir.path, 'monitors.yaml');
      await writeFile(
        file,
        'version: 1\nmonitors:\n  - name: Shop TLS\n    type: certificate\n    target: shop.example.com:443\n    frequency: 1h\n    serverName: www.shop.example.com\n    minDaysLeft: 21\n',
      );
      const applied = await runCli(['apply', '-f', file], env);
      assert.equal(applied.code, 0, applied.stderr);
      assert.match(applied.stdout, /\+ monitor Shop TLS \(certificate\)/);
      const exported = await runCli(['export'], env);
      assert.equal(exported.code, 0, exported.stderr);
      assert.match(exported.stdout, /type: certificate\n\s+target: shop\.example\.com:443/);
      assert.match(exported.stdout, /serverName: www\.shop\.example\.com/);
      assert.match(exported.stdout, /minDaysLeft: 21/);
      const again = join(dir.path, 'exported.yaml');
      await writeFile(again, exported.stdout);
      const plan = await runCli(['apply', '-f', again, '--json'], env);
      assert.equal(plan.code, 0, plan.stderr);
      assert.deepEqual(JSON.parse(plan.stdout).summary, { create: 0, update: 0, delete: 0, unchanged: 1 });
    } finally {
      await dir.remove();
    }
  });

  test('OTLP: every check that saw a certificate exports its days left as statusdesk.certificate.days_left', async () => {
    const bodies: string[] = [];
    const collector = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    collector.listen(0, '127.0.0.1');
    await once(collector, 'listening');
    try {
      const { rpc } = await setUp('cert-otlp');
      const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/metrics`;
      const { monitor } = await rpc.createCertificateMonitor({
        monitor: { name: 'exported', uri: selfSigned.uri, periodicity: Periodicity.PERIODICITY_1H, regions: ['iad'], retry: 0, openTelemetry: { endpoint } },
      });
      const [result] = (await rpc.triggerMonitor({ id: monitor!.id })).results;
      const gauge = () => {
        for (const body of bodies.toReversed()) {
          for (const rm of JSON.parse(body).resourceMetrics)
            for (const sm of rm.scopeMetrics)
              for (const m of sm.metrics)
                if (m.name === 'statusdesk.certificate.days_left')
                  return m as { unit: string; gauge: { dataPoints: { asInt?: string | number; asDouble?: number }[] } };
        }
        return undefined;
      };
      await until(() => gauge() !== undefined, 'the gauge exported');
      const metric = gauge()!;
      assert.equal(metric.unit, 'd');
      const point = metric.gauge.dataPoints[0]!;
      assert.equal(Number(point.asInt ?? point.asDouble), result!.certificate!.daysLeft);
    } finally {
      collector.closeAllConnections();
      collector.close();
    }
  });
});

describe('certificate records with the test CA trusted (the engine given extraCa)', () => {
  const system: Actor = { type: 'system', surface: 'cli' };
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let close: () => Promise<void>;
  let services: ReturnType<typeof createServices>;
  let owner: Actor;
  let workspaceId: number;
  let leaf: KeyAndCert;

  before(async () => {
    dir = await tempDir();
    const db = await openTestDatabase(dir.path);
    const ownerId = await ensureOwner(db);
    const engine = createCheckEngine(db, { log: pino({ enabled: false }), version: 'test', schedule: false, extraCa: [ca.cert] });
    services = createServices(db, { checks: engine.checks });
    owner = { type: 'user', userId: ownerId, surface: 'cli' };
    workspaceId = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
    leaf = await makeServerCert({ ca });
    close = async () => {
      await engine.close();
      await db.destroy();
      await dir.remove();
    };
  });
  after(() => close?.());

  const input = (name: string, fields: Record<string, unknown>) => ({ name, periodicity: '1h', regions: ['iad'], retry: 0, ...fields });

  test('a certificate monitor of a trusted server is up; expiring soon is degraded', async () => {
    const valid = await tlsPeer(leaf);
    const monitor = await services.monitors.create(owner, workspaceId, 'certificate', input('valid', { uri: valid.uri }));
    const [result] = await services.monitors.trigger(owner, workspaceId, monitor.id);
    assert.equal(result!.result, 'up', result!.message);
    assert.equal(result!.certificate?.verified, true);
    assert.equal(result!.certificate?.issuer, 'CN=Statusdesk Test CA');

    const soon = await tlsPeer(await makeServerCert({ ca, validFromMs: -days(60), validForMs: days(63) + 3_600_000 }));
    const expiring = await services.monitors.create(owner, workspaceId, 'certificate', input('soon', { uri: soon.uri }));
    const [degraded] = await services.monitors.trigger(owner, workspaceId, expiring.id);
    assert.equal(degraded!.result, 'degraded');
    assert.match(degraded!.message, /^the certificate expires in 3 days, on .*: fewer than 14 days left$/);
  });

  test("an HTTPS monitor and a gRPC monitor over TLS: their results carry the certificate, stored and read back (response logs, MCP's too), outcomes as before", async () => {
    const https = createHttpsServer(leaf, (_req, res) => res.end('ok'));
    https.listen(0, '127.0.0.1');
    await once(https, 'listening');
    closers.push({ close: () => new Promise<void>((resolve) => https.close(() => resolve())) });
    const web = await services.monitors.create(
      owner,
      workspaceId,
      'http',
      input('web', { url: `https://localhost:${(https.address() as AddressInfo).port}/` }),
    );
    const [checked] = await services.monitors.trigger(owner, workspaceId, web.id);
    assert.equal(checked!.result, 'up', checked!.message);
    assert.equal(checked!.statusCode, 200);
    assert.equal(checked!.certificate?.serverName, 'localhost');
    assert.equal(checked!.certificate?.verified, true);
    const [stored] = await services.monitors.responseLogs(system, workspaceId, web.id, { limit: 1 });
    assert.deepEqual(stored!.certificate, checked!.certificate, 'the details column keeps the record');
    const logsTool = monitorTools.find((t) => t.name === 'list_response_logs')!;
    const logs = (await logsTool.run({ actor: owner, workspaceId, services, content: undefined as never }, { monitorId: Number(web.id) })) as {
      responseLogs: { certificate?: CertificateCheck }[];
    };
    assert.deepEqual(logs.responseLogs[0]!.certificate, checked!.certificate, "MCP's response logs show it");

    const grpc = await startGrpcPeer({ health: { '': 'SERVING' }, tls: leaf });
    closers.push(grpc);
    const health = await services.monitors.create(owner, workspaceId, 'grpc', input('health', { uri: grpc.uri, tls: 'verify' }));
    const [answered] = await services.monitors.trigger(owner, workspaceId, health.id);
    assert.equal(answered!.result, 'up', answered!.message);
    assert.equal(answered!.grpcStatus, 'SERVING');
    assert.equal(answered!.certificate?.nameMatches, true);
    assert.equal(answered!.certificate?.subject, 'CN=statusdesk test server');
  });

  test("a runner's report carries the certificate, and one it could not have made is refused naming the field", () => {
    const certificate: CertificateCheck = {
      subject: 'CN=shop.example.com',
      issuer: 'CN=R11, O=Example CA',
      subjectAltNames: ['DNS:shop.example.com'],
      notBefore: '2026-01-01T00:00:00.000Z',
      notAfter: '2026-04-01T00:00:00.500Z',
      daysLeft: 12,
      fingerprintSha256: Array.from({ length: 32 }, (_, i) => i.toString(16).padStart(2, '0').toUpperCase()).join(':'),
      serialNumber: '0A1B2C',
      verified: true,
      nameMatches: false,
      serverName: 'shop.example.com',
      error: 'it is not for shop.example.com: it names DNS:www.example.com',
    };
    const stored = {
      result: 'down',
      latencyMs: 4,
      timing: { dns: null, connect: 1, tls: 2, ttfb: null, transfer: null, total: 4 },
      attempts: 1,
      message: 'the certificate is not for shop.example.com',
      grpcStatus: null,
      statusCode: null,
      url: null,
      responseHeaders: {},
      assertionResults: [],
      certificate,
      monitorId: 7,
      workspaceId: 1,
      runner: 'office',
      regions: ['office'],
      startedAt: Date.now(),
    } as StoredCheck;
    const message = create(RunnerCheckSchema, toRunnerCheck(1, stored));
    const back = fromRunnerCheck(message, { runner: 'office', regions: ['office'], workspaceId: 1 });
    assert.deepEqual(back.certificate, certificate);

    message.certificate!.fingerprintSha256 = 'not a fingerprint';
    assert.throws(
      () => fromRunnerCheck(message, { runner: 'office', regions: ['office'], workspaceId: 1 }),
      (error: unknown) => error instanceof AppError && error.violations.some((v) => v.field === 'certificate.fingerprintSha256'),
    );
  });
});

describe("the monitor form's model for a certificate monitor", () => {
  test('a new one starts at the declared defaults; a stored one fills the form; what changed is all an update sends', () => {
    const empty = emptyForm();
    assert.deepEqual([empty.serverName, empty.minDaysLeft], ['', '14']);

    const typed = {
      ...empty,
      name: 'shop',
      host: 'shop.example.com',
      port: '443',
      serverName: ' www.example.com ',
      minDaysLeft: '30',
      periodicity: Periodicity.PERIODICITY_1H,
    };
    const { wire, local } = createOf('certificate', typed);
    assert.deepEqual(local, []);
    assert.equal(wire.type, 'certificate');
    const request = create(CreateCertificateMonitorRequestSchema, { monitor: wire.monitor as never });
    assert.deepEqual([request.monitor!.uri, request.monitor!.serverName, request.monitor!.minDaysLeft], ['shop.example.com:443', 'www.example.com', 30]);

    const stored = create(CertificateMonitorSchema, {
      id: '7',
      name: 'shop',
      uri: '[::1]:8443',
      serverName: 'localhost',
      minDaysLeft: 0,
      periodicity: Periodicity.PERIODICITY_1H,
    });
    const form = formOf({ type: 'certificate', monitor: stored });
    assert.deepEqual([form.host, form.port, form.serverName, form.minDaysLeft], ['::1', '8443', 'localhost', '0']);

    const { update } = updateOf('certificate', { ...form, minDaysLeft: '21' }, { minDaysLeft: true });
    assert.deepEqual(update?.updateMask.paths, ['min_days_left']);
    assert.deepEqual(update?.monitor, { minDaysLeft: 21 });
    const cleared = updateOf('certificate', { ...form, minDaysLeft: '' }, { minDaysLeft: true });
    assert.deepEqual(cleared.update?.updateMask.paths, ['min_days_left']);
    assert.equal(
      (cleared.update!.monitor as { minDaysLeft?: number }).minDaysLeft,
      undefined,
      'emptied: named in the mask without a value, so the service gives back its default',
    );
    assert.deepEqual(updateOf('certificate', { ...form, minDaysLeft: '2.5' }, { minDaysLeft: true }).local, [
      { field: 'monitor.minDaysLeft', rule: 'must be a whole number of days' },
    ]);
  });
});
