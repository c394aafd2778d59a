/**
 * Crash durability, short: three cycles of writes over the RPC to `statusdesk serve` (the built
 * bundle), SIGKILL at a random moment, restart on the same data folder. Every write the service
 * acknowledged must be there after the restart, and the database must pass integrity_check.
 * `npm run bench:durability` runs the same cycles, more of them. DURABILITY_SEED=<n> repeats a run.
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { test } from 'node:test';
import { runDurability } from '../bench/support/durability.ts';
import { sqliteOnly } from './support/database.ts';

const SEED = process.env.DURABILITY_SEED !== undefined ? Number(process.env.DURABILITY_SEED) >>> 0 : randomInt(2 ** 31);

test('no acknowledged write is lost when serve is killed with SIGKILL mid-write, and the database stays intact', {
  timeout: 40_000,
  skip: sqliteOnly,
}, async (t) => {
  t.diagnostic(`seed ${SEED} (DURABILITY_SEED=${SEED} repeats the kill moments)`);
  const figures = await runDurability({ cycles: 3, clients: 3, minWriteMs: 150, maxWriteMs: 900, seed: SEED, progress: (line) => t.diagnostic(line) });
  assert.equal(figures.restartMs.length, 3, 'every cycle ends with a restart');
  assert.ok(figures.acknowledged > 0, 'no write was acknowledged: the cycles proved nothing');
  assert.deepEqual(figures.problems, [], `seed ${SEED}`);
  assert.equal(figures.lost, 0, `seed ${SEED}: acknowledged writes lost`);
  assert.equal(figures.corrupt, 0, `seed ${SEED}: integrity_check failed`);
  assert.equal(figures.refused, 0, `seed ${SEED}: writes refused before the kill`);
});
