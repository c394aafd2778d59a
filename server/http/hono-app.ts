import type { Http2Bindings, HttpBindings } from '@hono/node-server';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import { storageFullCause } from '../db/storage-full.ts';
import type { Actor } from '../domain/actor.ts';
import { validationError } from '../domain/validation.ts';
import { OAuthError } from '../domain/oauth/oauth-error.ts';
import { AppError, type ErrorCode } from '../errors.ts';
import { asAppError, errorAnswer, httpStatusOf } from './errors.ts';

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
 * the one REST error envelope, or on the authorization server's paths in the RFC 6749 shape
 * (`errorAnswer`).
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
  /** The error answer at this request's path, with the headers the request's handlers set. */
  const answer = (c: Context<AppEnv>, status: number, error: AppError | OAuthError) => {
    const { body, status: answered, headers } = errorAnswer(c.req.path, status, error, requestIdOf(c), options.docsBase);
    return c.body(body, answered as 400, headers);
  };
  const limitBody = limitBodyWhileRead(options.maxBodyBytes, (c) => {
    const { body, ...init } = errorAnswer(
      c.req.path,
      413,
      new AppError('LIMIT_EXCEEDED', `request body is over the limit of ${options.maxBodyBytes} bytes`),
      requestIdOf(c),
      options.docsBase,
    );
    return new Response(body, init);
  });
  // A GET or HEAD has no body to limit; looking for one would build a whole Request per call.
  app.use((c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));

  app.onError((error, c) => {
    if (error instanceof OAuthError) return answer(c, error.status, error);
    if (error instanceof HTTPException) return answer(c, error.status, new AppError(codeOfStatus[error.status] ?? 'INTERNAL', error.message));
    const appError = asAppError(error);
    if (appError.code === 'INTERNAL' && !c.req.raw.signal.aborted) {
      options.log.error({ err: error, requestId: requestIdOf(c) }, 'unhandled error');
    } else if (appError.code === 'STORAGE_FULL') {
      options.log.error({ err: error, requestId: requestIdOf(c) }, `the database is full; the change was not stored (${storageFullCause(error)})`);
    }
    return answer(c, httpStatusOf[appError.code], appError);
  });

  app.notFound((c) => answer(c, 404, new AppError('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`)));

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
