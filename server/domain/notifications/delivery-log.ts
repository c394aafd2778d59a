import type { Kysely } from 'kysely';
import type { ChannelDeliveryTable, Database } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import type { ChannelTarget } from './channel-rules.ts';
import { type AlertEvent, eventNameOf } from './events.ts';

/**
 * A channel's delivery log: one entry per alert or test sent to it, with how it ended and what
 * the receiver answered. Bounded: each channel keeps its latest entries, older ones are deleted
 * as new ones are written. What the receiver answered is kept as its status and the start of its
 * body, on one line, with every credential of the channel (and each piece of a credential URL's
 * path and query, where webhook tokens live) replaced by `[redacted]`: a receiver that echoes its
 * request must not put the channel's secrets into a log any reader of the workspace can see.
 */

/** Entries kept per channel. */
export const DELIVERY_LOG_LIMIT = 100;
/** Characters of the receiver's answer kept. */
export const ANSWER_EXCERPT_LENGTH = 300;
const REDACTED = '[redacted]';

/** What a receiver answered over HTTP: its status and the start of its body. */
export interface ReceiverAnswer {
  status: number;
  body: string;
}

export type DeliveryResult = ChannelDeliveryTable['result'];

/** An entry of a channel's delivery log, as the surfaces show it. */
export interface ChannelDelivery {
  id: string;
  at: string;
  /** `monitor.down`, `monitor.recovered`, `monitor.degraded`, `monitor.tool_drift`, or `test`. */
  event: string;
  /** Null for a test send. */
  monitorId: string | null;
  /** The monitor's name when it was sent; a grouped alert names how many. */
  monitorName: string;
  result: DeliveryResult;
  /** The receiver's HTTP status; null when there was no HTTP answer (a refused connection, email, desktop). */
  statusCode: number | null;
  /** The start of the receiver's answer, sanitized; null without one. */
  response: string | null;
  error: string | null;
  attempts: number;
}

/** How one delivery went, as the alert path and the test send tell it. */
export interface DeliveryOutcome {
  /** Null: it went through. */
  error: string | null;
  /** The alert; absent: only the channel's health is recorded. */
  event?: AlertEvent;
  /** The channel's target: its credentials are what the answer is cleaned of. */
  target?: ChannelTarget;
  answer?: ReceiverAnswer;
  attempts?: number;
  /** Another attempt follows: the entry says `retrying`, and the channel's health waits for the end. */
  retrying?: boolean;
  /** The entry written by an earlier attempt of the same delivery, to update. */
  entryId?: number;
}

/** The answer a failed attempt carries (delivery/alert-delivery.ts attaches it), if any. */
export function answerOf(error: unknown): ReceiverAnswer | undefined {
  const answer = (error as { answer?: unknown } | null)?.answer as ReceiverAnswer | undefined;
  return answer && typeof answer.status === 'number' && typeof answer.body === 'string' ? answer : undefined;
}

/** The strings of a channel's credentials that must never show: each value, and the pieces of each URL that may be tokens. */
export function secretsOf(target: ChannelTarget | undefined): string[] {
  const found = new Set<string>();
  const walk = (value: unknown) => {
    if (typeof value === 'string') {
      if (value.length < 4) return;
      found.add(value);
      try {
        const url = new URL(value);
        for (const piece of url.pathname.split('/')) if (piece.length >= 6) found.add(decodeURIComponent(piece));
        for (const piece of url.searchParams.values()) if (piece.length >= 6) found.add(piece);
      } catch {
        // not a URL
      }
    } else if (value && typeof value === 'object') for (const inner of Object.values(value)) walk(inner);
  };
  walk(target?.credentials);
  // The longest first, so a value that contains another is redacted whole.
  return [...found].sort((a, b) => b.length - a.length);
}

/** `text` on one line, without the channel's secrets, at most `limit` characters. */
export function sanitized(text: string, secrets: readonly string[], limit = ANSWER_EXCERPT_LENGTH): string {
  let clean = text;
  for (const secret of secrets) clean = clean.split(secret).join(REDACTED);
  clean = clean.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return clean.length > limit ? `${clean.slice(0, limit - 1)}…` : clean;
}

/** The monitor an entry names: its id and name, or how many a grouped alert stands for. */
function monitorOf(event: AlertEvent): { id: string | null; name: string } {
  if (event.test) return { id: null, name: event.monitor.name };
  if (event.group && event.group.length > 1) return { id: event.monitor.id, name: `${event.monitor.name} and ${event.group.length - 1} more` };
  return { id: event.monitor.id, name: event.monitor.name };
}

/** Writes (or, for a later attempt, updates) the entry of a delivery, and keeps the channel's latest entries only. Returns the entry's id. */
export async function writeDeliveryEntry(
  db: Kysely<Database>,
  channelId: number,
  outcome: DeliveryOutcome & { event: AlertEvent },
  at: string,
): Promise<number | undefined> {
  const secrets = secretsOf(outcome.target);
  const monitor = monitorOf(outcome.event);
  const values = {
    at,
    event: eventNameOf(outcome.event),
    monitor_id: monitor.id,
    monitor_name: sanitized(monitor.name, [], 200),
    result: (outcome.error === null ? 'delivered' : outcome.retrying ? 'retrying' : 'failed') as DeliveryResult,
    status_code: outcome.answer?.status ?? null,
    response: outcome.answer && outcome.answer.body.trim() !== '' ? sanitized(outcome.answer.body, secrets) : null,
    error: outcome.error === null ? null : sanitized(outcome.error, secrets, 500),
    attempts: outcome.attempts ?? 1,
  };
  return writeTransaction(db, async (trx) => {
    const channel = await trx.selectFrom('notification_channels').select('id').where('id', '=', channelId).executeTakeFirst();
    if (!channel) return undefined; // deleted meanwhile
    if (outcome.entryId !== undefined) {
      const updated = await trx
        .updateTable('channel_deliveries')
        .set(values)
        .where('id', '=', outcome.entryId)
        .where('channel_id', '=', channelId)
        .executeTakeFirst();
      if (updated.numUpdatedRows > 0n) return outcome.entryId;
    }
    const { id } = await trx
      .insertInto('channel_deliveries')
      .values({ channel_id: channelId, ...values })
      .returning('id')
      .executeTakeFirstOrThrow();
    // Pruned on write: the entries beyond the latest DELIVERY_LOG_LIMIT of this channel.
    const oldestKept = await trx
      .selectFrom('channel_deliveries')
      .select('id')
      .where('channel_id', '=', channelId)
      .orderBy('id', 'desc')
      .offset(DELIVERY_LOG_LIMIT - 1)
      .limit(1)
      .executeTakeFirst();
    if (oldestKept) await trx.deleteFrom('channel_deliveries').where('channel_id', '=', channelId).where('id', '<', oldestKept.id).execute();
    return Number(id);
  });
}

/** A page of a channel's entries, newest first, with the total kept. */
export async function listDeliveryEntries(db: Kysely<Database>, channelId: number, limit: number, offset: number) {
  const select = db.selectFrom('channel_deliveries').where('channel_id', '=', channelId);
  const [{ total }, rows] = await Promise.all([
    select.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    select.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
  ]);
  return {
    total: Number(total),
    deliveries: rows.map(
      (row): ChannelDelivery => ({
        id: String(row.id),
        at: row.at,
        event: row.event,
        monitorId: row.monitor_id,
        monitorName: row.monitor_name,
        result: row.result,
        statusCode: row.status_code === null ? null : Number(row.status_code),
        response: row.response,
        error: row.error,
        attempts: Number(row.attempts),
      }),
    ),
  };
}
