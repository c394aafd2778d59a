/**
 * A check's budget (Deadline of server/checks/connection.ts): its timeout, and the engine's stop
 * signal ending every check in flight under it.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { Deadline, until } from '../server/checks/connection.ts';

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

test('a deadline expires at its timeout, tells the one waiting, and says so', async () => {
  const deadline = new Deadline(20);
  await new Promise<void>((resolve) => deadline.onEnd(resolve));
  assert.equal(deadline.expired, true);
  assert.equal(deadline.timedOut().kind, 'timeout');
  deadline.clear();
});

test('a wait on an emitter gives up with the timeout when the deadline ends, and leaves no listener behind', async () => {
  const emitter = new EventEmitter();
  const deadline = new Deadline(20);
  await assert.rejects(
    until(emitter, 'ready', deadline),
    (error: Error & { kind?: string }) => error.kind === 'timeout' && error.message === 'timed out after 20 ms',
  );
  assert.deepEqual(
    ['ready', 'error', 'close'].map((event) => emitter.listenerCount(event)),
    [0, 0, 0],
  );
  await assert.rejects(until(emitter, 'ready', deadline), /timed out after 20 ms/, 'an ended deadline rejects a new wait at once');
  deadline.clear();
});

test('a wait that ends before the deadline leaves the deadline to the next wait', async () => {
  const emitter = new EventEmitter();
  const deadline = new Deadline(60_000);
  const first = until<string>(emitter, 'ready', deadline);
  emitter.emit('ready', 'first');
  assert.equal(await first, 'first');
  const second = until(emitter, 'ready', deadline);
  deadline.end();
  await assert.rejects(second, /timed out after 60000 ms/);
  assert.equal(emitter.listenerCount('ready'), 0);
  deadline.clear();
});
