import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Periodicity } from '../client/index.ts';
import { jsonOf, useClientCommandService, tableOf } from './support/harness.ts';

/**
 * The --json of the client commands as docs/reference/cli.md documents it: one shape per command,
 * in the words of the flags and MCP (`1m`, `plaintext`, `active`, durations in ms, counts as
 * numbers, times as ISO strings), every field present with its default or null, and the tables
 * in the same words. Each test makes what it reads.
 */

const T = { timeout: 60_000 };

const svc = useClientCommandService();

const cli = (args: string[]) => svc.cli(args);

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const keys = (value: object) => Object.keys(value).sort();

const MONITOR_KEYS = [
  'id',
  'type',
  'name',
  'description',
  'target',
  'active',
  'frequency',
  'regions',
  'privateLocations',
  'timeout',
  'degraded',
  'remindEvery',
  'retry',
  'openTelemetry',
  'tags',
  'group',
  'createdAt',
  'updatedAt',
];
const GRPC_KEYS = [...MONITOR_KEYS, 'service', 'tls', 'metadata'];
const HTTP_KEYS = [...MONITOR_KEYS, 'method', 'headers', 'body', 'followRedirects', 'statusCodeAssertions', 'headerAssertions', 'bodyAssertions'];

describe('monitors --json', () => {
  test('create tcp: every field, defaults filled in, durations in ms, the type and the target', T, async () => {
    const body = jsonOf(
      await cli(['monitors', 'create', 'tcp', '--name', 'db', '--target', 'db.internal:5432', '--frequency', '1m', '--regions', 'iad,fra', '--json']),
    );
    assert.deepEqual(keys(body), [...MONITOR_KEYS].sort());
    const { id, createdAt, updatedAt, ...rest } = body;
    assert.match(id, /^[1-9]\d*$/);
    assert.match(createdAt, ISO);
    assert.match(updatedAt, ISO);
    assert.deepEqual(rest, {
      type: 'tcp',
      name: 'db',
      description: '',
      target: 'db.internal:5432',
      active: true,
      frequency: '1m',
      regions: ['iad', 'fra'],
      privateLocations: [],
      timeout: 45_000,
      degraded: null,
      remindEvery: null,
      retry: 3,
      openTelemetry: null,
      tags: [],
      group: '',
    });
  });

  test('create grpc and http: their own fields in the words of their flags (plaintext, POST, greater_than_or_equal)', T, async () => {
    const [grpc, http] = await Promise.all([
      cli([
        'monitors',
        'create',
        'grpc',
        '--name',
        'orders',
        '--target',
        'api.internal:50051',
        '--tls',
        'plaintext',
        '--regions',
        'iad',
        '--frequency',
        '30s',
        '--degraded',
        '2s',
        '--json',
      ]),
      cli([
        'monitors',
        'create',
        'http',
        '--name',
        'web',
        '--target',
        'https://shop.example/',
        '--method',
        'post',
        '--assert-status',
        '>=200',
        '--frequency',
        '5m',
        '--json',
      ]),
    ]);
    const g = jsonOf(grpc);
    assert.deepEqual(keys(g), [...GRPC_KEYS].sort());
    assert.deepEqual(
      [g.type, g.target, g.tls, g.service, g.metadata, g.frequency, g.degraded],
      ['grpc', 'api.internal:50051', 'plaintext', '', {}, '30s', 2000],
    );
    const h = jsonOf(http);
    assert.deepEqual(keys(h), [...HTTP_KEYS].sort());
    assert.deepEqual([h.type, h.target, h.method, h.followRedirects, h.frequency], ['http', 'https://shop.example/', 'POST', true, '5m']);
    assert.deepEqual(h.statusCodeAssertions, [{ comparator: 'greater_than_or_equal', target: 200 }]);
    assert.deepEqual([h.headers, h.body, h.headerAssertions, h.bodyAssertions], [{}, '', [], []]);
  });

  test('list and get: the same shape as create; list is { monitors, totalSize } and its table uses the same words', T, async () => {
    const created = jsonOf(await cli(['monitors', 'create', 'tcp', '--name', 'listed', '--target', 'cache.internal:6379', '--frequency', '10m', '--json']));
    const [list, get, table] = await Promise.all([
      cli(['monitors', 'list', '--json']),
      cli(['monitors', 'get', created.id, '--json']),
      cli(['monitors', 'list']),
    ]);
    const listed = jsonOf(list);
    assert.deepEqual(keys(listed), ['monitors', 'totalSize']);
    assert.equal(typeof listed.totalSize, 'number');
    assert.deepEqual(
      listed.monitors.find((m: { id: string }) => m.id === created.id),
      created,
    );
    assert.deepEqual(jsonOf(get), created);
    const row = tableOf(table.stdout).find((r) => r[0] === created.id);
    assert.deepEqual(row, [created.id, 'tcp', 'listed', 'cache.internal:6379', '10m', created.regions.join(','), 'true']);
  });

  test('status and summary before any check: null health, and the window with every count 0 as numbers', T, async () => {
    const { monitor } = await svc.api.monitors.createTCPMonitor({
      monitor: { name: 'quiet', uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M, regions: ['iad'] },
    });
    const [status, summary] = await Promise.all([
      cli(['monitors', 'status', monitor!.id, '--json']),
      cli(['monitors', 'summary', monitor!.id, '--window', '7d', '--json']),
    ]);
    assert.deepEqual(jsonOf(status), { monitorId: monitor!.id, overall: null, regions: [{ region: 'iad', status: null, lastCheckedAt: null }] });
    assert.deepEqual(jsonOf(summary), {
      monitorId: monitor!.id,
      window: '7d',
      successCount: 0,
      degradedCount: 0,
      errorCount: 0,
      latency: null,
      lastPingAt: null,
      gaps: [],
    });
  });
});

describe('pages, reports and maintenance --json', () => {
  test('pages create, get and list; components add and list: every field, type as monitor or static', T, async () => {
    const page = jsonOf(await cli(['pages', 'create', '--title', 'Shapes', '--slug', 'json-shapes', '--json']));
    assert.deepEqual(keys(page), [
      'accentColor',
      'createdAt',
      'customDomain',
      'description',
      'formerSlug',
      'id',
      'logo',
      'slug',
      'title',
      'updatedAt',
      'url',
      'websiteUrl',
    ]);
    assert.deepEqual([page.slug, page.title, page.description], ['json-shapes', 'Shapes', '']);
    assert.match(page.url, /\/status\/json-shapes$/);
    assert.deepEqual(jsonOf(await cli(['pages', 'get', 'json-shapes', '--json'])), page);
    const pages = jsonOf(await cli(['pages', 'list', '--json']));
    assert.deepEqual(keys(pages), ['statusPages']);
    assert.ok(pages.statusPages.some((p: { id: string }) => p.id === page.id));

    const component = jsonOf(await cli(['pages', 'components', 'add', page.id, '--name', 'Help desk', '--json']));
    assert.deepEqual(component, {
      id: component.id,
      pageId: page.id,
      name: 'Help desk',
      description: '',
      type: 'static',
      monitorId: null,
      group: null,
      position: 0,
    });
    assert.deepEqual(jsonOf(await cli(['pages', 'components', 'list', page.id, '--json'])), { components: [component] });
  });

  test('reports create and list: { statusReport, notified }, statuses as words, pagination counts as numbers', T, async () => {
    const page = (await svc.api.pages.createStatusPage({ slug: 'json-reports', title: 'Reports' })).statusPage!;
    const created = jsonOf(await cli(['reports', 'create', '--page', page.id, '--title', 'Slow', '--message', 'Looking', '--no-notify', '--json']));
    assert.deepEqual(keys(created), ['notified', 'statusReport']);
    assert.equal(created.notified, false);
    const report = created.statusReport;
    assert.deepEqual(keys(report), ['createdAt', 'id', 'pageComponentIds', 'pageId', 'resolved', 'resolvedAt', 'status', 'title', 'updatedAt', 'updates']);
    assert.deepEqual(
      [report.pageId, report.title, report.status, report.resolved, report.resolvedAt, report.pageComponentIds],
      [page.id, 'Slow', 'investigating', false, null, []],
    );
    assert.deepEqual(keys(report.updates[0]), ['createdAt', 'id', 'message', 'status']);
    assert.equal(report.updates[0].status, 'investigating');

    const listed = jsonOf(await cli(['reports', 'list', '--page', page.id, '--json']));
    assert.deepEqual(listed, { statusReports: [report], pagination: { page: 1, perPage: listed.pagination.perPage, totalSize: 1, totalPages: 1 } });
    assert.equal(typeof listed.pagination.perPage, 'number');
    assert.deepEqual(jsonOf(await cli(['reports', 'get', report.id, '--json'])), report);
  });

  test('maintenance create, get and list: { maintenance, notified }, times as ISO strings; an empty list has its zero counts', T, async () => {
    const page = (await svc.api.pages.createStatusPage({ slug: 'json-maintenance', title: 'Maintenance' })).statusPage!;
    const empty = jsonOf(await cli(['maintenance', 'list', '--page', page.id, '--json']));
    assert.deepEqual(empty, { maintenances: [], pagination: { page: 1, perPage: empty.pagination.perPage, totalSize: 0, totalPages: 0 } });
    const created = jsonOf(
      await cli([
        'maintenance',
        'create',
        '--page',
        page.id,
        '--title',
        'Upgrade',
        '--from',
        '2030-01-01T22:00:00Z',
        '--to',
        '2030-01-02T00:00:00Z',
        '--no-notify',
        '--json',
      ]),
    );
    assert.deepEqual(keys(created), ['maintenance', 'notified']);
    const m = created.maintenance;
    assert.deepEqual(keys(m), ['createdAt', 'from', 'id', 'message', 'pageComponentIds', 'pageId', 'status', 'title', 'to', 'updatedAt']);
    assert.deepEqual([m.title, m.message, m.status, m.pageComponentIds], ['Upgrade', '', 'scheduled', []]);
    assert.match(m.from, /^2030-01-01T22:00:00/);
    assert.deepEqual(jsonOf(await cli(['maintenance', 'get', m.id, '--json'])), m);
  });
});

describe('channels --json', () => {
  test('add, get and list: the settings by the names of their flags (webhookUrl, topic, priority), masked, absent ones null', T, async () => {
    const hook = jsonOf(
      await cli([
        'channels',
        'add',
        '--name',
        'Hook',
        '--kind',
        'webhook',
        '--webhook-url',
        'https://hooks.example.test/in',
        '--secret',
        'signing-secret-0123456789',
        '--json',
      ]),
    );
    assert.deepEqual(keys(hook), [
      'allMonitors',
      'createdAt',
      'defaultForNew',
      'events',
      'headers',
      'health',
      'id',
      'kind',
      'monitorIds',
      'name',
      'secret',
      'updatedAt',
      'webhookUrl',
    ]);
    assert.deepEqual([hook.events, hook.health], [[], { failures: 0, lastError: null, lastFailedAt: null, lastSentAt: null, backoffUntil: null }]);
    assert.deepEqual([hook.kind, hook.monitorIds, hook.headers], ['webhook', [], {}]);
    assert.ok(!JSON.stringify(hook).includes('signing-secret-0123456789'), 'the secret is masked');

    const ntfy = jsonOf(await cli(['channels', 'add', '--name', 'Phone', '--kind', 'ntfy', '--topic', 'json-topic', '--json']));
    assert.deepEqual(keys(ntfy), [
      'allMonitors',
      'createdAt',
      'defaultForNew',
      'events',
      'health',
      'id',
      'kind',
      'monitorIds',
      'name',
      'priority',
      'server',
      'token',
      'topic',
      'updatedAt',
    ]);
    assert.deepEqual([ntfy.server, ntfy.priority, ntfy.token], ['https://ntfy.sh', null, null]);
    assert.deepEqual(jsonOf(await cli(['channels', 'get', ntfy.id, '--json'])), ntfy);

    const list = jsonOf(await cli(['channels', 'list', '--json']));
    assert.deepEqual(keys(list), ['channels', 'pagination']);
    assert.deepEqual(keys(list.pagination), ['page', 'perPage', 'totalPages', 'totalSize']);
    assert.ok(list.channels.some((c: { id: string }) => c.id === hook.id));
  });
});
