// electron-builder.yml against electron-builder's own schema, and against what the app needs:
// the protocol it registers, the native module outside the asar, the bundles it starts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { packageRoot } from '../server/package-root.ts';

const config = parse(readFileSync(join(packageRoot, 'electron-builder.yml'), 'utf8')) as Record<string, any>;
const schema = JSON.parse(readFileSync(join(packageRoot, 'node_modules', 'app-builder-lib', 'scheme.json'), 'utf8'));

test('electron-builder.yml is valid against electron-builder’s schema', () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  assert.equal(validate(config), true, JSON.stringify(validate.errors, null, 2));
});

test('the schema check can fail: a misspelt key is refused', () => {
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  assert.equal(validate({ ...config, protocol: config.protocols }), false);
});

test('installers for macOS (dmg), Windows (nsis) and Linux (AppImage, deb), registering statusdesk://', () => {
  assert.deepEqual(config.mac.target, ['dmg']);
  assert.deepEqual(config.win.target, ['nsis']);
  assert.deepEqual(config.linux.target, ['AppImage', 'deb']);
  assert.deepEqual(config.protocols, [{ name: 'Statusdesk link', schemes: ['statusdesk'] }]);
});

test('the native SQLite module is unpacked from the asar, and the app starts main/’s bundle, which the build writes', () => {
  assert.ok(config.asarUnpack.includes('node_modules/better-sqlite3/**'));
  assert.equal(config.extraMetadata.main, 'dist/desktop/main.js');
  const build = readFileSync(join(packageRoot, 'scripts', 'build.ts'), 'utf8');
  for (const bundle of ['desktop/main.js', 'desktop/preload.cjs', 'desktop-host.js']) assert.match(build, new RegExp(bundle.replace('.', '\\.')), bundle);
  for (const icon of ['icon.png', 'tray-up.png', 'tray-degraded.png', 'tray-down.png', 'tray-unknown.png']) {
    assert.ok(
      readFileSync(join(packageRoot, 'build', icon))
        .subarray(1, 4)
        .toString() === 'PNG',
      icon,
    );
  }
});
