import type { RequestHandler } from './listener.ts';

/**
 * `GET /healthz` (and HEAD) in front of `route`: 200 `{"status":"ok","version":"…"}` for
 * supervisors and load balancers, without credentials and without saying more. It stands behind
 * the Host/Origin guard like every path.
 */
/** Polled every few seconds by supervisors: its successful answers are logged at debug, not info. */
export const HEALTHZ_PATH = '/healthz';

export function withHealthz(version: string, route: RequestHandler): RequestHandler {
  const body = JSON.stringify({ status: 'ok', version });
  return (req, res) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || (req.url ?? '').split('?')[0] !== HEALTHZ_PATH) return route(req, res);
    res.statusCode = 200;
    res.setHeader('content-type', 'application/json');
    res.setHeader('content-length', Buffer.byteLength(body));
    res.setHeader('cache-control', 'no-store');
    if (req.method === 'HEAD') res.end();
    else res.end(body);
  };
}
