// The rows of a list of name/value pairs (request headers, metadata) as a form holds them, and
// the map the service takes. Plain TypeScript, so the forms' models use it and are tested in Node.

let nextRowKey = 0;
/** A key for a new row of a list editor, stable while the row lives. */
export const rowKey = () => `row-${++nextRowKey}`;

/** One name/value pair of a list editor. */
export interface KeyValueRow {
  key: string;
  name: string;
  value: string;
  /**
   * The service keeps this value and shows it hidden (e.g. a credential): the input starts
   * empty, and left empty the stored value stays.
   */
  kept?: boolean;
}

/** Rows of a list editor from a map. */
export function rowsOf(entries: Record<string, string>, isKept: (name: string, value: string) => boolean = () => false): KeyValueRow[] {
  return Object.entries(entries).map(([name, value]) => {
    const kept = isKept(name, value);
    return { key: rowKey(), name, value: kept ? '' : value, kept };
  });
}

/** A row with `change` made: a hidden value belongs to its name, so a renamed row needs a value of its own. */
export function changedRow(row: KeyValueRow, change: Partial<Pick<KeyValueRow, 'name' | 'value'>>): KeyValueRow {
  return { ...row, ...change, kept: (row.kept ?? false) && change.name === undefined };
}

/** The map a list editor holds: rows without a name are left out; a kept row left empty sends `keptValue`. */
export function entriesOf(rows: readonly KeyValueRow[], keptValue: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const row of rows) {
    const name = row.name.trim();
    if (!name) continue;
    entries[name] = row.kept && row.value === '' ? keptValue : row.value;
  }
  return entries;
}
