import type { Http2Bindings, HttpBindings } from '@hono/node-server';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import type { Actor } from '../domain/actor.ts';
import { validationError } from '../domain/validation.ts';
import { AppError, type ErrorCode } from '../errors.ts';
import { asAppError, httpStatusOf, toEnvelope } from './errors.ts';
import { RateLimited } from './rate-limit.ts';

export type AppEnv = { Bindings: HttpBindings | Http2Bindings; Variables: { actor: Actor } };

/** The id the front gave the request (see front.ts). */
function requestIdOf(c: Context<AppEnv>): string {
  return String(c.env.incoming.headers['x-request-id'] ?? '');
}

/** Error kinds of the statuses the router itself raises. */
const codeOfStatus: Record<number, ErrorCode> = { 400: 'VALIDATION', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 413: 'LIMIT_EXCEEDED' };

export interface HonoAppOptions {
  log: Logger;
  docsBase: string;
  maxBodyBytes: number;
  /** Resolves the caller of every path under `path`, before any body is read. */
  authenticate: { path: string; actor(c: Context<AppEnv>): Promise<Actor> };
}

/**
 * A router whose every error, from a domain service, a schema or the router itself, leaves as
 * the one REST error envelope.
 */
export function createHonoApp(options: HonoAppOptions) {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error.issues);
    },
  });

  app.use(options.authenticate.path, async (c, next) => {
    c.set('actor', await options.authenticate.actor(c));
    await next();
  });
  const limitBody = limitBodyWhileRead(options.maxBodyBytes, (c) => {
    const error = new AppError('LIMIT_EXCEEDED', `request body is over the limit of ${options.maxBodyBytes} bytes`);
    return new Response(JSON.stringify(toEnvelope(error, requestIdOf(c), options.docsBase)), { status: 413, headers: { 'content-type': 'application/json' } });
  });
  // A GET or HEAD has no body to limit; looking for one would build a whole Request per call.
  app.use((c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));

  app.onError((error, c) => {
    const requestId = requestIdOf(c);
    let appError: AppError;
    let status: number;
    if (error instanceof HTTPException) {
      status = error.status;
      appError = new AppError(codeOfStatus[status] ?? 'INTERNAL', error.message);
    } else {
      appError = asAppError(error);
      status = httpStatusOf[appError.code];
      if (error instanceof RateLimited) c.header('retry-after', String(error.retryAfterSeconds));
      if (appError.code === 'INTERNAL' && !c.req.raw.signal.aborted) {
        options.log.error({ err: error, requestId }, 'unhandled error');
      }
    }
    return c.json(toEnvelope(appError, requestId, options.docsBase), status as 400);
  });

  app.notFound((c) => {
    const error = new AppError('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`);
    return c.json(toEnvelope(error, requestIdOf(c), options.docsBase), 404);
  });

  return app;
}

export type HonoApp = ReturnType<typeof createHonoApp>;

/**
 * The body limit. A declared Content-Length over it is refused before the route runs (the front
 * refuses it even earlier). A body without one (chunked) is counted while the route reads it,
 * not read up front: a route that can refuse from the headers alone (`/mcp` without a live
 * credential) answers at once, however slowly the body comes. Once the body grows over the limit
 * the route's reading fails and, whatever the route made of that (a JSON error, say), the answer
 * is `refuse`'s.
 */
function limitBodyWhileRead(maxSize: number, refuse: (c: Context<AppEnv>) => Response): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // No route reads the body of a GET or HEAD (Node discards it), and asking for the body stream
    // makes the node adapter build a whole Request: the headers first, the stream last.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const headers = c.req.raw.headers;
    if (headers.has('content-length') && !headers.has('transfer-encoding')) {
      return Number.parseInt(headers.get('content-length') ?? '0', 10) > maxSize ? refuse(c) : next();
    }
    const source = c.req.raw.body;
    if (!source) return next();
    let size = 0;
    let over = false;
    const reader = source.getReader();
    const limited = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        size += value.byteLength;
        if (size > maxSize) {
          over = true;
          // The rest is not read; the source is left as it is, since cancelling it would
          // destroy the connection before the refusal is sent.
          return controller.error(new HTTPException(413, { message: `request body is over the limit of ${maxSize} bytes` }));
        }
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    c.req.raw = new Request(c.req.raw, { body: limited, duplex: 'half' } as RequestInit);
    await next();
    if (over) {
      // Instead of the route's answer, not merged with it: none of its headers apply.
      c.res = undefined;
      c.res = refuse(c);
    }
  };
}
