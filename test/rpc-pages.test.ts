import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Code, createClient, maintenanceV1, Periodicity, type StatusdeskClient, statusPageV1, statusReportV1 } from '../client/index.ts';
import { withLocalOwner } from './support/database.ts';
import { assertCode, assertViolation, daysFromNow, startTestService, type TestService } from './support/harness.ts';
import { verifySignature } from './support/receivers.ts';

const { ComponentType } = statusPageV1;
const { StatusReportStatus } = statusReportV1;

// ---- helpers -------------------------------------------------------------------------------

function clientOf(svc: TestService, apiKey: string): StatusdeskClient {
  return createClient({ baseUrl: `${svc.apiUrl}/rpc`, apiKey, env: {} });
}

/** A workspace of its own (on `plan`) and a write client of it. */
async function workspaceClient(svc: TestService, slug: string): Promise<StatusdeskClient> {
  await withLocalOwner(svc.dataDir, (services, owner) => services.workspaces.create(owner, { name: slug, slug, plan: 'scale' }));
  return clientOf(svc, (await svc.createKey('write', slug)).secret);
}

/** Any response as JSON text (timestamps hold bigints). */
const stringify = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

const normalized = (iso: string) => new Date(iso).toISOString();

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback HTTP server that records each request and answers `status`. */
async function receiver(status = 204) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A loopback address nothing listens on. */
async function closedPortUrl(): Promise<string> {
  const r = await receiver();
  await r.close();
  return `${r.origin}/gone`;
}

// ---- status pages, components, subscribers --------------------------------------------------

describe('StatusPageService', () => {
  let svc: TestService;
  let writer: StatusdeskClient;
  let reader: StatusdeskClient;
  let other: StatusdeskClient;

  before(async () => {
    svc = await startTestService();
    writer = clientOf(svc, (await svc.createKey('write')).secret);
    reader = clientOf(svc, (await svc.createKey('read')).secret);
    other = await workspaceClient(svc, 'pages-other');
  });
  after(() => svc.stop());

  test('create, get by id and slug, list, update, delete', async () => {
    // Other tests of this file make pages too: only the ones this test makes are compared.
    const mine = async () => (await reader.pages.listStatusPages({})).statusPages.filter((p) => p.slug.startsWith('acme'));
    assert.deepEqual(await mine(), []);
    const created = (await writer.pages.createStatusPage({ slug: 'acme', title: 'Acme', description: 'Our services' })).statusPage!;
    assert.match(created.id, /^\d+$/);
    assert.deepEqual([created.slug, created.title, created.description], ['acme', 'Acme', 'Our services']);
    assert.match(created.url, /\/status\/acme$/);
    assert.ok(created.createdAt && created.updatedAt);

    assert.deepEqual((await writer.pages.getStatusPage({ page: created.id })).statusPage, created);
    assert.deepEqual((await reader.pages.getStatusPage({ page: 'acme' })).statusPage, created);

    const second = (await writer.pages.createStatusPage({ slug: 'acme-internal', title: 'Internal' })).statusPage!;
    assert.equal(second.description, '');
    assert.deepEqual(
      (await mine()).map((p) => p.slug),
      ['acme-internal', 'acme'],
    );

    // Only the set fields change; the page can be named by slug.
    const retitled = (await writer.pages.updateStatusPage({ id: 'acme', title: 'Acme Inc.' })).statusPage!;
    assert.deepEqual([retitled.id, retitled.slug, retitled.title, retitled.description], [created.id, 'acme', 'Acme Inc.', 'Our services']);
    const moved = (await writer.pages.updateStatusPage({ id: created.id, slug: 'acme-status', description: '' })).statusPage!;
    assert.deepEqual([moved.slug, moved.title, moved.description], ['acme-status', 'Acme Inc.', '']);
    assert.match(moved.url, /\/status\/acme-status$/);
    await assertCode(writer.pages.getStatusPage({ page: 'acme' }), Code.NotFound);

    await writer.pages.deleteStatusPage({ id: second.id });
    await assertCode(writer.pages.getStatusPage({ page: second.id }), Code.NotFound);
    await assertCode(writer.pages.deleteStatusPage({ id: second.id }), Code.NotFound);
    assert.deepEqual(
      (await mine()).map((p) => p.id),
      [created.id],
    );
  });

  test('refuses invalid and taken slugs and missing titles, naming the field', async () => {
    await assertViolation(writer.pages.createStatusPage({ slug: 'Not A Slug', title: 'x' }), 'slug', /lower-case/);
    await assertViolation(writer.pages.createStatusPage({ slug: '12345', title: 'x' }), 'slug', /letter/);
    await assertViolation(writer.pages.createStatusPage({ title: 'x' }), 'slug');
    await assertViolation(writer.pages.createStatusPage({ slug: 'no-title' }), 'title');
    await writer.pages.createStatusPage({ slug: 'taken', title: 'Taken' });
    await assertCode(writer.pages.createStatusPage({ slug: 'taken', title: 'Again' }), Code.AlreadyExists, /already used/);
    // Slugs are unique across workspaces.
    await assertCode(other.pages.createStatusPage({ slug: 'taken', title: 'Mine' }), Code.AlreadyExists);
    await assertViolation(writer.pages.updateStatusPage({ id: 'taken', slug: 'Bad Slug' }), 'slug');
  });

  test('components: monitor and static, grouped, ordered, relinked, removed', async () => {
    const page = (await writer.pages.createStatusPage({ slug: 'components', title: 'Components' })).statusPage!;
    const monitor = (await writer.monitors.createTCPMonitor({ monitor: { name: 'db', uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M } }))
      .monitor!;

    const api = (await writer.pages.addPageComponent({ pageId: page.id, name: 'API', description: 'Public API', monitorId: monitor.id })).component!;
    assert.deepEqual(
      [api.pageId, api.name, api.description, api.type, api.monitorId, api.group, api.position],
      [page.id, 'API', 'Public API', ComponentType.MONITOR, monitor.id, undefined, 0],
    );
    const docs = (await writer.pages.addPageComponent({ pageId: 'components', name: 'Docs', group: 'Web' })).component!;
    assert.deepEqual([docs.type, docs.monitorId, docs.group, docs.position], [ComponentType.STATIC, undefined, 'Web', 1]);
    const first = (await writer.pages.addPageComponent({ pageId: page.id, name: 'Status', position: 0 })).component!;

    const listed = (await reader.pages.listPageComponents({ pageId: page.id })).components;
    assert.deepEqual(
      listed.map((c) => c.id),
      [api.id, first.id, docs.id],
    );

    // The empty string unlinks the monitor and clears the group.
    const unlinked = (await writer.pages.updatePageComponent({ id: api.id, monitorId: '', position: 5 })).component!;
    assert.deepEqual([unlinked.type, unlinked.monitorId, unlinked.position, unlinked.name], [ComponentType.STATIC, undefined, 5, 'API']);
    const relinked = (await writer.pages.updatePageComponent({ id: docs.id, monitorId: monitor.id, group: '' })).component!;
    assert.deepEqual([relinked.type, relinked.monitorId, relinked.group, relinked.name], [ComponentType.MONITOR, monitor.id, undefined, 'Docs']);
    const renamed = (await writer.pages.updatePageComponent({ id: first.id, name: 'Status page', description: 'The page itself', group: 'Web' })).component!;
    assert.deepEqual([renamed.name, renamed.description, renamed.group], ['Status page', 'The page itself', 'Web']);

    await writer.pages.removePageComponent({ id: first.id });
    assert.deepEqual(
      (await writer.pages.listPageComponents({ pageId: page.id })).components.map((c) => c.id),
      [docs.id, api.id],
    );
    await assertCode(writer.pages.removePageComponent({ id: first.id }), Code.NotFound);

    // A monitor of another workspace is not found.
    const foreignMonitor = (
      await other.monitors.createTCPMonitor({ monitor: { name: 'theirs', uri: 'x.internal:1', periodicity: Periodicity.PERIODICITY_1M } })
    ).monitor!;
    await assertCode(writer.pages.addPageComponent({ pageId: page.id, name: 'Theirs', monitorId: foreignMonitor.id }), Code.NotFound);
    await assertViolation(writer.pages.addPageComponent({ pageId: page.id }), 'name');
    await assertViolation(writer.pages.addPageComponent({ pageId: page.id, name: 'Neg', position: -1 }), 'position');
  });

  test('webhook subscribers: the secret is shown once, the address masked; email needs a mail server', async () => {
    const page = (await writer.pages.createStatusPage({ slug: 'subscribed', title: 'Subscribed' })).statusPage!;
    const hookUrl = 'https://hooks.example.test/incoming/SUBSCRIBER-PATH-TOKEN';
    const added = await writer.pages.addSubscriber({ pageId: page.id, target: { case: 'webhookUrl', value: hookUrl } });
    const subscriber = added.subscriber!;
    assert.deepEqual([subscriber.pageId, subscriber.kind, subscriber.status], [page.id, 'webhook', 'active']);
    assert.equal(subscriber.address, 'https://…example.test/…');
    assert.ok(subscriber.confirmedAt);
    assert.match(added.webhookSecret ?? '', /^whsec_/);

    const listed = await reader.pages.listSubscribers({ pageId: 'subscribed' });
    assert.deepEqual(listed.subscribers, [subscriber]);
    assert.ok(!stringify(listed).includes('SUBSCRIBER-PATH-TOKEN'));
    assert.ok(!stringify(listed).includes(added.webhookSecret!));

    await assertCode(writer.pages.addSubscriber({ pageId: page.id, target: { case: 'webhookUrl', value: hookUrl } }), Code.AlreadyExists);
    await assertViolation(writer.pages.addSubscriber({ pageId: page.id, target: { case: 'webhookUrl', value: 'ftp://x' } }), 'webhookUrl');
    await assertViolation(writer.pages.addSubscriber({ pageId: page.id, target: { case: 'email', value: 'not-an-address' } }), 'email');
    await assertCode(writer.pages.addSubscriber({ pageId: page.id }), Code.InvalidArgument);
    // The test service has no STATUSDESK_SMTP_URL.
    await assertCode(
      writer.pages.addSubscriber({ pageId: page.id, target: { case: 'email', value: 'ops@example.test' } }),
      Code.FailedPrecondition,
      /STATUSDESK_SMTP_URL/,
    );

    await writer.pages.removeSubscriber({ id: subscriber.id });
    assert.deepEqual((await writer.pages.listSubscribers({ pageId: page.id })).subscribers, []);
    await assertCode(writer.pages.removeSubscriber({ id: subscriber.id }), Code.NotFound);
  });

  test('a read key reads but changes nothing; other workspaces and unknown ids are not found', async () => {
    const page = (await writer.pages.createStatusPage({ slug: 'guarded', title: 'Guarded' })).statusPage!;
    const component = (await writer.pages.addPageComponent({ pageId: page.id, name: 'API' })).component!;
    const subscriber = (await writer.pages.addSubscriber({ pageId: page.id, target: { case: 'webhookUrl', value: 'https://hooks.example.test/guarded' } }))
      .subscriber!;

    await reader.pages.getStatusPage({ page: page.id });
    await reader.pages.listPageComponents({ pageId: page.id });
    await reader.pages.listSubscribers({ pageId: page.id });
    const denied = [
      () => reader.pages.createStatusPage({ slug: 'by-reader', title: 'x' }),
      () => reader.pages.updateStatusPage({ id: page.id, title: 'x' }),
      () => reader.pages.deleteStatusPage({ id: page.id }),
      () => reader.pages.addPageComponent({ pageId: page.id, name: 'x' }),
      () => reader.pages.updatePageComponent({ id: component.id, name: 'x' }),
      () => reader.pages.removePageComponent({ id: component.id }),
      () => reader.pages.addSubscriber({ pageId: page.id, target: { case: 'webhookUrl', value: 'https://hooks.example.test/r' } }),
      () => reader.pages.removeSubscriber({ id: subscriber.id }),
    ];
    for (const call of denied) await assertCode(call(), Code.PermissionDenied);

    for (const client of [other, writer]) {
      const ref = client === other ? page.id : '999999';
      await assertCode(client.pages.getStatusPage({ page: ref }), Code.NotFound);
      await assertCode(client.pages.updateStatusPage({ id: ref, title: 'x' }), Code.NotFound);
      await assertCode(client.pages.deleteStatusPage({ id: ref }), Code.NotFound);
      await assertCode(client.pages.listPageComponents({ pageId: ref }), Code.NotFound);
      await assertCode(client.pages.addPageComponent({ pageId: ref, name: 'x' }), Code.NotFound);
      await assertCode(client.pages.listSubscribers({ pageId: ref }), Code.NotFound);
      await assertCode(client.pages.addSubscriber({ pageId: ref, target: { case: 'webhookUrl', value: 'https://hooks.example.test/o' } }), Code.NotFound);
    }
    // A slug of another workspace's page, and its component and subscriber ids.
    await assertCode(other.pages.getStatusPage({ page: 'guarded' }), Code.NotFound);
    await assertCode(other.pages.updatePageComponent({ id: component.id, name: 'x' }), Code.NotFound);
    await assertCode(other.pages.removePageComponent({ id: component.id }), Code.NotFound);
    await assertCode(other.pages.removeSubscriber({ id: subscriber.id }), Code.NotFound);
    await assertViolation(writer.pages.updatePageComponent({ id: 'abc', name: 'x' }), 'id');
    // Nothing changed.
    assert.equal((await writer.pages.getStatusPage({ page: page.id })).statusPage!.title, 'Guarded');
    assert.equal((await writer.pages.listPageComponents({ pageId: page.id })).components.length, 1);
  });
});

// ---- status reports ------------------------------------------------------------------------

describe('StatusReportService', () => {
  let svc: TestService;
  let writer: StatusdeskClient;
  let reader: StatusdeskClient;
  let other: StatusdeskClient;
  let pageId: string;
  let componentIds: string[];
  let otherPageComponentId: string;

  before(async () => {
    svc = await startTestService();
    writer = clientOf(svc, (await svc.createKey('write')).secret);
    reader = clientOf(svc, (await svc.createKey('read')).secret);
    other = await workspaceClient(svc, 'reports-other');
    pageId = (await writer.pages.createStatusPage({ slug: 'incidents', title: 'Incidents' })).statusPage!.id;
    componentIds = [];
    for (const name of ['API', 'Web']) componentIds.push((await writer.pages.addPageComponent({ pageId, name })).component!.id);
    const otherPage = (await writer.pages.createStatusPage({ slug: 'elsewhere', title: 'Elsewhere' })).statusPage!;
    otherPageComponentId = (await writer.pages.addPageComponent({ pageId: otherPage.id, name: 'Other' })).component!.id;
  });
  after(() => svc.stop());

  test('notify is required on every publishing call', async () => {
    await assertViolation(writer.reports.createStatusReport({ pageId, title: 'Outage', message: 'Looking' }), 'notify', /required/);
    const { statusReport } = await writer.reports.createStatusReport({ pageId, title: 'Outage', message: 'Looking', notify: false });
    await assertViolation(
      writer.reports.addStatusReportUpdate({ id: statusReport!.id, status: StatusReportStatus.IDENTIFIED, message: 'Found' }),
      'notify',
      /required/,
    );
    await assertViolation(writer.reports.resolveStatusReport({ id: statusReport!.id, message: 'Fixed' }), 'notify', /required/);
    await assertViolation(writer.maintenances.createMaintenance({ pageId, title: 'Upgrade', from: daysFromNow(1), to: daysFromNow(2) }), 'notify', /required/);
  });

  test('create, add updates, correct, resolve, get, delete', async () => {
    // With no subscribers, telling them all succeeds.
    const created = await writer.reports.createStatusReport({
      pageId,
      title: 'API errors',
      status: StatusReportStatus.INVESTIGATING,
      message: 'We are looking into it',
      pageComponentIds: [componentIds[0]!],
      notify: true,
    });
    assert.equal(created.notified, true);
    const report = created.statusReport!;
    assert.deepEqual(
      [report.pageId, report.title, report.status, report.resolved, report.pageComponentIds, report.resolvedAt],
      [pageId, 'API errors', StatusReportStatus.INVESTIGATING, false, [componentIds[0]], undefined],
    );
    assert.equal(report.updates.length, 1);
    assert.deepEqual([report.updates[0]!.status, report.updates[0]!.message], [StatusReportStatus.INVESTIGATING, 'We are looking into it']);

    const updated = await writer.reports.addStatusReportUpdate({
      id: report.id,
      status: StatusReportStatus.IDENTIFIED,
      message: 'A bad deploy',
      notify: false,
    });
    assert.equal(updated.notified, false);
    assert.equal(updated.statusReport!.status, StatusReportStatus.IDENTIFIED);
    assert.deepEqual(
      updated.statusReport!.updates.map((u) => u.message),
      ['A bad deploy', 'We are looking into it'],
    );

    // Corrections add no update; without a mask only the set fields change.
    const retitled = (await writer.reports.updateStatusReport({ id: report.id, title: 'API 500 errors' })).statusReport!;
    assert.deepEqual(
      [retitled.title, retitled.status, retitled.pageComponentIds, retitled.updates.length],
      ['API 500 errors', StatusReportStatus.IDENTIFIED, [componentIds[0]], 2],
    );
    const restatused = (await writer.reports.updateStatusReport({ id: report.id, status: StatusReportStatus.MONITORING, pageComponentIds: componentIds }))
      .statusReport!;
    assert.deepEqual([restatused.status, restatused.pageComponentIds, restatused.title], [StatusReportStatus.MONITORING, componentIds, 'API 500 errors']);
    // An empty list without a mask changes nothing; named in the mask it clears the components.
    const unchanged = (await writer.reports.updateStatusReport({ id: report.id, title: 'API 500 errors', pageComponentIds: [] })).statusReport!;
    assert.deepEqual(unchanged.pageComponentIds, componentIds);
    const cleared = (await writer.reports.updateStatusReport({ id: report.id, title: 'ignored', updateMask: { paths: ['page_component_ids'] } })).statusReport!;
    assert.deepEqual([cleared.pageComponentIds, cleared.title], [[], 'API 500 errors']);
    await assertViolation(writer.reports.updateStatusReport({ id: report.id, updateMask: { paths: ['message'] } }), 'update_mask', /not a field/);
    await assertViolation(writer.reports.updateStatusReport({ id: report.id, updateMask: { paths: ['title'] } }), 'title');
    await assertViolation(writer.reports.updateStatusReport({ id: report.id }), 'report', /no field/);
    // A component of another page is not found.
    await assertCode(writer.reports.updateStatusReport({ id: report.id, pageComponentIds: [otherPageComponentId] }), Code.NotFound, /page component/);

    const resolved = await writer.reports.resolveStatusReport({ id: report.id, message: 'Rolled back', notify: true });
    assert.equal(resolved.notified, true);
    const final = resolved.statusReport!;
    assert.deepEqual(
      [final.status, final.resolved, final.updates.length, final.updates[0]!.status],
      [StatusReportStatus.RESOLVED, true, 3, StatusReportStatus.RESOLVED],
    );
    assert.ok(final.resolvedAt);
    assert.deepEqual((await reader.reports.getStatusReport({ id: report.id })).statusReport, final);

    await writer.reports.deleteStatusReport({ id: report.id });
    await assertCode(writer.reports.getStatusReport({ id: report.id }), Code.NotFound);
  });

  test('refuses invalid input and components of other pages', async () => {
    await assertCode(
      writer.reports.createStatusReport({ pageId, title: 'x', message: 'y', pageComponentIds: [otherPageComponentId], notify: false }),
      Code.NotFound,
      new RegExp(`page component ${otherPageComponentId}`),
    );
    await assertViolation(writer.reports.createStatusReport({ title: 'x', message: 'y', notify: false }), 'pageId');
    await assertViolation(writer.reports.createStatusReport({ pageId, message: 'y', notify: false }), 'title');
    await assertViolation(writer.reports.createStatusReport({ pageId, title: 'x', notify: false }), 'message');
    await assertViolation(writer.reports.createStatusReport({ pageId, title: 'x', message: 'y', status: 42 as never, notify: false }), 'status');
    await assertViolation(
      writer.reports.createStatusReport({ pageId, title: 'x', message: 'y', pageComponentIds: ['abc'], notify: false }),
      'pageComponentIds.0',
    );
    const { statusReport } = await writer.reports.createStatusReport({ pageId, title: 'x', message: 'y', notify: false });
    // The status of an update is required.
    await assertViolation(writer.reports.addStatusReportUpdate({ id: statusReport!.id, message: 'z', notify: false }), 'status');
    await writer.reports.deleteStatusReport({ id: statusReport!.id });
  });

  test('list: active or all, by page, paginated', async () => {
    const page = (await writer.pages.createStatusPage({ slug: 'listed', title: 'Listed' })).statusPage!;
    const ids: string[] = [];
    for (const n of [1, 2, 3])
      ids.push((await writer.reports.createStatusReport({ pageId: page.id, title: `Report ${n}`, message: 'm', notify: false })).statusReport!.id);
    await writer.reports.resolveStatusReport({ id: ids[0]!, message: 'done', notify: false });

    const active = await reader.reports.listStatusReports({ pageId: 'listed' });
    assert.deepEqual(
      active.statusReports.map((r) => r.id),
      [ids[2], ids[1]],
    );
    assert.deepEqual([active.pagination!.page, active.pagination!.perPage, active.pagination!.totalSize, active.pagination!.totalPages], [1, 50, 2, 1]);

    const first = await reader.reports.listStatusReports({ filter: 'all', pageId: page.id, perPage: 2 });
    assert.deepEqual(
      first.statusReports.map((r) => r.id),
      [ids[2], ids[1]],
    );
    assert.deepEqual([first.pagination!.page, first.pagination!.perPage, first.pagination!.totalSize, first.pagination!.totalPages], [1, 2, 3, 2]);
    const second = await reader.reports.listStatusReports({ filter: 'all', pageId: page.id, perPage: 2, page: 2 });
    assert.deepEqual(
      second.statusReports.map((r) => r.id),
      [ids[0]],
    );
    assert.equal(second.statusReports[0]!.resolved, true);
    assert.equal(second.pagination!.page, 2);

    await assertViolation(reader.reports.listStatusReports({ filter: 'bogus' }), 'filter');
    await assertViolation(reader.reports.listStatusReports({ perPage: 201 }), 'perPage');
    await assertViolation(reader.reports.listStatusReports({ page: -1 }), 'page');
    await assertCode(reader.reports.listStatusReports({ pageId: '999999' }), Code.NotFound);
    // Another workspace sees none of them.
    assert.equal((await other.reports.listStatusReports({ filter: 'all' })).pagination!.totalSize, 0);
  });

  test('a read key changes nothing; ids of other workspaces are not found', async () => {
    const { statusReport } = await writer.reports.createStatusReport({ pageId, title: 'Guarded', message: 'm', notify: false });
    const id = statusReport!.id;
    const denied = [
      () => reader.reports.createStatusReport({ pageId, title: 'x', message: 'y', notify: false }),
      () => reader.reports.addStatusReportUpdate({ id, status: StatusReportStatus.IDENTIFIED, message: 'x', notify: false }),
      () => reader.reports.updateStatusReport({ id, title: 'x' }),
      () => reader.reports.resolveStatusReport({ id, message: 'x', notify: false }),
      () => reader.reports.deleteStatusReport({ id }),
    ];
    for (const call of denied) await assertCode(call(), Code.PermissionDenied);
    const calls = (client: StatusdeskClient, ref: string) => [
      () => client.reports.getStatusReport({ id: ref }),
      () => client.reports.addStatusReportUpdate({ id: ref, status: StatusReportStatus.IDENTIFIED, message: 'x', notify: false }),
      () => client.reports.updateStatusReport({ id: ref, title: 'x' }),
      () => client.reports.resolveStatusReport({ id: ref, message: 'x', notify: false }),
      () => client.reports.deleteStatusReport({ id: ref }),
      () => client.reports.createStatusReport({ pageId: client === other ? pageId : '999999', title: 'x', message: 'y', notify: false }),
    ];
    for (const call of [...calls(other, id), ...calls(writer, '999999')]) await assertCode(call(), Code.NotFound);
    assert.deepEqual((await writer.reports.getStatusReport({ id })).statusReport, statusReport);
  });
});

describe('publishing to webhook subscribers', () => {
  let svc: TestService;
  let writer: StatusdeskClient;

  before(async () => {
    svc = await startTestService();
    writer = clientOf(svc, (await svc.createKey('write')).secret);
  });
  after(() => svc.stop());

  test('notified is true when every subscriber was told, false when a delivery failed; the record stays either way', async () => {
    const hook = await receiver(204);
    try {
      const page = (await writer.pages.createStatusPage({ slug: 'published', title: 'Published' })).statusPage!;
      const { webhookSecret } = await writer.pages.addSubscriber({ pageId: page.id, target: { case: 'webhookUrl', value: `${hook.origin}/hook` } });

      const created = await writer.reports.createStatusReport({ pageId: page.id, title: 'Outage', message: 'Investigating', notify: true });
      assert.equal(created.notified, true);
      assert.equal(hook.received.length, 1);
      const delivery = hook.received[0]!;
      assert.ok(verifySignature(webhookSecret!, String(delivery.headers['x-statusdesk-signature']), delivery.body));
      assert.match(delivery.body, /Investigating/);

      // notify=false sends nothing, now or later.
      await writer.reports.addStatusReportUpdate({
        id: created.statusReport!.id,
        status: StatusReportStatus.IDENTIFIED,
        message: 'Quiet update',
        notify: false,
      });
      assert.equal(hook.received.length, 1);

      const scheduled = await writer.maintenances.createMaintenance({
        pageId: page.id,
        title: 'Upgrade',
        from: daysFromNow(1),
        to: daysFromNow(2),
        notify: true,
      });
      assert.equal(scheduled.notified, true);
      assert.equal(hook.received.length, 2);
      assert.match(hook.received[1]!.body, /Upgrade/);

      // A subscriber that cannot be reached: stored, but notified false.
      await writer.pages.addSubscriber({ pageId: page.id, target: { case: 'webhookUrl', value: await closedPortUrl() } });
      const resolved = await writer.reports.resolveStatusReport({ id: created.statusReport!.id, message: 'Fixed', notify: true });
      assert.equal(resolved.notified, false);
      const stored = (await writer.reports.getStatusReport({ id: created.statusReport!.id })).statusReport!;
      assert.deepEqual([stored.resolved, stored.updates[0]!.message], [true, 'Fixed']);
      assert.equal(hook.received.length, 3, 'the reachable subscriber is still told');
      const failedMaintenance = await writer.maintenances.createMaintenance({
        pageId: page.id,
        title: 'Second',
        from: daysFromNow(3),
        to: daysFromNow(4),
        notify: true,
      });
      assert.equal(failedMaintenance.notified, false);
      assert.equal((await writer.maintenances.getMaintenance({ id: failedMaintenance.maintenance!.id })).maintenance!.title, 'Second');
    } finally {
      await hook.close();
    }
  });
});

// ---- maintenances --------------------------------------------------------------------------

describe('MaintenanceService', () => {
  let svc: TestService;
  let writer: StatusdeskClient;
  let reader: StatusdeskClient;
  let other: StatusdeskClient;
  let pageId: string;
  let componentId: string;
  let otherPageComponentId: string;

  before(async () => {
    svc = await startTestService();
    writer = clientOf(svc, (await svc.createKey('write')).secret);
    reader = clientOf(svc, (await svc.createKey('read')).secret);
    other = await workspaceClient(svc, 'maintenance-other');
    pageId = (await writer.pages.createStatusPage({ slug: 'planned', title: 'Planned' })).statusPage!.id;
    componentId = (await writer.pages.addPageComponent({ pageId, name: 'Database' })).component!.id;
    const otherPage = (await writer.pages.createStatusPage({ slug: 'planned-elsewhere', title: 'Elsewhere' })).statusPage!;
    otherPageComponentId = (await writer.pages.addPageComponent({ pageId: otherPage.id, name: 'Other' })).component!.id;
  });
  after(() => svc.stop());

  test('create, get, update, delete', async () => {
    const from = daysFromNow(1);
    const to = daysFromNow(1.5);
    const created = await writer.maintenances.createMaintenance({
      pageId: 'planned',
      title: 'DB upgrade',
      message: 'Read-only for an hour',
      from,
      to,
      pageComponentIds: [componentId],
      notify: true,
    });
    assert.equal(created.notified, true);
    const m = created.maintenance!;
    assert.deepEqual(
      [m.pageId, m.title, m.message, m.from, m.to, m.pageComponentIds, m.status],
      [pageId, 'DB upgrade', 'Read-only for an hour', normalized(from), normalized(to), [componentId], 'scheduled'],
    );
    assert.deepEqual((await reader.maintenances.getMaintenance({ id: m.id })).maintenance, m);

    // An offset is stored as UTC.
    const moved = (await writer.maintenances.updateMaintenance({ id: m.id, from: '2020-01-01T10:00:00+02:00', to: daysFromNow(2) })).maintenance!;
    assert.deepEqual([moved.from, moved.status, moved.title], ['2020-01-01T08:00:00.000Z', 'active', 'DB upgrade']);
    // With a mask, a named message left out is cleared; the components can be cleared.
    const cleared = (
      await writer.maintenances.updateMaintenance({ id: m.id, title: 'Upgrade', updateMask: { paths: ['title', 'message', 'page_component_ids'] } })
    ).maintenance!;
    assert.deepEqual([cleared.title, cleared.message, cleared.pageComponentIds], ['Upgrade', '', []]);
    const empty = (await writer.maintenances.updateMaintenance({ id: m.id, message: 'Back', pageComponentIds: [] })).maintenance!;
    assert.deepEqual([empty.message, empty.pageComponentIds], ['Back', []]);
    await assertViolation(writer.maintenances.updateMaintenance({ id: m.id, updateMask: { paths: ['status'] } }), 'update_mask');
    await assertViolation(writer.maintenances.updateMaintenance({ id: m.id, updateMask: { paths: ['from'] } }), 'from');
    await assertCode(writer.maintenances.updateMaintenance({ id: m.id, pageComponentIds: [otherPageComponentId] }), Code.NotFound);

    await writer.maintenances.deleteMaintenance({ id: m.id });
    await assertCode(writer.maintenances.getMaintenance({ id: m.id }), Code.NotFound);
  });

  test('refuses dates that are not ISO 8601 with a zone, and windows that end before they start', async () => {
    const base = { pageId, title: 'x', notify: false };
    await assertViolation(writer.maintenances.createMaintenance({ ...base, from: 'tomorrow', to: daysFromNow(2) }), 'from', /ISO 8601/);
    await assertViolation(writer.maintenances.createMaintenance({ ...base, from: '2026-11-21T22:00:00', to: daysFromNow(2) }), 'from', /zone/);
    await assertViolation(writer.maintenances.createMaintenance({ ...base, from: daysFromNow(1), to: '2026-13-45T00:00:00Z' }), 'to');
    await assertViolation(writer.maintenances.createMaintenance({ ...base, from: daysFromNow(2), to: daysFromNow(1) }), 'to', /after/);
    await assertViolation(writer.maintenances.createMaintenance({ ...base, to: daysFromNow(1) }), 'from');
    await assertViolation(writer.maintenances.createMaintenance({ pageId, from: daysFromNow(1), to: daysFromNow(2), notify: false }), 'title');
    await assertCode(
      writer.maintenances.createMaintenance({ ...base, from: daysFromNow(1), to: daysFromNow(2), pageComponentIds: [otherPageComponentId] }),
      Code.NotFound,
    );
  });

  test('list: latest start first, by page, paginated', async () => {
    const page = (await writer.pages.createStatusPage({ slug: 'windows', title: 'Windows' })).statusPage!;
    const ids: string[] = [];
    for (const day of [3, 5, 4])
      ids.push(
        (
          await writer.maintenances.createMaintenance({
            pageId: page.id,
            title: `Day ${day}`,
            from: daysFromNow(day),
            to: daysFromNow(day + 0.1),
            notify: false,
          })
        ).maintenance!.id,
      );
    const first = await reader.maintenances.listMaintenances({ pageId: 'windows', perPage: 2 });
    assert.deepEqual(
      first.maintenances.map((m) => m.title),
      ['Day 5', 'Day 4'],
    );
    assert.deepEqual([first.pagination!.page, first.pagination!.perPage, first.pagination!.totalSize, first.pagination!.totalPages], [1, 2, 3, 2]);
    const second = await reader.maintenances.listMaintenances({ pageId: page.id, perPage: 2, page: 2 });
    assert.deepEqual(
      second.maintenances.map((m) => m.id),
      [ids[0]],
    );
    const all = await reader.maintenances.listMaintenances({});
    assert.equal(all.pagination!.perPage, 50);
    assert.ok(all.pagination!.totalSize >= 3);
    await assertViolation(reader.maintenances.listMaintenances({ perPage: 500 }), 'perPage');
    assert.equal((await other.maintenances.listMaintenances({})).pagination!.totalSize, 0);
  });

  test('a read key changes nothing; ids of other workspaces are not found', async () => {
    const m = (await writer.maintenances.createMaintenance({ pageId, title: 'Guarded', from: daysFromNow(1), to: daysFromNow(2), notify: false })).maintenance!;
    for (const call of [
      () => reader.maintenances.createMaintenance({ pageId, title: 'x', from: daysFromNow(1), to: daysFromNow(2), notify: false }),
      () => reader.maintenances.updateMaintenance({ id: m.id, title: 'x' }),
      () => reader.maintenances.deleteMaintenance({ id: m.id }),
    ]) {
      await assertCode(call(), Code.PermissionDenied);
    }
    for (const [client, ref, page] of [
      [other, m.id, pageId],
      [writer, '999999', '999999'],
    ] as const) {
      await assertCode(client.maintenances.getMaintenance({ id: ref }), Code.NotFound);
      await assertCode(client.maintenances.updateMaintenance({ id: ref, title: 'x' }), Code.NotFound);
      await assertCode(client.maintenances.deleteMaintenance({ id: ref }), Code.NotFound);
      await assertCode(
        client.maintenances.createMaintenance({ pageId: page, title: 'x', from: daysFromNow(1), to: daysFromNow(2), notify: false }),
        Code.NotFound,
      );
      await assertCode(client.maintenances.listMaintenances({ pageId: page }), Code.NotFound);
    }
    assert.deepEqual((await writer.maintenances.getMaintenance({ id: m.id })).maintenance, m);
  });
});

// ---- notification channels -----------------------------------------------------------------

describe('NotificationService', () => {
  let svc: TestService;
  let writer: StatusdeskClient;
  let reader: StatusdeskClient;
  let other: StatusdeskClient;

  // Every credential given below; none may ever come back.
  const secrets = {
    webhookPath: 'WEBHOOK-PATH-TOKEN-1',
    webhookSecret: 'webhook-signing-secret-0123456789',
    header: 'Bearer header-credential-42',
    slack: 'SLACK-TOKEN-T000/B000/XXXX',
    discord: 'DISCORD-TOKEN-abcdef',
    smtpPassword: 'smtp-password-9876',
    ntfy: 'tk_ntfy-token-5555',
    newSlack: 'SLACK-TOKEN-ROTATED',
  };
  const assertNoSecrets = (response: unknown) => {
    const text = stringify(response);
    for (const [name, secret] of Object.entries(secrets)) assert.ok(!text.includes(secret), `the ${name} credential came back: ${text}`);
  };

  before(async () => {
    svc = await startTestService();
    writer = clientOf(svc, (await svc.createKey('write')).secret);
    reader = clientOf(svc, (await svc.createKey('read')).secret);
    other = await workspaceClient(svc, 'channels-other');
  });
  after(() => svc.stop());

  test('every kind: created, listed, read and changed with credentials masked, never returned', async () => {
    // A workspace of its own: the list below is exactly the channels made here, whatever ran before.
    const slug = `channels-${randomBytes(4).toString('hex')}`;
    const writer = await workspaceClient(svc, slug);
    const reader = clientOf(svc, (await svc.createKey('read', slug)).secret);
    const monitorId = (await writer.monitors.createTCPMonitor({ monitor: { name: 'db', uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M } }))
      .monitor!.id;
    const hook = await receiver(204);
    try {
      const webhookUrl = `${hook.origin}/alerts/${secrets.webhookPath}`;
      const webhook = await writer.notifications.createNotificationChannel({
        name: 'On-call webhook',
        monitorIds: [monitorId],
        config: { case: 'webhook', value: { url: webhookUrl, secret: secrets.webhookSecret, headers: { authorization: secrets.header } } },
      });
      assertNoSecrets(webhook);
      const channel = webhook.channel!;
      assert.deepEqual([channel.name, channel.kind, channel.monitorIds, channel.config.case], ['On-call webhook', 'webhook', [monitorId], 'webhook']);
      assert.ok(channel.config.case === 'webhook');
      assert.equal(channel.config.value.url, `${hook.origin}/…`);
      assert.notEqual(channel.config.value.secret, '');
      assert.deepEqual(Object.keys(channel.config.value.headers), ['authorization']);

      const created = [
        await writer.notifications.createNotificationChannel({
          name: 'Slack',
          config: { case: 'slack', value: { webhookUrl: `https://hooks.slack.com/services/${secrets.slack}` } },
        }),
        await writer.notifications.createNotificationChannel({
          name: 'Discord',
          config: { case: 'discord', value: { webhookUrl: `https://discord.com/api/webhooks/${secrets.discord}` } },
        }),
        await writer.notifications.createNotificationChannel({
          name: 'Mail',
          config: {
            case: 'email',
            value: { to: ['ops@example.test'], from: 'alerts@example.test', smtpUrl: `smtps://user:${secrets.smtpPassword}@smtp.example.test:465` },
          },
        }),
        await writer.notifications.createNotificationChannel({
          name: 'ntfy',
          config: { case: 'ntfy', value: { topic: 'statusdesk-alerts', priority: 4, token: secrets.ntfy } },
        }),
        await writer.notifications.createNotificationChannel({ name: 'Desktop', config: { case: 'desktop', value: {} } }),
      ];
      for (const response of created) assertNoSecrets(response);
      const [slack, discord, email, ntfy, desktop] = created.map((r) => r.channel!);
      assert.ok(slack!.config.case === 'slack' && discord!.config.case === 'discord' && email!.config.case === 'email' && ntfy!.config.case === 'ntfy');
      assert.equal(slack!.config.value.webhookUrl, 'https://…slack.com/…');
      assert.equal(discord!.config.value.webhookUrl, 'https://discord.com/…');
      assert.deepEqual(
        [email!.config.value.to, email!.config.value.from, email!.config.value.smtpUrl],
        [['ops@example.test'], 'alerts@example.test', 'smtps://…example.test:465/…'],
      );
      assert.deepEqual([ntfy!.config.value.server, ntfy!.config.value.topic, ntfy!.config.value.priority], ['https://ntfy.sh', '••••••••', 4]);
      assert.notEqual(ntfy!.config.value.token, undefined);
      assert.deepEqual([desktop!.kind, desktop!.config.case], ['desktop', 'desktop']);

      // Newest first, paginated.
      const all = await reader.notifications.listNotificationChannels({});
      assertNoSecrets(all);
      assert.deepEqual(
        all.channels.map((c) => c.name),
        ['Desktop', 'ntfy', 'Mail', 'Discord', 'Slack', 'On-call webhook'],
      );
      assert.deepEqual([all.pagination!.page, all.pagination!.perPage, all.pagination!.totalSize, all.pagination!.totalPages], [1, 50, 6, 1]);
      const third = await reader.notifications.listNotificationChannels({ page: 3, perPage: 2 });
      assert.deepEqual(
        third.channels.map((c) => c.name),
        ['Slack', 'On-call webhook'],
      );
      assert.deepEqual([third.pagination!.totalPages, third.pagination!.totalSize], [3, 6]);
      await assertViolation(reader.notifications.listNotificationChannels({ perPage: 201 }), 'perPage');
      const got = await reader.notifications.getNotificationChannel({ id: channel.id });
      assertNoSecrets(got);
      assert.deepEqual(got.channel, channel);

      // The test send uses the stored credentials: the secret signs, the header is sent.
      const sent = await writer.notifications.sendTestNotification({ id: channel.id });
      assert.deepEqual([sent.delivered, sent.error], [true, '']);
      assert.equal(hook.received.length, 1);
      assert.equal(hook.received[0]!.path, `/alerts/${secrets.webhookPath}`);
      assert.equal(hook.received[0]!.headers.authorization, secrets.header);
      assert.ok(verifySignature(secrets.webhookSecret, String(hook.received[0]!.headers['x-statusdesk-signature']), hook.received[0]!.body));

      // An update that leaves the credentials empty keeps them.
      const renamed = await writer.notifications.updateNotificationChannel({ id: channel.id, name: 'Pager', config: { case: 'webhook', value: {} } });
      assertNoSecrets(renamed);
      assert.deepEqual([renamed.channel!.name, renamed.channel!.monitorIds], ['Pager', [monitorId]]);
      await writer.notifications.sendTestNotification({ id: channel.id });
      assert.equal(hook.received.length, 2);
      assert.equal(hook.received[1]!.headers.authorization, secrets.header);
      assert.ok(verifySignature(secrets.webhookSecret, String(hook.received[1]!.headers['x-statusdesk-signature']), hook.received[1]!.body));

      // monitor_ids is emptied only through the mask.
      const detached = await writer.notifications.updateNotificationChannel({ id: channel.id, updateMask: { paths: ['monitor_ids'] } });
      assert.deepEqual([detached.channel!.monitorIds, detached.channel!.name], [[], 'Pager']);
      const rotated = await writer.notifications.updateNotificationChannel({
        id: slack!.id,
        monitorIds: [monitorId],
        config: { case: 'slack', value: { webhookUrl: `https://hooks.slack.com/services/${secrets.newSlack}` } },
        updateMask: { paths: ['config', 'monitor_ids'] },
      });
      assertNoSecrets(rotated);
      assert.deepEqual(rotated.channel!.monitorIds, [monitorId]);
      const ntfyPriority = await writer.notifications.updateNotificationChannel({ id: ntfy!.id, config: { case: 'ntfy', value: { priority: 2 } } });
      assert.ok(ntfyPriority.channel!.config.case === 'ntfy');
      assert.deepEqual([ntfyPriority.channel!.config.value.priority, ntfyPriority.channel!.config.value.topic], [2, '••••••••']);
      assertNoSecrets(ntfyPriority);

      // Unreachable: not delivered, with the reason and without the address's token.
      const unreachable = (
        await writer.notifications.createNotificationChannel({
          name: 'Gone',
          config: { case: 'webhook', value: { url: await closedPortUrl(), secret: secrets.webhookSecret } },
        })
      ).channel!;
      const failed = await writer.notifications.sendTestNotification({ id: unreachable.id });
      assert.equal(failed.delivered, false);
      assert.match(failed.error, /connection refused/);

      await writer.notifications.deleteNotificationChannel({ id: unreachable.id });
      await assertCode(writer.notifications.getNotificationChannel({ id: unreachable.id }), Code.NotFound);
    } finally {
      await hook.close();
    }
  });

  test('refuses invalid configurations, naming the field in the request', async () => {
    await assertViolation(
      writer.notifications.createNotificationChannel({ name: 'x', config: { case: 'slack', value: { webhookUrl: 'not a url' } } }),
      'slack.webhookUrl',
    );
    await assertViolation(
      writer.notifications.createNotificationChannel({ name: 'x', config: { case: 'webhook', value: { url: 'https://h.example.test', secret: 'short' } } }),
      'webhook.secret',
      /16/,
    );
    await assertViolation(
      writer.notifications.createNotificationChannel({ name: 'x', config: { case: 'ntfy', value: { topic: 't', priority: 9 } } }),
      'ntfy.priority',
      /1 to 5/,
    );
    await assertViolation(writer.notifications.createNotificationChannel({ name: 'x', config: { case: 'email', value: {} } }), 'email.to');
    await assertViolation(
      writer.notifications.createNotificationChannel({
        name: 'x',
        config: { case: 'email', value: { to: ['ops@example.test'], smtpUrl: 'http://smtp.example.test' } },
      }),
      'email.smtpUrl',
    );
    await assertViolation(writer.notifications.createNotificationChannel({ config: { case: 'desktop', value: {} } }), 'name');
    await assertViolation(writer.notifications.createNotificationChannel({ name: 'no kind' }), 'kind');
    await assertViolation(
      writer.notifications.createNotificationChannel({ name: 'x', monitorIds: ['abc'], config: { case: 'desktop', value: {} } }),
      'monitorIds.0',
    );
    const foreignMonitor = (
      await other.monitors.createTCPMonitor({ monitor: { name: 'theirs', uri: 'x.internal:1', periodicity: Periodicity.PERIODICITY_1M } })
    ).monitor!;
    await assertCode(
      writer.notifications.createNotificationChannel({ name: 'x', monitorIds: [foreignMonitor.id], config: { case: 'desktop', value: {} } }),
      Code.NotFound,
    );
    const desktop = (await writer.notifications.createNotificationChannel({ name: 'Desk', config: { case: 'desktop', value: {} } })).channel!;
    await assertViolation(writer.notifications.updateNotificationChannel({ id: desktop.id, updateMask: { paths: ['kind'] } }), 'update_mask');
    await assertViolation(writer.notifications.updateNotificationChannel({ id: desktop.id, updateMask: { paths: ['name'] } }), 'name');
    // A channel never changes kind, even when the other kind has the same fields.
    await assertViolation(
      writer.notifications.updateNotificationChannel({ id: desktop.id, config: { case: 'ntfy', value: { topic: 'x' } } }),
      'kind',
      /desktop channel and cannot become a ntfy channel/,
    );
    const slack = (
      await writer.notifications.createNotificationChannel({
        name: 'Chat',
        config: { case: 'slack', value: { webhookUrl: 'https://hooks.example.test/services/T1' } },
      })
    ).channel!;
    await assertViolation(
      writer.notifications.updateNotificationChannel({
        id: slack.id,
        config: { case: 'discord', value: { webhookUrl: 'https://discord.example.test/api/webhooks/1' } },
      }),
      'kind',
      /cannot become a discord channel/,
    );
    await writer.notifications.deleteNotificationChannel({ id: slack.id });
    await writer.notifications.deleteNotificationChannel({ id: desktop.id });
  });

  test('a read key reads but changes and sends nothing; ids of other workspaces are not found', async () => {
    const channel = (await writer.notifications.createNotificationChannel({ name: 'Guarded', config: { case: 'desktop', value: {} } })).channel!;
    await reader.notifications.getNotificationChannel({ id: channel.id });
    for (const call of [
      () => reader.notifications.createNotificationChannel({ name: 'x', config: { case: 'desktop', value: {} } }),
      () => reader.notifications.updateNotificationChannel({ id: channel.id, name: 'x' }),
      () => reader.notifications.deleteNotificationChannel({ id: channel.id }),
      () => reader.notifications.sendTestNotification({ id: channel.id }),
    ]) {
      await assertCode(call(), Code.PermissionDenied);
    }
    for (const [client, ref] of [
      [other, channel.id],
      [writer, '999999'],
    ] as const) {
      await assertCode(client.notifications.getNotificationChannel({ id: ref }), Code.NotFound);
      await assertCode(client.notifications.updateNotificationChannel({ id: ref, name: 'x' }), Code.NotFound);
      await assertCode(client.notifications.deleteNotificationChannel({ id: ref }), Code.NotFound);
      await assertCode(client.notifications.sendTestNotification({ id: ref }), Code.NotFound);
    }
    assert.equal((await other.notifications.listNotificationChannels({})).pagination!.totalSize, 0);
    assert.deepEqual((await writer.notifications.getNotificationChannel({ id: channel.id })).channel, channel);
  });
});

// ---- the client library ----------------------------------------------------------------------

describe('statusdesk/client exports the page services', () => {
  test('namespaces keep each package’s Pagination apart', () => {
    assert.notEqual(statusReportV1.PaginationSchema.typeName, maintenanceV1.PaginationSchema.typeName);
    assert.equal(statusReportV1.StatusReportService.typeName, 'status_report.v1.StatusReportService');
    assert.equal(statusPageV1.StatusPageService.typeName, 'status_page.v1.StatusPageService');
  });
});
