import { type Actor, credentialId, isCredential } from '../domain/actor.ts';
import type { SignUpLimits } from '../domain/notifications/subscribers.ts';
import { AppError } from '../errors.ts';

/** Calls per minute per credential unless STATUSDESK_RATE_LIMIT says otherwise. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 1200;
/** Keys (credentials, client addresses, pages) kept before idle ones are dropped. */
const PRUNE_AT = 10_000;

/** A call refused by the rate limit: LIMIT_EXCEEDED with the seconds to wait, which each edge answers as 429 with Retry-After. */
function rateLimited(
  retryAfterSeconds: number,
  perMinute: number,
  message = `rate limit reached: this credential may make ${perMinute} calls per minute; retry after ${retryAfterSeconds} s`,
): AppError {
  return new AppError('LIMIT_EXCEEDED', message, [], { retryAfterSeconds });
}

export interface RateLimiter {
  /** Counts `calls` calls of the credential `key`, or throws LIMIT_EXCEEDED (with `retryAfterSeconds`) when its budget is spent. */
  take(key: string, calls?: number): void;
}

/**
 * One token bucket per credential: `perMinute` calls at once, refilled evenly over a minute, so a
 * steady caller gets its rate and a quiet one its burst. 0 turns the limit off.
 */
export function createRateLimiter(perMinute: number, now: () => number = () => performance.now()): RateLimiter {
  if (perMinute <= 0) return { take() {} };
  const perMs = perMinute / 60_000;
  const buckets = new Map<string, { tokens: number; at: number }>();

  const refill = (bucket: { tokens: number; at: number }, t: number) => {
    bucket.tokens = Math.min(perMinute, bucket.tokens + (t - bucket.at) * perMs);
    bucket.at = t;
  };

  return {
    take(key, calls = 1) {
      if (calls > perMinute)
        throw rateLimited(
          60,
          perMinute,
          `a batch of ${calls} calls is more than the ${perMinute} calls per minute this credential may make; send smaller batches`,
        );
      const t = now();
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= PRUNE_AT) {
          for (const [k, b] of buckets) {
            refill(b, t);
            if (b.tokens >= perMinute) buckets.delete(k);
          }
        }
        bucket = { tokens: perMinute, at: t };
        buckets.set(key, bucket);
      }
      refill(bucket, t);
      if (bucket.tokens >= calls) {
        bucket.tokens -= calls;
        return;
      }
      const missing = calls - bucket.tokens;
      throw rateLimited(Math.max(1, Math.ceil(missing / perMs / 1000)), perMinute);
    },
  };
}

/** The credential a call is counted against; callers that are not API credentials are not limited. */
export function rateLimitKey(actor: Actor): string | undefined {
  return isCredential(actor) ? credentialId(actor) : undefined;
}

/**
 * Limits of the public sign-up form of status pages, which anyone may post to: confirmation mails
 * sent per client address (IPv6 by /64) in a window, and per page in a window (through a tunnel or
 * proxy every visitor has the proxy's address, so the page's limit is the one that holds). Kept in
 * memory: a restart forgets them.
 */
export const SIGN_UP_LIMITS = {
  perClient: { count: 5, windowMs: 10 * 60_000 },
  perPage: { count: 100, windowMs: 60 * 60_000 },
} as const;

/** Sliding windows of send times by key: refuses once `count` fall within `windowMs`. */
function slidingWindows(count: number, windowMs: number, describe: (minutes: number) => string, now: () => number) {
  const sent = new Map<string, number[]>();
  const recent = (key: string, t: number) => {
    const times = (sent.get(key) ?? []).filter((at) => at > t - windowMs);
    if (times.length === 0) sent.delete(key);
    else sent.set(key, times);
    return times;
  };
  return {
    /** Throws LIMIT_EXCEEDED, with the seconds to wait, when `key` has spent its window. */
    check(key: string): void {
      const t = now();
      const times = recent(key, t);
      if (times.length < count) return;
      const seconds = Math.max(1, Math.ceil((times[0]! + windowMs - t) / 1000));
      throw new AppError('LIMIT_EXCEEDED', describe(Math.ceil(seconds / 60)), [], { retryAfterSeconds: seconds });
    },
    record(key: string): void {
      const t = now();
      if (sent.size >= PRUNE_AT) for (const k of sent.keys()) recent(k, t);
      sent.set(key, [...recent(key, t), t]);
    },
    prune(): void {
      const t = now();
      for (const k of sent.keys()) recent(k, t);
    },
  };
}

/** The key of a client address: IPv4 as is (IPv4-mapped IPv6 too), IPv6 by its /64 network. */
export function clientKey(address: string): string {
  const bare = address.split('%')[0]!.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return mapped[1]!;
  if (!bare.includes(':')) return bare;
  const [head = '', tail] = bare.split('::');
  const first = head ? head.split(':') : [];
  const last = tail ? tail.split(':') : [];
  const groups = tail === undefined ? first : [...first, ...Array<string>(Math.max(0, 8 - first.length - last.length)).fill('0'), ...last];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g || '0', 16).toString(16))
    .join(':')}::/64`;
}

/** The SIGN_UP_LIMITS of the public form, for the subscriber service (its `SignUpLimits` port). */
export function createSignUpLimiter(now: () => number = () => Date.now()): SignUpLimits {
  const { perClient, perPage } = SIGN_UP_LIMITS;
  const plural = (minutes: number) => `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const clients = slidingWindows(
    perClient.count,
    perClient.windowMs,
    (minutes) =>
      `too many sign-ups from your address: at most ${perClient.count} every ${perClient.windowMs / 60_000} minutes; try again in ${plural(minutes)}`,
    now,
  );
  const pages = slidingWindows(
    perPage.count,
    perPage.windowMs,
    (minutes) => `this page has had too many sign-ups in the last hour; try again in ${plural(minutes)}`,
    now,
  );
  return {
    check(pageId, client) {
      if (client !== undefined) clients.check(clientKey(client));
      pages.check(pageId);
    },
    record(pageId, client) {
      if (client !== undefined) clients.record(clientKey(client));
      pages.record(pageId);
    },
    prune() {
      clients.prune();
      pages.prune();
    },
  };
}
