/**
 * A runner's buffer (server/runner/buffer.ts) on a real SQLite file: bounded, the oldest results
 * dropped and counted, acknowledged ones deleted, what a restarted runner needs kept, and the
 * monitors' credentials of the assignment sealed on disk.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { BUFFER_FILE, openBuffer } from '../server/runner/buffer.ts';
import { storedCheck } from './support/checks.ts';
import { tempDir } from './support/harness.ts';

const T = Date.UTC(2026, 0, 15, 12);
/** The location's token a runner is started with. */
const TOKEN = 'svc_run_buffer-test-token';
const checks = (n: number, from = 0) => Array.from({ length: n }, (_, i) => storedCheck(7, 1, T + (from + i) * 1_000, 'up', 3));
const sequences = (buffer: ReturnType<typeof openBuffer>) => buffer.batch(1_000).map((c) => Number(c.sequence));

test('the buffer keeps at most its bound: the oldest results are deleted and counted as dropped', async () => {
  const dir = await tempDir();
  const buffer = openBuffer(dir.path, { token: TOKEN, max: 5 });
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
  const buffer = openBuffer(dir.path, { token: TOKEN, max: 100 });
  try {
    buffer.add(checks(10));
    assert.deepEqual(
      buffer.batch(3).map((c) => Number(c.sequence)),
      [1, 2, 3],
    );
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
  let buffer = openBuffer(dir.path, { token: TOKEN, max: 2 });
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
    buffer = openBuffer(dir.path, { token: TOKEN, max: 2 });
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
  const fresh = openBuffer(other.path, { token: TOKEN });
  try {
    assert.notEqual(fresh.instanceId, instanceId, 'each buffer has its own instance id');
  } finally {
    fresh.close();
    await other.remove();
  }
});

/** A monitor of the assignment as the service sends it: its definition, with a credential header. */
const SECRET = 'Bearer buffer-secret-7f3a9c';
const definitionWith = (id: string, secret: string) =>
  new TextEncoder().encode(
    JSON.stringify({ id, type: 'http', url: 'http://127.0.0.1:1/', headers: { authorization: secret }, body: `{"monitor":${id}}`.padEnd(400, ' ') }),
  );
const definitionText = (m: { definition: Uint8Array }) => new TextDecoder().decode(m.definition);

/** Every byte of the buffer on disk: the database and, while it is open, its WAL. */
function bytesOnDisk(dir: string): Buffer {
  const files = [BUFFER_FILE, `${BUFFER_FILE}-wal`].map((name) => join(dir, name)).filter(existsSync);
  return Buffer.concat(files.map((file) => readFileSync(file)));
}

test("the assignment's credentials are sealed on disk: neither the buffer nor its WAL holds a header secret, and the same token reads it back", async () => {
  const dir = await tempDir();
  let buffer = openBuffer(dir.path, { token: TOKEN });
  try {
    buffer.replaceAssignment([{ id: '1', revision: 1, definition: definitionWith('1', SECRET) }]);
    buffer.changeAssignment([{ id: '2', revision: 1, definition: definitionWith('2', `${SECRET}-2`) }], []);
    assert.equal(bytesOnDisk(dir.path).includes(SECRET), false, 'the secret is in the buffer or its WAL while open');
    buffer.close();
    assert.equal(bytesOnDisk(dir.path).includes(SECRET), false, 'the secret is in the buffer once closed');
    buffer = openBuffer(dir.path, { token: TOKEN });
    assert.equal(buffer.assignmentDropped, false);
    assert.deepEqual(buffer.assignment().map(definitionText).sort(), [
      new TextDecoder().decode(definitionWith('1', SECRET)),
      new TextDecoder().decode(definitionWith('2', `${SECRET}-2`)),
    ]);
  } finally {
    buffer.close();
    await dir.remove();
  }
});

test('an assignment kept in the clear (by a version before sealing) is sealed when the buffer opens, and its clear bytes are gone from the file', async () => {
  const dir = await tempDir();
  try {
    // The file as a runner before sealing left it.
    const old = new SQLite(join(dir.path, BUFFER_FILE));
    old.pragma('journal_mode = WAL');
    old.pragma(`application_id = ${0x53445242}`);
    old.exec(`
      create table results (sequence integer primary key, check_result blob not null);
      create table facts (name text primary key, value any not null);
      create table assignment (monitor_id text primary key, revision integer not null, definition blob not null);
    `);
    old.prepare("insert into facts (name, value) values ('instance_id', 'old-instance')").run();
    // Enough monitors, with bodies, to fill pages that sealing frees, as a real assignment does.
    for (let id = 1; id <= 200; id++) old.prepare('insert into assignment values (?, 1, ?)').run(String(id), definitionWith(String(id), SECRET));
    old.close();
    assert.equal(bytesOnDisk(dir.path).includes(SECRET), true, 'the old file holds the secret in the clear');

    const buffer = openBuffer(dir.path, { token: TOKEN });
    try {
      assert.equal(buffer.instanceId, 'old-instance');
      assert.equal(buffer.assignmentDropped, false);
      const kept = buffer.assignment().sort((a, b) => Number(a.id) - Number(b.id));
      assert.equal(kept.length, 200);
      assert.deepEqual(
        kept.map(definitionText),
        kept.map((m) => new TextDecoder().decode(definitionWith(m.id, SECRET))),
      );
      assert.equal(bytesOnDisk(dir.path).includes(SECRET), false, 'the clear bytes are left in the file or its WAL');
    } finally {
      buffer.close();
    }
    assert.equal(bytesOnDisk(dir.path).includes(SECRET), false);
  } finally {
    await dir.remove();
  }
});

test("opened with another token (the location's token rotated), the kept assignment cannot be read: it is dropped, and the buffer says so once", async () => {
  const dir = await tempDir();
  let buffer = openBuffer(dir.path, { token: TOKEN });
  try {
    buffer.add(checks(2));
    buffer.replaceAssignment([{ id: '1', revision: 1, definition: definitionWith('1', SECRET) }]);
    buffer.close();
    buffer = openBuffer(dir.path, { token: `${TOKEN}-rotated` });
    assert.equal(buffer.assignmentDropped, true);
    assert.deepEqual(buffer.assignment(), []);
    // The results wait for the service as before: they are not the assignment's.
    assert.deepEqual(sequences(buffer), [1, 2]);
    buffer.replaceAssignment([{ id: '4', revision: 2, definition: definitionWith('4', SECRET) }]);
    buffer.close();
    buffer = openBuffer(dir.path, { token: `${TOKEN}-rotated` });
    assert.equal(buffer.assignmentDropped, false);
    assert.deepEqual(
      buffer.assignment().map((m) => m.id),
      ['4'],
    );
  } finally {
    buffer.close();
    await dir.remove();
  }
});
