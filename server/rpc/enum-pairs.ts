/**
 * Pairs wire enum values with domain names, both ways. The unspecified value maps to undefined
 * (not given); a number the schema does not define passes on as its digits, which the domain's
 * validation refuses with the allowed values, rather than being read as something else.
 */
export function enumPairs<D extends string>(domain: readonly D[], wire: readonly number[]) {
  const toWire = new Map<string, number>(domain.map((d, i) => [d, wire[i]!]));
  const toDomain = new Map<number, D>(wire.map((w, i) => [w, domain[i]!]));
  return {
    wire: (value: string): number => toWire.get(value) ?? 0,
    domain: (value: number): string | undefined => (value === 0 ? undefined : (toDomain.get(value) ?? String(value))),
  };
}
