/**
 * The fan-out of page events (delivery/subscriber-fanout.ts), on its own: a bounded number of
 * deliveries at once, every outcome handed to the domain's recorder, the dispatch deadline, and
 * closing. `send` here is a function of the test that holds each delivery until released; the
 * whole path over real receivers is in dispatch-deadline.test.ts and notifications.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createFanOut, NOT_SENT_STOPPED } from '../server/delivery/subscriber-fanout.ts';
import type { PageEvent } from '../server/domain/notifications/events.ts';
import type { DeliveryOutcome, Recipient, SubscriberAddress } from '../server/domain/notifications/subscribers.ts';
import { until } from './support/wait.ts';

const event = { kind: 'report.created' } as PageEvent;

const recipients = (count: number, unreadable = new Set<number>()): Recipient[] =>
  Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    address: (): SubscriberAddress => {
      if (unreadable.has(i + 1)) throw new Error('the key file was lost');
      return { kind: 'webhook', url: `http://127.0.0.1:9/${i + 1}`, secret: 'whsec_x' };
    },
  }));

/** A `send` that holds every delivery until `release`, counting how many are under way at once. */
function heldSend() {
  const waiting: (() => void)[] = [];
  const state = { running: 0, most: 0, sent: [] as string[] };
  const send = async (to: SubscriberAddress) => {
    state.running++;
    state.most = Math.max(state.most, state.running);
    await new Promise<void>((resolve) => waiting.push(resolve));
    state.running--;
    if (to.kind === 'webhook') state.sent.push(to.url);
  };
  const release = () => {
    for (const go of waiting.splice(0)) go();
  };
  return { send, release, state, waiting };
}

test('tells every recipient, at most 16 at once, and hands every outcome to the recorder in batches', async () => {
  const held = heldSend();
  const recorded: DeliveryOutcome[][] = [];
  const fanOut = createFanOut(held.send);
  const done = fanOut.fanOut(1, recipients(40), event, async (batch) => void recorded.push(batch));
  let over = false;
  done.then(
    () => (over = true),
    () => (over = true),
  );
  for (let round = 0; round < 40 && !over; round++) {
    await until(() => over || held.waiting.length > 0, 'a delivery under way');
    held.release();
  }
  await done;
  assert.equal(held.state.most, 16);
  assert.equal(held.state.sent.length, 40);
  assert.ok(
    recorded.every((batch) => batch.length <= 32),
    `batches of ${recorded.map((b) => b.length)}`,
  );
  assert.deepEqual(
    recorded
      .flat()
      .map((o) => o.id)
      .sort((a, b) => a - b),
    Array.from({ length: 40 }, (_, i) => i + 1),
  );
  assert.ok(recorded.flat().every((o) => o.error === null));
});

test('a recipient whose address cannot be read fails alone: the others are told, and the dispatch throws naming it', async () => {
  const recorded: DeliveryOutcome[] = [];
  const sent: string[] = [];
  const fanOut = createFanOut(async (to) => void sent.push(to.kind === 'webhook' ? to.url : to.address));
  await assert.rejects(
    fanOut.fanOut(1, recipients(3, new Set([2])), event, async (batch) => void recorded.push(...batch)),
    /^Error: 1 of 3 subscriber deliveries failed; subscriber 2: the key file was lost$/,
  );
  assert.equal(sent.length, 2);
  assert.deepEqual(recorded.map((o) => [o.id, o.error]).sort(), [
    [1, null],
    [2, 'the key file was lost'],
    [3, null],
  ]);
});

test('past the deadline the dispatch throws and the deliveries go on; closing records the ones not started as not sent', async () => {
  const held = heldSend();
  const recorded: DeliveryOutcome[] = [];
  const fanOut = createFanOut(held.send, { deadlineMs: 50 });
  await assert.rejects(
    fanOut.fanOut(1, recipients(20), event, async (batch) => void recorded.push(...batch)),
    /^Error: 20 of 20 subscriber deliveries were not over after 50 ms/,
  );
  const closed = fanOut.close();
  held.release();
  await closed;
  assert.equal(recorded.length, 20);
  assert.equal(recorded.filter((o) => o.error === null).length, 16, 'the deliveries under way are over');
  assert.equal(recorded.filter((o) => o.error === NOT_SENT_STOPPED).length, 4, 'the ones not started are not sent');
});
