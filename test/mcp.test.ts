/**
 * The MCP server at {apiUrl}/mcp, driven by the official SDK client over real HTTP against the
 * running service (real SQLite, real checks against loopback targets, a real SMTP receiver):
 * every tool on real data, resources, the publishing tools' notify rules, errors, and both
 * protocol eras. Scopes, plans and the HTTP edge are in mcp-scopes.test.ts.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { queryRows } from './support/database.ts';
import type { Actor } from '../server/domain/actor.ts';
import type { Services } from '../server/services.ts';
import { closedPort } from './support/grpc-peers.ts';
import { daysFromNow, startTestService, type TestService } from './support/harness.ts';
import {
  ALL_TOOLS,
  assertRpcError,
  connectMcp,
  ERAS,
  INVALID_PARAMS,
  type McpConnection,
  MUTATION_TOOLS,
  ok,
  PUBLISHING_TOOLS,
  READ_TOOLS,
  toolError,
} from './support/mcp-client.ts';
import { type HttpReceiver, linkIn, type SmtpReceiver, startHttpReceiver, startSmtpReceiver } from './support/receivers.ts';
import { eventually } from './support/wait.ts';

const system: Actor = { type: 'system', surface: 'cli' };
const DAY_MS = 86_400_000;

// ---- helpers -------------------------------------------------------------------------------------

const sortedKeys = (value: object) => Object.keys(value).sort();
/** Asserts every field the contract names is present (records may carry more). */
function assertFields(value: object, fields: string[], what: string) {
  const missing = fields.filter((f) => !(f in value));
  assert.deepEqual(missing, [], `${what} lacks ${missing.join(', ')}: ${JSON.stringify(value)}`);
}
const PAGINATION_KEYS = ['page', 'perPage', 'totalPages', 'totalSize'];

function assertPagination(pagination: unknown, expected: { page: number; perPage: number; totalSize: number }) {
  assert.ok(pagination && typeof pagination === 'object', 'no pagination object');
  assert.deepEqual(sortedKeys(pagination), PAGINATION_KEYS);
  assert.deepEqual(pagination, { ...expected, totalPages: Math.ceil(expected.totalSize / expected.perPage) });
}

/** Asserts the list is sorted by `field` (ISO times) from the newest. */
function assertNewestFirst(items: Record<string, unknown>[], field: string) {
  const times = items.map((i) => Date.parse(String(i[field])));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => b - a),
    `not newest first by ${field}: ${JSON.stringify(items.map((i) => i[field]))}`,
  );
}

/** A monitor's id, as text: MCP carries it as the integer monitorId (ids are strings except monitorId). */
function idOf(monitor: Record<string, unknown>): string {
  assert.ok(Number.isSafeInteger(monitor.monitorId), `monitorId is not an integer: ${JSON.stringify(monitor).slice(0, 200)}`);
  return String(monitor.monitorId);
}

/** A loopback HTTP target answering 200 with a cookie and a plain header. */
async function startTarget(): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': 'session=COOKIE-SECRET-1; HttpOnly', 'x-trace': 'trace-7' }).end('healthy');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  server.unref();
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`, server };
}

// ---- the service ---------------------------------------------------------------------------------

let svc: TestService;
let services: Services;
let ws: number;
let otherWs: number;
let smtp: SmtpReceiver;
let target: { url: string; server: Server };
let writeKey: { id: string; secret: string };
let readKey: { id: string; secret: string };
let ownerId: number;
let writer: McpConnection;
let reader: McpConnection;

before(
  async () => {
    smtp = await startSmtpReceiver({ lifetimeMs: 180_000 });
    target = await startTarget();
    svc = await startTestService({ STATUSDESK_SMTP_URL: smtp.url, STATUSDESK_MAIL_FROM: 'Status <status@acme.test>' });
    services = svc.services;
    ws = Number((await services.workspaces.getBySlug(system, 'personal')).id);
    writeKey = await svc.createKey('write');
    readKey = await svc.createKey('read');
    const actor = await services.keys.authenticate(writeKey.secret, 'rpc');
    assert.ok(actor?.userId, 'the key has no creator');
    ownerId = actor.userId;
    const owner: Actor = { type: 'user', userId: ownerId, surface: 'cli' };
    otherWs = Number((await services.workspaces.create(owner, { name: 'Other', slug: 'mcp-other', plan: 'scale' })).id);
    writer = await connectMcp(svc.apiUrl, '2025-11-25', writeKey.secret);
    reader = await connectMcp(svc.apiUrl, '2025-11-25', readKey.secret);
  },
  { timeout: 60_000 },
);

after(async () => {
  await writer?.close();
  await reader?.close();
  await svc?.stop();
  await smtp?.close();
  target?.server.close();
});

// ---- the tool list -------------------------------------------------------------------------------

describe('tools/list', { timeout: 120_000 }, () => {
  test('a write key on a scale workspace gets all 23 tools, each annotated, with input and output schemas', async () => {
    const { tools } = await writer.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ALL_TOOLS);
    assert.equal(tools.length, 23);
    for (const tool of tools) {
      const a = tool.annotations;
      assert.ok(a, `${tool.name} has no annotations`);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint'] as const) {
        assert.equal(typeof a[hint], 'boolean', `${tool.name}.${hint} is not set`);
      }
      const isRead = (READ_TOOLS as readonly string[]).includes(tool.name);
      assert.equal(a.readOnlyHint, isRead, `${tool.name}.readOnlyHint`);
      if (isRead) assert.equal(a.destructiveHint, false, `${tool.name} reads but says it is destructive`);
      assert.ok(tool.description && tool.description.length > 10, `${tool.name} has no description`);
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.outputSchema?.type, 'object', `${tool.name} has no outputSchema`);
    }
    // Publishing twice publishes twice.
    for (const name of ['create_status_report', 'add_status_report_update', 'create_maintenance']) {
      assert.equal(tools.find((t) => t.name === name)!.annotations!.idempotentHint, false, `${name} says it is idempotent`);
    }
  });

  test('notify is a required boolean of every publishing tool; update_status_report has none', async () => {
    const { tools } = await writer.client.listTools();
    for (const name of PUBLISHING_TOOLS) {
      const schema = tools.find((t) => t.name === name)!.inputSchema as { properties?: Record<string, { type?: string }>; required?: string[] };
      assert.equal(schema.properties?.notify?.type, 'boolean', `${name}.notify`);
      assert.ok(schema.required?.includes('notify'), `${name} does not require notify`);
    }
    const update = tools.find((t) => t.name === 'update_status_report')!.inputSchema as { properties?: Record<string, unknown> };
    assert.ok(!('notify' in (update.properties ?? {})), 'update_status_report has a notify field');
    assert.deepEqual(
      MUTATION_TOOLS.filter((n) => !(PUBLISHING_TOOLS as readonly string[]).includes(n)),
      ['update_status_report'],
    );
  });
});

// ---- pages, components, reports, maintenance -------------------------------------------------------

describe('status pages and components', { timeout: 120_000 }, () => {
  let pageId: string;
  let monitorId: string;

  before(async () => {
    monitorId = (await services.monitors.create(system, ws, 'tcp', { name: 'pages db', uri: 'db.internal:5432', periodicity: '1m' })).id;
    pageId = (await services.pages.create(system, ws, { slug: 'mcp-acme', title: 'Acme', description: 'Our services' })).id;
    await services.pages.addComponent(system, ws, pageId, { name: 'API', description: 'Public API', monitorId });
    await services.pages.addComponent(system, ws, pageId, { name: 'Docs', group: 'Web' });
  });

  test('list_status_pages: every page with id, slug, title, description, url and times, unpaginated', async () => {
    const second = await services.pages.create(system, ws, { slug: 'mcp-acme-internal', title: 'Internal' });
    const listed = ok(await reader.call('list_status_pages'));
    assert.deepEqual(Object.keys(listed), ['statusPages']);
    const acme = listed.statusPages.find((p: any) => p.id === pageId);
    assert.ok(acme, `page ${pageId} not listed`);
    assertFields(acme, ['createdAt', 'description', 'id', 'slug', 'title', 'updatedAt', 'url'], 'a status page');
    assert.deepEqual([acme.slug, acme.title, acme.description, acme.url], ['mcp-acme', 'Acme', 'Our services', `${svc.apiUrl}/status/mcp-acme`]);
    assert.equal(typeof acme.id, 'string');
    assert.ok(!Number.isNaN(Date.parse(acme.createdAt)) && !Number.isNaN(Date.parse(acme.updatedAt)));
    assert.ok(listed.statusPages.some((p: any) => p.id === second.id && p.slug === 'mcp-acme-internal'));
    // A page of another workspace is not listed.
    const foreign = await services.pages.create(system, otherWs, { slug: 'mcp-foreign', title: 'Foreign' });
    assert.ok(!ok(await reader.call('list_status_pages')).statusPages.some((p: any) => p.id === foreign.id));
  });

  test('list_page_components: by id or slug; monitor components name their monitor as a string', async () => {
    const byId = ok(await reader.call('list_page_components', { pageId }));
    const bySlug = ok(await reader.call('list_page_components', { pageId: 'mcp-acme' }));
    assert.deepEqual(byId, bySlug);
    assert.deepEqual(Object.keys(byId), ['components']);
    assert.equal(byId.components.length, 2);
    for (const c of byId.components) {
      assertFields(c, ['description', 'group', 'id', 'monitorId', 'name', 'pageId', 'position', 'type'], 'a page component');
    }
    const [api, docs] = byId.components;
    assert.deepEqual(
      [api.pageId, api.name, api.description, api.type, api.monitorId, api.group, api.position],
      [pageId, 'API', 'Public API', 'monitor', monitorId, null, 0],
    );
    assert.deepEqual([docs.type, docs.monitorId, docs.group, docs.position], ['static', null, 'Web', 1]);
    assert.equal(typeof api.id, 'string');
  });

  test('unknown pages and pages of other workspaces are NOT_FOUND', async () => {
    toolError(await reader.call('list_page_components', { pageId: '999999' }), 'NOT_FOUND', /999999/);
    toolError(await reader.call('list_page_components', { pageId: 'no-such-page' }), 'NOT_FOUND');
    const foreign = await services.pages.create(system, otherWs, { slug: 'mcp-foreign-2', title: 'Foreign' });
    toolError(await reader.call('list_page_components', { pageId: foreign.id }), 'NOT_FOUND');
    toolError(await reader.call('list_page_components', { pageId: 'mcp-foreign-2' }), 'NOT_FOUND');
  });
});

describe('status reports', { timeout: 120_000 }, () => {
  let pageId: string;
  let componentIds: string[];
  let otherPageComponentId: string;

  before(async () => {
    pageId = (await services.pages.create(system, ws, { slug: 'mcp-incidents', title: 'Incidents' })).id;
    componentIds = [];
    for (const name of ['API', 'Web']) componentIds.push((await services.pages.addComponent(system, ws, pageId, { name })).id);
    const otherPage = await services.pages.create(system, ws, { slug: 'mcp-incidents-elsewhere', title: 'Elsewhere' });
    otherPageComponentId = (await services.pages.addComponent(system, ws, otherPage.id, { name: 'Other' })).id;
  });

  test('create, add an update, edit, resolve: each answers the whole report', async () => {
    const created = ok(
      await writer.call('create_status_report', {
        pageId,
        title: 'API errors',
        message: 'We are looking into it',
        pageComponentIds: [componentIds[0]],
        notify: false,
      }),
    );
    assert.deepEqual(sortedKeys(created), ['notified', 'statusReport']);
    assert.equal(created.notified, false);
    const report = created.statusReport;
    assert.equal(typeof report.id, 'string');
    // The status defaults to investigating.
    assert.deepEqual(
      [report.pageId, report.title, report.status, report.resolved, report.pageComponentIds],
      [pageId, 'API errors', 'investigating', false, [componentIds[0]]],
    );
    assert.equal(report.updates.length, 1);
    assert.deepEqual([report.updates[0].status, report.updates[0].message], ['investigating', 'We are looking into it']);

    const updated = ok(
      await writer.call('add_status_report_update', { statusReportId: report.id, status: 'identified', message: 'A bad deploy', notify: false }),
    );
    assert.deepEqual(sortedKeys(updated), ['notified', 'statusReport']);
    assert.equal(updated.notified, false);
    assert.equal(updated.statusReport.status, 'identified');
    assert.deepEqual(
      updated.statusReport.updates.map((u: any) => u.message),
      ['A bad deploy', 'We are looking into it'],
    );

    // Editing adds no update and answers no notified.
    const edited = ok(
      await writer.call('update_status_report', { statusReportId: report.id, title: 'API 500 errors', status: 'monitoring', pageComponentIds: componentIds }),
    );
    assert.deepEqual(Object.keys(edited), ['statusReport']);
    assert.deepEqual(
      [edited.statusReport.title, edited.statusReport.status, edited.statusReport.pageComponentIds, edited.statusReport.updates.length],
      ['API 500 errors', 'monitoring', componentIds, 2],
    );
    const retitled = ok(await writer.call('update_status_report', { statusReportId: report.id, title: 'API errors again' }));
    // pageId takes the slug too.
    const bySlug = ok(
      await writer.call('create_status_report', { pageId: 'mcp-incidents', title: 'By slug', status: 'identified', message: 'm', notify: false }),
    );
    assert.deepEqual([bySlug.statusReport.pageId, bySlug.statusReport.status], [pageId, 'identified']);
    assert.deepEqual(
      [retitled.statusReport.title, retitled.statusReport.status, retitled.statusReport.pageComponentIds],
      ['API errors again', 'monitoring', componentIds],
    );

    const resolved = ok(await writer.call('resolve_status_report', { statusReportId: report.id, message: 'Rolled back', notify: false }));
    assert.equal(resolved.notified, false);
    assert.deepEqual(
      [resolved.statusReport.status, resolved.statusReport.resolved, resolved.statusReport.updates.length, resolved.statusReport.updates[0].message],
      ['resolved', true, 3, 'Rolled back'],
    );
    // What MCP answered is what the service stored.
    const stored = await services.reports.get(system, ws, report.id);
    assert.deepEqual(JSON.parse(JSON.stringify(stored)), resolved.statusReport);
  });

  test('list_status_reports: active by default, all on request, newest first, paginated, by page id or slug', async () => {
    const page = await services.pages.create(system, ws, { slug: 'mcp-listed', title: 'Listed' });
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      ids.push(ok(await writer.call('create_status_report', { pageId: page.id, title: `Report ${n}`, message: 'm', notify: false })).statusReport.id);
    }
    ok(await writer.call('resolve_status_report', { statusReportId: ids[0], message: 'done', notify: false }));

    const active = ok(await reader.call('list_status_reports', { pageId: 'mcp-listed' }));
    assert.deepEqual(sortedKeys(active), ['pagination', 'statusReports']);
    assert.deepEqual(
      active.statusReports.map((r: any) => r.id),
      [ids[2], ids[1]],
    );
    assertPagination(active.pagination, { page: 1, perPage: 50, totalSize: 2 });

    const first = ok(await reader.call('list_status_reports', { pageId: page.id, filter: 'all', perPage: 2 }));
    assert.deepEqual(
      first.statusReports.map((r: any) => r.id),
      [ids[2], ids[1]],
    );
    assertPagination(first.pagination, { page: 1, perPage: 2, totalSize: 3 });
    const second = ok(await reader.call('list_status_reports', { pageId: page.id, filter: 'all', perPage: 2, page: 2 }));
    assert.deepEqual(
      second.statusReports.map((r: any) => r.id),
      [ids[0]],
    );
    assert.equal(second.statusReports[0].resolved, true);
    assertPagination(second.pagination, { page: 2, perPage: 2, totalSize: 3 });

    // Without a page: every page of the workspace, newest first.
    const all = ok(await reader.call('list_status_reports', { filter: 'all', perPage: 200 }));
    assert.ok(all.statusReports.length >= 3);
    assertNewestFirst(all.statusReports, 'createdAt');
    assert.deepEqual(
      all.statusReports.slice(0, 3).map((r: any) => r.id),
      [ids[2], ids[1], ids[0]],
    );

    await assertRpcError(reader.call('list_status_reports', { perPage: 201 }), INVALID_PARAMS);
    await assertRpcError(reader.call('list_status_reports', { perPage: 0 }), INVALID_PARAMS);
    await assertRpcError(reader.call('list_status_reports', { page: 0 }), INVALID_PARAMS);
    await assertRpcError(reader.call('list_status_reports', { filter: 'bogus' }), INVALID_PARAMS);
    toolError(await reader.call('list_status_reports', { pageId: '999999' }), 'NOT_FOUND');
  });

  test('unknown reports and components of another page are NOT_FOUND; nothing is created or changed', async () => {
    const before = ok(await reader.call('list_status_reports', { pageId, filter: 'all', perPage: 200 })).pagination.totalSize;
    const error = toolError(
      await writer.call('create_status_report', { pageId, title: 'x', message: 'y', pageComponentIds: [otherPageComponentId], notify: false }),
      'NOT_FOUND',
    );
    assert.match(error.message, new RegExp(otherPageComponentId));
    toolError(await writer.call('create_status_report', { pageId: '999999', title: 'x', message: 'y', notify: false }), 'NOT_FOUND');
    toolError(await writer.call('create_status_report', { pageId, title: 'x', message: 'y', pageComponentIds: ['999999'], notify: false }), 'NOT_FOUND');
    assert.equal(ok(await reader.call('list_status_reports', { pageId, filter: 'all', perPage: 200 })).pagination.totalSize, before);

    const report = ok(await writer.call('create_status_report', { pageId, title: 'Kept', message: 'm', notify: false })).statusReport;
    toolError(await writer.call('update_status_report', { statusReportId: report.id, pageComponentIds: [otherPageComponentId] }), 'NOT_FOUND');
    for (const [name, args] of [
      ['add_status_report_update', { statusReportId: '999999', status: 'identified', message: 'x', notify: false }],
      ['update_status_report', { statusReportId: '999999', title: 'x' }],
      ['resolve_status_report', { statusReportId: '999999', message: 'x', notify: false }],
    ] as const) {
      const e = toolError(await writer.call(name, args), 'NOT_FOUND');
      assert.match(e.message, /999999/);
    }
    // A report of another workspace is as unknown.
    const foreignPage = await services.pages.create(system, otherWs, { slug: 'mcp-foreign-reports', title: 'Foreign' });
    const foreign = await services.reports.create(system, otherWs, { pageId: foreignPage.id, title: 'Theirs', message: 'm', notify: false });
    toolError(await writer.call('resolve_status_report', { statusReportId: foreign.report.id, message: 'x', notify: false }), 'NOT_FOUND');
    assert.equal((await services.reports.get(system, otherWs, foreign.report.id)).resolved, false);
    const unchanged = await services.reports.get(system, ws, report.id);
    assert.deepEqual([unchanged.pageComponentIds, unchanged.title], [[], 'Kept']);
  });

  test('invalid values are VALIDATION results or input-schema errors, never a change', async () => {
    await assertRpcError(writer.call('create_status_report', { pageId, title: 'x', message: 'y', status: 'on-fire', notify: false }), INVALID_PARAMS);
    await assertRpcError(writer.call('create_status_report', { pageId, message: 'y', notify: false }), INVALID_PARAMS);
    await assertRpcError(writer.call('create_status_report', { pageId, title: 'x', message: 'y', notify: 'yes' }), INVALID_PARAMS);
    await assertRpcError(writer.call('no_such_tool', {}), INVALID_PARAMS, undefined, /no_such_tool/);
  });
});

describe('maintenance windows', { timeout: 120_000 }, () => {
  let pageId: string;
  let componentId: string;
  let otherPageComponentId: string;

  before(async () => {
    pageId = (await services.pages.create(system, ws, { slug: 'mcp-planned', title: 'Planned' })).id;
    componentId = (await services.pages.addComponent(system, ws, pageId, { name: 'Database' })).id;
    const otherPage = await services.pages.create(system, ws, { slug: 'mcp-planned-elsewhere', title: 'Elsewhere' });
    otherPageComponentId = (await services.pages.addComponent(system, ws, otherPage.id, { name: 'Other' })).id;
  });

  test('create_maintenance: ISO 8601 with a zone, stored as UTC; list_maintenances newest first, paginated', async () => {
    const created = ok(
      await writer.call('create_maintenance', {
        pageId: 'mcp-planned',
        title: 'DB upgrade',
        message: 'Read-only for an hour',
        from: '2031-03-01T10:00:00+02:00',
        to: '2031-03-01T11:00:00+02:00',
        pageComponentIds: [componentId],
        notify: false,
      }),
    );
    assert.deepEqual(sortedKeys(created), ['maintenance', 'notified']);
    assert.equal(created.notified, false);
    const m = created.maintenance;
    assert.equal(typeof m.id, 'string');
    assert.deepEqual(
      [m.pageId, m.title, m.message, Date.parse(m.from), Date.parse(m.to), m.pageComponentIds],
      [pageId, 'DB upgrade', 'Read-only for an hour', Date.parse('2031-03-01T08:00:00Z'), Date.parse('2031-03-01T09:00:00Z'), [componentId]],
    );
    // Without a message it is created with none.
    const ids = [m.id];
    // Each later window also starts later: newest first reads the same by creation or by start.
    for (const day of [2, 3]) {
      ids.push(
        ok(
          await writer.call('create_maintenance', {
            pageId,
            title: `Day ${day}`,
            from: `2031-03-0${day}T10:00:00Z`,
            to: `2031-03-0${day}T11:00:00Z`,
            notify: false,
          }),
        ).maintenance.id,
      );
    }
    const first = ok(await reader.call('list_maintenances', { pageId, perPage: 2 }));
    assert.deepEqual(sortedKeys(first), ['maintenances', 'pagination']);
    assert.deepEqual(
      first.maintenances.map((w: any) => w.id),
      [ids[2], ids[1]],
    );
    assertPagination(first.pagination, { page: 1, perPage: 2, totalSize: 3 });
    const second = ok(await reader.call('list_maintenances', { pageId: 'mcp-planned', perPage: 2, page: 2 }));
    assert.deepEqual(
      second.maintenances.map((w: any) => w.id),
      [ids[0]],
    );
    const all = ok(await reader.call('list_maintenances'));
    assert.equal(all.pagination.perPage, 50);
    assert.equal(all.pagination.page, 1);
    assert.ok(all.pagination.totalSize >= 3);
    await assertRpcError(reader.call('list_maintenances', { perPage: 201 }), INVALID_PARAMS);
    toolError(await reader.call('list_maintenances', { pageId: '999999' }), 'NOT_FOUND');
  });

  test('refused: dates without a zone, a window that ends first, unknown pages and components of another page', async () => {
    const count = async () => ok(await reader.call('list_maintenances', { pageId, perPage: 200 })).pagination.totalSize;
    const before = await count();
    const base = { pageId, title: 'x', notify: false };
    /** VALIDATION as a tool result, or an input-schema error: either way refused and nothing made. */
    const refused = async (args: Record<string, unknown>, field: RegExp) => {
      try {
        const result = await writer.call('create_maintenance', args);
        toolError(result, 'VALIDATION', field);
      } catch (error) {
        assert.equal((error as { code?: number }).code, INVALID_PARAMS, String(error));
      }
    };
    await refused({ ...base, from: '2031-11-21T22:00:00', to: '2031-11-22T22:00:00Z' }, /from/);
    await refused({ ...base, from: 'tomorrow', to: '2031-11-22T22:00:00Z' }, /from/);
    await refused({ ...base, from: '2031-11-22T22:00:00Z', to: '2031-11-21T22:00:00Z' }, /to/);
    toolError(await writer.call('create_maintenance', { ...base, pageId: '999999', from: daysFromNow(1), to: daysFromNow(2) }), 'NOT_FOUND');
    toolError(
      await writer.call('create_maintenance', { ...base, from: daysFromNow(1), to: daysFromNow(2), pageComponentIds: [otherPageComponentId] }),
      'NOT_FOUND',
    );
    assert.equal(await count(), before);
  });
});

// ---- monitors and checks -------------------------------------------------------------------------

describe('monitors', { timeout: 120_000 }, () => {
  let tcp: { id: string };
  let grpc: { id: string };
  let http: { id: string };
  let down: { id: string };
  let foreignHttp: { id: string };
  let foreignLogId: string;

  before(async () => {
    tcp = await services.monitors.create(system, ws, 'tcp', {
      name: 'mcp tcp',
      uri: 'db.internal:5432',
      periodicity: '1m',
      regions: ['iad', 'fra'],
      tags: ['db'],
    });
    grpc = await services.monitors.create(system, ws, 'grpc', {
      name: 'mcp grpc',
      uri: 'api.internal:50051',
      periodicity: '5m',
      regions: ['jnb'],
      tls: 'plaintext',
      service: 'my.pkg.Api',
    });
    http = await services.monitors.create(system, ws, 'http', {
      name: 'mcp http',
      url: target.url,
      periodicity: '30s',
      regions: ['iad', 'fra'],
      retry: 1,
      timeout: 5000,
    });
    down = await services.monitors.create(system, ws, 'tcp', {
      name: 'mcp down',
      uri: `127.0.0.1:${await closedPort()}`,
      periodicity: '1m',
      regions: ['iad'],
      retry: 0,
      timeout: 1000,
    });
    foreignHttp = await services.monitors.create(system, otherWs, 'http', { name: 'theirs', url: target.url, periodicity: '1m', regions: ['iad'] });
    await services.monitors.trigger(system, otherWs, foreignHttp.id);
    foreignLogId = (await services.monitors.responseLogs(system, otherWs, foreignHttp.id)).at(0)!.id;
  });

  test('list_monitors: every type, newest first, with activeIncidentCount; paginated with perPage at most 50', async () => {
    const listed = ok(await reader.call('list_monitors'));
    assert.deepEqual(sortedKeys(listed), ['monitors', 'pagination']);
    assert.equal(listed.pagination.page, 1);
    assert.equal(listed.pagination.perPage, 50);
    const ids = listed.monitors.map(idOf);
    const mine = [down.id, http.id, grpc.id, tcp.id];
    assert.deepEqual(
      ids.filter((id: string) => mine.includes(id)),
      mine,
      'not newest first',
    );
    assert.ok(!ids.includes(foreignHttp.id), 'a monitor of another workspace is listed');
    assertNewestFirst(listed.monitors, 'createdAt');
    for (const m of listed.monitors) assert.equal(typeof m.activeIncidentCount, 'number', `monitor ${idOf(m)} has no activeIncidentCount`);
    const types = Object.fromEntries(listed.monitors.map((m: any) => [idOf(m), m.type]));
    assert.deepEqual([types[tcp.id], types[grpc.id], types[http.id]], ['tcp', 'grpc', 'http']);

    const total = listed.pagination.totalSize;
    assert.equal(total, listed.monitors.length);
    const paged = ok(await reader.call('list_monitors', { perPage: 2, page: 2 }));
    assert.deepEqual(paged.monitors.map(idOf), ids.slice(2, 4));
    assertPagination(paged.pagination, { page: 2, perPage: 2, totalSize: total });
    await assertRpcError(reader.call('list_monitors', { perPage: 51 }), INVALID_PARAMS);
    await assertRpcError(reader.call('list_monitors', { page: 0 }), INVALID_PARAMS);
  });

  test('activeIncidentCount: one while the monitor is down, plus one per unresolved report naming its component', async () => {
    // A monitor of its own, never checked, whatever ran before.
    const down = await services.monitors.create(system, ws, 'tcp', {
      name: 'mcp counted',
      uri: `127.0.0.1:${await closedPort()}`,
      periodicity: '1m',
      regions: ['iad'],
      retry: 0,
      timeout: 1000,
    });
    const count = async (id: string) => ok(await reader.call('list_monitors', { perPage: 50 })).monitors.find((m: any) => idOf(m) === id).activeIncidentCount;
    assert.equal(await count(down.id), 0);
    assert.equal((await services.monitors.trigger(system, ws, down.id))[0]!.result, 'down');
    assert.equal(await count(down.id), 1);
    const page = await services.pages.create(system, ws, { slug: 'mcp-incident-count', title: 'Count' });
    const component = await services.pages.addComponent(system, ws, page.id, { name: 'Down', monitorId: down.id });
    const report = ok(
      await writer.call('create_status_report', { pageId: page.id, title: 'Down', message: 'm', pageComponentIds: [component.id], notify: false }),
    ).statusReport;
    assert.equal(await count(down.id), 2);
    ok(await writer.call('resolve_status_report', { statusReportId: report.id, message: 'ok', notify: false }));
    assert.equal(await count(down.id), 1);
    assert.equal(await count(tcp.id), 0);
  });

  test('get_monitor: the full configuration of each type, without status or latency', async () => {
    const tcpMonitor = ok(await reader.call('get_monitor', { monitorId: Number(tcp.id) }));
    assert.deepEqual(Object.keys(tcpMonitor), ['monitor']);
    const m = tcpMonitor.monitor;
    assert.equal(idOf(m), tcp.id);
    assert.deepEqual(
      [m.type, m.name, m.uri, m.periodicity, m.regions, m.timeout, m.retry, m.tags],
      ['tcp', 'mcp tcp', 'db.internal:5432', '1m', ['iad', 'fra'], 45_000, 3, ['db']],
    );
    for (const field of ['status', 'overall', 'latency', 'latencyMs', 'regionsStatus']) assert.ok(!(field in m), `get_monitor carries ${field}`);

    const g = ok(await reader.call('get_monitor', { monitorId: Number(grpc.id) })).monitor;
    assert.deepEqual([g.type, g.uri, g.service, g.tls, g.regions, g.periodicity], ['grpc', 'api.internal:50051', 'my.pkg.Api', 'plaintext', ['jnb'], '5m']);
    const h = ok(await reader.call('get_monitor', { monitorId: Number(http.id) })).monitor;
    assert.deepEqual([h.type, h.url, h.method, h.retry, h.timeout, h.periodicity], ['http', target.url, 'GET', 1, 5000, '30s']);
    // The wired notification channels are part of the configuration (SPEC 2.6).
    const channel = await services.channels.create(system, ws, { name: 'mcp wired', kind: 'desktop', monitorIds: [tcp.id] });
    const wired = JSON.stringify(ok(await reader.call('get_monitor', { monitorId: Number(tcp.id) })).monitor);
    assert.ok(wired.includes(channel.id) || wired.includes('mcp wired'), `get_monitor does not name the wired channel: ${wired}`);
  });

  test('monitorId is an integer: strings are refused by the input schema; unknown and foreign monitors are NOT_FOUND', async () => {
    await assertRpcError(reader.call('get_monitor', { monitorId: tcp.id }), INVALID_PARAMS);
    await assertRpcError(reader.call('get_monitor', { monitorId: 1.5 }), INVALID_PARAMS);
    await assertRpcError(reader.call('get_monitor', {}), INVALID_PARAMS);
    for (const name of ['get_monitor', 'get_monitor_status', 'get_monitor_summary', 'list_response_logs']) {
      const e = toolError(await reader.call(name, { monitorId: 999999 }), 'NOT_FOUND');
      assert.match(e.message, /999999/);
      toolError(await reader.call(name, { monitorId: Number(foreignHttp.id) }), 'NOT_FOUND');
    }
  });

  test('get_monitor_status: per region, null before any check; error after a failed one', async () => {
    const never = ok(await reader.call('get_monitor_status', { monitorId: Number(grpc.id) }));
    assert.deepEqual(sortedKeys(never), ['monitorId', 'overall', 'regions']);
    assert.deepEqual(never, { monitorId: Number(grpc.id), overall: null, regions: [{ region: 'jnb', status: null, lastCheckedAt: null }] });

    await services.monitors.trigger(system, ws, down.id);
    const failed = ok(await reader.call('get_monitor_status', { monitorId: Number(down.id) }));
    assert.equal(failed.overall, 'error');
    assert.equal(failed.regions.length, 1);
    assert.deepEqual([failed.regions[0].region, failed.regions[0].status], ['iad', 'error']);
    assert.ok(Date.now() - Date.parse(failed.regions[0].lastCheckedAt) < 60_000);
  });

  test('get_monitor_summary: counts and latency of the window, 1d by default', async () => {
    await services.monitors.trigger(system, ws, http.id);
    const summary = ok(await reader.call('get_monitor_summary', { monitorId: Number(http.id) }));
    assert.deepEqual(sortedKeys(summary), ['degradedCount', 'errorCount', 'gaps', 'lastPingAt', 'latency', 'monitorId', 'successCount', 'window']);
    assert.equal(summary.monitorId, Number(http.id));
    assert.equal(summary.window, '1d');
    assert.ok(summary.successCount >= 1);
    assert.deepEqual([summary.degradedCount, summary.errorCount], [0, 0]);
    assert.deepEqual(sortedKeys(summary.latency), ['p50', 'p75', 'p90', 'p95', 'p99']);
    const { p50, p75, p90, p95, p99 } = summary.latency;
    assert.ok(p50 >= 0 && p50 <= p75 && p75 <= p90 && p90 <= p95 && p95 <= p99, JSON.stringify(summary.latency));
    assert.ok(Array.isArray(summary.gaps));
    assert.ok(Date.now() - Date.parse(summary.lastPingAt) < 60_000);

    const status = ok(await reader.call('get_monitor_status', { monitorId: Number(http.id) }));
    assert.equal(status.overall, 'active');
    assert.deepEqual(
      status.regions.map((r: any) => [r.region, r.status]),
      [
        ['iad', 'active'],
        ['fra', 'active'],
      ],
    );
    const week = ok(await reader.call('get_monitor_summary', { monitorId: Number(http.id), window: '14d' }));
    assert.equal(week.window, '14d');
    assert.ok(week.successCount >= summary.successCount);
    const none = ok(await reader.call('get_monitor_summary', { monitorId: Number(grpc.id), window: '7d' }));
    assert.deepEqual([none.window, none.successCount, none.errorCount, none.latency, none.lastPingAt], ['7d', 0, 0, null, null]);
    await assertRpcError(reader.call('get_monitor_summary', { monitorId: Number(http.id), window: '30d' }), INVALID_PARAMS);
  });

  test('list_response_logs and get_response_log: real check results of an HTTP monitor, newest first, headers redacted', async () => {
    const fresh = await services.monitors.create(system, ws, 'http', {
      name: 'mcp logs',
      url: target.url,
      periodicity: '1m',
      regions: ['iad', 'fra'],
      retry: 0,
      timeout: 5000,
    });
    for (let i = 0; i < 3; i++) {
      const results = await services.monitors.trigger(system, ws, fresh.id);
      assert.deepEqual(
        results.map((r) => r.result),
        ['up', 'up'],
      );
      await sleep(5);
    }
    const listed = ok(await reader.call('list_response_logs', { monitorId: Number(fresh.id) }));
    assert.deepEqual(sortedKeys(listed), ['limit', 'offset', 'responseLogs', 'window']);
    assert.deepEqual([listed.window, listed.limit, listed.offset], ['1d', 25, 0]);
    const logs = listed.responseLogs;
    assert.equal(logs.length, 6, 'three checks in two regions each');
    assertNewestFirst(logs, 'startedAt');
    assert.equal(new Set(logs.map((l: any) => l.id)).size, 6);
    for (const log of logs) {
      assert.deepEqual(sortedKeys(log), [
        'assertionResults',
        'attempts',
        'grpcStatus',
        'id',
        'latencyMs',
        'message',
        'monitorId',
        'region',
        'responseHeaders',
        'result',
        'runner',
        'startedAt',
        'statusCode',
        'timing',
        'url',
      ]);
      assert.equal(String(log.monitorId), fresh.id);
      assert.ok(['iad', 'fra'].includes(log.region));
      assert.deepEqual([log.result, log.statusCode, log.url, log.grpcStatus], ['up', 200, target.url, null]);
      assert.deepEqual(sortedKeys(log.timing), ['connect', 'dns', 'tls', 'total', 'transfer', 'ttfb']);
      assert.equal(typeof log.latencyMs, 'number');
      assert.equal(log.responseHeaders['x-trace'], 'trace-7');
      assert.notEqual(log.responseHeaders['set-cookie'], undefined);
      assert.ok(!JSON.stringify(log).includes('COOKIE-SECRET-1'), 'a cookie came back');
      assert.ok(Array.isArray(log.assertionResults));
    }

    const window = ok(await reader.call('list_response_logs', { monitorId: Number(fresh.id), limit: 2, offset: 2, window: '7d' }));
    assert.deepEqual([window.window, window.limit, window.offset], ['7d', 2, 2]);
    assert.deepEqual(window.responseLogs, logs.slice(2, 4));
    assert.deepEqual(ok(await reader.call('list_response_logs', { monitorId: Number(fresh.id), offset: 6 })).responseLogs, []);
    await assertRpcError(reader.call('list_response_logs', { monitorId: Number(fresh.id), limit: 101 }), INVALID_PARAMS);
    await assertRpcError(reader.call('list_response_logs', { monitorId: Number(fresh.id), limit: 0 }), INVALID_PARAMS);
    await assertRpcError(reader.call('list_response_logs', { monitorId: Number(fresh.id), offset: -1 }), INVALID_PARAMS);
    await assertRpcError(reader.call('list_response_logs', { monitorId: Number(fresh.id), window: '2d' }), INVALID_PARAMS);

    const one = ok(await reader.call('get_response_log', { responseLogId: logs[1].id }));
    assert.deepEqual(Object.keys(one), ['responseLog']);
    assert.deepEqual(one.responseLog, logs[1]);
    toolError(await reader.call('get_response_log', { responseLogId: '999999-iad' }), 'NOT_FOUND');
    toolError(await reader.call('get_response_log', { responseLogId: 'not-a-log' }), 'NOT_FOUND');
    // A log of another workspace's monitor is as absent.
    toolError(await reader.call('get_response_log', { responseLogId: foreignLogId }), 'NOT_FOUND');
    // Ids are strings except monitorId, an integer everywhere (as get_monitor_status answers it).
    assert.equal(logs[0].monitorId, Number(fresh.id), 'a response log carries monitorId as a string, not the integer');
  });

  test('list_response_logs of a TCP or gRPC monitor is a VALIDATION result', async () => {
    for (const monitor of [tcp, grpc]) {
      // The message names the field and the rule, as the REST envelope's violations do.
      toolError(await reader.call('list_response_logs', { monitorId: Number(monitor.id) }), 'VALIDATION', /^id: .*HTTP monitors only/);
    }
  });
});

// ---- channels, locations ----------------------------------------------------------------------------

describe('notification channels and private locations', { timeout: 120_000 }, () => {
  const secrets = {
    path: 'WEBHOOK-PATH-TOKEN-9',
    signing: 'webhook-signing-secret-0123456789',
    slack: 'SLACK-TOKEN-T000/B000/XXXX',
    header: 'Bearer header-credential-42',
  };

  test('list_notifications: channels with their monitors, credentials never returned, paginated', async () => {
    const monitor = await services.monitors.create(system, ws, 'tcp', { name: 'channel db', uri: 'db.internal:5432', periodicity: '1m' });
    const hook = await services.channels.create(system, ws, {
      name: 'mcp hook',
      kind: 'webhook',
      monitorIds: [monitor.id],
      config: { url: `http://127.0.0.1:9/alerts/${secrets.path}`, secret: secrets.signing, headers: { authorization: secrets.header } },
    });
    const slack = await services.channels.create(system, ws, {
      name: 'mcp slack',
      kind: 'slack',
      config: { webhookUrl: `https://hooks.slack.com/services/${secrets.slack}` },
    });
    await services.channels.create(system, otherWs, { name: 'their channel', kind: 'desktop' });

    const listed = ok(await reader.call('list_notifications', { perPage: 200 }));
    assert.deepEqual(sortedKeys(listed), ['notifications', 'pagination']);
    const text = JSON.stringify(listed);
    for (const [name, secret] of Object.entries(secrets)) assert.ok(!text.includes(secret), `the ${name} credential came back`);
    assert.ok(!text.includes('their channel'), 'a channel of another workspace is listed');
    const h = listed.notifications.find((c: any) => c.id === hook.id);
    assert.ok(h, 'the webhook channel is not listed');
    assert.deepEqual([h.name, h.kind, h.monitorIds.map(String)], ['mcp hook', 'webhook', [monitor.id]]);
    assert.deepEqual(listed.notifications.find((c: any) => c.id === slack.id).monitorIds, []);
    // Whether it serves every monitor, and is wired to new ones.
    assert.deepEqual([h.allMonitors, h.defaultForNew], [false, false]);
    const every = await services.channels.create(system, ws, { name: 'mcp every', kind: 'desktop', allMonitors: true, defaultForNew: true });
    const again = ok(await reader.call('list_notifications', { perPage: 200 }));
    const e = again.notifications.find((c: any) => c.id === every.id);
    assert.deepEqual([e.allMonitors, e.defaultForNew], [true, true]);
    await services.channels.delete(system, ws, every.id);
    assertPagination(listed.pagination, { page: 1, perPage: 200, totalSize: listed.notifications.length });

    const byDefault = ok(await reader.call('list_notifications'));
    assert.equal(byDefault.pagination.perPage, 50);
    const paged = ok(await reader.call('list_notifications', { perPage: 1, page: 2 }));
    assert.deepEqual(paged.notifications, [listed.notifications[1]]);
    assertPagination(paged.pagination, { page: 2, perPage: 1, totalSize: listed.notifications.length });
    await assertRpcError(reader.call('list_notifications', { perPage: 201 }), INVALID_PARAMS);
  });

  test('list_private_locations: name, status, metadata, lastSeenAt; agent tokens never returned', async () => {
    const now = new Date().toISOString();
    await queryRows(
      svc.dataDir,
      "insert into private_locations (name, status, metadata, regions, token_hash, last_seen_at, created_at) values ('rack-2', 'active', ?, ?, 'TOKEN-HASH-abcdef0123456789', ?, ?)",
      JSON.stringify({ rack: 'b2' }),
      JSON.stringify(['iad']),
      now,
      now,
    );
    await queryRows(
      svc.dataDir,
      "insert into private_locations (name, status, metadata, regions, token_hash, last_seen_at, created_at) values ('rack-3', 'active', '{}', null, 'TOKEN-HASH-99', null, ?)",
      now,
    );
    const listed = ok(await reader.call('list_private_locations'));
    assert.deepEqual(sortedKeys(listed), ['pagination', 'privateLocations']);
    assertPagination(listed.pagination, { page: 1, perPage: 50, totalSize: 3 });
    assert.ok(!JSON.stringify(listed).includes('TOKEN-HASH'), 'an agent token hash came back');
    for (const location of listed.privateLocations) {
      assertFields(location, ['id', 'lastSeenAt', 'metadata', 'name', 'status'], 'a private location');
      assert.ok(!Object.keys(location).some((k) => /token/i.test(k)), `a token field: ${Object.keys(location).join(', ')}`);
      assert.ok(['active', 'error'].includes(location.status));
    }
    const rack2 = listed.privateLocations.find((l: any) => l.name === 'rack-2');
    assert.deepEqual([rack2.status, rack2.metadata], ['active', { rack: 'b2' }]);
    // Never heard from: in error.
    const rack3 = listed.privateLocations.find((l: any) => l.name === 'rack-3');
    assert.deepEqual([rack3.status, rack3.lastSeenAt], ['error', null]);
    assert.ok(listed.privateLocations.some((l: any) => l.name === 'local'));

    const paged = ok(await reader.call('list_private_locations', { perPage: 1, page: 3 }));
    assert.deepEqual(paged.privateLocations, [listed.privateLocations[2]]);
    assertPagination(paged.pagination, { page: 3, perPage: 1, totalSize: 3 });
    assert.equal(ok(await reader.call('list_private_locations', { perPage: 100 })).pagination.perPage, 100);
    await assertRpcError(reader.call('list_private_locations', { perPage: 101 }), INVALID_PARAMS);
  });
});

// ---- audit log ---------------------------------------------------------------------------------------

describe('audit log', { timeout: 120_000 }, () => {
  test('MCP mutations are audited as mcp, by the key, for its creator; newest first; get_audit_log has the snapshots', async () => {
    const page = await services.pages.create(system, ws, { slug: 'mcp-audited', title: 'Audited' });
    const report = ok(await writer.call('create_status_report', { pageId: page.id, title: 'Audited', message: 'first', notify: false })).statusReport;
    ok(await writer.call('add_status_report_update', { statusReportId: report.id, status: 'identified', message: 'second', notify: false }));
    ok(await writer.call('update_status_report', { statusReportId: report.id, title: 'Audited twice' }));
    ok(await writer.call('resolve_status_report', { statusReportId: report.id, message: 'third', notify: false }));
    const maintenance = ok(
      await writer.call('create_maintenance', { pageId: page.id, title: 'Audited window', from: daysFromNow(1), to: daysFromNow(2), notify: false }),
    ).maintenance;

    const listed = ok(await reader.call('list_audit_logs', { entityType: 'status_report', entityId: report.id }));
    assert.deepEqual(sortedKeys(listed), ['auditLogs', 'pagination']);
    assertPagination(listed.pagination, { page: 1, perPage: 50, totalSize: 4 });
    const entries = listed.auditLogs;
    assert.equal(entries.length, 4);
    assertNewestFirst(entries, 'createdAt');
    const ids = entries.map((e: any) => Number(e.id));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
      'not newest first',
    );
    for (const entry of entries) {
      // The actor's fields as SPEC 2.10 and 6 name them, and under no other name.
      assert.deepEqual(
        sortedKeys(entry),
        ['action', 'actor_id', 'actor_type', 'actor_user_id', 'changedFields', 'createdAt', 'entityId', 'entityType', 'id'],
        'a listed audit entry',
      );
      assert.deepEqual(
        [entry.entityType, entry.entityId, entry.actor_type, entry.actor_id, entry.actor_user_id],
        ['status_report', report.id, 'mcp', writeKey.id, ownerId],
      );
      assert.equal(typeof entry.id, 'string');
    }
    const full = async (id: string) => {
      const one = ok(await reader.call('get_audit_log', { auditLogId: id }));
      assert.deepEqual(Object.keys(one), ['auditLog']);
      assert.deepEqual(sortedKeys(one.auditLog), [
        'action',
        'actor_id',
        'actor_type',
        'actor_user_id',
        'after',
        'before',
        'changedFields',
        'createdAt',
        'entityId',
        'entityType',
        'id',
      ]);
      return one.auditLog;
    };
    const fulls = await Promise.all(entries.map((e: any) => full(e.id)));
    const [resolve, edit, update, create] = fulls;
    // What the list shows of an entry, get_audit_log shows the same.
    entries.forEach((listed: any, i: number) => {
      const got = fulls[i];
      for (const [field, value] of Object.entries(listed)) assert.deepEqual(got[field], value, `${field} of entry ${listed.id}`);
    });
    assert.equal(create.before, null);
    assert.equal(create.after.title, 'Audited');
    assert.ok(update.action !== create.action);
    assert.ok(update.changedFields.includes('status'), JSON.stringify(update.changedFields));
    assert.deepEqual([edit.before.title, edit.after.title], ['Audited', 'Audited twice']);
    assert.deepEqual(edit.changedFields, ['title']);
    assert.deepEqual([resolve.before.resolved, resolve.after.resolved], [false, true]);
    assert.equal(new Set([resolve.action, edit.action, update.action, create.action]).size, 4, 'two kinds of change share an action name');

    const windows = ok(await reader.call('list_audit_logs', { entityType: 'maintenance' })).auditLogs;
    const created = windows.find((e: any) => e.entityId === maintenance.id);
    assert.ok(created, 'the maintenance window was not audited');
    assert.deepEqual([created.actor_type, created.actor_id, created.actor_user_id], ['mcp', writeKey.id, ownerId]);
    assert.ok(windows.every((e: any) => e.entityType === 'maintenance'));

    // Reading is not audited.
    const all = ok(await reader.call('list_audit_logs', { perPage: 50 }));
    assert.ok(
      all.auditLogs.every((e: any) => e.actor_id !== readKey.id),
      'a read was audited',
    );
    assertNewestFirst(all.auditLogs, 'createdAt');
    const paged = ok(await reader.call('list_audit_logs', { perPage: 2, page: 2 }));
    assert.deepEqual(paged.auditLogs, all.auditLogs.slice(2, 4));
    await assertRpcError(reader.call('list_audit_logs', { perPage: 51 }), INVALID_PARAMS);
    toolError(await reader.call('get_audit_log', { auditLogId: '999999' }), 'NOT_FOUND');
  });

  test('only the last 14 days are listed or read', async () => {
    const insert = async (days: number, entityId: string) => {
      const [row] = await queryRows<{ id: number }>(
        svc.dataDir,
        "insert into audit_log (workspace_id, entity_type, entity_id, action, actor_type, actor_id, actor_user_id, before, after, changed_fields, created_at) values (?, 'status_page', ?, 'status_page.update', 'mcp', ?, ?, ?, ?, '[\"title\"]', ?) returning id",
        ws,
        entityId,
        writeKey.id,
        ownerId,
        JSON.stringify({ title: 'a' }),
        JSON.stringify({ title: 'b' }),
        new Date(Date.now() - days * DAY_MS).toISOString(),
      );
      return row!.id;
    };
    const oldId = await insert(15, 'aged-page');
    const recentId = await insert(13, 'aged-page');
    const listed = ok(await reader.call('list_audit_logs', { entityType: 'status_page', entityId: 'aged-page' }));
    assert.deepEqual(
      listed.auditLogs.map((e: any) => e.id),
      [String(recentId)],
    );
    assert.equal(listed.pagination.totalSize, 1);
    assert.ok(!ok(await reader.call('list_audit_logs', { perPage: 50 })).auditLogs.some((e: any) => e.id === String(oldId)));
    toolError(await reader.call('get_audit_log', { auditLogId: String(oldId) }), 'NOT_FOUND');
    assert.equal(ok(await reader.call('get_audit_log', { auditLogId: String(recentId) })).auditLog.entityId, 'aged-page');
  });

  test('entries of another workspace are not listed or read', async () => {
    const foreignPage = await services.pages.create(system, otherWs, { slug: 'mcp-audit-foreign', title: 'Theirs' });
    const entries = ok(await reader.call('list_audit_logs', { entityType: 'status_page', entityId: foreignPage.id })).auditLogs;
    assert.deepEqual(entries, []);
    const [row] = await queryRows<{ id: number }>(svc.dataDir, 'select id from audit_log where workspace_id = ? order by id desc limit 1', otherWs);
    toolError(await reader.call('get_audit_log', { auditLogId: String(row!.id) }), 'NOT_FOUND');
  });
});

// ---- public content and resources ----------------------------------------------------------------

describe('docs and public content', { timeout: 120_000 }, () => {
  test('search_docs: docs by default, guides and changelog on request; get_doc_page returns the markdown', async () => {
    const docs = ok(await reader.call('search_docs', { query: 'maintenance' }));
    assert.deepEqual(Object.keys(docs), ['results']);
    assert.ok(docs.results.length > 0, 'no docs found for maintenance');
    for (const r of docs.results) {
      assert.deepEqual(sortedKeys(r), ['path', 'snippet', 'title', 'url']);
      assert.match(r.path, /^docs\/(reference\/|index)/);
      assert.equal(r.url, `${svc.apiUrl}/${r.path}`);
      assert.ok(r.title.length > 0 && r.snippet.length > 0);
    }
    const guides = ok(await reader.call('search_docs', { query: 'status page', type: 'guides' }));
    assert.ok(guides.results.length > 0, 'no guide found');
    assert.ok(
      guides.results.every((r: any) => r.path.startsWith('docs/guides/')),
      JSON.stringify(guides.results.map((r: any) => r.path)),
    );
    const changelog = ok(await reader.call('search_docs', { query: 'MCP', type: 'changelog' }));
    assert.ok(
      changelog.results.every((r: any) => r.path === 'docs/changelog'),
      JSON.stringify(changelog.results.map((r: any) => r.path)),
    );
    await assertRpcError(reader.call('search_docs', { query: 'x', type: 'blog' }), INVALID_PARAMS);
    await assertRpcError(reader.call('search_docs', {}), INVALID_PARAMS);

    const page = ok(await reader.call('get_doc_page', { path: 'docs/reference/mcp-server' }));
    assert.deepEqual(sortedKeys(page), ['markdown', 'path', 'title', 'url']);
    assert.deepEqual([page.path, page.url], ['docs/reference/mcp-server', `${svc.apiUrl}/docs/reference/mcp-server`]);
    for (const tool of ALL_TOOLS) assert.ok(page.markdown.includes(tool), `the MCP reference does not mention ${tool}`);
    const errors = ok(await reader.call('get_doc_page', { path: 'docs/reference/errors' }));
    assert.match(errors.markdown, /NOT_FOUND/);
    assert.ok(errors.title.length > 0);
    toolError(await reader.call('get_doc_page', { path: 'docs/reference/no-such-page' }), 'NOT_FOUND');
  });

  test('get_doc_page and get_content_page never read outside the content', async () => {
    for (const path of ['docs/../package.json', '../package.json', '/etc/passwd', 'docs/reference/../../package.json']) {
      for (const name of ['get_doc_page', 'get_content_page']) {
        let result;
        try {
          result = await reader.call(name, { path });
        } catch (error) {
          assert.equal((error as { code?: number }).code, INVALID_PARAMS, String(error));
          continue;
        }
        assert.equal(result.isError, true, `${name} ${path} answered: ${JSON.stringify(result).slice(0, 300)}`);
        assert.ok(!JSON.stringify(result).includes('"devDependencies"') && !JSON.stringify(result).includes('root:'), `${name} ${path} leaked a file`);
      }
    }
  });

  test('search_content and get_content_page: status pages, the site index and docs, each typed', async () => {
    const page = await services.pages.create(system, ws, { slug: 'mcp-zebra', title: 'Zebracorn Status', description: 'Status of the zebracorn fleet' });
    await services.pages.addComponent(system, ws, page.id, { name: 'Stable API' });

    // The index may lag a page created just now (see the test below); wait for it, bounded.
    const found = await eventually(
      async () => ok(await reader.call('search_content', { query: 'Zebracorn' })),
      (answer) => answer.results.some((r: any) => r.path === 'status/mcp-zebra'),
      'the status page in the index',
      8_000,
    );
    assert.deepEqual(Object.keys(found), ['results']);
    const hit = found.results.find((r: any) => r.path === 'status/mcp-zebra');
    assert.ok(hit, `the status page was not found: ${JSON.stringify(found.results)}`);
    assert.deepEqual(sortedKeys(hit), ['path', 'snippet', 'title', 'type', 'url']);
    assert.deepEqual([hit.type, hit.url], ['status-page', `${svc.apiUrl}/status/mcp-zebra`]);
    const onlyPages = ok(await reader.call('search_content', { query: 'Zebracorn', type: 'status-page' }));
    assert.ok(onlyPages.results.length > 0 && onlyPages.results.every((r: any) => r.type === 'status-page'));
    assert.deepEqual(ok(await reader.call('search_content', { query: 'Zebracorn', type: 'changelog' })).results, []);
    const docsOnly = ok(await reader.call('search_content', { query: 'maintenance', type: 'docs' }));
    assert.ok(docsOnly.results.length > 0 && docsOnly.results.every((r: any) => r.type === 'docs'));
    await assertRpcError(reader.call('search_content', { query: 'x', type: 'pricing-table' }), INVALID_PARAMS);

    const status = ok(await reader.call('get_content_page', { path: 'status/mcp-zebra' }));
    assert.deepEqual(sortedKeys(status), ['markdown', 'path', 'title', 'type', 'url']);
    assert.deepEqual([status.path, status.type, status.url], ['status/mcp-zebra', 'status-page', `${svc.apiUrl}/status/mcp-zebra`]);
    assert.match(status.markdown, /Zebracorn Status/);
    assert.match(status.markdown, /Stable API/);

    const index = ok(await reader.call('get_content_page', { path: 'llms.txt' }));
    assert.deepEqual([index.path, index.type, index.url], ['llms.txt', 'site', `${svc.apiUrl}/llms.txt`]);
    assert.ok(index.markdown.length > 100);
    const served = await fetch(`${svc.apiUrl}/llms.txt`);
    assert.equal(served.status, 200);
    assert.ok((await served.text()).length > 100);

    const guide = ok(await reader.call('get_content_page', { path: 'docs/guides/getting-started' }));
    assert.equal(guide.path, 'docs/guides/getting-started');
    assert.ok(guide.markdown.length > 0);
    toolError(await reader.call('get_content_page', { path: 'status/no-such-page' }), 'NOT_FOUND');
    // A page of another workspace is public too: it is a public page.
    await services.pages.create(system, otherWs, { slug: 'mcp-public-other', title: 'Other Public' });
    assert.equal(ok(await reader.call('get_content_page', { path: 'status/mcp-public-other' })).type, 'status-page');
  });

  test('a status page created or renamed shows at once in search_content, llms.txt and the site-index resource', async () => {
    // Warm the index, then change a page.
    ok(await reader.call('search_content', { query: 'status' }));
    const page = await services.pages.create(system, ws, { slug: 'mcp-fresh', title: 'Quokkaquest Status' });
    assert.equal(ok(await reader.call('get_content_page', { path: 'status/mcp-fresh' })).title, 'Quokkaquest Status');
    const stale: string[] = [];
    const look = async (word: string) => {
      const found = ok(await reader.call('search_content', { query: word, type: 'status-page' })).results.map((r: any) => r.path);
      if (JSON.stringify(found) !== JSON.stringify(['status/mcp-fresh'])) stale.push(`search_content ${word}: ${JSON.stringify(found)}`);
      if (!(await (await fetch(`${svc.apiUrl}/llms.txt`, { signal: AbortSignal.timeout(5000) })).text()).includes(word)) stale.push(`llms.txt lacks ${word}`);
      const resource = await reader.client.readResource({ uri: `${svc.apiUrl}/llms.txt` }, { cacheMode: 'bypass' });
      if (!JSON.stringify(resource.contents).includes(word)) stale.push(`site-index resource lacks ${word}`);
    };
    await look('Quokkaquest');
    await services.pages.update(system, ws, page.id, { title: 'Wombatwatch Status' });
    await look('Wombatwatch');
    assert.deepEqual(stale, [], 'changed status pages are missing from the content index until it is rebuilt');
  });

  test('resources/list has the three resources; resources/read of each returns their text', async () => {
    const { resources } = await reader.client.listResources();
    const byName = Object.fromEntries(resources.map((r) => [r.name, r.uri]));
    assert.deepEqual(byName, {
      'openapi-specification': `${svc.apiUrl}/openapi.json`,
      'mcp-server-reference': `${svc.apiUrl}/docs/reference/mcp-server`,
      'site-index': `${svc.apiUrl}/llms.txt`,
    });
    for (const resource of resources) {
      const read = await reader.client.readResource({ uri: resource.uri });
      assert.equal(read.contents.length, 1);
      const content = read.contents[0]! as { uri: string; text?: string };
      assert.equal(content.uri, resource.uri);
      assert.ok(content.text && content.text.length > 100, `${resource.name} is empty`);
      if (resource.name === 'openapi-specification') assert.equal(JSON.parse(content.text).openapi, '3.1.0');
      if (resource.name === 'mcp-server-reference') assert.match(content.text, /list_status_pages/);
    }
  });
});

// ---- notify -----------------------------------------------------------------------------------------

describe('notify: subscriber mail from the publishing tools', { timeout: 120_000 }, () => {
  let pageId: string;

  async function confirmedEmail(page: string, address: string): Promise<void> {
    const count = smtp.mails.length;
    await services.subscribers.add(system, ws, page, { email: address });
    const [confirmation] = (await smtp.waitFor(count + 1)).slice(-1);
    assert.deepEqual(confirmation!.envelopeTo, [address]);
    assert.equal((await fetch(linkIn(confirmation!, 'confirm'), { method: 'POST', signal: AbortSignal.timeout(5000) })).status, 200);
  }

  const reportCount = async (page: string) => ok(await reader.call('list_status_reports', { pageId: page, filter: 'all', perPage: 200 })).pagination.totalSize;

  before(async () => {
    pageId = (await services.pages.create(system, ws, { slug: 'mcp-mail', title: 'Mail Page' })).id;
    await confirmedEmail(pageId, 'reader@example.test');
  });

  test('notify true mails the confirmed subscriber; false sends nothing and answers notified false', async () => {
    let count = smtp.mails.length;
    const created = ok(await writer.call('create_status_report', { pageId, title: 'Elevated errors', message: 'We are looking into it.', notify: true }));
    assert.equal(created.notified, true);
    const mail = (await smtp.waitFor(count + 1))[count]!;
    assert.deepEqual(mail.envelopeTo, ['reader@example.test']);
    assert.match(mail.subject, /Elevated errors/);
    assert.match(mail.text, /We are looking into it\./);
    count = smtp.mails.length;

    const quiet = ok(
      await writer.call('add_status_report_update', {
        statusReportId: created.statusReport.id,
        status: 'identified',
        message: 'A quiet update.',
        notify: false,
      }),
    );
    assert.equal(quiet.notified, false);
    assert.equal(quiet.statusReport.updates[0].message, 'A quiet update.');
    // A tool call answers once its dispatch is over: nothing it sent is still on its way.
    assert.equal(smtp.mails.length, count, 'a notify: false update was mailed');

    const loud = ok(
      await writer.call('add_status_report_update', { statusReportId: created.statusReport.id, status: 'monitoring', message: 'A fix is out.', notify: true }),
    );
    assert.equal(loud.notified, true);
    const later = (await smtp.waitFor(count + 1))[count]!;
    assert.match(later.text, /A fix is out\./);
    assert.ok(!later.text.includes('A quiet update.'));
    count = smtp.mails.length;

    // Editing never notifies.
    ok(await writer.call('update_status_report', { statusReportId: created.statusReport.id, title: 'Elevated 500s' }));
    assert.equal(smtp.mails.length, count, 'update_status_report sent mail');

    const resolved = ok(await writer.call('resolve_status_report', { statusReportId: created.statusReport.id, message: 'All clear.', notify: true }));
    assert.equal(resolved.notified, true);
    assert.match((await smtp.waitFor(count + 1))[count]!.text, /All clear\./);
    count = smtp.mails.length;

    const window = ok(
      await writer.call('create_maintenance', { pageId, title: 'Mail relay upgrade', from: daysFromNow(1), to: daysFromNow(1.2), notify: true }),
    );
    assert.equal(window.notified, true);
    assert.match((await smtp.waitFor(count + 1))[count]!.subject + (await smtp.waitFor(count + 1))[count]!.text, /Mail relay upgrade/);
    count = smtp.mails.length;
    const silent = ok(await writer.call('create_maintenance', { pageId, title: 'Silent window', from: daysFromNow(2), to: daysFromNow(2.2), notify: false }));
    assert.equal(silent.notified, false);
    assert.equal(smtp.mails.length, count);
  });

  test('notify missing: -32602 from the input schema, and nothing is created or appended', async () => {
    const reports = await reportCount(pageId);
    const windows = ok(await reader.call('list_maintenances', { pageId, perPage: 200 })).pagination.totalSize;
    const mails = smtp.mails.length;
    await assertRpcError(writer.call('create_status_report', { pageId, title: 'No notify', message: 'm' }), INVALID_PARAMS);
    await assertRpcError(writer.call('create_maintenance', { pageId, title: 'No notify', from: daysFromNow(3), to: daysFromNow(4) }), INVALID_PARAMS);
    const report = ok(await writer.call('create_status_report', { pageId, title: 'Target', message: 'm', notify: false })).statusReport;
    await assertRpcError(writer.call('add_status_report_update', { statusReportId: report.id, status: 'identified', message: 'no notify' }), INVALID_PARAMS);
    await assertRpcError(writer.call('resolve_status_report', { statusReportId: report.id, message: 'no notify' }), INVALID_PARAMS);
    // null is not a boolean either.
    await assertRpcError(writer.call('resolve_status_report', { statusReportId: report.id, message: 'no notify', notify: null }), INVALID_PARAMS);

    assert.equal(await reportCount(pageId), reports + 1, 'a report was created without notify');
    assert.equal(ok(await reader.call('list_maintenances', { pageId, perPage: 200 })).pagination.totalSize, windows);
    const stored = await services.reports.get(system, ws, report.id);
    assert.deepEqual([stored.updates.length, stored.resolved], [1, false]);
    assert.equal(smtp.mails.length, mails);
  });

  test('a relay that refuses: notified false, and the record is kept', async () => {
    smtp.setRejecting(true);
    try {
      const reports = await reportCount(pageId);
      const created = ok(await writer.call('create_status_report', { pageId, title: 'Relay refuses', message: 'Kept anyway.', notify: true }));
      assert.equal(created.notified, false);
      assert.equal(await reportCount(pageId), reports + 1);
      const stored = await services.reports.get(system, ws, created.statusReport.id);
      assert.deepEqual([stored.title, stored.updates[0]!.message], ['Relay refuses', 'Kept anyway.']);
      const window = ok(await writer.call('create_maintenance', { pageId, title: 'Refused window', from: daysFromNow(5), to: daysFromNow(6), notify: true }));
      assert.equal(window.notified, false);
      assert.equal((await services.maintenances.get(system, ws, window.maintenance.id)).title, 'Refused window');
    } finally {
      smtp.setRejecting(false);
    }
  });

  test('a webhook subscriber answering 500: notified false, the record kept; the subscriber was tried', async () => {
    let hook: HttpReceiver | undefined;
    try {
      hook = await startHttpReceiver({ status: 500 });
      const page = await services.pages.create(system, ws, { slug: 'mcp-hooked', title: 'Hooked' });
      await services.subscribers.add(system, ws, page.id, { webhookUrl: `${hook.url}/hook` });
      const created = ok(await writer.call('create_status_report', { pageId: page.id, title: 'Hook fails', message: 'Still stored.', notify: true }));
      assert.equal(created.notified, false);
      assert.ok(hook.requests.length >= 1, 'the webhook was never called');
      assert.match(hook.requests[0]!.body, /Still stored\./);
      assert.equal((await services.reports.get(system, ws, created.statusReport.id)).title, 'Hook fails');
      const resolved = ok(await writer.call('resolve_status_report', { statusReportId: created.statusReport.id, message: 'Done.', notify: true }));
      assert.equal(resolved.notified, false);
      assert.equal((await services.reports.get(system, ws, created.statusReport.id)).resolved, true);

      // The same subscriber answering 2xx: notified true.
      hook.setStatus(204);
      const fine = ok(await writer.call('create_status_report', { pageId: page.id, title: 'Hook works', message: 'Delivered.', notify: true }));
      assert.equal(fine.notified, true);
    } finally {
      await hook?.close();
    }
  });
});

// ---- eras --------------------------------------------------------------------------------------------

describe('protocol eras', { timeout: 120_000 }, () => {
  test('2025-06-18, 2025-11-25 and 2026-07-28 list the same tools and give the same results', async () => {
    const page = await services.pages.create(system, ws, { slug: 'mcp-eras', title: 'Eras' });
    await services.pages.addComponent(system, ws, page.id, { name: 'Edge' });
    const monitor = await services.monitors.create(system, ws, 'tcp', { name: 'era db', uri: 'db.internal:5432', periodicity: '1m', regions: ['iad'] });
    const report = await services.reports.create(system, ws, { pageId: page.id, title: 'Era report', message: 'm', notify: false });

    const toolLists: unknown[] = [];
    const results: unknown[] = [];
    for (const era of ERAS) {
      const connection = await connectMcp(svc.apiUrl, era, writeKey.secret);
      try {
        assert.equal(connection.client.getNegotiatedProtocolVersion(), era);
        const { tools } = await connection.client.listTools();
        assert.equal(tools.length, 23, `${era}: ${tools.length} tools`);
        toolLists.push(
          tools
            .map((t) => ({ name: t.name, annotations: t.annotations, inputSchema: t.inputSchema, outputSchema: t.outputSchema }))
            .sort((a, b) => a.name.localeCompare(b.name)),
        );
        results.push([
          ok(await connection.call('list_page_components', { pageId: 'mcp-eras' })),
          ok(await connection.call('get_monitor', { monitorId: Number(monitor.id) })),
          ok(await connection.call('list_status_reports', { pageId: page.id })),
          ok(await connection.call('search_docs', { query: 'monitor' })),
          toolError(await connection.call('get_monitor', { monitorId: 999999 }), 'NOT_FOUND'),
        ]);
        await assertRpcError(connection.call('create_status_report', { pageId: page.id, title: 'x', message: 'y' }), INVALID_PARAMS);
        const { resources } = await connection.client.listResources();
        assert.equal(resources.length, 3, `${era}: resources`);
      } finally {
        await connection.close();
      }
    }
    assert.deepEqual(toolLists[1], toolLists[0], '2025-06-18 lists other tools than 2025-11-25');
    assert.deepEqual(toolLists[2], toolLists[0], '2026-07-28 lists other tools than 2025-11-25');
    assert.deepEqual(results[1], results[0]);
    assert.deepEqual(results[2], results[0]);
    assert.equal((results[0] as any[])[2].statusReports[0].id, report.report.id);
  });

  test('a mutation in the 2026-07-28 era is audited like one in a 2025 era', async () => {
    const modern = await connectMcp(svc.apiUrl, '2026-07-28', writeKey.secret);
    try {
      const page = await services.pages.create(system, ws, { slug: 'mcp-modern', title: 'Modern' });
      const created = ok(await modern.call('create_status_report', { pageId: page.id, title: 'Modern', message: 'm', notify: false }));
      assert.equal(created.notified, false);
      const [entry] = ok(await modern.call('list_audit_logs', { entityType: 'status_report', entityId: created.statusReport.id })).auditLogs;
      assert.deepEqual([entry.actor_type, entry.actor_id, entry.actor_user_id], ['mcp', writeKey.id, ownerId]);
    } finally {
      await modern.close();
    }
  });
});
