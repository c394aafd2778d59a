import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A stand-in for the system's ping, for what loopback cannot give without privileges (lost
 * packets, slow answers, a ping that may not send or that hangs): a folder holding a `ping` shell
 * script that records its arguments and process id and prints a recorded output. A check is
 * pointed at the folder as its search path (probePing's `path`, or usePingSearchPath for the
 * whole service). POSIX only.
 */
export interface FakePing {
  /** The folder, to search for ping in. */
  path: string;
  /** The arguments of the last run, one per line as given; undefined before any run. */
  args(): Promise<string[] | undefined>;
  /** The process id of the last run. */
  pid(): Promise<number>;
  remove(): Promise<void>;
}

/** A fake ping printing `output`; with `hang`, it then waits (as sleep, under the same process id) to be ended. */
export async function fakePing(output: string, { hang = false } = {}): Promise<FakePing> {
  const path = await mkdtemp(join(tmpdir(), 'fake-ping-'));
  const out = join(path, 'output.txt');
  await writeFile(out, output);
  // Ping runs with none of the service's PATH: every program by its full path.
  const script = [
    '#!/bin/sh',
    `printf '%s\\n' "$@" > '${join(path, 'args')}'`,
    `echo $$ > '${join(path, 'pid')}'`,
    `/bin/cat '${out}'`,
    hang ? 'exec /bin/sleep 60' : 'exit 1',
    '',
  ].join('\n');
  await writeFile(join(path, 'ping'), script);
  await chmod(join(path, 'ping'), 0o755);
  return {
    path,
    args: () =>
      readFile(join(path, 'args'), 'utf8').then(
        (text) => text.trimEnd().split('\n'),
        () => undefined,
      ),
    pid: () => readFile(join(path, 'pid'), 'utf8').then((text) => Number(text.trim())),
    remove: () => rm(path, { recursive: true, force: true }),
  };
}

/** Whether a process of this id is still there. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
