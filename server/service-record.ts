import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import envPaths from 'env-paths';
import { AppError } from './errors.ts';

/**
 * Where a running service says it runs, so the command finds it without being told: one small
 * JSON file per data folder in the user's state folder, written when the service is ready and
 * removed when it stops cleanly. A record whose process is gone (the service crashed) is ignored.
 */

export interface ServiceRecord {
  /** The data folder, absolute. */
  dataDir: string;
  apiUrl: string;
  dashboardUrl: string;
  pid: number;
  version: string;
  /** The PostgreSQL database it keeps its data in, as `describePostgres` names it; absent: the data folder's SQLite file. */
  database?: string;
}

/** The folder of the records: STATUSDESK_STATE_DIR, else `services` in the platform's config folder (`~/.config/statusdesk/services` on Linux). */
export function recordsFolder(env: NodeJS.ProcessEnv = process.env): string {
  return env.STATUSDESK_STATE_DIR || join(envPaths('statusdesk', { suffix: '' }).config, 'services');
}

const fileOf = (folder: string, dataDir: string) => join(folder, `${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}.json`);

/**
 * Records this process as the service of `record.dataDir`; `remove` deletes the record, unless
 * another service of the same folder has replaced it since.
 */
export function recordService(record: Omit<ServiceRecord, 'pid'>, env: NodeJS.ProcessEnv = process.env): { remove(): void } {
  const folder = recordsFolder(env);
  const full: ServiceRecord = { ...record, dataDir: resolve(record.dataDir), pid: process.pid };
  const text = `${JSON.stringify(full, null, 2)}\n`;
  const file = fileOf(folder, full.dataDir);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  // Written whole, then renamed: a command reading meanwhile never sees half a record.
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o600 });
  renameSync(temp, file);
  return {
    remove() {
      try {
        if (readFileSync(file, 'utf8') === text) unlinkSync(file);
      } catch {
        // Already gone.
      }
    },
  };
}

/** Whether a process of that id runs (one of another user's counts: it cannot be signalled, but it is there). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readRecord(path: string): ServiceRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as ServiceRecord;
    return Number.isInteger(record.pid) && typeof record.dataDir === 'string' && typeof record.apiUrl === 'string' ? record : undefined;
  } catch {
    return undefined; // gone meanwhile, or not a record
  }
}

/** The services running on this machine for this user, by their records. */
export function liveServices(env: NodeJS.ProcessEnv = process.env): ServiceRecord[] {
  const folder = recordsFolder(env);
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  return names.flatMap((name) => readRecord(join(folder, name)) ?? []).filter((record) => isAlive(record.pid));
}

/**
 * The one running service, or undefined when none runs; several are a question only the user can
 * answer, with `flag` (`--data-dir`, `--api-url`).
 */
export function runningService(flag: string, env: NodeJS.ProcessEnv = process.env): ServiceRecord | undefined {
  const live = liveServices(env);
  if (live.length > 1) {
    const list = live.map((s) => `${s.apiUrl} (data folder ${s.dataDir})`).join(', ');
    throw new AppError('CONFLICT', `several Statusdesk services are running: ${list}; say which with ${flag}`);
  }
  return live[0];
}
