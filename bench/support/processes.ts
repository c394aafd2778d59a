import { type ChildProcess, fork, spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { SERVICE_NODE_FLAGS } from '../../server/heap-growth.ts';

/** The benchmarks' child processes: the service as shipped, and the baselines beside it. */

/** `statusdesk serve` as Node's arguments, with the Node flags of every command that starts the service. */
export const SERVE: readonly string[] = [...SERVICE_NODE_FLAGS, fileURLToPath(new URL('../../bin/statusdesk.js', import.meta.url)), 'serve'];

const READY_TIMEOUT_MS = 30_000;
const EXIT_TIMEOUT_MS = 5_000;
const KILL_TIMEOUT_MS = 2_000;

/** Resolves with the promise's value, or undefined after `ms`, without leaving a timer behind. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Child {
  name: string;
  child: ChildProcess;
  port: number;
  /** The ready line, parsed. */
  ready: Record<string, unknown>;
  /** The last part of what it wrote to stderr. */
  logTail(): string;
  /** SIGTERM, then SIGKILL if it has not exited in time; says what happened. */
  stop(): Promise<string>;
}

export const describeExit = ({ code, signal }: Exit) => (signal ? `signal ${signal}` : `code ${code}`);

/**
 * Spawns a Node.js process that prints one JSON ready line on stdout; resolves once it has.
 * stderr goes to `logFile`, as a supervisor would keep it: the service's access log is written
 * for real, and nothing in this process has to read it.
 */
export async function spawnReady(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
  portOf: (ready: Record<string, unknown>) => number,
): Promise<Child> {
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', fd] });
  } finally {
    closeSync(fd);
  }
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  // The access log may hold hundreds of thousands of lines: only its end is read.
  const logTail = () => {
    try {
      const tailFd = openSync(logFile, 'r');
      try {
        const size = fstatSync(tailFd).size;
        const tail = Buffer.alloc(Math.min(size, 3_000));
        readSync(tailFd, tail, 0, tail.length, size - tail.length);
        return tail.toString('utf8').trim();
      } finally {
        closeSync(tailFd);
      }
    } catch {
      return '';
    }
  };
  const stop = async (): Promise<string> => {
    if (child.exitCode !== null || child.signalCode !== null) return `already exited (${describeExit(await exited)})`;
    child.kill('SIGTERM');
    const exit = await within(exited, EXIT_TIMEOUT_MS);
    if (exit) return exit.code === 0 || exit.signal === 'SIGTERM' ? '' : `exited with ${describeExit(exit)} on SIGTERM`;
    child.kill('SIGKILL');
    const killed = await within(exited, KILL_TIMEOUT_MS);
    return killed ? `needed SIGKILL after ${EXIT_TIMEOUT_MS} ms` : `still running ${KILL_TIMEOUT_MS} ms after SIGKILL (pid ${child.pid})`;
  };
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const stdout = child.stdout!;
    let buffered = '';
    const cleanup = () => {
      clearTimeout(timer);
      stdout.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      stdout.resume(); // keep draining
    };
    const onData = (chunk: string) => {
      buffered += chunk;
      const newline = buffered.indexOf('\n');
      if (newline === -1) return;
      cleanup();
      try {
        const parsed = JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>;
        if (parsed.event !== 'ready') throw new Error('not the ready line');
        resolve(parsed);
      } catch {
        reject(new Error(`${name}: the first line on stdout is not the ready line`));
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      cleanup();
      reject(new Error(`${name}: exited (${describeExit({ code, signal })}) before the ready line`));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new Error(`${name}: could not be spawned: ${error.message}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${name}: no ready line within ${READY_TIMEOUT_MS} ms`));
    }, READY_TIMEOUT_MS);
    stdout.setEncoding('utf8');
    stdout.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  }).catch(async (error: Error) => {
    await stop();
    const tail = logTail();
    throw new Error(`${error.message}${tail ? `\n--- stderr (tail) ---\n${tail}` : ''}`);
  });
  return { name, child, port: portOf(ready), ready, logTail, stop };
}

// ---- children that speak over IPC (fork) ----------------------------------------------------------

/** How long a forked child has to exit when asked, then on SIGTERM, then on SIGKILL. */
export const CHILD_STOP_TIMEOUT_MS = 10_000;

/** Resolves with the child's first message that `accept` takes; rejects if it exits, fails or takes too long. */
export function nextMessage<T>(child: ChildProcess, what: string, timeoutMs: number, accept: (message: unknown) => message is T): Promise<T> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    const onMessage = (message: unknown) => {
      if (!accept(message)) return;
      cleanup();
      resolve(message);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      cleanup();
      reject(new Error(`${what}: the child exited (${signal ?? `code ${code}`})`));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new Error(`${what}: ${error.message}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${what}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

/** `script` forked with `--role ROLE INPUT`; execArgv is given so that flags of the bench itself (e.g. --cpu-prof) never reach the child. */
export function forkScript(script: string, role: string, execArgv: string[] = [], input = ''): { child: ChildProcess; exited: Promise<void> } {
  const child = fork(script, ['--role', role, input], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return { child, exited };
}

/** Ends a child we started: asks (or not), then SIGTERM, then SIGKILL. */
export async function endChild(child: ChildProcess, exited: Promise<void>, ask?: () => void): Promise<void> {
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  if (gone()) return;
  const exit = exited.then(() => true);
  const exitsWithin = async (ms: number) => (await within(exit, ms)) === true;
  if (ask && child.connected) {
    ask();
    if (await exitsWithin(CHILD_STOP_TIMEOUT_MS)) return;
  }
  child.kill('SIGTERM');
  if (await exitsWithin(CHILD_STOP_TIMEOUT_MS)) return;
  child.kill('SIGKILL');
  await exitsWithin(CHILD_STOP_TIMEOUT_MS);
}

/**
 * `entry` bundled as the service ships (esbuild, no type stripping at run time), for an engine
 * process: its memory is then the service's, not that of Node's TypeScript loader. It goes under
 * the package folder, so that the folder (and its version) is found as the bundled command finds
 * it, but not into dist/, which a build running meanwhile replaces whole; its name holds this
 * process's id, so that two runs at once keep their own. The caller removes it.
 */
export async function bundleForService(entry: string, name: string, external: string[]): Promise<string> {
  const outfile = fileURLToPath(new URL(`../../node_modules/.cache/statusdesk-bench/${name}-${process.pid}.mjs`, import.meta.url));
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    logLevel: 'warning',
    external,
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  return outfile;
}

/** The live processes (zombies not counted) whose parent is `pid`, read from /proc (Linux; none elsewhere). */
export function childProcesses(pid: number): number[] {
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) === pid && state !== 'Z' && state !== 'X') found.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}
