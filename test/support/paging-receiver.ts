/**
 * A loopback stand-in for a product's HTTP API (PagerDuty, Opsgenie, Pushover, …): it keeps every
 * request as it arrived (method, path, query, headers, raw body, and the body read as JSON or as
 * a form when it is one), and answers as it is told, with the product's own answer, an error
 * body, or nothing at all (a request that hangs). It listens on 127.0.0.1 only, is unref'd, and
 * closes itself after `lifetimeMs` at the latest.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ApiRequest {
  method: string;
  /** The path without its query. */
  path: string;
  /** The query's parameters (the last of a repeated one). */
  query: Record<string, string>;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /** The body parsed, when its content type is JSON. */
  json?: any;
  /** The body's fields, when it is a form (the last of a repeated one). */
  form?: Record<string, string>;
}

/** An answer: a status with a body (an object is sent as JSON), or `hang` for none at all. */
export type ApiAnswer = { status: number; body?: unknown; contentType?: string } | 'hang';

export interface ApiReceiver {
  /** http://127.0.0.1:<port> */
  url: string;
  requests: ApiRequest[];
  /** How every following request is answered. */
  answer(how: (request: ApiRequest) => ApiAnswer): void;
  close(): Promise<void>;
}

function parsed(req: IncomingMessage, body: string): ApiRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const url = new URL(req.url ?? '/', 'http://receiver.test');
  const type = headers['content-type'] ?? '';
  const request: ApiRequest = { method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body };
  if (/^application\/(?:[\w.-]+\+)?json/.test(type)) {
    try {
      request.json = JSON.parse(body);
    } catch {
      // kept as text only: the test's assertions on `json` fail
    }
  }
  if (type.startsWith('application/x-www-form-urlencoded')) request.form = Object.fromEntries(new URLSearchParams(body));
  return request;
}

export async function startApiReceiver(how: (request: ApiRequest) => ApiAnswer = () => ({ status: 200, body: {} }), lifetimeMs = 60_000): Promise<ApiReceiver> {
  const requests: ApiRequest[] = [];
  let answerOf = how;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      const request = parsed(req, Buffer.concat(chunks).toString('utf8'));
      requests.push(request);
      const answer = answerOf(request);
      if (answer === 'hang') return;
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
      const contentType = answer.contentType ?? (typeof answer.body === 'string' ? 'text/plain' : 'application/json');
      res.writeHead(answer.status, { 'content-type': contentType }).end(text);
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  server.unref();
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      clearTimeout(lifetime);
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    }));
  const lifetime = setTimeout(() => void close(), lifetimeMs);
  lifetime.unref();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answer(next) {
      answerOf = next;
    },
    close,
  };
}
