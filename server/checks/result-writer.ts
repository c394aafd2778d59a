import type SQLite from 'better-sqlite3';
import type { CheckOutcome } from '../domain/monitors/check-results.ts';
import { LatencyHistogram } from '../domain/monitors/latency-histogram.ts';
import { applyCheck, DAY_MS, hourOf, type Overall, PRUNE_CHUNK, ROLLUP_PRUNE_MONITORS } from './result-tables.ts';

/**
 * What writes check results on SQLite, on a connection of its own in a thread of its own (see
 * result-writer-thread.ts): prepared statements on the raw handle, as this is the hottest write
 * path there is. A batch costs one read of which of its monitors exist, and a multi-row statement
 * per ROWS_PER_STATEMENT checks for each of the results, the latest states and the rollups.
 */

/**
 * Checks per multi-row statement. A batch's remainder goes in statements of the powers of two
 * below it, so each table has at most eight statements prepared, whatever the batches' sizes.
 */
const ROWS_PER_STATEMENT = 128;

/** A statement run in a write's transaction, after its checks: a query compiled by Kysely, as data. */
export interface WithinStatement {
  sql: string;
  parameters: readonly unknown[];
}

/** The columns of check_results a check is written to, in the order of a row's values. */
export const RESULT_COLUMN_NAMES = [
  'monitor_id',
  'runner',
  'regions',
  'started_at',
  'result',
  'latency_ms',
  'dns_ms',
  'connect_ms',
  'tls_ms',
  'ttfb_ms',
  'transfer_ms',
  'attempts',
  'message',
  'grpc_status',
  'status_code',
  'details',
] as const;
const RESULT_COLUMNS = RESULT_COLUMN_NAMES.length;

/**
 * Checks to a chunk of the rows a write is sent: 8,192 values, well under the 16,000 of V8's
 * large objects (see multiRow).
 */
export const CHECKS_PER_CHUNK = 512;

/**
 * What a write did, by the index of each check stored (in the batch given) in order: its
 * monitor's overall state before it (null before the first check) and after.
 */
export type WriteOutcome = (number | CheckOutcome | null)[];

/**
 * The rows of one write to a table, run through statements of `sql` with ROWS_PER_STATEMENT rows'
 * values as the rows come (`put`: the `columns` values of `row` from `from`), then the rest
 * (`end`). No array holds a whole batch: an array of more than 16,000 values is one of V8's large
 * objects, with memory of its own that the system maps for it and takes back at a full
 * collection, and a batch's arrays, several a second, kept the process's RSS moving by megabytes.
 */
function multiRow(
  sqlite: SQLite.Database,
  columns: number,
  sql: (values: string) => string,
): () => { put(row: readonly unknown[], from?: number): void; end(): void } {
  const bySize = new Map<number, SQLite.Statement>();
  const row = `(${new Array<string>(columns).fill('?').join(', ')})`;
  const statement = (size: number) => {
    let prepared = bySize.get(size);
    if (!prepared) bySize.set(size, (prepared = sqlite.prepare(sql(new Array<string>(size).fill(row).join(', ')))));
    return prepared;
  };
  return () => {
    // A write's own, garbage once it ends. Kept from write to write, the values of the last rows
    // would outlive young collections, and each latency histogram among them would hold its 8 KB
    // of Buffer pool until a full collection, which the writer's thread, keeping little, reaches
    // rarely.
    const values = new Array<unknown>(ROWS_PER_STATEMENT * columns);
    let length = 0;
    return {
      put(row, from = 0) {
        for (let column = 0; column < columns; column++) values[length++] = row[from + column];
        if (length === values.length) {
          statement(ROWS_PER_STATEMENT).run(values);
          length = 0;
        }
      },
      end() {
        const count = length / columns;
        for (let done = 0; done < count; ) {
          let size = ROWS_PER_STATEMENT;
          while (size > count - done) size >>= 1;
          statement(size).run(values.slice(done * columns, (done + size) * columns));
          done += size;
        }
        length = 0;
      },
    };
  };
}

const EMPTY: Buffer = Buffer.alloc(0);

/** Adds the counts and latencies of a rollup inserted (`excluded`) to the stored one of its monitor and hour. */
const ADD_TO_ROLLUP = `on conflict (monitor_id, hour) do update set success_count = success_count + excluded.success_count,
  degraded_count = degraded_count + excluded.degraded_count, error_count = error_count + excluded.error_count,
  latency = latency_merge(latency, excluded.latency), last_ping_at = max(last_ping_at, excluded.last_ping_at)`;

/**
 * How the writer's statements of many rows insert. SQLite keeps a copy of each page such a
 * statement changes until the statement ends, to undo that statement alone should a constraint
 * fail (ABORT, the default) or a foreign key be missing: `or fail` stops at the failing row
 * instead, and the writer's connection checks no foreign keys (createResultWriter). Nothing here
 * needs the copies: a write is one transaction, undone whole when any of its statements fails,
 * and it reads which of its monitors exist in that transaction, which holds the write lock. They
 * came to megabytes a second at 100,000 monitors, churned through the thread's malloc heap and
 * grew it for minutes; a batch takes 13 % less time without them.
 */
const INSERT = 'insert or fail into';

function statementsFor(sqlite: SQLite.Database) {
  // Adds a check's latency to a stored rollup inside SQLite: no read of the rollup before the write.
  sqlite.function('latency_merge', { deterministic: true }, (stored, added) =>
    (added as Buffer).length === 0 ? stored : LatencyHistogram.mergeEncoded(stored as Buffer, added as Buffer),
  );
  // The latencies of rollups merged, for a day's.
  sqlite.aggregate('latency_sum', { start: EMPTY, step: (sum, latency) => LatencyHistogram.mergeEncoded(sum as Buffer, latency as Buffer) });
  return {
    // Checks of monitors deleted meanwhile are dropped.
    existing: sqlite.prepare<[string], number>('select id from monitors where id in (select value from json_each(?))').pluck(),
    insertResults: multiRow(sqlite, RESULT_COLUMNS, (values) => `${INSERT} check_results (${RESULT_COLUMN_NAMES.join(', ')}) values ${values}`),
    addToRollups: multiRow(
      sqlite,
      7,
      (values) =>
        `${INSERT} check_rollups (monitor_id, hour, success_count, degraded_count, error_count, latency, last_ping_at) values ${values} ${ADD_TO_ROLLUP}`,
    ),
    saveStates: multiRow(
      sqlite,
      6,
      (values) => `${INSERT} check_state (monitor_id, runner, result, regions, checked_at, latency_ms) values ${values}
       on conflict (monitor_id, runner) do update set result = excluded.result, regions = excluded.regions, checked_at = excluded.checked_at,
         latency_ms = excluded.latency_ms
       where excluded.checked_at >= check_state.checked_at`,
    ),
    latest: sqlite.prepare<[number], Overall['latest'][number]>('select runner, result, checked_at as at from check_state where monitor_id = ?'),
    overall: sqlite.prepare<[number], CheckOutcome>('select state from monitor_state where monitor_id = ?').pluck(),
    saveOverall: sqlite.prepare(
      `insert into monitor_state (monitor_id, state, changed_at) values (?, ?, ?)
       on conflict (monitor_id) do update set state = excluded.state, changed_at = excluded.changed_at`,
    ),
    pruneResults: sqlite.prepare(`delete from check_results where id in (select id from check_results where started_at < ? limit ${PRUNE_CHUNK})`),
    lastId: sqlite.prepare<[], number | null>('select max(id) from check_results').pluck(),
    pruneResultsBefore: sqlite.prepare(`delete from check_results where id in (select id from check_results where id < ? order by id limit ${PRUNE_CHUNK})`),
    monitorIdsFrom: sqlite.prepare<[number, number], number>('select id from monitors where id > ? order by id limit ?').pluck(),
    // One seek along the primary key per monitor: a delete by hour alone would read the whole table.
    pruneRollups: sqlite.prepare('delete from check_rollups where monitor_id = ? and hour < ?'),
    // One seek: most monitors have nothing to fold, and the fold itself costs far more than finding that out.
    hasFolds: sqlite
      .prepare<[number, number, number], number>(
        `select 1 from check_rollups where monitor_id = ? and hour >= ? and hour < ? and hour % ${DAY_MS} <> 0 limit 1`,
      )
      .pluck(),
    // A day's rollups of other hours added to the row of its first hour (made if there is none), then deleted.
    foldDays: sqlite.prepare(
      `insert into check_rollups (monitor_id, hour, success_count, degraded_count, error_count, latency, last_ping_at)
       select monitor_id, hour - hour % ${DAY_MS} as day, sum(success_count), sum(degraded_count), sum(error_count), latency_sum(latency), max(last_ping_at)
       from check_rollups where monitor_id = ? and hour >= ? and hour < ? and hour % ${DAY_MS} <> 0 group by day ${ADD_TO_ROLLUP}`,
    ),
    deleteFolded: sqlite.prepare(`delete from check_rollups where monitor_id = ? and hour >= ? and hour < ? and hour % ${DAY_MS} <> 0`),
    pruneGaps: sqlite.prepare('delete from check_gaps where ended_at < ?'),
    insertGap: sqlite.prepare('insert into check_gaps (runner, started_at, ended_at) values (?, ?, ?)'),
  };
}

/** Every write to the tables of check results, on `sqlite`: the one connection that writes them. */
export function createResultWriter(sqlite: SQLite.Database) {
  // No foreign keys checked here (see INSERT): the service's connection checks them on every
  // other write.
  sqlite.pragma('foreign_keys = OFF');
  const s = statementsFor(sqlite);
  /**
   * Each monitor's overall state, read from the database the first time this writer stores a
   * check of it, then kept up to date here: it is the one writer of check results, and a check
   * then costs no read to tell whether it changed the state. Changed in place within a write's
   * transaction; if the transaction fails, the monitors it touched are read again next time.
   */
  const overalls = new Map<number, Overall>();

  function overallOf(monitorId: number): Overall {
    let overall = overalls.get(monitorId);
    if (!overall) {
      overalls.set(monitorId, (overall = { latest: s.latest.all(monitorId), state: s.overall.get(monitorId) ?? null }));
    }
    return overall;
  }

  /** Runs one statement given as data (`within`, the engine's own writes): its rows, or how many rows it changed. */
  function execute(sql: string, parameters: readonly unknown[]): { rows: unknown[]; changes: number } {
    const statement = sqlite.prepare(sql);
    return statement.reader ? { rows: statement.all(...parameters), changes: 0 } : { rows: [], changes: statement.run(...parameters).changes };
  }

  /** Runs `work` on each of the next ROLLUP_PRUNE_MONITORS monitors after id `after`, in one transaction; returns their ids. */
  const perMonitor = (after: number, work: (id: number) => void) =>
    sqlite.transaction(() => {
      const chunk = s.monitorIdsFrom.all(after, ROLLUP_PRUNE_MONITORS);
      for (const id of chunk) work(id);
      return chunk;
    })();

  return {
    /**
     * See ResultStore.write: `chunks` are the checks as rows of check_results (RESULT_COLUMNS
     * values each, flat), CHECKS_PER_CHUNK to a chunk but the last, and `within` runs last in the
     * transaction.
     */
    write(chunks: unknown[][], within?: WithinStatement): WriteOutcome {
      /** The chunk holding check `i` of the batch, and where its row starts there. */
      const chunkOf = (i: number) => chunks[Math.floor(i / CHECKS_PER_CHUNK)]!;
      const rowStart = (i: number) => (i % CHECKS_PER_CHUNK) * RESULT_COLUMNS;
      /** The value of check `i` in column `column` (of RESULT_COLUMN_NAMES). */
      const value = (i: number, column: number) => chunkOf(i)[rowStart(i) + column];
      const count = chunks.reduce((sum, chunk) => sum + chunk.length, 0) / RESULT_COLUMNS;
      const touched = new Set<number>();
      try {
        return sqlite
          .transaction(() => {
            const outcome: WriteOutcome = [];
            const ids = new Set<number>();
            for (let i = 0; i < count; i++) ids.add(value(i, 0) as number);
            const existing = new Set(s.existing.all(JSON.stringify([...ids])));
            /** The checks of existing monitors, by their place in the batch. */
            const kept: number[] = [];
            const results = s.insertResults();
            for (let i = 0; i < count; i++) {
              const monitorId = value(i, 0) as number;
              if (!existing.has(monitorId)) continue;
              kept.push(i);
              touched.add(monitorId);
              const startedAt = value(i, 3) as number;
              const { from, to } = applyCheck(overallOf(monitorId), value(i, 1) as string, value(i, 4) as CheckOutcome, startedAt);
              if (to !== from) s.saveOverall.run(monitorId, to, startedAt);
              outcome.push(i, from, to);
              results.put(chunkOf(i), rowStart(i));
            }
            results.end();
            // States and rollups go in the order of their monitors: with many monitors each check
            // changes its own pages of these tables, and neighbours in that order share pages, so
            // each statement changes fewer pages (at 100,000 monitors about 10 µs less a check, of
            // 60, when each page changed was also copied). The sort is stable: a monitor's checks stay
            // in the batch's order, so the later state wins and buckets are added in the same order.
            kept.sort((a, b) => (value(a, 0) as number) - (value(b, 0) as number));
            const states = s.saveStates();
            const rollups = s.addToRollups();
            for (const i of kept) {
              // The first six of RESULT_COLUMN_NAMES.
              const monitorId = value(i, 0) as number;
              const runner = value(i, 1) as string;
              const regions = value(i, 2) as string;
              const startedAt = value(i, 3) as number;
              const result = value(i, 4) as CheckOutcome;
              const latencyMs = value(i, 5) as number;
              states.put([monitorId, runner, result, regions, startedAt, latencyMs]);
              // Latency percentiles describe answered checks: a failure's duration is its timeout.
              const answered = result !== 'down';
              rollups.put([
                monitorId,
                hourOf(startedAt),
                result === 'up' ? 1 : 0,
                result === 'degraded' ? 1 : 0,
                answered ? 0 : 1,
                answered ? LatencyHistogram.encodeOne(latencyMs) : EMPTY,
                startedAt,
              ]);
            }
            states.end();
            rollups.end();
            if (within) execute(within.sql, within.parameters);
            return outcome;
          })
          .immediate();
      } catch (error) {
        for (const monitorId of touched) overalls.delete(monitorId);
        throw error;
      }
    },

    /** Drops what is kept of one monitor's overall state, or of every monitor's: it is read again at its next check. */
    forget(monitorId?: number): void {
      if (monitorId === undefined) overalls.clear();
      else overalls.delete(monitorId);
    },

    insertGap: (runner: string, startedAt: number, endedAt: number) => void s.insertGap.run(runner, startedAt, endedAt),
    pruneResultsBefore: (before: number) => s.pruneResults.run(before).changes,
    // Ids of deleted monitors' rows are gaps: the last `keep` ids hold that many rows at most.
    pruneResultsBeyond: (keep: number) => s.pruneResultsBefore.run((s.lastId.get() ?? 0) - keep + 1).changes,
    pruneRollups: (after: number, before: number) => perMonitor(after, (id) => s.pruneRollups.run(id, before)),
    foldDays: (after: number, from: number, to: number) =>
      perMonitor(after, (id) => {
        if (s.hasFolds.get(id, from, to) === undefined) return;
        s.foldDays.run(id, from, to);
        s.deleteFolded.run(id, from, to);
      }),
    pruneGaps: (before: number) => void s.pruneGaps.run(before),

    /** One statement of the engine's own (see engineWrites in result-store-sqlite.ts). */
    execute,
  };
}

export type ResultWriter = ReturnType<typeof createResultWriter>;
