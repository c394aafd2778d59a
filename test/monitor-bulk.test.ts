/**
 * Bulk actions on monitors through the whole service: BulkUpdateMonitors pauses, resumes, deletes,
 * tags and wires to a channel the monitors named by id or by the overview's filter, each monitor
 * audited as its own call would audit it (a channel wired once); a refused request changes
 * nothing; a read key is refused; and `statusdesk monitors bulk` does the same from the command line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Code } from '@connectrpc/connect';
import { BulkMonitorAction } from '../proto/gen/monitor/v1/monitor_pb.js';
import type { Actor } from '../server/domain/actor.ts';
import { assertCode, assertViolation, jsonOf, monitorRpc, newWorkspace, runCli, startTestService, type TestService } from './support/harness.ts';

const system: Actor = { type: 'system', surface: 'cli' };

let service: TestService;

before(async () => {
  service = await startTestService();
});

after(() => service.stop());

/** A workspace of its own, a write key's and a read key's RPC clients, and `n` TCP monitors named `prefix N`. */
async function workspaceWith(prefix: string, n: number, tags: (i: number) => string[] = () => []) {
  const workspace = await newWorkspace(service, prefix);
  const writeKey = (await service.createKey('write', workspace.slug)).secret;
  const rpc = monitorRpc(service, writeKey);
  const reader = monitorRpc(service, (await service.createKey('read', workspace.slug)).secret);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { monitor } = await rpc.createTCPMonitor({
      monitor: { name: `${prefix} ${i}`, uri: `127.0.0.1:${9000 + i}`, periodicity: 3, regions: ['iad'], tags: tags(i) },
    });
    ids.push(monitor!.id);
  }
  return { workspaceId: Number(workspace.id), slug: workspace.slug, writeKey, rpc, reader, ids };
}

/** The audit entries of one action on monitors of the workspace, by monitor id. */
async function auditedIds(workspaceId: number, action: string): Promise<string[]> {
  const entityType = action.slice(0, action.lastIndexOf('.'));
  const { auditLogs } = await service.services.auditLog.list(system, workspaceId, { entityType, perPage: 50 });
  return auditLogs
    .filter((entry) => entry.action === action)
    .map((entry) => entry.entityId)
    .sort();
}

async function activeOf(rpc: ReturnType<typeof monitorRpc>, id: string): Promise<boolean | undefined> {
  const { monitor } = await rpc.getMonitor({ id });
  return (monitor.value as { active?: boolean }).active;
}

const sorted = (ids: string[]) => [...ids].sort();

describe('BulkUpdateMonitors', () => {
  test('pauses and resumes the monitors named by id, each audited as its own update; an unchanged one is neither changed nor audited', async () => {
    const { workspaceId, rpc, ids } = await workspaceWith('bulk-pause', 3);
    const [a, b, c] = ids as [string, string, string];
    const paused = await rpc.bulkUpdateMonitors({ action: BulkMonitorAction.PAUSE, ids: [a, b] });
    assert.deepEqual(sorted(paused.ids), sorted([a, b]));
    assert.equal(paused.changedCount, 2);
    assert.deepEqual([await activeOf(rpc, a), await activeOf(rpc, b), await activeOf(rpc, c)], [false, false, true]);
    assert.deepEqual(await auditedIds(workspaceId, 'monitor.update'), sorted([a, b]));

    // b is paused already: pausing it again changes and records nothing.
    const again = await rpc.bulkUpdateMonitors({ action: BulkMonitorAction.PAUSE, ids: [b] });
    assert.equal(again.changedCount, 0);
    assert.equal((await auditedIds(workspaceId, 'monitor.update')).length, 2);

    const resumed = await rpc.bulkUpdateMonitors({ action: BulkMonitorAction.RESUME, ids: [a, b, c] });
    assert.equal(resumed.changedCount, 2);
    assert.deepEqual([await activeOf(rpc, a), await activeOf(rpc, b), await activeOf(rpc, c)], [true, true, true]);
  });

  test('tags and deletes every monitor a filter matches, and only those', async () => {
    const { workspaceId, rpc, ids } = await workspaceWith('bulk-filter', 4, (i) => (i % 2 === 0 ? ['edge'] : ['core']));
    const edge = [ids[0]!, ids[2]!];
    const tagged = await rpc.bulkUpdateMonitors({ action: BulkMonitorAction.ADD_TAG, filter: { tag: 'edge' }, tag: 'eu-west' });
    assert.deepEqual(sorted(tagged.ids), sorted(edge));
    assert.equal(tagged.changedCount, 2);
    for (const id of edge) assert.deepEqual((await rpc.getMonitor({ id })).monitor.value?.tags, ['edge', 'eu-west']);
    assert.deepEqual((await rpc.getMonitor({ id: ids[1]! })).monitor.value?.tags, ['core']);

    // A text filter, as the overview's search: "bulk-filter 3" is the name of one monitor.
    const deleted = await rpc.bulkUpdateMonitors({ action: BulkMonitorAction.DELETE, filter: { query: 'BULK-FILTER 3' } });
    assert.deepEqual(deleted.ids, [ids[3]!]);
    await assertCode(rpc.getMonitor({ id: ids[3]! }), Code.NotFound);
    assert.deepEqual(await auditedIds(workspaceId, 'monitor.delete'), [ids[3]!]);

    // An empty filter is every monitor of the workspace.
    const all = await rpc.bulkUpdateMonitors({ action: BulkMonitorAction.DELETE, filter: {} });
    assert.deepEqual(sorted(all.ids), sorted(ids.slice(0, 3)));
    assert.equal((await rpc.listMonitors({})).totalSize, 0);
    assert.deepEqual(await auditedIds(workspaceId, 'monitor.delete'), sorted(ids));
  });

  test('wires the monitors to a channel: the channel lists them, with one update entry of the channel', async () => {
    const { workspaceId, rpc, ids } = await workspaceWith('bulk-wire', 3);
    const channel = await service.services.channels.create(system, workspaceId, {
      name: 'ops hook',
      kind: 'webhook',
      config: { url: 'http://127.0.0.1:9/hook', secret: 'a-signing-secret-of-some-length' },
      monitorIds: [ids[0]!],
    });
    const wired = await rpc.bulkUpdateMonitors({ action: BulkMonitorAction.WIRE_TO_CHANNEL, ids: [ids[0]!, ids[1]!], channelId: channel.id });
    assert.equal(wired.changedCount, 1, 'the first monitor was wired already');
    assert.deepEqual(sorted((await service.services.channels.get(system, workspaceId, channel.id)).monitorIds), sorted([ids[0]!, ids[1]!]));
    assert.deepEqual(await auditedIds(workspaceId, 'notification_channel.update'), [channel.id]);
  });

  test('a refusal changes nothing: an unknown id, a missing tag, a tag too long, a monitor without room for a tag, an unknown channel, both or neither selection', async () => {
    const { workspaceId, rpc, ids } = await workspaceWith('bulk-refused', 2, (i) => (i === 1 ? Array.from({ length: 20 }, (_, t) => `t${t}`) : []));
    const before = await rpc.listMonitors({});
    await assertCode(rpc.bulkUpdateMonitors({ action: BulkMonitorAction.PAUSE, ids: [ids[0]!, '999999'] }), Code.NotFound, /ids\.1: monitor 999999/);
    await assertViolation(rpc.bulkUpdateMonitors({ action: BulkMonitorAction.ADD_TAG, ids }), 'tag', /required/);
    await assertViolation(rpc.bulkUpdateMonitors({ action: BulkMonitorAction.ADD_TAG, ids, tag: 'x'.repeat(65) }), 'tag', /at most 64/);
    await assertViolation(rpc.bulkUpdateMonitors({ action: BulkMonitorAction.ADD_TAG, ids, tag: 'new' }), 'tag', /1 of the monitors already have 20 tags/);
    await assertCode(rpc.bulkUpdateMonitors({ action: BulkMonitorAction.WIRE_TO_CHANNEL, ids, channelId: '999999' }), Code.NotFound);
    await assertViolation(rpc.bulkUpdateMonitors({ action: BulkMonitorAction.PAUSE, ids, filter: { tag: 't1' } }), 'ids', /either by ids or by filter/);
    await assertViolation(rpc.bulkUpdateMonitors({ action: BulkMonitorAction.PAUSE }), 'ids', /at least one monitor/);
    await assertViolation(rpc.bulkUpdateMonitors({ action: BulkMonitorAction.UNSPECIFIED, ids }), 'action', /must be one of/);
    await assertViolation(rpc.bulkUpdateMonitors({ action: BulkMonitorAction.PAUSE, filter: { state: 'asleep' } }), 'filter.state', /must be one of/);
    await assertViolation(rpc.bulkUpdateMonitors({ action: BulkMonitorAction.PAUSE, filter: { query: 'x'.repeat(201) } }), 'filter.query', /at most 200/);
    assert.deepEqual(await rpc.listMonitors({}), before);
    assert.deepEqual(await auditedIds(workspaceId, 'monitor.update'), []);
  });

  test('a read key is refused, and nothing changes', async () => {
    const { workspaceId, rpc, reader, ids } = await workspaceWith('bulk-read', 1);
    await assertCode(reader.bulkUpdateMonitors({ action: BulkMonitorAction.DELETE, ids }), Code.PermissionDenied);
    assert.equal((await rpc.listMonitors({})).totalSize, 1);
    assert.deepEqual(await auditedIds(workspaceId, 'monitor.delete'), []);
  });
});

describe('statusdesk monitors bulk', () => {
  test('pauses by tag, tags by id, deletes by filter only with --yes, and refuses both selections at once', async () => {
    const { rpc, writeKey, ids } = await workspaceWith('bulk-cli', 3, (i) => (i < 2 ? ['web'] : []));
    const env = { SERVICE_API_KEY: writeKey, SERVICE_API_URL: `${service.apiUrl}/rpc`, STATUSDESK_DATA_DIR: undefined };
    const paused = await runCli(['monitors', 'bulk', 'pause', '--tag', 'web', '--json'], env);
    assert.equal(paused.code, 0, paused.stderr);
    assert.deepEqual(jsonOf(paused), { ids: sorted(ids.slice(0, 2)), changed: 2, failures: [] });
    assert.equal(await activeOf(rpc, ids[0]!), false);
    assert.equal(await activeOf(rpc, ids[2]!), true);

    const tagged = await runCli(['monitors', 'bulk', 'tag', '--id', ids[2]!, '--add-tag', 'batch'], env);
    assert.equal(tagged.code, 0, tagged.stderr);
    assert.match(tagged.stderr, /Tagged 1 of 1 monitors/);
    assert.deepEqual((await rpc.getMonitor({ id: ids[2]! })).monitor.value?.tags, ['batch']);

    const unasked = await runCli(['monitors', 'bulk', 'delete', '--all'], env);
    assert.equal(unasked.code, 2, 'a usage error');
    assert.match(unasked.stderr, /--yes/);
    assert.equal((await rpc.listMonitors({})).totalSize, 3);

    const both = await runCli(['monitors', 'bulk', 'pause', '--id', ids[0]!, '--tag', 'web'], env);
    assert.equal(both.code, 2, 'a usage error');
    assert.match(both.stderr, /not both/);

    const badState = await runCli(['monitors', 'bulk', 'pause', '--state', 'asleep'], env);
    assert.equal(badState.code, 2, badState.stderr);
    assert.match(badState.stderr, /--state: must be one of up, degraded/);

    const deleted = await runCli(['monitors', 'bulk', 'delete', '--all', '--yes', '--json'], env);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(jsonOf(deleted).changed, 3);
    assert.equal((await rpc.listMonitors({})).totalSize, 0);
  });
});
