/**
 * The one error type of the domain. Each edge (REST, RPC, MCP, OAuth) maps `code` once to its
 * own wire form; nothing below the edges knows about HTTP statuses. The codes, and the tables the
 * edges map them with, are contract/errors.ts: the UI reads the same codes back.
 */
import { ERROR_CODES, type ErrorCode, type FieldViolation } from '../contract/errors.ts';

export const errorCodes = ERROR_CODES;
export type { ErrorCode, FieldViolation };

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly violations: FieldViolation[];
  /**
   * Whole seconds after which the same call may pass (a rate limit, a sign-up limit); each edge
   * sends it as Retry-After. Absent when waiting does not help.
   */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, violations: FieldViolation[] = [], options: { retryAfterSeconds?: number } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.violations = violations;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export const notFound = (what: string, id: string | number) => new AppError('NOT_FOUND', `${what} ${id} does not exist in this workspace`);
