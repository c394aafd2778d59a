import { openDatabase, resolveDataDir } from '../db/open.ts';
import type { Actor } from '../domain/actor.ts';
import { createServices, type ServiceOptions, type Services } from '../services.ts';
import { ensureOwner } from '../domain/users/users.ts';

/**
 * Runs a command of the owner's local tools directly on the data folder: the files are the
 * owner's own, so the actor is the owner. `options` go to the services (e.g. the public address
 * of `pages export`).
 */
export async function withLocalOwner<T>(
  dataDir: string | undefined,
  run: (services: Services, owner: Actor) => Promise<T>,
  options: ServiceOptions = {},
): Promise<T> {
  const db = await openDatabase(resolveDataDir(dataDir));
  try {
    const userId = await ensureOwner(db);
    return await run(createServices(db, options), { type: 'user', userId, surface: 'cli' });
  } finally {
    await db.destroy();
  }
}
