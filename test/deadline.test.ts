/**
 * A check's budget (Deadline of server/checks/connection.ts): its timeout, and the engine's stop
 * signal ending every check in flight under it.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { Deadline } from '../server/checks/connection.ts';

test('stopping ends every deadline alive under the signal, and a deadline made after it at once', () => {
  const stop = new AbortController();
  const first = new Deadline(60_000, stop.signal);
  const second = new Deadline(60_000, stop.signal);
  const cleared = new Deadline(60_000, stop.signal);
  cleared.clear();
  const elsewhere = new Deadline(60_000, new AbortController().signal);
  stop.abort();
  assert.deepEqual([first.expired, second.expired], [true, true]);
  assert.equal(cleared.expired, false, 'a cleared deadline is no longer under the signal');
  assert.equal(elsewhere.expired, false, 'another signal is not stopped');
  assert.equal(new Deadline(60_000, stop.signal).expired, true);
  for (const deadline of [first, second, elsewhere]) deadline.clear();
});

test('a deadline expires at its timeout and says so', async () => {
  const deadline = new Deadline(20);
  await once(deadline.signal, 'abort');
  assert.equal(deadline.expired, true);
  assert.equal(deadline.timedOut().kind, 'timeout');
  deadline.clear();
});
