import type { MessageInitShape } from '@bufbuild/protobuf';
import { type Timestamp, timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { HeartbeatCheckSchema } from '../../proto/gen/monitor/v1/monitor_pb.js';
import type { HeartbeatCheck, HeartbeatPingKind, HeartbeatStatus } from '../domain/monitors/check-results.ts';

/**
 * A heartbeat check's record on the wire (monitor.v1.HeartbeatCheck, which CheckResult carries)
 * and back. Runners never report one: heartbeats are not checked by private locations.
 */

const toTime = (iso: string | null) => (iso === null ? undefined : timestampFromDate(new Date(iso)));
const fromTime = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

/** The record as monitor.v1.HeartbeatCheck carries it: absent fields and an empty kind for nulls. */
export function heartbeatCheckToWire(check: HeartbeatCheck): MessageInitShape<typeof HeartbeatCheckSchema> {
  return {
    status: check.status,
    pingKind: check.pingKind ?? '',
    exitStatus: check.exitStatus ?? undefined,
    runTimeMs: check.runTimeMs ?? undefined,
    lastPingAt: toTime(check.lastPingAt),
    expectedBy: toTime(check.expectedBy),
    downAt: toTime(check.downAt),
  };
}

/** monitor.v1.HeartbeatCheck as the domain holds it. */
export function heartbeatCheckFromWire(m: {
  status: string;
  pingKind: string;
  exitStatus?: number;
  runTimeMs?: number;
  lastPingAt?: Timestamp;
  expectedBy?: Timestamp;
  downAt?: Timestamp;
}): HeartbeatCheck {
  return {
    status: m.status as HeartbeatStatus,
    pingKind: (m.pingKind || null) as HeartbeatPingKind | null,
    exitStatus: m.exitStatus ?? null,
    runTimeMs: m.runTimeMs ?? null,
    lastPingAt: fromTime(m.lastPingAt),
    expectedBy: fromTime(m.expectedBy),
    downAt: fromTime(m.downAt),
  };
}
