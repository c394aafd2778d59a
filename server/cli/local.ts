import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { databaseSetting } from '../config.ts';
import { openDatabaseOf } from '../db/connect.ts';
import { DATABASE_FILE, resolveDataDir } from '../db/open.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError } from '../errors.ts';
import { liveServices, runningService, type ServiceRecord } from '../service-record.ts';
import { createServices, type ServiceOptions, type Services } from '../services.ts';
import { ensureOwner } from '../domain/users/users.ts';
import { note } from './flags.ts';

/** The data folder a local command works on, its PostgreSQL database if it keeps its data in one, and the service running on it, if one is. */
export interface LocalFolder {
  dataDir: string;
  database?: string;
  service?: ServiceRecord;
}

/**
 * The data folder of the owner's local tools: `--data-dir`, else STATUSDESK_DATA_DIR, else the
 * running service's, else the platform's. The database is STATUSDESK_DATABASE_URL's, as for
 * `serve`, else the folder's SQLite file; a service of the folder that runs on PostgreSQL while
 * the variable is unset is named in a refusal, never passed over for the file. A folder found
 * rather than given is named on stderr and must hold a database already: a new one is made only
 * in a folder given, so a command never starts a second, empty Statusdesk beside the one in use.
 */
export function localFolder(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): LocalFolder {
  const database = databaseSetting(env);
  const given = flag || env.STATUSDESK_DATA_DIR;
  const service = given ? liveServices(env).find((s) => s.dataDir === resolve(given)) : runningService('--data-dir', env);
  if (service?.database && !database) {
    throw new AppError(
      'PRECONDITION_FAILED',
      `the service at ${service.apiUrl} keeps its data in the ${service.database}: set STATUSDESK_DATABASE_URL to its URL, as for statusdesk serve`,
    );
  }
  if (given) return { dataDir: resolve(given), database, service };
  const dataDir = service?.dataDir ?? resolveDataDir(undefined, {});
  if (!database && !existsSync(join(dataDir, DATABASE_FILE))) {
    throw new AppError(
      'NOT_FOUND',
      `no Statusdesk database in ${dataDir}, and no service is running: start one with statusdesk serve [--data-dir FOLDER], or pass --data-dir FOLDER (a new folder gets a new database)`,
    );
  }
  note(service ? `data folder: ${dataDir} (of the service at ${service.apiUrl})` : `data folder: ${dataDir}`);
  return { dataDir, database, service };
}

/**
 * Runs a command of the owner's local tools directly on the data folder (see `localFolder`): the
 * files are the owner's own, so the actor is the owner. `options` go to the services (e.g. the
 * public address of `pages export`).
 */
export async function withLocalOwner<T>(
  dataDir: string | undefined,
  run: (services: Services, owner: Actor, folder: LocalFolder) => Promise<T>,
  options: ServiceOptions = {},
): Promise<T> {
  const folder = localFolder(dataDir);
  const db = await openDatabaseOf(folder.dataDir, folder.database);
  try {
    const userId = await ensureOwner(db);
    return await run(createServices(db, options), { type: 'user', userId, surface: 'cli' }, folder);
  } finally {
    await db.destroy();
  }
}
