import pino from 'pino';

/** The longest a log line waits in memory before it is written. */
const LOG_FLUSH_MS = 100;
/** Lines are written once this many bytes wait, or at the latest LOG_FLUSH_MS after the first of them. */
const LOG_BATCH_BYTES = 4096;

/**
 * Where the service, a runner and the desktop app's service host write their JSON log lines
 * (stderr unless told): a batch of lines per write rather than a write per line, since a busy
 * service logs a line per request. A line waits at most LOG_FLUSH_MS, on a timer set by the
 * first line that waits, so an idle process is never woken to write nothing. The logger's
 * `flush()` (as after a fatal line) writes what waits at once, and so does the process's exit,
 * whatever ends it (process.exit, an uncaught error, an empty event loop), except a signal it
 * does not handle.
 */
export function logDestination(fd = 2) {
  const file = pino.destination({ dest: fd, sync: true, minLength: LOG_BATCH_BYTES });
  let due: NodeJS.Timeout | undefined;
  const flush = (done?: () => void) => {
    clearTimeout(due);
    due = undefined;
    file.flush();
    done?.();
  };
  process.once('exit', () => {
    try {
      file.flushSync();
    } catch {
      // A closed or broken stderr at exit: nothing is left to tell.
    }
  });
  return {
    write(line: string) {
      file.write(line);
      due ??= setTimeout(flush, LOG_FLUSH_MS).unref();
    },
    flush,
  };
}
