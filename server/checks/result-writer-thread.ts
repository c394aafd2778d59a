import { parentPort, workerData } from 'node:worker_threads';
import { BUSY_TIMEOUT_MS, openSqlite, tuneConnection } from '../db/sqlite-connection.ts';
import { createResultWriter, type ResultWriter } from './result-writer.ts';

/**
 * The thread that writes check results on SQLite (started by result-store-sqlite.ts, with the
 * database file as its workerData): it opens a connection of its own and runs each call it is
 * sent, in order, answering each with its value or its error, until it is sent null. A batch of thousands of checks
 * takes it a tenth of a second or more; the service's thread meanwhile runs checks and answers
 * requests.
 */

/** A call of the writer: its id, the method, and the arguments. */
export interface WriterCall {
  id: number;
  method: keyof ResultWriter;
  args: unknown[];
}

/** What the thread is started with: the database file, and a flag it sets to 1 once its connection is closed. */
export interface WriterData {
  file: string;
  closed: Int32Array;
}

export type WriterAnswer = { id: number; value: unknown } | { id: number; error: { message: string; code?: string } };

const port = parentPort!;
const { file, closed } = workerData as WriterData;
const sqlite = openSqlite(file, { timeout: BUSY_TIMEOUT_MS });
/**
 * Up to 32 MB of pages. What each batch rewrites at many monitors stays in memory: the latest
 * states and the hour's rollups (about 5 and 12 MB at 100,000 monitors), not read from the file
 * again (storing at 100,000 monitors with SQLite's 2 MB: about 140 against 110 µs a check).
 * SQLite drops a connection's whole cache when another connection commits: the engine's own
 * periodic writes run here too (engineWrites in result-store-sqlite.ts). The results index's
 * pages, one per monitor, are more than any cache holds, and come from the system's file cache.
 * Twice this held 30 MB more of the process's memory, grown over minutes.
 */
const WRITER_CACHE_MB = 32;
tuneConnection(sqlite, WRITER_CACHE_MB);
const writer = createResultWriter(sqlite);

port.on('message', (call: WriterCall | null) => {
  // Null: the service is closing the database; what was sent before is done.
  if (call === null) {
    sqlite.close();
    Atomics.store(closed, 0, 1);
    Atomics.notify(closed, 0);
    port.close();
    return;
  }
  const { id, method, args } = call;
  let answer: WriterAnswer;
  try {
    answer = { id, value: (writer[method] as (...args: unknown[]) => unknown)(...args) };
  } catch (error) {
    answer = { id, error: { message: (error as Error).message, code: (error as { code?: string }).code } };
  }
  port.postMessage(answer);
});
