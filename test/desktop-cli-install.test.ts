import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  canWriteInto,
  type CliInstallInput,
  type CliInstallPlan,
  installCli,
  nodeCliSystem,
  type PlannedCommand,
  planCliInstall,
  SCRIPT_MARKER,
} from '../main/src/cli-install.ts';
import { perTestCleanup } from './support/harness.ts';

const cleanup = perTestCleanup();
const BUNDLE = new URL('../dist/statusdesk.js', import.meta.url).pathname;

const linux = (overrides: Partial<CliInstallInput> = {}): CliInstallInput => ({
  platform: 'linux',
  home: '/home/ada',
  env: { PATH: '/home/ada/.local/bin:/usr/local/bin:/usr/bin:/bin', SHELL: '/bin/bash' },
  appExecutable: '/opt/Statusdesk/statusdesk-desktop',
  cliScript: '/opt/Statusdesk/resources/app.asar/dist/statusdesk.js',
  dataDir: '/home/ada/.config/Statusdesk/data',
  ...overrides,
});

function supported(plan: CliInstallPlan): Extract<CliInstallPlan, { supported: true }> {
  assert.ok(plan.supported, plan.supported ? '' : plan.reason);
  return plan;
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env: { ...process.env, ...env }, timeout: 20_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

test('Linux: a shell script in ~/.local/bin when it is on the PATH', () => {
  const plan = supported(planCliInstall(linux()));
  assert.equal(plan.dir, '/home/ada/.local/bin');
  assert.equal(plan.file, '/home/ada/.local/bin/statusdesk');
  assert.equal(plan.onPath, true);
  assert.equal(plan.addToPath, undefined);
  assert.equal(plan.pathAdvice, undefined);
  assert.equal(
    plan.content,
    [
      '#!/bin/sh',
      `# ${SCRIPT_MARKER}. Install it again from the app's menu after moving the app.`,
      `if [ -z "\${STATUSDESK_DATA_DIR:-}" ]; then STATUSDESK_DATA_DIR='/home/ada/.config/Statusdesk/data'; fi`,
      'export STATUSDESK_DATA_DIR',
      'export ELECTRON_RUN_AS_NODE=1',
      `exec '/opt/Statusdesk/statusdesk-desktop' '/opt/Statusdesk/resources/app.asar/dist/statusdesk.js' "$@"`,
      '',
    ].join('\n'),
  );
});

test('Linux: ~/bin when that is the user’s folder on the PATH, with or without a trailing slash', () => {
  assert.equal(supported(planCliInstall(linux({ env: { PATH: '/usr/bin:/home/ada/bin/' } }))).dir, '/home/ada/bin');
});

test('a system folder only when the user can write there; else the user’s folder and how to put it on the PATH', () => {
  const env = { PATH: '/usr/local/bin:/usr/bin:/bin', SHELL: '/usr/bin/zsh' };
  assert.equal(supported(planCliInstall(linux({ env, isWritable: (dir) => dir === '/usr/local/bin' }))).dir, '/usr/local/bin');
  for (const isWritable of [undefined, () => false]) {
    const plan = supported(planCliInstall(linux({ env, ...(isWritable && { isWritable }) })));
    assert.equal(plan.dir, '/home/ada/.local/bin');
    assert.equal(plan.onPath, false);
    assert.equal(
      plan.pathAdvice,
      `/home/ada/.local/bin is not on your PATH: add it with  echo 'export PATH="$HOME/.local/bin:$PATH"' >> ~/.zshrc  and open a new terminal`,
    );
  }
  assert.match(supported(planCliInstall(linux({ env: { PATH: '/usr/bin' } }))).pathAdvice ?? '', />> ~\/\.profile/);
});

test('macOS: /usr/local/bin counts as on the PATH, though an app opened from the Finder does not see it there', () => {
  const mac = linux({
    platform: 'darwin',
    home: '/Users/ada',
    env: { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' },
    appExecutable: '/Applications/Statusdesk.app/Contents/MacOS/Statusdesk',
  });
  assert.equal(supported(planCliInstall({ ...mac, isWritable: () => true })).file, '/usr/local/bin/statusdesk');
  assert.equal(supported(planCliInstall({ ...mac, isWritable: () => false })).file, '/Users/ada/.local/bin/statusdesk');
});

test('refuses where the app runs from a place that will not last', async () => {
  const cases: [CliInstallInput, RegExp][] = [
    [
      linux({ env: { PATH: '/home/ada/.local/bin', APPIMAGE: '/home/ada/Statusdesk.AppImage' }, appExecutable: '/tmp/.mount_StatusAbc/statusdesk-desktop' }),
      /AppImage .* install the \.deb package/,
    ],
    [linux({ platform: 'darwin', appExecutable: '/Volumes/Statusdesk/Statusdesk.app/Contents/MacOS/Statusdesk' }), /move it to the Applications folder/],
    [
      linux({ platform: 'darwin', appExecutable: '/private/var/folders/x/AppTranslocation/1/d/Statusdesk.app/Contents/MacOS/Statusdesk' }),
      /move it to the Applications folder/,
    ],
  ];
  for (const [input, reason] of cases) {
    const plan = planCliInstall(input);
    assert.equal(plan.supported, false);
    await assert.rejects(installCli(plan), reason);
  }
});

test('Windows: a .cmd script under the user’s profile, and its folder added to the user’s PATH', () => {
  const input: CliInstallInput = {
    platform: 'win32',
    home: 'C:\\Users\\Ada',
    env: { Path: 'C:\\Windows\\system32;C:\\Windows', LOCALAPPDATA: 'C:\\Users\\Ada\\AppData\\Local' },
    appExecutable: 'C:\\Users\\Ada\\AppData\\Local\\Programs\\Statusdesk\\Statusdesk.exe',
    cliScript: 'C:\\Users\\Ada\\AppData\\Local\\Programs\\Statusdesk\\resources\\app.asar\\dist\\statusdesk.js',
    dataDir: 'C:\\Users\\Ada\\AppData\\Roaming\\Statusdesk\\data 100%',
  };
  const plan = supported(planCliInstall(input));
  assert.equal(plan.dir, 'C:\\Users\\Ada\\AppData\\Local\\Statusdesk\\bin');
  assert.equal(plan.file, 'C:\\Users\\Ada\\AppData\\Local\\Statusdesk\\bin\\statusdesk.cmd');
  assert.equal(
    plan.content,
    [
      '@echo off',
      `rem ${SCRIPT_MARKER}. Install it again from the app's menu after moving the app.`,
      'setlocal',
      'if not defined STATUSDESK_DATA_DIR set "STATUSDESK_DATA_DIR=C:\\Users\\Ada\\AppData\\Roaming\\Statusdesk\\data 100%%"',
      'set "ELECTRON_RUN_AS_NODE=1"',
      `"${input.appExecutable}" "${input.cliScript}" %*`,
      '',
    ].join('\r\n'),
  );
  const command = plan.addToPath;
  assert.ok(command);
  assert.equal(command.file, 'powershell.exe');
  assert.deepEqual(command.args.slice(0, 3), ['-NoProfile', '-NonInteractive', '-EncodedCommand']);
  const script = Buffer.from(command.args[3]!, 'base64').toString('utf16le');
  assert.ok(script.startsWith(`$dir = 'C:\\Users\\Ada\\AppData\\Local\\Statusdesk\\bin'; `), script);
  assert.match(script, /GetValue\('Path', '', 'DoNotExpandEnvironmentNames'\)/);
  assert.match(script, /-notcontains \$dir/);
  assert.match(script, /SetValue\('Path', .*'ExpandString'\)/);

  // Already on the PATH (any case, a trailing backslash): nothing to add.
  const onPath = supported(
    planCliInstall({ ...input, env: { PATH: 'c:\\users\\ada\\appdata\\local\\statusdesk\\BIN\\;C:\\Windows', LOCALAPPDATA: input.env.LOCALAPPDATA } }),
  );
  assert.equal(onPath.addToPath, undefined);
  // Without LOCALAPPDATA, the profile's own AppData\Local; a quote in a folder's name stays inside PowerShell's string.
  const bare = supported(planCliInstall({ ...input, home: "C:\\Users\\O'Brien", env: {} }));
  assert.equal(bare.dir, "C:\\Users\\O'Brien\\AppData\\Local\\Statusdesk\\bin");
  assert.ok(Buffer.from(bare.addToPath!.args[3]!, 'base64').toString('utf16le').startsWith("$dir = 'C:\\Users\\O''Brien\\AppData\\Local\\Statusdesk\\bin'; "));
});

/** A home folder with the app's executable (this Node.js, as Electron runs as Node.js) under an awkward name. */
async function fakeInstall(): Promise<{ home: string; exe: string; probe: string }> {
  const home = await cleanup.folder();
  const appDir = join(home, "Apps/Status desk's $HOME");
  mkdirSync(appDir, { recursive: true });
  const exe = join(appDir, 'statusdesk-desktop');
  symlinkSync(process.execPath, exe);
  // Stands in for the bundled command: says how it was run.
  const probe = join(appDir, 'probe.mjs');
  writeFileSync(
    probe,
    'console.log(JSON.stringify({ args: process.argv.slice(2), runAsNode: process.env.ELECTRON_RUN_AS_NODE, dataDir: process.env.STATUSDESK_DATA_DIR }));\n',
  );
  return { home, exe, probe };
}

test('a real install: the script runs the app’s executable on the command, passing every argument as given', async () => {
  const { home, exe, probe } = await fakeInstall();
  const plan = supported(
    planCliInstall({
      platform: 'linux',
      home,
      env: { PATH: `${home}/.local/bin:/usr/bin:/bin` },
      appExecutable: exe,
      cliScript: probe,
      dataDir: join(home, "data 'dir'"),
    }),
  );
  const done = await installCli(plan);
  assert.equal(done.file, join(home, '.local/bin/statusdesk'));
  assert.equal(done.summary, `The statusdesk command is at ${done.file}. Open a new terminal and run: statusdesk --help`);
  assert.equal(statSync(done.file).mode & 0o777, 0o755);
  assert.deepEqual(readdirSync(join(home, '.local/bin')), ['statusdesk'], 'no temporary file is left');

  const result = await run(done.file, ['monitors', 'list', 'a b', "it's", '$HOME', '*', '']);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout), {
    args: ['monitors', 'list', 'a b', "it's", '$HOME', '*', ''],
    runAsNode: '1',
    dataDir: join(home, "data 'dir'"),
  });
  // A data folder the person chose wins over the app's.
  const chosen = await run(done.file, [], { STATUSDESK_DATA_DIR: '/elsewhere' });
  assert.equal(JSON.parse(chosen.stdout).dataDir, '/elsewhere');
});

test('a real install runs the bundled command', { skip: !existsSync(BUNDLE) && 'dist/statusdesk.js is not built' }, async () => {
  const { home, exe } = await fakeInstall();
  const plan = supported(
    planCliInstall({ platform: 'linux', home, env: { PATH: `${home}/bin` }, appExecutable: exe, cliScript: BUNDLE, dataDir: join(home, 'data') }),
  );
  const { file } = await installCli(plan);
  const result = await run(file, ['--version']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^\d+\.\d+\.\d+\n$/);
});

test('installing again replaces the app’s own script, but never another statusdesk', async () => {
  const { home, exe, probe } = await fakeInstall();
  const input: CliInstallInput = {
    platform: 'linux',
    home,
    env: { PATH: `${home}/.local/bin` },
    appExecutable: exe,
    cliScript: probe,
    dataDir: join(home, 'data'),
  };
  await installCli(supported(planCliInstall(input)));
  const moved = supported(planCliInstall({ ...input, dataDir: join(home, 'moved') }));
  await installCli(moved);
  assert.equal(readFileSync(moved.file, 'utf8'), moved.content);

  const other = '#!/bin/sh\nexec node /usr/lib/node_modules/statusdesk/bin/statusdesk.js "$@"\n';
  writeFileSync(moved.file, other);
  await assert.rejects(installCli(moved), /there is already a statusdesk command at .* that Statusdesk did not install/);
  assert.equal(readFileSync(moved.file, 'utf8'), other);
});

test('the user’s PATH change runs after the script is written, and a failing one fails the install', async () => {
  const base = await cleanup.folder();
  const plan = supported(
    planCliInstall({
      platform: 'win32',
      home: 'C:\\Users\\Ada',
      env: { LOCALAPPDATA: base },
      appExecutable: 'C:\\S\\Statusdesk.exe',
      cliScript: 'C:\\S\\statusdesk.js',
      dataDir: 'C:\\D',
    }),
  );
  // The Windows folder, in this machine's terms.
  const local = { ...plan, dir: join(base, 'Statusdesk-bin'), file: join(base, 'Statusdesk-bin', 'statusdesk.cmd') };
  const ran: { command: PlannedCommand; written: boolean }[] = [];
  await installCli(local, { ...nodeCliSystem, run: async (command) => void ran.push({ command, written: existsSync(local.file) }) });
  assert.deepEqual(ran, [{ command: plan.addToPath, written: true }]);
  assert.equal(readFileSync(local.file, 'utf8'), plan.content);
  await assert.rejects(
    installCli(local, { ...nodeCliSystem, run: async () => Promise.reject(new Error('powershell.exe was not found')) }),
    /powershell\.exe was not found/,
  );
});

test('a folder that cannot be made fails the install with the system’s reason', async () => {
  const { home, exe, probe } = await fakeInstall();
  // A file where the folder should be.
  const blocked = join(home, 'blocked');
  writeFileSync(blocked, '');
  const plan = supported(planCliInstall({ platform: 'linux', home, env: { PATH: `${home}/.local/bin` }, appExecutable: exe, cliScript: probe, dataDir: home }));
  await assert.rejects(installCli({ ...plan, dir: join(blocked, 'bin'), file: join(blocked, 'bin', 'statusdesk') }), /EEXIST|ENOTDIR/);
});

test('canWriteInto tells a writable folder from a missing one', async () => {
  const dir = await cleanup.folder();
  assert.equal(canWriteInto(dir), true);
  assert.equal(canWriteInto(join(dir, 'missing')), false);
});
