/**
 * The answers the domain keeps between calls until a table they are read from changes (open
 * incident counts, the channels of monitors, the plan tools/list reads) show every change on the
 * very next call: a check flipping a monitor down or back up, a component or report changed, a
 * channel renamed or linked by another connection to the data folder.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { openDatabase, withSqlite } from '../server/db/open.ts';
import { tablesStamp, type WatchedTable } from '../server/db/table-stamps.ts';
import type { Actor } from '../server/domain/actor.ts';
import type { Monitor } from '../server/domain/monitors/monitors.ts';
import { queryRows, sqliteOnly } from './support/database.ts';
import { newWorkspace, startTestService, tempDir, type TestService } from './support/harness.ts';

const system: Actor = { type: 'system', surface: 'cli' };

let svc: TestService;
let ws: number;

before(async () => {
  svc = await startTestService();
  ws = Number((await newWorkspace(svc, 'kept-answers')).id);
});
after(async () => {
  await svc?.stop();
});

/** Writes with a connection of its own, as another process on the data folder would. */
async function byHand(sql: string, ...params: unknown[]) {
  await queryRows(svc.dataDir, sql, ...params);
}

describe('open incident counts', () => {
  const counted = async (monitor: Monitor) => (await svc.services.monitors.activeIncidentCounts(system, ws, [monitor])).get(monitor.id);

  test('follow a monitor going down and coming back up', async () => {
    const target = net.createServer((socket) => socket.destroy()).listen(0, '127.0.0.1');
    await once(target, 'listening');
    const { port } = target.address() as net.AddressInfo;
    const monitor = await svc.services.monitors.create(system, ws, 'tcp', {
      name: 'flips',
      uri: `127.0.0.1:${port}`,
      periodicity: '1m',
      regions: ['iad'],
      retry: 0,
      timeout: 1000,
    });
    try {
      assert.equal((await svc.services.monitors.trigger(system, ws, monitor.id))[0]!.result, 'up');
      assert.equal(await counted(monitor), 0);
      target.close();
      await once(target, 'close');
      assert.equal((await svc.services.monitors.trigger(system, ws, monitor.id))[0]!.result, 'down');
      assert.equal(await counted(monitor), 1);
      target.listen(port, '127.0.0.1');
      await once(target, 'listening');
      assert.equal((await svc.services.monitors.trigger(system, ws, monitor.id))[0]!.result, 'up');
      assert.equal(await counted(monitor), 0);
    } finally {
      target.close();
    }
  });

  test('follow a report naming its component, the component unlinked, and a report deleted by another connection', async () => {
    const monitor = await svc.services.monitors.create(system, ws, 'tcp', { name: 'reported', uri: '127.0.0.1:9', periodicity: '1m' });
    const page = await svc.services.pages.create(system, ws, { slug: 'kept-answers', title: 'Kept' });
    const component = await svc.services.pages.addComponent(system, ws, page.id, { name: 'Reported', monitorId: monitor.id });
    assert.equal(await counted(monitor), 0);
    const first = await svc.services.reports.create(system, ws, {
      pageId: page.id,
      title: 'One',
      message: 'm',
      pageComponentIds: [component.id],
      notify: false,
    });
    await svc.services.reports.create(system, ws, { pageId: page.id, title: 'Two', message: 'm', pageComponentIds: [component.id], notify: false });
    assert.equal(await counted(monitor), 2);
    await byHand('delete from status_reports where id = ?', Number(first.report.id));
    assert.equal(await counted(monitor), 1);
    await svc.services.pages.updateComponent(system, ws, component.id, { monitorId: null });
    assert.equal(await counted(monitor), 0);
  });
});

describe('the channels of monitors', () => {
  const channelsOf = async (monitor: Monitor) => (await svc.services.channels.ofMonitors(system, ws, [monitor.id])).get(monitor.id);

  test('follow a channel renamed, and a link made by another connection', async () => {
    const monitor = await svc.services.monitors.create(system, ws, 'tcp', { name: 'wired', uri: '127.0.0.1:9', periodicity: '1m' });
    const channel = await svc.services.channels.create(system, ws, { name: 'Desk', kind: 'desktop', monitorIds: [monitor.id] });
    assert.deepEqual(await channelsOf(monitor), [{ id: channel.id, name: 'Desk', kind: 'desktop' }]);
    await svc.services.channels.update(system, ws, channel.id, { name: 'Desk renamed' });
    assert.deepEqual(await channelsOf(monitor), [{ id: channel.id, name: 'Desk renamed', kind: 'desktop' }]);
    const other = await svc.services.monitors.create(system, ws, 'tcp', { name: 'wired by hand', uri: '127.0.0.1:9', periodicity: '1m' });
    assert.deepEqual(await channelsOf(other), []);
    await byHand('insert into channel_monitors (channel_id, monitor_id) values (?, ?)', Number(channel.id), Number(other.id));
    assert.deepEqual(await channelsOf(other), [{ id: channel.id, name: 'Desk renamed', kind: 'desktop' }]);
  });
});

test('whoami shows a plan changed by another connection', async () => {
  const workspace = await newWorkspace(svc, 'kept-plan', 'scale');
  const key = await svc.createKey('read', workspace.slug);
  const actor = (await svc.services.keys.authenticate(key.secret, 'mcp'))!;
  assert.equal((await svc.services.identity.whoami(actor)).plan, 'scale');
  await byHand("update workspaces set plan = 'hobby' where id = ?", Number(workspace.id));
  assert.equal((await svc.services.identity.whoami(actor)).plan, 'hobby');
});

test('a stamp of a table watched under conditions changes only with the rows they pick', { skip: sqliteOnly }, async () => {
  const folder = await tempDir();
  const db = await openDatabase(folder.path);
  try {
    const plans: WatchedTable = { table: 'workspaces', insert: '0', update: 'old.plan <> new.plan', delete: '0' };
    const write = (sql: string, ...params: unknown[]) => withSqlite(db, (sqlite) => sqlite.prepare(sql).run(...params));
    const stamp = () => tablesStamp(db, [plans]);
    const first = await stamp();
    const { lastInsertRowid: id } = await write(
      "insert into workspaces (name, slug, plan, created_at) values ('Stamped', 'stamped', 'scale', '2026-01-01T00:00:00Z')",
    );
    await write("update workspaces set name = 'Stamped again' where id = ?", id);
    assert.equal(await stamp(), first);
    await write("update workspaces set plan = 'hobby' where id = ?", id);
    assert.notEqual(await stamp(), first);
  } finally {
    await db.destroy();
    await folder.remove();
  }
});
