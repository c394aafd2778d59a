import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { openDatabase, withSqlite } from '../../server/db/open.ts';
import { SERVICE_NODE_FLAGS } from '../../server/heap-growth.ts';
import { CHILD_STOP_TIMEOUT_MS, endChild, forkScript, nextMessage, within } from './processes.ts';

/**
 * What the rows of bench/types/ share: the baseline's paced loop (the bare check at the engine's
 * rate), a child process run for one answer, and what the engine stored.
 */

/** Bare checks in flight at most: past this, a slot is skipped, as a saturated client would. */
const MAX_IN_FLIGHT = 256;

export interface PacedFigures {
  checks: number;
  failures: number;
  firstFailure: string;
  skipped: number;
  /** This process's CPU time over the loop. */
  cpuMs: number;
}

/**
 * Runs `check` at `perSecond` for `durationMs` (open loop: each at its own time, whether the ones
 * before have ended or not), and measures this process's CPU time over it. A check resolves to
 * null when it passed, or to what went wrong.
 */
export async function pacedChecks(perSecond: number, durationMs: number, check: (i: number) => Promise<string | null>): Promise<PacedFigures> {
  const interval = 1000 / perSecond;
  const figures = { checks: 0, failures: 0, firstFailure: '', skipped: 0, cpuMs: 0 };
  let inFlight = 0;
  const running = new Set<Promise<void>>();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; ; i++) {
    const at = started + i * interval;
    if (at >= started + durationMs) break;
    const wait = at - performance.now();
    if (wait > 0) await delay(wait);
    if (inFlight >= MAX_IN_FLIGHT) {
      figures.skipped++;
      continue;
    }
    inFlight++;
    const one = check(i).then((problem) => {
      inFlight--;
      figures.checks++;
      if (problem !== null && figures.failures++ === 0) figures.firstFailure = problem;
      running.delete(one);
    });
    running.add(one);
  }
  await Promise.all(running);
  const { user, system } = process.cpuUsage(cpu);
  figures.cpuMs = (user + system) / 1000;
  return figures;
}

/**
 * Forks `bundle` in `role` with the service's Node flags, sends it `input` and resolves with its
 * first answer that `accept` takes; `env` is set for the child alone.
 */
export async function runChild<T>(
  bundle: string,
  role: string,
  input: unknown,
  what: string,
  timeoutMs: number,
  accept: (m: unknown) => m is T,
  env: Record<string, string> = {},
): Promise<T> {
  // The child inherits this process's environment as it is when forked.
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  const { child, exited } = forkScript(bundle, role, [...SERVICE_NODE_FLAGS]);
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  try {
    const answer = nextMessage(child, what, timeoutMs, accept);
    child.send(input as object);
    return await answer;
  } finally {
    await within(exited, CHILD_STOP_TIMEOUT_MS);
    await endChild(child, exited);
  }
}

/** What the engine stored: checks by result, and the most frequent message of those not up. */
export async function readStored(dataDir: string): Promise<{ up: number; other: number; problem: string }> {
  const db = await openDatabase(dataDir);
  try {
    return await withSqlite(db, (sqlite) => {
      const up = sqlite.prepare("select count(*) from check_results where result = 'up'").pluck().get() as number;
      const other = sqlite.prepare("select count(*) from check_results where result != 'up'").pluck().get() as number;
      const problem = (sqlite.prepare("select message from check_results where result != 'up' group by 1 order by count(*) desc limit 1").pluck().get() ??
        '') as string;
      return { up, other, problem };
    });
  } finally {
    await db.destroy();
  }
}
