import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SERVICE_NODE_FLAGS } from '../server/heap-growth.ts';

/**
 * Every command that starts the service passes SERVICE_NODE_FLAGS to Node (see heap-growth.ts):
 * V8 sizes the young generation when the process starts and ignores the flag set later.
 */

const root = new URL('../', import.meta.url);
const flags = SERVICE_NODE_FLAGS.join(' ');

/** Churns through short-lived objects, as the engine does, then prints the MB its new space (the young generation's two halves) holds committed. */
const CHURN = `
const v8 = require('node:v8');
let kept = [];
for (let round = 0; round < 100; round++) {
  for (let i = 0; i < 100000; i++) kept.push({ i, text: 'x' + i });
  if (kept.length > 300000) kept = [];
}
const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
process.stdout.write(String(space.space_size / 1048576));
`;

const newSpaceMbWith = (nodeFlags: readonly string[]) => Number(execFileSync(process.execPath, [...nodeFlags, '-e', CHURN], { encoding: 'utf8' }));

test('the service flags hold the new space to 16 MB where Node lets it grow to 128 MB', () => {
  const without = newSpaceMbWith([]);
  assert.ok(without > 32, `without the flags the new space grows past 32 MB (else this test proves nothing): ${without} MB`);
  // 16 MB, the two halves of 8; once in a full run of the tests, on a loaded machine, it read more.
  const withFlags = newSpaceMbWith(SERVICE_NODE_FLAGS);
  assert.ok(withFlags < 32, `with the flags: ${withFlags} MB`);
});

test('npm start passes the service flags to node', () => {
  const { scripts } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: Record<string, string> };
  assert.match(scripts.start!, new RegExp(`(^|&& )node ${flags} bin/statusdesk\\.js serve$`));
});

test('the statusdesk command runs node with the service flags from its first line', () => {
  const first = readFileSync(new URL('bin/statusdesk.js', root), 'utf8').split('\n')[0]!;
  assert.equal(first, `#!/usr/bin/env -S node ${flags}`);
});
