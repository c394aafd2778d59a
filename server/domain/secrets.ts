import { createHash, randomBytes } from 'node:crypto';

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
