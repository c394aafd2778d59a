// A save whose values equal the stored ones changes nothing and records nothing: no audit entry,
// no new updated time, no new monitor revision. Through the RPC, as the dashboard's forms and the
// clients save; a real change beside each one still writes its row and its entry.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, HTTPMethod, Periodicity, type StatusdeskClient } from '../client/index.ts';
import { queryRows, withLocalOwner } from './support/database.ts';
import { startTestService, type TestService } from './support/harness.ts';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service.stop());

let made = 0;

/** A workspace of its own and a write client of it. */
async function workspaceClient(): Promise<{ client: StatusdeskClient; workspaceId: number }> {
  const slug = `unchanged-${process.pid}-${++made}`;
  const workspace = await withLocalOwner(service.dataDir, (services, owner) => services.workspaces.create(owner, { name: slug, slug, plan: 'scale' }));
  const client = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: (await service.createKey('write', slug)).secret, env: {} });
  return { client, workspaceId: Number(workspace.id) };
}

/** The audit entries of one record, oldest first, as `action field,field`. */
async function entriesOf(workspaceId: number, entityType: string, entityId: string): Promise<string[]> {
  const rows = await queryRows<{ action: string; changed_fields: string }>(
    service.dataDir,
    'select action, changed_fields from audit_log where workspace_id = ? and entity_type = ? and entity_id = ? order by id',
    workspaceId,
    entityType,
    entityId,
  );
  return rows.map((row) => `${row.action} ${(JSON.parse(row.changed_fields) as string[]).join(',')}`);
}

/** The columns an update writes besides the values: when, and (monitors) which revision. */
async function stamp(table: 'monitors' | 'status_pages' | 'page_components' | 'notification_channels', id: string): Promise<string> {
  const revision = table === 'monitors' ? ', revision' : '';
  const [row] = await queryRows<Record<string, unknown>>(service.dataDir, `select updated_at${revision} from ${table} where id = ?`, Number(id));
  assert.ok(row, `${table} ${id} exists`);
  return JSON.stringify(row);
}

describe('an update with the stored values', () => {
  test('a monitor: sent back as it was shown (credential masked, every field named) or with one field the same', async () => {
    const { client, workspaceId } = await workspaceClient();
    const created = (
      await client.monitors.createHTTPMonitor({
        monitor: {
          name: 'API',
          url: 'https://example.test/health',
          method: HTTPMethod.HTTP_METHOD_GET,
          headers: { authorization: 'Bearer kept-secret', accept: 'application/json' },
          periodicity: Periodicity.PERIODICITY_10M,
          tags: ['core'],
        },
      })
    ).monitor!;
    assert.equal(created.headers.authorization, '[redacted]');
    const stamped = await stamp('monitors', created.id);
    const entries = await entriesOf(workspaceId, 'monitor', created.id);

    const same = (await client.monitors.updateHTTPMonitor({ id: created.id, monitor: { name: 'API' } })).monitor!;
    assert.equal(same.name, 'API');
    const asShown = (
      await client.monitors.updateHTTPMonitor({
        id: created.id,
        monitor: { ...created, headers: { ...created.headers } },
        updateMask: { paths: ['name', 'url', 'method', 'headers', 'periodicity', 'tags', 'regions', 'timeout'] },
      })
    ).monitor!;
    assert.deepEqual(asShown.updatedAt, created.updatedAt, 'the answer is the monitor as stored');
    assert.equal(await stamp('monitors', created.id), stamped, 'neither updated_at nor the revision moved');
    assert.deepEqual(await entriesOf(workspaceId, 'monitor', created.id), entries, 'no audit entry');

    await client.monitors.updateHTTPMonitor({ id: created.id, monitor: { name: 'API', active: false }, updateMask: { paths: ['name', 'active'] } });
    assert.notEqual(await stamp('monitors', created.id), stamped);
    assert.deepEqual(await entriesOf(workspaceId, 'monitor', created.id), [...entries, 'monitor.update active']);
  });

  test('a status page and its component', async () => {
    const { client, workspaceId } = await workspaceClient();
    const page = (await client.pages.createStatusPage({ slug: `same-${process.pid}-${made}`, title: 'Acme', description: 'Our services' })).statusPage!;
    const component = (await client.pages.addPageComponent({ pageId: page.id, name: 'Website', group: 'Web' })).component!;
    const [pageStamp, componentStamp] = [await stamp('status_pages', page.id), await stamp('page_components', component.id)];
    const [pageEntries, componentEntries] = [
      await entriesOf(workspaceId, 'status_page', page.id),
      await entriesOf(workspaceId, 'page_component', component.id),
    ];

    const samePage = (await client.pages.updateStatusPage({ id: page.id, slug: page.slug, title: 'Acme', description: 'Our services' })).statusPage!;
    assert.deepEqual(samePage.updatedAt, page.updatedAt);
    await client.pages.updatePageComponent({ id: component.id, name: 'Website', group: 'Web' });
    assert.equal(await stamp('status_pages', page.id), pageStamp);
    assert.equal(await stamp('page_components', component.id), componentStamp);
    assert.deepEqual(await entriesOf(workspaceId, 'status_page', page.id), pageEntries);
    assert.deepEqual(await entriesOf(workspaceId, 'page_component', component.id), componentEntries);

    await client.pages.updateStatusPage({ id: page.id, title: 'Acme Inc.' });
    assert.deepEqual(await entriesOf(workspaceId, 'status_page', page.id), [...pageEntries, 'status_page.update title']);
  });

  test('a notification channel: same name, same monitors, same settings', async () => {
    const { client, workspaceId } = await workspaceClient();
    const monitor = (await client.monitors.createTCPMonitor({ monitor: { name: 'DB', uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M } }))
      .monitor!;
    const { channel } = await client.notifications.createNotificationChannel({
      name: 'Ops',
      monitorIds: [monitor.id],
      config: { case: 'ntfy', value: { topic: 'ops-alerts' } },
    });
    const stamped = await stamp('notification_channels', channel!.id);
    const entries = await entriesOf(workspaceId, 'notification_channel', channel!.id);

    await client.notifications.updateNotificationChannel({
      id: channel!.id,
      name: 'Ops',
      monitorIds: [monitor.id],
      config: { case: 'ntfy', value: { topic: 'ops-alerts' } },
      updateMask: { paths: ['name', 'monitor_ids', 'config'] },
    });
    assert.equal(await stamp('notification_channels', channel!.id), stamped);
    assert.deepEqual(await entriesOf(workspaceId, 'notification_channel', channel!.id), entries);

    await client.notifications.updateNotificationChannel({ id: channel!.id, name: 'Operations' });
    assert.deepEqual(await entriesOf(workspaceId, 'notification_channel', channel!.id), [...entries, 'notification_channel.update name']);
  });
});
