import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import SQLite from 'better-sqlite3';
import { type RunnerCheck, RunnerCheckSchema } from '../../proto/gen/runner/v1/runner_pb.js';
import { toRunnerCheck } from '../checks/check-runner.ts';
import type { StoredCheck } from '../checks/result-store.ts';
import { AppError } from '../errors.ts';

/**
 * A runner's buffer on disk (SQLite, in its data folder): every result waits here, numbered by its
 * sequence, until the service acknowledges it, so a network cut or a restart loses nothing within
 * the bound. Beside the results: the instance id (sequences count per instance), the running total
 * of results dropped for want of room, and the last assignment, so that a runner started while the
 * service is out of reach checks what it checked before.
 */

export const BUFFER_FILE = 'buffer.db';
export const DEFAULT_BUFFER_MAX = 500_000;
/** Marks the file as a runner's buffer ("SDRB"): a service's database is never taken for one. */
const APPLICATION_ID = 0x53445242;
const SCHEMA = `
  create table if not exists results (sequence integer primary key, check_result blob not null);
  create table if not exists facts (name text primary key, value any not null);
  create table if not exists assignment (monitor_id text primary key, revision integer not null, definition blob not null);
`;

/** One monitor of the assignment, as the service sent it. */
export interface AssignedDefinition {
  id: string;
  revision: number;
  definition: Uint8Array;
}

export function openBuffer(dataDir: string, options: { max?: number } = {}) {
  const max = options.max ?? DEFAULT_BUFFER_MAX;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, BUFFER_FILE);
  let sqlite: SQLite.Database;
  try {
    sqlite = new SQLite(file, { timeout: 5_000 });
    const id = sqlite.pragma('application_id', { simple: true });
    if (id !== 0 && id !== APPLICATION_ID) throw new Error('it is not the buffer of a Statusdesk runner');
  } catch (error) {
    throw new AppError('PRECONDITION_FAILED', `cannot open the runner's buffer ${file}: ${(error as Error).message}`);
  }
  if (process.platform !== 'win32') chmodSync(file, 0o600);
  sqlite.pragma('journal_mode = WAL');
  // Durable against a crash of the process; only power loss may take the last commits.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma(`application_id = ${APPLICATION_ID}`);
  sqlite.exec(SCHEMA);

  const statements = {
    fact: sqlite.prepare<[string], string | number>('select value from facts where name = ?').pluck(),
    setFact: sqlite.prepare('insert into facts (name, value) values (?, ?) on conflict (name) do update set value = excluded.value'),
    insert: sqlite.prepare('insert into results (sequence, check_result) values (?, ?)'),
    deleteUpTo: sqlite.prepare<[number]>('delete from results where sequence <= ?'),
    oldest: sqlite.prepare<[], number | null>('select min(sequence) from results').pluck(),
    batch: sqlite.prepare<[number], { check_result: Buffer }>('select check_result from results order by sequence limit ?'),
    assignment: sqlite.prepare<[], { monitor_id: string; revision: number; definition: Buffer }>('select monitor_id, revision, definition from assignment'),
    putMonitor: sqlite.prepare(
      'insert into assignment (monitor_id, revision, definition) values (?, ?, ?) on conflict (monitor_id) do update set revision = excluded.revision, definition = excluded.definition',
    ),
    removeMonitor: sqlite.prepare('delete from assignment where monitor_id = ?'),
    clearAssignment: sqlite.prepare('delete from assignment'),
  };
  const fact = (name: string) => statements.fact.get(name);
  const setFact = (name: string, value: string | number) => statements.setFact.run(name, value);

  if (fact('instance_id') === undefined) setFact('instance_id', randomUUID());
  const instanceId = String(fact('instance_id'));
  /** The last sequence given; kept apart from the results, which may all be gone. */
  let lastSequence = Number(fact('last_sequence') ?? 0);
  let dropped = Number(fact('dropped') ?? 0);

  const putAll = (monitors: readonly AssignedDefinition[]) => {
    for (const m of monitors) statements.putMonitor.run(m.id, m.revision, m.definition);
  };

  return {
    instanceId,

    /** Results dropped so far because the buffer was full (a running total). */
    get dropped(): number {
      return dropped;
    },

    /** Results waiting for the service. */
    get waiting(): number {
      const oldest = statements.oldest.get();
      return oldest === null || oldest === undefined ? 0 : lastSequence - oldest + 1;
    },

    /** The name of the runner's location, as the service last said it. */
    get locationName(): string | undefined {
      const name = fact('location_name');
      return name === undefined ? undefined : String(name);
    },

    set locationName(name: string) {
      setFact('location_name', name);
    },

    /** Numbers and stores checks in one transaction; beyond the bound, the oldest are deleted and counted as dropped. */
    add(checks: readonly StoredCheck[]): void {
      if (checks.length === 0) return;
      sqlite.transaction(() => {
        let sequence = lastSequence;
        for (const check of checks) {
          sequence++;
          statements.insert.run(sequence, toBinary(RunnerCheckSchema, create(RunnerCheckSchema, toRunnerCheck(sequence, check))));
        }
        // Sequences in the buffer run without a hole from the oldest to the last.
        const over = statements.deleteUpTo.run(sequence - max).changes;
        setFact('last_sequence', sequence);
        if (over > 0) setFact('dropped', dropped + over);
        lastSequence = sequence;
        dropped += over;
      })();
    },

    /** The oldest waiting results, at most `limit`, in sequence order. */
    batch(limit: number): RunnerCheck[] {
      return statements.batch.all(limit).map((row) => fromBinary(RunnerCheckSchema, row.check_result));
    },

    /** The service holds every result up to `sequence`: they are deleted. */
    acknowledge(sequence: number): void {
      statements.deleteUpTo.run(sequence);
      // A buffer restored from an older copy: its next results must not reuse stored sequences.
      if (sequence > lastSequence) setFact('last_sequence', (lastSequence = sequence));
    },

    /** The last assignment, as the service sent it. */
    assignment(): AssignedDefinition[] {
      return statements.assignment.all().map((row) => ({ id: row.monitor_id, revision: row.revision, definition: row.definition }));
    },

    /** A whole assignment, replacing the one kept. */
    replaceAssignment(monitors: readonly AssignedDefinition[]): void {
      sqlite.transaction(() => {
        statements.clearAssignment.run();
        putAll(monitors);
      })();
    },

    /** Changes of the assignment: monitors added or replaced, and those removed. */
    changeAssignment(monitors: readonly AssignedDefinition[], removedIds: readonly string[]): void {
      sqlite.transaction(() => {
        putAll(monitors);
        for (const id of removedIds) statements.removeMonitor.run(id);
      })();
    },

    close(): void {
      sqlite.close();
    },
  };
}

export type RunnerBuffer = ReturnType<typeof openBuffer>;
