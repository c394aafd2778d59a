import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** Figures every benchmark reports the same way: medians, percentiles, a process's CPU time, its options. */

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile of sorted values; NaN when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

/** CPU seconds (user + system) a process has used so far; undefined off Linux. */
export function processCpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, i.e. 11 and 12 after the name; in clock ticks (100 Hz on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds (user + system) of the ended child processes a process has waited for (cutime and
 * cstime, fields 16 and 17 of /proc/PID/stat); undefined off Linux.
 */
export function childrenCpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

/** Busy and total jiffies of the whole machine (Linux /proc/stat), to tell our load from other processes'. */
export function machineTicks(): { busy: number; total: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = fields.reduce((sum, n) => sum + n, 0);
    return { busy: total - fields[3]! - fields[4]!, total };
  } catch {
    return undefined;
  }
}

/** CPU of the whole machine between two readings, in cores. */
export function busyCores(from: ReturnType<typeof machineTicks>, to: ReturnType<typeof machineTicks>): number | null {
  if (!from || !to || to.total === from.total) return null;
  return ((to.busy - from.busy) / (to.total - from.total)) * availableParallelism();
}

export function parseNumber(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}, got ${value}`);
  return n;
}

/** Rows as aligned columns: names (the first `left` columns) to the left, figures to the right so the digits line up. */
export function table(rows: string[][], left = 1): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i < left ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
        .join('   ')
        .trimEnd(),
    )
    .join('\n');
}

/** What a comparison of two sides gives: each side's rounds, and the ratios of the first side's rps to the second's. */
export interface Comparison<S extends string, R> {
  samples: Record<S, R[]>;
  /** Per round: the first side's rps over the second's, in the round run next to it. */
  ratios: number[];
  /** The median of `ratios`. */
  ratio: number;
}

/**
 * How every benchmark compares a side with its baseline: a warm-up of each, then `rounds` rounds
 * of each, alternating and swapping which goes first, so drift on a busy machine (other load,
 * heat) falls on both; the ratio is the median of the per-round ratios, in which drift cancels.
 */
export async function compare<S extends string, R extends { rps: number }>(
  sides: readonly [S, S],
  plan: { rounds: number; roundMs: number; warmupMs: number },
  run: (side: S, ms: number) => Promise<R>,
  progress?: (round: number, last: Record<S, R>) => void,
): Promise<Comparison<S, R>> {
  const [first, second] = sides;
  if (plan.warmupMs > 0) {
    await run(first, plan.warmupMs);
    await run(second, plan.warmupMs);
  }
  const samples = { [first]: [], [second]: [] } as unknown as Record<S, R[]>;
  for (let round = 0; round < plan.rounds; round++) {
    for (const side of round % 2 === 0 ? [first, second] : [second, first]) samples[side].push(await run(side, plan.roundMs));
    progress?.(round, { [first]: samples[first].at(-1)!, [second]: samples[second].at(-1)! } as Record<S, R>);
  }
  const ratios = samples[first].map((r, i) => r.rps / samples[second][i]!.rps);
  return { samples, ratios, ratio: median(ratios) };
}
