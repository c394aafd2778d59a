import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/**
 * Open incidents per monitor. A monitor has one open incident while it is down (its latest check
 * by any runner failed), plus one for each unresolved status report that names a page component
 * linked to it. Monitors without any are absent from the map.
 */
export async function activeIncidentCounts(db: Kysely<Database>, monitorIds: number[]): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  if (monitorIds.length === 0) return counts;
  const add = (id: number, n: number) => counts.set(id, (counts.get(id) ?? 0) + n);
  const reports = await db
    .selectFrom('status_report_components as rc')
    .innerJoin('status_reports as r', 'r.id', 'rc.report_id')
    .innerJoin('page_components as c', 'c.id', 'rc.component_id')
    .select(['c.monitor_id', (eb) => eb.fn.count<number>('r.id').distinct().as('open')])
    .where('r.resolved_at', 'is', null)
    .where('c.monitor_id', 'in', monitorIds)
    .groupBy('c.monitor_id')
    .execute();
  for (const row of reports) if (row.monitor_id !== null) add(row.monitor_id, Number(row.open));
  const down = await db.selectFrom('check_state').select('monitor_id').distinct().where('result', '=', 'down').where('monitor_id', 'in', monitorIds).execute();
  for (const row of down) add(row.monitor_id, 1);
  return counts;
}
