import type { Logger } from 'pino';
import type { PageEvent } from './events.ts';

/** Tells a page's subscribers of an event; throws when any delivery failed or was not over by the dispatch deadline. */
export type NotifySubscribers = (workspaceId: number, pageId: number, event: PageEvent) => Promise<void>;

/**
 * The publishing rule (SPEC MCP rules 4 and 5): the mutation has already committed; dispatch
 * follows and is not part of it. `notified` is true only when the dispatch returned without
 * throwing, false when it threw (the record stays) and false when `notify` is false, in which
 * case nothing is sent, then or ever.
 */
export async function dispatchAfterCommit(notify: boolean, dispatch: () => Promise<void>, log: Logger): Promise<boolean> {
  if (!notify) return false;
  try {
    await dispatch();
    return true;
  } catch (error) {
    log.warn({ err: error }, 'subscriber notification failed; the record is stored');
    return false;
  }
}

/** The `notify` flag of a publishing call: required, with no default. */
export const notifyRule = 'is required: true to notify subscribers now, false not to (an update not notified now is never sent later)';
