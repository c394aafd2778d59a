import type { PingCheck } from '../../../proto/gen/monitor/v1/monitor_pb.js';
import type { CheckResult } from '../api.ts';
import { formatMs } from '../sparkline.tsx';
import { When } from '../time.tsx';
import './monitor-detail-ping.css';

// The part of a monitor's screen that only a ping monitor has: the packets its latest check sent
// and got back, the loss, and the round trips (shortest, average, longest), against the
// thresholds that make a check degraded.

/** What a check of a ping monitor found, as the dashboard lists checks. */
export type PingSeen = NonNullable<CheckResult['ping']>;

/** The ping part of a TriggerMonitor result in the shape of the dashboard's results. */
export function pingSeenOf(check: PingCheck | undefined): PingSeen | null {
  if (!check) return null;
  return {
    address: check.address,
    transmitted: check.transmitted,
    received: check.received,
    lossPercent: check.lossPercent,
    rttMinMs: check.rttMinMs ?? null,
    rttAvgMs: check.rttAvgMs ?? null,
    rttMaxMs: check.rttMaxMs ?? null,
  };
}

const packets = (count: number) => `${count} ${count === 1 ? 'packet' : 'packets'}`;

/** A round trip: on a LAN or loopback well under a millisecond, which the usual format would round away. */
const roundTrip = (ms: number) => (ms > 0 && ms < 1 ? `${ms.toFixed(3)} ms` : formatMs(ms));

/** The latest check's packets and round trips; `degradedLoss` is the monitor's loss threshold in percent. */
export function PingFacts({ latest, degradedLoss }: { latest: CheckResult | undefined; degradedLoss: number | undefined }) {
  if (!latest) return <p className="empty">No check yet. Press Check now to run one.</p>;
  const seen = latest.ping;
  // The host did not resolve, or ping could not run: the check's message says why.
  if (!seen) return <p className="empty">The latest check sent no packet: {latest.message}</p>;
  const lossy = degradedLoss !== undefined && seen.lossPercent > degradedLoss;
  return (
    <dl className="ping-facts">
      <div>
        <dt>Latest check</dt>
        <dd>
          {seen.address} <When iso={latest.startedAt} />
        </dd>
      </div>
      <div>
        <dt>Answered</dt>
        <dd>
          {seen.received} of {packets(seen.transmitted)}
        </dd>
      </div>
      <div>
        <dt>Packet loss</dt>
        <dd className={lossy ? 'ping-lossy' : undefined}>
          {seen.lossPercent} %{degradedLoss !== undefined ? <span className="muted small"> (degraded above {degradedLoss} %)</span> : null}
        </dd>
      </div>
      <div>
        <dt>Round trip</dt>
        <dd>
          {seen.rttAvgMs === null ? (
            <span className="muted">No answer</span>
          ) : (
            <>
              {roundTrip(seen.rttAvgMs)} <span className="muted small">on average</span>
            </>
          )}
        </dd>
      </div>
      {seen.rttMinMs !== null && seen.rttMaxMs !== null ? (
        <div>
          <dt>Shortest and longest</dt>
          <dd>
            {roundTrip(seen.rttMinMs)} to {roundTrip(seen.rttMaxMs)}
          </dd>
        </div>
      ) : null}
    </dl>
  );
}
