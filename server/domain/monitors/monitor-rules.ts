import { isIP } from 'node:net';
import { z } from 'zod';
import { frequencies } from '../plans.ts';
import { isRegion, regions as regionCatalogue } from '../regions.ts';
import { builtOnFirstUse, CONNECTION_HEADERS, expected, HEADER_NAME, headerBounds, headerValue, httpHeaders, httpUrl, oneLine } from '../validation.ts';

/**
 * The validation rules of monitor configuration (SPEC 2.7, 2.8): one schema per monitor type,
 * shared by every surface. Field names are the wire names of the API; durations are milliseconds.
 */

export type MonitorType = keyof ConfigSchemas;

export const tlsModes = ['verify', 'skip-verify', 'plaintext'] as const;
export const httpMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export const numberComparators = ['equal', 'not_equal', 'greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal'] as const;
export const stringComparators = ['contains', 'not_contains', 'equal', 'not_equal', 'empty', 'not_empty'] as const;

const DEFAULT_TIMEOUT_MS = 45_000;
const MAX_TIMEOUT_MS = 120_000;
const MIN_TIMEOUT_MS = 100;
const DEFAULT_RETRY = 3;
const MAX_RETRY = 10;
const MAX_BODY_BYTES = 64 * 1024;
const MAX_ASSERTIONS = 20;
const MAX_PRIVATE_LOCATIONS = 10;

/** A fully qualified protobuf service name, e.g. `grpc.health.v1.Health`. */
const SERVICE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const HOST_LABEL = /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function isHostname(host: string): boolean {
  return host.length <= 253 && host.split('.').every((label) => HOST_LABEL.test(label));
}

/**
 * Why `value` is not a `host:port` target, or undefined when it is one. `example` is a valid
 * target quoted in the messages.
 */
function hostPortProblem(value: string, example: string): string | undefined {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(value);
  if (scheme) return `must be host:port without a scheme: drop "${scheme[1]}://" and write e.g. ${example}`;
  let host: string;
  let port: string;
  if (value.startsWith('[')) {
    const match = /^\[([^\]]*)\](?::(.*))?$/.exec(value);
    if (!match) return 'an IPv6 address must be written in brackets followed by the port, e.g. [::1]:50051';
    host = match[1]!;
    if (isIP(host) !== 6) return `"${host}" in brackets is not an IPv6 address`;
    if (match[2] === undefined) return 'the port is required: write host:port, e.g. [::1]:50051';
    port = match[2];
  } else {
    const colons = value.split(':').length - 1;
    if (colons === 0) return `the port is required: write host:port, e.g. ${example}`;
    if (colons > 1) return 'an IPv6 address must be in brackets, e.g. [::1]:50051';
    [host, port] = value.split(':') as [string, string];
    if (host === '') return `the host is missing: write host:port, e.g. ${example}`;
    if (isIP(host) === 0 && (/^[\d.]+$/.test(host) || !isHostname(host))) return `"${host}" is not a hostname or IP address`;
  }
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
    return `the port must be a number from 1 to 65535, got "${port}"`;
  }
  return undefined;
}

const hostPort = (example: string) =>
  z
    .string(expected(`host:port, e.g. ${example}`))
    .trim()
    .min(1, `is required: write host:port, e.g. ${example}`)
    .superRefine((value, ctx) => {
      const problem = hostPortProblem(value, example);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

/** The schema of each monitor type, built with the first configuration parsed (see builtOnFirstUse). */
function buildConfigSchemas() {
  /** gRPC metadata: sent as HTTP/2 headers, so names must be lower-case and not pseudo-headers. */
  const grpcMetadata = z
    .record(
      z.string().superRefine((name, ctx) => {
        const problem = name.startsWith(':')
          ? 'pseudo-headers are set by the check and cannot be metadata'
          : !HEADER_NAME.test(name)
            ? 'must be a valid HTTP/2 header name'
            : name !== name.toLowerCase()
              ? 'HTTP/2 header names must be lower-case'
              : CONNECTION_HEADERS.has(name) || name === 'content-type'
                ? 'is set by the connection and cannot be metadata'
                : name.startsWith('grpc-')
                  ? 'names starting with grpc- are reserved by gRPC'
                  : undefined;
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
      headerValue(),
    )
    .superRefine((entries, ctx) => {
      headerBounds(entries, ctx);
      for (const [name, value] of Object.entries(entries)) {
        if (name.endsWith('-bin') && !BASE64.test(value)) {
          ctx.addIssue({ code: 'custom', path: [name], message: 'a -bin metadata value must be base64' });
        }
      }
    });

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
   * Fields every monitor type has. Regions are optional: absent, TCP and HTTP monitors get the plan's
   * default regions unless they have private locations, and gRPC monitors need private locations.
   */
  const commonFields = {
    name: oneLine(z.string(expected('a name')).trim().min(1, 'is required').max(200, 'must be at most 200 characters')),
    description: z.string().max(2000, 'must be at most 2000 characters').default(''),
    active: z.boolean().default(true),
    periodicity: z.enum(frequencies, expected(`one of ${frequencies.join(', ')}`)),
    timeout: durationMs()
      .min(MIN_TIMEOUT_MS, `must be at least ${MIN_TIMEOUT_MS} ms`)
      .max(MAX_TIMEOUT_MS, `must be at most ${MAX_TIMEOUT_MS / 1000} s`)
      .default(DEFAULT_TIMEOUT_MS),
    degraded: durationMs().min(1, 'must be at least 1 ms').nullable().default(null),
    retry: z.number().int('must be a whole number').min(0, 'must be 0 to 10').max(MAX_RETRY, 'must be 0 to 10').default(DEFAULT_RETRY),
    openTelemetry: openTelemetry.nullable().default(null),
    tags: z
      .array(oneLine(z.string().trim().min(1, 'a tag must not be empty').max(64, 'a tag must be at most 64 characters')))
      .max(20, 'must have at most 20 tags')
      .refine((list) => new Set(list).size === list.length, 'must not repeat a tag')
      .default([]),
    regions: regionList.optional(),
    privateLocations: privateLocationList,
  };

  /**
   * A monitor is checked from somewhere: an empty list of regions needs private locations, and so
   * do absent regions where the type has no default (`absent`: the rule for absent regions, if any).
   */
  const checkedFrom = (empty: string, absent?: string) => (value: { regions?: string[]; privateLocations: string[] }, ctx: z.RefinementCtx) => {
    if (value.privateLocations.length > 0) return;
    if (value.regions?.length === 0) ctx.addIssue({ code: 'custom', path: ['regions'], message: empty });
    else if (value.regions === undefined && absent) ctx.addIssue({ code: 'custom', path: ['regions'], message: absent });
  };
  const DEFAULTED_REGIONS = 'must name at least one region, or be left out for the plan default, unless the monitor has private locations';

  function degradedBelowTimeout(value: { timeout: number; degraded: number | null }, ctx: z.RefinementCtx): void {
    if (value.degraded !== null && value.degraded >= value.timeout) {
      ctx.addIssue({ code: 'custom', path: ['degraded'], message: `must be below timeout (${value.timeout} ms)` });
    }
  }

  const tcpConfigSchema = z
    .strictObject({
      ...commonFields,
      uri: hostPort('db.internal:5432'),
    })
    .superRefine(degradedBelowTimeout)
    .superRefine(checkedFrom(DEFAULTED_REGIONS));

  const grpcConfigSchema = z
    .strictObject({
      ...commonFields,
      uri: hostPort('api.internal:50051'),
      service: z
        .string()
        .trim()
        .max(256, 'must be at most 256 characters')
        .superRefine((value, ctx) => {
          if (value === '') return;
          if (value.includes('/')) {
            ctx.addIssue({ code: 'custom', message: 'is a service name, not a method path: write e.g. my.pkg.MyService instead of /my.pkg.MyService/Method' });
          } else if (!SERVICE_NAME.test(value)) {
            ctx.addIssue({ code: 'custom', message: 'must be a service name like my.pkg.MyService, or empty for the whole server' });
          }
        })
        .default(''),
      tls: z.enum(tlsModes, { error: `must be one of ${tlsModes.join(', ')}` }).default('verify'),
      metadata: grpcMetadata.default({}),
    })
    .superRefine(degradedBelowTimeout)
    .superRefine(checkedFrom('must name at least one region, or the monitor at least one private location', 'is required: name at least one region, or at least one private location'));

  const statusCodeAssertion = z.strictObject({
    comparator: z.enum(numberComparators, { error: `must be one of ${numberComparators.join(', ')}` }),
    target: z.number().int().min(100, 'must be a status code from 100 to 599').max(599, 'must be a status code from 100 to 599'),
  });

  function emptyTargetRule(value: { comparator: string; target: string }, ctx: z.RefinementCtx): void {
    if ((value.comparator === 'empty' || value.comparator === 'not_empty') && value.target !== '') {
      ctx.addIssue({ code: 'custom', path: ['target'], message: `must be empty with comparator ${value.comparator}` });
    }
  }

  const headerAssertion = z
    .strictObject({
      key: z.string().regex(HEADER_NAME, 'must be a valid HTTP header name'),
      comparator: z.enum(stringComparators, { error: `must be one of ${stringComparators.join(', ')}` }),
      target: z.string().max(1024, 'must be at most 1024 characters').default(''),
    })
    .superRefine(emptyTargetRule);

  const bodyAssertion = z
    .strictObject({
      comparator: z.enum(stringComparators, { error: `must be one of ${stringComparators.join(', ')}` }),
      target: z.string().max(10_240, 'must be at most 10240 characters').default(''),
    })
    .superRefine(emptyTargetRule);

  const httpConfigSchema = z
    .strictObject({
      ...commonFields,
      url: httpUrl('the address to request'),
      method: z.enum(httpMethods, { error: `must be one of ${httpMethods.join(', ')}` }).default('GET'),
      headers: httpHeaders().default({}),
      body: z
        .string()
        .refine((body) => Buffer.byteLength(body) <= MAX_BODY_BYTES, `must be at most ${MAX_BODY_BYTES} bytes`)
        .default(''),
      followRedirects: z.boolean().default(true),
      statusCodeAssertions: z.array(statusCodeAssertion).max(MAX_ASSERTIONS, `must have at most ${MAX_ASSERTIONS} assertions`).default([]),
      headerAssertions: z.array(headerAssertion).max(MAX_ASSERTIONS, `must have at most ${MAX_ASSERTIONS} assertions`).default([]),
      bodyAssertions: z.array(bodyAssertion).max(MAX_ASSERTIONS, `must have at most ${MAX_ASSERTIONS} assertions`).default([]),
    })
    .superRefine(degradedBelowTimeout)
    .superRefine(checkedFrom(DEFAULTED_REGIONS))
    .superRefine((value, ctx) => {
      if (value.body !== '' && (value.method === 'GET' || value.method === 'HEAD')) {
        ctx.addIssue({ code: 'custom', path: ['body'], message: `is not allowed with method ${value.method}; use POST, PUT or PATCH` });
      }
    });

  return { tcp: tcpConfigSchema, grpc: grpcConfigSchema, http: httpConfigSchema } as const;
}

export const configSchemas = builtOnFirstUse(buildConfigSchemas);
type ConfigSchemas = ReturnType<typeof buildConfigSchemas>;

/**
 * Stored configurations: the service fills absent regions (monitors.ts: completeConfig), and the
 * check engine's results name a private location as a region of its own.
 */
type Configured<S extends z.ZodType> = Omit<z.output<S>, 'regions'> & { regions: string[] };
export type TcpConfig = Configured<ConfigSchemas['tcp']>;
export type GrpcConfig = Configured<ConfigSchemas['grpc']>;
export type HttpConfig = Configured<ConfigSchemas['http']>;
