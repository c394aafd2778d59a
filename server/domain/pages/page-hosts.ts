import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { customDomainRows } from './page-repository.ts';

/** How often the names are read again, for the changes another process sharing the database made. */
const REFRESH_MS = 30_000;

/**
 * The custom domains of the status pages, by host name: the HTTP edge asks on every request whose
 * Host is none of the service's own, so the answer is a map in memory, read again after every
 * change made here (the page service awaits it) and every 30 s.
 */
export function createPageHosts(db: Kysely<Database>) {
  let slugs = new Map<string, string>();
  let timer: NodeJS.Timeout | undefined;

  async function refresh(): Promise<void> {
    const rows = await customDomainRows(db);
    slugs = new Map(rows.map((row) => [row.custom_domain, row.slug]));
  }

  return {
    refresh,
    /** Reads the names, then keeps them current until `stop`. */
    async start(onError: (error: unknown) => void): Promise<void> {
      await refresh();
      timer ??= setInterval(() => refresh().catch(onError), REFRESH_MS);
      timer.unref();
    },
    stop(): void {
      clearInterval(timer);
      timer = undefined;
    },
    /** The slug of the page whose custom domain is `hostname` (lower-case, without a port), or undefined. */
    slugOf(hostname: string): string | undefined {
      return slugs.get(hostname);
    },
  };
}

export type PageHosts = ReturnType<typeof createPageHosts>;
