import type { FieldViolation } from '../../contract/errors.ts';

// The matching of a refusal's violations to the fields a form shows. Plain TypeScript, so the
// forms' models use it and are tested in Node.

/** The violations of a refusal, each given to the field of the form that shows it. */
export interface FieldErrors {
  /** The service's message for `field` (several joined with "; "), or undefined. */
  of(field: string): string | undefined;
  /** Violations no field of the form claimed: shown above the form. */
  unclaimed: FieldViolation[];
  /** Whether some field claimed a violation. */
  claimedAny: boolean;
}

/**
 * Gives each violation of `error` to the field that claims it: the listed name equal to the
 * violation's field, or else the longest listed name of which it is a dotted part
 * (`monitor.tags` claims `monitor.tags.3`). Violations no name claims stay `unclaimed`.
 */
export function matchViolations(error: { violations: readonly FieldViolation[] } | undefined, fields: Iterable<string>): FieldErrors {
  const names = [...new Set(fields)].sort((a, b) => b.length - a.length);
  const claimed = new Map<string, string[]>();
  const unclaimed: FieldViolation[] = [];
  for (const violation of error?.violations ?? []) {
    const owner = names.find((name) => violation.field === name || violation.field.startsWith(`${name}.`));
    if (owner === undefined) unclaimed.push(violation);
    else claimed.set(owner, [...(claimed.get(owner) ?? []), violation.rule]);
  }
  return {
    of: (field) => claimed.get(field)?.join('; '),
    unclaimed,
    claimedAny: claimed.size > 0,
  };
}
