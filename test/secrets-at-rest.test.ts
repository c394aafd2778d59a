/**
 * Secrets at rest: credential-like monitor headers, gRPC metadata, OTLP headers and webhook
 * subscriber URLs are sealed in the database (its WAL and audit snapshots included), shown
 * `[redacted]` or masked on every surface, and still used as they are by checks and deliveries.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createClient, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { HTTPMethod, MonitorService, Periodicity, TLSMode } from '../proto/gen/monitor/v1/monitor_pb.js';
import { DATABASE_FILE } from '../server/db/open.ts';
import SQLite from 'better-sqlite3';
import type { Actor } from '../server/domain/actor.ts';
import type { PageEvent } from '../server/domain/notifications/events.ts';
import { createSealer, KEY_FILE, loadSealingKey } from '../server/domain/sealing.ts';
import { startTestService, tempDir, type TestService } from './support/harness.ts';
import { connectMcp, type McpConnection, ok } from './support/mcp-client.ts';
import { type HttpReceiver, startHttpReceiver } from './support/receivers.ts';

const system: Actor = { type: 'system', surface: 'cli' };
const REDACTED = '[redacted]';
// Each run its own values, so a match can only come from this run.
const tag = Math.random().toString(36).slice(2, 10);
const SECRETS = {
  authorization: `Bearer http-auth-${tag}`,
  authorizationNext: `Bearer http-auth-next-${tag}`,
  apiKey: `api-key-${tag}`,
  grpcAuth: `Bearer grpc-meta-${tag}`,
  grpcAuthNext: `Bearer grpc-meta-next-${tag}`,
  otlp: `Bearer otlp-${tag}`,
  otlpNext: `Bearer otlp-next-${tag}`,
  hookPath: `hook-path-${tag}`,
  hookQuery: `hook-query-${tag}`,
  hookPathOther: `hook-other-${tag}`,
};

const reportCreated = (pageId: string): PageEvent => ({
  kind: 'report.created',
  page: { id: pageId, slug: 'sealed-hooks', title: 'Sealed hooks', url: 'http://localhost/status/sealed-hooks' },
  report: { id: '1', title: 'Sealed', status: 'investigating', components: [] },
  update: { id: '1', status: 'investigating', message: 'Delivered.', at: new Date().toISOString() },
});

const withKey = (secret: string): Interceptor => (next) => (req) => {
  req.header.set('x-service-key', secret);
  return next(req);
};

/** The raw bytes of a file of the data folder, as a string any secret would show in; '' when absent. */
function rawBytes(path: string): string {
  try {
    return readFileSync(path).toString('latin1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

function assertNoSecret(text: string, where: string): void {
  for (const [name, value] of Object.entries(SECRETS)) assert.ok(!text.includes(value), `${where} holds the ${name} secret in the clear`);
}

describe('secrets at rest', () => {
  let svc: TestService;
  let target: HttpReceiver;
  let otlp: HttpReceiver;
  let hook: HttpReceiver;
  let readKey: { secret: string };
  let writeKey: { secret: string };
  let reader: McpConnection;
  let ws: number;
  const ids = { http: '', grpc: '', page: '' };

  before(async () => {
    target = await startHttpReceiver({ lifetimeMs: 120_000 });
    otlp = await startHttpReceiver({ lifetimeMs: 120_000 });
    hook = await startHttpReceiver({ lifetimeMs: 120_000 });
    svc = await startTestService({ OTEL_METRIC_EXPORT_INTERVAL: '200' });
    ws = Number((await svc.services.workspaces.getBySlug(system, 'personal')).id);
    writeKey = await svc.createKey('write');
    readKey = await svc.createKey('read');
    const rpc = createClient(MonitorService, createConnectTransport({ baseUrl: `${svc.apiUrl}/rpc`, httpVersion: '1.1', interceptors: [withKey(writeKey.secret)] }));

    const http = (
      await rpc.createHTTPMonitor({
        monitor: {
          name: 'secret headers',
          url: `${target.url}/probe`,
          method: HTTPMethod.HTTP_METHOD_GET,
          periodicity: Periodicity.PERIODICITY_10M,
          regions: ['iad'],
          headers: { Authorization: SECRETS.authorization, 'X-Api-Key': SECRETS.apiKey, 'X-Plain': 'visible' },
          openTelemetry: { endpoint: `${otlp.url}/v1/metrics`, headers: { Authorization: SECRETS.otlp } },
        },
      })
    ).monitor!;
    ids.http = http.id;
    // Updated once each, so the audit log has before and after snapshots of every secret.
    await rpc.updateHTTPMonitor({ id: ids.http, monitor: { headers: { Authorization: SECRETS.authorizationNext, 'X-Api-Key': REDACTED, 'X-Plain': 'visible' } }, updateMask: { paths: ['headers'] } });
    await rpc.updateHTTPMonitor({ id: ids.http, monitor: { openTelemetry: { endpoint: `${otlp.url}/v1/metrics`, headers: { Authorization: SECRETS.otlpNext } } }, updateMask: { paths: ['open_telemetry'] } });

    const grpc = (
      await rpc.createGRPCMonitor({
        monitor: { name: 'secret metadata', uri: '127.0.0.1:9', periodicity: Periodicity.PERIODICITY_10M, regions: ['iad'], tls: TLSMode.TLS_MODE_PLAINTEXT, metadata: { authorization: SECRETS.grpcAuth, 'x-tenant': 't1' } },
      })
    ).monitor!;
    ids.grpc = grpc.id;
    await rpc.updateGRPCMonitor({ id: ids.grpc, monitor: { metadata: { authorization: SECRETS.grpcAuthNext, 'x-tenant': 't1' } }, updateMask: { paths: ['metadata'] } });

    const page = await svc.services.pages.create(system, ws, { slug: 'sealed-hooks', title: 'Sealed hooks' });
    ids.page = page.id;
    await svc.services.subscribers.add(system, ws, page.id, { webhookUrl: `${hook.url}/${SECRETS.hookPath}?token=${SECRETS.hookQuery}` });
    // Subscribers are not edited, only added and removed: this one is removed, for a delete entry.
    const other = await svc.services.subscribers.add(system, ws, page.id, { webhookUrl: `${hook.url}/${SECRETS.hookPathOther}` });
    await svc.services.subscribers.remove(system, ws, other.subscriber.id);

    reader = await connectMcp(svc.apiUrl, '2025-11-25', readKey.secret);
  }, { timeout: 60_000 });

  after(async () => {
    await reader?.close();
    await svc?.stop();
    await Promise.all([target?.close(), otlp?.close(), hook?.close()]);
  });

  test('neither statusdesk.db nor its WAL holds any of the secrets (no checkpoint forced)', () => {
    const db = rawBytes(join(svc.dataDir, DATABASE_FILE));
    const wal = rawBytes(join(svc.dataDir, `${DATABASE_FILE}-wal`));
    assert.ok(db.length + wal.length > 0, 'no database bytes were read');
    assert.ok(wal.includes('secret headers') || db.includes('secret headers'), 'the monitor is in neither file: the test reads the wrong files');
    assertNoSecret(db, DATABASE_FILE);
    assertNoSecret(wal, `${DATABASE_FILE}-wal`);
  });

  test('MCP get_monitor (read key) shows credential-like values [redacted], the others as they are', async () => {
    const http = ok(await reader.call('get_monitor', { monitorId: Number(ids.http) })).monitor;
    assert.deepEqual(http.headers, { Authorization: REDACTED, 'X-Api-Key': REDACTED, 'X-Plain': 'visible' });
    assert.deepEqual(http.openTelemetry.headers, { Authorization: REDACTED });
    const grpc = ok(await reader.call('get_monitor', { monitorId: Number(ids.grpc) })).monitor;
    assert.deepEqual(grpc.metadata, { authorization: REDACTED, 'x-tenant': 't1' });
  });

  test('MCP get_audit_log (read key) shows snapshots redacted, with a fingerprint that changes with the secrets', async () => {
    const { auditLogs } = ok(await reader.call('list_audit_logs', { perPage: 50 }));
    assert.ok(auditLogs.length >= 6, `expected the creates, updates and the delete, got ${auditLogs.length}`);
    const seen = new Set<string>();
    for (const { id } of auditLogs) {
      const { auditLog } = ok(await reader.call('get_audit_log', { auditLogId: id }));
      assertNoSecret(JSON.stringify(auditLog), `audit entry ${id} (${auditLog.action})`);
      seen.add(auditLog.action);
    }
    for (const action of ['monitor.create', 'monitor.update', 'page_subscriber.create', 'page_subscriber.delete']) assert.ok(seen.has(action), `no ${action} entry`);
    const headerUpdate = auditLogs.find((e: { action: string; entityId: string; changedFields: string[] }) => e.action === 'monitor.update' && e.entityId === ids.grpc);
    assert.ok(headerUpdate, 'no update entry of the gRPC monitor');
    // The shown values did not change ([redacted] both times); the fingerprint did.
    assert.deepEqual(headerUpdate.changedFields, ['secretsFingerprint']);
    const { auditLog } = ok(await reader.call('get_audit_log', { auditLogId: headerUpdate.id }));
    assert.deepEqual(auditLog.after.metadata, { authorization: REDACTED, 'x-tenant': 't1' });
    assert.match(auditLog.after.secretsFingerprint, /^[\w-]{12}$/);
    assert.notEqual(auditLog.before.secretsFingerprint, auditLog.after.secretsFingerprint);
  });

  test('RPC GetMonitor (write key of the owner) shows them [redacted] too', async () => {
    const rpc = createClient(MonitorService, createConnectTransport({ baseUrl: `${svc.apiUrl}/rpc`, httpVersion: '1.1', interceptors: [withKey(writeKey.secret)] }));
    const http = (await rpc.getMonitor({ id: ids.http })).monitor;
    assert.equal(http.case, 'httpMonitor');
    assert.deepEqual(http.value!.headers, { Authorization: REDACTED, 'X-Api-Key': REDACTED, 'X-Plain': 'visible' });
    assert.deepEqual(http.value!.openTelemetry?.headers, { Authorization: REDACTED });
    const grpc = (await rpc.getMonitor({ id: ids.grpc })).monitor;
    assert.equal(grpc.case, 'grpcMonitor');
    assert.deepEqual(grpc.value!.metadata, { authorization: REDACTED, 'x-tenant': 't1' });
  });

  test('the subscriber list shows the webhook URL masked', async () => {
    const [subscriber] = await svc.services.subscribers.list(system, ws, ids.page);
    assert.equal(subscriber!.address, `${hook.url}/…`);
  });

  test('a check sends the real headers (a [redacted] sent back kept the stored value), and OTLP export its real header', async () => {
    const rpc = createClient(MonitorService, createConnectTransport({ baseUrl: `${svc.apiUrl}/rpc`, httpVersion: '1.1', interceptors: [withKey(writeKey.secret)] }));
    const before = target.requests.length;
    await rpc.triggerMonitor({ id: ids.http });
    const [request] = (await target.waitFor(before + 1)).slice(before);
    assert.equal(request!.headers['authorization'], SECRETS.authorizationNext);
    assert.equal(request!.headers['x-api-key'], SECRETS.apiKey, 'X-Api-Key sent back as [redacted] kept its value');
    assert.equal(request!.headers['x-plain'], 'visible');
    const [exported] = await otlp.waitFor(1, 15_000);
    assert.equal(exported!.headers['authorization'], SECRETS.otlpNext);
  });

  test('a webhook subscriber receives the delivery at its real URL', async () => {
    const before = hook.requests.length;
    await svc.services.subscribers.dispatch(ws, Number(ids.page), reportCreated(ids.page));
    const [delivery] = (await hook.waitFor(before + 1)).slice(before);
    assert.equal(delivery!.path, `/${SECRETS.hookPath}?token=${SECRETS.hookQuery}`);
  });
});

describe('data of earlier versions', () => {
  test('is sealed at the next start, once: monitors, webhook subscribers and audit snapshots; checks and deliveries use the real values', { timeout: 60_000 }, async () => {
    const dir = await tempDir();
    const probe = await startHttpReceiver({ lifetimeMs: 60_000 });
    const legacyHook = await startHttpReceiver({ lifetimeMs: 60_000 });
    const legacy = { auth: `Bearer legacy-${tag}`, otlp: `Bearer legacy-otlp-${tag}`, hook: `legacy-hook-${tag}` };
    let svc: TestService | undefined;
    try {
      svc = await startTestService({}, dir.path);
      const ws = Number((await svc.services.workspaces.getBySlug(system, 'personal')).id);
      const monitor = await svc.services.monitors.create(system, ws, 'http', { name: 'legacy', url: `${probe.url}/legacy`, periodicity: '10m', regions: ['iad'] });
      const page = await svc.services.pages.create(system, ws, { slug: 'legacy-hooks', title: 'Legacy hooks' });
      await svc.close();
      svc = undefined;

      // What an earlier version left: the values in the clear, and the steps migration 0006 records.
      const raw = new SQLite(join(dir.path, DATABASE_FILE));
      const settings = JSON.parse(raw.prepare('select settings from monitors where id = ?').pluck().get(Number(monitor.id)) as string);
      settings.headers = { Authorization: legacy.auth, 'X-Plain': 'visible' };
      const otel = JSON.stringify({ endpoint: `${probe.url}/v1/metrics`, headers: { 'X-Auth-Token': legacy.otlp } });
      raw.prepare('update monitors set settings = ?, open_telemetry = ?, secrets = null, revision = revision + 1 where id = ?').run(JSON.stringify(settings), otel, Number(monitor.id));
      const sealer = createSealer(loadSealingKey(join(dir.path, KEY_FILE)));
      const now = new Date().toISOString();
      raw
        .prepare("insert into page_subscribers (page_id, kind, address, status, secret, created_at, confirmed_at) values (?, 'webhook', ?, 'active', ?, ?, ?)")
        .run(Number(page.id), `${legacyHook.url}/${legacy.hook}`, sealer.seal('whsec_legacy'), now, now);
      const snapshot = JSON.stringify({ name: 'legacy', headers: settings.headers, openTelemetry: JSON.parse(otel) });
      raw
        .prepare("insert into audit_log (workspace_id, entity_type, entity_id, action, actor_type, actor_id, before, after, changed_fields, created_at) values (?, 'monitor', ?, 'monitor.update', 'system', 'system', null, ?, '[]', ?)")
        .run(ws, monitor.id, snapshot, now);
      raw.exec("insert or ignore into pending_sealing (step) values ('monitors'), ('page_subscribers'), ('audit_log')");
      raw.close();
      assert.ok(rawBytes(join(dir.path, DATABASE_FILE)).includes(legacy.auth) || rawBytes(join(dir.path, `${DATABASE_FILE}-wal`)).includes(legacy.auth), 'the legacy value was not written: the test proves nothing');

      svc = await startTestService({}, dir.path);
      for (const file of [DATABASE_FILE, `${DATABASE_FILE}-wal`]) {
        const bytes = rawBytes(join(dir.path, file));
        for (const value of Object.values(legacy)) assert.ok(!bytes.includes(value), `${file} still holds ${value}`);
      }
      const check = new SQLite(join(dir.path, DATABASE_FILE), { readonly: true });
      try {
        assert.equal(check.prepare('select count(*) from pending_sealing').pluck().get(), 0, 'the sealing steps are done once');
      } finally {
        check.close();
      }

      const shown = await svc.services.monitors.get(system, ws, monitor.id);
      assert.ok(shown.type === 'http');
      assert.deepEqual(shown.headers, { Authorization: REDACTED, 'X-Plain': 'visible' });
      assert.deepEqual(shown.openTelemetry?.headers, { 'X-Auth-Token': REDACTED });
      const { auditLogs } = await svc.services.auditLog.list(system, ws, { entityType: 'monitor' });
      for (const entry of auditLogs) for (const value of Object.values(legacy)) assert.ok(!JSON.stringify(entry).includes(value), `audit entry ${entry.id} still holds ${value}`);

      await svc.services.monitors.trigger(system, ws, monitor.id);
      const [request] = await probe.waitFor(1);
      assert.equal(request!.headers['authorization'], legacy.auth);

      const [subscriber] = await svc.services.subscribers.list(system, ws, page.id);
      assert.equal(subscriber!.address, `${legacyHook.url}/…`);
      await svc.services.subscribers.dispatch(ws, Number(page.id), reportCreated(page.id));
      const [delivery] = await legacyHook.waitFor(1);
      assert.equal(delivery!.path, `/${legacy.hook}`);
    } finally {
      await svc?.close();
      await Promise.all([probe.close(), legacyHook.close()]);
      await dir.remove();
    }
  });
});
