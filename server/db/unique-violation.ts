/**
 * Whether `error` is the database refusing a row because it repeats a unique key, and the key is
 * the one named: `table.column`, or several for a composite key (`page_subscribers.page_id, page_subscribers.address`).
 * The one way the services recognise a duplicate, so each can answer CONFLICT naming its field.
 */
export function isUniqueViolation(error: unknown, ...columns: string[]): boolean {
  const named = keyColumns(error);
  return named !== undefined && columns.length === named.length && columns.every((c) => named.includes(c));
}

/** The columns of the key a duplicate repeats, as `table.column`: SQLite names them in its message, PostgreSQL in its detail. */
function keyColumns(error: unknown): string[] | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, table, detail } = error as Error & { code?: unknown; table?: string; detail?: string };
  if (code === 'SQLITE_CONSTRAINT_UNIQUE')
    return error.message
      .slice(error.message.indexOf(':') + 1)
      .split(',')
      .map((c) => c.trim());
  // PostgreSQL's unique_violation: `Key (page_id, kind, address)=(…) already exists.`
  const key = code === '23505' ? /^Key \(([^)]*)\)=/.exec(detail ?? '') : null;
  return key ? key[1]!.split(',').map((c) => `${table}.${c.trim()}`) : undefined;
}
