import { withoutPostgres } from './postgres.ts';

/**
 * The global setup of `npm run test:postgres` (node --test-global-setup), run once before the
 * files: without PostgreSQL's binaries it says so in one line and the run is the SQLite run.
 */
export function globalSetup(): void {
  if (!withoutPostgres) return;
  process.stderr.write(`STATUSDESK_TEST_DATABASE=postgres: ${withoutPostgres}; the suite runs on SQLite\n`);
  delete process.env.STATUSDESK_TEST_DATABASE;
}
