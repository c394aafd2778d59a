/**
 * Each subscriber's last delivery is part of the subscriber: ListSubscribers answers when the
 * last page event reached it and, when it did not, why; the audit entry of its removal keeps it.
 * Real service on loopback, real webhook receivers (one answering 200, one 500).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { createClient } from '../client/index.ts';
import type { Actor } from '../server/domain/actor.ts';
import { newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { startHttpReceiver } from './support/receivers.ts';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service.stop());

test('ListSubscribers answers the outcome of the last page event sent to each subscriber, and removing one audits it', async () => {
  const fine = await startHttpReceiver();
  const failing = await startHttpReceiver({ status: 500 });
  after(() => Promise.all([fine.close(), failing.close()]));
  const owner: Actor = { type: 'user', userId: service.ownerId, surface: 'cli' };
  const workspace = await newWorkspace(service, 'outcomes');
  const ws = Number(workspace.id);
  const rpc = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: (await service.createKey('read', workspace.slug)).secret, env: {} });
  const { pages, subscribers, reports, auditLog } = service.services;
  const page = await pages.create(owner, ws, { slug: `outcomes-${ws}`, title: 'Outcomes' });
  const list = async () => (await rpc.pages.listSubscribers({ pageId: page.id })).subscribers;
  await subscribers.add(owner, ws, page.id, { webhookUrl: `${fine.url}/fine` });
  await subscribers.add(owner, ws, page.id, { webhookUrl: `${failing.url}/failing` });
  for (const listed of await list()) assert.deepEqual([listed.lastDeliveryAt, listed.lastDeliveryError], [undefined, undefined], 'nothing sent yet');

  const before = Date.now();
  const result = await reports.create(owner, ws, { pageId: page.id, title: 'Degraded', message: 'Looking into it.', notify: true });
  assert.equal(result.notified, false, 'one delivery failed');
  const listed = await list();
  assert.equal(listed.length, 2);
  for (const subscriber of listed) {
    assert.ok(subscriber.lastDeliveryAt && timestampDate(subscriber.lastDeliveryAt).getTime() >= before - 1000, `${subscriber.address} has its delivery time`);
  }
  const [failed, delivered] = listed; // newest first
  assert.equal(delivered!.lastDeliveryError, undefined);
  assert.match(failed!.lastDeliveryError ?? '', /500/);

  await subscribers.remove(owner, ws, failed!.id);
  const { auditLogs } = await auditLog.list(owner, ws, { entityType: 'page_subscriber', entityId: failed!.id });
  const removal = auditLogs.find((entry) => entry.action === 'page_subscriber.delete');
  assert.ok(removal, 'the removal is audited');
  assert.equal(removal.before?.lastDeliveryAt, timestampDate(failed!.lastDeliveryAt!).toISOString());
  assert.equal(removal.before?.lastDeliveryError, failed!.lastDeliveryError);
});
