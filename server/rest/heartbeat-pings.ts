import type { Context } from 'hono';
import { HEARTBEAT_LIMITS } from '../../contract/limits.ts';
import type { HeartbeatPingKind } from '../domain/monitors/check-results.ts';
import type { AppError } from '../errors.ts';
import type { AppEnv, HonoApp } from '../http/hono-app.ts';
import { createRateLimiter } from '../http/rate-limit.ts';
import type { Services } from '../services.ts';

/**
 * The ping URLs of heartbeat monitors on the API port: `/ping/<token>` (a success),
 * `/ping/<token>/start`, `/ping/<token>/fail` and `/ping/<token>/<exit status>` (0 a success,
 * 1 to 255 a failure), by GET, HEAD or POST. The token is the only credential: no API key, no
 * cookie is read or set. Answers are plain text without CORS headers, made for curl and the like.
 *
 * A token that names nothing (wrong, rotated away, or not even of a token's form) and a path that
 * is not a ping URL get the same 404, so an answer tells nothing of which it was. Each monitor's
 * pings are limited per minute (429 with Retry-After); a POST body over 10 KiB is refused with 413
 * and nothing is kept. The request log never shows the token (http/front.ts).
 */

const TEXT = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };
const NOT_FOUND = 'not found';
const { bodyBytes, pingsPerMinute } = HEARTBEAT_LIMITS;

/** What the last part of a ping URL signals; undefined when it signals nothing (a 404). */
function signalOf(part: string | undefined): { kind: HeartbeatPingKind; exitStatus: number | null } | undefined {
  if (part === undefined) return { kind: 'success', exitStatus: null };
  if (part === 'start') return { kind: 'start', exitStatus: null };
  if (part === 'fail') return { kind: 'fail', exitStatus: null };
  if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return undefined;
  const exitStatus = Number(part);
  return { kind: exitStatus === 0 ? 'success' : 'fail', exitStatus };
}

/** The POST body, at most `bodyBytes`; undefined when it is longer (the rest is not read). */
async function bodyOf(c: Context<AppEnv>): Promise<Uint8Array | undefined> {
  if (c.req.method !== 'POST') return new Uint8Array();
  const declared = c.req.header('content-length');
  if (declared !== undefined && Number(declared) > bodyBytes) return undefined;
  const stream = c.req.raw.body;
  if (!stream) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > bodyBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

export function registerHeartbeatPings(app: HonoApp, services: Services): void {
  // Per monitor, in this process: a job that pings in a loop is held to its rate, the others not.
  const limiter = createRateLimiter(pingsPerMinute, services.heartbeats.now);
  const notFound = (c: Context<AppEnv>) => c.body(NOT_FOUND, 404, TEXT);

  const ping = async (c: Context<AppEnv>) => {
    const signal = signalOf(c.req.param('signal'));
    if (!signal) return notFound(c);
    const found = await services.heartbeats.monitorOfToken(c.req.param('token') ?? '');
    if (!found) return notFound(c);
    try {
      limiter.take(`heartbeat:${found.monitorId}`);
    } catch (error) {
      const seconds = (error as AppError).retryAfterSeconds ?? 60;
      return c.body(`rate limited: at most ${pingsPerMinute} pings a minute; retry after ${seconds} s`, 429, { ...TEXT, 'retry-after': String(seconds) });
    }
    const body = await bodyOf(c);
    if (!body) {
      // Refused before the rest is read: the connection is not kept for another request.
      return c.body(`the body is over ${bodyBytes} bytes: nothing was kept`, 413, { ...TEXT, connection: 'close' });
    }
    const socket = (c.env.incoming as { socket?: { remoteAddress?: string } }).socket;
    await services.heartbeats.receive(found.monitorId, {
      ...signal,
      body,
      method: c.req.method,
      address: socket?.remoteAddress ?? '',
      userAgent: c.req.header('user-agent') ?? '',
    });
    return c.body('OK', 200, TEXT);
  };

  for (const path of ['/ping/:token', '/ping/:token/:signal']) app.on(['GET', 'HEAD', 'POST'], path, ping);
  // Any other method or path under /ping answers as a wrong token does.
  app.all('/ping', notFound);
  app.all('/ping/*', notFound);
}
