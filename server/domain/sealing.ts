import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { dataDirOf } from '../db/open.ts';

/**
 * Credentials at rest. Channel credentials and subscriber secrets are sealed with AES-256-GCM
 * under a key kept in its own file in the data folder (mode 0600), not in the database: a copy of
 * the database alone (a backup, a file shared for a bug report) reveals no credential.
 * Links in subscriber mail (confirm, unsubscribe) are HMACs under the same key, so they need no
 * stored token and cannot be forged.
 */
export interface Sealer {
  seal(value: unknown): string;
  open<T>(sealed: string): T;
  /** An unforgeable token for `purpose`, e.g. `unsubscribe:42`. */
  token(purpose: string): string;
  verify(purpose: string, token: string): boolean;
}

export const KEY_FILE = 'secret.key';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1';

/** Reads the key file, creating it with a fresh random key on first use (safe against a racing process). */
export function loadSealingKey(file: string): Buffer {
  try {
    const fd = openSync(file, 'wx', 0o600);
    try {
      writeSync(fd, randomBytes(KEY_BYTES).toString('base64'));
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // A racing creator may not have written yet: an empty file is read again shortly.
  for (let attempt = 0; ; attempt++) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length === KEY_BYTES) return key;
    if (attempt === 50) throw new Error(`${file} does not hold a ${KEY_BYTES}-byte key`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  }
}

export function createSealer(key: Buffer): Sealer {
  const sealKey = createHmac('sha256', key).update('seal').digest();
  const tokenKey = createHmac('sha256', key).update('token').digest();
  const tokenOf = (purpose: string) => createHmac('sha256', tokenKey).update(purpose).digest().subarray(0, 24).toString('base64url');
  return {
    seal(value) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
      const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
      return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open<T>(sealed: string): T {
      if (!sealed.startsWith(`${VERSION}:`)) throw new Error('not a sealed value');
      const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', sealKey, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      return JSON.parse(text) as T;
    },
    token: tokenOf,
    verify(purpose, token) {
      const expected = Buffer.from(tokenOf(purpose));
      const given = Buffer.from(token);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

const sealers = new WeakMap<Kysely<any>, Sealer>();

/**
 * The sealer of a database opened by openDatabase, under the key file of its data folder: one per
 * database, shared by the domain services and the check engine (which opens monitors' secrets).
 */
export function sealerOf(db: Kysely<any>): Sealer {
  let sealer = sealers.get(db);
  if (!sealer) {
    sealer = createSealer(loadSealingKey(join(dataDirOf(db), KEY_FILE)));
    sealers.set(db, sealer);
  }
  return sealer;
}
