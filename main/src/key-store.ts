// The service's sealing key (32 bytes: channel credentials and subscriber secrets are sealed under
// it) kept by the operating system's keychain instead of in a plain file. The headless service
// keeps it in the data folder's secret.key (0600); the app moves it into secret.key.sealed,
// encrypted by the keychain, and hands it to the service when it starts it.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The keychain, as Electron's safeStorage offers it. */
export interface KeyCipher {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux: which secret store backs the cipher; `basic_text` is a fixed password, no protection. */
  getSelectedStorageBackend?(): string;
}

export type SealingKey = { key: Buffer; protection: 'keychain' } | { key: undefined; protection: 'file'; reason: string };

/** The headless service's plain key file (KEY_FILE in server/domain/sealing.ts). */
export const PLAIN_KEY_FILE = 'secret.key';
export const SEALED_KEY_FILE = 'secret.key.sealed';
const KEY_BYTES = 32;

function keychainRefusal(cipher: KeyCipher): string | undefined {
  if (!cipher.isEncryptionAvailable()) return 'the system keychain is not available';
  if (cipher.getSelectedStorageBackend?.() === 'basic_text') return 'no system keychain was found (only a fixed-password store)';
  return undefined;
}

/** A base64 key of the right length, or an error naming the file. */
function decodeKey(text: string, file: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`${file} does not hold a ${KEY_BYTES}-byte key`);
  return key;
}

function readSealed(file: string, cipher: KeyCipher): Buffer {
  let text: string;
  try {
    text = cipher.decryptString(readFileSync(file));
  } catch (error) {
    throw new Error(`${file} could not be decrypted by the system keychain: ${(error as Error).message}`);
  }
  return decodeKey(text, file);
}

/** Writes the encrypted key beside the data (temporary file, then rename), readable by this user only. */
function writeSealed(file: string, key: Buffer, cipher: KeyCipher): void {
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, cipher.encryptString(key.toString('base64')));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
}

function readsBack(file: string, key: Buffer, cipher: KeyCipher): boolean {
  try {
    return readSealed(file, cipher).equals(key);
  } catch {
    return false;
  }
}

/** The sealed key, once secret.key.sealed exists; a plain file beside it must hold the same key, and goes. */
function openSealed(dataDir: string, cipher: KeyCipher): SealingKey {
  const sealedFile = join(dataDir, SEALED_KEY_FILE);
  const refusal = keychainRefusal(cipher);
  // The plain file is gone, so the service cannot start without the keychain: say so, never make a new key.
  if (refusal) throw new Error(`${sealedFile} needs the system keychain, but ${refusal}`);
  const key = readSealed(sealedFile, cipher);
  const plainFile = join(dataDir, PLAIN_KEY_FILE);
  if (!existsSync(plainFile)) return { key, protection: 'keychain' };
  // Left by a move that stopped before its last step: finish it.
  if (decodeKey(readFileSync(plainFile, 'utf8'), plainFile).equals(key)) {
    rmSync(plainFile);
    return { key, protection: 'keychain' };
  }
  // The service would refuse it too (credentials sealed under one key cannot be read with the other).
  throw new Error(`${plainFile} holds another key than the one the app keeps in the system keychain (${SEALED_KEY_FILE}): move one of them out of the folder`);
}

/**
 * The sealing key for the service. First run: secret.key (or, in a new data folder, a fresh key)
 * is stored encrypted as secret.key.sealed, read back, and only then is the plain file removed.
 * Later runs read the sealed copy. Without a keychain nothing moves: the service keeps using
 * secret.key, and `reason` says why.
 */
export function loadSealingKey(dataDir: string, cipher: KeyCipher): SealingKey {
  if (existsSync(join(dataDir, SEALED_KEY_FILE))) return openSealed(dataDir, cipher);
  const refusal = keychainRefusal(cipher);
  if (refusal) return { key: undefined, protection: 'file', reason: `${refusal}: the sealing key stays in ${PLAIN_KEY_FILE}, readable by this user only` };
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const plainFile = join(dataDir, PLAIN_KEY_FILE);
  const hadPlain = existsSync(plainFile);
  const key = hadPlain ? decodeKey(readFileSync(plainFile, 'utf8'), plainFile) : randomBytes(KEY_BYTES);
  const sealedFile = join(dataDir, SEALED_KEY_FILE);
  writeSealed(sealedFile, key, cipher);
  if (!readsBack(sealedFile, key, cipher)) {
    rmSync(sealedFile);
    return {
      key: undefined,
      protection: 'file',
      reason: `the system keychain did not give back the key it encrypted: the sealing key stays in ${PLAIN_KEY_FILE}, readable by this user only`,
    };
  }
  if (hadPlain) rmSync(plainFile);
  return { key, protection: 'keychain' };
}
