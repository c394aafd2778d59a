/**
 * Whether `error` is SQLite refusing a row because it repeats a unique key, and the key is the one
 * named: `table.column`, or several for a composite key (`page_subscribers.page_id, page_subscribers.address`).
 * The one way the services recognise a duplicate, so each can answer CONFLICT naming its field.
 */
export function isUniqueViolation(error: unknown, ...columns: string[]): boolean {
  if (!(error instanceof Error) || (error as Error & { code?: unknown }).code !== 'SQLITE_CONSTRAINT_UNIQUE') return false;
  const named = error.message.slice(error.message.indexOf(':') + 1).split(',').map((c) => c.trim());
  return columns.length === named.length && columns.every((c) => named.includes(c));
}
