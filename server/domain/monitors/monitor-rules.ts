import { z } from 'zod';
import { MONITOR_LIMITS } from '../../../contract/limits.ts';
import { type DeclaredFields, type ShapeOf, shapeOf } from '../declared-fields.ts';
import { frequencies } from '../plans.ts';
import { isRegion, regions as regionCatalogue } from '../regions.ts';
import { builtOnFirstUse, expected, httpHeaders, httpUrl, oneLine } from '../validation.ts';
import { type MonitorType, monitorTypes } from './monitor-types.ts';
import type { MonitorTypeSpec } from './types/monitor-type.ts';

/**
 * The validation rules of monitor configuration (SPEC 2.7, 2.8): one schema per monitor type,
 * shared by every surface: the fields every monitor has, and those its type declares
 * (types/, listed in monitor-types.ts). Field names are the wire names of the API; durations are
 * milliseconds.
 */

export type { MonitorType };

// The limits are the contract's, which the dashboard's form states too.
const { min: MIN_TIMEOUT_MS, max: MAX_TIMEOUT_MS, default: DEFAULT_TIMEOUT_MS } = MONITOR_LIMITS.timeoutMs;
const { max: MAX_RETRY, default: DEFAULT_RETRY } = MONITOR_LIMITS.retry;
const {
  privateLocations: MAX_PRIVATE_LOCATIONS,
  nameLength: MAX_NAME,
  descriptionLength: MAX_DESCRIPTION,
  tags: MAX_TAGS,
  tagLength: MAX_TAG,
  groupLength: MAX_GROUP,
} = MONITOR_LIMITS;

/** The fields every monitor type has, built with the first configuration parsed (see builtOnFirstUse). */
const commonFields = builtOnFirstUse(() => {
  const openTelemetry = z.strictObject({
    endpoint: httpUrl('metrics are exported over OTLP/HTTP only'),
    headers: httpHeaders().default({}),
  });

  const regionList = z
    .array(
      z.string().refine(isRegion, `must be a region of the catalogue: ${regionCatalogue.map((r) => r.id).join(', ')}`),
      expected('a list of region ids, e.g. ["iad", "fra"]'),
    )
    .max(regionCatalogue.length)
    .refine((list) => new Set(list).size === list.length, 'must not name a region twice');

  /** Ids of the workspace's private locations; the monitor service checks that each is one. */
  const privateLocationList = z
    .array(z.string(expected('a private location id')), expected('a list of private location ids, e.g. ["7"]'))
    .max(MAX_PRIVATE_LOCATIONS, `must name at most ${MAX_PRIVATE_LOCATIONS} private locations`)
    .refine((list) => new Set(list).size === list.length, 'must not name a private location twice')
    .default([]);

  const durationMs = () => z.number({ error: 'must be a duration in milliseconds' }).int('must be whole milliseconds');

  /**
   * Regions are optional: absent, a type's monitors get the plan's default regions unless they
   * have private locations, or are refused where the type has no default (its `regions.absent`).
   */
  return {
    name: oneLine(z.string(expected('a name')).trim().min(1, 'is required').max(MAX_NAME, `must be at most ${MAX_NAME} characters`)),
    description: z.string().max(MAX_DESCRIPTION, `must be at most ${MAX_DESCRIPTION} characters`).default(''),
    active: z.boolean().default(true),
    periodicity: z.enum(frequencies, expected(`one of ${frequencies.join(', ')}`)),
    timeout: durationMs()
      .min(MIN_TIMEOUT_MS, `must be at least ${MIN_TIMEOUT_MS} ms`)
      .max(MAX_TIMEOUT_MS, `must be at most ${MAX_TIMEOUT_MS / 1000} s`)
      .default(DEFAULT_TIMEOUT_MS),
    degraded: durationMs().min(1, 'must be at least 1 ms').nullable().default(null),
    remindEvery: durationMs()
      .min(MONITOR_LIMITS.remindEveryMs.min, `must be at least ${MONITOR_LIMITS.remindEveryMs.min / 60_000} minutes`)
      .max(MONITOR_LIMITS.remindEveryMs.max, `must be at most ${MONITOR_LIMITS.remindEveryMs.max / 86_400_000} days`)
      .nullable()
      .default(null),
    retry: z.number().int('must be a whole number').min(0, `must be 0 to ${MAX_RETRY}`).max(MAX_RETRY, `must be 0 to ${MAX_RETRY}`).default(DEFAULT_RETRY),
    openTelemetry: openTelemetry.nullable().default(null),
    tags: z
      .array(oneLine(z.string().trim().min(1, 'a tag must not be empty').max(MAX_TAG, `a tag must be at most ${MAX_TAG} characters`)))
      .max(MAX_TAGS, `must have at most ${MAX_TAGS} tags`)
      .refine((list) => new Set(list).size === list.length, 'must not repeat a tag')
      .default([]),
    group: oneLine(z.string(expected('a group name')).trim().max(MAX_GROUP, `must be at most ${MAX_GROUP} characters`)).default(''),
    regions: regionList.optional(),
    privateLocations: privateLocationList,
  };
});

/**
 * A monitor is checked from somewhere: an empty list of regions needs private locations, and so
 * do absent regions where the type has no default (`absent`: the rule for absent regions, if any).
 */
const checkedFrom = (empty: string, absent?: string) => (value: { regions?: string[]; privateLocations: string[] }, ctx: z.RefinementCtx) => {
  if (value.privateLocations.length > 0) return;
  if (value.regions?.length === 0) ctx.addIssue({ code: 'custom', path: ['regions'], message: empty });
  else if (value.regions === undefined && absent) ctx.addIssue({ code: 'custom', path: ['regions'], message: absent });
};

function degradedBelowTimeout(value: { timeout: number; degraded: number | null }, ctx: z.RefinementCtx): void {
  if (value.degraded !== null && value.degraded >= value.timeout) {
    ctx.addIssue({ code: 'custom', path: ['degraded'], message: `must be below timeout (${value.timeout} ms)` });
  }
}

type CommonShape = ReturnType<typeof commonFields>;
/** The whole schema of a type: the common fields and the type's own, strict. */
type ConfigSchemaOf<F extends DeclaredFields> = z.ZodObject<CommonShape & ShapeOf<F>, z.core.$strict>;
type FieldsOf<K extends MonitorType> = ReturnType<(typeof monitorTypes)[K]['fields']>;
type ConfigSchemas = { [K in MonitorType]: ConfigSchemaOf<FieldsOf<K>> };

/** The whole schema of a type: the common fields, the type's own, the rules across them. */
function configSchemaOf(spec: MonitorTypeSpec): z.ZodType {
  const { refine } = spec;
  const schema = z
    .strictObject({ ...commonFields(), ...shapeOf(spec.fields()) })
    .superRefine(degradedBelowTimeout)
    .superRefine(checkedFrom(spec.regions.empty, spec.regions.absent));
  return refine ? schema.superRefine((value, ctx) => refine(value, ctx)) : schema;
}

/** The schema of each monitor type, built with the first configuration parsed (see builtOnFirstUse). */
export const configSchemas = builtOnFirstUse(
  () =>
    Object.fromEntries(
      Object.entries(monitorTypes).map(([type, spec]) => [type, configSchemaOf(spec as unknown as MonitorTypeSpec)]),
    ) as unknown as ConfigSchemas,
);

/**
 * Stored configurations: the service fills absent regions (monitors.ts: completeConfig), and the
 * check engine's results name a private location as a region of its own.
 */
type Configured<S extends z.ZodType> = Omit<z.output<S>, 'regions'> & { regions: string[] };
export type ConfigOf<K extends MonitorType> = Configured<ConfigSchemas[K]>;
export type TcpConfig = ConfigOf<'tcp'>;
export type GrpcConfig = ConfigOf<'grpc'>;
export type HttpConfig = ConfigOf<'http'>;
