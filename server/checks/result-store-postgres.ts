import { CompiledQuery, type DeleteResult, type ExpressionBuilder, type Kysely, type OnConflictDatabase, type OnConflictTables, sql } from 'kysely';
import type { Db } from '../db/open.ts';
import type { Database } from '../db/schema.ts';
import { writeTransaction } from '../db/transaction.ts';
import { LatencyHistogram } from '../domain/monitors/latency-histogram.ts';
import {
  applyCheck,
  type Bucket,
  count,
  DAY_MS,
  detailsOf,
  hourOf,
  type Overall,
  PRUNE_CHUNK,
  type ResultTables,
  ROLLUP_PRUNE_MONITORS,
  type StoredCheck,
  type StoredTransition,
  type WithinWrite,
} from './result-tables.ts';

/**
 * The result store on PostgreSQL, where several processes may write checks of one monitor (a
 * runner's report reaches whichever process it connects to). Nothing is kept in memory: a write
 * reads the states of its monitors in its transaction, which takes its turn with every other
 * writer's (writeTransaction), so each change of a monitor's state is found by one write only.
 * Rollups are merged here, read and written in the same transaction, as PostgreSQL has no
 * latency_merge.
 */

/** Rows per insert: PostgreSQL takes at most 65,535 parameters per statement. */
const INSERT_ROWS = 1_000;

async function inChunks<T>(rows: T[], write: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_ROWS) await write(rows.slice(i, i + INSERT_ROWS));
}

const deleted = (result: DeleteResult) => Number(result.numDeletedRows);

/** A rollup's stored values replaced by those inserted, merged with them beforehand. */
const replaced = (eb: ExpressionBuilder<OnConflictDatabase<Database, 'check_rollups'>, OnConflictTables<'check_rollups'>>) => ({
  success_count: eb.ref('excluded.success_count'),
  degraded_count: eb.ref('excluded.degraded_count'),
  error_count: eb.ref('excluded.error_count'),
  latency: eb.ref('excluded.latency'),
  last_ping_at: eb.ref('excluded.last_ping_at'),
});

/** Stores checks of existing monitors, locked against deletion: rows, states, overall states and rollups. */
async function store(trx: Kysely<Database>, checks: StoredCheck[], monitorIds: number[]): Promise<StoredTransition[]> {
  const overalls = new Map<number, Overall>(monitorIds.map((id) => [id, { latest: [], state: null }]));
  const states = await trx.selectFrom('check_state').select(['monitor_id', 'runner', 'result', 'checked_at']).where('monitor_id', 'in', monitorIds).execute();
  for (const r of states) overalls.get(r.monitor_id)!.latest.push({ runner: r.runner, result: r.result, at: r.checked_at });
  const stored = await trx.selectFrom('monitor_state').select(['monitor_id', 'state']).where('monitor_id', 'in', monitorIds).forUpdate().execute();
  for (const r of stored) overalls.get(r.monitor_id)!.state = r.state;

  const transitions: StoredTransition[] = [];
  /** The latest check by monitor and runner, and the last change of each monitor's state. */
  const latest = new Map<string, StoredCheck>();
  const changes = new Map<number, { monitor_id: number; state: StoredCheck['result']; changed_at: number }>();
  const rollups = new Map<string, Bucket & { monitorId: number; hour: number }>();
  for (const c of checks) {
    const { from, to } = applyCheck(overalls.get(c.monitorId)!, c.runner, c.result, c.startedAt);
    if (to !== from) changes.set(c.monitorId, { monitor_id: c.monitorId, state: to, changed_at: c.startedAt });
    transitions.push({ check: c, from, to });
    const key = `${c.monitorId} ${c.runner}`;
    if (c.startedAt >= (latest.get(key)?.startedAt ?? -Infinity)) latest.set(key, c);
    const hour = hourOf(c.startedAt);
    const rollupKey = `${c.monitorId} ${hour}`;
    let bucket = rollups.get(rollupKey);
    if (!bucket)
      rollups.set(rollupKey, (bucket = { monitorId: c.monitorId, hour, success: 0, degraded: 0, error: 0, latency: new LatencyHistogram(), last: 0 }));
    count(bucket, c.result, c.latencyMs, c.startedAt);
  }

  await inChunks(checks, (chunk) =>
    trx
      .insertInto('check_results')
      .values(
        chunk.map((c) => ({
          monitor_id: c.monitorId,
          runner: c.runner,
          regions: JSON.stringify(c.regions),
          started_at: c.startedAt,
          result: c.result,
          latency_ms: c.latencyMs,
          dns_ms: c.timing.dns,
          connect_ms: c.timing.connect,
          tls_ms: c.timing.tls,
          ttfb_ms: c.timing.ttfb,
          transfer_ms: c.timing.transfer,
          attempts: c.attempts,
          message: c.message,
          grpc_status: c.grpcStatus,
          status_code: c.statusCode,
          details: detailsOf(c),
        })),
      )
      .execute(),
  );
  await inChunks([...latest.values()], (chunk) =>
    trx
      .insertInto('check_state')
      .values(
        chunk.map((c) => ({
          monitor_id: c.monitorId,
          runner: c.runner,
          result: c.result,
          regions: JSON.stringify(c.regions),
          checked_at: c.startedAt,
          latency_ms: c.latencyMs,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['monitor_id', 'runner'])
          .doUpdateSet((eb) => ({
            result: eb.ref('excluded.result'),
            regions: eb.ref('excluded.regions'),
            checked_at: eb.ref('excluded.checked_at'),
            latency_ms: eb.ref('excluded.latency_ms'),
          }))
          .whereRef('excluded.checked_at', '>=', 'check_state.checked_at'),
      )
      .execute(),
  );
  await inChunks([...changes.values()], (chunk) =>
    trx
      .insertInto('monitor_state')
      .values(chunk)
      .onConflict((oc) => oc.column('monitor_id').doUpdateSet((eb) => ({ state: eb.ref('excluded.state'), changed_at: eb.ref('excluded.changed_at') })))
      .execute(),
  );
  await inChunks([...rollups.values()], async (chunk) => {
    const rows = await trx
      .selectFrom('check_rollups')
      .selectAll()
      .where((eb) =>
        eb(
          eb.refTuple('monitor_id', 'hour'),
          'in',
          chunk.map((b) => eb.tuple(b.monitorId, b.hour)),
        ),
      )
      .forUpdate()
      .execute();
    const before = new Map(rows.map((r) => [`${r.monitor_id} ${r.hour}`, r]));
    await trx
      .insertInto('check_rollups')
      .values(
        chunk.map((b) => {
          const row = before.get(`${b.monitorId} ${b.hour}`);
          if (row) b.latency.merge(LatencyHistogram.decode(row.latency));
          return {
            monitor_id: b.monitorId,
            hour: b.hour,
            success_count: b.success + (row?.success_count ?? 0),
            degraded_count: b.degraded + (row?.degraded_count ?? 0),
            error_count: b.error + (row?.error_count ?? 0),
            latency: b.latency.encode(),
            last_ping_at: Math.max(b.last, row?.last_ping_at ?? 0),
          };
        }),
      )
      .onConflict((oc) => oc.columns(['monitor_id', 'hour']).doUpdateSet(replaced))
      .execute();
  });
  return transitions;
}

export function postgresResultTables(db: Db): ResultTables {
  return {
    write: (checks: StoredCheck[], within?: WithinWrite) =>
      writeTransaction(db, async (trx) => {
        const ids = [...new Set(checks.map((c) => c.monitorId))];
        // Checks of monitors deleted meanwhile are dropped; the others' monitors stay until this commits.
        const live = new Set((await trx.selectFrom('monitors').select('id').where('id', 'in', ids).forKeyShare().execute()).map((r) => r.id));
        const kept = checks.filter((c) => live.has(c.monitorId));
        const transitions = kept.length === 0 ? [] : await store(trx, kept, [...live]);
        if (within) await trx.executeQuery(CompiledQuery.raw(within.sql, [...within.parameters]));
        return transitions;
      }),

    // Nothing is kept in memory.
    forget: () => {},

    rollupsSince: (monitorId, hour) =>
      db
        .selectFrom('check_rollups')
        .select(['success_count', 'degraded_count', 'error_count', 'latency', 'last_ping_at'])
        .where('monitor_id', '=', monitorId)
        .where('hour', '>=', hour)
        .execute(),
    rawBetween: (monitorId, from, to) =>
      db
        .selectFrom('check_results')
        .select(['result', 'latency_ms', 'started_at'])
        .where('monitor_id', '=', monitorId)
        .where('started_at', '>=', from)
        .where('started_at', '<', to)
        .execute(),
    states: (monitorId) =>
      db.selectFrom('check_state').select(['monitor_id', 'runner', 'result', 'regions', 'checked_at']).where('monitor_id', '=', monitorId).execute(),
    results: (monitorId, from, limit, offset) =>
      db
        .selectFrom('check_results')
        .selectAll()
        .where('monitor_id', '=', monitorId)
        .where('started_at', '>=', from)
        .orderBy('started_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
    result: (id) => db.selectFrom('check_results').selectAll().where('id', '=', id).executeTakeFirst(),
    insertGap: async (runner, startedAt, endedAt) => {
      await db.insertInto('check_gaps').values({ runner, started_at: startedAt, ended_at: endedAt }).execute();
    },
    gapsSince: (from) => db.selectFrom('check_gaps').select(['runner', 'started_at', 'ended_at']).where('ended_at', '>=', from).orderBy('started_at').execute(),
    pruneResultsBefore: async (before) =>
      deleted(
        await db
          .deleteFrom('check_results')
          .where('id', 'in', (eb) => eb.selectFrom('check_results').select('id').where('started_at', '<', before).limit(PRUNE_CHUNK))
          .executeTakeFirst(),
      ),
    // Ids of deleted monitors' rows are gaps: the last `keep` ids hold that many rows at most.
    pruneResultsBeyond: async (keep) =>
      deleted(
        await db
          .deleteFrom('check_results')
          .where('id', 'in', (eb) =>
            eb
              .selectFrom('check_results')
              .select('id')
              .where('id', '<', sql<number>`coalesce((select max(id) from check_results), 0) - ${keep} + 1`)
              .orderBy('id')
              .limit(PRUNE_CHUNK),
          )
          .executeTakeFirst(),
      ),
    pruneRollups: (after, before) =>
      db.transaction().execute(async (trx) => {
        const ids = (await trx.selectFrom('monitors').select('id').where('id', '>', after).orderBy('id').limit(ROLLUP_PRUNE_MONITORS).execute()).map(
          (r) => r.id,
        );
        await trx.deleteFrom('check_rollups').where('monitor_id', 'in', ids).where('hour', '<', before).execute();
        return ids;
      }),
    foldDays: (after, from, to) =>
      writeTransaction(db, async (trx) => {
        const ids = (await trx.selectFrom('monitors').select('id').where('id', '>', after).orderBy('id').limit(ROLLUP_PRUNE_MONITORS).execute()).map(
          (r) => r.id,
        );
        if (ids.length === 0) return ids;
        const rows = await trx
          .selectFrom('check_rollups')
          .selectAll()
          .where('monitor_id', 'in', ids)
          .where('hour', '>=', from)
          .where('hour', '<', to)
          .orderBy('monitor_id')
          .orderBy('hour')
          .forUpdate()
          .execute();
        // Each day with a row of another hour than its first: its rows summed into the first hour's.
        const days = new Map<string, { monitor_id: number; hour: number; rows: typeof rows }>();
        for (const row of rows) {
          const day = row.hour - (row.hour % DAY_MS);
          const key = `${row.monitor_id} ${day}`;
          const group = days.get(key) ?? { monitor_id: row.monitor_id, hour: day, rows: [] };
          group.rows.push(row);
          days.set(key, group);
        }
        const folded = [...days.values()].filter((d) => d.rows.some((r) => r.hour !== d.hour));
        await inChunks(folded, async (chunk) => {
          await trx
            .insertInto('check_rollups')
            .values(
              chunk.map(({ monitor_id, hour, rows: parts }) => {
                const latency = new LatencyHistogram();
                for (const part of parts) latency.merge(LatencyHistogram.decode(part.latency));
                const sum = (pick: (row: (typeof parts)[number]) => number) => parts.reduce((total, row) => total + pick(row), 0);
                return {
                  monitor_id,
                  hour,
                  success_count: sum((r) => r.success_count),
                  degraded_count: sum((r) => r.degraded_count),
                  error_count: sum((r) => r.error_count),
                  latency: latency.encode(),
                  last_ping_at: Math.max(...parts.map((r) => r.last_ping_at)),
                };
              }),
            )
            .onConflict((oc) => oc.columns(['monitor_id', 'hour']).doUpdateSet(replaced))
            .execute();
        });
        await trx
          .deleteFrom('check_rollups')
          .where('monitor_id', 'in', ids)
          .where('hour', '>=', from)
          .where('hour', '<', to)
          .where(sql<boolean>`hour % ${DAY_MS} <> 0`)
          .execute();
        return ids;
      }),
    pruneGaps: async (before) => {
      await db.deleteFrom('check_gaps').where('ended_at', '<', before).execute();
    },
    engineWrites: db,
  };
}
