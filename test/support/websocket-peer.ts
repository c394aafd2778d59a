/**
 * A real WebSocket server for the WebSocket check's tests and bench: the `ws` package's server on
 * a loopback port, over plain HTTP or TLS, each path a behaviour of its own. It records every
 * upgrade request (path, headers, subprotocols offered) and every close code a client sent, so a
 * test can tell what the check sent and that it closed cleanly.
 *
 *   /                 accepts, sends nothing
 *   /greet            accepts, sends GREETING at once
 *   /greet-binary     accepts, sends GREETING as a binary message
 *   /echo             accepts, echoes every message
 *   /chat             agrees to the subprotocol `chat.v1` only (none for anything else)
 *   /other-protocol   agrees to `other`, whatever was offered
 *   /policy           accepts, then closes with 1008 and the reason "token expired"
 *   /going-away       accepts, then closes with 1001 and no reason
 *   /drop             accepts, then drops the connection without a close frame
 *   /large            accepts, sends one message of LARGE_BYTES
 *   /unauthorized     refuses the upgrade with 401
 *   /plain            answers 200 OK without upgrading
 *   anything else     refuses the upgrade with 404
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer } from 'ws';

export const GREETING = 'hello statusdesk';
/** Larger than the most a check reads (WEBSOCKET_LIMITS.messageBytes). */
export const LARGE_BYTES = 200 * 1024;

export interface Upgrade {
  path: string;
  headers: IncomingHttpHeaders;
  /** The subprotocols the client offered. */
  protocols: string[];
}

export interface WebSocketPeer {
  /** `ws://127.0.0.1:PORT` (or `wss://localhost:PORT` with TLS). */
  origin: string;
  port: number;
  url(path?: string): string;
  upgrades: Upgrade[];
  /** The close code each connection's client sent, by path (1005 for a close frame without one, 1006 without any). */
  closes: { path: string; code: number }[];
  /** Sockets open now. */
  open(): number;
  close(): Promise<void>;
}

function refuse(socket: Socket, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\ncontent-type: text/plain\r\ncontent-length: ${text.length}\r\nconnection: close\r\n\r\n${text}`);
}

export async function startWebSocketPeer(options: { tls?: { key: string; cert: string }; host?: string; name?: string } = {}): Promise<WebSocketPeer> {
  const host = options.host ?? '127.0.0.1';
  const server: Server = options.tls ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }) : createHttpServer();
  const upgrades: Upgrade[] = [];
  const closes: WebSocketPeer['closes'] = [];
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (protocols, request) => {
      const path = new URL(request.url ?? '/', 'ws://peer').pathname;
      if (path === '/other-protocol') return 'other';
      if (path === '/chat') return protocols.has('chat.v1') ? 'chat.v1' : false;
      return [...protocols][0] ?? false;
    },
  });

  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    const path = new URL(request.url ?? '/', 'ws://peer').pathname;
    const offered = request.headers['sec-websocket-protocol'];
    upgrades.push({ path, headers: request.headers, protocols: offered ? offered.split(',').map((p) => p.trim()) : [] });
    socket.on('error', () => {});
    if (path === '/unauthorized') return refuse(socket, 401, 'Unauthorized');
    if (path === '/plain') return refuse(socket, 200, 'OK');
    const known = ['/', '/greet', '/greet-binary', '/echo', '/chat', '/other-protocol', '/policy', '/going-away', '/drop', '/large'];
    if (!known.includes(path)) return refuse(socket, 404, 'Not Found');
    wss.handleUpgrade(request, socket, head, (ws) => {
      ws.on('error', () => {});
      ws.on('close', (code) => closes.push({ path, code }));
      switch (path) {
        case '/greet':
          ws.send(GREETING);
          break;
        case '/greet-binary':
          ws.send(Buffer.from(GREETING), { binary: true });
          break;
        case '/echo':
          ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
          break;
        case '/policy':
          ws.close(1008, 'token expired');
          break;
        case '/going-away':
          ws.close(1001);
          break;
        case '/drop':
          ws.terminate();
          break;
        case '/large':
          ws.send(Buffer.alloc(LARGE_BYTES, 'x').toString());
          break;
      }
    });
  });

  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const scheme = options.tls ? 'wss' : 'ws';
  const name = options.name ?? (host.includes(':') ? `[${host}]` : host);
  const origin = `${scheme}://${name}:${port}`;
  return {
    origin,
    port,
    url: (path = '/') => `${origin}${path}`,
    upgrades,
    closes,
    open: () => sockets.size,
    async close() {
      for (const client of wss.clients) client.terminate();
      for (const socket of sockets) socket.destroy();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
