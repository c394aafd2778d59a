// The audit log in words: each kind of action as people say it, the record under the name it had
// when the change was made (with its screen while it exists), and the machine names kept as they
// were in the API and MCP.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, HTTPMethod, Periodicity, type StatusdeskClient } from '../client/index.ts';
import { actionWords, ENDING_ACTIONS, nameAtTheTime, recordPath, type WordedEntry } from '../server/domain/audit/audit-words.ts';
import { withLocalOwner } from './support/database.ts';
import { dashboardSession, startTestService, type TestService } from './support/harness.ts';
import { connectMcp, MODERN_ERA } from './support/mcp-client.ts';

/** An entry as stored, with only what the words read. */
const entry = (action: string, before: WordedEntry['before'], after: WordedEntry['after'], changedFields: string[] = []): WordedEntry => ({
  entityType: action.slice(0, action.lastIndexOf('.')),
  entityId: '7',
  action,
  before,
  after,
  changedFields,
});

describe('the words of each kind of action', () => {
  test('every action the services record reads as a sentence after the actor, the record named last', () => {
    const cases: [WordedEntry, string, string][] = [
      [entry('monitor.create', null, { name: 'API' }), 'created the monitor', 'API'],
      [entry('monitor.update', { name: 'API', active: true }, { name: 'API', active: false }, ['active']), 'paused the monitor', 'API'],
      [entry('monitor.update', { name: 'API', active: false }, { name: 'API', active: true }, ['active']), 'resumed the monitor', 'API'],
      [entry('monitor.update', { name: 'API' }, { name: 'API' }, ['periodicity', 'url']), 'changed interval and URL of the monitor', 'API'],
      [
        entry('monitor.update', { name: 'API', active: true }, { name: 'API', active: false }, ['active', 'timeout']),
        'paused and changed timeout of the monitor',
        'API',
      ],
      [entry('monitor.update', { name: 'Old' }, { name: 'New' }, ['name']), 'changed name of the monitor', 'New'],
      [entry('monitor.update', {}, {}, ['a', 'b', 'c', 'd', 'e']), 'changed 5 fields of the monitor', ''],
      [entry('monitor.delete', { name: 'API' }, null), 'deleted the monitor', 'API'],
      [
        entry('email_settings.update', { host: 'a.test', from: 'a@a.test' }, { host: 'mail.test', from: 'b@a.test' }, ['host', 'from']),
        'changed mail server and sender of the email settings',
        'mail.test',
      ],
      [entry('monitor.rotate_ping_token', { name: 'Backup' }, { name: 'Backup' }, ['pingTokenIssuedAt']), 'issued a new ping URL for the monitor', 'Backup'],
      [entry('monitor.tools_pinned', null, { tools: [] }), 'pinned the tools of the monitor', ''],
      [entry('monitor.tools_drifted', { tools: [] }, { tools: [] }), 'found changed tools on the monitor', ''],
      [entry('monitor.tools_reverted', { tools: [] }, { tools: [] }), 'found the pinned tools again on the monitor', ''],
      [entry('monitor.tools_accepted', { tools: [] }, { accepted: true }), 'accepted the changed tools of the monitor', ''],
      [entry('status_page.create', null, { title: 'Acme' }), 'created the status page', 'Acme'],
      [
        entry('status_page.update', { title: 'Acme' }, { title: 'Acme', accentColor: '#0a0' }, ['accentColor']),
        'changed accent colour of the status page',
        'Acme',
      ],
      [entry('status_page.delete', { title: 'Acme' }, null), 'deleted the status page', 'Acme'],
      [entry('page_component.create', null, { name: 'Web', pageId: '1' }), 'added the component', 'Web'],
      [entry('page_component.update', { name: 'Web' }, { name: 'Web' }, ['group', 'position']), 'changed group and position of the component', 'Web'],
      [entry('page_component.delete', { name: 'Web' }, null), 'removed the component', 'Web'],
      [entry('status_report.create', null, { title: 'Outage' }), 'posted the status report', 'Outage'],
      [entry('status_report.add_update', { title: 'Outage' }, { title: 'Outage' }, ['updateCount']), 'posted an update to the status report', 'Outage'],
      [entry('status_report.resolve', { title: 'Outage' }, { title: 'Outage' }, ['resolved', 'status']), 'resolved the status report', 'Outage'],
      [entry('status_report.update', { title: 'Outage' }, { title: 'Outage' }, ['resolvedAt', 'status']), 'changed status of the status report', 'Outage'],
      [entry('status_report.delete', { title: 'Outage' }, null), 'deleted the status report', 'Outage'],
      [entry('maintenance.create', null, { title: 'Upgrade' }), 'scheduled the maintenance', 'Upgrade'],
      [entry('maintenance.update', { title: 'Upgrade' }, { title: 'Upgrade' }, ['from', 'to']), 'changed start and end of the maintenance', 'Upgrade'],
      [entry('maintenance.delete', { title: 'Upgrade' }, null), 'deleted the maintenance', 'Upgrade'],
      [entry('notification_channel.create', null, { name: 'Ops' }), 'created the notification channel', 'Ops'],
      [
        entry('notification_channel.update', { name: 'Ops' }, { name: 'Ops' }, ['config', 'credentialsFingerprint', 'monitorIds']),
        'changed settings, credentials and monitors of the notification channel',
        'Ops',
      ],
      [entry('notification_channel.delete', { name: 'Ops' }, null), 'deleted the notification channel', 'Ops'],
      [entry('page_subscriber.create', null, { address: 'ana@example.test' }), 'added the subscriber', 'ana@example.test'],
      [entry('page_subscriber.delete', { address: 'ana@example.test' }, null), 'removed the subscriber', 'ana@example.test'],
      [entry('api_key.create', null, { name: 'ci' }), 'created the API key', 'ci'],
      [entry('api_key.revoke', { name: 'ci' }, { name: 'ci', revokedAt: 'now' }, ['revokedAt']), 'revoked the API key', 'ci'],
      [entry('oauth_grant.create', null, { clientName: 'Claude Code' }), 'approved the connection of', 'Claude Code'],
      [
        entry('oauth_grant.delete', { clientName: 'Claude Code' }, { clientName: 'Claude Code', reason: 'revoked' }),
        'revoked the connection of',
        'Claude Code',
      ],
      [entry('oauth_grant.delete', { clientName: 'Cursor' }, { clientName: 'Cursor', reason: 'replaced' }), 'replaced the connection of', 'Cursor'],
      [entry('membership.create', null, { name: 'Ana' }), 'added the member', 'Ana'],
      [entry('membership.delete', { name: 'Ana' }, null), 'removed the member', 'Ana'],
      [entry('workspace.create', null, { name: 'Acme' }), 'created the workspace', 'Acme'],
      [entry('private_location.create', null, { name: 'office' }), 'created the private location', 'office'],
      [entry('private_location.update', { name: 'office' }, { name: 'hq' }, ['name']), 'changed name of the private location', 'hq'],
      [
        entry('private_location.rotate_token', { name: 'office' }, { name: 'office' }, ['tokenPrefix']),
        'issued a new token for the private location',
        'office',
      ],
      [entry('private_location.delete', { name: 'office' }, null), 'deleted the private location', 'office'],
      [entry('membership.update', { name: 'Ana', role: 'member' }, { name: 'Ana', role: 'admin' }, ['role']), 'changed role of the member', 'Ana'],
      [entry('invitation.create', null, { role: 'admin', note: 'Ana' }), 'invited someone as', 'admin'],
      [
        entry('invitation.revoke', { role: 'member', state: 'pending' }, { role: 'member', state: 'revoked' }, ['state']),
        'withdrew an invitation as',
        'member',
      ],
      [entry('session.create', null, { method: 'passkey', userAgent: 'Chromium' }), 'signed in with', 'passkey'],
      [entry('session.delete', { id: 'x' }, null), 'ended a dashboard session', ''],
      [entry('passkey.create', null, { name: 'Laptop' }), 'added the passkey', 'Laptop'],
      [entry('passkey.delete', { name: 'Laptop' }, null), 'removed the passkey', 'Laptop'],
    ];
    for (const [given, words, name] of cases) {
      assert.equal(actionWords(given), words, given.action);
      assert.equal(nameAtTheTime(given) ?? '', name, `the name in ${given.action}`);
    }
    assert.ok(
      ENDING_ACTIONS.every((action) => cases.some(([given]) => given.action === action)),
      'every action that ends a record has words',
    );
  });

  test('a record links to its screen until the log holds its end; a page’s records go to their page', () => {
    const none = () => false;
    assert.equal(recordPath(entry('monitor.update', null, null), none), '/monitors/7');
    assert.equal(recordPath(entry('status_page.update', null, null), none), '/pages/7');
    assert.equal(recordPath(entry('page_component.create', null, { pageId: '3' }), none), '/pages/3');
    assert.equal(
      recordPath(entry('page_component.create', null, { pageId: '3' }), (type) => type === 'status_page'),
      null,
      'its page is gone',
    );
    assert.equal(recordPath(entry('oauth_grant.create', null, null), none), '/settings/integrations/connected-apps');
    assert.equal(recordPath(entry('notification_channel.create', null, null), none), '/notifications');
    assert.equal(
      recordPath(entry('monitor.create', null, null), (type, id) => type === 'monitor' && id === '7'),
      null,
    );
    assert.equal(recordPath(entry('workspace.create', null, null), none), null, 'no screen of its own');
  });
});

describe('the dashboard’s audit log in words, from a real service', () => {
  let service: TestService;
  let session: Record<string, string>;
  before(async () => {
    service = await startTestService();
    session = await dashboardSession(service);
  });
  after(() => service.stop());

  async function workspace(slug: string): Promise<{ id: string; client: StatusdeskClient; key: string }> {
    const ws = await withLocalOwner(service.dataDir, (services, owner) => services.workspaces.create(owner, { name: slug, slug, plan: 'scale' }));
    const key = (await service.createKey('write', slug)).secret;
    return { id: ws.id, client: createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: key, env: {} }), key };
  }

  async function entries(workspaceId: string, query = ''): Promise<any[]> {
    const response = await fetch(`${service.dashboardUrl}/api/workspaces/${workspaceId}/audit${query}`, { headers: session });
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { entries: any[] }).entries;
  }

  test('names at the time, links while the record exists, words for pause, resume and changes', async () => {
    const ws = await workspace(`words-${process.pid}`);
    const input = { name: 'API', url: 'https://example.test/health', method: HTTPMethod.HTTP_METHOD_GET, periodicity: Periodicity.PERIODICITY_10M };
    const kept = (await ws.client.monitors.createHTTPMonitor({ monitor: input })).monitor!;
    const gone = (await ws.client.monitors.createHTTPMonitor({ monitor: { ...input, name: 'Old site' } })).monitor!;
    await ws.client.monitors.updateHTTPMonitor({ id: kept.id, monitor: { active: false }, updateMask: { paths: ['active'] } });
    await ws.client.monitors.updateHTTPMonitor({ id: kept.id, monitor: { active: true }, updateMask: { paths: ['active'] } });
    await ws.client.monitors.updateHTTPMonitor({
      id: kept.id,
      monitor: { url: 'https://example.test/v2/health', periodicity: Periodicity.PERIODICITY_5M },
      updateMask: { paths: ['url', 'periodicity'] },
    });
    await ws.client.monitors.updateHTTPMonitor({ id: kept.id, monitor: { name: 'API v2' }, updateMask: { paths: ['name'] } });
    await ws.client.monitors.deleteMonitor({ id: gone.id });

    const shown = (await entries(ws.id, '?entityType=monitor')).map((e) => [e.action, e.words, e.record.name, e.record.path]);
    assert.deepEqual(shown, [
      ['monitor.delete', 'deleted the monitor', 'Old site', null],
      ['monitor.update', 'changed name of the monitor', 'API v2', `/monitors/${kept.id}`],
      ['monitor.update', 'changed interval and URL of the monitor', 'API', `/monitors/${kept.id}`],
      ['monitor.update', 'resumed the monitor', 'API', `/monitors/${kept.id}`],
      ['monitor.update', 'paused the monitor', 'API', `/monitors/${kept.id}`],
      ['monitor.create', 'created the monitor', 'Old site', null],
      ['monitor.create', 'created the monitor', 'API', `/monitors/${kept.id}`],
    ]);

    const page = (await ws.client.pages.createStatusPage({ slug: `words-${process.pid}`, title: 'Acme status' })).statusPage!;
    const component = (await ws.client.pages.addPageComponent({ pageId: page.id, name: 'Website' })).component!;
    assert.ok(component.id);
    const [added] = await entries(ws.id, '?entityType=page_component');
    assert.deepEqual([added.words, added.record], ['added the component', { name: 'Website', path: `/pages/${page.id}` }]);
    await ws.client.pages.deleteStatusPage({ id: page.id });
    const [again] = await entries(ws.id, '?entityType=page_component');
    assert.equal(again.record.path, null, 'its page is gone');
  });

  test('the machine names stay as they were in the API and MCP', async () => {
    const ws = await workspace(`words-api-${process.pid}`);
    const created = (await ws.client.monitors.createTCPMonitor({ monitor: { name: 'DB', uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M } }))
      .monitor!;
    await ws.client.monitors.updateTCPMonitor({ id: created.id, monitor: { active: false }, updateMask: { paths: ['active'] } });
    const [shown] = await entries(ws.id, '?entityType=monitor');
    assert.deepEqual([shown.action, shown.changedFields, shown.entityType, shown.entityId], ['monitor.update', ['active'], 'monitor', created.id]);

    const mcp = await connectMcp(service.apiUrl, MODERN_ERA, ws.key);
    try {
      const result = await mcp.call('list_audit_logs', { entityType: 'monitor', entityId: created.id });
      assert.ok(!result.isError, JSON.stringify(result.content));
      const [listed] = (result.structuredContent as { auditLogs: Record<string, unknown>[] }).auditLogs;
      assert.equal(listed!.action, 'monitor.update');
      assert.deepEqual(listed!.changedFields, ['active']);
      assert.ok(!('words' in listed!) && !('record' in listed!), 'MCP answers as before');
    } finally {
      await mcp.close();
    }
  });
});
