import type { z } from 'zod';
import { AppError, type FieldViolation } from '../errors.ts';

/** One VALIDATION error naming every rejected field and its rule. */
export function validationError(issues: readonly z.core.$ZodIssue[]): AppError {
  // A refused record key carries its rules in nested issues; the outer one only says "invalid key".
  const violations: FieldViolation[] = issues.flatMap((issue) =>
    (issue.code === 'invalid_key' ? issue.issues : [issue]).map((inner) => ({
      field: issue.path.map(String).join('.') || '(input)',
      rule: inner.message,
    })),
  );
  return new AppError('VALIDATION', violations.map((v) => `${v.field}: ${v.rule}`).join('; '), violations);
}

/** Parses domain input, or throws its VALIDATION error. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(result.error.issues);
}
