import { execFile, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';

/** The folder holding the distribution's initdb and postgres: the newest under /usr/lib/postgresql, then PATH. */
function findServerBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const folders = [...versions.map((v) => join(root, v, 'bin')), ...(process.env.PATH ?? '').split(delimiter).filter(Boolean)];
  return folders.find((folder) => existsSync(join(folder, 'initdb')) && existsSync(join(folder, 'postgres')));
}

const BIN = findServerBinaries();

/** For node:test's `skip`: the one line saying why PostgreSQL tests do not run, or false when they do. */
export const withoutPostgres: string | false = BIN
  ? false
  : 'PostgreSQL is not installed (no initdb and postgres under /usr/lib/postgresql/*/bin or on PATH): its tests are skipped';

/**
 * PostgreSQL refuses to run as root. As root (CI, containers) the server runs as `nobody`, which
 * owns the temporary folder; as anyone else it runs as the current user.
 */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('nobody:'));
  if (!line) throw new Error('running as root, PostgreSQL needs an unprivileged user to run as, and there is no user nobody');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

const ADMIN = 'statusdesk';
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

export interface TestPostgres {
  /** The temporary folder of its data and socket. */
  folder: string;
  /** A new, empty database on this server: its URL. */
  createDatabase(): Promise<string>;
  /** Lets the test process end while the server runs (stopping it holds the process again). */
  release(): void;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/**
 * A PostgreSQL server of its own in a temporary folder, on 127.0.0.1 and a free port, with its
 * socket in that folder. Durability is off (it is thrown away). Stopped at the end of the test
 * process at the latest.
 */
export async function startPostgres(): Promise<TestPostgres> {
  if (!BIN) throw new Error(withoutPostgres as string);
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'statusdesk-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  try {
    await promisify(execFile)(join(BIN, 'initdb'), ['-D', data, '-U', ADMIN, '--auth=trust', '--no-sync', '--encoding=UTF8', '--no-locale'], {
      ...user,
      cwd: dir,
      timeout: START_TIMEOUT_MS,
    });
  } catch (error) {
    removeDir();
    throw new Error(`initdb failed: ${(error as { stderr?: string }).stderr || (error as Error).message}`);
  }

  const port = await freePort();
  const server = spawn(
    join(BIN, 'postgres'),
    ['-D', data, '-h', '127.0.0.1', '-p', String(port), '-k', dir, '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    { ...user, cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  server.stderr.setEncoding('utf8').on('data', (chunk: string) => (log = (log + chunk).slice(-4000)));
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  let running = true;
  void exited.then(() => (running = false));
  const killNow = () => {
    server.kill('SIGKILL');
    removeDir();
  };
  process.once('exit', killNow);

  const urlOf = (database: string) => `postgres://${ADMIN}@127.0.0.1:${port}/${database}`;
  const stop = async () => {
    process.off('exit', killNow);
    server.ref();
    if (running) {
      server.kill('SIGINT'); // fast shutdown: ends sessions, no checkpoint wait
      await Promise.race([exited, sleep(STOP_TIMEOUT_MS, undefined, { ref: false })]);
      if (running) {
        server.kill('SIGKILL');
        await exited;
      }
    }
    removeDir();
  };

  try {
    await (
      await connectWhenReady(
        urlOf('postgres'),
        () => running,
        () => log,
      )
    ).end();
  } catch (error) {
    await stop();
    throw error;
  }
  let made = 0;
  return {
    folder: dir,
    async createDatabase() {
      const name = `test_${++made}`;
      const admin = new pg.Client({ connectionString: urlOf('postgres') });
      await admin.connect();
      try {
        await admin.query(`create database ${name}`);
      } finally {
        await admin.end();
      }
      return urlOf(name);
    },
    release() {
      server.unref();
      (server.stderr as Socket).unref();
    },
    stop,
  };
}

/** A connection, once the server accepts them; or the server's log when it stops or takes too long. */
async function connectWhenReady(url: string, running: () => boolean, log: () => string): Promise<pg.Client> {
  const giveUpAt = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (!running()) throw new Error(`PostgreSQL stopped while starting:\n${log()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      return client;
    } catch {
      if (Date.now() > giveUpAt) throw new Error(`PostgreSQL did not accept connections within ${START_TIMEOUT_MS} ms:\n${log()}`);
      await sleep(50);
    }
  }
}

/** A port free on 127.0.0.1 now (the server binds it right after). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

let shared: Promise<TestPostgres> | undefined;

/**
 * The one server of this test process, started by the first call. It does not keep the process
 * alive: once the tests are done and the event loop is empty it is stopped (killed at exit at the
 * latest), so a test file needs no hook of its own.
 */
export function sharedPostgres(): Promise<TestPostgres> {
  shared ??= startPostgres().then((server) => {
    server.release();
    process.once('beforeExit', () => void server.stop());
    return server;
  });
  return shared;
}
