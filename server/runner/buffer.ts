import { hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import SQLite from 'better-sqlite3';
import { type RunnerCheck, RunnerCheckSchema } from '../../proto/gen/runner/v1/runner_pb.js';
import { toRunnerCheck } from '../checks/check-runner.ts';
import type { StoredCheck } from '../checks/result-store.ts';
import { createSealer, type Sealer } from '../domain/sealing.ts';
import { AppError } from '../errors.ts';

/**
 * A runner's buffer on disk (SQLite, in its data folder): every result waits here, numbered by its
 * sequence, until the service acknowledges it, so a network cut or a restart loses nothing within
 * the bound. Beside the results: the instance id (sequences count per instance), the running total
 * of results dropped for want of room, and the last assignment, so that a runner started while the
 * service is out of reach checks what it checked before.
 *
 * The assignment holds the monitors' credentials (request headers, gRPC metadata, OTLP headers),
 * so it is sealed as the service seals them (AES-256-GCM, domain/sealing.ts), under a key derived
 * from the location's token. The runner is given its token when it starts and never writes it
 * down, so the folder alone (a backup, a copy of the file) opens nothing. A runner started with
 * another token (the location's token was rotated, or the folder served another location) cannot
 * open the assignment kept under the old one: it is dropped, and the service sends it again on
 * connecting. Results are stored as they are: their response headers are redacted at the probe,
 * as the service stores them.
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

/** What the buffer's sealing key is derived with: a buffer of another program or purpose never shares it. */
const KEY_INFO = 'statusdesk runner buffer: assignment';
/** A keyed check, kept beside the sealed assignment, of the key that sealed it. */
const SEALED_BY = 'sealed-by';

/** The sealer of a buffer: its key comes from the token and the buffer's own random salt. */
const bufferSealer = (token: string, salt: Buffer): Sealer => createSealer(Buffer.from(hkdfSync('sha256', token, salt, KEY_INFO, 32)));

export function openBuffer(dataDir: string, options: { token: string; max?: number }) {
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
    /** `definition` is sealed text; before sealing, the definition's bytes. */
    assignment: sqlite.prepare<[], { monitor_id: string; revision: number; definition: string | Buffer }>(
      'select monitor_id, revision, definition from assignment',
    ),
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

  if (fact('seal_salt') === undefined) setFact('seal_salt', randomBytes(16).toString('base64'));
  const sealer = bufferSealer(options.token, Buffer.from(String(fact('seal_salt')), 'base64'));
  const seal = (definition: Uint8Array) => sealer.seal(Buffer.from(definition).toString('base64'));
  const open = (sealed: string) => new Uint8Array(Buffer.from(sealer.open<string>(sealed), 'base64'));
  const sealedBy = fact('sealed_by');
  const anotherToken = sealedBy !== undefined && !sealer.verify(SEALED_BY, String(sealedBy));
  /** The assignment kept was sealed under another token, and is dropped. */
  const assignmentDropped = anotherToken && statements.assignment.all().length > 0;
  if (sealedBy === undefined) sealInPlace();
  if (anotherToken) {
    sqlite.transaction(() => {
      statements.clearAssignment.run();
      setFact('sealed_by', sealer.token(SEALED_BY));
    })();
  }

  /**
   * Seals an assignment kept in the clear, by a version before sealing (a new buffer has none),
   * then rebuilds the file and empties the WAL: the clear values' bytes stay otherwise in the
   * file's free space and the WAL, even with SQLite's secure_delete.
   */
  function sealInPlace(): void {
    const clear = statements.assignment.all();
    sqlite.transaction(() => {
      for (const row of clear) statements.putMonitor.run(row.monitor_id, row.revision, seal(row.definition as Buffer));
      setFact('sealed_by', sealer.token(SEALED_BY));
    })();
    if (clear.length === 0) return;
    sqlite.exec('vacuum');
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
  }

  const putAll = (monitors: readonly AssignedDefinition[]) => {
    for (const m of monitors) statements.putMonitor.run(m.id, m.revision, seal(m.definition));
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
      return statements.assignment.all().map((row) => ({ id: row.monitor_id, revision: row.revision, definition: open(String(row.definition)) }));
    },

    /** Whether the assignment kept was sealed under another token and dropped on opening. */
    assignmentDropped,

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
