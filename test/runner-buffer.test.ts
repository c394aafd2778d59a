/**
 * A runner's buffer (server/runner/buffer.ts) on a real SQLite file: bounded, the oldest results
 * dropped and counted, acknowledged ones deleted, and what a restarted runner needs kept.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openBuffer } from '../server/runner/buffer.ts';
import { storedCheck } from './support/checks.ts';
import { tempDir } from './support/harness.ts';

const T = Date.UTC(2026, 0, 15, 12);
const checks = (n: number, from = 0) => Array.from({ length: n }, (_, i) => storedCheck(7, 1, T + (from + i) * 1_000, 'up', 3));
const sequences = (buffer: ReturnType<typeof openBuffer>) => buffer.batch(1_000).map((c) => Number(c.sequence));

test('the buffer keeps at most its bound: the oldest results are deleted and counted as dropped', async () => {
  const dir = await tempDir();
  const buffer = openBuffer(dir.path, { max: 5 });
  try {
    buffer.add(checks(3));
    assert.deepEqual(sequences(buffer), [1, 2, 3]);
    assert.equal(buffer.dropped, 0);
    buffer.add(checks(5, 3));
    assert.deepEqual(sequences(buffer), [4, 5, 6, 7, 8]);
    assert.equal(buffer.waiting, 5);
    assert.equal(buffer.dropped, 3);
    // What waits is the results as they were checked.
    const [first] = buffer.batch(1);
    assert.deepEqual([first!.monitorId, Number(first!.startedAtMs), first!.result, first!.latencyMs], ['7', T + 3_000, 'up', 3]);
  } finally {
    buffer.close();
    await dir.remove();
  }
});

test('acknowledged results are deleted, and the batch is the oldest waiting, in order, at most its limit', async () => {
  const dir = await tempDir();
  const buffer = openBuffer(dir.path, { max: 100 });
  try {
    buffer.add(checks(10));
    assert.deepEqual(buffer.batch(3).map((c) => Number(c.sequence)), [1, 2, 3]);
    buffer.acknowledge(6);
    assert.deepEqual(sequences(buffer), [7, 8, 9, 10]);
    assert.equal(buffer.waiting, 4);
    buffer.acknowledge(10);
    assert.equal(buffer.waiting, 0);
    assert.deepEqual(sequences(buffer), []);
    assert.equal(buffer.dropped, 0, 'acknowledged results are not dropped ones');
    // Sequences go on from the last given, not from what is left.
    buffer.add(checks(1));
    assert.deepEqual(sequences(buffer), [11]);
  } finally {
    buffer.close();
    await dir.remove();
  }
});

test('a buffer opened again keeps its instance id, its results, the dropped total, the location name and the last assignment', async () => {
  const dir = await tempDir();
  const definition = (text: string) => new TextEncoder().encode(text);
  let buffer = openBuffer(dir.path, { max: 2 });
  const instanceId = buffer.instanceId;
  assert.match(instanceId, /^[0-9a-f-]{36}$/);
  buffer.add(checks(3));
  buffer.locationName = 'office';
  buffer.replaceAssignment([
    { id: '1', revision: 4, definition: definition('one') },
    { id: '2', revision: 1, definition: definition('two') },
  ]);
  buffer.changeAssignment([{ id: '3', revision: 2, definition: definition('three') }], ['2']);
  buffer.close();
  try {
    buffer = openBuffer(dir.path, { max: 2 });
    assert.equal(buffer.instanceId, instanceId);
    assert.equal(buffer.dropped, 1);
    assert.deepEqual(sequences(buffer), [2, 3]);
    assert.equal(buffer.locationName, 'office');
    const kept = buffer.assignment().sort((a, b) => a.id.localeCompare(b.id));
    assert.deepEqual(
      kept.map((m) => [m.id, m.revision, new TextDecoder().decode(m.definition)]),
      [
        ['1', 4, 'one'],
        ['3', 2, 'three'],
      ],
    );
    buffer.add(checks(1));
    assert.deepEqual(sequences(buffer), [3, 4]);
    assert.equal(buffer.dropped, 2);
    // A whole assignment replaces the one kept.
    buffer.replaceAssignment([]);
    assert.deepEqual(buffer.assignment(), []);
  } finally {
    buffer.close();
    await dir.remove();
  }
  const other = await tempDir();
  const fresh = openBuffer(other.path);
  try {
    assert.notEqual(fresh.instanceId, instanceId, 'each buffer has its own instance id');
  } finally {
    fresh.close();
    await other.remove();
  }
});
