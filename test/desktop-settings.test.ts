import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_SETTINGS, readSettings, writeSettings } from '../main/src/settings.ts';

function folder(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'statusdesk-settings-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a missing file reads as the defaults', (t) => {
  assert.deepEqual(readSettings(join(folder(t), 'settings.json')), DEFAULT_SETTINGS);
  assert.deepEqual(DEFAULT_SETTINGS, { openAtLogin: false });
});

test('writes and reads back every setting, in a file only its user can read', (t) => {
  const file = join(folder(t), 'user-data', 'settings.json');
  const settings = { openAtLogin: true, ports: { api: 3002, dashboard: 3003 }, cliInstalledAt: '2026-11-02T10:00:00.000Z' };
  writeSettings(file, settings);
  assert.deepEqual(readSettings(file), settings);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  // No temporary file is left beside it.
  assert.deepEqual(readdirSync(join(file, '..')), ['settings.json']);
});

test('a rewrite replaces the file whole and keeps its mode', (t) => {
  const file = join(folder(t), 'settings.json');
  writeSettings(file, { openAtLogin: true, ports: { api: 3000, dashboard: 3001 } });
  writeSettings(file, { openAtLogin: false });
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { openAtLogin: false });
  assert.equal(statSync(file).mode & 0o777, 0o600);
});

test('a broken file reads as the defaults', (t) => {
  const file = join(folder(t), 'settings.json');
  for (const text of ['{"openAtLogin": tru', '[]', 'null', '"x"', '']) {
    writeFileSync(file, text);
    assert.deepEqual(readSettings(file), DEFAULT_SETTINGS, text);
  }
});

test('each invalid setting falls back on its own and the valid ones are kept', (t) => {
  const file = join(folder(t), 'settings.json');
  writeFileSync(file, JSON.stringify({ openAtLogin: 'yes', ports: { api: 3002, dashboard: 3003 }, cliInstalledAt: 'yesterday', unknown: 1 }));
  assert.deepEqual(readSettings(file), { openAtLogin: false, ports: { api: 3002, dashboard: 3003 } });
  writeFileSync(file, JSON.stringify({ openAtLogin: true, ports: { api: 3000, dashboard: 3000 } }));
  assert.deepEqual(readSettings(file), { openAtLogin: true });
  writeFileSync(file, JSON.stringify({ openAtLogin: true, ports: { api: 22, dashboard: 3001 } }));
  assert.equal(readSettings(file).ports, undefined);
});

test('refuses to write settings that would not read back', (t) => {
  const dir = folder(t);
  const file = join(dir, 'settings.json');
  assert.throws(() => writeSettings(file, { openAtLogin: true, ports: { api: 80, dashboard: 3001 } }));
  assert.throws(() => writeSettings(file, { openAtLogin: true, cliInstalledAt: 'soon' }));
  assert.deepEqual(readdirSync(dir), []);
});

test('a write that cannot land fails loudly and leaves no temporary file behind', (t) => {
  const dir = folder(t);
  const file = join(dir, 'settings.json');
  // A folder in the file's place: the rename over it fails.
  mkdirSync(join(file, 'in-the-way'), { recursive: true });
  assert.throws(() => writeSettings(file, { openAtLogin: true }), /EISDIR|ENOTEMPTY|EEXIST|EPERM/);
  assert.deepEqual(readdirSync(dir), ['settings.json']);
  assert.ok(statSync(file).isDirectory());
});
