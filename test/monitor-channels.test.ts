/**
 * A monitor's channels set from the monitor's side (SetMonitorChannels): the monitor is added to
 * and removed from each channel's links in one change, each channel that changed is audited as an
 * update of that channel, a channel of another workspace is refused naming the field and changes
 * nothing, and the set the monitor already has records nothing. The real service over RPC.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Code, createClient, Periodicity, type StatusdeskClient } from '../client/index.ts';
import { queryRows } from './support/database.ts';
import { assertCode, newWorkspace, useClientCommandService } from './support/harness.ts';

const SECRET = 'a-signing-secret-of-some-length';

describe('SetMonitorChannels', () => {
  const svc = useClientCommandService();
  let api: StatusdeskClient;
  let elsewhere: StatusdeskClient;
  let made = 0;

  before(async () => {
    api = svc.api;
    const other = await newWorkspace(svc.service, 'monitor-channels');
    elsewhere = createClient({ baseUrl: `${svc.service.apiUrl}/rpc`, apiKey: (await svc.service.createKey('write', other.slug)).secret, env: {} });
  });

  async function monitor(client = api) {
    made++;
    const { monitor } = await client.monitors.createTCPMonitor({
      monitor: { name: `wired ${made}`, uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M },
    });
    return monitor!.id;
  }
  async function channel(client = api) {
    made++;
    const { channel } = await client.notifications.createNotificationChannel({
      name: `hook ${made}`,
      config: { case: 'webhook', value: { url: 'http://127.0.0.1:9/hook', secret: SECRET } },
    });
    return channel!.id;
  }
  const monitorsOf = async (id: string) => (await api.notifications.getNotificationChannel({ id })).channel!.monitorIds;
  const updatesOf = (id: string) =>
    queryRows<{ before: string; after: string; changed_fields: string }>(
      svc.service.dataDir,
      "SELECT before, after, changed_fields FROM audit_log WHERE entity_type = 'notification_channel' AND entity_id = ? AND action = 'notification_channel.update' ORDER BY id",
      id,
    );
  const countsOf = (ids: string[]) => Promise.all(ids.map(async (id) => (await updatesOf(id)).length));

  test('adds the monitor to the channels named and removes it from the others, each change audited on its channel', async () => {
    const [m, other] = [await monitor(), await monitor()];
    const [kept, added, dropped, untouched] = [await channel(), await channel(), await channel(), await channel()];
    await api.notifications.updateNotificationChannel({ id: kept, monitorIds: [m, other], updateMask: { paths: ['monitor_ids'] } });
    await api.notifications.updateNotificationChannel({ id: dropped, monitorIds: [m, other], updateMask: { paths: ['monitor_ids'] } });
    const auditedBefore = { kept: (await updatesOf(kept)).length, dropped: (await updatesOf(dropped)).length };

    const { changed } = await api.notifications.setMonitorChannels({ monitorId: m, channelIds: [kept, added] });

    assert.deepEqual(changed.map((c) => c.id).sort(), [added, dropped].sort());
    assert.deepEqual(await monitorsOf(kept), [m, other]);
    assert.deepEqual(await monitorsOf(added), [m]);
    assert.deepEqual(await monitorsOf(dropped), [other], 'the other monitor stays on the channel');
    assert.deepEqual(await monitorsOf(untouched), []);
    // Audited as updates of the channels that changed, with the monitor list before and after.
    assert.equal((await updatesOf(kept)).length, auditedBefore.kept, 'a channel that kept its links records nothing');
    assert.equal((await updatesOf(untouched)).length, 0);
    const [addedEntry] = await updatesOf(added);
    assert.deepEqual(JSON.parse(addedEntry!.before).monitorIds, []);
    assert.deepEqual(JSON.parse(addedEntry!.after).monitorIds, [m]);
    assert.match(addedEntry!.changed_fields, /monitorIds/);
    const droppedEntries = await updatesOf(dropped);
    assert.equal(droppedEntries.length, auditedBefore.dropped + 1);
    assert.deepEqual(JSON.parse(droppedEntries.at(-1)!.after).monitorIds, [other]);
  });

  test('the set the monitor already has changes and records nothing; an empty set unwires it', async () => {
    const m = await monitor();
    const [a, b] = [await channel(), await channel()];
    await api.notifications.setMonitorChannels({ monitorId: m, channelIds: [a, b] });
    const stamps = await countsOf([a, b]);
    const before = await api.notifications.getNotificationChannel({ id: a });

    const again = await api.notifications.setMonitorChannels({ monitorId: m, channelIds: [b, a, a] });
    assert.deepEqual(again.changed, []);
    assert.deepEqual(await countsOf([a, b]), stamps);
    assert.deepEqual((await api.notifications.getNotificationChannel({ id: a })).channel!.updatedAt, before.channel!.updatedAt);

    const cleared = await api.notifications.setMonitorChannels({ monitorId: m, channelIds: [] });
    assert.equal(cleared.changed.length, 2);
    assert.deepEqual(await monitorsOf(a), []);
    assert.deepEqual(await monitorsOf(b), []);
  });

  test("another workspace's channel is refused naming the field, and nothing changes", async () => {
    const m = await monitor();
    const [mine, wired] = [await channel(), await channel()];
    await api.notifications.setMonitorChannels({ monitorId: m, channelIds: [wired] });
    const theirs = await channel(elsewhere);
    const audited = await countsOf([mine, wired]);

    await assertCode(
      api.notifications.setMonitorChannels({ monitorId: m, channelIds: [mine, theirs] }),
      Code.NotFound,
      /^channelIds: notification channel \d+ does not exist in this workspace/,
    );

    assert.deepEqual(await monitorsOf(mine), []);
    assert.deepEqual(await monitorsOf(wired), [m]);
    assert.deepEqual(await countsOf([mine, wired]), audited);
    // Nor can another workspace wire this workspace's monitor to its channels.
    await assertCode(elsewhere.notifications.setMonitorChannels({ monitorId: m, channelIds: [theirs] }), Code.NotFound, /monitor \d+ does not exist/);
    assert.deepEqual((await elsewhere.notifications.getNotificationChannel({ id: theirs })).channel!.monitorIds, []);
  });

  test('needs a write key, as a channel update does', async () => {
    const m = await monitor();
    const c = await channel();
    const reader = createClient({ baseUrl: `${svc.service.apiUrl}/rpc`, apiKey: (await svc.service.createKey('read')).secret, env: {} });
    await assertCode(reader.notifications.setMonitorChannels({ monitorId: m, channelIds: [c] }), Code.PermissionDenied);
    assert.deepEqual(await monitorsOf(c), []);
  });
});
