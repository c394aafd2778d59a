/**
 * Each subscriber's last delivery shows where the page's owner lists the subscribers: the
 * dashboard's JSON API answers when the last page event reached it and, when it did not, why.
 * Real service on loopback, real webhook receivers (one answering 200, one 500).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Actor } from '../server/domain/actor.ts';
import { dashboardSession, json, newWorkspace, startTestService, type TestService } from './support/harness.ts';
import { startHttpReceiver } from './support/receivers.ts';

let service: TestService;
let session: Record<string, string>;
before(async () => {
  service = await startTestService();
  session = await dashboardSession(service);
});
after(() => service.stop());

test("the dashboard lists a page's subscribers with the outcome of the last page event sent to each", async () => {
  const fine = await startHttpReceiver();
  const failing = await startHttpReceiver({ status: 500 });
  after(() => Promise.all([fine.close(), failing.close()]));
  const owner: Actor = { type: 'user', userId: service.ownerId, surface: 'cli' };
  const ws = Number((await newWorkspace(service, 'outcomes')).id);
  const { pages, subscribers, reports } = service.services;
  const page = await pages.create(owner, ws, { slug: `outcomes-${ws}`, title: 'Outcomes' });
  const list = async () => {
    const response = await fetch(`${service.dashboardUrl}/api/workspaces/${ws}/pages/${page.id}/subscribers`, { headers: session });
    assert.equal(response.status, 200);
    return (await json(response)).subscribers as { address: string; lastDeliveryAt: string | null; lastDeliveryError: string | null }[];
  };
  await subscribers.add(owner, ws, page.id, { webhookUrl: `${fine.url}/fine` });
  await subscribers.add(owner, ws, page.id, { webhookUrl: `${failing.url}/failing` });
  for (const listed of await list()) assert.deepEqual([listed.lastDeliveryAt, listed.lastDeliveryError], [null, null], 'nothing sent yet');

  const before = new Date().toISOString();
  const result = await reports.create(owner, ws, { pageId: page.id, title: 'Degraded', message: 'Looking into it.', notify: true });
  assert.equal(result.notified, false, 'one delivery failed');
  const listed = await list();
  assert.equal(listed.length, 2);
  for (const subscriber of listed) assert.ok(subscriber.lastDeliveryAt !== null && subscriber.lastDeliveryAt >= before.slice(0, 19), `${subscriber.address} has its delivery time`);
  const [failed, delivered] = listed; // newest first
  assert.equal(delivered!.lastDeliveryError, null);
  assert.match(failed!.lastDeliveryError ?? '', /500/);
});
