/**
 * The one error type of the domain. Each edge (REST, RPC, MCP, OAuth) maps `code` once to its
 * own wire form; nothing below the edges knows about HTTP statuses.
 */
export const errorCodes = [
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

export type ErrorCode = (typeof errorCodes)[number];

/** One rejected input field: which field, and the rule it broke. */
export interface FieldViolation {
  field: string;
  rule: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly violations: FieldViolation[];

  constructor(code: ErrorCode, message: string, violations: FieldViolation[] = []) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.violations = violations;
  }
}

export const notFound = (what: string, id: string | number) =>
  new AppError('NOT_FOUND', `${what} ${id} does not exist in this workspace`);
