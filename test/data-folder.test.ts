/**
 * The data folder is private to the user running the service: the folder 0700 and every file in it
 * 0600, whether the service made them or found them, or the service refuses to start.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { DATABASE_FILE } from '../server/db/open.ts';
import { KEY_FILE } from '../server/domain/sealing.ts';
import { startTestService, tempDir } from './support/harness.ts';
import { sqliteOnly } from './support/database.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;
const octal = (mode: number) => `0${mode.toString(8)}`;
const posix = process.platform !== 'win32';

/** Whether a user who owns none of them may pass through every folder from `/` down to `path`. */
function enterableByOthers(path: string): boolean {
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    if ((statSync(folder).mode & 0o001) === 0) return false;
    if (folder === dirname(folder)) return true;
  }
}

function assertMode(path: string, mode: number): void {
  assert.equal(octal(modeOf(path)), octal(mode), `${path} has mode ${octal(modeOf(path))}`);
}

describe('the data folder', { skip: sqliteOnly || (!posix && 'file modes are POSIX') }, () => {
  test('refuses to leave an existing 0755 folder and its 0644 files open: folder 0700, every file 0600', async () => {
    const dir = await tempDir();
    try {
      const dataDir = join(dir.path, 'data');
      mkdirSync(dataDir);
      chmodSync(dataDir, 0o755);
      const stale = join(dataDir, 'notes.txt');
      writeFileSync(stale, 'left by an earlier version');
      chmodSync(stale, 0o644);
      const key = join(dataDir, KEY_FILE);
      writeFileSync(key, randomBytes(32).toString('base64'));
      chmodSync(key, 0o644);
      const outside = join(dir.path, 'outside.txt');
      writeFileSync(outside, "not the service's");
      chmodSync(outside, 0o644);
      assertMode(dataDir, 0o755);

      const svc = await startTestService({}, dataDir);
      try {
        assertMode(dataDir, 0o700);
        assertMode(stale, 0o600);
        assertMode(key, 0o600);
        for (const name of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`]) {
          assert.ok(existsSync(join(dataDir, name)), `${name} exists while the service runs`);
          assertMode(join(dataDir, name), 0o600);
        }
        assert.equal(readFileSync(stale, 'utf8'), 'left by an earlier version', 'a stale file is tightened, not changed');
        assertMode(outside, 0o644);
      } finally {
        await svc.close();
      }
    } finally {
      await dir.remove();
    }
  });

  test('refuses to create the database, -wal, -shm or secret.key readable by others in a new folder', async () => {
    const dir = await tempDir();
    try {
      const dataDir = join(dir.path, 'nested', 'data');
      const svc = await startTestService({}, dataDir);
      try {
        assertMode(dataDir, 0o700);
        // A write makes sure the WAL holds something.
        await svc.createKey('read');
        for (const name of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, KEY_FILE]) {
          assert.ok(existsSync(join(dataDir, name)), `${name} exists while the service runs`);
          assertMode(join(dataDir, name), 0o600);
        }
      } finally {
        await svc.close();
      }
    } finally {
      await dir.remove();
    }
  });

  test('refuses a 0644 database file left by an earlier version: 0600 at the next start, with its -wal and -shm', async () => {
    const dir = await tempDir();
    try {
      const first = await startTestService({}, dir.path);
      await first.close();
      const file = join(dir.path, DATABASE_FILE);
      chmodSync(file, 0o644);
      for (const name of [`${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`]) {
        if (existsSync(join(dir.path, name))) chmodSync(join(dir.path, name), 0o644);
      }
      const second = await startTestService({}, dir.path);
      try {
        await second.createKey('read');
        for (const name of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`]) assertMode(join(dir.path, name), 0o600);
      } finally {
        await second.close();
      }
    } finally {
      await dir.remove();
    }
  });

  // Only root can give a folder to another user; the service is then started as that other user,
  // who must be able to run this Node.js and read this checkout (a clone inside a private folder,
  // such as a home folder of mode 0700, is closed to them).
  const root = process.getuid?.() === 0;
  const checkout = fileURLToPath(new URL('..', import.meta.url));
  const closed = [realpathSync(process.execPath), checkout].find((path) => !enterableByOthers(path));
  const skip = !root ? 'needs root to own a folder as another user' : closed ? `another user cannot reach ${closed} (a folder above it is private)` : false;
  test('refuses to start, naming the folder, when the folder belongs to another user', { skip }, async () => {
    const dir = await tempDir();
    try {
      chmodSync(dir.path, 0o755);
      const dataDir = join(dir.path, 'theirs');
      mkdirSync(dataDir);
      chmodSync(dataDir, 0o755);
      chownSync(dataDir, 0, 0);
      const openUrl = new URL('../server/db/open.ts', import.meta.url).href;
      const script = `import { openDatabase } from ${JSON.stringify(openUrl)};
try { await openDatabase(${JSON.stringify(dataDir)}); console.log('opened'); } catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })); }`;
      const output = await new Promise<string>((resolve, reject) => {
        execFile(
          process.execPath,
          ['--input-type=module', '-e', script],
          { uid: 65534, gid: 65534, timeout: 20_000, cwd: dir.path },
          (error, stdout, stderr) => {
            if (error) reject(new Error(`${error.message}\n${stderr}`));
            else resolve(stdout.trim());
          },
        );
      });
      const answer = JSON.parse(output);
      assert.equal(answer.code, 'PRECONDITION_FAILED');
      assert.ok(answer.message.includes(dataDir), answer.message);
      assert.match(answer.message, /cannot be made private to this user \(setting its mode to 0700: EPERM\); refusing to start/);
      assertMode(dataDir, 0o755);
      assert.ok(!existsSync(join(dataDir, DATABASE_FILE)), 'a database was created in a folder that stays open');
    } finally {
      await dir.remove();
    }
  });
});
