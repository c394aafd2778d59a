/**
 * Status pages, components, status reports, maintenance windows and subscribers through the real
 * domain services of a running service (real SQLite in a temporary data folder), and the public
 * pages on its API port. Deliveries go to real loopback receivers; monitors are checked against real
 * loopback TCP listeners and closed ports. Nothing leaves 127.0.0.1.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { queryRows } from './support/database.ts';
import type { Actor } from '../server/domain/actor.ts';
import { AppError } from '../server/errors.ts';
import type { Services } from '../server/services.ts';
import { closedPort, startTcpListener, type TcpListener } from './support/grpc-peers.ts';
import { formPost, minutesFromNow, rejectsWith, startTestService, type TestService } from './support/harness.ts';
import { type HttpReceiver, linkIn, mailTo, type SmtpReceiver, startHttpReceiver, startSmtpReceiver } from './support/receivers.ts';

const system: Actor = { type: 'system', surface: 'cli' };
const owner: Actor = { type: 'user', userId: 1, surface: 'cli' };

// ---- helpers -----------------------------------------------------------------------------------

/** One HTTP/1.1 request with exactly the headers given, Host included (fetch cannot choose Host). */
function rawGet(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'GET', headers, setHost: false, agent: false, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end();
  });
}

interface Summary {
  status: { state: string };
  components: { id: string; name: string; state: string }[];
  activeReports: { title: string; latestUpdate: { message: string } | null }[];
  maintenances: { active: { title: string }[]; upcoming: { title: string }[] };
}

// ---- the service ---------------------------------------------------------------------------------

let svc: TestService;
let services: Services;
let ws: number;
let otherWs: number;
let reader: Actor;
let writer: Actor;
let otherWriter: Actor;
let smtp: SmtpReceiver;
let hooks: HttpReceiver;

before(async () => {
  smtp = await startSmtpReceiver({ refuseAddresses: ['refused@example.test', 'refused-api@example.test'] });
  hooks = await startHttpReceiver();
  svc = await startTestService({ STATUSDESK_SMTP_URL: smtp.url });
  services = svc.services;
  ws = Number((await services.workspaces.getBySlug(system, 'personal')).id);
  otherWs = Number((await services.workspaces.create(owner, { name: 'Other', slug: 'other-ws', plan: 'scale' })).id);
  const key = async (scope: 'read' | 'write', workspace?: string) => {
    const actor = await services.keys.authenticate((await svc.createKey(scope, workspace)).secret, 'rpc');
    assert.ok(actor, 'the new key authenticates');
    return actor;
  };
  reader = await key('read');
  writer = await key('write');
  otherWriter = await key('write', 'other-ws');
});

after(async () => {
  await svc?.stop();
  await smtp?.close();
  await hooks?.close();
});

async function tcpMonitor(workspaceId: number, uri: string, name = `tcp ${uri}`) {
  return services.monitors.create(system, workspaceId, 'tcp', { name, uri, periodicity: '30s', regions: ['iad', 'fra'], timeout: 1_000, retry: 0 });
}

// ---- pages -------------------------------------------------------------------------------------

describe('status pages', () => {
  test('create, get by id and by slug, list, update, delete', async () => {
    const created = await services.pages.create(writer, ws, { slug: 'crud-page', title: 'Crud', description: 'Our services' });
    assert.match(created.id, /^\d+$/);
    assert.deepEqual([created.workspaceId, created.slug, created.title, created.description], [String(ws), 'crud-page', 'Crud', 'Our services']);
    assert.equal(created.url, `${svc.apiUrl}/status/crud-page`);

    assert.deepEqual(await services.pages.get(reader, ws, created.id), created);
    assert.deepEqual(await services.pages.get(reader, ws, 'crud-page'), created);
    assert.ok((await services.pages.list(reader, ws)).some((p) => p.id === created.id));

    const retitled = await services.pages.update(writer, ws, 'crud-page', { title: 'Crud Inc.' });
    assert.deepEqual([retitled.id, retitled.slug, retitled.title, retitled.description], [created.id, 'crud-page', 'Crud Inc.', 'Our services']);
    const moved = await services.pages.update(writer, ws, created.id, { slug: 'crud-moved', description: '' });
    assert.deepEqual([moved.slug, moved.title, moved.description, moved.url], ['crud-moved', 'Crud Inc.', '', `${svc.apiUrl}/status/crud-moved`]);
    await rejectsWith(services.pages.get(reader, ws, 'crud-page'), 'NOT_FOUND');
    await rejectsWith(services.pages.update(writer, ws, created.id, {}), 'VALIDATION', 'page');

    await services.pages.delete(writer, ws, created.id);
    await rejectsWith(services.pages.get(reader, ws, created.id), 'NOT_FOUND');
    await rejectsWith(services.pages.delete(writer, ws, created.id), 'NOT_FOUND');
    assert.ok(!(await services.pages.list(reader, ws)).some((p) => p.id === created.id));
  });

  test('slug rules: upper case, spaces, digits only, too long and bad ends are VALIDATION naming slug', async () => {
    for (const slug of ['Acme', 'my page', '12345', 'a'.repeat(64), '-acme', 'acme-', 'acme_status', '', 42]) {
      await rejectsWith(services.pages.create(writer, ws, { slug, title: 'x' }), 'VALIDATION', 'slug');
    }
    await rejectsWith(services.pages.create(writer, ws, { title: 'x' }), 'VALIDATION', 'slug');
    // The longest slug, and one with a digit in front, are fine.
    const longest = await services.pages.create(writer, ws, { slug: `a${'b'.repeat(61)}c`, title: 'Long' });
    assert.equal(longest.slug.length, 63);
    const digits = await services.pages.create(writer, ws, { slug: '24x7', title: 'Digits' });
    await rejectsWith(services.pages.update(writer, ws, digits.id, { slug: 'Bad Slug' }), 'VALIDATION', 'slug');
    await rejectsWith(services.pages.create(writer, ws, { slug: 'no-title' }), 'VALIDATION', 'title');
  });

  test('a taken slug is CONFLICT, in any workspace, on create and on update', async () => {
    await services.pages.create(writer, ws, { slug: 'taken', title: 'Taken' });
    const error = await rejectsWith(services.pages.create(writer, ws, { slug: 'taken', title: 'Again' }), 'CONFLICT', 'slug');
    assert.match(error.message, /already used/);
    await rejectsWith(services.pages.create(otherWriter, otherWs, { slug: 'taken', title: 'Mine' }), 'CONFLICT', 'slug');
    const second = await services.pages.create(writer, ws, { slug: 'not-taken', title: 'Second' });
    await rejectsWith(services.pages.update(writer, ws, second.id, { slug: 'taken' }), 'CONFLICT', 'slug');
    assert.equal((await services.pages.get(reader, ws, second.id)).slug, 'not-taken');
  });

  test('a page of another workspace is NOT_FOUND, by id and by slug, for reads and writes', async () => {
    const theirs = await services.pages.create(otherWriter, otherWs, { slug: 'theirs', title: 'Theirs' });
    for (const ref of [theirs.id, 'theirs']) {
      await rejectsWith(services.pages.get(writer, ws, ref), 'NOT_FOUND');
      await rejectsWith(services.pages.get(system, ws, ref), 'NOT_FOUND');
      await rejectsWith(services.pages.update(writer, ws, ref, { title: 'Mine now' }), 'NOT_FOUND');
      await rejectsWith(services.pages.delete(writer, ws, ref), 'NOT_FOUND');
      await rejectsWith(services.pages.addComponent(writer, ws, ref, { name: 'Sneaky' }), 'NOT_FOUND');
    }
    // A key of this workspace cannot name the other workspace at all.
    await rejectsWith(services.pages.get(writer, otherWs, theirs.id), 'NOT_FOUND');
    assert.equal((await services.pages.get(otherWriter, otherWs, 'theirs')).title, 'Theirs');
  });

  test('a read key reads but every mutation is FORBIDDEN', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'read-only', title: 'Read only' });
    const component = await services.pages.addComponent(writer, ws, page.id, { name: 'API' });
    assert.equal((await services.pages.get(reader, ws, page.id)).id, page.id);
    assert.equal((await services.pages.listComponents(reader, ws, page.id)).length, 1);
    await rejectsWith(services.pages.create(reader, ws, { slug: 'by-reader', title: 'x' }), 'FORBIDDEN');
    await rejectsWith(services.pages.update(reader, ws, page.id, { title: 'x' }), 'FORBIDDEN');
    await rejectsWith(services.pages.delete(reader, ws, page.id), 'FORBIDDEN');
    await rejectsWith(services.pages.addComponent(reader, ws, page.id, { name: 'x' }), 'FORBIDDEN');
    await rejectsWith(services.pages.updateComponent(reader, ws, component.id, { name: 'x' }), 'FORBIDDEN');
    await rejectsWith(services.pages.removeComponent(reader, ws, component.id), 'FORBIDDEN');
    await rejectsWith(services.reports.create(reader, ws, { pageId: page.id, title: 'x', message: 'x', notify: false }), 'FORBIDDEN');
    await rejectsWith(
      services.maintenances.create(reader, ws, { pageId: page.id, title: 'x', from: minutesFromNow(10), to: minutesFromNow(20), notify: false }),
      'FORBIDDEN',
    );
    assert.equal((await services.pages.get(reader, ws, page.id)).title, 'Read only');
  });

  test('every page mutation writes one audit entry naming the key', async () => {
    const writerKey = (writer as Extract<Actor, { type: 'apiKey' }>).keyId;
    const page = await services.pages.create(writer, ws, { slug: 'audited', title: 'Audited' });
    await services.pages.update(writer, ws, page.id, { title: 'Audited again' });
    // An update that changes nothing writes nothing.
    await services.pages.update(writer, ws, page.id, { title: 'Audited again' });
    const component = await services.pages.addComponent(writer, ws, page.id, { name: 'API' });
    await services.pages.delete(writer, ws, page.id);

    type Row = {
      action: string;
      actor_type: string;
      actor_id: string;
      before: string | null;
      after: string | null;
      changed_fields: string;
      workspace_id: number;
    };
    const rows = await queryRows<Row>(svc.dataDir, "select * from audit_log where entity_type = 'status_page' and entity_id = ? order by id", page.id);
    assert.deepEqual(
      rows.map((r) => r.action),
      ['status_page.create', 'status_page.update', 'status_page.delete'],
    );
    for (const row of rows) assert.deepEqual([row.actor_type, row.actor_id, row.workspace_id], ['apiKey', writerKey, ws]);
    assert.equal(rows[0]!.before, null);
    assert.equal(JSON.parse(rows[0]!.after!).slug, 'audited');
    assert.deepEqual(JSON.parse(rows[1]!.changed_fields), ['title']);
    assert.equal(JSON.parse(rows[1]!.before!).title, 'Audited');
    assert.equal(JSON.parse(rows[1]!.after!).title, 'Audited again');
    assert.equal(rows[2]!.after, null);
    const componentRows = await queryRows<Row>(svc.dataDir, "select * from audit_log where entity_type = 'page_component' and entity_id = ?", component.id);
    assert.deepEqual(
      componentRows.map((r) => r.action),
      ['page_component.create'],
    );
  });
});

// ---- components ----------------------------------------------------------------------------------

describe('page components', () => {
  test("a monitor component takes a monitor of the workspace; another workspace's monitor is NOT_FOUND naming monitorId", async () => {
    const page = await services.pages.create(writer, ws, { slug: 'with-monitor', title: 'With monitor' });
    const monitor = await tcpMonitor(ws, 'db.internal:5432');
    const api = await services.pages.addComponent(writer, ws, page.id, { name: 'API', description: 'Public API', monitorId: monitor.id });
    assert.deepEqual(
      [api.pageId, api.name, api.description, api.type, api.monitorId, api.group, api.position],
      [page.id, 'API', 'Public API', 'monitor', monitor.id, null, 0],
    );
    const static_ = await services.pages.addComponent(writer, ws, 'with-monitor', { name: 'Help desk' });
    assert.deepEqual([static_.type, static_.monitorId, static_.position], ['static', null, 1]);

    const foreign = await tcpMonitor(otherWs, 'theirs.internal:1');
    await rejectsWith(services.pages.addComponent(writer, ws, page.id, { name: 'Theirs', monitorId: foreign.id }), 'NOT_FOUND', 'monitorId');
    await rejectsWith(services.pages.updateComponent(writer, ws, static_.id, { monitorId: foreign.id }), 'NOT_FOUND', 'monitorId');
    await rejectsWith(services.pages.addComponent(writer, ws, page.id, { name: 'Nothing', monitorId: '999999' }), 'NOT_FOUND', 'monitorId');
    await rejectsWith(services.pages.addComponent(writer, ws, page.id, { name: 'Bad', monitorId: 'abc' }), 'VALIDATION', 'monitorId');
    // A component of another workspace's page is not found either.
    const theirPage = await services.pages.create(otherWriter, otherWs, { slug: 'their-components', title: 'Theirs' });
    const theirComponent = await services.pages.addComponent(otherWriter, otherWs, theirPage.id, { name: 'Theirs' });
    await rejectsWith(services.pages.updateComponent(writer, ws, theirComponent.id, { name: 'Mine' }), 'NOT_FOUND');
    await rejectsWith(services.pages.removeComponent(writer, ws, theirComponent.id), 'NOT_FOUND');
    assert.equal((await services.pages.listComponents(reader, ws, page.id)).length, 2);
  });

  test('components are listed by position, then by when they were added', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'ordering', title: 'Ordering' });
    const a = await services.pages.addComponent(writer, ws, page.id, { name: 'A' });
    const b = await services.pages.addComponent(writer, ws, page.id, { name: 'B' });
    const c = await services.pages.addComponent(writer, ws, page.id, { name: 'C' });
    assert.deepEqual([a.position, b.position, c.position], [0, 1, 2]);
    const first = await services.pages.addComponent(writer, ws, page.id, { name: 'First', position: 0 });
    const names = async () => (await services.pages.listComponents(reader, ws, page.id)).map((x) => x.name);
    // Equal positions keep the order in which they were added.
    assert.deepEqual(await names(), ['A', 'First', 'B', 'C']);
    await services.pages.updateComponent(writer, ws, a.id, { position: 10 });
    assert.deepEqual(await names(), ['First', 'B', 'C', 'A']);
    // A new component goes after the last one.
    const last = await services.pages.addComponent(writer, ws, page.id, { name: 'Last' });
    assert.equal(last.position, 11);
    await rejectsWith(services.pages.addComponent(writer, ws, page.id, { name: 'Neg', position: -1 }), 'VALIDATION', 'position');
    await services.pages.removeComponent(writer, ws, first.id);
    assert.deepEqual(await names(), ['B', 'C', 'A', 'Last']);
    await rejectsWith(services.pages.removeComponent(writer, ws, first.id), 'NOT_FOUND');
  });

  test('unlinking makes a component static; a group is set and cleared', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'relink', title: 'Relink' });
    const monitor = await tcpMonitor(ws, 'relink.internal:80');
    const api = await services.pages.addComponent(writer, ws, page.id, { name: 'API', monitorId: monitor.id, group: 'Backend' });
    assert.deepEqual([api.type, api.group], ['monitor', 'Backend']);
    const unlinked = await services.pages.updateComponent(writer, ws, api.id, { monitorId: null });
    assert.deepEqual([unlinked.type, unlinked.monitorId, unlinked.group, unlinked.name], ['static', null, 'Backend', 'API']);
    const relinked = await services.pages.updateComponent(writer, ws, api.id, { monitorId: Number(monitor.id), group: null });
    assert.deepEqual([relinked.type, relinked.monitorId, relinked.group], ['monitor', monitor.id, null]);
    await rejectsWith(services.pages.updateComponent(writer, ws, api.id, { group: '  ' }), 'VALIDATION', 'group');
    await rejectsWith(services.pages.updateComponent(writer, ws, api.id, {}), 'VALIDATION', 'component');
  });

  test('deleting the monitor leaves its component on the page, unlinked (static)', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'orphaned', title: 'Orphaned' });
    const monitor = await tcpMonitor(ws, 'orphan.internal:80');
    const api = await services.pages.addComponent(writer, ws, page.id, { name: 'API', monitorId: monitor.id });
    await services.monitors.delete(writer, ws, monitor.id);
    const [after] = await services.pages.listComponents(reader, ws, page.id);
    assert.ok(after, 'the component stays on the page');
    assert.equal(after.id, api.id);
    assert.equal(after.monitorId, null);
    // Unlinked by the database (ON DELETE SET NULL): a component without a monitor is static.
    assert.equal(after.type, 'static', 'a component whose monitor was deleted still says type "monitor"');
  });
});

// ---- reports -------------------------------------------------------------------------------------

describe('status reports', () => {
  let pageId: string;
  let api: string;
  let web: string;
  let hookSecret: string;

  before(async () => {
    pageId = (await services.pages.create(writer, ws, { slug: 'incidents', title: 'Incidents' })).id;
    api = (await services.pages.addComponent(writer, ws, pageId, { name: 'API' })).id;
    web = (await services.pages.addComponent(writer, ws, pageId, { name: 'Website' })).id;
    // One subscriber of each kind, both active, so "nothing was sent" means something.
    const hook = await services.subscribers.add(writer, ws, pageId, { webhookUrl: `${hooks.url}/incidents` });
    hookSecret = hook.secret!;
    const mailsBefore = smtp.mails.length;
    await services.subscribers.add(writer, ws, pageId, { email: 'watcher@example.test' });
    const confirmation = (await smtp.waitFor(mailsBefore + 1))[mailsBefore]!;
    const confirmed = await fetch(linkIn(confirmation, 'confirm'), { method: 'POST' });
    assert.equal(confirmed.status, 200);
    assert.deepEqual(
      (await services.subscribers.list(reader, ws, pageId)).map((s) => s.status),
      ['active', 'active'],
    );
  });

  test('create appends the first update; addUpdate appends and sets the status; resolve appends the last', async () => {
    const mailsBefore = smtp.mails.length;
    const hooksBefore = hooks.requests.length;
    const created = await services.reports.create(writer, ws, {
      pageId,
      title: 'Elevated errors',
      message: 'Looking into it.',
      pageComponentIds: [api],
      notify: true,
    });
    assert.equal(created.notified, true);
    const report = created.report;
    assert.deepEqual(
      [report.pageId, report.title, report.status, report.resolved, report.resolvedAt, report.pageComponentIds],
      [pageId, 'Elevated errors', 'investigating', false, null, [api]],
    );
    assert.deepEqual(
      report.updates.map((u) => [u.status, u.message]),
      [['investigating', 'Looking into it.']],
    );
    assert.equal(smtp.mails.length, mailsBefore + 1);
    assert.equal(hooks.requests.length, hooksBefore + 1);

    const updated = await services.reports.addUpdate(writer, ws, report.id, { status: 'identified', message: 'Found it.', notify: true });
    assert.equal(updated.notified, true);
    assert.equal(updated.report.status, 'identified');
    assert.deepEqual(
      updated.report.updates.map((u) => [u.status, u.message]),
      [
        ['identified', 'Found it.'],
        ['investigating', 'Looking into it.'],
      ],
    );

    const resolved = await services.reports.resolve(writer, ws, report.id, { message: 'All good.', notify: false });
    assert.equal(resolved.notified, false);
    assert.deepEqual([resolved.report.status, resolved.report.resolved], ['resolved', true]);
    assert.ok(resolved.report.resolvedAt);
    assert.deepEqual(
      resolved.report.updates.map((u) => u.status),
      ['resolved', 'identified', 'investigating'],
    );
    assert.deepEqual(await services.reports.get(reader, ws, report.id), resolved.report);
    // Two notified updates reached both subscribers; the resolution (notify false) reached none.
    assert.equal(smtp.mails.length, mailsBefore + 2);
    assert.equal(hooks.requests.length, hooksBefore + 2);
    assert.deepEqual(
      hooks.requests.slice(hooksBefore).map((r) => JSON.parse(r.body).event),
      ['status_report.created', 'status_report.updated'],
    );
    assert.ok(hookSecret.startsWith('whsec_'));

    const actions = await queryRows<{ action: string }>(
      svc.dataDir,
      "select action from audit_log where entity_type = 'status_report' and entity_id = ? order by id",
      report.id,
    );
    assert.deepEqual(
      actions.map((a) => a.action),
      ['status_report.create', 'status_report.add_update', 'status_report.resolve'],
    );
  });

  test('update changes title, status and components, appends no update and sends nothing', async () => {
    const { report } = await services.reports.create(writer, ws, {
      pageId,
      title: 'Slow pages',
      message: 'Pages are slow.',
      pageComponentIds: [web],
      notify: false,
    });
    const mailsBefore = smtp.mails.length;
    const hooksBefore = hooks.requests.length;
    const changed = await services.reports.update(writer, ws, report.id, { title: 'Slow website', status: 'monitoring', pageComponentIds: [api, web] });
    assert.deepEqual(
      [changed.title, changed.status, changed.resolved, changed.pageComponentIds],
      ['Slow website', 'monitoring', false, [api, web].sort((a, b) => Number(a) - Number(b))],
    );
    assert.equal(changed.updates.length, 1);
    assert.deepEqual(changed.updates, report.updates);
    const closed = await services.reports.update(writer, ws, report.id, { status: 'resolved' });
    assert.deepEqual([closed.resolved, closed.updates.length], [true, 1]);
    assert.ok(closed.resolvedAt);
    // The edit returned: had it sent anything, that would have arrived by now.
    assert.equal(smtp.mails.length, mailsBefore, 'an edit sent mail');
    assert.equal(hooks.requests.length, hooksBefore, 'an edit called a webhook');
    await rejectsWith(services.reports.update(writer, ws, report.id, {}), 'VALIDATION', 'report');
    await rejectsWith(services.reports.update(writer, ws, report.id, { message: 'not a field here' }), 'VALIDATION');
  });

  test('components of another page are NOT_FOUND naming pageComponentIds', async () => {
    const elsewhere = await services.pages.create(writer, ws, { slug: 'elsewhere', title: 'Elsewhere' });
    const foreign = await services.pages.addComponent(writer, ws, elsewhere.id, { name: 'Foreign' });
    await rejectsWith(
      services.reports.create(writer, ws, { pageId, title: 'x', message: 'x', pageComponentIds: [api, foreign.id], notify: false }),
      'NOT_FOUND',
      'pageComponentIds',
    );
    const { report } = await services.reports.create(writer, ws, { pageId, title: 'Mixed', message: 'x', pageComponentIds: [api], notify: false });
    await rejectsWith(services.reports.update(writer, ws, report.id, { pageComponentIds: [foreign.id] }), 'NOT_FOUND', 'pageComponentIds');
    assert.deepEqual((await services.reports.get(reader, ws, report.id)).pageComponentIds, [api]);
    await rejectsWith(services.reports.create(writer, ws, { pageId: 'their-components', title: 'x', message: 'x', notify: false }), 'NOT_FOUND');
  });

  test('notify is required, with no default, on create, addUpdate and resolve', async () => {
    await rejectsWith(services.reports.create(writer, ws, { pageId, title: 'x', message: 'x' }), 'VALIDATION', 'notify');
    await rejectsWith(services.reports.create(writer, ws, { pageId, title: 'x', message: 'x', notify: 'yes' }), 'VALIDATION', 'notify');
    const { report } = await services.reports.create(writer, ws, { pageId, title: 'Needs notify', message: 'x', notify: false });
    await rejectsWith(services.reports.addUpdate(writer, ws, report.id, { status: 'identified', message: 'x' }), 'VALIDATION', 'notify');
    await rejectsWith(services.reports.resolve(writer, ws, report.id, { message: 'x' }), 'VALIDATION', 'notify');
    await rejectsWith(services.reports.create(writer, ws, { pageId, title: 'x', message: '  ', notify: false }), 'VALIDATION', 'message');
    await rejectsWith(services.reports.create(writer, ws, { pageId, title: 'x', message: 'x', status: 'fixed', notify: false }), 'VALIDATION', 'status');
    assert.equal((await services.reports.get(reader, ws, report.id)).updates.length, 1);
  });

  test('list: newest first, active leaves out resolved, all includes them, paginated', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'listing', title: 'Listing' });
    const ids: string[] = [];
    for (const title of ['One', 'Two', 'Three']) {
      ids.push((await services.reports.create(writer, ws, { pageId: page.id, title, message: title, notify: false })).report.id);
    }
    await services.reports.resolve(writer, ws, ids[1]!, { message: 'done', notify: false });

    const active = await services.reports.list(reader, ws, { pageId: page.id });
    assert.deepEqual(
      active.reports.map((r) => r.title),
      ['Three', 'One'],
    );
    assert.deepEqual(active.pagination, { page: 1, perPage: 50, totalSize: 2, totalPages: 1 });
    const all = await services.reports.list(reader, ws, { pageId: 'listing', filter: 'all' });
    assert.deepEqual(
      all.reports.map((r) => r.title),
      ['Three', 'Two', 'One'],
    );
    assert.equal(all.pagination.totalSize, 3);
    const second = await services.reports.list(reader, ws, { pageId: page.id, filter: 'all', perPage: 2, page: 2 });
    assert.deepEqual(
      second.reports.map((r) => r.title),
      ['One'],
    );
    assert.deepEqual(second.pagination, { page: 2, perPage: 2, totalSize: 3, totalPages: 2 });
    // Every report of the workspace, without a page filter.
    const everything = await services.reports.list(reader, ws, { filter: 'all', perPage: 200 });
    assert.ok(everything.pagination.totalSize >= 3);
    assert.deepEqual(
      everything.reports.map((r) => Number(r.id)),
      everything.reports.map((r) => Number(r.id)).sort((a, b) => b - a),
    );

    await rejectsWith(services.reports.list(reader, ws, { perPage: 201 }), 'VALIDATION', 'perPage');
    await rejectsWith(services.reports.list(reader, ws, { perPage: 0 }), 'VALIDATION', 'perPage');
    await rejectsWith(services.reports.list(reader, ws, { page: 0 }), 'VALIDATION', 'page');
    await rejectsWith(services.reports.list(reader, ws, { filter: 'resolved' }), 'VALIDATION', 'filter');
    // Another workspace sees none of them.
    assert.equal((await services.reports.list(otherWriter, otherWs, { filter: 'all' })).pagination.totalSize, 0);
    await rejectsWith(services.reports.get(otherWriter, otherWs, ids[0]!), 'NOT_FOUND');
  });
});

// ---- maintenance ---------------------------------------------------------------------------------

describe('maintenance windows', () => {
  let pageId: string;

  before(async () => {
    pageId = (await services.pages.create(writer, ws, { slug: 'windows', title: 'Windows' })).id;
  });

  const window = (from: unknown, to: unknown) => ({ pageId, title: 'Upgrade', from, to, notify: false });

  test('from and to must be instants with a zone, to after from; each error names its field', async () => {
    const cases: [unknown, unknown, string][] = [
      ['2030-01-01T10:00:00', '2030-01-01T12:00:00Z', 'from'],
      ['2030-01-01T10:00:00Z', '2030-01-01T12:00:00', 'to'],
      ['next tuesday', '2030-01-01T12:00:00Z', 'from'],
      ['2030-01-01T10:00:00Z', 'garbage', 'to'],
      ['2030-01-01', '2030-01-02T00:00:00Z', 'from'],
      [1893492000000, '2030-01-02T00:00:00Z', 'from'],
      ['2030-01-01T10:00:00Z', '2030-01-01T09:00:00Z', 'to'],
      ['2030-01-01T10:00:00Z', '2030-01-01T10:00:00Z', 'to'],
      // The same instant written in two zones: still not after.
      ['2030-01-01T10:00:00Z', '2030-01-01T11:00:00+01:00', 'to'],
    ];
    for (const [from, to, field] of cases) {
      await rejectsWith(services.maintenances.create(writer, ws, window(from, to)), 'VALIDATION', field);
    }
    await rejectsWith(
      services.maintenances.create(writer, ws, { pageId, title: 'x', from: '2030-01-01T10:00:00Z', to: '2030-01-01T12:00:00Z' }),
      'VALIDATION',
      'notify',
    );
    assert.equal((await services.maintenances.list(reader, ws, { pageId })).pagination.totalSize, 0);

    // A zone other than Z is kept as the same instant, stored in UTC.
    const { maintenance } = await services.maintenances.create(writer, ws, window('2030-01-01T10:00:00+02:00', '2030-01-01T12:00:00+02:00'));
    assert.deepEqual([maintenance.from, maintenance.to], ['2030-01-01T08:00:00.000Z', '2030-01-01T10:00:00.000Z']);
    await rejectsWith(services.maintenances.update(writer, ws, maintenance.id, { to: '2030-01-01T07:00:00Z' }), 'VALIDATION', 'to');
    await rejectsWith(services.maintenances.update(writer, ws, maintenance.id, { from: '2030-01-01T11:00:00Z' }), 'VALIDATION', 'to');
    await rejectsWith(services.maintenances.update(writer, ws, maintenance.id, { from: 'soon' }), 'VALIDATION', 'from');
    assert.equal((await services.maintenances.get(reader, ws, maintenance.id)).to, '2030-01-01T10:00:00.000Z');
    await services.maintenances.delete(writer, ws, maintenance.id);
  });

  test('a date that does not exist (30 February) is VALIDATION, not silently moved to March', async () => {
    await rejectsWith(services.maintenances.create(writer, ws, window('2030-02-30T22:00:00Z', '2030-03-05T00:00:00Z')), 'VALIDATION', 'from');
  });

  test('status is scheduled, active or completed by the clock; list is newest first and paginated', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'window-status', title: 'Window status' });
    const make = async (title: string, from: string, to: string) =>
      (await services.maintenances.create(writer, ws, { pageId: page.id, title, from, to, notify: false })).maintenance;
    const completed = await make('Completed', minutesFromNow(-120), minutesFromNow(-60));
    const active = await make('Active', minutesFromNow(-10), minutesFromNow(50));
    const scheduled = await make('Scheduled', minutesFromNow(60), minutesFromNow(120));
    assert.deepEqual([completed.status, active.status, scheduled.status], ['completed', 'active', 'scheduled']);
    assert.equal((await services.maintenances.get(reader, ws, active.id)).status, 'active');

    const listed = await services.maintenances.list(reader, ws, { pageId: page.id });
    assert.deepEqual(
      listed.maintenances.map((m) => m.title),
      ['Scheduled', 'Active', 'Completed'],
    );
    assert.deepEqual(listed.pagination, { page: 1, perPage: 50, totalSize: 3, totalPages: 1 });
    const second = await services.maintenances.list(reader, ws, { pageId: 'window-status', perPage: 2, page: 2 });
    assert.deepEqual(
      second.maintenances.map((m) => m.title),
      ['Completed'],
    );
    assert.deepEqual(second.pagination, { page: 2, perPage: 2, totalSize: 3, totalPages: 2 });
    await rejectsWith(services.maintenances.list(reader, ws, { perPage: 201 }), 'VALIDATION', 'perPage');
    await rejectsWith(services.maintenances.get(otherWriter, otherWs, active.id), 'NOT_FOUND');

    // Moving the window into the past completes it.
    const moved = await services.maintenances.update(writer, ws, active.id, { to: minutesFromNow(-1) });
    assert.equal(moved.status, 'completed');
  });

  test('an instant past 9999-12-31T23:59:59.999Z is refused; offsets are compared as moments', async () => {
    const page = await services.pages.create(system, ws, { slug: 'far-future', title: 'Far future' });
    // 10000-01-01T04:00Z in UTC: its ISO form (+010000-...) sorts before every four-digit year.
    await rejectsWith(
      services.maintenances.create(system, ws, {
        pageId: page.id,
        title: 'Y10K',
        from: '9999-12-31T23:00:00-05:00',
        to: '9999-12-31T23:30:00Z',
        notify: false,
      }),
      'VALIDATION',
      'from',
    );
    await rejectsWith(
      services.maintenances.create(system, ws, {
        pageId: page.id,
        title: 'Y10K',
        from: '2026-11-21T10:00:00Z',
        to: '9999-12-31T23:00:00-05:00',
        notify: false,
      }),
      'VALIDATION',
      'to',
    );
    // The last instant itself is fine.
    const last = await services.maintenances.create(system, ws, {
      pageId: page.id,
      title: 'Last',
      from: '9999-12-31T23:00:00Z',
      to: '9999-12-31T23:59:59.999Z',
      notify: false,
    });
    assert.equal(last.maintenance.to, '9999-12-31T23:59:59.999Z');
    await rejectsWith(services.maintenances.update(system, ws, last.maintenance.id, { to: '9999-12-31T23:00:00-05:00' }), 'VALIDATION', 'to');

    // 08:00Z to 09:30Z, though "10:00" > "09:30" as text.
    const { maintenance } = await services.maintenances.create(system, ws, {
      pageId: page.id,
      title: 'Offsets',
      from: '2026-11-21T10:00:00+02:00',
      to: '2026-11-21T09:30:00Z',
      notify: false,
    });
    assert.deepEqual([maintenance.from, maintenance.to], ['2026-11-21T08:00:00.000Z', '2026-11-21T09:30:00.000Z']);
    // And the other way round: 10:00Z to 09:30-01:00 (10:30Z) is a window; 10:00Z to 10:30+02:00 (08:30Z) is not.
    const updated = await services.maintenances.update(system, ws, maintenance.id, { from: '2026-11-21T10:00:00Z', to: '2026-11-21T09:30:00-01:00' });
    assert.deepEqual([updated.from, updated.to], ['2026-11-21T10:00:00.000Z', '2026-11-21T10:30:00.000Z']);
    await rejectsWith(services.maintenances.update(system, ws, maintenance.id, { to: '2026-11-21T10:30:00+02:00' }), 'VALIDATION', 'to');

    // A window stored before years past 9999 were refused starts at +010000-...: the order is
    // still checked by moment, not by text ("9999-..." sorts after "+010000-...").
    const now = new Date().toISOString();
    const [{ id: legacyId }] = (await queryRows<{ id: number }>(
      svc.dataDir,
      'insert into maintenances (workspace_id, page_id, title, message, starts_at, ends_at, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?) returning id',
      ws,
      Number(page.id),
      'Legacy',
      '',
      '+010000-01-01T04:00:00.000Z',
      '+010000-01-01T05:00:00.000Z',
      now,
      now,
    )) as [{ id: number }];
    await rejectsWith(services.maintenances.update(system, ws, String(legacyId), { to: '9999-12-31T23:30:00Z' }), 'VALIDATION', 'to');
  });
});

// ---- public pages ----------------------------------------------------------------------------------

describe('public status pages', () => {
  test('/status/{slug} shows components, reports with their updates, and maintenance; an unknown slug is a 404 page', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'public-acme', title: 'Acme Public', description: 'How Acme runs' });
    const api = await services.pages.addComponent(writer, ws, page.id, { name: 'Public API' });
    await services.pages.addComponent(writer, ws, page.id, { name: 'Docs <site>', group: 'Web' });
    const { report } = await services.reports.create(writer, ws, {
      pageId: page.id,
      title: 'Login failures',
      message: 'Some logins fail.',
      pageComponentIds: [api.id],
      notify: false,
    });
    await services.reports.addUpdate(writer, ws, report.id, { status: 'identified', message: 'A bad deploy.', notify: false });
    await services.maintenances.create(writer, ws, {
      pageId: page.id,
      title: 'Database upgrade',
      message: 'Read-only for an hour.',
      from: minutesFromNow(60),
      to: minutesFromNow(120),
      notify: false,
    });

    const response = await svc.api('/status/public-acme');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    const body = await response.text();
    for (const text of [
      'Acme Public',
      'How Acme runs',
      'Public API',
      'Docs &lt;site&gt;',
      'Login failures',
      'Some logins fail.',
      'A bad deploy.',
      'Database upgrade',
      'Read-only for an hour.',
    ]) {
      assert.ok(body.includes(text), `the page does not show ${text}`);
    }
    assert.ok(!body.includes('Docs <site>'), 'a component name is not escaped');

    const missing = await svc.api('/status/no-such-page');
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await missing.text(), /Not found/);

    const feed = await svc.api('/status/public-acme/feed.atom');
    assert.equal(feed.status, 200);
    assert.match(feed.headers.get('content-type') ?? '', /^application\/atom\+xml/);
    const atom = await feed.text();
    assert.ok(atom.includes('Login failures') && atom.includes('A bad deploy.') && atom.includes('Database upgrade'));

    const summaryResponse = await svc.api('/status/public-acme/summary.json');
    assert.equal(summaryResponse.status, 200);
    const summary = (await summaryResponse.json()) as Summary;
    assert.deepEqual(
      summary.components.map((c) => [c.name, c.state]),
      [
        ['Public API', 'degraded'],
        ['Docs <site>', 'operational'],
      ],
    );
    assert.equal(summary.status.state, 'degraded');
    assert.deepEqual(
      summary.activeReports.map((r) => [r.title, r.latestUpdate?.message]),
      [['Login failures', 'A bad deploy.']],
    );
    assert.deepEqual(
      summary.maintenances.upcoming.map((m) => m.title),
      ['Database upgrade'],
    );
    assert.equal((await svc.api('/status/no-such-page/summary.json')).status, 404);
    assert.equal((await svc.api('/status/no-such-page/feed.atom')).status, 404);
  });

  test('changes through the services show at once: no stale page after an edit', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'fresh', title: 'Fresh' });
    const summary = async () => (await (await svc.api('/status/fresh/summary.json')).json()) as Summary;
    assert.deepEqual((await summary()).components, []);
    const component = await services.pages.addComponent(writer, ws, page.id, { name: 'Queue' });
    assert.deepEqual(
      (await summary()).components.map((c) => c.name),
      ['Queue'],
    );
    const { report } = await services.reports.create(writer, ws, {
      pageId: page.id,
      title: 'Queue stuck',
      message: 'x',
      pageComponentIds: [component.id],
      notify: false,
    });
    assert.equal((await summary()).components[0]!.state, 'degraded');
    await services.reports.resolve(writer, ws, report.id, { message: 'fixed', notify: false });
    assert.equal((await summary()).components[0]!.state, 'operational');
    await services.pages.update(writer, ws, page.id, { slug: 'fresh-moved' });
    // The old address no longer serves the page: it forwards to the new one.
    const old = await svc.api('/status/fresh/summary.json', { redirect: 'manual' });
    assert.equal(old.status, 302);
    assert.equal(old.headers.get('location'), '/status/fresh-moved/summary.json');
    assert.equal((await svc.api('/status/fresh-moved/summary.json')).status, 200);
  });

  test('a view being built while a change commits is not kept: the next view shows the change', async () => {
    // The change may commit at any point of the build; each offset (in microtask turns between
    // starting the build and starting the change) lands it at another query of the build.
    const page = await services.pages.create(writer, ws, { slug: 'racing', title: 'Racing' });
    const stale: number[] = [];
    for (let turns = 0; turns <= 60; turns++) {
      services.publicPages.invalidate(Number(page.id));
      const building = services.publicPages.view('racing');
      for (let i = 0; i < turns; i++) await Promise.resolve();
      const added = await services.pages.addComponent(writer, ws, page.id, { name: `c${turns}` });
      await building;
      const view = await services.publicPages.view('racing');
      if (!view.components.some((c) => c.id === added.id)) stale.push(turns);
    }
    assert.deepEqual(stale, [], `a stale view was cached (for up to 10 s) when the change started after ${stale.join(', ')} turns`);
  });

  test('a monitor component follows its monitor: down on a closed port, operational on an open listener', async () => {
    let listener: TcpListener | undefined;
    try {
      const page = await services.pages.create(writer, ws, { slug: 'live-monitors', title: 'Live monitors' });
      const downMonitor = await tcpMonitor(ws, `127.0.0.1:${await closedPort()}`, 'closed');
      listener = await startTcpListener();
      const upMonitor = await tcpMonitor(ws, listener.uri, 'open');
      await services.pages.addComponent(writer, ws, page.id, { name: 'Closed', monitorId: downMonitor.id });
      await services.pages.addComponent(writer, ws, page.id, { name: 'Open', monitorId: upMonitor.id });
      const states = async () => ((await (await svc.api('/status/live-monitors/summary.json')).json()) as Summary).components.map((c) => [c.name, c.state]);

      // Before any check: unknown. This view is now cached.
      assert.deepEqual(await states(), [
        ['Closed', 'unknown'],
        ['Open', 'unknown'],
      ]);
      // A first result of up is no state change: nothing drops the cached view (it lives 10 s).
      const [up] = await services.monitors.trigger(writer, ws, upMonitor.id);
      assert.equal(up!.result, 'up');
      // A first result of down is a state change: the service drops cached views at once.
      const [down] = await services.monitors.trigger(writer, ws, downMonitor.id);
      assert.equal(down!.result, 'down');
      assert.deepEqual(await states(), [
        ['Closed', 'down'],
        ['Open', 'operational'],
      ]);

      // Up again: the closed monitor now targets the listener (recovered, a state change).
      await services.monitors.update(writer, ws, 'tcp', downMonitor.id, { uri: listener.uri });
      assert.equal((await services.monitors.trigger(writer, ws, downMonitor.id))[0]!.result, 'up');
      assert.deepEqual(await states(), [
        ['Closed', 'operational'],
        ['Open', 'operational'],
      ]);
      const summary = (await (await svc.api('/status/live-monitors/summary.json')).json()) as {
        status: { state: string };
        components: { uptime: number | null }[];
      };
      assert.equal(summary.status.state, 'operational');
      // The checks count in the 90-day uptime: one down and one up for Closed, one up for Open.
      assert.deepEqual(
        summary.components.map((c) => c.uptime),
        [0.5, 1],
      );
    } finally {
      await listener?.close();
    }
  });

  test('pausing or deleting a monitor shows on its page at once', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'paused', title: 'Paused' });
    const monitor = await tcpMonitor(ws, `127.0.0.1:${await closedPort()}`, 'to pause');
    await services.pages.addComponent(writer, ws, page.id, { name: 'Paused', monitorId: monitor.id });
    assert.equal((await services.monitors.trigger(writer, ws, monitor.id))[0]!.result, 'down');
    const state = async () => ((await (await svc.api('/status/paused/summary.json')).json()) as Summary).components[0]!.state;
    assert.equal(await state(), 'down');
    // A paused monitor's component is unknown (docs/guides/status-pages.md).
    await services.monitors.update(writer, ws, 'tcp', monitor.id, { active: false });
    assert.equal(await state(), 'unknown', 'the page still shows the paused monitor as down (the cached view was not dropped)');
    await services.monitors.delete(writer, ws, monitor.id);
    assert.equal(await state(), 'operational', "the page still shows the deleted monitor's state");
  });

  test('a first up result alone shows after publicPages.invalidate()', async () => {
    let listener: TcpListener | undefined;
    try {
      const page = await services.pages.create(writer, ws, { slug: 'first-up', title: 'First up' });
      listener = await startTcpListener();
      const monitor = await tcpMonitor(ws, listener.uri, 'first up');
      await services.pages.addComponent(writer, ws, page.id, { name: 'Only', monitorId: monitor.id });
      const state = async () => ((await (await svc.api('/status/first-up/summary.json')).json()) as Summary).components[0]!.state;
      assert.equal(await state(), 'unknown');
      assert.equal((await services.monitors.trigger(writer, ws, monitor.id))[0]!.result, 'up');
      services.publicPages.invalidate();
      assert.equal(await state(), 'operational');
    } finally {
      await listener?.close();
    }
  });

  test('an active maintenance window shows its components (or the whole page) as maintenance', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'in-maintenance', title: 'In maintenance' });
    const monitor = await tcpMonitor(ws, `127.0.0.1:${await closedPort()}`, 'maintained');
    const db = await services.pages.addComponent(writer, ws, page.id, { name: 'Database', monitorId: monitor.id });
    await services.pages.addComponent(writer, ws, page.id, { name: 'Website' });
    assert.equal((await services.monitors.trigger(writer, ws, monitor.id))[0]!.result, 'down');
    const summary = async () => (await (await svc.api('/status/in-maintenance/summary.json')).json()) as Summary;
    assert.deepEqual(
      (await summary()).components.map((c) => c.state),
      ['down', 'operational'],
    );

    const { maintenance } = await services.maintenances.create(writer, ws, {
      pageId: page.id,
      title: 'Database upgrade',
      from: minutesFromNow(-5),
      to: minutesFromNow(55),
      pageComponentIds: [db.id],
      notify: false,
    });
    const during = await summary();
    assert.deepEqual(
      during.components.map((c) => c.state),
      ['maintenance', 'operational'],
    );
    assert.deepEqual(
      during.maintenances.active.map((m) => m.title),
      ['Database upgrade'],
    );
    assert.equal(during.status.state, 'maintenance');
    const html = await (await svc.api('/status/in-maintenance')).text();
    assert.match(html, /Maintenance in progress/);

    // With no components named, the window covers the whole page.
    await services.maintenances.update(writer, ws, maintenance.id, { pageComponentIds: [] });
    assert.deepEqual(
      (await summary()).components.map((c) => c.state),
      ['maintenance', 'maintenance'],
    );
    // Ended: back to what the monitor says.
    await services.maintenances.update(writer, ws, maintenance.id, { to: minutesFromNow(-1) });
    assert.deepEqual(
      (await summary()).components.map((c) => c.state),
      ['down', 'operational'],
    );
  });

  test('an unresolved report makes the components it names at least degraded, and no more', async () => {
    const page = await services.pages.create(writer, ws, { slug: 'two-components', title: 'Two components' });
    const monitor = await tcpMonitor(ws, `127.0.0.1:${await closedPort()}`, 'reported down');
    const named = await services.pages.addComponent(writer, ws, page.id, { name: 'Named' });
    const other = await services.pages.addComponent(writer, ws, page.id, { name: 'Other' });
    const down = await services.pages.addComponent(writer, ws, page.id, { name: 'Down', monitorId: monitor.id });
    assert.equal((await services.monitors.trigger(writer, ws, monitor.id))[0]!.result, 'down');
    await services.reports.create(writer, ws, { pageId: page.id, title: 'Trouble', message: 'x', pageComponentIds: [named.id, down.id], notify: false });
    const summary = (await (await svc.api('/status/two-components/summary.json')).json()) as Summary;
    const byId = new Map(summary.components.map((c) => [c.id, c.state]));
    assert.equal(byId.get(named.id), 'degraded');
    assert.equal(byId.get(other.id), 'operational');
    // An outage stays an outage.
    assert.equal(byId.get(down.id), 'down');
    assert.equal(summary.status.state, 'down');
  });

  test("a Host that is not the service's own is refused with 403", async () => {
    await services.pages.create(writer, ws, { slug: 'guarded', title: 'Guarded' });
    const port = Number(new URL(svc.apiUrl).port);
    const own = await rawGet(port, '/status/guarded', { host: `localhost:${port}` });
    assert.equal(own.status, 200);
    for (const host of [`evil.example:${port}`, 'localhost:1', `status.example.com`]) {
      const refused = await rawGet(port, '/status/guarded', { host });
      assert.equal(refused.status, 403, `host ${host}`);
      assert.ok(!refused.body.includes('Guarded'), 'the refused answer shows the page');
    }
    assert.equal((await rawGet(port, '/status/guarded/summary.json', { host: 'evil.example' })).status, 403);
  });

  test('with STATUSDESK_PUBLIC_URL, pages live at that address and its host is accepted', async () => {
    const publicSvc = await startTestService({ STATUSDESK_PUBLIC_URL: 'https://status.example.test' });
    try {
      const s = publicSvc.services;
      const wsId = Number((await s.workspaces.getBySlug(system, 'personal')).id);
      const page = await s.pages.create(system, wsId, { slug: 'proxied', title: 'Proxied' });
      assert.equal(page.url, 'https://status.example.test/status/proxied');
      const port = Number(new URL(publicSvc.apiUrl).port);
      const proxied = await rawGet(port, '/status/proxied/summary.json', { host: 'status.example.test' });
      assert.equal(proxied.status, 200);
      assert.equal(JSON.parse(proxied.body).page.url, 'https://status.example.test/status/proxied');
      assert.equal((await rawGet(port, '/status/proxied', { host: 'other.example.test' })).status, 403);
    } finally {
      await publicSvc.stop();
    }
  });

  test('parallel views after an invalidation share one build', async () => {
    await services.pages.create(system, ws, { slug: 'busy', title: 'Busy' });
    for (const invalidate of [() => services.publicPages.invalidate(), () => services.publicPages.invalidate(Number.MAX_SAFE_INTEGER)]) {
      invalidate();
      const views = await Promise.all(Array.from({ length: 20 }, () => services.publicPages.view('busy')));
      assert.equal(new Set(views).size, 1, 'the page was built more than once');
      assert.equal(views[0]!.title, 'Busy');
      // And the built view is kept.
      assert.equal(await services.publicPages.view('busy'), views[0]);
    }
    // An unknown slug: every caller gets NOT_FOUND, and nothing is kept.
    const missing = await Promise.allSettled(Array.from({ length: 5 }, () => services.publicPages.view('no-such-busy')));
    assert.ok(missing.every((r) => r.status === 'rejected' && r.reason instanceof AppError && r.reason.code === 'NOT_FOUND'));
    await services.pages.create(system, ws, { slug: 'no-such-busy', title: 'Exists now' });
    assert.equal((await services.publicPages.view('no-such-busy')).title, 'Exists now');
  });

  test('a title change committed while a view is being built shows in the next view', async () => {
    const page = await services.pages.create(system, ws, { slug: 'retitled', title: 'Title 0' });
    let inFlight = 0;
    const stale: string[] = [];
    // The change may commit at any point of the build: each offset (in microtask turns) lands it
    // elsewhere. Where builds are quick beside a change (PostgreSQL on a busy machine), rounds go
    // on, up to a bound, until a change has committed while a build was in flight.
    let title = '';
    for (let round = 0; round <= 40 || (inFlight === 0 && round < 400); round++) {
      const turns = round % 41;
      services.publicPages.invalidate(Number(page.id));
      const building = services.publicPages.view('retitled');
      let built = false;
      void building.then(() => (built = true));
      for (let i = 0; i < turns; i++) await Promise.resolve();
      title = `Title ${round + 1}`;
      await services.pages.update(system, ws, page.id, { title });
      if (!built) inFlight++;
      // Not waiting for the first build: the next view must not be it, if it started before the change.
      const next = await services.publicPages.view('retitled');
      if (next.title !== title) stale.push(`after ${turns} turns: ${next.title} instead of ${title} (first build ${built ? 'done' : 'in flight'})`);
      await building;
    }
    assert.deepEqual(stale, [], 'a view built before the change was served after it');
    assert.ok(inFlight > 0, 'no change committed while a view was being built: the race was not exercised');
    // Over HTTP as well.
    const html = await (await svc.api('/status/retitled')).text();
    assert.ok(html.includes(title), `the page over HTTP shows ${title}`);
  });
});

// ---- subscribing -----------------------------------------------------------------------------------

describe('subscribers', () => {
  test('confirm and unsubscribe links mailed before a slug change still work after it', async () => {
    const page = await services.pages.create(system, ws, { slug: 'before-move', title: 'Moving page' });
    const early = 'early@example.test';
    const late = 'late@example.test';

    // One subscriber confirmed and mailed an update while the page had its first slug.
    await services.subscribers.add(system, ws, page.id, { email: early });
    const confirmEarly = linkIn(await mailTo(smtp, early, /Confirm your subscription/), 'confirm');
    assert.ok(confirmEarly.includes('/status/before-move/confirm?'), confirmEarly);
    assert.equal((await fetch(confirmEarly, { method: 'POST' })).status, 200);
    await services.reports.create(system, ws, { pageId: page.id, title: 'Before the move', message: 'Old slug.', notify: true });
    const oldUnsubscribe = linkIn(await mailTo(smtp, early, /Before the move/), 'unsubscribe');
    assert.ok(oldUnsubscribe.includes('/status/before-move/unsubscribe?'), oldUnsubscribe);
    // Another only asked, and confirms after the move with the link naming the old slug.
    await services.subscribers.add(system, ws, page.id, { email: late });
    const confirmLate = linkIn(await mailTo(smtp, late, /Confirm your subscription/), 'confirm');

    await services.pages.update(system, ws, page.id, { slug: 'after-move' });

    assert.equal((await fetch(confirmLate)).status, 200, 'an old-slug confirm link no longer opens');
    const confirmed = await fetch(confirmLate, { method: 'POST' });
    assert.equal(confirmed.status, 200, 'an old-slug confirm link no longer confirms');
    assert.match(await confirmed.text(), /Subscription confirmed/);

    const { notified } = await services.reports.create(system, ws, { pageId: page.id, title: 'After the move', message: 'New slug.', notify: true });
    assert.equal(notified, true);
    const newMail = await mailTo(smtp, early, /After the move/);
    await mailTo(smtp, late, /After the move/);
    const newUnsubscribe = linkIn(newMail, 'unsubscribe');
    assert.ok(newUnsubscribe.includes('/status/after-move/unsubscribe?'), newUnsubscribe);

    // The link of the mail sent before the move names the old slug.
    assert.equal((await fetch(oldUnsubscribe)).status, 200, 'an old-slug unsubscribe link no longer opens');
    const gone = await fetch(oldUnsubscribe, { method: 'POST' });
    assert.equal(gone.status, 200, 'an old-slug unsubscribe link no longer unsubscribes');
    assert.match(await gone.text(), /Unsubscribed/);
    assert.deepEqual(
      (await services.subscribers.list(system, ws, page.id)).map((s) => [s.address, s.status]),
      [[late, 'active']],
    );
    // And the one of the mail sent after it, naming the new slug, works as well.
    const lateUnsubscribe = linkIn(await mailTo(smtp, late, /After the move/), 'unsubscribe');
    assert.equal((await fetch(lateUnsubscribe, { method: 'POST' })).status, 200);
    assert.deepEqual(await services.subscribers.list(system, ws, page.id), []);
  });

  test("the public form never shows the mail relay's answer; the API does", async () => {
    const page = await services.pages.create(system, ws, { slug: 'relay-refuses', title: 'Relay refuses' });
    const answer = await svc.api('/status/relay-refuses/subscribe', formPost({ email: 'refused@example.test' }));
    assert.equal(answer.status, 409);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
    const html = await answer.text();
    assert.match(html, /could not be sent/);
    assert.ok(!html.includes(String(smtp.port)), `the page shows the relay's port ${smtp.port}`);
    assert.ok(!html.includes('550'), "the page shows the relay's answer (550)");
    assert.ok(!/mailbox unavailable/i.test(html), "the page shows the relay's answer");

    // The public call itself, as other surfaces would use it.
    const publicError = await rejectsWith(services.subscribers.subscribePublic('relay-refuses', 'refused@example.test'), 'PRECONDITION_FAILED');
    assert.ok(!publicError.message.includes('550') && !publicError.message.includes(String(smtp.port)), publicError.message);

    const apiError = await rejectsWith(services.subscribers.add(system, ws, page.id, { email: 'refused-api@example.test' }), 'PRECONDITION_FAILED');
    assert.match(apiError.message, /550/, 'the API no longer tells the owner how the relay answered');
  });

  test('two concurrent public sign-ups of one address both succeed and make one subscriber', async () => {
    const page = await services.pages.create(system, ws, { slug: 'double-signup', title: 'Double signup' });
    for (let round = 0; round < 3; round++) {
      const address = `twice${round}@example.test`;
      const results = await Promise.allSettled([
        services.subscribers.subscribePublic('double-signup', address),
        services.subscribers.subscribePublic('double-signup', address),
      ]);
      assert.deepEqual(
        results.map((r) => (r.status === 'fulfilled' ? 'ok' : `${(r.reason as AppError).code}: ${(r.reason as Error).message}`)),
        ['ok', 'ok'],
      );
      const listed = await services.subscribers.list(system, ws, page.id);
      const rows = listed.filter((subscriber) => subscriber.address === address);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.status, 'pending');
      await mailTo(smtp, address, /Confirm your subscription/);
    }
    // And over HTTP.
    const address = 'twice-http@example.test';
    const answers = await Promise.all([1, 2].map(() => svc.api('/status/double-signup/subscribe', formPost({ email: address }))));
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200],
    );
    assert.equal((await services.subscribers.list(system, ws, page.id)).filter((s) => s.address === address).length, 1);
    await mailTo(smtp, address, /Confirm your subscription/);
  });

  test('a malformed multipart sign-up is a 400 page, not a 500', async () => {
    await services.pages.create(system, ws, { slug: 'bad-form', title: 'Bad form' });
    for (const body of ['garbage', '--x\r\nnot a header line\r\n\r\nvalue', '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\nno-closing-boundary']) {
      const answer = await svc.api('/status/bad-form/subscribe', { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body });
      assert.equal(answer.status, 400, `body ${JSON.stringify(body)}: ${answer.status}`);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await answer.text(), /email/);
    }
  });
});
