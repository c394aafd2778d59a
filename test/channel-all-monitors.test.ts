/**
 * A channel for every monitor and a channel that is a default for new ones: the first receives
 * the alerts of every monitor of its workspace, those created after it included; the second is
 * wired to each monitor created after it is set, and leaves the monitors that existed alone. And
 * a test send is the `test` event, in the webhook's body and header and in the delivery log. Real
 * services on a real database, webhook channels posting to a loopback receiver; the RPC and the
 * command carry both choices.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Actor } from '../server/domain/actor.ts';
import type { Monitor } from '../server/domain/monitors/monitors.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { createServices, type Services } from '../server/services.ts';
import { openTestDatabase } from './support/database.ts';
import { jsonOf, tempDir, useClientCommandService } from './support/harness.ts';
import { type HttpReceiver, startHttpReceiver } from './support/receivers.ts';

const system: Actor = { type: 'system', surface: 'cli' };
const SECRET = 'a-signing-secret-of-some-length';

let dir: Awaited<ReturnType<typeof tempDir>>;
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let services: Services;
let workspaceId: number;
let otherWorkspaceId: number;
let receiver: HttpReceiver;

before(async () => {
  dir = await tempDir();
  db = await openTestDatabase(dir.path);
  services = createServices(db, { dashboardUrl: 'http://localhost:5999', alerts: { retryDelaysMs: [5, 5] } });
  const owner: Actor = { type: 'user', userId: await ensureOwner(db), surface: 'cli' };
  workspaceId = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
  otherWorkspaceId = Number((await services.workspaces.create(owner, { name: 'Elsewhere', slug: 'elsewhere' })).id);
  receiver = await startHttpReceiver();
});

after(async () => {
  services.close();
  await receiver.close();
  await db.destroy();
  await dir.remove();
});

let made = 0;
async function monitor(workspace = workspaceId): Promise<Monitor> {
  made++;
  return services.monitors.create(system, workspace, 'tcp', { name: `wired ${made}`, uri: '127.0.0.1:9', periodicity: '10m', regions: ['iad'] });
}

async function webhook(path: string, choices: { allMonitors?: boolean; defaultForNew?: boolean; monitorIds?: string[] } = {}) {
  made++;
  return services.channels.create(system, workspaceId, {
    name: `hook ${made}`,
    kind: 'webhook',
    config: { url: `${receiver.url}/${path}`, secret: SECRET },
    ...choices,
  });
}

async function goDown(m: Monitor, workspace = workspaceId) {
  return services.alerts.stateChanged({
    monitorId: m.id,
    workspaceId: String(workspace),
    from: 'up',
    to: 'down',
    kind: 'down',
    at: new Date().toISOString(),
    message: 'connection refused',
    runner: 'local',
  });
}

const postsTo = (path: string) => receiver.requests.filter((r) => r.path === `/${path}`).map((r) => JSON.parse(r.body));

describe('a channel for every monitor', () => {
  test('receives the alerts of a monitor created after it, without being wired to it; not those of another workspace', async () => {
    const path = `all-${made}`;
    const channel = await webhook(path, { allMonitors: true });
    assert.equal(channel.allMonitors, true);
    assert.deepEqual(channel.monitorIds, []);
    const later = await monitor();
    const alert = await goDown(later);
    // Other tests' channels of this workspace (a default for new monitors) may be told too.
    assert.deepEqual(
      alert?.deliveries.filter((d) => d.channelId === channel.id),
      [{ channelId: channel.id, ok: true, error: null }],
    );
    const [posted, ...more] = postsTo(path);
    assert.equal(more.length, 0);
    assert.equal(posted.monitor.id, later.id);
    assert.equal(posted.event, 'monitor.down');
    // Still not wired: the choice is the channel's, and shows on the monitor's channels.
    assert.deepEqual((await services.channels.get(system, workspaceId, channel.id)).monitorIds, []);
    const shown = await services.channels.ofMonitors(system, workspaceId, [later.id]);
    assert.ok(shown.get(later.id)?.some((c) => c.id === channel.id));
    const elsewhere = await monitor(otherWorkspaceId);
    const foreign = await goDown(elsewhere, otherWorkspaceId);
    assert.deepEqual(
      foreign?.deliveries.filter((d) => d.channelId === channel.id),
      [],
    );
    assert.equal(postsTo(path).length, 1);
  });

  test('a channel wired to a monitor and for every monitor is told once; turned off, it hears only of its own monitors again', async () => {
    const path = `both-${made}`;
    const wired = await monitor();
    const channel = await webhook(path, { allMonitors: true, monitorIds: [wired.id] });
    await goDown(wired);
    assert.equal(postsTo(path).length, 1);
    const updated = await services.channels.update(system, workspaceId, channel.id, { allMonitors: false });
    assert.equal(updated.allMonitors, false);
    await goDown(await monitor());
    assert.equal(postsTo(path).length, 1, 'an unwired monitor is no longer its');
  });
});

describe('a channel that is a default for new monitors', () => {
  test('is wired to monitors created after it is set, and not to those that existed', async () => {
    const existing = await monitor();
    const channel = await webhook(`default-${made}`, { defaultForNew: true });
    assert.equal(channel.defaultForNew, true);
    assert.deepEqual(channel.monitorIds, [], 'existing monitors are not changed');
    const created = await monitor();
    const heartbeat = await services.monitors.createHeartbeat(system, workspaceId, {
      name: `beat ${made}`,
      schedule: '1h',
      periodicity: '1h',
      regions: ['iad'],
    });
    const after = await services.channels.get(system, workspaceId, channel.id);
    assert.deepEqual(
      after.monitorIds,
      [created.id, heartbeat.monitor.id].sort((a, b) => Number(a) - Number(b)),
    );
    assert.ok(!after.monitorIds.includes(existing.id));
    // Unset, new monitors are no longer wired; those wired stay.
    await services.channels.update(system, workspaceId, channel.id, { defaultForNew: false });
    await monitor();
    assert.deepEqual((await services.channels.get(system, workspaceId, channel.id)).monitorIds, after.monitorIds);
  });

  test('a monitor of another workspace is not wired to it', async () => {
    const channel = await webhook(`default-scoped-${made}`, { defaultForNew: true });
    await monitor(otherWorkspaceId);
    assert.deepEqual((await services.channels.get(system, workspaceId, channel.id)).monitorIds, []);
  });

  test('both choices are true or false, named when not', async () => {
    await assert.rejects(webhook('bad', { allMonitors: 'yes' as never }), (error: Error & { violations?: { field: string }[] }) => {
      assert.equal(error.violations?.[0]?.field, 'allMonitors');
      return true;
    });
  });
});

describe('a test send is the `test` event', () => {
  test("the webhook's body and header say `test`, not `monitor.down`, and the log too", async () => {
    const path = `test-${made}`;
    const channel = await webhook(path);
    const sent = await services.channels.test(system, workspaceId, channel.id);
    assert.equal(sent.delivered, true, sent.error ?? '');
    const request = receiver.requests.find((r) => r.path === `/${path}`)!;
    assert.equal(request.headers['x-statusdesk-event'], 'test');
    const body = JSON.parse(request.body);
    assert.equal(body.event, 'test');
    assert.equal(body.test, true);
    const [entry] = (await services.channels.deliveries(system, workspaceId, channel.id)).deliveries;
    assert.equal(entry?.event, 'test');
  });
});

describe('the RPC and the command carry both choices', () => {
  const svc = useClientCommandService();

  test('create and update over RPC; `channels add --all-monitors --default-for-new` and `update --no-all-monitors`; --generate-secret shows a secret once', async () => {
    const { channel } = await svc.api.notifications.createNotificationChannel({
      name: 'rpc every',
      allMonitors: true,
      defaultForNew: true,
      config: { case: 'webhook', value: { url: 'http://127.0.0.1:9/hook', secret: SECRET } },
    });
    assert.deepEqual([channel!.allMonitors, channel!.defaultForNew], [true, true]);
    const { channel: updated } = await svc.api.notifications.updateNotificationChannel({ id: channel!.id, defaultForNew: false });
    assert.deepEqual([updated!.allMonitors, updated!.defaultForNew], [true, false], 'a field left out is unchanged');
    const masked = await svc.api.notifications.updateNotificationChannel({ id: channel!.id, allMonitors: false, updateMask: { paths: ['all_monitors'] } });
    assert.deepEqual([masked.channel!.allMonitors, masked.channel!.defaultForNew], [false, false]);

    const added = await svc.cli([
      'channels',
      'add',
      '--name',
      'cli every',
      '--kind',
      'webhook',
      '--webhook-url',
      'http://127.0.0.1:9/hook',
      '--generate-secret',
      '--all-monitors',
      '--default-for-new',
      '--json',
    ]);
    assert.equal(added.code, 0, added.stderr);
    const shown = jsonOf(added);
    assert.deepEqual([shown.allMonitors, shown.defaultForNew], [true, true]);
    assert.match(shown.generatedSecret, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(shown.secret, '••••••••', 'the service shows it masked');
    const off = await svc.cli(['channels', 'update', shown.id, '--no-all-monitors']);
    assert.equal(off.code, 0, off.stderr);
    assert.match(off.stdout, /all monitors +no\n/);
    assert.match(off.stdout, /default for new +yes: new monitors are wired to it\n/);
    const both = await svc.cli(['channels', 'update', shown.id, '--all-monitors', '--no-all-monitors']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /give one of --all-monitors\/--no-all-monitors, not both/);
  });
});
