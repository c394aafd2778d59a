import { Code, ConnectError, createContextKey, type HandlerContext, type Interceptor } from '@connectrpc/connect';
import type { Logger } from 'pino';
import { type Actor, isCredential } from '../domain/actor.ts';
import { AppError } from '../errors.ts';
import type { Admit } from '../http/credentials.ts';
import { RateLimited } from '../http/rate-limit.ts';
import { toConnectError } from './errors.ts';

const callerKey = createContextKey<Actor | undefined>(undefined, { description: 'the authenticated caller' });

/** The caller and the workspace its credential is bound to. */
export function callerOf(context: HandlerContext): { actor: Actor; workspaceId: number } {
  const actor = context.values.get(callerKey);
  if (!actor || !isCredential(actor)) throw new AppError('INTERNAL', 'the call reached a handler without an authenticated caller');
  return { actor, workspaceId: actor.workspaceId };
}

/** Resolves (and rate-limits) the credential of every call before its handler runs (`x-service-key`). */
export function authenticate(admit: Admit): Interceptor {
  return (next) => async (req) => {
    req.contextValues.set(callerKey, await admit(req.header, 'rpc'));
    return next(req);
  };
}

/**
 * The outermost interceptor: domain errors become their Connect codes; anything else is logged
 * and answered as `internal` without its details.
 */
export function mapErrors(log: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      if (error instanceof RateLimited) throw toConnectError(error, { 'retry-after': String(error.retryAfterSeconds) });
      if (error instanceof AppError) throw toConnectError(error);
      if (error instanceof ConnectError) throw error;
      const requestId = req.header.get('x-request-id');
      log.error({ err: error, requestId, procedure: req.url }, 'rpc handler failed');
      throw new ConnectError(`internal error (request id ${requestId})`, Code.Internal);
    }
  };
}
