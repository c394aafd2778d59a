import type { HeartbeatCheck, HeartbeatStatus, ProbeResult } from '../domain/monitors/check-results.ts';
import type { HeartbeatState } from '../domain/monitors/heartbeat-repository.ts';
import { expectedPings } from '../domain/monitors/heartbeat-schedule.ts';
import type { ConfigOf } from '../domain/monitors/monitor-rules.ts';
import { emptyTiming } from './connection.ts';
import { probeResult } from './outcome.ts';

/**
 * The check of a heartbeat monitor: nothing is probed. Its state, as its pings left it (a row of
 * `heartbeats`, domain/monitors/heartbeats.ts), is evaluated at the engine's time: the outcome
 * table of docs/reference/monitors.md, Heartbeat. The engine evaluates on each ping, at the
 * deadline (heartbeat-watch.ts) and on the monitor's periodicity.
 */

/** A heartbeat monitor's state with the time it was created, from which its first ping is expected. */
export type HeartbeatFacts = HeartbeatState & { created_at: string };

export interface HeartbeatEvaluation {
  /** The result to record; null while a monitor never pinged waits for its first deadline (pending). */
  result: ProbeResult | null;
  /** When the outcome turns down unless a ping comes first (epoch ms); null while it is down. */
  downAt: number | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function evaluateHeartbeat(
  config: Pick<ConfigOf<'heartbeat'>, 'schedule' | 'timezone' | 'grace'>,
  state: HeartbeatFacts,
  t: number,
): HeartbeatEvaluation {
  // The latest run's time when it was measured: a check's latency, as a probe's duration is.
  const latency = state.last_run_ms ?? 0;
  const record = (status: HeartbeatStatus, expectedBy: number | null, downAt: number | null): HeartbeatCheck => ({
    status,
    pingKind: state.last_ping_kind,
    exitStatus: state.last_exit_status,
    runTimeMs: state.last_run_ms,
    lastPingAt: iso(state.last_ping_at),
    expectedBy: iso(expectedBy),
    downAt: iso(downAt),
  });
  const outcome = (result: 'up' | 'down', message: string, heartbeat: HeartbeatCheck, downAt: number | null): HeartbeatEvaluation => {
    const timing = emptyTiming();
    timing.total = latency;
    return { result: { ...probeResult(result, latency, timing, 0, message), heartbeat }, downAt };
  };

  // A failure stands until the next success, whatever the schedule says.
  if (state.failed_at !== null) return outcome('down', state.failure ?? 'reported a failure', record('FAILED', null, null), null);

  if (state.started_at !== null) {
    const due = state.started_at + config.grace;
    if (t >= due) return outcome('down', `started at ${iso(state.started_at)} and did not finish`, record('DID_NOT_FINISH', null, null), null);
    return outcome('up', `started at ${iso(state.started_at)}; expected to finish by ${iso(due)}`, record('RUNNING', null, due), due);
  }

  // A period counts from the last success; a cron expression gives its next time after it. Never
  // pinged, both count from the monitor's creation.
  const since = state.last_success_at ?? Date.parse(state.created_at);
  const expected = expectedPings(config.schedule, config.timezone).after(since);
  // A schedule that never fires again (a validated one always does) expects nothing more.
  const due = expected === null ? null : expected + config.grace;
  if (due !== null && t >= due) {
    return state.last_ping_at === null
      ? outcome('down', `never pinged; expected by ${iso(expected)}`, record('NEVER_PINGED', expected, null), null)
      : outcome('down', `no ping since ${iso(state.last_ping_at)}; expected by ${iso(expected)}`, record('MISSED', expected, null), null);
  }
  if (state.last_ping_at === null) return { result: null, downAt: due };
  const next = expected === null ? 'no other ping expected' : `next expected by ${iso(expected)}`;
  return outcome('up', `pinged at ${iso(state.last_ping_at)}; ${next}`, record('OK', expected, due), due);
}
