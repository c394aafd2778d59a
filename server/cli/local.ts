import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DATABASE_FILE, openDatabase, resolveDataDir } from '../db/open.ts';
import type { Actor } from '../domain/actor.ts';
import { AppError } from '../errors.ts';
import { liveServices, runningService, type ServiceRecord } from '../service-record.ts';
import { createServices, type ServiceOptions, type Services } from '../services.ts';
import { ensureOwner } from '../domain/users/users.ts';
import { note } from './flags.ts';

/** The data folder a local command works on, and the service running on it, if one is. */
export interface LocalFolder {
  dataDir: string;
  service?: ServiceRecord;
}

/**
 * The data folder of the owner's local tools: `--data-dir`, else STATUSDESK_DATA_DIR, else the
 * running service's, else the platform's. A folder found rather than given is named on stderr and
 * must hold a database already: a new one is made only in a folder given, so a command never
 * starts a second, empty Statusdesk beside the one in use.
 */
export function localFolder(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): LocalFolder {
  const given = flag || env.STATUSDESK_DATA_DIR;
  if (given) {
    const dataDir = resolve(given);
    return { dataDir, service: liveServices(env).find((s) => s.dataDir === dataDir) };
  }
  const service = runningService('--data-dir', env);
  const dataDir = service?.dataDir ?? resolveDataDir(undefined, {});
  if (!existsSync(join(dataDir, DATABASE_FILE))) {
    throw new AppError(
      'NOT_FOUND',
      `no Statusdesk database in ${dataDir}, and no service is running: start one with statusdesk serve [--data-dir FOLDER], or pass --data-dir FOLDER (a new folder gets a new database)`,
    );
  }
  note(service ? `data folder: ${dataDir} (of the service at ${service.apiUrl})` : `data folder: ${dataDir}`);
  return { dataDir, service };
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
  const db = await openDatabase(folder.dataDir);
  try {
    const userId = await ensureOwner(db);
    return await run(createServices(db, options), { type: 'user', userId, surface: 'cli' }, folder);
  } finally {
    await db.destroy();
  }
}
