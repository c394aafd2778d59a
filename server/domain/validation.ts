import type { z } from 'zod';
import { AppError, type FieldViolation } from '../errors.ts';

/** Parses domain input; a refusal is one VALIDATION error naming every bad field and its rule. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const violations: FieldViolation[] = result.error.issues.map((issue) => ({
    field: issue.path.map(String).join('.') || '(input)',
    rule: issue.message,
  }));
  throw new AppError('VALIDATION', violations.map((v) => `${v.field}: ${v.rule}`).join('; '), violations);
}
