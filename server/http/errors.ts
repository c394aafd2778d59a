import { AppError, type ErrorCode, type FieldViolation } from '../errors.ts';

/** The REST error envelope: the same four fields on every REST error. */
export interface ErrorEnvelope {
  code: ErrorCode;
  message: string;
  requestId: string;
  docs: string;
  violations?: FieldViolation[];
}

export const httpStatusOf: Record<ErrorCode, number> = {
  NOT_FOUND: 404,
  VALIDATION: 400,
  CONFLICT: 409,
  LIMIT_EXCEEDED: 429,
  PRECONDITION_FAILED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  INTERNAL: 500,
};

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

/** Any thrown value as an AppError; what is not one is INTERNAL and its detail stays in the log. */
export function asAppError(error: unknown): AppError {
  return error instanceof AppError ? error : new AppError('INTERNAL', 'internal error; see the service log');
}
