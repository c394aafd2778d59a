import type { CompiledQuery, Kysely } from 'kysely';
import type { Database, PrivateLocationRow } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import type { CheckResult, ProbeResult } from '../monitors/check-results.ts';
import { findMonitorRows } from '../monitors/monitor-repository.ts';
import { type Monitor, toMonitor } from '../monitors/monitors.ts';
import { sealerOf } from '../sealing.ts';
import { hashSecret, RUNNER_TOKEN_LOOKUP_LENGTH, RUNNER_TOKEN_PREFIX, sameSecret } from '../secrets.ts';

/**
 * The service's side of remote runners (`statusdesk runner`): admitting a runner by its
 * location's token, streaming it its assignment (the monitors that chose its location) and each
 * change to it, and storing the results it reports exactly once. The transport is the RPC layer's
 * (server/rpc/runner-service.ts); the checks are stored by the check engine, through RunnerIngest.
 */

/** A check a remote runner ran, as the check engine stores it. */
export interface RemoteCheck extends ProbeResult {
  monitorId: number;
  workspaceId: number;
  runner: string;
  regions: string[];
  /** Epoch ms. */
  startedAt: number;
}

/** A statement stored with a batch of checks or not at all: a query compiled by Kysely, as data. */
export type WithinIngest = Pick<CompiledQuery, 'sql' | 'parameters'>;

/** Where reported checks go: the check engine. */
export interface RunnerIngest {
  /** Stores checks at once, running `within` in the same transaction, and announces the state changes they bring. */
  ingest(checks: RemoteCheck[], within?: WithinIngest): Promise<void>;
  recordGap(runner: string, from: number, to: number): Promise<void>;
}

/** A monitor as a runner receives it: credentials opened, for its probes. */
export interface AssignedMonitor {
  id: string;
  revision: number;
  monitor: Monitor;
}

/** One change to a runner's assignment; an empty one tells the runner the stream is alive. */
export interface AssignmentEvent {
  monitors: AssignedMonitor[];
  removedMonitorIds: string[];
  /** `monitors` is the whole assignment. */
  full: boolean;
  checkNowMonitorIds: string[];
}

/** Why the service ended a runner's stream. */
export type StreamEnd = 'revoked' | 'replaced' | 'closing';

export interface RunnerHello {
  serviceVersion: string;
  locationName: string;
  acknowledgedSequence: number;
}

export interface RunnerReport {
  version: string;
  instanceId: string;
  /** In increasing sequence order. */
  checks: { sequence: number; check: RemoteCheck }[];
  /** Results the runner could not convert (malformed): acknowledged and skipped. */
  malformed: number[];
  droppedResults: number;
  gaps: { from: number; to: number }[];
}

export const MAX_REPORT_CHECKS = 1_000;
const MAX_REPORT_GAPS = 100;
/** How often each stream is brought up to date with the database, and proves it is alive. */
export const ASSIGNMENT_SYNC_MS = 15_000;
/** A result may start this far ahead of the service's clock (the runner's clock may run fast). */
const CLOCK_SKEW_MS = 5 * 60_000;
/** How long a trigger waits for a runner's result, at most. */
const TRIGGER_WAIT_MS = 60_000;

export interface RunnerServiceOptions {
  /** The service's version: a runner of another version is refused. */
  version: string;
  ingest: RunnerIngest;
  now?: () => number;
}

interface Stream {
  locationId: number;
  name: string;
  workspaceId: number;
  tokenHash: string;
  /** Monitor id -> the revision the runner has. */
  sent: Map<number, number>;
  push(event: AssignmentEvent): void;
  end(reason: StreamEnd): void;
  /** The sync in progress, and whether another was asked for meanwhile. */
  syncing: Promise<void> | undefined;
  again: boolean;
  /** Monitors saved since the last sync that are to be checked at once (see monitorsChanged). */
  checkSoon: Set<number>;
}

const unauthorized = (why: string) => new AppError('UNAUTHORIZED', `the service refused this runner's token: ${why}`);

/** The events of one stream, in order: an async iterator the RPC layer yields from. */
function eventQueue() {
  const queued: AssignmentEvent[] = [];
  let ended: StreamEnd | undefined;
  let wake: (() => void) | undefined;
  return {
    push(event: AssignmentEvent) {
      if (ended) return;
      queued.push(event);
      wake?.();
    },
    end(reason: StreamEnd) {
      ended ??= reason;
      wake?.();
    },
    async *events(signal: AbortSignal): AsyncGenerator<AssignmentEvent, StreamEnd | 'cancelled'> {
      const onAbort = () => wake?.();
      signal.addEventListener('abort', onAbort);
      try {
        while (true) {
          if (signal.aborted) return 'cancelled';
          const event = queued.shift();
          if (event) {
            yield event;
            continue;
          }
          if (ended) return ended;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
  };
}

export function createRunnerService(db: Kysely<Database>, options: RunnerServiceOptions) {
  const now = options.now ?? Date.now;
  const sealer = sealerOf(db);
  const streams = new Map<number, Stream>();
  /** Triggers waiting for a runner's next result of a monitor, by `runner monitorId`. */
  const waiting = new Map<string, { after: number; resolve: (check: RemoteCheck) => void }[]>();

  /** Records a location's acknowledged report, in the transaction that stores its results. */
  function acknowledging(locationId: number, ack: { sequence: number; instance: string; at: string; dropped: number }): WithinIngest {
    return db
      .updateTable('private_locations')
      .set({ last_sequence: ack.sequence, runner_instance: ack.instance, last_seen_at: ack.at, status: 'active', dropped_results: ack.dropped })
      .where('id', '=', locationId)
      .compile();
  }

  const timer = setInterval(() => {
    for (const stream of streams.values()) requestSync(stream);
  }, ASSIGNMENT_SYNC_MS);
  timer.unref();

  /** The location whose token `authorization` (`Bearer svc_run_...`) carries. */
  async function admit(authorization: string | null): Promise<PrivateLocationRow & { workspace_id: number; token_hash: string }> {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (!token) throw unauthorized('it is missing: send `authorization: Bearer svc_run_...`');
    if (!token.startsWith(RUNNER_TOKEN_PREFIX)) throw unauthorized(`a runner token starts with ${RUNNER_TOKEN_PREFIX}`);
    const row = await db.selectFrom('private_locations').selectAll().where('token_prefix', '=', token.slice(0, RUNNER_TOKEN_LOOKUP_LENGTH)).executeTakeFirst();
    if (!row || row.token_hash === null || row.workspace_id === null || !sameSecret(row.token_hash, hashSecret(token))) {
      throw unauthorized('it is unknown, or its private location was deleted or its token rotated');
    }
    return row as PrivateLocationRow & { workspace_id: number; token_hash: string };
  }

  function checkVersion(version: string): void {
    if (version !== options.version) {
      throw new AppError(
        'PRECONDITION_FAILED',
        `this runner is Statusdesk ${version || '(no version)'} and the service is ${options.version}: run the same version on both`,
      );
    }
  }

  /** The monitors that chose a location, with their revisions; paused ones are not checked. */
  async function assignedRevisions(locationId: number): Promise<Map<number, number>> {
    const rows = await db
      .selectFrom('monitor_private_locations as l')
      .innerJoin('monitors as m', 'm.id', 'l.monitor_id')
      .select(['m.id', 'm.revision'])
      .where('l.location_id', '=', locationId)
      .where('m.active', '=', 1)
      .execute();
    return new Map(rows.map((r) => [r.id, r.revision]));
  }

  async function assignedMonitors(ids: number[]): Promise<AssignedMonitor[]> {
    const result: AssignedMonitor[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      for (const row of await findMonitorRows(db, ids.slice(i, i + 500)))
        result.push({ id: String(row.id), revision: row.revision, monitor: toMonitor(row, sealer) });
    }
    return result;
  }

  /** Sends the stream what changed since it was last brought up to date (an empty event if nothing), or ends it if its token is gone. */
  async function sync(stream: Stream): Promise<void> {
    const row = await db.selectFrom('private_locations').select(['name', 'token_hash']).where('id', '=', stream.locationId).executeTakeFirst();
    if (!row || row.token_hash !== stream.tokenHash) return endStream(stream, 'revoked');
    stream.name = row.name;
    // Taken before the assignment is read: a monitor saved later asks for another sync, which takes it.
    const asked = [...stream.checkSoon];
    stream.checkSoon.clear();
    const revisions = await assignedRevisions(stream.locationId);
    const changed = [...revisions].filter(([id, revision]) => stream.sent.get(id) !== revision).map(([id]) => id);
    const removed = [...stream.sent.keys()].filter((id) => !revisions.has(id));
    const monitors = await assignedMonitors(changed);
    if (streams.get(stream.locationId) !== stream) return;
    for (const id of removed) stream.sent.delete(id);
    for (const m of monitors) stream.sent.set(Number(m.id), m.revision);
    // Those of this location saved to be checked at once: the runner checks them as soon as it has them.
    const checkNow = asked.filter((id) => revisions.has(id));
    stream.push({ monitors, removedMonitorIds: removed.map(String), full: false, checkNowMonitorIds: checkNow.map(String) });
  }

  /** Brings a stream up to date soon; syncs of one stream never overlap. */
  function requestSync(stream: Stream): void {
    if (stream.syncing) {
      stream.again = true;
      return;
    }
    stream.syncing = sync(stream)
      .catch(() => undefined)
      .finally(() => {
        stream.syncing = undefined;
        if (stream.again) {
          stream.again = false;
          requestSync(stream);
        }
      });
  }

  function endStream(stream: Stream, reason: StreamEnd): void {
    if (streams.get(stream.locationId) === stream) streams.delete(stream.locationId);
    stream.end(reason);
  }

  function resolveWaiting(check: RemoteCheck): void {
    const key = `${check.runner} ${check.monitorId}`;
    const list = waiting.get(key);
    if (!list) return;
    const left = list.filter((w) => {
      if (check.startedAt < w.after) return true;
      w.resolve(check);
      return false;
    });
    if (left.length) waiting.set(key, left);
    else waiting.delete(key);
  }

  return {
    admit,

    /**
     * Opens a runner's assignment stream: records what the runner says of itself, ends the stream
     * of another runner of the same location, and returns the hello and the events, the first of
     * which is the whole assignment.
     */
    async connect(authorization: string | null, request: { version: string; instanceId: string; hostname: string }) {
      const location = await admit(authorization);
      checkVersion(request.version);
      await db
        .updateTable('private_locations')
        .set({
          runner_version: request.version,
          runner_hostname: request.hostname.slice(0, 255),
          status: 'active',
          last_seen_at: new Date(now()).toISOString(),
        })
        .where('id', '=', location.id)
        .execute();
      const previous = streams.get(location.id);
      if (previous) endStream(previous, 'replaced');
      const queue = eventQueue();
      const stream: Stream = {
        locationId: location.id,
        name: location.name,
        workspaceId: location.workspace_id,
        tokenHash: location.token_hash,
        sent: new Map(),
        push: queue.push,
        end: queue.end,
        syncing: undefined,
        again: false,
        checkSoon: new Set(),
      };
      streams.set(location.id, stream);
      const revisions = await assignedRevisions(location.id);
      const monitors = await assignedMonitors([...revisions.keys()]);
      for (const m of monitors) stream.sent.set(Number(m.id), m.revision);
      stream.push({ monitors, removedMonitorIds: [], full: true, checkNowMonitorIds: [] });
      const hello: RunnerHello = {
        serviceVersion: options.version,
        locationName: location.name,
        acknowledgedSequence: location.runner_instance === request.instanceId ? location.last_sequence : 0,
      };
      return {
        hello,
        /** Ends with why the service ended the stream, or `cancelled` when the runner went away. */
        events(signal: AbortSignal) {
          const events = queue.events(signal);
          return (async function* () {
            try {
              return yield* events;
            } finally {
              if (streams.get(location.id) === stream) streams.delete(location.id);
            }
          })();
        },
      };
    },

    /**
     * Stores a batch of a runner's results exactly once: those at or below the acknowledged
     * sequence of the same runner instance are skipped, as are those of monitors that do not
     * choose its location (now) or start implausibly late. The acknowledged sequence moves in the
     * same transaction as the results are written.
     */
    async report(location: PrivateLocationRow & { workspace_id: number }, report: RunnerReport) {
      checkVersion(report.version);
      if (report.checks.length + report.malformed.length > MAX_REPORT_CHECKS) {
        throw new AppError('VALIDATION', `a batch holds at most ${MAX_REPORT_CHECKS} checks`, [{ field: 'checks', rule: `at most ${MAX_REPORT_CHECKS}` }]);
      }
      if (report.instanceId === '' || report.instanceId.length > 100) {
        throw new AppError('VALIDATION', 'instance_id must be 1 to 100 characters', [{ field: 'instance_id', rule: '1 to 100 characters' }]);
      }
      const t = now();
      const acknowledged = location.runner_instance === report.instanceId ? location.last_sequence : 0;
      const assigned = await assignedRevisions(location.id).then((r) => new Set(r.keys()));
      const stored = report.checks
        .filter(({ sequence, check }) => sequence > acknowledged && assigned.has(check.monitorId) && check.startedAt <= t + CLOCK_SKEW_MS)
        .map(({ check }) => ({ ...check, runner: location.name, regions: [location.name], workspaceId: location.workspace_id }));
      const top = Math.max(acknowledged, ...report.checks.map((c) => c.sequence), ...report.malformed);
      const dropped = Number.isSafeInteger(report.droppedResults) && report.droppedResults >= 0 ? report.droppedResults : 0;
      await options.ingest.ingest(stored, acknowledging(location.id, { sequence: top, instance: report.instanceId, at: new Date(t).toISOString(), dropped }));
      for (const check of stored) resolveWaiting(check);
      for (const gap of report.gaps.slice(0, MAX_REPORT_GAPS)) {
        if (Number.isSafeInteger(gap.from) && Number.isSafeInteger(gap.to) && gap.from < gap.to && gap.to <= t + CLOCK_SKEW_MS) {
          await options.ingest.recordGap(location.name, gap.from, gap.to);
        }
      }
      const total = report.checks.length + report.malformed.length;
      return { acknowledgedSequence: top, stored: stored.length, skipped: total - stored.length };
    },

    /**
     * Checks a monitor now from each of its private locations whose runner is connected, and waits
     * for those results (as long as the monitor's checks may take, at most a minute). A location
     * whose runner is not connected, or does not answer in time, gives no result.
     */
    async trigger(monitor: Monitor): Promise<CheckResult[]> {
      const links = await db.selectFrom('monitor_private_locations').select('location_id').where('monitor_id', '=', Number(monitor.id)).execute();
      const connected = links.map((l) => streams.get(l.location_id)).filter((s) => s !== undefined);
      const after = now() - 1_000;
      const waitMs = Math.min(TRIGGER_WAIT_MS, monitor.timeout * (monitor.retry + 1) + 5_000);
      const results = await Promise.all(
        connected.map((stream) => {
          const key = `${stream.name} ${monitor.id}`;
          return new Promise<RemoteCheck | undefined>((resolve) => {
            const timeout = setTimeout(() => {
              waiting.set(
                key,
                (waiting.get(key) ?? []).filter((w) => w !== waiter),
              );
              resolve(undefined);
            }, waitMs);
            const waiter = { after, resolve: (check: RemoteCheck) => (clearTimeout(timeout), resolve(check)) };
            waiting.set(key, [...(waiting.get(key) ?? []), waiter]);
            stream.push({ monitors: [], removedMonitorIds: [], full: false, checkNowMonitorIds: [monitor.id] });
          });
        }),
      );
      return results
        .filter((c) => c !== undefined)
        .map(({ monitorId, workspaceId: _workspaceId, regions, startedAt, ...probe }) => ({
          ...probe,
          monitorId: String(monitorId),
          region: regions[0]!,
          startedAt: new Date(startedAt).toISOString(),
        }));
    },

    /**
     * A monitor changed or was removed in this process: the connected runners hear of it now, not
     * at the next sync. Those of `checkNow` (saved new, resumed or checking differently) are
     * checked at once by the runners of their locations, then on their schedule.
     */
    monitorsChanged(checkNow: readonly string[] = []): void {
      for (const stream of streams.values()) {
        for (const id of checkNow) stream.checkSoon.add(Number(id));
        requestSync(stream);
      }
    },

    /** A location was deleted or its token rotated: its runner's stream ends, and its runner stops. */
    revoked(locationId: number): void {
      const stream = streams.get(locationId);
      if (stream) endStream(stream, 'revoked');
    },

    /** Whether a location's runner has its stream open. */
    isConnected(locationId: number): boolean {
      return streams.has(locationId);
    },

    /** Ends every stream: the service is stopping. */
    close(): void {
      clearInterval(timer);
      for (const stream of [...streams.values()]) endStream(stream, 'closing');
    },
  };
}

export type RunnerService = ReturnType<typeof createRunnerService>;
