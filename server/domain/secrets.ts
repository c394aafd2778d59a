import { createHash, randomBytes } from 'node:crypto';

/** API keys start with this; OAuth tokens too, but with their own longer prefixes, never issued as keys. */
export const KEY_PREFIX = 'svc_';
/** OAuth access tokens (SPEC 5.2). */
export const ACCESS_TOKEN_PREFIX = 'svc_oat_';
/** OAuth refresh tokens. */
export const REFRESH_TOKEN_PREFIX = 'svc_ort_';

/** A bearer secret: `prefix` + 32 random bytes in base64url (43 characters, 256 bits). */
export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/**
 * Secrets carry 256 random bits, so a fast hash is enough: there is nothing to brute-force.
 * Only this hash is stored.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
