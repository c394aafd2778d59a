// Puts the `statusdesk` command on the PATH from the app: a small script that runs the app's own
// executable as Node.js (ELECTRON_RUN_AS_NODE=1) on the bundled command, on the app's data folder.
// macOS and Linux get a shell script in a folder of the user's on the PATH (a system folder only
// when the user can write there); Windows gets a .cmd script under the user's profile, and that
// folder is added to the user's PATH. Planning is pure; installCli carries a plan out.
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { posix, win32 } from 'node:path';

export interface CliInstallInput {
  platform: NodeJS.Platform;
  home: string;
  env: NodeJS.ProcessEnv;
  /** The app's executable (process.execPath), which runs as Node.js under ELECTRON_RUN_AS_NODE. */
  appExecutable: string;
  /** The command's bundle inside the app (dist/statusdesk.js). */
  cliScript: string;
  /** The app's data folder: the command works on it unless STATUSDESK_DATA_DIR says otherwise. */
  dataDir: string;
  /** Whether the user can write into a system folder such as /usr/local/bin; without it, only the user's own folders are used. */
  isWritable?: (dir: string) => boolean;
}

/** A command to run once the script is written (Windows: the PATH change). */
export interface PlannedCommand {
  file: string;
  args: string[];
}

export type CliInstallPlan =
  | {
      supported: true;
      dir: string;
      file: string;
      content: string;
      /** The folder is on the PATH already (after addToPath, on Windows). */
      onPath: boolean;
      /** Adds `dir` to the user's PATH (Windows, when it is not there yet). */
      addToPath?: PlannedCommand;
      /** What the person does when the folder is not on the PATH and the app cannot put it there. */
      pathAdvice?: string;
    }
  | { supported: false; reason: string };

/** The second line of every script the app writes: a file without it is someone else's, and is not replaced. */
export const SCRIPT_MARKER = 'statusdesk: the command of the Statusdesk desktop app';

/** Where the user's own folders come first: they need no administrator, and the app can create them. */
const posixCandidates = (home: string) => [
  { dir: posix.join(home, '.local', 'bin'), own: true },
  { dir: posix.join(home, 'bin'), own: true },
  { dir: '/usr/local/bin', own: false },
];

/** PATH's entries; on Windows the variable's name has any case, and entries compare without case. */
function pathEntries(env: NodeJS.ProcessEnv, windows: boolean): string[] {
  const name = Object.keys(env).find((key) => (windows ? key.toUpperCase() === 'PATH' : key === 'PATH'));
  const value = name === undefined ? '' : (env[name] ?? '');
  return value
    .split(windows ? ';' : ':')
    .filter(Boolean)
    .map((entry) => (windows ? entry.replace(/\\+$/, '').toLowerCase() : entry.replace(/\/+$/, '')));
}

/** A word the shell takes literally, whatever it holds. */
const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** cmd expands %NAME% even inside quotes; Windows paths hold no quote marks. */
const cmdEscape = (text: string) => text.replaceAll('%', '%%');

/** Where the app runs from a place that will not be there later, the script would break with it. */
function unstableLocation(input: CliInstallInput): string | undefined {
  if (input.platform === 'linux' && input.env.APPIMAGE) {
    return 'the AppImage runs from a temporary folder that changes every time it starts; install the .deb package to get the statusdesk command';
  }
  if (input.platform === 'darwin' && (input.appExecutable.startsWith('/Volumes/') || input.appExecutable.includes('/AppTranslocation/'))) {
    return 'Statusdesk runs from the disk image or a temporary copy; move it to the Applications folder, open it from there, and install the command again';
  }
  return undefined;
}

function posixScript(input: CliInstallInput): string {
  return [
    '#!/bin/sh',
    `# ${SCRIPT_MARKER}. Install it again from the app's menu after moving the app.`,
    `if [ -z "\${STATUSDESK_DATA_DIR:-}" ]; then STATUSDESK_DATA_DIR=${shellQuote(input.dataDir)}; fi`,
    'export STATUSDESK_DATA_DIR',
    'export ELECTRON_RUN_AS_NODE=1',
    `exec ${shellQuote(input.appExecutable)} ${shellQuote(input.cliScript)} "$@"`,
    '',
  ].join('\n');
}

function windowsScript(input: CliInstallInput): string {
  return [
    '@echo off',
    `rem ${SCRIPT_MARKER}. Install it again from the app's menu after moving the app.`,
    'setlocal',
    `if not defined STATUSDESK_DATA_DIR set "STATUSDESK_DATA_DIR=${cmdEscape(input.dataDir)}"`,
    'set "ELECTRON_RUN_AS_NODE=1"',
    `"${cmdEscape(input.appExecutable)}" "${cmdEscape(input.cliScript)}" %*`,
    '',
  ].join('\r\n');
}

/**
 * Adds `dir` to the user's PATH in the registry, keeping the other entries unexpanded
 * (%USERPROFILE%\...), then announces the change so new terminals see it. Encoded, so no quoting
 * of the command line can change it.
 */
export function windowsAddToPath(dir: string): PlannedCommand {
  const literal = `'${dir.replaceAll("'", "''")}'`;
  const script = [
    `$dir = ${literal}`,
    "$key = [Microsoft.Win32.Registry]::CurrentUser.CreateSubKey('Environment')",
    "$path = [string]$key.GetValue('Path', '', 'DoNotExpandEnvironmentNames')",
    "if (($path -split ';') -notcontains $dir) { $key.SetValue('Path', ($path.TrimEnd(';') + ';' + $dir).TrimStart(';'), 'ExpandString') }",
    '$key.Close()',
    // Setting a variable through .NET broadcasts WM_SETTINGCHANGE; this one is removed as it is set.
    "[Environment]::SetEnvironmentVariable('STATUSDESK_PATH_CHANGED', $null, 'User')",
  ].join('; ');
  return { file: 'powershell.exe', args: ['-NoProfile', '-NonInteractive', '-EncodedCommand', Buffer.from(script, 'utf16le').toString('base64')] };
}

function planPosix(input: CliInstallInput): CliInstallPlan {
  const onPath = new Set(pathEntries(input.env, false));
  // An app opened from the Finder gets a short PATH; terminals read /etc/paths, which lists /usr/local/bin on every Mac.
  if (input.platform === 'darwin') onPath.add('/usr/local/bin');
  const usable = posixCandidates(input.home).find((candidate) => onPath.has(candidate.dir) && (candidate.own || input.isWritable?.(candidate.dir) === true));
  const content = posixScript(input);
  if (usable) return { supported: true, dir: usable.dir, file: posix.join(usable.dir, 'statusdesk'), content, onPath: true };
  const dir = posix.join(input.home, '.local', 'bin');
  const profile = posix.basename(input.env.SHELL ?? '') === 'zsh' ? '~/.zshrc' : '~/.profile';
  return {
    supported: true,
    dir,
    file: posix.join(dir, 'statusdesk'),
    content,
    onPath: false,
    pathAdvice: `${dir} is not on your PATH: add it with  echo 'export PATH="$HOME/.local/bin:$PATH"' >> ${profile}  and open a new terminal`,
  };
}

function planWindows(input: CliInstallInput): CliInstallPlan {
  const base = input.env.LOCALAPPDATA || win32.join(input.home, 'AppData', 'Local');
  const dir = win32.join(base, 'Statusdesk', 'bin');
  const onPath = pathEntries(input.env, true).includes(dir.toLowerCase());
  return {
    supported: true,
    dir,
    file: win32.join(dir, 'statusdesk.cmd'),
    content: windowsScript(input),
    onPath: true,
    ...(onPath ? {} : { addToPath: windowsAddToPath(dir) }),
  };
}

/** Where and what to write so that `statusdesk` runs the app's command, or why it cannot be done here. */
export function planCliInstall(input: CliInstallInput): CliInstallPlan {
  const unstable = unstableLocation(input);
  if (unstable) return { supported: false, reason: unstable };
  return input.platform === 'win32' ? planWindows(input) : planPosix(input);
}

/** Whether this user may create files in `dir` (the isWritable of a plan's input). */
export function canWriteInto(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** What installCli does to the machine; the real one by default. */
export interface CliInstallSystem {
  mkdir(dir: string): Promise<void>;
  /** The file's text, or undefined when there is none. */
  read(file: string): Promise<string | undefined>;
  /** Writes the whole file at once, executable, replacing what was there. */
  writeExecutable(file: string, content: string): Promise<void>;
  run(command: PlannedCommand): Promise<void>;
}

export const nodeCliSystem: CliInstallSystem = {
  async mkdir(dir) {
    await mkdir(dir, { recursive: true });
  },
  async read(file) {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  },
  async writeExecutable(file, content) {
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, content, { mode: 0o755, flag: 'wx' });
      // The mode given at creation is narrowed by the umask; a command must be runnable by its user.
      await chmod(temporary, 0o755);
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  },
  run: (command) =>
    new Promise((resolve, reject) => {
      execFile(command.file, command.args, { timeout: 30_000, windowsHide: true }, (error) => (error ? reject(error) : resolve()));
    }),
};

/** Writes the planned script (never over someone else's statusdesk) and puts its folder on the PATH where planned. */
export async function installCli(plan: CliInstallPlan, system: CliInstallSystem = nodeCliSystem): Promise<{ file: string; summary: string }> {
  if (!plan.supported) throw new Error(plan.reason);
  await system.mkdir(plan.dir);
  const existing = await system.read(plan.file);
  if (existing !== undefined && !existing.includes(SCRIPT_MARKER)) {
    throw new Error(`there is already a statusdesk command at ${plan.file} that Statusdesk did not install; remove it, then install again`);
  }
  await system.writeExecutable(plan.file, plan.content);
  if (plan.addToPath) await system.run(plan.addToPath);
  const where = `The statusdesk command is at ${plan.file}.`;
  if (plan.pathAdvice) return { file: plan.file, summary: `${where} ${plan.pathAdvice}.` };
  return { file: plan.file, summary: `${where} Open a new terminal and run: statusdesk --help` };
}
