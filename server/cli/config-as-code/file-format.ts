import { isDeepStrictEqual } from 'node:util';
import { Composer, type CST, Document, isAlias, isCollection, isMap, isPair, isScalar, isSeq, LineCounter, type Node, Parser, visit } from 'yaml';
import { z } from 'zod';
import { MAINTENANCE_LIMITS } from '../../../contract/limits.ts';
import { innermost, whatOf } from '../../domain/declared-fields.ts';
import { checkRule, firstOccurrence, type RepeatRule, repeatInput } from '../../domain/maintenance/occurrences.ts';
import { configSchemas } from '../../domain/monitors/monitor-rules.ts';
import { isSecretName } from '../../domain/monitors/monitor-secrets.ts';
import { type MonitorType, monitorTypeNames, type MonitorTypeSpec, secretMapNames, specOf } from '../../domain/monitors/monitor-types.ts';
import type { MonitorConfig } from '../../domain/monitors/monitors.ts';
import { frequencies } from '../../domain/plans.ts';
import { builtOnFirstUse, oneLine } from '../../domain/validation.ts';
import { AppError } from '../../errors.ts';

/**
 * The file of `statusdesk apply` and `statusdesk export`: monitors, status pages and their
 * components in the words of the command's flags and its JSON (`target`, `frequency: 1m`,
 * `tls: plaintext`, durations in milliseconds; the assertions of an HTTP monitor as one list;
 * private locations by name, not id, so that a file applies to another service). A monitor's fields are checked by the domain's own
 * rules (monitor-rules.ts), so a file is refused with the same reasons the service would give, and
 * each reason names its place in the file. The shape of a type's own fields is read from its
 * declaration (domain/monitors/types/): a text, a choice, a map, a list.
 */

export const FILE_VERSION = 1;

/** One reason a file cannot be applied, at its place in the file (`monitors[2].frequency`). */
export interface Problem {
  path: string;
  message: string;
}

/**
 * What stops a file from being applied, all of it: nothing is changed while there is a problem.
 * A bad file exits 2 (as a usage error does); a good file at odds with the workspace exits 1.
 */
export class Problems extends Error {
  readonly problems: Problem[];
  readonly exitCode: 1 | 2;
  constructor(problems: Problem[], exitCode: 1 | 2) {
    super(problems.map((p) => `${p.path}: ${p.message}`).join('; '));
    this.problems = problems;
    this.exitCode = exitCode;
  }
}

export const pathText = (path: readonly PropertyKey[]) =>
  path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`)).join('');

const words = <T extends string>(values: readonly T[]) => z.enum(values as [T, ...T[]], { error: `must be one of ${values.join(', ')}` });
const text = (what: string) => z.string({ error: `must be ${what}` });
const map = z.record(z.string(), text('text'), { error: 'must be a map of names to text' });
const bool = () => z.boolean({ error: 'must be true or false' });

/**
 * The shape a file gives a field of the domain's `schema`: its kind of value only (text, one of
 * the choices, a number, a map, a list), with a message naming what it is; the domain's rules
 * judge the value afterwards.
 */
function fileShapeOf(schema: z.ZodType): z.ZodType {
  const inner = innermost(schema);
  const what = whatOf(schema);
  if (inner instanceof z.ZodEnum) return words(inner.options as string[]);
  if (inner instanceof z.ZodString) return text(what ?? 'text');
  if (inner instanceof z.ZodBoolean) return bool();
  if (inner instanceof z.ZodNumber) return z.number({ error: `must be ${what ?? 'a number'}` });
  if (inner instanceof z.ZodRecord) return map;
  if (inner instanceof z.ZodArray) return z.array(fileShapeOf(inner.element as z.ZodType));
  if (inner instanceof z.ZodObject) return z.strictObject(objectShapeOf(inner));
  return z.unknown();
}

/** The file's shape of each field of a domain object; a field the domain fills in may be left out. */
function objectShapeOf(object: z.ZodObject): Record<string, z.ZodType> {
  return Object.fromEntries(
    Object.entries(object.shape as Record<string, z.ZodType>).map(([name, field]) => [
      name,
      field.safeParse(undefined).success ? fileShapeOf(field).optional() : fileShapeOf(field),
    ]),
  );
}

/** The lists a type's file writes as one (`assertions`), each item marked by its list's word (`type: status`). */
function fileListShape(spec: MonitorTypeSpec, list: NonNullable<MonitorTypeSpec['fileLists']>): z.ZodType {
  const fields = spec.fields();
  const items = Object.entries(list.lists).map(([word, field]) => {
    const element = (innermost(fields[field]!.schema) as z.ZodArray<z.ZodObject>).element;
    return z.strictObject({ type: z.literal(word), ...objectShapeOf(innermost(element) as z.ZodObject) });
  });
  const kinds = Object.keys(list.lists);
  return z.array(
    z.discriminatedUnion('type', items as unknown as [z.ZodObject, ...z.ZodObject[]], {
      error: `must be ${list.item} of type ${kinds.slice(0, -1).join(', ')} or ${kinds.at(-1)}`,
    }),
  );
}

/** The file's fields of a type's own, besides its target: each optional, lists written as one. */
function typeShape(type: MonitorType): Record<string, z.ZodType> {
  const spec = specOf(type);
  const listed = new Set(Object.values(spec.fileLists?.lists ?? {}));
  const own = Object.entries(spec.fields()).filter(([name]) => name !== spec.target && !listed.has(name));
  return {
    ...Object.fromEntries(own.map(([name, field]) => [name, fileShapeOf(field.schema).optional()])),
    ...(spec.fileLists ? { [spec.fileLists.word]: fileListShape(spec, spec.fileLists).optional() } : {}),
  };
}

const commonFields = () => ({
  name: text('a name').min(1, 'is required'),
  target: text('the monitored address'),
  description: text('text').optional(),
  active: bool().optional(),
  frequency: words(frequencies),
  regions: z.array(text('a region id'), { error: 'must be a list of region ids, e.g. [iad, fra]' }).optional(),
  /** By name: ids differ from one service to the next, names are what people read. */
  privateLocations: z.array(text('a private location name'), { error: 'must be a list of private location names, e.g. [office]' }).optional(),
  timeout: z.number({ error: 'must be milliseconds' }).optional(),
  degraded: z.number({ error: 'must be milliseconds, or null' }).nullable().optional(),
  remindEvery: z.number({ error: 'must be milliseconds, or null' }).nullable().optional(),
  retry: z.number({ error: 'must be a whole number' }).optional(),
  tags: z.array(text('a tag')).optional(),
  group: text('a group name').optional(),
  openTelemetry: z
    .strictObject({ endpoint: text('a URL'), headers: map.optional() })
    .nullable()
    .optional(),
  /** The monitor's public status badges: on or off; left out, they stay as they are. Not part of its configuration. */
  badges: bool().optional(),
});

/** The file's shape of a monitor of each type, built with the first file read. */
const monitorSchemas = builtOnFirstUse(
  () =>
    Object.fromEntries(
      monitorTypeNames.map((type) => [type, z.strictObject({ type: z.literal(type), ...commonFields(), ...typeShape(type) })]),
    ) as unknown as Record<MonitorType, z.ZodObject>,
);

export type FileMonitor = { type: MonitorType; name: string; target: string; frequency: string } & Record<string, unknown>;
type ListItem = { type: string } & Record<string, unknown>;

const component = z.strictObject({
  name: text('a name').min(1, 'is required'),
  description: text('text').optional(),
  monitor: text('the name of a monitor').optional(),
  group: text('a group name').nullable().optional(),
  position: z.number({ error: 'must be a whole number from 0' }).int('must be a whole number from 0').min(0, 'must be a whole number from 0').optional(),
});

/** A logo in the file: its bytes as a `data:` address, as `statusdesk export` writes it. */
const LOGO_DATA = /^data:image\/(?:png|jpeg|webp|gif);base64,[A-Za-z0-9+/]+={0,2}$/;

const page = z.strictObject({
  slug: text('a slug'),
  title: text('a title').min(1, 'is required'),
  description: text('text').optional(),
  accentColor: text('a colour as #rrggbb').optional(),
  websiteUrl: text('an http:// or https:// URL').optional(),
  customDomain: text('a host name such as status.example.com').optional(),
  logo: text('a data: address').regex(LOGO_DATA, 'must be a PNG, JPEG, WebP or GIF image as data:image/TYPE;base64,…').optional(),
  components: z.array(component).optional(),
});

/** A date and time with a zone, e.g. 2026-11-21T22:00:00Z: without one, the same text means different moments on different machines. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-](0\d|1[0-4]):[0-5]\d)$/i;
const INSTANT_RULE = 'must be an ISO 8601 date and time with a zone, e.g. 2026-11-21T22:00:00Z';
/** An instant of the file, as the service stores it: RFC 3339 in UTC. */
const instant = () =>
  z
    .string({ error: INSTANT_RULE })
    .trim()
    .refine((value) => ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value)), INSTANT_RULE)
    .transform((value) => new Date(value).toISOString());

const { titleLength, messageLength, components: maxComponents } = MAINTENANCE_LIMITS;

/** A maintenance window: on a page, for the page as a whole or some of its components (by name); one-off (from, to) or repeating. */
const maintenanceWindow = z.strictObject({
  title: oneLine(text('a title').trim().min(1, 'is required').max(titleLength, `must be at most ${titleLength} characters`)),
  page: text('the slug of a status page'),
  message: text('text').max(messageLength, `must be at most ${messageLength} characters`).optional(),
  components: z
    .array(text('the name of a component of the page'), { error: 'must be a list of component names of the page, e.g. [API, Database]' })
    .max(maxComponents, `must name at most ${maxComponents} components`)
    .optional(),
  from: instant().optional(),
  to: instant().optional(),
  /** Checked by the domain's own rules, at its place (desiredWindow). */
  repeat: z.unknown().optional(),
});

const fileSchema = z.strictObject({
  version: z.literal(FILE_VERSION, { error: `must be ${FILE_VERSION}` }),
  monitors: z.array(z.unknown(), { error: 'must be a list of monitors' }).optional(),
  pages: z.array(page, { error: 'must be a list of pages' }).optional(),
  maintenance: z.array(maintenanceWindow, { error: 'must be a list of maintenance windows' }).optional(),
});

export type FilePage = z.output<typeof page>;
export type FileComponent = z.output<typeof component>;

/** A monitor of the file, with its configuration as the domain holds it (defaults filled in). */
export interface DesiredMonitor {
  name: string;
  type: MonitorType;
  /** Where it stands in the file, for problems found against the workspace. */
  path: string;
  /**
   * `regions` is absent when the file leaves it out: the plan's default (or none, with private
   * locations) on create, unchanged on update. `privateLocations` holds names.
   */
  config: MonitorConfig;
  /** Whether its status badges are on; undefined when the file leaves `badges` out (left as they are). */
  badges?: boolean;
}

/** A page of the file, with the defaults filled in; components are placed in file order unless they say where. */
export interface DesiredPage {
  slug: string;
  title: string;
  description: string;
  /** The branding and custom domain: null where the file leaves them out (none). The logo as a `data:` address. */
  accentColor: string | null;
  websiteUrl: string | null;
  customDomain: string | null;
  logo: string | null;
  path: string;
  components: { name: string; description: string; monitor: string | null; group: string | null; position: number; path: string }[];
}

/** A maintenance window of the file. Titles identify windows, as names identify monitors. */
export interface DesiredWindow {
  title: string;
  /** The slug of its page. */
  page: string;
  message: string;
  /** The names of the page's components it covers, sorted; empty: the page as a whole. */
  components: string[];
  /** A one-off window's span (RFC 3339, UTC); for a repeating one, `from` is when the repetition begins (optional) and `to` is absent. */
  from?: string;
  to?: string;
  repeat?: RepeatRule;
  path: string;
}

export interface Desired {
  monitors: DesiredMonitor[];
  pages: DesiredPage[];
  /** Undefined when the file has no `maintenance:` section: the workspace's windows are left as they are. */
  maintenance?: DesiredWindow[];
}

// ---- environment references ----------------------------------------------------------------

/** `${NAME}` is the environment variable NAME; `$$` is a `$`. */
const REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The service's own credential and settings (`SERVICE_API_KEY`, which `apply` itself runs with,
 * and `STATUSDESK_*`: the runner's token, the database's and the mail server's URLs with their
 * passwords): a file never sends them to a monitored target, whoever wrote it.
 */
const ownVariable = (name: string) => name === 'SERVICE_API_KEY' || name.startsWith('STATUSDESK_');

/**
 * Whether the value at `path` is a credential value: an entry of a monitor's secret maps
 * (`headers`, `metadata`: its type's `secretMaps`) or `openTelemetry.headers` named like a credential. Those, and only those, the
 * service seals and never shows again; a value taken from the environment anywhere else would be
 * stored in the clear and shown to every reader of the workspace (and by `export`).
 */
function isSecretField(path: readonly PropertyKey[]): boolean {
  const [list, at, field, ...rest] = path;
  if (list !== 'monitors' || typeof at !== 'number') return false;
  const entry = field === 'openTelemetry' && rest[0] === 'headers' ? rest.slice(1) : typeof field === 'string' && secretMapNames.includes(field) ? rest : [];
  return entry.length === 1 && typeof entry[0] === 'string' && isSecretName(entry[0]);
}

/**
 * Every string of the document with its environment references expanded, in credential values
 * only; a reference elsewhere, to the service's own credentials or to an unset variable is a
 * problem.
 */
function expand(value: unknown, env: NodeJS.ProcessEnv, path: PropertyKey[], problems: Problem[]): unknown {
  if (typeof value === 'string') {
    return value.replace(REFERENCE, (whole, name: string | undefined) => {
      if (name === undefined) return '$';
      const at = pathText(path);
      if (ownVariable(name)) {
        problems.push({ path: at, message: `\${${name}} is a credential or setting of Statusdesk itself, which a file never sends to a monitored target` });
      } else if (!isSecretField(path)) {
        problems.push({
          path: at,
          message: `\${${name}} is read from the environment only in credential values (headers, metadata and OTLP headers named like authorization, cookie, token, secret, api-key, …), which the service seals: write the value itself here, or $\${${name}} for the text \${${name}}`,
        });
      } else if (env[name] === undefined) {
        problems.push({ path: at, message: `the environment variable ${name} is not set` });
      } else {
        return env[name];
      }
      return whole;
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => expand(item, env, [...path, i], problems));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, env, [...path, k], problems)]));
  }
  return value;
}

/** A `$` that expansion would read as a reference, written so that it reads back as itself. */
function escapeReferences(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/\$(?=[{$])/g, '$$$$');
  if (Array.isArray(value)) return value.map(escapeReferences);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, escapeReferences(v)]));
  return value;
}

// ---- file words and the domain's ------------------------------------------------------------

/** The lists of every type that a file writes as one, and the word of each. */
const fileLists = () => monitorTypeNames.flatMap((type) => specOf(type).fileLists ?? []);
/** The list written as one that holds the domain's list `field`, if any. */
const fileListOf = (field: string) => fileLists().find((l) => Object.values(l.lists).includes(field));

/** The file's word for a field of the domain's configuration. */
export function fileWord(field: string): string {
  if (monitorTypeNames.some((type) => specOf(type).target === field)) return 'target';
  if (field === 'periodicity') return 'frequency';
  return fileListOf(field)?.word ?? field;
}

/** A file monitor as the domain's configuration input, and where each item of the domain's lists came from in the file. */
function configInputOf(monitor: FileMonitor) {
  const { type, target, frequency, ...rest } = monitor;
  const input: Record<string, unknown> = { ...rest, [specOf(type).target]: target, periodicity: frequency };
  const origin: Record<string, number[]> = {};
  const list = specOf(type).fileLists;
  if (list && list.word in rest) {
    delete input[list.word];
    for (const field of Object.values(list.lists)) {
      origin[field] = [];
      input[field] = [];
    }
    const items = rest[list.word];
    (Array.isArray(items) ? (items as ListItem[]) : []).forEach(({ type: kind, ...fields }, at) => {
      const field = list.lists[kind];
      if (!field) return;
      (input[field] as unknown[]).push(fields);
      origin[field]!.push(at);
    });
  }
  return { input, origin };
}

/** The place in the file of a problem the domain found at `path` of its configuration. */
function filePath(base: PropertyKey[], path: readonly PropertyKey[], origin: Record<string, number[]>): string {
  const [field, index, ...rest] = path;
  if (typeof field !== 'string') return pathText(base);
  const at = origin[field]?.[index as number];
  if (at !== undefined) return pathText([...base, fileWord(field), at, ...rest]);
  return pathText([...base, fileWord(field), ...(index === undefined ? [] : [index]), ...rest]);
}

/** A monitor of the workspace in the file's words, leaving out what leaving out gives anyway. */
export function toFileMonitor(name: string, type: MonitorType, config: MonitorConfig): Record<string, unknown> {
  const c = config as Record<string, unknown>;
  const { target } = specOf(type);
  const omitted = (field: string) => {
    const { [field]: _, ...without } = c;
    const parsed = configSchemas()[type].safeParse(without);
    return parsed.success && isDeepStrictEqual((parsed.data as Record<string, unknown>)[field], c[field]);
  };
  const file: Record<string, unknown> = { name, type, target: c[target], frequency: c.periodicity, regions: c.regions };
  for (const [field, value] of Object.entries(c)) {
    if (['name', target, 'periodicity', 'regions'].includes(field) || value === undefined || omitted(field)) continue;
    const list = fileListOf(field);
    if (list) {
      const kind = Object.entries(list.lists).find(([, l]) => l === field)![0];
      file[list.word] = [...((file[list.word] as unknown[]) ?? []), ...(value as object[]).map((a) => ({ type: kind, ...a }))];
    } else {
      file[fileWord(field)] = value;
    }
  }
  return file;
}

/** The value of a field in the file's words, for the plan's lines: the lists written as one as that list. */
export function fileValue(config: MonitorConfig, field: string): unknown {
  const c = config as Record<string, unknown>;
  const list = fileListOf(field);
  if (!list) return c[field];
  return Object.entries(list.lists).flatMap(([kind, l]) => ((c[l] as object[] | undefined) ?? []).map((a) => ({ type: kind, ...a })));
}

/** The domain's configuration of a monitor of the workspace, with its defaults, to compare with the file's. */
export function normalConfig(type: MonitorType, fields: Record<string, unknown>): MonitorConfig {
  const parsed = configSchemas()[type].safeParse(fields);
  return (parsed.success ? parsed.data : fields) as MonitorConfig;
}

const listWords = () => new Set(fileLists().map((l) => l.word));

// ---- reading and writing --------------------------------------------------------------------

/**
 * How deep a file may nest, counting each map and list: a file of monitors and pages needs 5
 * (the file, `monitors`, a monitor, its `openTelemetry`, its `headers`). The parts that read a
 * file (YAML's own, the expansion, the checks) recurse once a level, so a bound far below what the
 * stack holds keeps a file nested thousands of levels deep a problem of the file, at its place.
 */
const MAX_DEPTH = 64;

const TOO_DEEP = `nests more than ${MAX_DEPTH} maps and lists deep; a file of monitors and pages needs 5`;

/** `line 3, column 7` of an offset into the source. */
const placeOf = (lines: LineCounter, offset: number) => {
  const { line, col } = lines.linePos(offset);
  return `line ${line}, column ${col}`;
};

/**
 * The first place where the file nests deeper than MAX_DEPTH, read from YAML's syntax tree before
 * anything recurses over it: the parser keeps a stack of its own, and so does this walk.
 */
function tooDeepInSource(tokens: readonly CST.Token[], lines: LineCounter): Problem | undefined {
  const open: [CST.Token, number][] = [];
  for (const token of tokens) if (token.type === 'document' && token.value) open.push([token.value, 1]);
  let first: number | undefined;
  while (open.length > 0) {
    const [token, depth] = open.pop()!;
    if (!('items' in token)) continue;
    if (depth > MAX_DEPTH) {
      first = Math.min(first ?? token.offset, token.offset);
      continue;
    }
    for (const item of token.items as CST.CollectionItem[]) for (const child of [item.key, item.value]) if (child) open.push([child, depth + 1]);
  }
  return first === undefined ? undefined : { path: placeOf(lines, first), message: TOO_DEEP };
}

/**
 * The first alias that makes the document deeper than MAX_DEPTH, or refers to a node it is part
 * of (which no file can expand): each node's height is known before any alias after it, since an
 * anchor comes before its aliases, so nothing recurses deeper than the source (bounded above).
 */
function tooDeepThroughAliases(document: Document, lines: LineCounter): Problem | undefined {
  const heights = new Map<Node, number>();
  let found: Problem | undefined;
  const heightOf = (node: unknown, depth: number): number => {
    if (found) return 0;
    if (isAlias(node)) {
      const target = node.resolve(document);
      // Without its anchor, toJS names it; a scalar adds no depth.
      if (target === undefined || !isCollection(target)) return 0;
      const height = heights.get(target);
      const at = () => placeOf(lines, node.range?.[0] ?? 0);
      if (height === undefined) found = { path: at(), message: `*${node.source} refers to a map or list it is part of` };
      else if (depth + height > MAX_DEPTH) found = { path: at(), message: `*${node.source} ${TOO_DEEP}` };
      return height ?? 0;
    }
    if (!isCollection(node)) return 0;
    let height = 0;
    for (const item of node.items) {
      for (const part of isPair(item) ? [item.key, item.value] : [item]) height = Math.max(height, heightOf(part, depth + 1));
    }
    heights.set(node, height + 1);
    return height + 1;
  };
  heightOf(document.contents, 0);
  return found;
}

/**
 * Reads a file: YAML (JSON is YAML too), environment references expanded, every field checked.
 * Throws FileProblems with all that is wrong, each at its place.
 */
export function readDesired(source: string, env: NodeJS.ProcessEnv): Desired {
  // Parsed once (parsing is most of the time a big file takes), checked for depth, then composed.
  const lines = new LineCounter();
  const tokens = [...new Parser(lines.addNewLine).parse(source)];
  const deep = tooDeepInSource(tokens, lines);
  if (deep) throw new Problems([deep], 2);
  const [document, ...more] = new Composer().compose(tokens, true, source.length);
  const errors = [
    ...document!.errors,
    ...more.slice(0, 1).map((d) => ({ pos: d.range, message: 'holds more than one YAML document (a line ---); a file to apply is one' })),
  ];
  if (errors.length > 0)
    throw new Problems(
      errors.map((e) => ({ path: placeOf(lines, e.pos[0]), message: e.message })),
      2,
    );
  const aliased = tooDeepThroughAliases(document!, lines);
  if (aliased) throw new Problems([aliased], 2);
  let value: unknown;
  try {
    value = document!.toJS();
  } catch (error) {
    // An alias without its anchor, or too many aliases (YAML's own bound against files that expand to billions of values).
    throw new Problems([{ path: '(file)', message: (error as Error).message }], 2);
  }
  const problems: Problem[] = [];
  const expanded = expand(value, env, [], problems);
  const file = fileSchema.safeParse(expanded ?? {});
  if (!file.success) {
    throw new Problems([...problems, ...issueProblems([], file.error.issues, 'the file')], 2);
  }
  const monitors = (file.data.monitors ?? []).flatMap((raw, i) => desiredMonitor(raw, ['monitors', i], problems));
  const pages = (file.data.pages ?? []).map((p, i) => desiredPage(p, ['pages', i]));
  const maintenance = file.data.maintenance?.flatMap((w, i) => desiredWindow(w, ['maintenance', i], problems));
  duplicates(
    monitors.map((m) => m.name),
    (at) => monitors[at]!.path,
    'name',
    'another monitor of the file has this name',
    problems,
  );
  duplicates(
    pages.map((p) => p.slug),
    (at) => pages[at]!.path,
    'slug',
    'another page of the file has this slug',
    problems,
  );
  for (const p of pages)
    duplicates(
      p.components.map((c) => c.name),
      (at) => p.components[at]!.path,
      'name',
      'another component of the page has this name',
      problems,
    );
  if (maintenance)
    duplicates(
      maintenance.map((w) => w.title),
      (at) => maintenance[at]!.path,
      'title',
      'another maintenance window of the file has this title',
      problems,
      'titles',
    );
  if (problems.length > 0) throw new Problems(problems, 2);
  return { monitors, pages, ...(maintenance ? { maintenance } : {}) };
}

function duplicates(keys: string[], pathOf: (at: number) => string, field: string, message: string, problems: Problem[], identify = 'names'): void {
  // A set, not indexOf: a file of 10,000 monitors took seconds to compare each name with all before it.
  const seen = new Set<string>();
  keys.forEach((key, at) => {
    if (seen.has(key)) problems.push({ path: `${pathOf(at)}.${field}`, message: `${message} ("${key}"): ${identify} identify them` });
    seen.add(key);
  });
}

/** zod's issues as problems at their places; a key the schema does not know is named as such. */
function issueProblems(base: PropertyKey[], issues: readonly z.core.$ZodIssue[], what: string): Problem[] {
  return issues.flatMap((i) =>
    i.code === 'unrecognized_keys'
      ? i.keys.map((key) => ({ path: pathText([...base, ...i.path, key]), message: `is not a field of ${i.path.length === 0 ? what : 'this entry'}` }))
      : [{ path: pathText([...base, ...i.path]) || '(file)', message: i.message }],
  );
}

/**
 * A monitor of the file, checked twice: its shape and words here, then its values by the domain's
 * rules; every problem of both is reported once, at its place in the file.
 */
function desiredMonitor(raw: unknown, base: PropertyKey[], problems: Problem[]): DesiredMonitor[] {
  const type = z.object({ type: words(monitorTypeNames) }, { error: 'must be a monitor: name, type, target, frequency, …' }).safeParse(raw);
  if (!type.success) {
    problems.push(...issueProblems(base, type.error.issues, 'a monitor'));
    return [];
  }
  const shape = monitorSchemas()[type.data.type].safeParse(raw);
  const found = shape.success ? [] : issueProblems(base, shape.error.issues, `a ${type.data.type} monitor`);
  const { badges, ...fields } = (shape.success ? shape.data : raw) as FileMonitor;
  const { input, origin } = configInputOf(fields as FileMonitor);
  const config = configSchemas()[type.data.type].safeParse(input);
  if (!config.success) {
    const reported = new Set(found.map((p) => p.path));
    const values = config.error.issues.filter((i) => i.code !== 'unrecognized_keys').map((i) => ({ path: filePath(base, i.path, origin), message: i.message }));
    found.push(...values.filter((p) => !reported.has(p.path)));
  }
  problems.push(...found);
  if (found.length > 0 || !config.success) return [];
  return [
    {
      name: (shape.data as FileMonitor).name,
      type: type.data.type,
      path: pathText(base),
      config: config.data as MonitorConfig,
      ...(typeof badges === 'boolean' ? { badges } : {}),
    },
  ];
}

type FileWindow = z.output<typeof maintenanceWindow>;

/** A problem the domain's rules found (`invalid(field, rule)`), at its place in the file. */
function domainProblems(error: unknown): Problem[] {
  if (!(error instanceof AppError) || error.violations.length === 0) throw error;
  return error.violations.map((v) => ({ path: v.field, message: v.rule }));
}

/**
 * A maintenance window of the file: a one-off window needs `from` and `to`, `to` after `from`; a
 * repeating one leaves `to` out, and its rule is checked by the domain's own rules
 * (occurrences.ts), `timeZone` UTC unless given.
 */
function desiredWindow(w: FileWindow, base: PropertyKey[], problems: Problem[]): DesiredWindow[] {
  const at = (field: string) => pathText([...base, field]);
  const found: Problem[] = [];
  let repeat: RepeatRule | undefined;
  if (w.repeat === undefined) {
    if (w.from === undefined) found.push({ path: at('from'), message: 'is required: when the window starts, e.g. 2026-11-21T22:00:00Z (or give repeat)' });
    if (w.to === undefined) found.push({ path: at('to'), message: 'is required: when the window ends, after from (or give repeat)' });
    if (w.from !== undefined && w.to !== undefined && Date.parse(w.to) <= Date.parse(w.from))
      found.push({ path: at('to'), message: `must be after from (${w.from}), got ${w.to}` });
  } else {
    if (w.to !== undefined) found.push({ path: at('to'), message: 'must be left out for a repeating window: each occurrence lasts repeat.durationMinutes' });
    const raw = w.repeat;
    const withZone = raw !== null && typeof raw === 'object' && !Array.isArray(raw) && !('timeZone' in raw) ? { ...raw, timeZone: 'UTC' } : raw;
    const parsed = repeatInput(instant()).safeParse(withZone);
    if (!parsed.success) {
      found.push(...issueProblems([...base, 'repeat'], parsed.error.issues, 'a repeat rule'));
    } else {
      const rule = Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined)) as unknown as RepeatRule;
      try {
        checkRule(rule, at('repeat'));
        firstOccurrence(rule, w.from === undefined ? Date.now() : Date.parse(w.from), at('repeat'));
        repeat = rule;
      } catch (error) {
        found.push(...domainProblems(error));
      }
    }
  }
  problems.push(...found);
  if (found.length > 0) return [];
  return [
    {
      title: w.title,
      page: w.page,
      message: w.message ?? '',
      components: [...new Set(w.components ?? [])].sort(),
      ...(w.from === undefined ? {} : { from: w.from }),
      ...(w.to === undefined ? {} : { to: w.to }),
      ...(repeat ? { repeat } : {}),
      path: pathText(base),
    },
  ];
}

function desiredPage(p: FilePage, base: PropertyKey[]): DesiredPage {
  return {
    slug: p.slug,
    title: p.title,
    description: p.description ?? '',
    accentColor: p.accentColor?.toLowerCase() ?? null,
    websiteUrl: p.websiteUrl ?? null,
    customDomain: p.customDomain?.toLowerCase() ?? null,
    logo: p.logo ?? null,
    path: pathText(base),
    components: (p.components ?? []).map((c, at) => ({
      name: c.name,
      description: c.description ?? '',
      monitor: c.monitor ?? null,
      group: c.group ?? null,
      position: c.position ?? at,
      path: pathText([...base, 'components', at]),
    })),
  };
}

/**
 * A file of the given monitors and pages, as `statusdesk export` writes it: lists of plain values
 * and each assertion (each item of a list written as one) on one line (`regions: [iad, fra]`).
 */
export function renderFile(monitors: Record<string, unknown>[], pages: Record<string, unknown>[], maintenance: Record<string, unknown>[] = []): string {
  const document = new Document(escapeReferences({ version: FILE_VERSION, monitors, pages, ...(maintenance.length > 0 ? { maintenance } : {}) }));
  visit(document, {
    Seq(_, node) {
      if (node.items.every(isScalar)) node.flow = true;
    },
    Pair(_, pair) {
      if (isScalar(pair.key) && listWords().has(pair.key.value as string) && isSeq(pair.value))
        for (const item of pair.value.items) if (isMap(item)) item.flow = true;
    },
  });
  return document.toString({ lineWidth: 0, flowCollectionPadding: false });
}
