import { Code, ConnectError, createContextKey, type HandlerContext, type Interceptor } from '@connectrpc/connect';
import type { Logger } from 'pino';
import { type Actor, isCredential } from '../domain/actor.ts';
import { AppError } from '../errors.ts';
import type { Admit } from '../http/credentials.ts';
import { isStorageFull, storageFullCause } from '../db/storage-full.ts';
import { asAppError } from '../http/errors.ts';
import { toConnectError } from './errors.ts';

/** Who calls, and the workspace the call is about. */
export interface Caller {
  actor: Actor;
  workspaceId: number;
}

/** Resolves the caller of a call from its headers, or throws UNAUTHORIZED. */
export type ResolveCaller = (headers: Headers) => Promise<Caller>;

const callerKey = createContextKey<Caller | undefined>(undefined, { description: 'the authenticated caller' });

/** The caller and the workspace of the call. */
export function callerOf(context: HandlerContext): Caller {
  const caller = context.values.get(callerKey);
  if (!caller) throw new AppError('INTERNAL', 'the call reached a handler without an authenticated caller');
  return caller;
}

/**
 * The callers of the API port: an API key (`x-service-key`) or an OAuth access token, resolved
 * and rate-limited, acting in the workspace the credential is bound to.
 */
export function credentialCaller(admit: Admit): ResolveCaller {
  return async (headers) => {
    const actor = await admit(headers, 'rpc');
    if (!isCredential(actor)) throw new AppError('INTERNAL', 'the API port resolved a caller that is not a credential');
    return { actor, workspaceId: actor.workspaceId };
  };
}

/**
 * Resolves the caller of every call before its handler runs, except the calls of the services
 * in `admitOwn`, which admit their callers themselves (runners, by their location's token).
 */
export function authenticate(resolve: ResolveCaller, admitOwn: readonly string[] = []): Interceptor {
  return (next) => async (req) => {
    if (admitOwn.includes(req.service.typeName)) return next(req);
    req.contextValues.set(callerKey, await resolve(req.header));
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
      if (error instanceof AppError) throw toConnectError(error);
      if (error instanceof ConnectError) throw error;
      const requestId = req.header.get('x-request-id');
      if (isStorageFull(error)) {
        log.error({ err: error, requestId, procedure: req.url }, `the database is full; the change was not stored (${storageFullCause(error)})`);
        throw toConnectError(asAppError(error));
      }
      log.error({ err: error, requestId, procedure: req.url }, 'rpc handler failed');
      throw new ConnectError(`internal error (request id ${requestId})`, Code.Internal);
    }
  };
}
