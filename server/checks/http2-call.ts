import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { TLSSocket } from 'node:tls';
import { ConnectionFailure, type Deadline } from './connection.ts';
import { CompressionError, encodeHeaders, HpackDecoder } from './hpack.ts';

/**
 * One HTTP/2 request and its answer on a connection of its own (RFC 9113), the client side, as
 * much of the protocol as a check's single call needs: the handshake, one stream, its headers,
 * data and trailers, and the frames a peer may send at any time (SETTINGS, PING, WINDOW_UPDATE,
 * GOAWAY). A check pays for every instruction 3,000 times a second at scale, and node:http2's
 * general-purpose session costs several times what this does.
 */

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const FRAME_HEADER = 9;
/** SETTINGS_MAX_FRAME_SIZE's default: this client never allows larger frames. */
const MAX_FRAME = 16_384;
/** The stream's initial flow-control window: all the data a peer may send without our WINDOW_UPDATE. */
const WINDOW = 65_535;
const STREAM = 1;

/** Frame types. */
const Type = { Data: 0, Headers: 1, RstStream: 3, Settings: 4, PushPromise: 5, Ping: 6, Goaway: 7, Continuation: 9 } as const;
/** Frame flags (END_STREAM and ACK share a bit, on different frame types). */
const Flag = { EndStream: 0x1, Ack: 0x1, EndHeaders: 0x4, Padded: 0x8, Priority: 0x20 } as const;
const NO_ERROR = 0;
const REFUSED_STREAM = 7;

/** Writes a frame's header at `at` in `out`; returns where its payload begins. */
function writeFrameHeader(out: Buffer, at: number, type: number, flags: number, stream: number, length: number): number {
  out.writeUIntBE(length, at, 3);
  out[at + 3] = type;
  out[at + 4] = flags;
  out.writeUInt32BE(stream, at + 5);
  return at + FRAME_HEADER;
}

function frame(type: number, flags: number, stream: number, payload: Uint8Array = Buffer.alloc(0)): Buffer {
  const bytes = Buffer.allocUnsafe(FRAME_HEADER + payload.length);
  bytes.set(payload, writeFrameHeader(bytes, 0, type, flags, stream, payload.length));
  return bytes;
}

/** SETTINGS_ENABLE_PUSH = 0: a check never takes pushed streams. */
const CLIENT_SETTINGS = frame(Type.Settings, 0, 0, Buffer.from([0, 2, 0, 0, 0, 0]));
const SETTINGS_ACK = frame(Type.Settings, Flag.Ack, 0);
/** What the client sends first: the preface and its SETTINGS, in one write. */
const CLIENT_HANDSHAKE = Buffer.concat([PREFACE, CLIENT_SETTINGS]);

export type Headers = [string, string][];

export interface Http2Answer {
  /** The answer's header fields; empty when the stream was reset before any. */
  headers: Headers;
  /** The trailer fields, if the answer ended with them. */
  trailers: Headers;
  body: Buffer;
  /** The HTTP/2 error code with which the peer reset the stream, if it did. */
  resetCode?: number;
  /** When the answer's headers arrived (performance.now()), 0 if they never did. */
  respondedAt: number;
}

/** The value of `name` in `headers` (names are lower-case on the wire), several joined by ", ". */
export function headerValue(headers: Headers, name: string): string | undefined {
  let value: string | undefined;
  for (const [key, text] of headers) if (key === name) value = value === undefined ? text : `${value}, ${text}`;
  return value;
}

type FrameHandler = (type: number, flags: number, stream: number, payload: Buffer) => void;

/**
 * A connection past the HTTP/2 handshake. Frames are read as they arrive: each complete one goes
 * to the phase in progress (the handshake, then the call). Between phases they wait, and so does
 * the connection's end, so nothing the server sends early is lost.
 */
export class Http2Connection {
  readonly #socket: Socket | TLSSocket;
  #pending: Buffer | undefined;
  readonly #decoder = new HpackDecoder();
  #onFrame: FrameHandler | undefined;
  #onEnd: (() => void) | undefined;
  /** The connection closed, broke, or broke the protocol. */
  #ended = false;

  private constructor(socket: Socket | TLSSocket) {
    this.#socket = socket;
    this.#ended = socket.destroyed;
    socket.on('data', (chunk: Buffer) => this.#read(chunk));
    socket.on('error', () => this.#end());
    socket.on('close', () => this.#end());
  }

  #end(): void {
    this.#ended = true;
    this.#onEnd?.();
  }

  /**
   * Sends the client preface and waits for the server's SETTINGS, its first frame: proof that the
   * other end speaks HTTP/2. Fails with the deadline's timeout, or else a ConnectionFailure of
   * kind 'protocol' that says the handshake was not answered; the socket is closed either way.
   */
  static async open(socket: Socket | TLSSocket, deadline: Deadline): Promise<Http2Connection> {
    const connection = new Http2Connection(socket);
    try {
      await connection.#phase<void>(deadline, (finish, fail) => {
        connection.#onFrame = (type, flags, stream) => {
          // Acknowledged with the request, in one write.
          if (type !== Type.Settings || flags & Flag.Ack || stream !== 0) return fail();
          finish();
        };
        connection.#onEnd = () => fail();
        connection.#write(CLIENT_HANDSHAKE);
      });
      return connection;
    } catch {
      socket.destroy();
      if (deadline.expired) throw deadline.timedOut();
      throw new ConnectionFailure('protocol', 'the server did not answer the HTTP/2 handshake');
    }
  }

  /**
   * Sends one request (headers, pseudo-headers first, and a body) on stream 1 and collects the
   * whole answer. A stream the server resets is an answer; a connection that ends or breaks the
   * protocol before the answer's headers is a ConnectionFailure of kind 'reset' or 'protocol'.
   */
  call(headers: Headers, body: Uint8Array, deadline: Deadline): Promise<Http2Answer> {
    const answer: Http2Answer = { headers: [], trailers: [], body: Buffer.alloc(0), respondedAt: 0 };
    const chunks: Buffer[] = [];
    let received = 0;
    let block: Buffer[] | undefined;
    let blockEndsStream = false;
    return this.#phase<Http2Answer>(deadline, (finish, fail) => {
      const done = () => {
        answer.body = Buffer.concat(chunks);
        finish(answer);
      };
      /** The stream ended before the server ended it: an answer begun is kept, as node:http2 keeps it. */
      const closedEarly = () => {
        if (answer.respondedAt) return done();
        fail(new ConnectionFailure('reset', 'the connection closed before the server answered'));
      };
      const brokenProtocol = (what: string) => fail(new ConnectionFailure('protocol', `the server broke the HTTP/2 protocol: ${what}`));
      const endOfBlock = () => {
        let fields: Headers;
        try {
          fields = this.#decoder.decode(block!.length === 1 ? block![0]! : Buffer.concat(block!));
        } catch (error) {
          if (error instanceof CompressionError) return brokenProtocol(error.message);
          throw error;
        }
        block = undefined;
        if (answer.respondedAt === 0) {
          // Informational (1xx) headers come before the answer's own and are skipped.
          if (headerValue(fields, ':status')?.startsWith('1')) return;
          answer.respondedAt = performance.now();
          answer.headers = fields;
        } else {
          answer.trailers = fields;
        }
        if (blockEndsStream) done();
      };
      this.#onFrame = (type, flags, stream, payload) => {
        if (block && type !== Type.Continuation) return brokenProtocol('a header block was interrupted');
        switch (type) {
          case Type.Settings:
            if (!(flags & Flag.Ack)) this.#write(SETTINGS_ACK);
            return;
          case Type.Ping:
            if (!(flags & Flag.Ack)) this.#write(frame(Type.Ping, Flag.Ack, 0, payload));
            return;
          case Type.Goaway:
            // The server will not process stream 1: the same as a connection that closed.
            if ((payload.readUInt32BE(0) & 0x7fffffff) < STREAM) closedEarly();
            return;
          case Type.PushPromise:
            return brokenProtocol('a pushed stream, which this client disabled');
        }
        if (stream !== STREAM) return; // WINDOW_UPDATE, PRIORITY and frames of unknown types
        switch (type) {
          case Type.Data: {
            const data = unpadded(payload, flags);
            if (!data) return brokenProtocol('a DATA frame with more padding than data');
            received += payload.length;
            // A health answer is a few bytes; one that fills the whole window would wait for a
            // WINDOW_UPDATE this client never sends.
            if (received >= WINDOW && !(flags & Flag.EndStream)) return brokenProtocol(`the answer's data reached ${WINDOW} bytes`);
            chunks.push(data);
            if (flags & Flag.EndStream) done();
            return;
          }
          case Type.Headers: {
            let fragment = unpadded(payload, flags);
            if (fragment && flags & Flag.Priority) fragment = fragment.length >= 5 ? fragment.subarray(5) : undefined;
            if (!fragment) return brokenProtocol('a HEADERS frame shorter than its padding');
            block = [fragment];
            blockEndsStream = (flags & Flag.EndStream) !== 0;
            if (flags & Flag.EndHeaders) endOfBlock();
            return;
          }
          case Type.Continuation:
            if (!block) return brokenProtocol('a CONTINUATION frame without a header block');
            block.push(payload);
            if (flags & Flag.EndHeaders) endOfBlock();
            return;
          case Type.RstStream: {
            const code = payload.readUInt32BE(0);
            if (code !== NO_ERROR && code !== REFUSED_STREAM) {
              answer.resetCode = code;
              return done();
            }
            return closedEarly();
          }
        }
      };
      this.#onEnd = closedEarly;
      this.#write(requestFrames(encodeHeaders(headers), body));
    });
  }

  /** Closes the connection at once. */
  close(): void {
    this.#socket.destroy();
  }

  #write(bytes: Buffer): void {
    if (!this.#socket.destroyed) this.#socket.write(bytes);
  }

  /** Splits what arrived into frames; a frame larger than this client allows ends the connection. */
  #read(chunk: Buffer): void {
    if (this.#ended) return;
    let bytes = this.#pending && chunk.length > 0 ? Buffer.concat([this.#pending, chunk]) : (this.#pending ?? chunk);
    while (this.#onFrame && bytes.length >= FRAME_HEADER) {
      const length = bytes.readUIntBE(0, 3);
      if (length > MAX_FRAME) return this.#broken();
      if (bytes.length < FRAME_HEADER + length) break;
      const payload = bytes.subarray(FRAME_HEADER, FRAME_HEADER + length);
      const type = bytes[3]!;
      const flags = bytes[4]!;
      const stream = bytes.readUInt32BE(5) & 0x7fffffff;
      bytes = bytes.subarray(FRAME_HEADER + length);
      // Frames too short for their fixed fields break the protocol; they are never read past.
      if ((type === Type.Ping && length !== 8) || (type === Type.Goaway && length < 8) || (type === Type.RstStream && length !== 4)) {
        return this.#broken();
      }
      this.#onFrame?.(type, flags, stream, payload);
    }
    this.#pending = bytes.length > 0 ? bytes : undefined;
  }

  /** A frame broke the protocol: nothing more is read, and the connection has ended. */
  #broken(): void {
    this.#pending = undefined;
    this.#socket.destroy();
    this.#end();
  }

  /**
   * Runs one phase of the connection: `start` sets the frame and end handlers, which settle the
   * phase once; the deadline's end fails it. Afterwards frames wait for the next phase.
   */
  #phase<T>(deadline: Deadline, start: (finish: (value: T) => void, fail: (error?: unknown) => void) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (deadline.expired) return reject(deadline.timedOut());
      let settled = false;
      const settle = () => {
        settled = true;
        this.#onFrame = this.#onEnd = undefined;
        deadline.onEnd(undefined);
      };
      deadline.onEnd(() => {
        if (settled) return;
        settle();
        reject(deadline.timedOut());
      });
      start(
        (value) => {
          if (settled) return;
          settle();
          resolve(value);
        },
        (error) => {
          if (settled) return;
          settle();
          reject(error);
        },
      );
      // What arrived before this phase began, then the end if it came too.
      if (this.#pending) this.#read(Buffer.alloc(0));
      if (this.#ended) this.#onEnd?.();
    });
  }
}

/** The payload without its padding (PADDED flag), or undefined if the padding is longer than the frame. */
function unpadded(payload: Buffer, flags: number): Buffer | undefined {
  if (!(flags & Flag.Padded)) return payload;
  if (payload.length < 1) return undefined;
  const padding = payload[0]!;
  return padding < payload.length ? payload.subarray(1, payload.length - padding) : undefined;
}

/**
 * The request's frames, built in one buffer for one write: the acknowledgement of the server's
 * SETTINGS, the header block as HEADERS and, past the frame size, CONTINUATION frames, and the
 * body as one DATA frame that ends the stream.
 */
function requestFrames(block: Buffer, body: Uint8Array): Buffer {
  const headerFrames = Math.max(1, Math.ceil(block.length / MAX_FRAME));
  const out = Buffer.allocUnsafe(SETTINGS_ACK.length + headerFrames * FRAME_HEADER + block.length + FRAME_HEADER + body.length);
  let at = SETTINGS_ACK.copy(out, 0);
  let from = 0;
  do {
    const to = Math.min(from + MAX_FRAME, block.length);
    at = writeFrameHeader(out, at, from === 0 ? Type.Headers : Type.Continuation, to === block.length ? Flag.EndHeaders : 0, STREAM, to - from);
    at += block.copy(out, at, from, to);
    from = to;
  } while (from < block.length);
  out.set(body, writeFrameHeader(out, at, Type.Data, Flag.EndStream, STREAM, body.length));
  return out;
}
