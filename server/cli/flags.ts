import { durationOf } from '../domain/declared-fields.ts';
import { runningService } from '../service-record.ts';
import { printTable, UsageError } from './output.ts';

/** The flag helpers every command file shares: reading parsed flags, checking them, and reaching the service. */

/**
 * A flag of a command: parseArgs' own fields, and what `--help` says of it. Help lists a flag as
 * `--name VALUENAME  description`; a flag without a description shows only in the usage line.
 */
export interface Flag {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  /** The name of its value in help (`URL`, `SLUG`, `30s|1m`); a string flag without one shows `VALUE`. */
  valueName?: string;
  /** What it does, one line of help. */
  description?: string;
}

export type Options = Record<string, Flag>;
export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/**
 * A command of `statusdesk`. Help is generated from it: `summary` in the list of `statusdesk --help`
 * and at the top of the command's own `--help` (without one, help shows the usage line), then its
 * options with their `valueName` and `description`. `fields` names the flag of each field path the
 * service may refuse (`{ 'monitor.uri': '--target' }`), beyond the shared `commonFields`, so a
 * refused value is reported as the flag people typed.
 */
export interface Command {
  /** The command and its flags in one line, without `statusdesk`; shown with usage errors. */
  usage: string;
  /** What the command does, one line. */
  summary?: string;
  options: Options;
  /** How many positional arguments the command takes; `many`: one or more. */
  positionals?: number | 'many';
  /** The service's field paths (`monitor.periodicity`) and the flags that give them (`--frequency`). */
  fields?: Record<string, string>;
  /** Resolves to the exit code when it is not 0 without an error to print (`channels test`). */
  run(values: Values, positionals: string[]): Promise<void | number>;
}

export const dataDir = { 'data-dir': { type: 'string', valueName: 'DIR', description: 'the data folder of the service' } } as const satisfies Options;
export const json = { json: { type: 'boolean', description: 'print JSON instead of a table' } } as const satisfies Options;

/** Where the service is when neither --api-url nor SERVICE_API_URL says and no running service is recorded. */
export const DEFAULT_SERVICE_URL = 'http://localhost:3000';

/** The service address of every client command. */
export const apiUrl = {
  'api-url': {
    type: 'string',
    valueName: 'URL',
    description: `the service address (default: SERVICE_API_URL, else the running service's, else ${DEFAULT_SERVICE_URL})`,
  },
} as const satisfies Options;

/**
 * The service address, and `--url` as its old name. A command whose subject has a URL of its own
 * (an HTTP monitor, a webhook) takes `apiUrl` alone: there `--url` would be ambiguous, and is refused.
 */
export const address = { ...apiUrl, url: { type: 'string', valueName: 'URL' } } as const satisfies Options;
export const connection = { ...address, ...json } as const satisfies Options;

/** The field paths many commands share, and their flags; a command's own `fields` come first. */
export const commonFields: Record<string, string> = {
  name: '--name',
  slug: '--slug',
  plan: '--plan',
  scope: '--scope',
  description: '--description',
  workspace_id: '--workspace',
  workspaceId: '--workspace',
};

export const str = (values: Values, name: string) => values[name] as string | undefined;
export const list = (values: Values, name: string) => (values[name] as string[] | undefined) ?? [];

export function required(values: Values, name: string): string {
  const value = str(values, name);
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** `--url is now --api-url` is said once, however often a command reads the address. */
let urlAliasNoted = false;

/**
 * The service address of a client command: --api-url, else --url (its old name, with a note),
 * else SERVICE_API_URL, else the running service's (its record), else the default; a usage error, naming where it came from, unless an
 * http(s) URL.
 */
export function serviceUrl(values: Values): string {
  const given: [string, string | undefined][] = [
    ['--api-url', str(values, 'api-url')],
    ['--url', str(values, 'url')],
    ['SERVICE_API_URL', process.env.SERVICE_API_URL || undefined],
  ];
  const [source, value] = given.find(([, v]) => v !== undefined) ?? ['', runningService('--api-url')?.apiUrl ?? DEFAULT_SERVICE_URL];
  if (source === '--url' && !urlAliasNoted) {
    urlAliasNoted = true;
    note('statusdesk: --url is now --api-url');
  }
  const url = URL.parse(value!);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.host) {
    throw new UsageError(`${source} must be a URL such as ${DEFAULT_SERVICE_URL}, got "${value}"`);
  }
  return url.toString().replace(/\/+$/, '');
}

/** A connection that nothing answered: refused, or no such host. */
export function unreachable(error: unknown): boolean {
  for (let at = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; at && depth < 4; at = at.cause as typeof at, depth++) {
    if (typeof at.code === 'string' && ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'].includes(at.code)) return true;
  }
  return false;
}

/** REST paths hang off the API address without the /rpc suffix of SERVICE_API_URL. */
export function restBase(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/rpc$/, '');
}

export function count(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${flag} must be a whole number, got "${value}"`);
  return Number(value);
}

/** A whole number for an int32 field of the API. */
export function int32(flag: string, value: string | undefined): number | undefined {
  const n = count(flag, value);
  if (n !== undefined && n > 2_147_483_647) throw new UsageError(`--${flag} must be at most 2147483647, got "${value}"`);
  return n;
}

export function parseBoolean(flag: string, value: string): boolean {
  if (value === 'true' || value === 'false') return value === 'true';
  throw new UsageError(`--${flag} must be true or false, got "${value}"`);
}

/** `k=v` pairs as a map; the value may itself contain `=`. */
export function pairs(flag: string, entries: string[]): Record<string, string> {
  return Object.fromEntries(
    entries.map((entry) => {
      const at = entry.indexOf('=');
      if (at < 1) throw new UsageError(`--${flag} takes key=value, got "${entry}"`);
      return [entry.slice(0, at), entry.slice(at + 1)];
    }),
  );
}

export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${flag} must be one of ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

/**
 * `--notify` and `--no-notify`: publishing must say whether subscribers are told, so one of the
 * two is required, and both together are a mistake.
 */
export const notifyFlags = {
  notify: { type: 'boolean', description: "tell the page's subscribers" },
  'no-notify': { type: 'boolean', description: "do not tell the page's subscribers" },
} as const satisfies Options;

export function notifyOf(values: Values): boolean {
  const yes = values.notify === true;
  const no = values['no-notify'] === true;
  if (yes && no) throw new UsageError('give one of --notify/--no-notify, not both');
  if (!yes && !no) throw new UsageError("--notify/--no-notify is required: say whether the page's subscribers are told");
  return yes;
}

/** Refuses a given flag outside `allowed`: a flag that does not apply is a mistake, not an option to ignore. */
export function rejectFlags(values: Values, allowed: Iterable<string>, what: string): void {
  const own = new Set(allowed);
  const foreign = Object.keys(values).filter((flag) => values[flag] !== undefined && !own.has(flag));
  if (foreign.length > 0) throw new UsageError(`--${foreign[0]} does not apply to ${what}`);
}

/** One record as a FIELD/VALUE table; an empty or absent value shows as `-`. */
export function printFields(rows: [field: string, value: string | null | undefined][]): void {
  printTable(
    ['FIELD', 'VALUE'],
    rows.map(([field, value]) => [field, value === '' ? undefined : value]),
  );
}

/** A line for people on stderr: stdout carries only results. */
export function note(text: string): void {
  process.stderr.write(`${text}\n`);
}

/** `500ms`, `45s`, `15m`, `2h`, `1d` as milliseconds (domain/declared-fields.ts: durationOf). */
export function parseDuration(flag: string, value: string): number {
  const ms = durationOf(value);
  if (ms === undefined) throw new UsageError(`--${flag} must be a duration like 500ms, 45s, 15m, 2h or 1d, got "${value}"`);
  return ms;
}
