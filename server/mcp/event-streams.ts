import { type Credential, credentialId } from '../domain/actor.ts';

/** Event streams one credential may hold open at once: one per connected client, and a few to spare. */
export const MAX_STREAMS_PER_CREDENTIAL = 4;
/** A comment line every so often: proxies and clients see the stream is alive, and a client that is gone is found. */
export const KEEP_ALIVE_MS = 15_000;
/** A reader this far behind is not reading: its stream is ended rather than buffered without end. */
const MAX_BACKLOG_BYTES = 64 * 1024;

export interface EventStreamOptions {
  /** Aborted when the service starts stopping: every stream ends then, and any opened later at once. */
  stopping?: AbortSignal;
  perCredential?: number;
  keepAliveMs?: number;
}

/** Why a stream was not opened: the credential holds all it may. */
export interface StreamsFull {
  open: number;
  retryAfterSeconds: number;
}

export interface EventStreams {
  /**
   * The event stream of a GET (Streamable HTTP, 2025 revisions): a body of comment lines, a
   * keep-alive every `keepAliveMs`. It ends when the client goes away, when the service stops, or
   * when `stillLive` (asked at every keep-alive) says the credential it was opened with is gone.
   * When the credential already holds its limit of open streams, no stream: how many it holds.
   */
  open(actor: Credential, signal: AbortSignal, stillLive: () => Promise<boolean>): ReadableStream<Uint8Array> | StreamsFull;
  /** The streams open now, in all. */
  readonly size: number;
}

const encoder = new TextEncoder();
const OPENED = encoder.encode(': stream open\n\n');
const KEEP_ALIVE = encoder.encode(': keep-alive\n\n');

/**
 * The GET streams of /mcp. The server is stateless and sends nothing unasked, so a stream carries
 * only comments; it is there because 2025 clients open one after `initialize`. Each is counted
 * against its credential, so that no credential can hold an unbounded number of connections.
 */
export function createEventStreams(options: EventStreamOptions = {}): EventStreams {
  const perCredential = options.perCredential ?? MAX_STREAMS_PER_CREDENTIAL;
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
  const counts = new Map<string, number>();
  const endings = new Set<() => void>();
  options.stopping?.addEventListener(
    'abort',
    () => {
      for (const end of [...endings]) end();
    },
    { once: true },
  );

  return {
    get size() {
      return endings.size;
    },
    open(actor, signal, stillLive) {
      const key = credentialId(actor);
      const open = counts.get(key) ?? 0;
      if (open >= perCredential) return { open, retryAfterSeconds: Math.max(1, Math.ceil(keepAliveMs / 1000)) };
      counts.set(key, open + 1);

      let controller!: ReadableStreamDefaultController<Uint8Array>;
      let keepAlive: NodeJS.Timeout | undefined;
      let released = false;
      /** Gives the stream's place back, once, however it ends. */
      const release = () => {
        if (released) return false;
        released = true;
        clearInterval(keepAlive);
        endings.delete(end);
        signal.removeEventListener('abort', release);
        const left = (counts.get(key) ?? 1) - 1;
        if (left > 0) counts.set(key, left);
        else counts.delete(key);
        return true;
      };
      /** The server ends the stream: the response finishes, and the client sees the end. */
      function end() {
        if (release()) controller.close();
      }

      const body = new ReadableStream<Uint8Array>(
        {
          start(c) {
            controller = c;
            c.enqueue(OPENED);
          },
          cancel() {
            release();
          },
        },
        new ByteLengthQueuingStrategy({ highWaterMark: 16 * 1024 }),
      );
      endings.add(end);
      signal.addEventListener('abort', release);
      if (signal.aborted || options.stopping?.aborted) {
        end();
        return body;
      }
      keepAlive = setInterval(() => {
        if ((controller.desiredSize ?? 0) < -MAX_BACKLOG_BYTES) return end();
        controller.enqueue(KEEP_ALIVE);
        stillLive().then(
          (live) => {
            if (!live) end();
          },
          () => end(),
        );
      }, keepAliveMs);
      // A stream never keeps the process alive by itself.
      keepAlive.unref();
      return body;
    },
  };
}
