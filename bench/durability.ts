/**
 * Crash durability: `statusdesk serve` (the built bundle) on one data folder, killed with SIGKILL
 * at a random moment while clients write over the RPC, then started again, cycle after cycle.
 *
 *   npm run bench:durability -- [--cycles N] [--clients N] [--min-write-ms MS] [--max-write-ms MS] [--seed N]
 *
 * Each cycle: 4 clients (default) create status pages and TCP monitors with a write key, one write
 * in flight each, and keep a ledger of the ids the service acknowledged; after 200 to 2,000 ms
 * (default) the process gets SIGKILL; it is started again on the same folder, and every id in the
 * ledger must be in the database, which must pass `PRAGMA integrity_check`.
 *
 * Aim: no acknowledged write lost, every integrity check ok; the aim is absolute, so there is no
 * baseline. Also reported: restart (spawn to the ready line) p50 and p99, over the restarts after a
 * kill.
 */
import { randomInt } from 'node:crypto';
import { arch, availableParallelism, platform } from 'node:os';
import { parseArgs } from 'node:util';
import { parseNumber, table } from './support/figures.ts';
import { runDurability } from './support/durability.ts';

const USAGE = 'Usage: npm run bench:durability -- [--cycles N] [--clients N] [--min-write-ms MS] [--max-write-ms MS] [--seed N]';

async function main(): Promise<number> {
  let options;
  try {
    const { values } = parseArgs({
      options: {
        cycles: { type: 'string' },
        clients: { type: 'string' },
        'min-write-ms': { type: 'string' },
        'max-write-ms': { type: 'string' },
        seed: { type: 'string' },
      },
      strict: true,
    });
    const minWriteMs = parseNumber('min-write-ms', values['min-write-ms'], 200, 0, 60_000);
    const maxWriteMs = parseNumber('max-write-ms', values['max-write-ms'], 2_000, minWriteMs, 60_000);
    options = {
      cycles: parseNumber('cycles', values.cycles, 20, 1, 1_000),
      clients: parseNumber('clients', values.clients, 4, 1, 64),
      minWriteMs,
      maxWriteMs,
      seed: parseNumber('seed', values.seed, randomInt(2 ** 31), 0, 2 ** 32 - 1),
    };
  } catch (error) {
    process.stderr.write(`bench:durability: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const line = (text: string) => process.stderr.write(`${text}\n`);
  line(`seed ${options.seed} (--seed ${options.seed} repeats the kill moments)`);
  const figures = await runDurability({ ...options, progress: line });
  const aimMet = figures.lost === 0 && figures.corrupt === 0;
  const out = [
    '',
    `statusdesk serve (dist/statusdesk.js) killed with SIGKILL while ${options.clients} clients write over the RPC (CreateStatusPage, CreateTCPMonitor; Connect over HTTP/1.1); ` +
      `kill after ${options.minWriteMs}-${options.maxWriteMs} ms; Node ${process.version}, ${platform()} ${arch()}, ${availableParallelism()} CPUs`,
    '',
    table([
      ['cycles run', 'writes acknowledged', 'lost', 'integrity not ok', 'restart p50 ms', 'restart p99 ms'],
      [
        String(figures.cycles),
        String(figures.acknowledged),
        String(figures.lost),
        String(figures.corrupt),
        figures.restartP50.toFixed(0),
        figures.restartP99.toFixed(0),
      ],
    ]),
    '',
    ...figures.problems.map((p) => `problem: ${p}`),
    `acknowledged writes lost: ${figures.lost}`,
    `Aim: no acknowledged write lost and every integrity_check ok: ${aimMet ? 'met' : 'MISSED'}`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  const { restartMs: _restarts, ...summary } = figures;
  process.stdout.write(
    `${JSON.stringify({ bench: 'durability', node: process.version, cpus: availableParallelism(), ...options, ...summary, restartP50: Math.round(summary.restartP50), restartP99: Math.round(summary.restartP99), aimMet })}\n`,
  );
  return aimMet && figures.refused === 0 ? 0 : 1;
}

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`bench:durability: ${String((error as Error)?.stack ?? error)}\n`);
  process.exitCode = 1;
}
