import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** API keys start with this; OAuth tokens too, but with their own longer prefixes, never issued as keys. */
export const KEY_PREFIX = 'svc_';
/** OAuth access tokens (SPEC 5.2). */
export const ACCESS_TOKEN_PREFIX = 'svc_oat_';
/** OAuth refresh tokens. */
export const REFRESH_TOKEN_PREFIX = 'svc_ort_';
/** Agent tokens of private locations, held by their runners. */
export const RUNNER_TOKEN_PREFIX = 'svc_run_';
/** How many leading characters of an agent token find its row (the prefix and 8 random ones). */
export const RUNNER_TOKEN_LOOKUP_LENGTH = 16;

/** A bearer secret: `prefix` + 32 random bytes in base64url (43 characters, 256 bits). */
export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/**
 * Secrets carry 256 random bits, so a fast hash is enough: there is nothing to brute-force.
 * Only this hash is stored. Every API call hashes its credential: the one-shot form, which
 * builds no Hash object.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Whether two secrets (or their hashes) are equal, in time that does not tell how much of them matched. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A secret derived from another for one purpose: holding it proves holding the other, not the reverse. */
export function derivedSecret(secret: string, purpose: string): string {
  return createHmac('sha256', secret).update(purpose).digest('base64url');
}
