import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Http2Server, Http2ServerRequest, Http2ServerResponse, ServerHttp2Session } from 'node:http2';
import net, { type AddressInfo, type Socket } from 'node:net';

export type Request = IncomingMessage | Http2ServerRequest;
export type Response = ServerResponse | Http2ServerResponse;
export type RequestHandler = (req: Request, res: Response) => void;

/** Every cleartext HTTP/2 connection opens with these bytes (RFC 9113, 3.4). */
const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
/** A connection that has not said which protocol it speaks within this time is dropped. */
const SNIFF_TIMEOUT_MS = 10_000;
/** A request's header section must arrive whole within this time of its first byte (docs/reference/security.md). */
export const HEADERS_TIMEOUT_MS = 15_000;
/** A request must arrive whole within this time. */
const REQUEST_TIMEOUT_MS = 60_000;

/**
 * How often node:http looks for requests past their time. Node checks every 30 s by default, so a
 * request sending its headers slowly was cut anywhere from 15 to 45 s; looking every second (more
 * often for a shorter limit) cuts it within a second of the limit. A look walks the open
 * connections only, so it costs nothing that grows with traffic.
 */
export function connectionsCheckingInterval(headersTimeoutMs: number): number {
  return Math.min(1_000, Math.max(50, Math.round(headersTimeoutMs / 10)));
}

/** The size of a header list as HTTP/2 counts it (RFC 9113, 6.5.2): names and values, plus 32 octets per field. */
function headerListSize(rawHeaders: string[]): number {
  let size = 0;
  for (const field of rawHeaders) size += Buffer.byteLength(field);
  return size + (rawHeaders.length / 2) * 32;
}

export interface Listener {
  port: number;
  /** Sets the handler of every request; until then requests are answered 503. */
  handle(handler: RequestHandler): void;
  /** Stops accepting, lets requests in flight finish (up to `graceMs`), then closes the rest. */
  close(graceMs?: number): Promise<void>;
}

/**
 * One port for HTTP/1.1 and cleartext HTTP/2 (h2c with prior knowledge): Node's h2c server cannot
 * speak HTTP/1.1, so a plain TCP server reads the first bytes of each connection and hands the
 * socket to the server that speaks its protocol. Both call the same handler.
 */
export async function listen(options: { host: string; port: number; headersTimeoutMs?: number }): Promise<Listener> {
  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  let handler: RequestHandler = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const dispatch: RequestHandler = (req, res) => handler(req, res);
  const h1 = http.createServer(
    {
      keepAliveTimeout: 5_000,
      headersTimeout: headersTimeout,
      requestTimeout: REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: connectionsCheckingInterval(headersTimeout),
    },
    dispatch,
  );
  // The HTTP/1.1 server never listens itself (the front does), but its connection tracking, which
  // enforces the timeouts above and lets close() drop idle keep-alive sockets, starts on 'listening'.
  h1.emit('listening');
  const sockets = new Set<Socket>();
  const sessions = new Set<ServerHttp2Session>();
  // node:http2 (and node:tls with it) loads with the first HTTP/2 connection: a service only
  // browsers and HTTP/1.1 clients talk to never pays for it, and a start does not.
  let h2: Http2Server | undefined;
  const h2Server = (): Http2Server => {
    if (h2) return h2;
    const http2 = process.getBuiltinModule('node:http2');
    // HTTP/2 takes header blocks no larger than HTTP/1.1 does (http.maxHeaderSize, 16 KiB unless
    // --max-http-header-size says otherwise). The limit is advertised in SETTINGS and enforced by
    // Node once the client has acknowledged them (the stream is reset, ENHANCE_YOUR_CALM); a request
    // sent before that, as a first request usually is, is measured here and answered 431, as
    // HTTP/1.1 answers an oversized header section.
    h2 = http2.createServer({ settings: { maxHeaderListSize: http.maxHeaderSize } }, (req, res) => {
      if (headerListSize(req.rawHeaders) > http.maxHeaderSize) {
        res.statusCode = 431;
        res.setHeader('content-type', 'text/plain; charset=utf-8');
        res.end(`request header fields are over the limit of ${http.maxHeaderSize} bytes\n`);
        return;
      }
      dispatch(req, res);
    });
    // The same limits as HTTP/1.1: an idle connection, or a request that never finishes, is dropped.
    h2.setTimeout(REQUEST_TIMEOUT_MS);
    h2.on('stream', (stream) => stream.setTimeout(REQUEST_TIMEOUT_MS, () => stream.close(http2.constants.NGHTTP2_CANCEL)));
    h2.on('session', (session) => {
      sessions.add(session);
      session.once('close', () => sessions.delete(session));
    });
    return h2;
  };

  // No Nagle delay: HTTP/2 writes headers, data and trailers as separate small frames, and
  // waiting to coalesce them costs a round trip of delayed ACK (node:http sets the same).
  const front = net.createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.setTimeout(SNIFF_TIMEOUT_MS, () => socket.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const n = Math.min(head.length, H2_PREFACE.length);
      const isH2 = head.subarray(0, n).equals(H2_PREFACE.subarray(0, n));
      if (isH2 && head.length < H2_PREFACE.length) return;
      socket.off('data', onData);
      socket.setTimeout(0);
      socket.pause();
      socket.unshift(head);
      (isH2 ? h2Server() : h1).emit('connection', socket);
      if (!isH2) socket.resume();
    };
    socket.on('data', onData);
    socket.on('error', () => socket.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(options.port, options.host, () => {
      front.off('error', reject);
      resolve();
    });
  });

  return {
    port: (front.address() as AddressInfo).port,
    handle(next) {
      handler = next;
    },
    async close(graceMs = 5_000) {
      const closed = new Promise<void>((resolve) => front.close(() => resolve()));
      for (const session of sessions) session.close();
      const deadline = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, graceMs);
      h1.close(); // stops its timers and closes idle sockets; it never listened, so its callback has nothing to say
      // A keep-alive connection whose request finishes meanwhile is closed as soon as it is idle,
      // not when its keep-alive runs out: stopping waits for requests, not for idle clients.
      const sweep = setInterval(() => h1.closeIdleConnections(), 25);
      await closed;
      clearInterval(sweep);
      clearTimeout(deadline);
    },
  };
}
