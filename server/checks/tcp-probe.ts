import type { DestinationPolicy } from '../domain/destinations.ts';
import type { ProbeResult } from '../domain/monitors/check-results.ts';
import type { TcpConfig } from '../domain/monitors/monitor-rules.ts';
import { ConnectionFailure, Deadline, emptyTiming, openConnection, parseTarget, withRetries } from './connection.ts';
import { degradedMessage, failedProbe, probeResult } from './outcome.ts';

/** The check sends nothing on its connection: it only connects and closes. */
const ONLY_CONNECTS = { writes: false };

/**
 * The TCP check (SPEC 2.7, 3.2): resolve, connect, close. Refused, unreachable and unresolvable
 * targets are retried up to Retry; the Timeout bounds the whole check, retries included.
 */
export async function probeTcp(
  monitor: Pick<TcpConfig, 'uri' | 'timeout' | 'degraded' | 'retry'>,
  options: { stop?: AbortSignal; destinations?: DestinationPolicy } = {},
): Promise<ProbeResult> {
  const deadline = new Deadline(monitor.timeout, options.stop);
  const target = parseTarget(monitor.uri);
  const timing = emptyTiming();
  let attempts = 0;
  try {
    const socket = await withRetries(monitor.retry, deadline, () => {
      attempts++;
      return openConnection(target, deadline, timing, undefined, options.destinations, ONLY_CONNECTS);
    });
    socket.destroy();
    const latency = deadline.elapsed();
    timing.total = latency;
    return monitor.degraded !== null && latency > monitor.degraded
      ? probeResult('degraded', latency, timing, attempts, degradedMessage('connected', latency, monitor.degraded))
      : probeResult('up', latency, timing, attempts, `connected in ${latency} ms`);
  } catch (error) {
    if (!(error instanceof ConnectionFailure)) throw error;
    return failedProbe(deadline, timing, attempts, error.message);
  } finally {
    deadline.clear();
  }
}
