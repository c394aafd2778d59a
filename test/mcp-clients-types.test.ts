// Every monitor type and every channel kind read through MCP by the clients people run: the 1.x
// SDK and the 2.x client both check a tool's structured answer against its output schema, so a
// type whose words the schema does not allow fails here, in the client that sees it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { channelKindNames, channelSpecOf } from '../server/delivery/channels/registry.ts';
import { examplesOf, monitorTypeNames, specOf } from '../server/domain/monitors/monitor-types.ts';
import { withLocalOwner } from './support/database.ts';
import { startTestService, type TestService } from './support/harness.ts';

const TIMEOUT_MS = 15_000;
type Answer = { isError?: boolean; structuredContent?: Record<string, any> };

let service: TestService;
let key: string;
/** The ids of a monitor of each type. */
const made = new Map<string, string>();

before(async () => {
  service = await startTestService();
  key = (await service.createKey('read')).secret;
  await withLocalOwner(service.dataDir, async (services, owner) => {
    const workspaceId = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
    for (const type of monitorTypeNames) {
      const monitor = await services.monitors.create(owner, workspaceId, type, {
        name: `${type} for clients`,
        periodicity: '10m',
        regions: ['iad'],
        ...examplesOf(specOf(type))[0],
      });
      made.set(type, monitor.id);
    }
    for (const kind of channelKindNames) {
      await services.channels.create(owner, workspaceId, { name: `${kind} for clients`, kind, config: channelSpecOf(kind).example });
    }
  });
});
after(() => service?.stop());

/** Lists the monitors and channels and gets each monitor, as `call` does it. */
async function readAll(call: (name: string, args: Record<string, unknown>) => Promise<Answer>) {
  const listed = await call('list_monitors', { perPage: 50 });
  assert.ok(!listed.isError, JSON.stringify(listed));
  const types = new Set((listed.structuredContent!.monitors as { type: string }[]).map((m) => m.type));
  assert.deepEqual([...types].sort(), [...monitorTypeNames].sort());
  for (const [type, id] of made) {
    const got = await call('get_monitor', { monitorId: Number(id) });
    assert.ok(!got.isError, `${type}: ${JSON.stringify(got)}`);
    assert.equal(got.structuredContent!.monitor.type, type);
  }
  const channels = await call('list_notifications', { perPage: 200 });
  assert.ok(!channels.isError, JSON.stringify(channels));
  const kinds = new Set((channels.structuredContent!.notifications as { kind: string }[]).map((c) => c.kind));
  assert.deepEqual([...kinds].sort(), [...channelKindNames].sort());
}

describe('every monitor type and channel kind through both MCP client majors', () => {
  test('the 1.x SDK client reads each, its answers valid against the output schemas', async () => {
    const client = new ClientV1({ name: 'sdk-1x', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(`${service.apiUrl}/mcp`), { requestInit: { headers: { 'x-service-key': key } } }), { timeout: TIMEOUT_MS });
    try {
      await readAll(async (name, args) => (await client.callTool({ name, arguments: args }, undefined, { timeout: TIMEOUT_MS })) as Answer);
    } finally {
      await client.close();
    }
  });

  test('the 2.x client reads each, its answers valid against the output schemas', async () => {
    const client = new ClientV2({ name: 'sdk-2x', version: '1.0.0' });
    await client.connect(new TransportV2(new URL(`${service.apiUrl}/mcp`), { requestInit: { headers: { 'x-service-key': key } } }));
    try {
      await readAll(async (name, args) => (await client.callTool({ name, arguments: args }, { timeout: TIMEOUT_MS })) as Answer);
    } finally {
      await client.close();
    }
  });
});
