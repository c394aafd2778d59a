/** Output helpers: stdout carries results, stderr carries everything a person reads about them. */

export class UsageError extends Error {}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A plain aligned table with a header row. */
export function printTable(headers: string[], rows: (string | null | undefined)[][]): void {
  const cells = [headers, ...rows.map((r) => r.map((c) => c ?? '-'))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  for (const row of cells) {
    process.stdout.write(`${row.map((c, i) => (c ?? '').padEnd(widths[i] ?? 0)).join('  ').trimEnd()}\n`);
  }
}
