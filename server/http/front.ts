import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { AppError } from '../errors.ts';
import { toEnvelope } from './errors.ts';
import type { OriginGuard } from './guard.ts';
import { HEALTHZ_PATH } from './healthz.ts';
import type { Request, RequestHandler, Response } from './listener.ts';

export interface FrontOptions {
  guard: OriginGuard;
  log: Logger;
  maxBodyBytes: number;
  docsBase: string;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

function hostOf(req: Request): string | undefined {
  const value = req.headers[':authority'] ?? req.headers.host;
  return Array.isArray(value) ? value[0] : value;
}

/**
 * What every request passes before routing, on every port and protocol: a request id, no type
 * sniffing, the Host/Origin guard, the declared body size, and one log line when it is answered.
 */
export function createFront(options: FrontOptions, route: RequestHandler): RequestHandler {
  const { guard, log, maxBodyBytes, docsBase } = options;

  function refuse(res: Response, status: number, error: AppError, requestId: string) {
    const body = JSON.stringify(toEnvelope(error, requestId, docsBase));
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.setHeader('content-length', Buffer.byteLength(body));
    res.end(body);
  }

  return (req, res) => {
    const started = performance.now();
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    req.headers['x-request-id'] = requestId;
    res.setHeader('x-request-id', requestId);
    // No answer of this service is to be sniffed into another type (a JSON error read as HTML, say).
    res.setHeader('x-content-type-options', 'nosniff');
    res.once('close', () => {
      // 499: the client went away before the answer was sent. The path only: query strings can
      // carry one-time secrets.
      const status = res.writableFinished ? res.statusCode : 499;
      const path = (req.url ?? '').split('?')[0];
      const level = path === HEALTHZ_PATH && status === 200 ? 'debug' : 'info';
      log[level]({ requestId, method: req.method, path, status, ms: Math.round(performance.now() - started) }, 'request');
    });

    const origin = req.headers.origin;
    const refusal = guard.check(hostOf(req), Array.isArray(origin) ? origin[0] : origin);
    if (refusal) return refuse(res, 403, new AppError('FORBIDDEN', refusal), requestId);

    const length = Number(req.headers['content-length'] ?? 0);
    if (length > maxBodyBytes) {
      // Do not read the rest of an oversized HTTP/1.1 body; HTTP/2 resets just the stream instead.
      if (req.httpVersionMajor === 1) res.setHeader('connection', 'close');
      return refuse(res, 413, new AppError('LIMIT_EXCEEDED', `request body of ${length} bytes is over the limit of ${maxBodyBytes} bytes`), requestId);
    }
    route(req, res);
  };
}
