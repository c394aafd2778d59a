import { type Kysely, sql } from 'kysely';
import type { Database, HeartbeatPingRow, HeartbeatRow } from '../../db/schema.ts';

/** A heartbeat monitor's state as its pings left it: its row without the token's hash. */
export type HeartbeatState = Omit<HeartbeatRow, 'token_hash' | 'token_issued_at'>;
export type NewPing = Omit<HeartbeatPingRow, 'id'>;

const STATE_COLUMNS = [
  'monitor_id',
  'last_ping_at',
  'last_ping_kind',
  'last_exit_status',
  'last_success_at',
  'started_at',
  'failed_at',
  'failure',
  'last_run_ms',
] as const;

/** Gives a new heartbeat monitor its token's hash, with no ping yet. */
export async function insertHeartbeat(db: Kysely<Database>, monitorId: number, tokenHash: string, at: string): Promise<void> {
  await db.insertInto('heartbeats').values({ monitor_id: monitorId, token_hash: tokenHash, token_issued_at: at }).execute();
}

/** Replaces a monitor's token's hash: the old token names nothing from the commit on. */
export async function replaceToken(db: Kysely<Database>, monitorId: number, tokenHash: string, at: string): Promise<void> {
  await db.updateTable('heartbeats').set({ token_hash: tokenHash, token_issued_at: at }).where('monitor_id', '=', monitorId).execute();
}

/** The monitor a token's hash names, with its workspace and whether it is active; undefined when none. */
export async function monitorOfToken(db: Kysely<Database>, tokenHash: string) {
  return db
    .selectFrom('heartbeats as h')
    .innerJoin('monitors as m', 'm.id', 'h.monitor_id')
    .select(['m.id', 'm.workspace_id', 'm.active'])
    .where('h.token_hash', '=', tokenHash)
    .where('m.type', '=', 'heartbeat')
    .executeTakeFirst();
}

/** The state and the monitor's creation (its first ping is expected from then), as the check engine evaluates them. */
export async function findHeartbeatFacts(db: Kysely<Database>, monitorId: number): Promise<(HeartbeatState & { created_at: string }) | undefined> {
  return db
    .selectFrom('heartbeats as h')
    .innerJoin('monitors as m', 'm.id', 'h.monitor_id')
    .select([...STATE_COLUMNS.map((column) => `h.${column}` as const), 'm.created_at'])
    .where('h.monitor_id', '=', monitorId)
    .executeTakeFirst();
}

/**
 * What a ping at `at` makes of its monitor's state, and keeps of it, as three single statements
 * (each atomic; no transaction), so that they can run on a connection of their own (the check
 * engine's writer's, on SQLite: a ping then never holds up the service's thread waiting for the
 * write lock). The ping is kept with the run time from a start not yet ended; the state takes the
 * latest ping, a start begins a run, a success or a failure ends it (measured as the ping was), a
 * success clears a failure, and a failure stands, with its message, until the next success.
 * Older pings than the newest `kept` are dropped. A monitor deleted meanwhile keeps nothing.
 * Portable SQL: the update's right-hand sides read the row as it was.
 */
export async function recordPing(db: Kysely<Database>, ping: Omit<NewPing, 'run_time_ms'>, failure: string | null, kept: number): Promise<void> {
  const { monitor_id: monitorId, kind, received_at: at } = ping;
  // Typed, so that PostgreSQL knows the type of each value of the select (SQLite takes the names too).
  const text = (value: string) => sql<string>`cast(${value} as text)`;
  const whole = (value: number | null) => sql<number | null>`cast(${value} as bigint)`;
  const ends = sql.lit(kind === 'start' ? 0 : 1);
  await db
    .insertInto('heartbeat_pings')
    .columns(['monitor_id', 'kind', 'exit_status', 'body', 'received_at', 'run_time_ms', 'method', 'address', 'user_agent'])
    .expression(
      db
        .selectFrom('heartbeats')
        .select([
          sql.lit(monitorId).as('monitor_id'),
          text(kind).as('kind'),
          whole(ping.exit_status).as('exit_status'),
          text(ping.body).as('body'),
          whole(at).as('received_at'),
          sql<number | null>`case when ${ends} = 1 and started_at is not null and started_at <= ${whole(at)} then ${whole(at)} - started_at end`.as(
            'run_time_ms',
          ),
          text(ping.method).as('method'),
          text(ping.address).as('address'),
          text(ping.user_agent).as('user_agent'),
        ])
        .where('monitor_id', '=', monitorId),
    )
    .execute();
  const runTime = sql<number | null>`case when started_at is not null and started_at <= ${whole(at)} then ${whole(at)} - started_at end`;
  const change =
    kind === 'start'
      ? { started_at: at }
      : kind === 'success'
        ? { last_run_ms: runTime, started_at: null, last_success_at: at, failed_at: null, failure: null }
        : { last_run_ms: runTime, started_at: null, failed_at: at, failure };
  await db
    .updateTable('heartbeats')
    .set({ last_ping_at: at, last_ping_kind: kind, last_exit_status: ping.exit_status, ...change })
    .where('monitor_id', '=', monitorId)
    .execute();
  await db
    .deleteFrom('heartbeat_pings')
    .where('monitor_id', '=', monitorId)
    .where('id', '<', (eb) =>
      eb
        .selectFrom((sub) => sub.selectFrom('heartbeat_pings').select('id').where('monitor_id', '=', monitorId).orderBy('id', 'desc').limit(kept).as('newest'))
        .select((sub) => sub.fn.min<number>('newest.id').as('cut')),
    )
    .execute();
}

/** A monitor's latest pings, newest first. */
export async function latestPings(db: Kysely<Database>, monitorId: number, limit: number): Promise<HeartbeatPingRow[]> {
  return db.selectFrom('heartbeat_pings').selectAll().where('monitor_id', '=', monitorId).orderBy('id', 'desc').limit(limit).execute();
}
