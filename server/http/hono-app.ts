import type { Http2Bindings, HttpBindings } from '@hono/node-server';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import type { Actor } from '../domain/actor.ts';
import { validationError } from '../domain/validation.ts';
import { AppError, type ErrorCode } from '../errors.ts';
import { asAppError, httpStatusOf, toEnvelope } from './errors.ts';
import { RateLimited } from './rate-limit.ts';

export type AppEnv = { Bindings: HttpBindings | Http2Bindings; Variables: { actor: Actor } };

/** The id the front gave the request (see front.ts). */
export function requestIdOf(c: Context<AppEnv>): string {
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
  const limitBody = bodyLimit({
    maxSize: options.maxBodyBytes,
    onError: () => {
      throw new HTTPException(413, { message: `request body is over the limit of ${options.maxBodyBytes} bytes` });
    },
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
