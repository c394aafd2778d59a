import type { Logger } from 'pino';
import type { Db } from '../db/open.ts';
import type { Actor } from './actor.ts';
import { authorize } from './access.ts';
import { onAuditRecorded } from './audit/audit.ts';
import { auditSnapshotsAfter, lastAuditId } from './audit/audit-repository.ts';
import type { CheckOutcome, MonitorStateChange } from './monitors/check-results.ts';
import { monitorName } from './monitors/monitor-repository.ts';

/** What changed, as the live feed names it. */
export type LiveEntity = 'monitor' | 'page' | 'report' | 'maintenance' | 'channel' | 'key' | 'connection';

/** A change the live feed announces to the workspace's open dashboards. */
export type LiveEvent =
  | { type: 'state'; monitorId: string; monitorName: string; from: CheckOutcome | null; to: CheckOutcome; at: string; message: string }
  | { type: 'changed'; entity: LiveEntity; id: string };

export interface LiveSubscriber {
  send(event: LiveEvent): void;
  /** The feed is closing: no more events will come. */
  end(): void;
}

export interface LiveSubscription {
  /** Whether the subscriber may still read the workspace (membership can be taken away). */
  stillAllowed(): Promise<boolean>;
  close(): void;
}

/** The audited entities the feed announces, by the entity type their audit entries carry. */
const ENTITY_OF: Record<string, LiveEntity> = {
  monitor: 'monitor',
  status_page: 'page',
  page_component: 'page',
  page_subscriber: 'page',
  status_report: 'report',
  maintenance: 'maintenance',
  notification_channel: 'channel',
  api_key: 'key',
  oauth_grant: 'connection',
};
/** Parts of a page: the event names the page they belong to. */
const PAGE_PARTS = new Set(['page_component', 'page_subscriber']);
/** Other processes (the CLI on the data folder) write entries too: how often the log is read for theirs. */
const DEFAULT_POLL_MS = 2_000;
const READ_BATCH = 500;

/**
 * The live feed of the dashboards: every overall state change of a monitor (told by the check
 * engine) and every committed change of monitors, pages, reports, maintenances, channels, keys and
 * connections, to the subscribers of that workspace only.
 *
 * Changes are read from the audit log, the one place every service records them: the audit log
 * nudges the feed when an entry is written, and is read again every few seconds for the entries
 * of other processes. An entry is read only once its transaction has committed, so a change that
 * is rolled back is never announced. The log is followed only while someone subscribes.
 */
export function createLiveFeed(db: Db, options: { log: Logger; pollMs?: number }) {
  const { log } = options;
  const subscribers = new Map<number, Set<LiveSubscriber>>();
  let following: Promise<void> | undefined;
  /** Counts the times following began, so a start that everyone left meanwhile does not stay. */
  let rounds = 0;
  /** The highest audit entry announced (or there when following began). */
  let seen = 0;
  let stopNudges: (() => void) | undefined;
  let poll: NodeJS.Timeout | undefined;
  let reading: Promise<void> | undefined;
  let readAgain = false;
  let closed = false;

  const count = () => [...subscribers.values()].reduce((n, set) => n + set.size, 0);

  function deliver(workspaceId: number, event: LiveEvent): void {
    for (const subscriber of subscribers.get(workspaceId) ?? []) {
      try {
        subscriber.send(event);
      } catch (error) {
        log.warn({ err: error }, 'a live subscriber failed');
      }
    }
  }

  /** Announces the entries written since the last read, once per entity and read. */
  async function readLog(): Promise<boolean> {
    const rows = await auditSnapshotsAfter(db, seen, READ_BATCH);
    if (!following) return false; // everyone left while this read waited
    const announced = new Set<string>();
    for (const row of rows) {
      seen = row.id;
      const entity = ENTITY_OF[row.entity_type];
      if (!entity || !subscribers.has(row.workspace_id)) continue;
      const id = PAGE_PARTS.has(row.entity_type) ? String((JSON.parse(row.snapshot ?? '{}') as { pageId?: unknown }).pageId ?? '') : row.entity_id;
      const key = `${row.workspace_id}:${entity}:${id}`;
      if (id === '' || announced.has(key)) continue;
      announced.add(key);
      deliver(row.workspace_id, { type: 'changed', entity, id });
    }
    return rows.length === READ_BATCH;
  }

  /** Reads the log now, or right after the read in progress; nudges that come meanwhile make one read. */
  function read(): void {
    if (reading) {
      readAgain = true;
      return;
    }
    reading = (async () => {
      do {
        readAgain = false;
        if (await readLog()) readAgain = true;
      } while (readAgain && following);
    })()
      .catch((error: unknown) => log.error({ err: error }, 'reading the audit log for the live feed failed'))
      .finally(() => {
        reading = undefined;
      });
  }

  function follow(): Promise<void> {
    if (following) return following;
    const round = ++rounds;
    following = (async () => {
      const last = await lastAuditId(db);
      if (round !== rounds || !following) return; // everyone left meanwhile
      seen = last;
      stopNudges = onAuditRecorded(read);
      poll = setInterval(read, options.pollMs ?? DEFAULT_POLL_MS);
      poll.unref();
    })();
    return following;
  }

  function unfollow(): void {
    stopNudges?.();
    stopNudges = undefined;
    clearInterval(poll);
    poll = undefined;
    following = undefined;
  }

  function remove(workspaceId: number, subscriber: LiveSubscriber): void {
    const set = subscribers.get(workspaceId);
    if (!set?.delete(subscriber)) return;
    if (set.size === 0) subscribers.delete(workspaceId);
    if (count() === 0) unfollow();
  }

  return {
    /** Announces `subscriber` the workspace's changes from now on, once the actor may read it. */
    async subscribe(actor: Actor, workspaceId: number, subscriber: LiveSubscriber): Promise<LiveSubscription> {
      await authorize(db, actor, workspaceId, 'read');
      if (closed) {
        subscriber.end();
        return { stillAllowed: async () => false, close: () => {} };
      }
      let set = subscribers.get(workspaceId);
      if (!set) subscribers.set(workspaceId, (set = new Set()));
      set.add(subscriber);
      await follow();
      return {
        async stillAllowed() {
          try {
            await authorize(db, actor, workspaceId, 'read');
            return true;
          } catch {
            return false;
          }
        },
        close: () => remove(workspaceId, subscriber),
      };
    },

    /** A monitor's overall state changed (the check engine's onStateChange). */
    stateChanged(change: MonitorStateChange): void {
      const workspaceId = Number(change.workspaceId);
      if (!subscribers.has(workspaceId)) return;
      monitorName(db, Number(change.monitorId))
        .then((name) => {
          // Deleted meanwhile: its deletion is announced instead.
          if (name === undefined) return;
          deliver(workspaceId, {
            type: 'state',
            monitorId: change.monitorId,
            monitorName: name,
            from: change.from,
            to: change.to,
            at: change.at,
            message: change.message,
          });
        })
        .catch((error: unknown) => log.error({ err: error, monitorId: change.monitorId }, 'announcing a state change failed'));
    },

    /** Ends every subscription (the service is stopping) and announces nothing more. */
    close(): void {
      closed = true;
      const all = [...subscribers.values()].flatMap((set) => [...set]);
      subscribers.clear();
      unfollow();
      for (const subscriber of all) subscriber.end();
    },
  };
}

export type LiveFeed = ReturnType<typeof createLiveFeed>;
