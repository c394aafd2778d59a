import { readdir } from 'node:fs/promises';
import { table } from './figures.ts';

/**
 * The row of one monitor type in bench:checks' `types` part: each file of bench/types/ runs its
 * type's checks at a scale that fits it, against loopback peers of its own, and measures them
 * beside a baseline in the same run (the least the same check can do with Node's own APIs).
 */
export interface TypeRow {
  type: string;
  /** What ran: `10,000 monitors at 1 m`. */
  scale: string;
  /** The engine's CPU time per check, in microseconds. */
  cpuPerCheckUs: number;
  /** The schedule's lag, p99, in milliseconds. */
  lagP99Ms: number;
  baseline?: { name: string; cpuPerCheckUs: number };
  notes?: string;
}

export type BenchRow = (options: { quick: boolean }) => Promise<TypeRow>;

const TYPES_DIR = new URL('../types/', import.meta.url);

/** The types that have a row, by their file's name. */
export async function typesWithRows(): Promise<string[]> {
  return (await readdir(TYPES_DIR))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -3))
    .sort();
}

/** Runs the rows of `types` one after the other (each alone on the machine) and prints them as one table. */
export async function typeRows(types: readonly string[], quick: boolean, progress: (line: string) => void): Promise<{ rows: TypeRow[]; text: string[] }> {
  const rows: TypeRow[] = [];
  for (const type of types) {
    progress(`   ${type}`);
    const { benchRow } = (await import(new URL(`${type}.ts`, TYPES_DIR).href)) as { benchRow: BenchRow };
    rows.push(await benchRow({ quick }));
  }
  const cells = rows.map((row) => [
    row.type,
    row.scale,
    row.cpuPerCheckUs.toFixed(0),
    row.lagP99Ms.toFixed(0),
    row.baseline ? `${row.baseline.name}: ${row.baseline.cpuPerCheckUs.toFixed(0)}` : '-',
    row.baseline ? (row.baseline.cpuPerCheckUs / row.cpuPerCheckUs).toFixed(2) : '-',
  ]);
  const text = [
    'Types: each type checked at its own scale against loopback peers (ratio = baseline CPU per check / engine CPU per check)',
    table([['Type', 'Scale', 'CPU/check µs', 'Lag p99 ms', 'Baseline CPU/check µs', 'Ratio'], ...cells], 2),
    ...rows.filter((row) => row.notes).map((row) => `  ${row.type}: ${row.notes}`),
  ];
  return { rows, text };
}
