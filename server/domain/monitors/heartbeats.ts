import type { Kysely } from 'kysely';
import { z } from 'zod';
import { HEARTBEAT_LIMITS } from '../../../contract/limits.ts';
import type { Database, HeartbeatPingRow } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { recordAudit } from '../audit/audit.ts';
import { hashSecret } from '../secrets.ts';
import { builtOnFirstUse, parseId, parseInput } from '../validation.ts';
import type { HeartbeatPingKind, MonitorChecks } from './check-results.ts';
import { latestPings, monitorOfToken, recordPing, replaceToken } from './heartbeat-repository.ts';
import { isPingToken, newPingToken } from './heartbeat-tokens.ts';
import { findMonitorRow } from './monitor-repository.ts';

/**
 * Heartbeat monitors' pings and tokens (types/heartbeat.ts). A ping comes with a token and no
 * other credential (rest/heartbeat-pings.ts); it is kept with the latest of its monitor, changes
 * the monitor's state (the row the check engine evaluates its deadline from), and is announced to
 * the engine, which records it as a check result. The token is made on create (monitors.ts) and on
 * rotation, answered once, stored as its SHA-256 only, and never audited.
 */

/** One ping as its monitor keeps it. */
export interface HeartbeatPing {
  kind: HeartbeatPingKind;
  exitStatus: number | null;
  body: string;
  receivedAt: string;
  runTimeMs: number | null;
  method: string;
  address: string;
  userAgent: string;
}

/** A ping as the edge received it. */
export interface ReceivedPing {
  kind: HeartbeatPingKind;
  /** 0 to 255 when the path gave one: 0 is a success, any other a failure. */
  exitStatus: number | null;
  /** What was posted, at most HEARTBEAT_LIMITS.bodyBytes (the edge refuses more). */
  body: Uint8Array;
  method: string;
  address: string;
  userAgent: string;
}

const MAX_USER_AGENT = 256;
/** How much of a failure's body its message quotes. */
const FAILURE_QUOTE = 200;
const DEFAULT_PINGS = 20;

const pingsInput = builtOnFirstUse(() =>
  z.strictObject({
    limit: z
      .number()
      .int()
      .min(1, `must be 1 to ${HEARTBEAT_LIMITS.pingsKept}`)
      .max(HEARTBEAT_LIMITS.pingsKept, `must be 1 to ${HEARTBEAT_LIMITS.pingsKept}`)
      .default(DEFAULT_PINGS),
  }),
);

/** The start of a body as one line, for a failure's message. */
function quoteOf(body: string): string {
  const line = body.replace(/\s+/g, ' ').trim();
  return line.length > FAILURE_QUOTE ? `${line.slice(0, FAILURE_QUOTE)}…` : line;
}

/** A failure's message while it stands: its exit status, and the start of what it posted. */
export function failureOf(exitStatus: number | null, body: string): string {
  const quote = quoteOf(body);
  const said = exitStatus === null ? 'reported a failure' : `failed with exit status ${exitStatus}`;
  return quote ? `${said}: ${quote}` : said;
}

const toPing = (row: HeartbeatPingRow): HeartbeatPing => ({
  kind: row.kind,
  exitStatus: row.exit_status,
  body: row.body,
  receivedAt: new Date(row.received_at).toISOString(),
  runTimeMs: row.run_time_ms,
  method: row.method,
  address: row.address,
  userAgent: row.user_agent,
});

export interface HeartbeatServiceOptions {
  /** Told of each ping once it is stored (the check engine). */
  checks: Pick<MonitorChecks, 'heartbeatPinged'>;
  /** The API's address, which ping URLs start with (OAUTH_ISSUER, or http://localhost:<port>). */
  apiUrl: string;
  /** The check engine's clock: pings and deadlines are measured on the same one. */
  now?: () => number;
  /**
   * Where pings are written: the check engine's own writes (its writer's connection on SQLite,
   * so a ping never waits on the service's thread for the write lock that storing results
   * holds); by default the service's database.
   */
  writes?: Kysely<Database>;
}

export function createHeartbeatService(db: Kysely<Database>, options: HeartbeatServiceOptions) {
  const now = options.now ?? Date.now;
  const writes = options.writes ?? db;
  const pingUrlOf = (token: string) => `${options.apiUrl}/ping/${token}`;

  /** The heartbeat monitor `id` of the workspace; NOT_FOUND, or VALIDATION for a monitor of another type. */
  async function heartbeatMonitor(q: Kysely<Database>, workspaceId: number, id: string) {
    const row = await findMonitorRow(q, workspaceId, parseId('id', 'monitor', id));
    if (!row) throw notFound('monitor', id);
    if (row.type !== 'heartbeat') {
      const rule = `monitor ${id} is a ${row.type} monitor: only heartbeat monitors have a ping URL`;
      throw new AppError('VALIDATION', `id: ${rule}`, [{ field: 'id', rule }]);
    }
    return row;
  }

  return {
    pingUrlOf,
    /** The clock pings are timed on (the check engine's); the edge's rate limit of pings reads it too. */
    now,

    /**
     * The monitor a token names, or undefined: for a token of the wrong form, an unknown one, or
     * one rotated away alike (the edge answers all of them the same 404). A token of the wrong
     * form is not looked up.
     */
    async monitorOfToken(token: string): Promise<{ monitorId: number } | undefined> {
      if (!isPingToken(token)) return undefined;
      const found = await monitorOfToken(db, hashSecret(token));
      return found && { monitorId: found.id };
    },

    /**
     * Keeps a ping of monitor `monitorId` (found by its token just before), with the latest of
     * its monitor, and changes its state (heartbeat-repository.ts: recordPing); an active
     * monitor's engine records it. A monitor deleted in between keeps nothing.
     */
    async receive(monitorId: number, ping: ReceivedPing): Promise<void> {
      const body = new TextDecoder().decode(ping.body);
      await recordPing(
        writes,
        {
          monitor_id: monitorId,
          kind: ping.kind,
          exit_status: ping.exitStatus,
          body,
          received_at: now(),
          method: ping.method,
          address: ping.address,
          user_agent: ping.userAgent.slice(0, MAX_USER_AGENT),
        },
        ping.kind === 'fail' ? failureOf(ping.exitStatus, body) : null,
        HEARTBEAT_LIMITS.pingsKept,
      );
      // A paused monitor keeps its pings, and records no result until it is resumed.
      const monitor = await db.selectFrom('monitors').select('active').where('id', '=', monitorId).executeTakeFirst();
      if (monitor?.active === 1) options.checks.heartbeatPinged(String(monitorId));
    },

    /**
     * Gives the monitor a new token and answers its ping URL, the once it is shown: the old token
     * names nothing from the commit on. The audit log records the rotation and its time, never a token.
     */
    async rotateToken(actor: Actor, workspaceId: number, id: string): Promise<{ pingUrl: string }> {
      await authorize(db, actor, workspaceId, 'write');
      const token = newPingToken();
      await writeTransaction(db, async (trx) => {
        const monitor = await heartbeatMonitor(trx, workspaceId, id);
        const before = await trx.selectFrom('heartbeats').select('token_issued_at').where('monitor_id', '=', monitor.id).executeTakeFirstOrThrow();
        const at = new Date().toISOString();
        await replaceToken(trx, monitor.id, hashSecret(token), at);
        await recordAudit(trx, {
          workspaceId,
          entityType: 'monitor',
          entityId: String(monitor.id),
          action: 'monitor.rotate_ping_token',
          actor,
          before: { name: monitor.name, pingTokenIssuedAt: before.token_issued_at },
          after: { name: monitor.name, pingTokenIssuedAt: at },
        });
      });
      return { pingUrl: pingUrlOf(token) };
    },

    /** The monitor's latest pings, newest first (`limit` 1 to 100, default 20). */
    async pings(actor: Actor, workspaceId: number, id: string, query: { limit?: number } = {}): Promise<HeartbeatPing[]> {
      await authorize(db, actor, workspaceId, 'read');
      const { limit } = parseInput(pingsInput(), query);
      const monitor = await heartbeatMonitor(db, workspaceId, id);
      return (await latestPings(db, monitor.id, limit)).map(toPing);
    },
  };
}

export type HeartbeatService = ReturnType<typeof createHeartbeatService>;
