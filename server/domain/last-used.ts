/** last_used_at is refreshed at most this often per credential, so reads do not turn into writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Records that a credential was used, at most once a minute each. A failed write is forgotten, not
 * thrown: last use is a convenience, and a busy database must not fail the request it came with.
 */
export function lastUsedRecorder(write: (id: number, at: string) => Promise<unknown>): (id: number) => Promise<void> {
  const lastTouched = new Map<number, number>();
  return async (id) => {
    const now = Date.now();
    if (now - (lastTouched.get(id) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    lastTouched.set(id, now);
    try {
      await write(id, new Date(now).toISOString());
    } catch {
      lastTouched.delete(id);
    }
  };
}
