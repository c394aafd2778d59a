import pino from 'pino';

/** The longest a log line waits in memory before it is written. */
const LOG_FLUSH_MS = 100;
/** Lines are written once this many bytes wait, or at the latest after LOG_FLUSH_MS. */
const LOG_BATCH_BYTES = 4096;

/**
 * Where the service, a runner and the desktop app's service host write their JSON log lines
 * (stderr unless told): a batch of lines per write rather than a write per line, since a busy
 * service logs a line per request. A line waits at most LOG_FLUSH_MS. The logger's `flush()` (as
 * after a fatal line) writes what waits at once, and so does the process's exit, whatever ends it
 * (process.exit, an uncaught error, an empty event loop), except a signal it does not handle.
 */
export function logDestination(fd = 2) {
  const destination = pino.destination({ dest: fd, sync: true, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS });
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // A closed or broken stderr at exit: nothing is left to tell.
    }
  });
  return destination;
}
