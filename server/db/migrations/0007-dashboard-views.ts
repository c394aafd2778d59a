import { type Kysely, sql } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  // The surface a change came through ('dashboard', 'cli', 'rpc', 'rest', 'mcp'): a person acts
  // through the dashboard or the CLI with the same actor type. NULL for entries written before.
  await db.schema.alterTable('audit_log').addColumn('actor_surface', 'text').execute();

  // The latency of each runner's latest check, beside its outcome: the overview's last latency
  // without a search of check_results. Filled in from the raw results that are still kept.
  await db.schema.alterTable('check_state').addColumn('latency_ms', t.double).execute();
  await sql`update check_state set latency_ms = (
    select r.latency_ms from check_results r
    where r.monitor_id = check_state.monitor_id and r.runner = check_state.runner and r.started_at = check_state.checked_at
    order by r.id desc limit 1)`.execute(db);

  // A monitor's overall state (the worst of its runners' latest checks) and when it last changed,
  // kept with the results so the overview can filter, count and order by it.
  await sql`create table monitor_state (
    monitor_id ${t.integer} primary key references monitors(id) on delete cascade,
    state text not null check (state in ('up', 'degraded', 'down')),
    changed_at ${t.integer} not null
  )`.execute(db);

  // Earlier versions did not record when the state changed. It is worked out from the history:
  // the last hour whose rollup holds another outcome, then, where that hour's raw results are
  // still kept, the first check after the last other outcome in it; with no other outcome at
  // all, the first check known. Runners are not told apart: close enough for a one-time start.
  await sql`with latest as (
      select monitor_id,
        case max(case result when 'down' then 2 when 'degraded' then 1 else 0 end) when 2 then 'down' when 1 then 'degraded' else 'up' end as state,
        max(checked_at) as checked_at
      from check_state group by monitor_id
    ), marks as (
      select l.monitor_id, l.state, l.checked_at,
        (select max(h.hour) from check_rollups h where h.monitor_id = l.monitor_id and
          (case l.state when 'up' then h.degraded_count + h.error_count
                        when 'degraded' then h.success_count + h.error_count
                        else h.success_count + h.degraded_count end) > 0) as other_hour,
        (select min(h.hour) from check_rollups h where h.monitor_id = l.monitor_id) as first_hour
      from latest l
    )
    insert into monitor_state (monitor_id, state, changed_at)
    select m.monitor_id, m.state, ${t.least}(m.checked_at, coalesce(
      (select min(r.started_at) from check_results r where r.monitor_id = m.monitor_id and r.started_at > (
        select max(o.started_at) from check_results o where o.monitor_id = m.monitor_id and o.started_at >= m.other_hour and o.result <> m.state)),
      m.other_hour + 3600000,
      (select min(r.started_at) from check_results r where r.monitor_id = m.monitor_id and r.started_at >= m.first_hour and r.started_at < m.first_hour + 3600000),
      m.first_hour,
      m.checked_at))
    from marks m`.execute(db);
}
