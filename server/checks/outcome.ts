import type { CheckOutcome, GrpcStatus, ProbeResult, Timing } from '../domain/monitors/check-results.ts';
import type { Deadline } from './connection.ts';

/** A probe result with the fields only HTTP and gRPC checks fill left empty. */
export function probeResult(
  result: CheckOutcome,
  latencyMs: number,
  timing: Timing,
  attempts: number,
  message: string,
  grpcStatus: GrpcStatus | null = null,
): ProbeResult {
  return { result, latencyMs, timing, attempts, message, grpcStatus, statusCode: null, url: null, responseHeaders: {}, assertionResults: [] };
}

/** A down result at the end of the budget spent so far. */
export function failedProbe(deadline: Deadline, timing: Timing, attempts: number, message: string, grpcStatus: GrpcStatus | null = null): ProbeResult {
  const latency = deadline.elapsed();
  timing.total = latency;
  return probeResult('down', latency, timing, attempts, message, grpcStatus);
}

export function degradedMessage(what: string, latency: number, threshold: number): string {
  return `${what} in ${latency} ms, slower than the degraded threshold of ${threshold} ms`;
}
