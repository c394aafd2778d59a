import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { dataDirOf } from '../db/open.ts';
import { AppError } from '../errors.ts';

/**
 * Credentials at rest. Channel credentials and subscriber secrets are sealed with AES-256-GCM
 * under a key kept in its own file in the data folder (mode 0600), not in the database: a copy of
 * the database alone (a backup, a file shared for a bug report) reveals no credential.
 * Links in subscriber mail (confirm, unsubscribe) are HMACs under the same key, so they need no
 * stored token and cannot be forged.
 * The desktop app keeps the key in the system keychain instead and hands it to the service it
 * runs (useSealingKey): the data folder then holds no key file, only a note saying where it is.
 */
export interface Sealer {
  seal(value: unknown): string;
  open<T>(sealed: string): T;
  /** An unforgeable token for `purpose`, e.g. `unsubscribe:42`. */
  token(purpose: string): string;
  verify(purpose: string, token: string): boolean;
}

export const KEY_FILE = 'secret.key';
/**
 * Left in a data folder whose key the desktop app holds: a command on the folder must not make a
 * key file of its own, which would seal with another key than the app's service.
 */
export const KEY_HELD_FILE = 'secret.key.held-by-app';
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
 * A key given with useSealingKey takes the file's place.
 */
export function sealerOf(db: Kysely<any>): Sealer {
  let sealer = sealers.get(db);
  if (!sealer) {
    sealer = folderSealer(dataDirOf(db));
    sealers.set(db, sealer);
  }
  return sealer;
}

/**
 * Seals the credentials of `db` with `key`, kept outside the data folder (the desktop app keeps it
 * in the system keychain). Call it right after opening the database, before any service is made.
 * A key file already in the folder must hold this same key, so that commands run on the folder
 * (which read the file) and the service seal alike; without one, none is made, and a note says
 * where the key is.
 */
export function useSealingKey(db: Kysely<any>, key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new AppError('VALIDATION', `sealingKey: must be ${KEY_BYTES} bytes, got ${key.length}`);
  if (sealers.has(db)) throw new Error('the sealing key is given after the database was first used');
  const dataDir = dataDirOf(db);
  const file = join(dataDir, KEY_FILE);
  if (existsSync(file)) {
    if (!timingSafeEqual(loadSealingKey(file), key)) {
      throw new AppError(
        'PRECONDITION_FAILED',
        `the data folder ${dataDir} has its own key file ${KEY_FILE}, which holds another key than the one the app gave: ` +
          `refusing to start, since credentials sealed with one could not be read with the other; give the app the key of ${KEY_FILE}, or move the file out of the folder to use the app's key (channels then need their credentials again)`,
      );
    }
  } else {
    noteKeyHeld(dataDir);
  }
  sealers.set(db, createSealer(key));
}

/** The key file's sealer; or, where the app holds the key and no file is there, one that refuses to seal or open. */
function folderSealer(dataDir: string): Sealer {
  const file = join(dataDir, KEY_FILE);
  if (!existsSync(file) && existsSync(join(dataDir, KEY_HELD_FILE))) return keyElsewhere(dataDir);
  return createSealer(loadSealingKey(file));
}

function noteKeyHeld(dataDir: string): void {
  try {
    writeFileSync(
      join(dataDir, KEY_HELD_FILE),
      'The key that seals the credentials stored in this folder is kept by the Statusdesk desktop app, in the system keychain.\n',
      { flag: 'wx', mode: 0o600 },
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * Commands run on the folder do what needs no key (keys, workspaces, sign-in links) and refuse,
 * with a reason, what does: a key of their own would seal what the app's service cannot open.
 */
function keyElsewhere(dataDir: string): Sealer {
  const refuse = (): never => {
    throw new AppError(
      'PRECONDITION_FAILED',
      `the credentials in ${dataDir} are sealed with a key the Statusdesk desktop app keeps in the system keychain: ` +
        'make this change through the app, or through its running service (the API), not on the data folder',
    );
  };
  return { seal: refuse, open: refuse, token: refuse, verify: refuse };
}
