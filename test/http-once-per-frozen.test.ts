/**
 * oncePerFrozen keeps what it computed from a frozen object for as long as that object, and
 * computes afresh for an object that may still change.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { oncePerFrozen } from '../server/http/once-per-frozen.ts';

test('a frozen object is computed once; one that is not, each time, so a change to it shows', () => {
  let calls = 0;
  const nameOf = oncePerFrozen((o: { name: string }) => {
    calls++;
    return `name: ${o.name}`;
  });
  const frozen = Object.freeze({ name: 'kept' });
  assert.equal(nameOf(frozen), 'name: kept');
  assert.equal(nameOf(frozen), 'name: kept');
  assert.equal(calls, 1);

  const open = { name: 'before' };
  assert.equal(nameOf(open), 'name: before');
  open.name = 'after';
  assert.equal(nameOf(open), 'name: after');
  assert.equal(calls, 3);
});

test('a kept value that is falsy is kept too', () => {
  let calls = 0;
  const zero = oncePerFrozen((_o: object) => {
    calls++;
    return 0;
  });
  const frozen = Object.freeze({});
  assert.equal(zero(frozen), 0);
  assert.equal(zero(frozen), 0);
  assert.equal(calls, 1);
});
