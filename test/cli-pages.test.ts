import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createClient, Periodicity, type StatusdeskClient } from '../client/index.ts';
import { assertOneLineError, type CliResult, jsonOf, runCli, startTestService, tableOf, tempDir, type TestService } from './support/harness.ts';
import { type HttpReceiver, startHttpReceiver, verifySignature } from './support/receivers.ts';
import { PAGE_SCRIPT_VERSION } from '../server/public/page-script.ts';

/**
 * `statusdesk pages|reports|maintenance|channels ...` as a user runs them: the real command in a
 * child process against the real service (in this process). Fixtures a test only reads are made
 * through the client library; whatever a test is about goes through the command.
 */

const T = { timeout: 60_000 };

/** No setting from the surrounding shell leaks in. */
const clean: NodeJS.ProcessEnv = {
  SERVICE_API_KEY: undefined,
  SERVICE_API_URL: undefined,
  STATUSDESK_LOG_LEVEL: undefined,
  STATUSDESK_DATA_DIR: undefined,
  STATUSDESK_PUBLIC_URL: undefined,
};

let svc: TestService;
let rpc: string;
let write: string;
let api: StatusdeskClient;
let receiver: HttpReceiver;
let scratch: Awaited<ReturnType<typeof tempDir>>;

before(async () => {
  [svc, receiver, scratch] = await Promise.all([startTestService(), startHttpReceiver(), tempDir()]);
  rpc = `${svc.apiUrl}/rpc`;
  write = (await svc.createKey('write')).secret;
  api = createClient({ baseUrl: rpc, apiKey: write, env: {} });
});

after(async () => {
  await receiver?.close();
  await svc?.stop();
  await scratch?.remove();
});

/** `statusdesk ARGS` with the write key and SERVICE_API_URL of the test service unless `env` says otherwise. */
function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runCli(args, { ...clean, SERVICE_API_KEY: write, SERVICE_API_URL: rpc, ...env });
}

/** A usage error: exit 2, the reason and the usage on stderr, nothing on stdout. */
function assertUsageError(result: CliResult, pattern: RegExp): void {
  assert.equal(result.code, 2, `exit code (stdout: ${result.stdout}, stderr: ${result.stderr})`);
  assert.equal(result.stdout, '');
  assert.match(result.stderr.split('\n')[0]!, pattern);
  assert.match(result.stderr, /\nRun statusdesk [^\n]*--help/);
}

/** The FIELD/VALUE table of one record as a map. */
function fieldsOf(result: CliResult): Map<string, string> {
  assert.equal(result.code, 0, `exit code (stderr: ${result.stderr})`);
  const rows = result.stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {2,}/));
  assert.deepEqual(rows[0], ['FIELD', 'VALUE']);
  return new Map(rows.slice(1).map(([field, value]) => [field!, value ?? '']));
}

async function pageFixture(slug: string) {
  return (await api.pages.createStatusPage({ slug, title: slug.toUpperCase() })).statusPage!;
}

describe('pages and components', () => {
  test('pages create --json gives the new id, the slug and the public address; get by slug finds the same page', T, async () => {
    const created = jsonOf(await cli(['pages', 'create', '--title', 'Acme', '--slug', 'acme', '--description', 'Our services', '--json']));
    assert.match(created.id, /^[1-9]\d*$/);
    assert.equal(created.slug, 'acme');
    assert.equal(created.title, 'Acme');
    assert.equal(created.description, 'Our services');
    assert.match(created.url, /\/status\/acme$/);
    const [bySlug, table] = await Promise.all([cli(['pages', 'get', 'acme', '--json']), cli(['pages', 'get', created.id])]);
    assert.deepEqual(jsonOf(bySlug), created);
    const fields = fieldsOf(table);
    assert.equal(fields.get('id'), created.id);
    assert.equal(fields.get('slug'), 'acme');
    assert.equal(fields.get('url'), created.url);
  });

  test('an invalid slug exits 2 naming --slug; nothing is created', T, async () => {
    const refused = await cli(['pages', 'create', '--title', 'Bad', '--slug', 'Not A Slug']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /^statusdesk: --slug: [^\n]+\n$/);
    assert.ok(!(await api.pages.listStatusPages({})).statusPages.some((p) => p.title === 'Bad'));
  });

  test('pages update changes only the given fields; with nothing to change it is a usage error', T, async () => {
    const page = await pageFixture('to-update');
    const updated = jsonOf(await cli(['pages', 'update', page.slug, '--title', 'Renamed', '--json']));
    assert.deepEqual([updated.id, updated.slug, updated.title], [page.id, 'to-update', 'Renamed']);
    assertUsageError(await cli(['pages', 'update', page.slug]), /nothing to change/);
  });

  test('components add with --monitor links the monitor; list shows them in order; update unlinks and ungroups', T, async () => {
    const page = await pageFixture('components');
    const monitor = (await api.monitors.createTCPMonitor({ monitor: { name: 'db', uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M } }))
      .monitor!;
    const linked = jsonOf(await cli(['pages', 'components', 'add', page.slug, '--name', 'Database', '--monitor', monitor.id, '--group', 'Backend', '--json']));
    assert.match(linked.id, /^[1-9]\d*$/);
    assert.deepEqual([linked.pageId, linked.name, linked.type, linked.monitorId, linked.group], [page.id, 'Database', 'monitor', monitor.id, 'Backend']);
    const added = fieldsOf(await cli(['pages', 'components', 'add', page.id, '--name', 'Help desk', '--description', 'Mail and chat']));
    assert.deepEqual([added.get('type'), added.get('monitor'), added.get('group'), added.get('description')], ['static', '-', '-', 'Mail and chat']);

    const list = await cli(['pages', 'components', 'list', page.slug]);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(tableOf(list.stdout), [
      ['ID', 'POSITION', 'NAME', 'TYPE', 'MONITOR', 'GROUP'],
      [linked.id, '0', 'Database', 'monitor', monitor.id, 'Backend'],
      [added.get('id'), '1', 'Help desk', 'static', '-', '-'],
    ]);

    const unlinked = jsonOf(await cli(['pages', 'components', 'update', linked.id, '--monitor', '', '--group', '', '--position', '5', '--json']));
    assert.deepEqual([unlinked.type, unlinked.monitorId, unlinked.group, unlinked.position, unlinked.name], ['static', null, null, 5, 'Database']);
    const removed = await cli(['pages', 'components', 'remove', added.get('id')!]);
    assert.deepEqual([removed.code, removed.stdout], [0, '']);
    assert.deepEqual(
      (await api.pages.listPageComponents({ pageId: page.id })).components.map((c) => c.id),
      [linked.id],
    );
  });

  test('a three-word command that does not exist is a usage error naming the words typed', T, async () => {
    assertUsageError(await cli(['pages', 'components', 'bogus', 'acme']), /unknown command "pages components bogus"/);
  });
});

describe('reports, maintenance and subscribers', () => {
  let page: Awaited<ReturnType<typeof pageFixture>>;
  let componentId: string;

  before(async () => {
    page = await pageFixture('incidents');
    componentId = (await api.pages.addPageComponent({ pageId: page.id, name: 'API' })).component!.id;
  });

  test('reports create without --notify or --no-notify, or with both, is a usage error naming --notify; nothing is published', T, async () => {
    // A page of its own: the other tests publish on the shared one.
    const quiet = await pageFixture('incidents-usage');
    const base = ['reports', 'create', '--page', quiet.slug, '--title', 'Slow', '--message', 'Looking'];
    const [neither, both] = await Promise.all([cli(base), cli([...base, '--notify', '--no-notify'])]);
    assertUsageError(neither, /--notify\/--no-notify is required/);
    assertUsageError(both, /--notify\/--no-notify, not both/);
    assert.equal((await api.reports.listStatusReports({ filter: 'all', pageId: quiet.id })).pagination!.totalSize, 0);
  });

  test('create --no-notify gives notified false; update-status and resolve add to the timeline', T, async () => {
    // A page of its own: its report list below is exactly the report made here.
    const page = await pageFixture('incidents-timeline');
    const componentId = (await api.pages.addPageComponent({ pageId: page.id, name: 'API' })).component!.id;
    const created = jsonOf(
      await cli([
        'reports',
        'create',
        '--page',
        page.slug,
        '--title',
        'Slow API',
        '--message',
        'Looking into it',
        '--component',
        componentId,
        '--no-notify',
        '--json',
      ]),
    );
    assert.equal(created.notified, false);
    const report = created.statusReport;
    assert.match(report.id, /^[1-9]\d*$/);
    assert.deepEqual([report.pageId, report.title, report.status, report.pageComponentIds], [page.id, 'Slow API', 'investigating', [componentId]]);

    const updated = jsonOf(await cli(['reports', 'update-status', report.id, '--status', 'identified', '--message', 'A slow query', '--no-notify', '--json']));
    assert.equal(updated.notified, false);
    assert.equal(updated.statusReport.status, 'identified');
    assert.deepEqual(
      updated.statusReport.updates.map((u: any) => u.message),
      ['A slow query', 'Looking into it'],
    );

    const resolved = fieldsOf(await cli(['reports', 'resolve', report.id, '--message', 'Fixed', '--no-notify']));
    assert.deepEqual([resolved.get('status'), resolved.get('resolved'), resolved.get('updates'), resolved.get('notified')], ['resolved', 'true', '3', 'false']);
    assert.match(resolved.get('resolved at')!, /^\d{4}-\d\d-\d\dT/);

    const [active, all] = await Promise.all([cli(['reports', 'list', '--page', page.slug, '--json']), cli(['reports', 'list', '--all', '--page', page.slug])]);
    assert.deepEqual(jsonOf(active).statusReports, [], 'a resolved report is not active');
    assert.equal(all.code, 0, all.stderr);
    assert.deepEqual(
      tableOf(all.stdout).map((row) => row.slice(0, 4)),
      [
        ['ID', 'PAGE', 'TITLE', 'STATUS'],
        [report.id, page.id, 'Slow API', 'resolved'],
      ],
    );
    assert.equal(all.stderr, '1 of 1 reports (page 1 of 1)\n');
  });

  test('reports edit corrects the title and clears the components without an update', T, async () => {
    const { statusReport } = await api.reports.createStatusReport({
      pageId: page.id,
      title: 'Typo',
      message: 'Looking',
      pageComponentIds: [componentId],
      notify: false,
    });
    const edited = jsonOf(await cli(['reports', 'edit', statusReport!.id, '--title', 'Slow checkout', '--clear-components', '--json']));
    assert.equal(edited.title, 'Slow checkout');
    assert.deepEqual(edited.pageComponentIds, []);
    assert.equal(edited.updates.length, 1);
    assertUsageError(await cli(['reports', 'edit', statusReport!.id]), /nothing to change/);
  });

  test(
    'a webhook subscriber: the secret once on stdout with a note on stderr; a report with --notify reaches it, and the listing shows that delivery',
    T,
    async () => {
      const added = await cli(['pages', 'subscribers', 'add', page.slug, '--webhook', `${receiver.url}/subscriber`]);
      assert.equal(added.code, 0, added.stderr);
      assert.match(added.stdout, /^whsec_[A-Za-z0-9_-]+\n$/);
      assert.match(added.stderr, /only time/);
      const secret = added.stdout.trim();
      const listed = jsonOf(await cli(['pages', 'subscribers', 'list', page.slug, '--json']));
      assert.equal(listed.subscribers.length, 1);
      assert.deepEqual([listed.subscribers[0].lastDeliveryAt, listed.subscribers[0].lastDeliveryError], [null, null], 'nothing sent yet');
      assert.ok(!JSON.stringify(listed).includes(secret), 'the secret is never shown again');

      const before = receiver.requests.length;
      const created = jsonOf(await cli(['reports', 'create', '--page', page.slug, '--title', 'Outage', '--message', 'Down', '--notify', '--json']));
      assert.equal(created.notified, true);
      const [delivery] = (await receiver.waitFor(before + 1)).slice(before);
      assert.equal(delivery!.path, '/subscriber');
      assert.ok(verifySignature(secret, delivery!.headers['x-statusdesk-signature']!, delivery!.body));
      await api.reports.deleteStatusReport({ id: created.statusReport.id });
      const [delivered] = jsonOf(await cli(['pages', 'subscribers', 'list', page.slug, '--json'])).subscribers;
      assert.ok(delivered.lastDeliveryAt >= created.statusReport.createdAt, 'the delivery time is listed');
      assert.equal(delivered.lastDeliveryError, null);
      const table = await cli(['pages', 'subscribers', 'list', page.slug]);
      assert.deepEqual(
        tableOf(table.stdout).map((row) => row.slice(6)),
        [
          ['LAST DELIVERY', 'DELIVERY ERROR'],
          [delivered.lastDeliveryAt, '-'],
        ],
      );

      const removed = await cli(['pages', 'subscribers', 'remove', listed.subscribers[0].id]);
      assert.deepEqual([removed.code, removed.stdout], [0, '']);
    },
  );

  test('maintenance create needs --notify or --no-notify; --no-notify gives notified false; list and delete', T, async () => {
    const base = ['maintenance', 'create', '--page', page.slug, '--title', 'DB upgrade', '--from', '2030-01-01T22:00:00Z', '--to', '2030-01-02T00:00:00Z'];
    assertUsageError(await cli(base), /--notify\/--no-notify/);
    const created = jsonOf(await cli([...base, '--component', componentId, '--message', 'Short downtime', '--no-notify', '--json']));
    assert.equal(created.notified, false);
    assert.deepEqual([created.maintenance.title, created.maintenance.status, created.maintenance.pageComponentIds], ['DB upgrade', 'scheduled', [componentId]]);
    const list = await cli(['maintenance', 'list', '--page', page.slug]);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(tableOf(list.stdout)[1]?.slice(0, 3), [created.maintenance.id, page.id, 'DB upgrade']);
    const from = await cli([...base.slice(0, 6), '--from', 'tomorrow', '--to', '2030-01-02T00:00:00Z', '--no-notify']);
    assert.equal(from.code, 2);
    assert.match(from.stderr, /^statusdesk: --from: [^\n]+\n$/);
    const deleted = await cli(['maintenance', 'delete', created.maintenance.id]);
    assert.equal(deleted.code, 0, deleted.stderr);
  });
});

describe('channels', () => {
  const SECRET = 'cli-signing-secret-0123456789';
  const HEADER = 'Bearer cli-header-credential';

  test('channels add webhook --json never prints the secret; channels test delivers to the receiver', T, async () => {
    const result = await cli([
      'channels',
      'add',
      '--name',
      'On call',
      '--kind',
      'webhook',
      '--webhook-url',
      `${receiver.url}/alerts/PATH-TOKEN`,
      '--secret',
      SECRET,
      '--header',
      `authorization=${HEADER}`,
      '--json',
    ]);
    const channel = jsonOf(result);
    for (const secret of [SECRET, HEADER, 'PATH-TOKEN']) assert.ok(!result.stdout.includes(secret), `${secret} was printed`);
    assert.match(channel.id, /^[1-9]\d*$/);
    assert.deepEqual([channel.name, channel.kind, Object.keys(channel.headers)], ['On call', 'webhook', ['authorization']]);

    const before = receiver.requests.length;
    const tested = await cli(['channels', 'test', channel.id]);
    assert.deepEqual([tested.code, tested.stdout, tested.stderr], [0, 'delivered\n', '']);
    const [delivery] = (await receiver.waitFor(before + 1)).slice(before);
    assert.equal(delivery!.path, '/alerts/PATH-TOKEN');
    assert.equal(delivery!.headers.authorization, HEADER);
    assert.ok(verifySignature(SECRET, delivery!.headers['x-statusdesk-signature']!, delivery!.body));

    const shown = await cli(['channels', 'get', channel.id]);
    assert.ok(!shown.stdout.includes(SECRET) && !shown.stdout.includes(HEADER));
    assert.equal(fieldsOf(shown).get('kind'), 'webhook');
  });

  test('channels test of an unreachable channel exits 1 with the reason', T, async () => {
    const closed = await startHttpReceiver();
    await closed.close();
    const { channel } = await api.notifications.createNotificationChannel({
      name: 'Gone',
      config: { case: 'webhook', value: { url: `${closed.url}/gone`, secret: SECRET } },
    });
    const [text, json] = await Promise.all([cli(['channels', 'test', channel!.id]), cli(['channels', 'test', channel!.id, '--json'])]);
    assertOneLineError(text, /not delivered: /);
    assert.equal(json.code, 1);
    assert.equal(JSON.parse(json.stdout).delivered, false);
  });

  test('flags of another kind, and missing required ones, are usage errors; update keeps the credentials', T, async () => {
    const [foreign, missing] = await Promise.all([
      cli(['channels', 'add', '--name', 'x', '--kind', 'slack', '--webhook-url', 'https://hooks.slack.com/services/A/B', '--topic', 't']),
      cli(['channels', 'add', '--name', 'x', '--kind', 'webhook', '--webhook-url', 'https://hooks.example.test/x']),
    ]);
    assertUsageError(foreign, /--topic does not apply to slack channels/);
    assertUsageError(missing, /--secret is required/);
    const added = await cli(['channels', 'add', '--name', 'Phone', '--kind', 'ntfy', '--topic', 'alerts-topic', '--priority', '4', '--token', 'tk_secret']);
    const ntfy = fieldsOf(added);
    assert.deepEqual([ntfy.get('kind'), ntfy.get('server'), ntfy.get('priority')], ['ntfy', 'https://ntfy.sh', '4']);
    const renamed = await cli(['channels', 'update', ntfy.get('id')!, '--name', 'Pager', '--priority', '5', '--json']);
    const body = jsonOf(renamed);
    assert.deepEqual([body.name, body.priority, body.server], ['Pager', 5, 'https://ntfy.sh']);
    assert.ok(body.topic && body.token, 'the topic and the token are kept');
    for (const result of [added, renamed])
      assert.ok(!result.stdout.includes('tk_secret') && !result.stdout.includes('alerts-topic'), 'credentials are shown masked');
  });
});

describe('pages export', () => {
  test('writes index.html, feed.atom, summary.json and page.js from the data folder: the components, no inline script, the public address', T, async () => {
    const page = await pageFixture('export-me');
    for (const name of ['Checkout API', 'Status & Help']) await api.pages.addPageComponent({ pageId: page.id, name });
    const out = join(scratch.path, 'site');
    const result = await cli(['pages', 'export', page.id, '--out', out, '--data-dir', svc.dataDir, '--public-url', 'https://status.example.test'], {
      SERVICE_API_KEY: undefined,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(
      result.stdout.trimEnd().split('\n'),
      ['index.html', 'feed.atom', 'summary.json', 'page.js'].map((f) => join(out, f)),
    );
    assert.match(result.stderr, /https:\/\/status\.example\.test\/status\/export-me\//);
    assert.deepEqual((await readdir(out)).sort(), ['feed.atom', 'index.html', 'page.js', 'summary.json']);

    const html = await readFile(join(out, 'index.html'), 'utf8');
    assert.ok(html.includes('Checkout API'));
    assert.ok(html.includes('Status &amp; Help'));
    assert.deepEqual(
      [...html.matchAll(/<script[^>]*>/gi)].map((m) => m[0]),
      [`<script src="page.js?v=${PAGE_SCRIPT_VERSION}" defer>`],
      'a static page runs only its script file',
    );
    const summary = JSON.parse(await readFile(join(out, 'summary.json'), 'utf8'));
    assert.equal(summary.page.url, 'https://status.example.test/status/export-me');
    assert.deepEqual(
      summary.components.map((c: any) => c.name),
      ['Checkout API', 'Status & Help'],
    );
    assert.match(await readFile(join(out, 'feed.atom'), 'utf8'), /https:\/\/status\.example\.test\/status\/export-me\/feed\.atom/);
  });

  test('a page that does not exist exits 1; a bad --public-url or a missing --out is a usage error', T, async () => {
    const out = join(scratch.path, 'nothing');
    const [unknown, badUrl, noOut] = await Promise.all([
      cli(['pages', 'export', 'no-such-page', '--out', out, '--data-dir', svc.dataDir]),
      cli(['pages', 'export', 'no-such-page', '--out', out, '--data-dir', svc.dataDir, '--public-url', 'ftp://x']),
      cli(['pages', 'export', 'no-such-page', '--data-dir', svc.dataDir]),
    ]);
    assertOneLineError(unknown, /status page no-such-page does not exist/);
    assertUsageError(badUrl, /--public-url: must be an http or https URL/);
    assertUsageError(noOut, /--out is required/);
    await assert.rejects(readdir(out), { code: 'ENOENT' });
  });
});
