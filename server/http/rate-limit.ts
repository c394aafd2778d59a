import { type Actor, credentialId, isCredential } from '../domain/actor.ts';
import { AppError } from '../errors.ts';

/** Calls per minute per credential unless STATUSDESK_RATE_LIMIT says otherwise. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 1200;
/** Buckets kept before idle (full) ones are dropped. */
const PRUNE_AT = 10_000;

/** A call refused by the rate limit; the edges answer 429 with Retry-After. */
export class RateLimited extends AppError {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number, perMinute: number, message = `rate limit reached: this credential may make ${perMinute} calls per minute; retry after ${retryAfterSeconds} s`) {
    super('LIMIT_EXCEEDED', message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface RateLimiter {
  /** Counts `calls` calls of the credential `key`, or throws RateLimited when its budget is spent. */
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
      if (calls > perMinute) throw new RateLimited(60, perMinute, `a batch of ${calls} calls is more than the ${perMinute} calls per minute this credential may make; send smaller batches`);
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
      throw new RateLimited(Math.max(1, Math.ceil(missing / perMs / 1000)), perMinute);
    },
  };
}

/** The credential a call is counted against; callers that are not API credentials are not limited. */
export function rateLimitKey(actor: Actor): string | undefined {
  return isCredential(actor) ? credentialId(actor) : undefined;
}
