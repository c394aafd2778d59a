import type { Plan } from './plans.ts';

/**
 * The region catalogue: short identifiers of well-known locations (IATA airport codes, as most
 * monitoring services use). A region is served by a runner; the embedded runner serves them all.
 */
export const regions = [
  { id: 'iad', name: 'Ashburn, Virginia, US' },
  { id: 'ams', name: 'Amsterdam, Netherlands' },
  { id: 'sin', name: 'Singapore' },
  { id: 'syd', name: 'Sydney, Australia' },
  { id: 'fra', name: 'Frankfurt, Germany' },
  { id: 'gru', name: 'São Paulo, Brazil' },
  { id: 'jnb', name: 'Johannesburg, South Africa' },
  { id: 'lax', name: 'Los Angeles, California, US' },
  { id: 'lhr', name: 'London, United Kingdom' },
  { id: 'nrt', name: 'Tokyo, Japan' },
  { id: 'ord', name: 'Chicago, Illinois, US' },
  { id: 'bom', name: 'Mumbai, India' },
  { id: 'cdg', name: 'Paris, France' },
  { id: 'yyz', name: 'Toronto, Canada' },
] as const;

export type RegionId = (typeof regions)[number]['id'];
const regionIds = new Set<string>(regions.map((r) => r.id));

export function isRegion(id: string): id is RegionId {
  return regionIds.has(id);
}

/** The regions a TCP monitor gets when it names none: the first N of the catalogue, N by plan. */
export function defaultTcpRegions(plan: Plan): RegionId[] {
  return regions.slice(0, plan.defaultTcpRegionCount).map((r) => r.id);
}
