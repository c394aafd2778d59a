import assert from 'node:assert/strict';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type KeyCipher, loadSealingKey, PLAIN_KEY_FILE, SEALED_KEY_FILE } from '../main/src/key-store.ts';
import { createSealer, KEY_FILE, loadSealingKey as loadServiceKey } from '../server/domain/sealing.ts';

/**
 * Plays the OS keychain: AES-GCM under a key only this object holds, so what it wrote cannot be
 * read without it, and a second keychain (another user, another machine) cannot read it either.
 */
function keychain(options: { available?: boolean; backend?: string; corrupt?: boolean } = {}): KeyCipher & { calls: string[] } {
  const secret = randomBytes(32);
  const calls: string[] = [];
  return {
    calls,
    isEncryptionAvailable: () => options.available ?? true,
    ...(options.backend && { getSelectedStorageBackend: () => options.backend! }),
    encryptString(plain) {
      calls.push('encrypt');
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', secret, iv);
      const body = Buffer.concat([cipher.update(options.corrupt ? randomBytes(32).toString('base64') : plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    decryptString(encrypted) {
      calls.push('decrypt');
      const decipher = createDecipheriv('aes-256-gcm', secret, encrypted.subarray(0, 12));
      decipher.setAuthTag(encrypted.subarray(12, 28));
      return Buffer.concat([decipher.update(encrypted.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

function dataFolder(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'statusdesk-keys-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('the plain file name is the service’s own', () => {
  assert.equal(PLAIN_KEY_FILE, KEY_FILE);
});

test('first run: moves the service’s key into the keychain and removes the plain file; later runs read it back', (t) => {
  const dir = dataFolder(t);
  // The key the headless service made, and something sealed under it.
  const serviceKey = loadServiceKey(join(dir, KEY_FILE));
  const sealedValue = createSealer(serviceKey).seal({ password: 'hunter2' });
  const cipher = keychain();

  const first = loadSealingKey(dir, cipher);
  assert.equal(first.protection, 'keychain');
  assert.ok(first.key?.equals(serviceKey));
  assert.equal(existsSync(join(dir, PLAIN_KEY_FILE)), false);
  assert.deepEqual(readdirSync(dir), [SEALED_KEY_FILE]);
  assert.equal(statSync(join(dir, SEALED_KEY_FILE)).mode & 0o777, 0o600);
  // The file on disk is not the key in any readable form.
  const onDisk = readFileSync(join(dir, SEALED_KEY_FILE));
  assert.equal(onDisk.includes(serviceKey.toString('base64')), false);
  assert.equal(onDisk.includes(serviceKey), false);
  // Encrypted, then read back before the plain file went.
  assert.deepEqual(cipher.calls, ['encrypt', 'decrypt']);

  const later = loadSealingKey(dir, cipher);
  assert.ok(later.key?.equals(serviceKey));
  assert.deepEqual(createSealer(later.key!).open(sealedValue), { password: 'hunter2' });
});

test('a new data folder gets a fresh key that never touches the disk in the clear', (t) => {
  const dir = join(dataFolder(t), 'data');
  const result = loadSealingKey(dir, keychain());
  assert.equal(result.protection, 'keychain');
  assert.equal(result.key?.length, 32);
  assert.deepEqual(readdirSync(dir), [SEALED_KEY_FILE]);
});

test('without a keychain the plain file stays as it is, and the reason is given', (t) => {
  for (const cipher of [keychain({ available: false }), keychain({ backend: 'basic_text' })]) {
    const dir = dataFolder(t);
    writeFileSync(join(dir, KEY_FILE), randomBytes(32).toString('base64'), { mode: 0o600 });
    const before = readFileSync(join(dir, KEY_FILE), 'utf8');
    const result = loadSealingKey(dir, cipher);
    assert.equal(result.protection, 'file');
    assert.equal(result.key, undefined);
    assert.match(result.protection === 'file' ? result.reason : '', /keychain.*stays in secret\.key/);
    assert.equal(readFileSync(join(dir, KEY_FILE), 'utf8'), before);
    assert.deepEqual(readdirSync(dir), [KEY_FILE]);
    assert.deepEqual(cipher.calls, []);
  }
});

test('a keychain backed by a real secret store is used on Linux', (t) => {
  const dir = dataFolder(t);
  assert.equal(loadSealingKey(dir, keychain({ backend: 'gnome_libsecret' })).protection, 'keychain');
});

test('a keychain that does not give back what it encrypted leaves the plain file in place', (t) => {
  const dir = dataFolder(t);
  const key = randomBytes(32);
  writeFileSync(join(dir, KEY_FILE), key.toString('base64'), { mode: 0o600 });
  const result = loadSealingKey(dir, keychain({ corrupt: true }));
  assert.equal(result.protection, 'file');
  assert.match(result.protection === 'file' ? result.reason : '', /did not give back/);
  assert.deepEqual(readdirSync(dir), [KEY_FILE]);
  assert.equal(readFileSync(join(dir, KEY_FILE), 'utf8'), key.toString('base64'));
});

test('a sealed key without the keychain stops the start instead of making a new key', (t) => {
  const dir = dataFolder(t);
  loadSealingKey(dir, keychain());
  assert.throws(
    () => loadSealingKey(dir, keychain({ available: false })),
    /secret\.key\.sealed needs the system keychain, but the system keychain is not available/,
  );
  assert.deepEqual(readdirSync(dir), [SEALED_KEY_FILE]);
});

test('a sealed key another keychain wrote is refused, not replaced', (t) => {
  const dir = dataFolder(t);
  loadSealingKey(dir, keychain());
  const sealed = readFileSync(join(dir, SEALED_KEY_FILE));
  assert.throws(() => loadSealingKey(dir, keychain()), /could not be decrypted by the system keychain/);
  assert.ok(readFileSync(join(dir, SEALED_KEY_FILE)).equals(sealed));
});

test('a move that stopped before removing the plain file is finished', (t) => {
  const dir = dataFolder(t);
  const cipher = keychain();
  const key = loadServiceKey(join(dir, KEY_FILE));
  const copy = readFileSync(join(dir, KEY_FILE));
  loadSealingKey(dir, cipher);
  writeFileSync(join(dir, KEY_FILE), copy, { mode: 0o600 });
  const result = loadSealingKey(dir, cipher);
  assert.ok(result.key?.equals(key));
  assert.deepEqual(readdirSync(dir), [SEALED_KEY_FILE]);
});

test('a plain key that differs from the sealed one stops the start, and both are kept', (t) => {
  const dir = dataFolder(t);
  const cipher = keychain();
  loadSealingKey(dir, cipher);
  const other = randomBytes(32).toString('base64');
  writeFileSync(join(dir, KEY_FILE), other, { mode: 0o600 });
  assert.throws(() => loadSealingKey(dir, cipher), /secret\.key holds another key than the one the app keeps in the system keychain/);
  assert.equal(readFileSync(join(dir, KEY_FILE), 'utf8'), other);
  assert.deepEqual(readdirSync(dir).sort(), [KEY_FILE, SEALED_KEY_FILE]);
});

test('a plain file that holds no key is refused and kept', (t) => {
  const dir = dataFolder(t);
  writeFileSync(join(dir, KEY_FILE), 'c2hvcnQ=', { mode: 0o600 });
  assert.throws(() => loadSealingKey(dir, keychain()), /secret\.key does not hold a 32-byte key/);
  assert.deepEqual(readdirSync(dir), [KEY_FILE]);
});
