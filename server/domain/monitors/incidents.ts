import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { WatchedTable } from '../../db/table-stamps.ts';
import { unresolvedReportCounts } from '../reports/report-repository.ts';
import { downMonitorIds } from './view-repository.ts';

/**
 * The tables open incidents are read from: of the check states, only a row's being down counts,
 * so the checks' writes change a stamp of them only when a monitor goes down or comes back.
 */
export const incidentTables: readonly WatchedTable[] = [
  'status_reports',
  'status_report_components',
  'page_components',
  { table: 'check_state', insert: "new.result = 'down'", update: "(old.result = 'down') <> (new.result = 'down')", delete: "old.result = 'down'" },
];

/**
 * Open incidents per monitor. A monitor has one open incident while it is down (its latest check
 * by any runner failed), plus one for each unresolved status report that names a page component
 * linked to it. Monitors without any are absent from the map.
 */
export async function activeIncidentCounts(db: Kysely<Database>, monitorIds: number[]): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  if (monitorIds.length === 0) return counts;
  const add = (id: number, n: number) => counts.set(id, (counts.get(id) ?? 0) + n);
  for (const row of await unresolvedReportCounts(db, monitorIds)) if (row.monitor_id !== null) add(row.monitor_id, Number(row.open));
  for (const id of await downMonitorIds(db, monitorIds)) add(id, 1);
  return counts;
}
