import type { Http2Bindings, HttpBindings } from '@hono/node-server';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import type { Actor } from '../domain/actor.ts';
import { AppError, type FieldViolation } from '../errors.ts';
import { asAppError, httpStatusOf, toEnvelope } from './errors.ts';

export type AppEnv = { Bindings: HttpBindings | Http2Bindings; Variables: { actor: Actor } };

/** The id the front gave the request (see front.ts). */
export function requestIdOf(c: Context<AppEnv>): string {
  return String(c.env.incoming.headers['x-request-id'] ?? '');
}

/**
 * A router whose every error, from a domain service, a schema or the router itself, leaves as
 * the one REST error envelope.
 */
export function createHonoApp(options: { log: Logger; docsBase: string; maxBodyBytes: number }) {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (result.success) return;
      const violations: FieldViolation[] = result.error.issues.map((issue) => ({
        field: issue.path.map(String).join('.') || '(body)',
        rule: issue.message,
      }));
      throw new AppError('VALIDATION', violations.map((v) => `${v.field}: ${v.rule}`).join('; '), violations);
    },
  });

  app.use(
    bodyLimit({
      maxSize: options.maxBodyBytes,
      onError: () => {
        throw new HTTPException(413, { message: `request body is over the limit of ${options.maxBodyBytes} bytes` });
      },
    }),
  );

  app.onError((error, c) => {
    const requestId = requestIdOf(c);
    let appError: AppError;
    let status: number;
    if (error instanceof HTTPException) {
      status = error.status;
      const code = status === 413 ? 'LIMIT_EXCEEDED' : status === 401 ? 'UNAUTHORIZED' : status >= 500 ? 'INTERNAL' : 'VALIDATION';
      const message = error.message === 'Malformed JSON in request body' ? 'the request body is not valid JSON' : error.message;
      appError = new AppError(code, message);
    } else {
      appError = asAppError(error);
      status = httpStatusOf[appError.code];
      if (appError.code === 'INTERNAL') options.log.error({ err: error, requestId }, 'unhandled error');
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
