import { OAuthError, oauthErrorOfStatus } from '../domain/oauth/oauth-error.ts';
import { isStorageFull } from '../db/storage-full.ts';
import { type ErrorEnvelope, HTTP_STATUS_OF } from '../../contract/errors.ts';
import { AppError, type ErrorCode } from '../errors.ts';
import type { Response } from './listener.ts';

/** The REST error envelope: the same four fields on every REST error (and the dashboard's). */
export type { ErrorEnvelope };

export const httpStatusOf = HTTP_STATUS_OF;

function errorDocsUrl(docsBase: string, code: ErrorCode): string {
  return `${docsBase}/docs/reference/errors#${code.toLowerCase()}`;
}

export function toEnvelope(error: AppError, requestId: string, docsBase: string): ErrorEnvelope {
  const envelope: ErrorEnvelope = {
    code: error.code,
    message: error.message,
    requestId,
    docs: errorDocsUrl(docsBase, error.code),
  };
  if (error.violations.length > 0) envelope.violations = error.violations;
  return envelope;
}

/** What a caller is told when the database has no room for a change. */
export const STORAGE_FULL_MESSAGE =
  'the database has no room for this change: the disk of the data folder (or the PostgreSQL server) is full; nothing was stored; free some space, then retry';

/**
 * Any thrown value as an AppError: a database out of room is STORAGE_FULL; anything else that is not
 * an AppError is INTERNAL, and its detail stays in the log.
 */
export function asAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isStorageFull(error)) return new AppError('STORAGE_FULL', STORAGE_FULL_MESSAGE);
  return new AppError('INTERNAL', 'internal error; see the service log');
}

/** Headers of every answer of the authorization server: nothing in it may be cached (RFC 6749 section 5.1). */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

/**
 * Whether a path is the authorization server's (SPEC 4.4): `/oauth/*` and its metadata under
 * `/.well-known/oauth-*`. The consent page and its requests at `/oauth/consent` are the
 * dashboard's, and answer as the dashboard does.
 */
export function isOAuthPath(path: string): boolean {
  if (path === '/oauth/consent' || path.startsWith('/oauth/consent/')) return false;
  return path === '/oauth' || path.startsWith('/oauth/') || path.startsWith('/.well-known/oauth-');
}

/** An error answer, whole: status, headers and body. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * How an error is answered at `path`, whatever refused the request (an endpoint, the body limit,
 * the router, a failure): on the authorization server's paths in the RFC 6749 shape
 * `{error, error_description}`, uncached (SPEC 7 rule 5); elsewhere as the REST envelope. An
 * OAuthError is answered in its own shape wherever it is thrown.
 */
export function errorAnswer(path: string, status: number, error: AppError | OAuthError, requestId: string, docsBase: string): ErrorAnswer {
  if (error instanceof OAuthError || isOAuthPath(path)) {
    const refusal = error instanceof OAuthError ? error : oauthErrorOfStatus(status, error.message, error.retryAfterSeconds);
    return {
      status: refusal.status,
      headers: { 'content-type': 'application/json', ...NO_STORE, ...retryAfter(refusal) },
      body: JSON.stringify(refusal.toJSON()),
    };
  }
  return { status, headers: { 'content-type': 'application/json', ...retryAfter(error) }, body: JSON.stringify(toEnvelope(error, requestId, docsBase)) };
}

/** The Retry-After header of an error that says when the same call may pass; none otherwise. */
export function retryAfter(error: { retryAfterSeconds: number | undefined }): Record<string, string> {
  return error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };
}

/** Sends an error answer on a response that nothing has been written to yet (the front and the guard, before routing). */
export function sendErrorAnswer(res: Response, answer: ErrorAnswer): void {
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader('content-length', Buffer.byteLength(answer.body));
  res.end(answer.body);
}

/** The path of a request target (origin or absolute form) as the router reads it; '' when it is not one. */
export function requestPath(url: string | undefined): string {
  try {
    return new URL(url ?? '', 'http://path.invalid').pathname;
  } catch {
    return '';
  }
}
