/**
 * Secrets at rest: credential-like monitor headers, gRPC metadata, OTLP headers, webhook
 * subscriber URLs and notification channels' credentials are sealed in the database (its WAL and
 * audit snapshots included), shown `[redacted]` or masked on every surface, kept when sent back
 * masked, and still used as they are by checks and deliveries.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HTTPMethod, Periodicity, TLSMode } from '../proto/gen/monitor/v1/monitor_pb.js';
import SQLite from 'better-sqlite3';
import { DATABASE_FILE } from '../server/db/open.ts';
import { SIGNATURE_HEADER } from '../server/delivery/http-post.ts';
import type { Actor } from '../server/domain/actor.ts';
import type { PageEvent } from '../server/domain/notifications/events.ts';
import { createSealer, KEY_FILE, loadSealingKey } from '../server/domain/sealing.ts';
import { AppError } from '../server/errors.ts';
import type { Services } from '../server/services.ts';
import { monitorRpc, readRows, rejectsWith, startTestService, tempDir, type TestService } from './support/harness.ts';
import { connectMcp, type McpConnection, ok } from './support/mcp-client.ts';
import { type HttpReceiver, type SmtpReceiver, startHttpReceiver, startSmtpReceiver, verifySignature } from './support/receivers.ts';
import { sqliteOnly } from './support/database.ts';

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

describe('secrets at rest', { skip: sqliteOnly }, () => {
  let svc: TestService;
  let target: HttpReceiver;
  let otlp: HttpReceiver;
  let hook: HttpReceiver;
  let readKey: { secret: string };
  let writeKey: { secret: string };
  let reader: McpConnection;
  let ws: number;
  const ids = { http: '', grpc: '', page: '' };

  before(
    async () => {
      target = await startHttpReceiver({ lifetimeMs: 120_000 });
      otlp = await startHttpReceiver({ lifetimeMs: 120_000 });
      hook = await startHttpReceiver({ lifetimeMs: 120_000 });
      svc = await startTestService({ OTEL_METRIC_EXPORT_INTERVAL: '200' });
      ws = Number((await svc.services.workspaces.getBySlug(system, 'personal')).id);
      writeKey = await svc.createKey('write');
      readKey = await svc.createKey('read');
      const rpc = monitorRpc(svc, writeKey.secret);

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
      await rpc.updateHTTPMonitor({
        id: ids.http,
        monitor: { headers: { Authorization: SECRETS.authorizationNext, 'X-Api-Key': REDACTED, 'X-Plain': 'visible' } },
        updateMask: { paths: ['headers'] },
      });
      await rpc.updateHTTPMonitor({
        id: ids.http,
        monitor: { openTelemetry: { endpoint: `${otlp.url}/v1/metrics`, headers: { Authorization: SECRETS.otlpNext } } },
        updateMask: { paths: ['open_telemetry'] },
      });

      const grpc = (
        await rpc.createGRPCMonitor({
          monitor: {
            name: 'secret metadata',
            uri: '127.0.0.1:9',
            periodicity: Periodicity.PERIODICITY_10M,
            regions: ['iad'],
            tls: TLSMode.TLS_MODE_PLAINTEXT,
            metadata: { authorization: SECRETS.grpcAuth, 'x-tenant': 't1' },
          },
        })
      ).monitor!;
      ids.grpc = grpc.id;
      await rpc.updateGRPCMonitor({
        id: ids.grpc,
        monitor: { metadata: { authorization: SECRETS.grpcAuthNext, 'x-tenant': 't1' } },
        updateMask: { paths: ['metadata'] },
      });

      const page = await svc.services.pages.create(system, ws, { slug: 'sealed-hooks', title: 'Sealed hooks' });
      ids.page = page.id;
      await svc.services.subscribers.add(system, ws, page.id, { webhookUrl: `${hook.url}/${SECRETS.hookPath}?token=${SECRETS.hookQuery}` });
      // Subscribers are not edited, only added and removed: this one is removed, for a delete entry.
      const other = await svc.services.subscribers.add(system, ws, page.id, { webhookUrl: `${hook.url}/${SECRETS.hookPathOther}` });
      await svc.services.subscribers.remove(system, ws, other.subscriber.id);

      reader = await connectMcp(svc.apiUrl, '2025-11-25', readKey.secret);
    },
    { timeout: 60_000 },
  );

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
    for (const action of ['monitor.create', 'monitor.update', 'page_subscriber.create', 'page_subscriber.delete'])
      assert.ok(seen.has(action), `no ${action} entry`);
    const headerUpdate = auditLogs.find(
      (e: { action: string; entityId: string; changedFields: string[] }) => e.action === 'monitor.update' && e.entityId === ids.grpc,
    );
    assert.ok(headerUpdate, 'no update entry of the gRPC monitor');
    // The shown values did not change ([redacted] both times); the fingerprint did.
    assert.deepEqual(headerUpdate.changedFields, ['secretsFingerprint']);
    const { auditLog } = ok(await reader.call('get_audit_log', { auditLogId: headerUpdate.id }));
    assert.deepEqual(auditLog.after.metadata, { authorization: REDACTED, 'x-tenant': 't1' });
    assert.match(auditLog.after.secretsFingerprint, /^[\w-]{12}$/);
    assert.notEqual(auditLog.before.secretsFingerprint, auditLog.after.secretsFingerprint);
  });

  test('RPC GetMonitor (write key of the owner) shows them [redacted] too', async () => {
    const rpc = monitorRpc(svc, writeKey.secret);
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
    const rpc = monitorRpc(svc, writeKey.secret);
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

describe('data of earlier versions', { skip: sqliteOnly }, () => {
  test('is sealed at the next start, once: monitors, webhook subscribers and audit snapshots; checks and deliveries use the real values', {
    timeout: 60_000,
  }, async () => {
    const dir = await tempDir();
    const probe = await startHttpReceiver({ lifetimeMs: 60_000 });
    const legacyHook = await startHttpReceiver({ lifetimeMs: 60_000 });
    const legacy = { auth: `Bearer legacy-${tag}`, otlp: `Bearer legacy-otlp-${tag}`, hook: `legacy-hook-${tag}` };
    let svc: TestService | undefined;
    try {
      svc = await startTestService({}, dir.path);
      const ws = Number((await svc.services.workspaces.getBySlug(system, 'personal')).id);
      const monitor = await svc.services.monitors.create(system, ws, 'http', {
        name: 'legacy',
        url: `${probe.url}/legacy`,
        periodicity: '10m',
        regions: ['iad'],
      });
      const page = await svc.services.pages.create(system, ws, { slug: 'legacy-hooks', title: 'Legacy hooks' });
      await svc.close();
      svc = undefined;

      // What an earlier version left: the values in the clear, and the steps migration 0006 records.
      const raw = new SQLite(join(dir.path, DATABASE_FILE));
      const settings = JSON.parse(raw.prepare('select settings from monitors where id = ?').pluck().get(Number(monitor.id)) as string);
      settings.headers = { Authorization: legacy.auth, 'X-Plain': 'visible' };
      const otel = JSON.stringify({ endpoint: `${probe.url}/v1/metrics`, headers: { 'X-Auth-Token': legacy.otlp } });
      raw
        .prepare('update monitors set settings = ?, open_telemetry = ?, secrets = null, revision = revision + 1 where id = ?')
        .run(JSON.stringify(settings), otel, Number(monitor.id));
      const sealer = createSealer(loadSealingKey(join(dir.path, KEY_FILE)));
      const now = new Date().toISOString();
      raw
        .prepare("insert into page_subscribers (page_id, kind, address, status, secret, created_at, confirmed_at) values (?, 'webhook', ?, 'active', ?, ?, ?)")
        .run(Number(page.id), `${legacyHook.url}/${legacy.hook}`, sealer.seal('whsec_legacy'), now, now);
      const snapshot = JSON.stringify({ name: 'legacy', headers: settings.headers, openTelemetry: JSON.parse(otel) });
      raw
        .prepare(
          "insert into audit_log (workspace_id, entity_type, entity_id, action, actor_type, actor_id, before, after, changed_fields, created_at) values (?, 'monitor', ?, 'monitor.update', 'system', 'system', null, ?, '[]', ?)",
        )
        .run(ws, monitor.id, snapshot, now);
      raw.exec("insert or ignore into pending_sealing (step) values ('monitors'), ('page_subscribers'), ('audit_log')");
      raw.close();
      assert.ok(
        rawBytes(join(dir.path, DATABASE_FILE)).includes(legacy.auth) || rawBytes(join(dir.path, `${DATABASE_FILE}-wal`)).includes(legacy.auth),
        'the legacy value was not written: the test proves nothing',
      );

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
      for (const entry of auditLogs)
        for (const value of Object.values(legacy)) assert.ok(!JSON.stringify(entry).includes(value), `audit entry ${entry.id} still holds ${value}`);

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

// ---- notification channels ---------------------------------------------------------------------

/** Everything a client sees of a channel, sent back unchanged (as an edit form would), with `changes`. */
function echo(channel: { name: string; kind: string; monitorIds: string[]; config: Record<string, unknown> }, changes: Record<string, unknown>) {
  return { name: channel.name, kind: channel.kind, monitorIds: channel.monitorIds, config: channel.config, ...changes };
}

describe('notification channel credentials', { skip: sqliteOnly }, () => {
  let svc: TestService;
  let services: Services;
  let ws: number;
  let smtp: SmtpReceiver;
  let hook: HttpReceiver;

  before(async () => {
    smtp = await startSmtpReceiver();
    hook = await startHttpReceiver();
    svc = await startTestService({ STATUSDESK_SMTP_URL: smtp.url, STATUSDESK_MAIL_FROM: 'Status <status@acme.test>' });
    services = svc.services;
    ws = Number((await services.workspaces.getBySlug(system, 'personal')).id);
  });

  after(async () => {
    await svc?.stop();
    await smtp?.close();
    await hook?.close();
  });

  describe('channel updated with its masked config sent back', () => {
    test('slack: the webhook URL is kept; a test send reaches the real path', async () => {
      const created = await services.channels.create(system, ws, {
        name: 'slack echo',
        kind: 'slack',
        config: { webhookUrl: `${hook.url}/services/T/B/SECRET` },
      });
      const shown = await services.channels.get(system, ws, created.id);
      assert.deepEqual(shown.config, { webhookUrl: `${hook.url}/…` });
      const updated = await services.channels.update(system, ws, created.id, echo(shown, { name: 'slack echo renamed' }));
      assert.equal(updated.name, 'slack echo renamed');
      assert.deepEqual(updated.config, shown.config);
      const start = hook.requests.length;
      assert.deepEqual(await services.channels.test(system, ws, created.id), { delivered: true, error: null });
      const [request] = (await hook.waitFor(start + 1)).slice(start);
      assert.equal(request!.path, '/services/T/B/SECRET', 'the mask replaced the stored webhook URL');
    });

    test('email: the smtpUrl with user and password is kept; the test mail logs in with them', async () => {
      const relay = await startSmtpReceiver();
      try {
        const config = { to: ['oncall@example.test'], smtpUrl: `smtp://echouser:ECHO-PASSWORD@127.0.0.1:${relay.port}` };
        const created = await services.channels.create(system, ws, { name: 'mail echo', kind: 'email', config });
        const shown = await services.channels.get(system, ws, created.id);
        assert.deepEqual(shown.config, { to: ['oncall@example.test'], smtpUrl: `smtp://127.0.0.1:${relay.port}/…` });
        await services.channels.update(system, ws, created.id, echo(shown, { name: 'mail echo renamed' }));
        assert.deepEqual(await services.channels.test(system, ws, created.id), { delivered: true, error: null });
        const [mail] = await relay.waitFor(1);
        assert.deepEqual(mail!.envelopeTo, ['oncall@example.test']);
        assert.deepEqual(relay.logins, ['echouser'], 'the test mail did not log in with the stored credentials');
      } finally {
        await relay.close();
      }
    });

    test('webhook: url, secret and headers are kept; the test send is signed with the real secret', async () => {
      const secret = 'echo-signing-secret-0123456789';
      const created = await services.channels.create(system, ws, {
        name: 'hook echo',
        kind: 'webhook',
        config: { url: `${hook.url}/alerts/ECHO-PATH`, secret, headers: { authorization: 'Bearer ECHO-HEADER' } },
      });
      const shown = await services.channels.get(system, ws, created.id);
      assert.deepEqual(shown.config, { url: `${hook.url}/…`, secret: '••••••••', headers: { authorization: '••••••••' } });
      await services.channels.update(system, ws, created.id, echo(shown, { name: 'hook echo renamed' }));
      const start = hook.requests.length;
      assert.deepEqual(await services.channels.test(system, ws, created.id), { delivered: true, error: null });
      const [request] = (await hook.waitFor(start + 1)).slice(start);
      assert.equal(request!.path, '/alerts/ECHO-PATH');
      assert.equal(request!.headers.authorization, 'Bearer ECHO-HEADER');
      assert.ok(verifySignature(secret, request!.headers[SIGNATURE_HEADER] ?? '', request!.body), 'the mask replaced the signing secret');
    });

    test('the audit log says credentials changed only when they did', async () => {
      const created = await services.channels.create(system, ws, {
        name: 'audited',
        kind: 'slack',
        config: { webhookUrl: `${hook.url}/services/T/B/AUDITED` },
      });
      const entries = () =>
        readRows<{ action: string; changed_fields: string }>(
          svc.dataDir,
          "select action, changed_fields from audit_log where entity_type = 'notification_channel' and entity_id = ? order by id",
          created.id,
        ).map((r) => [r.action, JSON.parse(r.changed_fields) as string[]]);
      await services.channels.update(system, ws, created.id, { name: 'audited renamed' });
      const shown = await services.channels.get(system, ws, created.id);
      // Sent back exactly as shown: nothing changed, so no entry.
      await services.channels.update(system, ws, created.id, echo(shown, {}));
      await services.channels.update(system, ws, created.id, { config: { webhookUrl: `${hook.url}/services/T/B/ROTATED` } });
      const logged = entries();
      assert.deepEqual(
        logged.slice(1),
        [
          ['notification_channel.update', ['name']],
          ['notification_channel.update', ['credentialsFingerprint']],
        ],
        `audit entries: ${JSON.stringify(logged)}`,
      );
    });
  });

  describe('channel credentials that cannot be read (the key file was replaced)', () => {
    test('list and get show them as unreadable; test fails naming secret.key; new credentials fix it; delete works', async () => {
      const dir = await tempDir();
      let first: TestService | undefined;
      let second: TestService | undefined;
      try {
        first = await startTestService({}, dir.path);
        const s1 = first.services;
        const ws1 = Number((await s1.workspaces.getBySlug(system, 'personal')).id);
        const monitor = await s1.monitors.create(system, ws1, 'tcp', { name: 'db', uri: 'db.internal:5432', periodicity: '1m' });
        const channel = await s1.channels.create(system, ws1, {
          name: 'locked out',
          kind: 'webhook',
          monitorIds: [monitor.id],
          config: { url: `${hook.url}/old/LOCKED-PATH`, secret: 'old-signing-secret-0123456789', headers: { authorization: 'Bearer LOCKED' } },
        });
        await first.stop();
        first = undefined;

        writeFileSync(join(dir.path, KEY_FILE), randomBytes(32).toString('base64'));
        second = await startTestService({}, dir.path);
        const s = second.services;
        const wsId = Number((await s.workspaces.getBySlug(system, 'personal')).id);
        const unreadable = { url: '(unreadable: set again)', secret: '(unreadable: set again)', headers: '(unreadable: set again)' };

        const listed = await s.channels.list(system, wsId);
        const inList = listed.channels.find((c) => c.id === channel.id);
        assert.ok(inList, 'the channel is not listed');
        assert.deepEqual([inList.name, inList.kind, inList.monitorIds, inList.config], ['locked out', 'webhook', [monitor.id], unreadable]);
        assert.deepEqual((await s.channels.get(system, wsId, channel.id)).config, unreadable);

        const start = hook.requests.length;
        const failed = await s.channels.test(system, wsId, channel.id);
        assert.equal(failed.delivered, false);
        assert.match(failed.error ?? '', /secret\.key/);
        // The alert path gets the failure for this channel only; a channel made with the new key is deliverable.
        const fresh = await s.channels.create(system, wsId, { name: 'fresh', kind: 'desktop', monitorIds: [monitor.id] });
        const targets = await s.channels.targetsOf(Number(monitor.id));
        assert.deepEqual(
          targets.map((t) => [String(t.id), t.target instanceof Error]),
          [
            [channel.id, true],
            [fresh.id, false],
          ],
        );
        assert.match((targets[0]!.target as Error).message, /secret\.key/);

        // New credentials make it deliverable again.
        const newSecret = 'new-signing-secret-0123456789';
        const updated = await s.channels.update(system, wsId, channel.id, {
          config: { url: `${hook.url}/new/FIXED-PATH`, secret: newSecret, headers: { authorization: 'Bearer NEW' } },
        });
        assert.deepEqual(updated.config, { url: `${hook.url}/…`, secret: '••••••••', headers: { authorization: '••••••••' } });
        assert.deepEqual(updated.monitorIds, [monitor.id]);
        assert.deepEqual(await s.channels.test(system, wsId, channel.id), { delivered: true, error: null });
        const [request] = (await hook.waitFor(start + 1)).slice(start);
        assert.equal(request!.path, '/new/FIXED-PATH');
        assert.ok(verifySignature(newSecret, request!.headers[SIGNATURE_HEADER] ?? '', request!.body));
        assert.equal(request!.headers.authorization, 'Bearer NEW');
        assert.equal(hook.requests.length, start + 1, 'the unreadable channel sent something');

        await s.channels.delete(system, wsId, channel.id);
        await rejectsWith(s.channels.get(system, wsId, channel.id), 'NOT_FOUND');
      } finally {
        await first?.stop();
        await second?.stop();
        await dir.remove();
      }
    });

    test('an update that gives no credentials does not silently drop unreadable ones', async () => {
      // An email channel's smtpUrl is optional: without it the service's own relay is used. A
      // rename must not turn "unreadable" into "none", which sends the channel's mail elsewhere.
      const dir = await tempDir();
      const ownRelay = await startSmtpReceiver();
      let first: TestService | undefined;
      let second: TestService | undefined;
      try {
        first = await startTestService({ STATUSDESK_SMTP_URL: smtp.url }, dir.path);
        const ws1 = Number((await first.services.workspaces.getBySlug(system, 'personal')).id);
        const to = 'unreadable-oncall@example.test';
        const channel = await first.services.channels.create(system, ws1, {
          name: 'own relay',
          kind: 'email',
          config: { to: [to], smtpUrl: `smtp://relayuser:RELAY-PASSWORD@127.0.0.1:${ownRelay.port}` },
        });
        await first.stop();
        first = undefined;
        writeFileSync(join(dir.path, KEY_FILE), randomBytes(32).toString('base64'));
        second = await startTestService({ STATUSDESK_SMTP_URL: smtp.url }, dir.path);
        const s = second.services;
        const wsId = Number((await s.workspaces.getBySlug(system, 'personal')).id);
        assert.deepEqual((await s.channels.get(system, wsId, channel.id)).config, { to: [to], smtpUrl: '(unreadable: set again)' });

        let renamed: Awaited<ReturnType<typeof s.channels.update>> | undefined;
        try {
          renamed = await s.channels.update(system, wsId, channel.id, { name: 'own relay renamed' });
        } catch (error) {
          // Refusing the change until the credentials are given again is fine too.
          assert.ok(error instanceof AppError && error.code !== 'INTERNAL', String(error));
        }
        if (renamed)
          assert.equal(renamed.config.smtpUrl, '(unreadable: set again)', `a rename dropped the unreadable smtpUrl: ${JSON.stringify(renamed.config)}`);
        // The test send is over when it answers: nothing of it is still on its way.
        const result = await s.channels.test(system, wsId, channel.id);
        assert.ok(
          !smtp.mails.some((m) => m.envelopeTo.includes(to)),
          `the channel's mail went through the service's relay instead (test: ${JSON.stringify(result)})`,
        );
        assert.equal(result.delivered, false);
      } finally {
        await first?.stop();
        await second?.stop();
        await ownRelay.close();
        await dir.remove();
      }
    });
  });

  describe('masks', () => {
    test('a webhook URL keeps only the last two host labels; the subdomain appears in no answer', async () => {
      const monitor = await services.monitors.create(system, ws, 'tcp', { name: 'masked db', uri: 'db.internal:5432', periodicity: '1m' });
      const answers: unknown[] = [];
      const created = await services.channels.create(system, ws, {
        name: 'subdomain hook',
        kind: 'webhook',
        monitorIds: [monitor.id],
        config: { url: 'https://abcsecret.m.example.test/hook', secret: 'mask-signing-secret-0123456789' },
      });
      answers.push(created);
      assert.deepEqual(created.config, { url: 'https://…example.test/…', secret: '••••••••', headers: {} });
      answers.push(await services.channels.get(system, ws, created.id));
      answers.push(await services.channels.list(system, ws));
      answers.push(await services.channels.update(system, ws, created.id, { name: 'subdomain hook renamed' }));
      answers.push(await services.channels.update(system, ws, created.id, echo(created, { name: 'subdomain hook echoed' })));
      for (const answer of answers) assert.ok(!JSON.stringify(answer).includes('abcsecret'), `an answer holds the subdomain: ${JSON.stringify(answer)}`);
      const audit = readRows(svc.dataDir, "select * from audit_log where entity_type = 'notification_channel' and entity_id = ?", created.id);
      assert.ok(audit.length >= 3, `audit entries: ${audit.length}`);
      assert.ok(!JSON.stringify(audit).includes('abcsecret'), 'the audit log holds the subdomain');

      // A page's webhook subscriber is masked the same way.
      const page = await services.pages.create(system, ws, { slug: 'masked-subscriber', title: 'Masked subscriber' });
      const added = await services.subscribers.add(system, ws, page.id, { webhookUrl: 'https://abcsecret.m.example.test/hook' });
      assert.equal(added.subscriber.address, 'https://…example.test/…');
      assert.ok(!JSON.stringify(await services.subscribers.list(system, ws, page.id)).includes('abcsecret'));
    });

    test('an ntfy topic is a credential: masked in answers, kept on an echo, used by a test send', async () => {
      const topic = 'team-topic-XYZ123';
      const created = await services.channels.create(system, ws, { name: 'ntfy', kind: 'ntfy', config: { server: hook.url, topic, token: 'NTFY-TOKEN' } });
      assert.deepEqual(created.config, { server: hook.url, topic: '••••••••', token: '••••••••' });
      const shown = await services.channels.get(system, ws, created.id);
      const listed = await services.channels.list(system, ws);
      const updated = await services.channels.update(system, ws, created.id, echo(shown, { name: 'ntfy renamed' }));
      for (const answer of [created, shown, listed, updated])
        assert.ok(!JSON.stringify(answer).includes(topic), `an answer holds the topic: ${JSON.stringify(answer)}`);
      const rows = readRows<{ settings: string }>(svc.dataDir, 'select settings from notification_channels where id = ?', Number(created.id));
      assert.ok(!rows[0]!.settings.includes(topic), 'the topic is stored in the clear');

      const start = hook.requests.length;
      assert.deepEqual(await services.channels.test(system, ws, created.id), { delivered: true, error: null });
      const [request] = (await hook.waitFor(start + 1)).slice(start);
      assert.equal(JSON.parse(request!.body).topic, topic);
      assert.equal(request!.headers.authorization, 'Bearer NTFY-TOKEN');
    });
  });
});
