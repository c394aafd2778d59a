import type { CheckResultRow } from '../../db/schema.ts';
import { type CheckResult, type ResponseLog, TYPE_DETAILS, type TypeDetails } from './check-results.ts';

// A stored check (a row of check_results) as the records every surface shows: the check engine
// reads rows with them, and so do the dashboard's views.

/** A stored check as one region's response log, with an id that names both. */
export function toResponseLog(row: CheckResultRow, region: string): ResponseLog {
  return { id: `${row.id}-${region}`, ...toCheckResult(row, region) };
}

/** A stored row as the result record, standing for `region`. */
function toCheckResult(row: CheckResultRow, region: string): CheckResult {
  const details =
    row.details === null ? null : (JSON.parse(row.details) as Partial<Pick<CheckResult, 'url' | 'responseHeaders' | 'assertionResults'>> & TypeDetails);
  return {
    monitorId: String(row.monitor_id),
    region,
    runner: row.runner,
    startedAt: new Date(row.started_at).toISOString(),
    result: row.result,
    latencyMs: row.latency_ms,
    timing: { dns: row.dns_ms, connect: row.connect_ms, tls: row.tls_ms, ttfb: row.ttfb_ms, transfer: row.transfer_ms, total: row.latency_ms },
    attempts: row.attempts,
    message: row.message,
    grpcStatus: row.grpc_status as CheckResult['grpcStatus'],
    statusCode: row.status_code,
    url: details?.url ?? null,
    responseHeaders: details?.responseHeaders ?? {},
    assertionResults: details?.assertionResults ?? [],
    // Only the types that find them out have their own records: the others keep their shape.
    ...Object.fromEntries(TYPE_DETAILS.filter((key) => details?.[key]).map((key) => [key, details![key]])),
  };
}

/** Stored checks, newest first, as response logs: one per region each check stood for. */
export function responseLogsOf(rows: readonly CheckResultRow[]): ResponseLog[] {
  return rows.flatMap((row) => (JSON.parse(row.regions) as string[]).map((region) => toResponseLog(row, region)));
}
