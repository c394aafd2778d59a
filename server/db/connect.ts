import { type Db, openDatabase } from './open.ts';

/**
 * The database of a service or of the owner's local tools: the PostgreSQL database at `url` when
 * one is given (its driver loaded only then), else the SQLite file of the data folder.
 */
export async function openDatabaseOf(dataDir: string, url: string | undefined): Promise<Db> {
  if (!url) return openDatabase(dataDir);
  const { openPostgres } = await import('./postgres.ts');
  return openPostgres(url, dataDir);
}
