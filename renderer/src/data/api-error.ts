// How the UI holds every failure of a call, whichever way it went (the JSON API, an RPC, the
// network): the service's message, written for people, its kind, and the fields it refused.
import type { ErrorCode, ErrorEnvelope, FieldViolation } from '../../../contract/errors.ts';

export type Violation = FieldViolation;

/** The kinds the UI meets: the service's, and the two it names itself. */
export type FailureCode = ErrorCode | 'UNAVAILABLE' | 'UNKNOWN';

export class ApiError extends Error {
  /** The HTTP status of a JSON answer (0 when the service did not answer). */
  readonly status: number;
  readonly code: FailureCode | (string & {});
  readonly violations: Violation[];

  constructor(status: number, code: FailureCode | (string & {}), message: string, violations: Violation[] = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.violations = violations;
  }
}

export const NOT_ANSWERING = 'Statusdesk is not answering. Is it still running?';

/** The error of a JSON answer that is not OK: its envelope, or what can be said without one. */
export async function errorOf(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as Partial<ErrorEnvelope>;
    if (typeof body.message === 'string') return new ApiError(response.status, body.code ?? 'UNKNOWN', body.message, body.violations ?? []);
  } catch {
    // Not the envelope (a proxy, a crash): say what we know.
  }
  return new ApiError(response.status, 'UNKNOWN', `the service answered ${response.status} ${response.statusText}`.trim());
}

/** Reads an error of another kind as an ApiError, or declines with undefined. */
type ErrorReader = (error: unknown) => ApiError | undefined;

const readers: ErrorReader[] = [];

/**
 * Teaches `asApiError` another kind of error. The RPC transport adds Connect's when it loads, so
 * this file, on every screen's path, carries no RPC code; an RPC error only exists once it has.
 */
export function readErrorsWith(reader: ErrorReader): void {
  readers.push(reader);
}

/** Any failure as an ApiError. */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  for (const read of readers) {
    const known = read(error);
    if (known) return known;
  }
  return new ApiError(0, 'UNKNOWN', error instanceof Error ? error.message : String(error));
}
