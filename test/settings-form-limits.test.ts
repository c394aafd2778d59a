// The limits the channel, location and key forms state (contract/limits.ts) are the service's own:
// the value at each limit is stored and one past it refused, naming the field and the limit.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createClient } from '../client/index.ts';
import { CHANNEL_LIMITS, KEY_LIMITS, LOCATION_LIMITS } from '../contract/limits.ts';
import { withLocalOwner } from './support/database.ts';
import { assertViolation, newWorkspace, rejectsWith, startTestService, type TestService } from './support/harness.ts';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

const text = (length: number, start = 'x') => start + 'x'.repeat(length - start.length);

/** A client of a fresh workspace of its own. */
async function workspaceClient(prefix: string) {
  const ws = await newWorkspace(service, prefix);
  const key = (await service.createKey('write', ws.slug)).secret;
  return { ws, client: createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: key, env: {} }) };
}

describe('the limits the channel, location and key forms state', () => {
  test("a channel's name", async () => {
    const { client } = await workspaceClient('lim-ch');
    const channel = (name: string) => client.notifications.createNotificationChannel({ name, config: { case: 'desktop', value: {} } });
    await channel(text(CHANNEL_LIMITS.nameLength));
    await assertViolation(channel(text(CHANNEL_LIMITS.nameLength + 1)), 'name', new RegExp(`at most ${CHANNEL_LIMITS.nameLength} characters`));
  });

  test("a location's name and its labels", async () => {
    const { client } = await workspaceClient('lim-loc');
    const { nameLength, labels } = LOCATION_LIMITS;
    const start = `l${randomBytes(3).toString('hex')}`;
    const location = (name: string, count = 0) =>
      client.privateLocations.createPrivateLocation({ name, metadata: Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 'v'])) });
    const words = new RegExp(`${nameLength.min} to ${nameLength.max} characters`);
    await location(text(nameLength.max, start));
    await assertViolation(location(text(nameLength.max + 1, start)), 'name', words);
    await assertViolation(location(start.slice(0, nameLength.min - 1)), 'name', words);
    await location(`${start}-labels`, labels);
    await assertViolation(location(`${start}-more`, labels + 1), 'metadata', new RegExp(`at most ${labels} entries`));
  });

  test("a key's name", async () => {
    const { ws } = await workspaceClient('lim-key');
    const key = (name: string) =>
      withLocalOwner(service.dataDir, (services, owner) => services.keys.create(owner, { workspaceId: Number(ws.id), name, scope: 'read' }));
    await key(text(KEY_LIMITS.nameLength));
    const refusal = await rejectsWith(key(text(KEY_LIMITS.nameLength + 1)), 'VALIDATION', 'name');
    assert.match(JSON.stringify(refusal.violations), new RegExp(`at most ${KEY_LIMITS.nameLength} characters`));
  });
});
