/**
 * What the MCP tools keep between requests never outlives what it was made from: a monitor's shape
 * is kept by the monitor the service shares, and a list_monitors answer by the page of monitors
 * with the channels and open incidents it shows, so any change shows in the next list_monitors
 * and get_monitor of every era, with credential-like values still [redacted].
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Actor } from '../server/domain/actor.ts';
import { newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { connectMcp, ERAS, type McpConnection, ok } from './support/mcp-client.ts';

const system: Actor = { type: 'system', surface: 'cli' };

let svc: TestService;
let ws: number;
const connections: McpConnection[] = [];

before(
  async () => {
    svc = await startTestService();
    const workspace = await newWorkspace(svc, 'mcp-hot-path');
    ws = Number(workspace.id);
    const key = await svc.createKey('read', workspace.slug);
    for (const era of ERAS) connections.push(await connectMcp(svc.apiUrl, era, key.secret));
  },
  { timeout: 60_000 },
);

after(async () => {
  for (const connection of connections) await connection.close();
  await svc?.stop();
});

describe('list_monitors and get_monitor after a change', { timeout: 120_000 }, () => {
  test('show the monitor as it is now in every era, its credential header still [redacted]', async () => {
    const created = await svc.services.monitors.create(system, ws, 'http', {
      name: 'hot path before',
      url: 'http://127.0.0.1:9/before',
      periodicity: '1m',
      headers: { authorization: 'Bearer first', accept: 'text/plain' },
    });
    const monitorId = Number(created.id);
    const seen = async (connection: McpConnection) => {
      const listed = ok<{ monitors: Record<string, unknown>[] }>(await connection.call('list_monitors', { perPage: 50 })).monitors.find(
        (m) => m.monitorId === monitorId,
      );
      const got = ok<{ monitor: Record<string, unknown> }>(await connection.call('get_monitor', { monitorId })).monitor;
      return { listed, got };
    };
    for (const connection of connections) {
      const { listed, got } = await seen(connection);
      assert.equal(listed?.name, 'hot path before', connection.era);
      assert.equal(got.url, 'http://127.0.0.1:9/before', connection.era);
    }

    await svc.services.monitors.update(system, ws, 'http', created.id, {
      name: 'hot path after',
      url: 'http://127.0.0.1:9/after',
      headers: { authorization: 'Bearer second', accept: 'application/json' },
    });
    for (const connection of connections) {
      const { listed, got } = await seen(connection);
      for (const shown of [listed, got]) {
        assert.equal(shown?.name, 'hot path after', connection.era);
        assert.equal(shown?.url, 'http://127.0.0.1:9/after', connection.era);
        assert.deepEqual(shown?.headers, { authorization: '[redacted]', accept: 'application/json' }, connection.era);
      }
    }
  });

  test('show a channel wired to the monitor since the last list, which changes no monitor', async () => {
    const created = await svc.services.monitors.create(system, ws, 'tcp', { name: 'hot path wired', uri: '127.0.0.1:9', periodicity: '1m' });
    const monitorId = Number(created.id);
    const channelsShown = async (connection: McpConnection) =>
      ok<{ monitors: Record<string, unknown>[] }>(await connection.call('list_monitors', { perPage: 50 })).monitors.find((m) => m.monitorId === monitorId)
        ?.notificationChannels;
    for (const connection of connections) assert.deepEqual(await channelsShown(connection), [], connection.era);

    const channel = await svc.services.channels.create(system, ws, { name: 'This computer', kind: 'desktop', monitorIds: [created.id] });
    for (const connection of connections) {
      assert.deepEqual(await channelsShown(connection), [{ id: channel.id, name: 'This computer', kind: 'desktop' }], connection.era);
    }
  });

  test('show each page of the same list in its own place, every page kept apart', async () => {
    const own = await newWorkspace(svc, 'mcp-hot-path-pages');
    const ownWs = Number(own.id);
    for (const name of ['paged first', 'paged second'])
      await svc.services.monitors.create(system, ownWs, 'tcp', { name, uri: '127.0.0.1:9', periodicity: '1m' });
    const key = await svc.createKey('read', own.slug);
    for (const era of ERAS) {
      const connection = await connectMcp(svc.apiUrl, era, key.secret);
      try {
        const page = async (args: { page: number; perPage: number }) => {
          const { monitors, pagination } = ok<{ monitors: { name: string }[]; pagination: Record<string, number> }>(
            await connection.call('list_monitors', args),
          );
          return { names: monitors.map((m) => m.name), pagination };
        };
        for (let round = 0; round < 2; round++) {
          assert.deepEqual(
            await page({ page: 1, perPage: 1 }),
            { names: ['paged second'], pagination: { page: 1, perPage: 1, totalSize: 2, totalPages: 2 } },
            era,
          );
          assert.deepEqual(
            await page({ page: 2, perPage: 1 }),
            { names: ['paged first'], pagination: { page: 2, perPage: 1, totalSize: 2, totalPages: 2 } },
            era,
          );
          assert.deepEqual(
            await page({ page: 1, perPage: 2 }),
            { names: ['paged second', 'paged first'], pagination: { page: 1, perPage: 2, totalSize: 2, totalPages: 1 } },
            era,
          );
        }
      } finally {
        await connection.close();
      }
    }
  });
});
