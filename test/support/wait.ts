/**
 * Waiting for what happens on its own time (a check, an export, a peer seeing a connection): the
 * condition is read again every few milliseconds, and the wait fails, naming what never
 * happened, after a bound.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 20;

/**
 * Reads `read` until `done` holds of its value, and returns that value; fails after `timeoutMs`.
 * A read that is an API call polls more slowly (`pollMs`), within the credential's rate limit.
 */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 5_000, pollMs = POLL_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`not within ${timeoutMs} ms: ${what} (last: ${JSON.stringify(value)})`);
    await sleep(pollMs);
  }
}

/** Waits until `condition` holds; fails after `timeoutMs`. */
export async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  await eventually(condition, Boolean, what, timeoutMs);
}
