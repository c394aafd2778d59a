// Monitor groups against the real service: a monitor's group set and cleared over RPC, refused
// naming the field when too long or on two lines; the dashboard's grouped overview (the group with
// the worst member first, monitors in no group last, a collapsed group's members left out of the
// rows but not out of its summary); the bulk action that sets a group; the command's --group, and
// apply -f / export; MCP's list_monitors and get_monitor.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BulkMonitorAction, Code, createClient, Periodicity, type StatusdeskClient } from '../client/index.ts';
import { connectMcp, connectMcpV1, MODERN_ERA } from './support/mcp-client.ts';
import { assertCode, assertViolation, dashboardSession, newWorkspace, runCli, startTestService, tempDir, type TestService } from './support/harness.ts';

let service: TestService;
let session: Record<string, string>;
const servers: Server[] = [];

before(async () => {
  service = await startTestService();
  session = await dashboardSession(service);
});
after(async () => {
  for (const server of servers) server.close();
  await service?.stop();
});

/** A loopback listener that accepts every connection: its monitors are up. */
async function openPort(): Promise<string> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A loopback port nothing listens on: its monitors are down. */
async function closedPort(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `127.0.0.1:${port}`;
}

interface Workspace {
  id: string;
  slug: string;
  key: string;
  api: StatusdeskClient;
}

async function workspace(prefix: string): Promise<Workspace> {
  const ws = await newWorkspace(service, prefix);
  const key = (await service.createKey('write', ws.slug)).secret;
  return { ...ws, key, api: createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: key, env: {} }) };
}

async function tcp(ws: Workspace, name: string, uri: string, extra: { group?: string; active?: boolean } = {}): Promise<string> {
  const { monitor } = await ws.api.monitors.createTCPMonitor({
    monitor: { name, uri, periodicity: Periodicity.PERIODICITY_1H, regions: ['iad'], retry: 0, group: extra.group ?? '', active: extra.active },
  });
  return monitor!.id;
}

async function overview(ws: Workspace, query: Record<string, string> = {}): Promise<any> {
  const response = await fetch(`${service.dashboardUrl}/api/workspaces/${ws.id}/overview?${new URLSearchParams(query)}`, { headers: session });
  assert.equal(response.status, 200, await response.clone().text());
  return response.json();
}

describe('a monitor’s group', () => {
  test('set on create, changed and cleared on update, shown by GetMonitor; too long or on two lines is refused naming the field', async () => {
    const ws = await workspace('groups-rpc');
    const id = await tcp(ws, 'Primary', '127.0.0.1:5432', { group: '  Databases  ' });
    assert.equal((await ws.api.monitors.getMonitor({ id })).monitor.value?.group, 'Databases', 'trimmed');

    await ws.api.monitors.updateTCPMonitor({ id, monitor: { group: 'Storage' }, updateMask: { paths: ['group'] } });
    assert.equal((await ws.api.monitors.getMonitor({ id })).monitor.value?.group, 'Storage');
    // A rename leaves the group alone.
    await ws.api.monitors.updateTCPMonitor({ id, monitor: { name: 'Primary DB' }, updateMask: { paths: ['name'] } });
    assert.equal((await ws.api.monitors.getMonitor({ id })).monitor.value?.group, 'Storage');

    await assertViolation(
      ws.api.monitors.updateTCPMonitor({ id, monitor: { group: 'x'.repeat(61) }, updateMask: { paths: ['group'] } }),
      'monitor.group',
      /at most 60 characters/,
    );
    await assertViolation(ws.api.monitors.updateTCPMonitor({ id, monitor: { group: 'two\nlines' }, updateMask: { paths: ['group'] } }), 'monitor.group');
    assert.equal((await ws.api.monitors.getMonitor({ id })).monitor.value?.group, 'Storage', 'a refusal changes nothing');

    await ws.api.monitors.updateTCPMonitor({ id, monitor: {}, updateMask: { paths: ['group'] } });
    assert.equal((await ws.api.monitors.getMonitor({ id })).monitor.value?.group, '', 'the mask without a value takes it out of its group');
  });
});

describe('the grouped overview', () => {
  let ws: Workspace;
  const ids: Record<string, string> = {};

  before(async () => {
    ws = await workspace('groups-overview');
    const up = await openPort();
    const down = await closedPort();
    ids.api = await tcp(ws, 'api', up, { group: 'Web' });
    ids.cdn = await tcp(ws, 'cdn', up, { group: 'web' });
    ids.primary = await tcp(ws, 'primary', up, { group: 'Databases' });
    ids.replica = await tcp(ws, 'replica', down, { group: 'Databases' });
    ids.cache = await tcp(ws, 'cache', up, { group: 'Web' });
    ids.loose = await tcp(ws, 'loose', down);
    ids.idle = await tcp(ws, 'idle', up, { group: 'Archive', active: false });
    for (const name of ['api', 'cdn', 'primary', 'replica', 'cache', 'loose']) await ws.api.monitors.triggerMonitor({ id: ids[name]! });
  });

  test('rows come group by group: the worst group first, then by name; monitors in no group last; each group with its counts and worst state', async () => {
    const grouped = await overview(ws, { grouped: 'true' });
    assert.deepEqual(
      grouped.groups.map((g: any) => [g.name, g.total, g.state]),
      [
        ['Databases', 2, 'down'],
        ['Web', 2, 'up'],
        ['web', 1, 'up'],
        ['Archive', 1, 'paused'],
        ['', 1, 'down'],
      ],
    );
    assert.deepEqual(grouped.groups[0].counts, { up: 1, degraded: 0, down: 1, pending: 0, paused: 0 });
    assert.deepEqual(
      grouped.monitors.map((m: any) => [m.group, m.name]),
      [
        ['Databases', 'replica'],
        ['Databases', 'primary'],
        ['Web', 'api'],
        ['Web', 'cache'],
        ['web', 'cdn'],
        ['Archive', 'idle'],
        ['', 'loose'],
      ],
    );
    assert.equal(grouped.total, 7);
    assert.deepEqual(grouped.groupNames, ['Archive', 'Databases', 'Web', 'web']);

    // Ungrouped, the order is the overview's own: worst first, whatever the group.
    const flat = await overview(ws);
    assert.deepEqual(flat.groups, []);
    assert.deepEqual(
      flat.monitors.slice(0, 2).map((m: any) => m.state),
      ['down', 'down'],
    );
    assert.deepEqual(flat.groupNames, grouped.groupNames);
  });

  test('a collapsed group keeps its summary, its members leave the rows and the count; pages follow the same order', async () => {
    const collapsed = await overview(ws, { grouped: 'true', collapsed: JSON.stringify(['Databases', '']) });
    assert.deepEqual(
      collapsed.monitors.map((m: any) => m.name),
      ['api', 'cache', 'cdn', 'idle'],
    );
    assert.equal(collapsed.total, 4);
    assert.deepEqual(
      collapsed.groups.map((g: any) => [g.name, g.total]),
      [
        ['Databases', 2],
        ['Web', 2],
        ['web', 1],
        ['Archive', 1],
        ['', 1],
      ],
    );
    const second = await overview(ws, { grouped: 'true', limit: '2', offset: '2' });
    assert.deepEqual(
      second.monitors.map((m: any) => m.name),
      ['api', 'cache'],
    );
    // With a filter, the groups are those of the matching monitors.
    const filtered = await overview(ws, { grouped: 'true', state: 'down' });
    assert.deepEqual(
      filtered.groups.map((g: any) => [g.name, g.total]),
      [
        ['Databases', 1],
        ['', 1],
      ],
    );
  });

  test('a bad collapsed list or grouped value is refused naming it', async () => {
    for (const [name, value] of [
      ['collapsed', 'Databases'],
      ['collapsed', JSON.stringify([1])],
      ['collapsed', JSON.stringify(['x'.repeat(61)])],
      ['grouped', 'yes'],
    ] as const) {
      const response = await fetch(`${service.dashboardUrl}/api/workspaces/${ws.id}/overview?${new URLSearchParams({ grouped: 'true', [name]: value })}`, {
        headers: session,
      });
      assert.equal(response.status, 400, `${name}=${value}`);
      const body = (await response.json()) as { violations?: { field: string }[] };
      assert.ok(
        body.violations?.some((v) => v.field === name),
        JSON.stringify(body),
      );
    }
  });
});

describe('setting a group in bulk', () => {
  test('by ids and by filter; a monitor already in the group does not count as changed; empty takes them out', async () => {
    const ws = await workspace('groups-bulk');
    const [a, b, c] = [await tcp(ws, 'a', '127.0.0.1:1'), await tcp(ws, 'b', '127.0.0.1:2', { group: 'Edge' }), await tcp(ws, 'c', '127.0.0.1:3')];
    const byIds = await ws.api.monitors.bulkUpdateMonitors({ ids: [a, b], action: BulkMonitorAction.SET_GROUP, group: 'Edge' });
    assert.equal(byIds.changedCount, 1);
    const groupOf = async (id: string) => (await ws.api.monitors.getMonitor({ id })).monitor.value?.group;
    assert.deepEqual([await groupOf(a), await groupOf(b), await groupOf(c)], ['Edge', 'Edge', '']);

    const cleared = await ws.api.monitors.bulkUpdateMonitors({
      filter: { query: '', state: '', type: 'tcp', tag: '' },
      action: BulkMonitorAction.SET_GROUP,
      group: '',
    });
    assert.equal(cleared.changedCount, 2);
    assert.deepEqual([await groupOf(a), await groupOf(b), await groupOf(c)], ['', '', '']);

    await assertCode(
      ws.api.monitors.bulkUpdateMonitors({ ids: [a], action: BulkMonitorAction.SET_GROUP, group: 'g'.repeat(61) }),
      Code.InvalidArgument,
      /group: must be at most 60 characters/,
    );
    assert.equal(await groupOf(a), '');
  });
});

describe('groups on the command line, in files and over MCP', () => {
  test('--group on create and update, --group "" clears; bulk group; apply -f and export carry it', { timeout: 120_000 }, async () => {
    const ws = await workspace('groups-cli');
    const env = { SERVICE_API_KEY: ws.key, SERVICE_API_URL: service.apiUrl };
    const made = await runCli(
      ['monitors', 'create', 'tcp', '--name', 'Queue', '--target', '127.0.0.1:5672', '--frequency', '1h', '--regions', 'iad', '--group', 'Messaging', '--json'],
      env,
    );
    assert.equal(made.code, 0, made.stderr);
    const id = JSON.parse(made.stdout).id as string;
    assert.equal(JSON.parse(made.stdout).group, 'Messaging');
    const shown = await runCli(['monitors', 'get', id], env);
    assert.match(shown.stdout, /group\s+Messaging/);

    const moved = await runCli(['monitors', 'update', id, '--group', 'Queues', '--json'], env);
    assert.equal(JSON.parse(moved.stdout).group, 'Queues', moved.stderr);
    const out = await runCli(['monitors', 'update', id, '--group', '', '--json'], env);
    assert.equal(JSON.parse(out.stdout).group, '', out.stderr);

    const bulk = await runCli(['monitors', 'bulk', 'group', '--id', id, '--set-group', 'Back'], env);
    assert.equal(bulk.code, 0, bulk.stderr);
    assert.match(bulk.stderr + bulk.stdout, /Regrouped 1 of 1 monitors/);
    const missing = await runCli(['monitors', 'bulk', 'group', '--id', id], env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--set-group/);

    const dir = await tempDir();
    try {
      const file = join(dir.path, 'monitors.yaml');
      await writeFile(
        file,
        'version: 1\nmonitors:\n  - name: Ledger\n    type: tcp\n    target: 127.0.0.1:6000\n    frequency: 1h\n    regions: [iad]\n    group: Finance\n',
      );
      const applied = await runCli(['apply', '-f', file], env);
      assert.equal(applied.code, 0, applied.stderr);
      const exported = await runCli(['export'], env);
      assert.equal(exported.code, 0, exported.stderr);
      assert.match(exported.stdout, /name: Ledger[\s\S]*group: Finance/);
      assert.match(exported.stdout, /name: Queue[\s\S]*group: Back/);
      const again = join(dir.path, 'exported.yaml');
      await writeFile(again, exported.stdout);
      const plan = await runCli(['apply', '-f', again, '--json'], env);
      assert.equal(plan.code, 0, plan.stderr);
      assert.deepEqual(JSON.parse(plan.stdout).summary, { create: 0, update: 0, delete: 0, unchanged: 2 });
      await writeFile(again, exported.stdout.replace('group: Finance', 'group: Accounts'));
      const changed = await runCli(['apply', '-f', again, '--json'], env);
      assert.deepEqual(JSON.parse(changed.stdout).summary, { create: 0, update: 1, delete: 0, unchanged: 1 });
    } finally {
      await dir.remove();
    }
  });

  test('list_monitors and get_monitor show the group, to the 2.x and the 1.x client', async () => {
    const ws = await workspace('groups-mcp');
    const id = await tcp(ws, 'Broker', '127.0.0.1:1883', { group: 'Messaging' });
    const modern = await connectMcp(service.apiUrl, MODERN_ERA, ws.key);
    const legacy = await connectMcpV1(service.apiUrl, ws.key);
    try {
      for (const client of [modern.client, legacy.client] as { callTool(params: object): Promise<unknown> }[]) {
        const listed = (await client.callTool({ name: 'list_monitors', arguments: {} })) as { structuredContent: any; isError?: boolean };
        assert.ok(!listed.isError, JSON.stringify(listed));
        assert.equal(listed.structuredContent.monitors.find((m: any) => m.monitorId === Number(id))?.group, 'Messaging');
        const got = (await client.callTool({ name: 'get_monitor', arguments: { monitorId: Number(id) } })) as { structuredContent: any; isError?: boolean };
        assert.ok(!got.isError, JSON.stringify(got));
        assert.equal(got.structuredContent.monitor.group, 'Messaging');
      }
    } finally {
      await modern.close();
      await legacy.close();
    }
  });
});
