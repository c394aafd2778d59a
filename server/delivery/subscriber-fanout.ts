import pino, { type Logger } from 'pino';
import { reasonOf } from '../domain/notifications/channels.ts';
import type { PageEvent } from '../domain/notifications/events.ts';
import type { DeliveryOutcome, Recipient, SubscriberAddress } from '../domain/notifications/subscribers.ts';

/** Deliveries of one dispatch in flight at once; the mail pool queues behind its own connections. */
const DISPATCH_CONCURRENCY = 16;
/**
 * How long a publishing call waits for its dispatch. The deliveries not over by then go on in the
 * background (each bounded by its own timeout) and record their outcome on the subscriber.
 */
export const DISPATCH_DEADLINE_MS = 30_000;
/** Delivery outcomes handed to the recorder at once. */
const RECORD_BATCH = 32;
/** The outcome recorded for a delivery not started because the service stopped. */
export const NOT_SENT_STOPPED = 'not sent: the service stopped before this delivery started';

export interface FanOutOptions {
  /** How long a dispatch waits for its deliveries; DISPATCH_DEADLINE_MS by default. */
  deadlineMs?: number;
  log?: Logger;
}

/** Runs `work` over `items`, at most `limit` at once; resolves when all have settled. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

/**
 * The fan-out of page events to subscribers: `send` tells one address; this tells them all, a
 * bounded number at once, within the dispatch deadline, and hands every outcome to the recorder
 * the domain gives. It knows nothing of the rules: who is told, and at which address, is decided
 * by the subscriber service (domain/notifications/subscribers.ts).
 */
export function createFanOut(send: (to: SubscriberAddress, event: PageEvent) => Promise<void>, options: FanOutOptions = {}) {
  const deadlineMs = options.deadlineMs ?? DISPATCH_DEADLINE_MS;
  const log = options.log ?? pino({ enabled: false });
  /** Dispatches still delivering, possibly past their call's deadline: closing waits for them. */
  const inFlight = new Set<Promise<unknown>>();
  let closing = false;

  /**
   * Delivers `event` to every recipient, DISPATCH_CONCURRENCY at once, and records each one's
   * outcome (in batches). `left` counts the deliveries not over yet. Never rejects. Once the
   * service is closing, deliveries not started are recorded as not sent instead.
   */
  function deliverAll(pageId: number, recipients: readonly Recipient[], event: PageEvent, record: (outcomes: DeliveryOutcome[]) => Promise<void>) {
    const progress = { left: recipients.length, failures: [] as string[] };
    const outcomes: DeliveryOutcome[] = [];
    let writing = Promise.resolve();
    const flush = () => {
      const batch = outcomes.splice(0);
      writing = writing.then(() => record(batch)).catch((error: unknown) => log.error({ err: error, pageId }, 'recording subscriber deliveries failed'));
      return writing;
    };
    const done = eachLimited(recipients, DISPATCH_CONCURRENCY, async (recipient) => {
      let error: string | null = closing ? NOT_SENT_STOPPED : null;
      if (error === null) {
        try {
          await send(recipient.address(), event);
        } catch (cause) {
          error = reasonOf(cause);
        }
      }
      progress.left--;
      if (error !== null) progress.failures.push(`subscriber ${recipient.id}: ${error}`);
      outcomes.push({ id: recipient.id, at: new Date().toISOString(), error });
      if (outcomes.length >= RECORD_BATCH) await flush();
    }).then(flush);
    return { progress, done };
  }

  return {
    /**
     * Tells every recipient of `event`, each attempted and its outcome handed to `record`. Waits
     * at most the dispatch deadline: throws when a delivery failed, or when some are not over by
     * then (those go on in the background, recorded as they end).
     */
    async fanOut(pageId: number, recipients: readonly Recipient[], event: PageEvent, record: (outcomes: DeliveryOutcome[]) => Promise<void>): Promise<void> {
      if (recipients.length === 0) return;
      const { progress, done } = deliverAll(pageId, recipients, event, record);
      const settled: Promise<unknown> = done.finally(() => inFlight.delete(settled));
      inFlight.add(settled);
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), deadlineMs)));
      const outcome = await Promise.race([done, deadline]).finally(() => clearTimeout(timer));
      if (outcome === 'deadline') {
        const { left } = progress;
        void done.then(() =>
          log.info({ pageId, subscribers: recipients.length, failed: progress.failures.length }, 'subscriber deliveries past the deadline are over'),
        );
        throw new Error(
          `${left} of ${recipients.length} subscriber deliveries were not over after ${deadlineMs} ms; they go on in the background and each subscriber's outcome is recorded`,
        );
      }
      const { failures } = progress;
      if (failures.length > 0) throw new Error(`${failures.length} of ${recipients.length} subscriber deliveries failed; ${failures[0]}`);
    },

    /** Starts no more deliveries (those left are recorded as not sent) and waits for the ones under way, each bounded by its timeout. */
    async close(): Promise<void> {
      closing = true;
      await Promise.all(inFlight);
    },
  };
}
