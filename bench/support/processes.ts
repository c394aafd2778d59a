import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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
