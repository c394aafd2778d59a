// The kinds of error the service answers and how each edge sends them: the service maps its one
// error type (server/errors.ts) with these tables, and the UI reads them back into the same
// kinds. Plain TypeScript that imports nothing (the service loads it at start).

/** Every kind of error, as the `code` of the error envelope. */
export const ERROR_CODES = [
  'NOT_FOUND',
  'VALIDATION',
  'CONFLICT',
  'LIMIT_EXCEEDED',
  'PRECONDITION_FAILED',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'INTERNAL',
  'STORAGE_FULL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One rejected input field: which field, and the rule it broke. */
export interface FieldViolation {
  field: string;
  rule: string;
}

/** The error envelope of the JSON APIs (REST and the dashboard's): the same fields on every error. */
export interface ErrorEnvelope {
  code: ErrorCode;
  message: string;
  requestId: string;
  docs: string;
  violations?: FieldViolation[];
}

/** The HTTP status each kind is answered with on the JSON APIs. */
export const HTTP_STATUS_OF: Record<ErrorCode, number> = {
  NOT_FOUND: 404,
  VALIDATION: 400,
  CONFLICT: 409,
  LIMIT_EXCEEDED: 429,
  PRECONDITION_FAILED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  INTERNAL: 500,
  // 507 Insufficient Storage (RFC 4918): the service is fine, its disk is not; the same change
  // succeeds once there is room.
  STORAGE_FULL: 507,
};

/**
 * The status code each kind is sent with over RPC: google.rpc.Code's numbers, which Connect's
 * `Code` enum has too (test/contract.test.ts checks each against it). Numbers rather than the
 * enum, so this file needs no Connect code where the service starts or where the UI's first
 * screen loads.
 */
export const RPC_CODE_OF: Record<ErrorCode, number> = {
  NOT_FOUND: 5, // not_found
  VALIDATION: 3, // invalid_argument
  CONFLICT: 6, // already_exists
  LIMIT_EXCEEDED: 8, // resource_exhausted
  PRECONDITION_FAILED: 9, // failed_precondition
  UNAUTHORIZED: 16, // unauthenticated
  FORBIDDEN: 7, // permission_denied
  INTERNAL: 13, // internal
  // Not resource_exhausted, which means only the rate limit (a later call passes): the service cannot
  // store anything until there is room on its disk.
  STORAGE_FULL: 14, // unavailable
};
