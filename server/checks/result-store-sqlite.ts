import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import type SQLite from 'better-sqlite3';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { DATABASE_FILE, type Db, dataDirOf, onDestroy, withSqlite } from '../db/open.ts';
import type { CheckResultRow, Database } from '../db/schema.ts';
import type { CheckOutcome } from '../domain/monitors/check-results.ts';
import { packageRoot } from '../package-root.ts';
import {
  detailsOf,
  type GapRow,
  type RawRow,
  type ResultTables,
  type RollupRow,
  type StateRow,
  type StoredCheck,
  type StoredTransition,
} from './result-tables.ts';
import { CHECKS_PER_CHUNK, RESULT_COLUMN_NAMES, type ResultWriter, type WriteOutcome } from './result-writer.ts';
import type { WriterAnswer, WriterCall, WriterData } from './result-writer-thread.ts';

/**
 * The result store on SQLite. Its reads are prepared statements on the service's connection. Its
 * writes are the result writer's (result-writer.ts), on a connection of its own in a thread of its
 * own, started with the first write and ended when the database closes: storing a batch of
 * thousands of checks takes a tenth of a second or more at many monitors, which the service's
 * thread then spends on checks and requests (at 100,000 monitors, storing was a quarter of its time
 * and grew as the results index outgrew the page cache; checks waited behind it for seconds). In
 * WAL mode the service's connection reads what the writer committed, and each waits for the
 * other's write for as long as its busy timeout.
 */

/** The writer thread's code: the sources' module when running from them, else the bundle's (scripts/build.ts). */
const WRITER_THREAD = import.meta.url.endsWith('.ts') ? new URL('./result-writer-thread.ts', import.meta.url) : join(packageRoot, 'dist', 'result-writer.js');

/**
 * The writer's young generation, where V8 allocates: a batch's rows live for its write only, and
 * a few MB hold them. V8's own limit lets the thread's heap grow to 180 MB at 100,000 monitors,
 * where it stays under 70 MB with this one.
 */
const WRITER_YOUNG_GENERATION_MB = 8;

/** How long closing the database waits at most for the writer to close its connection. */
const CLOSE_WAIT_MS = 10_000;

/** The result writer in its thread, as calls that resolve with its answers, in the order they were made. */
function writerThread(file: string) {
  let worker: { thread: Worker; closed: Int32Array } | undefined;
  let closed = false;
  let lastId = 0;
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

  const start = () => {
    // Set to 1 by the thread once its connection is closed.
    const connectionClosed = new Int32Array(new SharedArrayBuffer(4));
    const thread = new Worker(WRITER_THREAD, {
      workerData: { file, closed: connectionClosed } satisfies WriterData,
      resourceLimits: { maxYoungGenerationSizeMb: WRITER_YOUNG_GENERATION_MB },
    });
    const started = { thread, closed: connectionClosed };
    // Nothing waits on it while idle: it never holds the process open.
    thread.unref();
    thread.on('message', (answer: WriterAnswer) => {
      const call = waiting.get(answer.id);
      waiting.delete(answer.id);
      if (waiting.size === 0) thread.unref();
      if ('error' in answer) call?.reject(Object.assign(new Error(answer.error.message), { code: answer.error.code }));
      else call?.resolve(answer.value);
    });
    const stopped = (error: Error) => {
      if (worker === started) worker = undefined;
      for (const call of waiting.values()) call.reject(error);
      waiting.clear();
    };
    thread.on('error', (error) => stopped(new Error(`the result writer failed: ${error.message}`)));
    thread.on('exit', (code) => stopped(new Error(`the result writer stopped (exit code ${code})`)));
    return started;
  };

  return {
    call<M extends keyof ResultWriter>(method: M, ...args: Parameters<ResultWriter[M]>): Promise<ReturnType<ResultWriter[M]>> {
      if (closed) return Promise.reject(new Error('the database is closed'));
      const { thread } = (worker ??= start());
      const id = ++lastId;
      thread.ref();
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
        thread.postMessage({ id, method, args } satisfies WriterCall);
      });
    },

    /**
     * Lets the writer finish what it was sent and close its connection, and waits for that: the
     * database's files are the caller's again once it returns (a folder removed right after holds
     * no file the writer is still closing).
     */
    close(): void {
      closed = true;
      if (!worker) return;
      worker.thread.postMessage(null);
      Atomics.wait(worker.closed, 0, 0, CLOSE_WAIT_MS);
      worker = undefined;
    },
  };
}

/**
 * The database for the engine's own writes, its lease renewals and its runner's heartbeat (a few
 * statements every 10 s): each runs on the result writer's connection while the writer runs (it
 * is started by the first batch of checks), else on the service's. SQLite drops a connection's
 * whole page cache whenever another connection commits: made on the service's connection, these
 * writes emptied the writer's 32 MB every few seconds, and refilling it again and again grew the
 * thread's memory for minutes at many monitors. Single statements only: no transaction.
 */
function engineWrites(db: Db, running: () => ReturnType<typeof writerThread> | undefined): Db {
  const connection: DatabaseConnection = {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      const writer = running();
      if (!writer) return db.executeQuery<R>(query);
      const { rows, changes } = await writer.call('execute', query.sql, query.parameters);
      return { rows: rows as R[], numAffectedRows: BigInt(changes) };
    },
    async *streamQuery() {
      throw new Error("the engine's writes stream no rows");
    },
  };
  const single = () => Promise.reject(new Error("the engine's writes are single statements"));
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: single,
    commitTransaction: single,
    rollbackTransaction: single,
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => driver,
      createIntrospector: (kysely) => new SqliteIntrospector(kysely),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
}

function readStatements(sqlite: SQLite.Database) {
  return {
    rollupsSince: sqlite.prepare<[number, number], RollupRow>(
      'select success_count, degraded_count, error_count, latency, last_ping_at from check_rollups where monitor_id = ? and hour >= ?',
    ),
    rawBetween: sqlite.prepare<[number, number, number], RawRow>(
      'select result, latency_ms, started_at from check_results where monitor_id = ? and started_at >= ? and started_at < ?',
    ),
    states: sqlite.prepare<[number], StateRow>('select monitor_id, runner, result, regions, checked_at from check_state where monitor_id = ?'),
    results: sqlite.prepare<[number, number, number, number], CheckResultRow>(
      'select * from check_results where monitor_id = ? and started_at >= ? order by started_at desc, id desc limit ? offset ?',
    ),
    result: sqlite.prepare<[number], CheckResultRow>('select * from check_results where id = ?'),
    gapsSince: sqlite.prepare<[number], GapRow>('select runner, started_at, ended_at from check_gaps where ended_at >= ? order by started_at'),
  };
}

/**
 * Checks as rows of check_results, flat (the values of RESULT_COLUMN_NAMES, in order), in chunks
 * of CHECKS_PER_CHUNK checks: what the writer is sent, a few arrays of plain values rather than
 * thousands of objects to copy. A batch of 4,000 checks in one array would be 64,000 values
 * (500 KB), one of V8's large objects, in each thread (see the writer's multiRow). Each chunk is
 * made at its full length: one grown by push copies itself as it grows.
 */
function resultChunks(checks: StoredCheck[]): unknown[][] {
  // The engine gives the monitors listing the same regions one array: a batch has a few.
  const regionsJson = new Map<string[], string>();
  const chunks: unknown[][] = [];
  let rows: unknown[] = [];
  let i = 0;
  for (let index = 0; index < checks.length; index++) {
    const c = checks[index]!;
    if (index % CHECKS_PER_CHUNK === 0) {
      chunks.push((rows = new Array<unknown>(Math.min(CHECKS_PER_CHUNK, checks.length - index) * RESULT_COLUMN_NAMES.length)));
      i = 0;
    }
    let regions = regionsJson.get(c.regions);
    if (regions === undefined) regionsJson.set(c.regions, (regions = JSON.stringify(c.regions)));
    const t = c.timing;
    const details = detailsOf(c);
    rows[i++] = c.monitorId;
    rows[i++] = c.runner;
    rows[i++] = regions;
    rows[i++] = c.startedAt;
    rows[i++] = c.result;
    rows[i++] = c.latencyMs;
    rows[i++] = t.dns;
    rows[i++] = t.connect;
    rows[i++] = t.tls;
    rows[i++] = t.ttfb;
    rows[i++] = t.transfer;
    rows[i++] = c.attempts;
    rows[i++] = c.message;
    rows[i++] = c.grpcStatus;
    rows[i++] = c.statusCode;
    rows[i++] = details;
  }
  return chunks;
}

export function sqliteResultTables(db: Db): ResultTables {
  let statements: ReturnType<typeof readStatements> | undefined;
  const run = <T>(work: (s: ReturnType<typeof readStatements>) => T) => withSqlite(db, (sqlite) => work((statements ??= readStatements(sqlite))));
  let writer: ReturnType<typeof writerThread> | undefined;
  /** The writer, made on first use and closed with the database. */
  const writerOf = () => {
    if (!writer) {
      const made = (writer = writerThread(join(dataDirOf(db), DATABASE_FILE)));
      onDestroy(db, () => made.close());
    }
    return writer;
  };

  return {
    async write(checks, within) {
      const outcome: WriteOutcome = await writerOf().call('write', resultChunks(checks), within && { sql: within.sql, parameters: within.parameters });
      const transitions: StoredTransition[] = [];
      for (let i = 0; i < outcome.length; i += 3) {
        transitions.push({ check: checks[outcome[i] as number]!, from: outcome[i + 1] as CheckOutcome | null, to: outcome[i + 2] as CheckOutcome });
      }
      return transitions;
    },
    // A writer not started keeps nothing; one that stopped kept nothing it still has.
    forget: (monitorId) => void writer?.call('forget', monitorId).catch(() => {}),
    rollupsSince: (monitorId, hour) => run((s) => s.rollupsSince.all(monitorId, hour)),
    rawBetween: (monitorId, from, to) => run((s) => s.rawBetween.all(monitorId, from, to)),
    states: (monitorId) => run((s) => s.states.all(monitorId)),
    results: (monitorId, from, limit, offset) => run((s) => s.results.all(monitorId, from, limit, offset)),
    result: (id) => run((s) => s.result.get(id)),
    gapsSince: (from) => run((s) => s.gapsSince.all(from)),
    insertGap: (runner, startedAt, endedAt) => writerOf().call('insertGap', runner, startedAt, endedAt),
    pruneResultsBefore: (before) => writerOf().call('pruneResultsBefore', before),
    pruneResultsBeyond: (keep) => writerOf().call('pruneResultsBeyond', keep),
    pruneRollups: (after, before) => writerOf().call('pruneRollups', after, before),
    foldDays: (after, from, to) => writerOf().call('foldDays', after, from, to),
    pruneGaps: (before) => writerOf().call('pruneGaps', before),
    engineWrites: engineWrites(db, () => writer),
  };
}
