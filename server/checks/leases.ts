import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { isPostgres } from '../db/engine.ts';
import type { Db } from '../db/open.ts';

/**
 * Which service process checks which monitors, when several share one database (PostgreSQL):
 * the monitors are spread over 64 shards (`id % 64`, rows of `check_leases`), and each process
 * leases a fair share of them (the shards over the processes that check, each of which says it
 * lives in `check_lease_holders`), so each monitor is checked by one process per period. Every
 * third of the lease time a process renews what it holds, takes free or expired shards up to its
 * share and gives back what exceeds it (a process that joined takes it); a killed process's shards are
 * taken by the others within one lease time and one renewal round after its last renewal. A shard not renewed in time is dropped here at once,
 * before any other process may take it: the lease runs from before the renewal was sent, by this
 * process's own monotonic clock, and expires in the database after that, by the database's clock.
 * On SQLite the one process takes every shard through the same statements.
 *
 * One more row, the upkeep, names the process that does what must happen once per instance
 * (pruning results, releasing held alerts, recording the embedded runner's gaps); a process that
 * schedules no checks still takes it when it is free.
 */

export const SHARDS = 64;
/** The row of the upkeep, after the shards. */
const UPKEEP = SHARDS;
export const DEFAULT_LEASE_MS = 30_000;

export const shardOf = (monitorId: number) => monitorId % SHARDS;

export interface LeaseOptions {
  log: Logger;
  leaseMs?: number;
  /** Whether this process takes shards (it schedules checks); without, only the upkeep. */
  shards: boolean;
  /** The shards held changed: dropped (at once) or taken. */
  onChange(): void;
}

export function createLeases(db: Db, options: LeaseOptions) {
  const { log } = options;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const holder = randomUUID();
  /** The database's clock in epoch ms on PostgreSQL, whose processes may run on machines whose clocks differ; SQLite has one process. */
  const dbNow = isPostgres(db) ? () => sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint` : () => sql<number>`${Date.now()}`;
  const expiry = () => sql<number>`${dbNow()} + ${leaseMs}`;
  const free = () => sql<boolean>`(holder is null or expires_at <= ${dbNow()})`;
  /** PostgreSQL's processes taking shards at once pass over the rows another is taking. */
  const skipLocked = isPostgres(db);
  let held = new Set<number>();
  let expiring: NodeJS.Timeout | undefined;
  let renewing: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();

  const shardsIn = (rows: { shard: number }[]) => rows.map((r) => Number(r.shard));

  /** Renews what this process holds in the database (shards and upkeep); returns them. */
  async function renew(): Promise<number[]> {
    return shardsIn(await db.updateTable('check_leases').set({ expires_at: expiry() }).where('holder', '=', holder).returning('shard').execute());
  }

  /** Takes the upkeep when no live process holds it. */
  async function takeUpkeep(): Promise<number[]> {
    return shardsIn(
      await db.updateTable('check_leases').set({ holder, expires_at: expiry() }).where('shard', '=', UPKEEP).where(free()).returning('shard').execute(),
    );
  }

  /** Takes up to `count` free or expired shards: concurrent takers skip the rows another is taking. */
  async function take(count: number): Promise<number[]> {
    const rows = await db
      .updateTable('check_leases')
      .set({ holder, expires_at: expiry() })
      .where('shard', 'in', (eb) =>
        eb
          .selectFrom('check_leases')
          .select('shard')
          .where('shard', '<', SHARDS)
          .where(free())
          .orderBy('shard')
          .limit(count)
          .$if(skipLocked, (q) => q.forUpdate().skipLocked()),
      )
      .returning('shard')
      .execute();
    return shardsIn(rows);
  }

  /** Says this process lives, forgets those that stopped saying so, and returns this process's share of the shards. */
  async function share(): Promise<number> {
    if (!options.shards) return 0;
    await db
      .insertInto('check_lease_holders')
      .values({ holder, expires_at: expiry() })
      .onConflict((oc) => oc.column('holder').doUpdateSet({ expires_at: expiry() }))
      .execute();
    await db.deleteFrom('check_lease_holders').where('expires_at', '<=', dbNow()).execute();
    const row = await db
      .selectFrom('check_lease_holders')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Math.ceil(SHARDS / Math.max(1, Number(row.n)));
  }

  async function release(shards: number[]): Promise<void> {
    if (shards.length === 0) return;
    await db.updateTable('check_leases').set({ holder: null, expires_at: 0 }).where('holder', '=', holder).where('shard', 'in', shards).execute();
  }

  /** Holds `shards` until `until` (monotonic ms): dropped at once then unless renewed. */
  function hold(shards: Iterable<number>, until: number): void {
    const next = new Set(shards);
    const changed = next.size !== held.size || [...next].some((s) => !held.has(s));
    held = next;
    clearTimeout(expiring);
    expiring = setTimeout(expire, Math.max(0, until - performance.now()));
    if (changed) options.onChange();
  }

  function expire(): void {
    if (held.size === 0) return;
    log.warn({ shards: held.size }, "the lease on this process's share of the monitors ran out before it was renewed: its checks stop until it is");
    held = new Set();
    options.onChange();
  }

  async function renewAndBalance(): Promise<void> {
    const sentAt = performance.now();
    const mine = await renew();
    if (!mine.includes(UPKEEP)) mine.push(...(await takeUpkeep()));
    const shards = mine.filter((s) => s !== UPKEEP);
    const fair = await share();
    if (shards.length > fair) {
      // The highest go back: dropped here before they are freed, so no other process checks them while this one does.
      const surplus = shards.sort((a, b) => a - b).splice(fair);
      hold(
        mine.filter((s) => !surplus.includes(s)),
        sentAt + leaseMs,
      );
      await release(surplus);
      return;
    }
    if (shards.length < fair) mine.push(...(await take(fair - shards.length)));
    hold(mine, sentAt + leaseMs);
  }

  function next(): Promise<void> {
    round = round.then(renewAndBalance).catch((error: unknown) => log.error({ err: error }, 'renewing the leases on monitors failed'));
    return round;
  }

  return {
    /** Whether this process checks the monitor of that id. */
    holds(monitorId: number): boolean {
      return held.has(shardOf(monitorId));
    },

    /** Whether this process does the instance's upkeep. */
    get upkeep(): boolean {
      return held.has(UPKEEP);
    },

    /** Takes this process's share now, then renews and balances every third of the lease time. */
    async start(): Promise<void> {
      await next();
      renewing = setInterval(() => void next(), leaseMs / 3);
    },

    /** Gives every lease back, for the other processes to take at once. */
    async close(): Promise<void> {
      clearInterval(renewing);
      await round;
      clearTimeout(expiring);
      held = new Set();
      await db.updateTable('check_leases').set({ holder: null, expires_at: 0 }).where('holder', '=', holder).execute();
      await db.deleteFrom('check_lease_holders').where('holder', '=', holder).execute();
    },
  };
}

export type Leases = ReturnType<typeof createLeases>;
