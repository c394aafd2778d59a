import { Code, ConnectError } from '@connectrpc/connect';
import { BadRequestSchema } from '../../proto/gen/google/rpc/error_details_pb.js';
import { AppError, type FieldViolation } from '../errors.ts';
import { CredentialRefused } from './output.ts';

/** How a failed command's error reads: the client library's errors, loaded with a failure only. */

/** The fields a refusal of invalid input names: the BadRequest detail of a ConnectError, or an AppError's own. */
export function violationsOf(error: unknown): FieldViolation[] {
  if (error instanceof AppError) return error.code === 'VALIDATION' ? error.violations : [];
  if (error instanceof ConnectError && error.code === Code.InvalidArgument) {
    return error.findDetails(BadRequestSchema).flatMap((detail) => detail.fieldViolations.map((v) => ({ field: v.field, rule: v.description })));
  }
  return [];
}

/** The service's words when it refused the credential (401), which the client library reports as Unauthenticated; else undefined. */
export function refusedCredential(error: unknown): string | undefined {
  if (error instanceof CredentialRefused) return error.message;
  if (error instanceof ConnectError && error.code === Code.Unauthenticated && !(error.cause instanceof AppError)) return error.rawMessage;
  return undefined;
}

/** What failed: a login that could not be refreshed fails inside the client library, which wraps what it throws. */
export function failureOf(error: unknown): unknown {
  return error instanceof ConnectError && error.cause instanceof AppError ? error.cause : error;
}
