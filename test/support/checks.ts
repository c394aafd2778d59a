import type { StoredCheck } from '../../server/checks/result-store.ts';
import type { CheckOutcome } from '../../server/domain/monitors/check-results.ts';

/** A TCP check of the embedded runner, for both regions, as the engine stores one. */
export function storedCheck(monitorId: number | string, workspaceId: number, startedAt: number, result: CheckOutcome, latencyMs: number): StoredCheck {
  return {
    monitorId: Number(monitorId),
    workspaceId,
    runner: 'local',
    regions: ['iad', 'fra'],
    startedAt,
    result,
    latencyMs,
    timing: { dns: null, connect: latencyMs, tls: null, ttfb: null, transfer: null, total: latencyMs },
    attempts: 1,
    message: `${result} in ${latencyMs} ms`,
    grpcStatus: null,
    statusCode: null,
    url: null,
    responseHeaders: {},
    assertionResults: [],
  };
}
