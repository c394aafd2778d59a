import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { AppError } from '../errors.ts';
import { errorAnswer, requestPath, sendErrorAnswer } from './errors.ts';
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

/**
 * The host a request names, or why it does not name exactly one. RFC 9112 (3.2) has a server answer
 * 400 to an HTTP/1.1 request with more than one Host line, and RFC 9113 (8.3.1) counts an HTTP/2
 * request whose Host differs from its :authority as malformed: which of two hosts would be checked
 * and which one a proxy or a route would act on is exactly the ambiguity the guard must not have.
 * Node keeps only the first Host line in `headers`, so the raw headers are counted. (HTTP/2 itself
 * resets a stream that repeats :authority or Host.)
 */
function hostOf(req: Request): { host?: string; refusal?: string } {
  let authority: string | undefined;
  const hosts: string[] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (name === 'host') hosts.push(raw[i + 1]!);
    else if (name === ':authority') authority = raw[i + 1];
  }
  if (hosts.length > 1) return { refusal: `the request has ${hosts.length} Host header fields; send exactly one` };
  const host = hosts[0];
  if (authority !== undefined && host !== undefined && authority.toLowerCase() !== host.toLowerCase()) {
    return { refusal: `the Host header (${host}) differs from :authority (${authority}); send one host` };
  }
  return { host: authority ?? host };
}

/**
 * A path as the request log shows it. A heartbeat's ping URL (`/ping/<token>`) carries its secret
 * token: whatever its spelling (dot segments, percent-encoding), only `/ping/…` is written.
 */
function loggedPath(path: string): string {
  let resolved = path;
  try {
    resolved = decodeURIComponent(new URL(path, 'http://localhost').pathname);
  } catch {
    // Not a path a route would read: written as it came, unless it holds a token's prefix.
  }
  return /^\/+ping(\/|$)/i.test(resolved) || /hb_/i.test(resolved) ? '/ping/…' : path;
}

/**
 * What every request passes before routing, on every port and protocol: a request id, no type
 * sniffing, exactly one Host, the Host/Origin guard, the declared body size, and one log line when it is answered.
 */
export function createFront(options: FrontOptions, route: RequestHandler): RequestHandler {
  const { guard, log, maxBodyBytes, docsBase } = options;

  /** An error answer, in RFC 6749's shape on the OAuth paths. */
  function refuse(req: Request, res: Response, status: number, error: AppError, requestId: string) {
    sendErrorAnswer(res, errorAnswer(requestPath(req.url), status, error, requestId, docsBase));
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
      const path = loggedPath((req.url ?? '').split('?')[0]!);
      const level = path === HEALTHZ_PATH && status === 200 ? 'debug' : 'info';
      log[level]({ requestId, method: req.method, path, status, ms: Math.round(performance.now() - started) }, 'request');
    });

    const { host, refusal: twoHosts } = hostOf(req);
    if (twoHosts) {
      // An HTTP/1.1 connection that sent one ambiguous request is not trusted with the next.
      if (req.httpVersionMajor === 1) res.setHeader('connection', 'close');
      return refuse(req, res, 400, new AppError('VALIDATION', twoHosts, [{ field: 'host', rule: 'must be sent once' }]), requestId);
    }
    const origin = req.headers.origin;
    const refusal = guard.check(host, Array.isArray(origin) ? origin[0] : origin);
    if (refusal) return refuse(req, res, 403, new AppError('FORBIDDEN', refusal), requestId);

    const length = Number(req.headers['content-length'] ?? 0);
    if (length > maxBodyBytes) {
      // Do not read the rest of an oversized HTTP/1.1 body; HTTP/2 resets just the stream instead.
      if (req.httpVersionMajor === 1) res.setHeader('connection', 'close');
      return refuse(req, res, 413, new AppError('LIMIT_EXCEEDED', `request body of ${length} bytes is over the limit of ${maxBodyBytes} bytes`), requestId);
    }
    route(req, res);
  };
}
