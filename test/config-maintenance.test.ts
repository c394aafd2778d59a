import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createClient, type StatusdeskClient } from '../client/index.ts';
import { type CliResult, newWorkspace, perTestCleanup, runCli, startTestService, type TestService } from './support/harness.ts';

/**
 * The file of `statusdesk apply` and `statusdesk export` with a monitor's status badges and the
 * maintenance windows: the real command against the real service, each test in a workspace of
 * its own. Applying an exported file changes nothing.
 */

const T = { timeout: 120_000 };

const clean: NodeJS.ProcessEnv = { SERVICE_API_KEY: undefined, SERVICE_API_URL: undefined, STATUSDESK_DATA_DIR: undefined };

let svc: TestService;
const cleanup = perTestCleanup();

before(async () => {
  svc = await startTestService();
});

after(() => svc?.stop());

interface Workspace {
  api: StatusdeskClient;
  cli(args: string[]): Promise<CliResult>;
  file(text: string): Promise<string>;
}

async function workspace(): Promise<Workspace> {
  const { slug } = await newWorkspace(svc, 'maint');
  const key = (await svc.createKey('write', slug)).secret;
  const folder = await cleanup.folder();
  let files = 0;
  return {
    api: createClient({ baseUrl: `${svc.apiUrl}/rpc`, apiKey: key }),
    cli: (args) => runCli(args, { ...clean, SERVICE_API_KEY: key, SERVICE_API_URL: svc.apiUrl }),
    async file(text) {
      const path = join(folder, `statusdesk-${++files}.yaml`);
      await writeFile(path, text);
      return path;
    },
  };
}

const ok = (result: CliResult) => {
  assert.equal(result.code, 0, `exit code (stdout: ${result.stdout}, stderr: ${result.stderr})`);
  return result.stdout;
};

/** A unique slug: slugs are unique across workspaces. */
const uniqueSlug = () => `maint-${Math.random().toString(36).slice(2, 8)}`;

const summaryOf = async (ws: Workspace, file: string) => JSON.parse(ok(await ws.cli(['apply', '-f', file, '--dry-run', '--json']))).summary;

/** Exports the workspace, checks that applying the export plans no change, and gives the export. */
async function exportedUnchanged(ws: Workspace, unchanged: number): Promise<string> {
  const exported = ok(await ws.cli(['export']));
  assert.deepEqual(await summaryOf(ws, await ws.file(exported)), { create: 0, update: 0, delete: 0, unchanged });
  return exported;
}

const HOUR = 3_600_000;
/** A whole hour some days ahead, as the service writes instants. */
const ahead = (hours: number) => new Date(Math.ceil(Date.now() / HOUR) * HOUR + hours * HOUR).toISOString();

const monitorsAndPage = (slug: string) => `version: 1
monitors:
  - name: API
    type: http
    target: https://api.example.com/health
    frequency: 5m
    regions: [iad]
pages:
  - slug: ${slug}
    title: Acme
    components:
      - name: API
        monitor: API
      - name: Website
`;

test('badges: turned on by the file, exported as badges: true, re-applied unchanged, turned off', T, async () => {
  const ws = await workspace();
  const file = (badges: string) => `version: 1
monitors:
  - name: API
    type: http
    target: https://api.example.com/health
    frequency: 5m
    regions: [iad]${badges}
  - name: Web
    type: http
    target: https://www.example.com
    frequency: 5m
    regions: [iad]
`;
  assert.match(ok(await ws.cli(['apply', '-f', await ws.file(file('\n    badges: true'))])), /\+ monitor API \(http\)/);
  const ids = new Map<string, string>();
  const listed = await ws.api.monitors.listMonitors({ limit: 10 });
  for (const m of listed.httpMonitors) ids.set(m.name, m.id);
  assert.equal((await ws.api.monitors.getMonitorBadges({ id: ids.get('API')! })).badges?.enabled, true, 'badges on for API');
  assert.equal((await ws.api.monitors.getMonitorBadges({ id: ids.get('Web')! })).badges?.enabled, false, 'badges off by default');

  const exported = await exportedUnchanged(ws, 2);
  assert.equal(exported.match(/badges: true/g)?.length, 1, `only API's badges are written:\n${exported}`);

  // Left out: the badges stay as they are.
  assert.deepEqual(await summaryOf(ws, await ws.file(file(''))), { create: 0, update: 0, delete: 0, unchanged: 2 });

  const off = await ws.file(file('\n    badges: false'));
  const plan = JSON.parse(ok(await ws.cli(['apply', '-f', off, '--dry-run', '--json'])));
  assert.deepEqual(plan.summary, { create: 0, update: 1, delete: 0, unchanged: 1 });
  assert.deepEqual(plan.changes[0].fields, [{ field: 'badges', from: true, to: false }]);
  assert.match(ok(await ws.cli(['apply', '-f', off])), /~ monitor API: badges true → false/);
  assert.equal((await ws.api.monitors.getMonitorBadges({ id: ids.get('API')! })).badges?.enabled, false);
  assert.doesNotMatch(await exportedUnchanged(ws, 2), /badges:/);

  const bad = await ws.cli(['apply', '-f', await ws.file(file('\n    badges: yes please'))]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /monitors\[0\]\.badges: must be true or false/);
});

test('a one-off window: made by the file, exported, re-applied unchanged, edited', T, async () => {
  const ws = await workspace();
  const slug = uniqueSlug();
  const [from, to, later] = [ahead(48), ahead(50), ahead(51)];
  const window = (end: string, message: string) => `maintenance:
  - title: Database upgrade
    page: ${slug}
    message: ${message}
    components: [API]
    from: ${from}
    to: ${end}
`;
  const applied = ok(await ws.cli(['apply', '-f', await ws.file(monitorsAndPage(slug) + window(to, 'Short downtime'))]));
  assert.match(applied, new RegExp(`\\+ maintenance window Database upgrade on page ${slug}`));
  assert.match(applied, /5 to create, 0 to update, 0 to delete, 0 unchanged/);

  const { maintenances } = await ws.api.maintenances.listMaintenances({});
  assert.equal(maintenances.length, 1);
  const [made] = maintenances;
  assert.equal(made!.title, 'Database upgrade');
  assert.equal(made!.message, 'Short downtime');
  assert.equal(made!.from, from);
  assert.equal(made!.to, to);
  const { components } = await ws.api.pages.listPageComponents({ pageId: slug });
  assert.deepEqual(made!.pageComponentIds, [components.find((c) => c.name === 'API')!.id]);

  const exported = await exportedUnchanged(ws, 5);
  assert.match(
    exported,
    new RegExp(
      `maintenance:\\n  - title: Database upgrade\\n    page: ${slug}\\n    message: Short downtime\\n    components: \\[API\\]\\n    from: "?${from}"?\\n    to: "?${to}"?\\n`,
    ),
    exported,
  );

  // Edited: a later end and another message, the page as a whole.
  const edited = await ws.file(`${monitorsAndPage(slug)}maintenance:
  - title: Database upgrade
    page: ${slug}
    message: Longer downtime
    from: ${from.replace('.000Z', 'Z')}
    to: ${later}
`);
  const plan = JSON.parse(ok(await ws.cli(['apply', '-f', edited, '--dry-run', '--json'])));
  assert.deepEqual(plan.summary, { create: 0, update: 1, delete: 0, unchanged: 4 });
  const change = plan.changes.find((c: { kind: string }) => c.kind === 'maintenance');
  assert.deepEqual(change, {
    action: 'update',
    kind: 'maintenance',
    name: 'Database upgrade',
    page: slug,
    fields: [
      { field: 'message', from: 'Short downtime', to: 'Longer downtime' },
      { field: 'components', from: ['API'], to: [] },
      { field: 'to', from: to, to: later },
    ],
  });
  ok(await ws.cli(['apply', '-f', edited]));
  const { maintenance } = await ws.api.maintenances.getMaintenance({ id: made!.id });
  assert.equal(maintenance!.message, 'Longer downtime');
  assert.equal(maintenance!.to, later);
  assert.deepEqual(maintenance!.pageComponentIds, []);
  assert.deepEqual(await summaryOf(ws, edited), { create: 0, update: 0, delete: 0, unchanged: 5 });

  // Not in the file: kept without --prune; deleted with it.
  const without = await ws.file(`${monitorsAndPage(slug)}maintenance: []\n`);
  const kept = await ws.cli(['apply', '-f', without]);
  ok(kept);
  assert.match(kept.stderr, /1 maintenance windows of the workspace that have not ended are not in the file and are kept: --prune deletes them/);
  // No `maintenance:` section: the windows are not looked at, even with --prune.
  assert.match(ok(await ws.cli(['apply', '-f', await ws.file(monitorsAndPage(slug)), '--prune', '--yes'])), /0 to delete/);
  assert.match(ok(await ws.cli(['apply', '-f', without, '--prune', '--yes'])), new RegExp(`- maintenance window Database upgrade on page ${slug}`));
  assert.equal((await ws.api.maintenances.listMaintenances({})).maintenances.length, 0);
});

test('bad windows are refused naming the entry and field, and nothing changes', T, async () => {
  const ws = await workspace();
  const slug = uniqueSlug();
  const refused = async (text: string, code: number, pattern: RegExp) => {
    const result = await ws.cli(['apply', '-f', await ws.file(text)]);
    assert.equal(result.code, code, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stderr, pattern);
    assert.match(result.stderr, /nothing was changed/);
  };
  const [from, to] = [ahead(48), ahead(50)];
  const base = monitorsAndPage(slug);
  await refused(
    `${base}maintenance:\n  - title: Upgrade\n    page: ${slug}\n    components: [Payments]\n    from: ${from}\n    to: ${to}\n`,
    1,
    new RegExp(`maintenance\\[0\\]\\.components: no component named "Payments" on page ${slug} in the file or the workspace`),
  );
  await refused(
    `${base}maintenance:\n  - title: Upgrade\n    page: nowhere-${slug}\n    from: ${from}\n    to: ${to}\n`,
    1,
    new RegExp(`maintenance\\[0\\]\\.page: no page with slug "nowhere-${slug}" in the file or the workspace`),
  );
  await refused(
    `${base}maintenance:\n  - title: Upgrade\n    page: ${slug}\n    from: ${to}\n    to: ${from}\n`,
    2,
    /maintenance\[0\]\.to: must be after from/,
  );
  await refused(
    `${base}maintenance:\n  - title: Upgrade\n    page: ${slug}\n    from: tomorrow\n`,
    2,
    /maintenance\[0\]\.from: must be an ISO 8601 date and time with a zone/,
  );
  await refused(`${base}maintenance:\n  - title: Upgrade\n    page: ${slug}\n    from: ${from}\n`, 2, /maintenance\[0\]\.to: is required/);
  await refused(
    `${base}maintenance:\n  - title: Upgrade\n    page: ${slug}\n    from: ${from}\n    to: ${to}\n  - title: Upgrade\n    page: ${slug}\n    from: ${from}\n    to: ${to}\n`,
    2,
    /maintenance\[1\]\.title: another maintenance window of the file has this title \("Upgrade"\): titles identify them/,
  );
  await refused(
    `${base}maintenance:\n  - title: Nightly\n    page: ${slug}\n    repeat: { kind: weekly, time: "02:00", durationMinutes: 30 }\n`,
    2,
    /maintenance\[0\]\.repeat\.days: a weekly window needs at least one day/,
  );
  await refused(
    `${base}maintenance:\n  - title: Nightly\n    page: ${slug}\n    repeat: { kind: weekly, days: [sat], time: "02:00", durationMinutes: 30, timeZone: Mars/Olympus }\n`,
    2,
    /maintenance\[0\]\.repeat\.timeZone: must be an IANA time zone/,
  );
  await refused(
    `${base}maintenance:\n  - title: Nightly\n    page: ${slug}\n    to: ${to}\n    repeat: { kind: cron, cron: "0 2 * * 6", durationMinutes: 30 }\n`,
    2,
    /maintenance\[0\]\.to: must be left out for a repeating window/,
  );
  assert.equal((await ws.api.monitors.listMonitors({ limit: 10 })).totalSize, 0, 'no monitor was made');
  assert.equal((await ws.api.maintenances.listMaintenances({})).maintenances.length, 0, 'no window was made');
});

test('a repeating weekly window round-trips', T, async () => {
  const ws = await workspace();
  const slug = uniqueSlug();
  const file = `${monitorsAndPage(slug)}maintenance:
  - title: Weekly patching
    page: ${slug}
    components: [Website, API]
    repeat:
      kind: weekly
      days: [sat, sun]
      time: "02:30"
      durationMinutes: 90
      timeZone: Europe/Paris
      until: 2099-01-01T00:00:00+01:00
`;
  assert.match(ok(await ws.cli(['apply', '-f', await ws.file(file)])), /\+ maintenance window Weekly patching/);
  const [made] = (await ws.api.maintenances.listMaintenances({})).maintenances;
  assert.equal(made!.repeat?.kind, 'weekly');
  assert.deepEqual(made!.repeat?.days, ['sat', 'sun']);
  assert.equal(made!.repeat?.durationMinutes, 90);
  assert.equal(made!.repeat?.until, '2098-12-31T23:00:00.000Z');
  assert.equal(made!.pageComponentIds.length, 2);

  const exported = await exportedUnchanged(ws, 5);
  assert.match(
    exported,
    /repeat:\n\s+kind: weekly\n\s+days: \[sat, sun\]\n\s+time: "?02:30"?\n\s+durationMinutes: 90\n\s+timeZone: Europe\/Paris\n\s+until: "?2098-12-31T23:00:00.000Z"?/,
  );
  assert.match(exported, /components: \[API, Website\]/);
  assert.deepEqual(await summaryOf(ws, await ws.file(file)), { create: 0, update: 0, delete: 0, unchanged: 5 });

  // The rule changes: another time; then a one-off window again.
  const [from, to] = [ahead(24), ahead(25)];
  const plan = JSON.parse(ok(await ws.cli(['apply', '-f', await ws.file(file.replace('"02:30"', '"03:00"')), '--json'])));
  assert.equal(plan.summary.update, 1);
  assert.equal((await ws.api.maintenances.getMaintenance({ id: made!.id })).maintenance!.repeat?.time, '03:00');
  const oneOff = `${monitorsAndPage(slug)}maintenance:\n  - title: Weekly patching\n    page: ${slug}\n    from: ${from}\n    to: ${to}\n`;
  ok(await ws.cli(['apply', '-f', await ws.file(oneOff)]));
  const { maintenance } = await ws.api.maintenances.getMaintenance({ id: made!.id });
  assert.equal(maintenance!.repeat, undefined);
  assert.equal(maintenance!.from, from);
  assert.deepEqual(await summaryOf(ws, await ws.file(oneOff)), { create: 0, update: 0, delete: 0, unchanged: 5 });
});
