/**
 * Whether `error` is the database refusing a write for want of room: SQLite's SQLITE_FULL (the disk
 * is full, or the file reached its page limit), PostgreSQL's disk_full (53100), or the system's
 * ENOSPC where a write reaches the file system directly. The one way the edges recognise it, so
 * each can answer STORAGE_FULL instead of a fault of the service.
 */
export function isStorageFull(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as Error & { code?: unknown };
  return code === 'SQLITE_FULL' || code === '53100' || code === 'ENOSPC';
}

/** The cause as the log names it: the engine's own code and words (`SQLITE_FULL: database or disk is full`). */
export function storageFullCause(error: unknown): string {
  const { code, message } = error as Error & { code?: unknown };
  return `${String(code)}: ${message}`;
}
