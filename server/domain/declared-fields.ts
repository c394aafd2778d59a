import { z } from 'zod';

/**
 * How a field of a monitor type or a channel kind is declared, once: its zod schema (the rule),
 * and beside it what each surface needs that the rule does not say: the flag of the `statusdesk`
 * command, the words of the dashboard's form, and its row in the reference. The CLI's flags, the
 * `apply -f` file's shape, the form's hints (contract/) and the docs' tables are derived from these
 * declarations; test/registries.test.ts checks that every surface knows every entry.
 */

/**
 * How a flag's text becomes the field's value: as given (`text`), `true`/`false` (`boolean`), one
 * of the schema's values (`choice`), repeated `k=v` as a map (`pairs`), repeated values as a list
 * (`list`), a whole number (`int`), or a syntax of the field's own: `read` gets every value given
 * and calls `fail` with what is wrong.
 */
export type FlagReader =
  | 'text'
  | 'boolean'
  | 'choice'
  | 'pairs'
  | 'list'
  | 'int'
  /** A duration as people type it (`500ms`, `45s`, `15m`, `2h`, `1d`), as milliseconds. */
  | 'duration'
  | ((texts: string[], fail: (message: string) => never) => unknown);

const DURATION_UNITS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration as people type it (`500ms`, `1.5s`, `15m`, `2h`, `1d`) in milliseconds; undefined when it is not one. */
export function durationOf(text: string): number | undefined {
  const match = /^(\d{1,9}(?:\.\d{1,3})?)(ms|s|m|h|d)$/.exec(text.trim());
  return match ? Math.round(Number(match[1]) * DURATION_UNITS[match[2] as keyof typeof DURATION_UNITS]) : undefined;
}

export interface FieldFlag {
  /** Without the dashes: `tls` is `--tls`. */
  name: string;
  /** The name of its value in help (`URL`, `k=v`); a choice without one lists the schema's values. */
  valueName?: string;
  /** One line of help. */
  description: string;
  read: FlagReader;
  /** A choice given in any case and sent upper-case (`--method get`). */
  upperCase?: true;
}

/** What the dashboard's form says of a field; its limits and default come from the schema. */
export interface FieldWords {
  label: string;
  hint?: string;
  /** An example value; for a map, one entry as `name: value`. */
  placeholder?: string;
  /**
   * How the form takes a text where its schema does not say it: hidden as it is typed (`secret`),
   * or as an address (`url`). Lists, maps, numbers and choices follow from the schema.
   */
  input?: 'secret' | 'url';
}

export interface DeclaredField<S extends z.ZodType = z.ZodType> {
  schema: S;
  /** Absent where the field's flag is not its own: a monitor's target is `--target` for every type. */
  flag?: FieldFlag;
  ui: FieldWords;
  /**
   * The field's row in the reference: its rules in Markdown, and its default when the schema's
   * own (`empty`, `none`, the value) would not say it well.
   */
  docs: { rules: string; default?: string };
}

export type DeclaredFields = Record<string, DeclaredField>;

/** The schemas of declared fields, as the shape of a zod object. */
export type ShapeOf<F extends DeclaredFields> = { [K in keyof F]: F[K]['schema'] };

export function shapeOf<F extends DeclaredFields>(fields: F): ShapeOf<F> {
  return Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, field.schema])) as ShapeOf<F>;
}

/** Whether a flag's value may be given more than once. */
export const isRepeatable = (read: FlagReader) => read === 'pairs' || read === 'list' || typeof read === 'function';

/** The values of a choice: the options of the enum under any default, optional or nullable. */
export function choicesOf(schema: z.ZodType): readonly string[] {
  const inner = innermost(schema);
  return inner instanceof z.ZodEnum ? (inner.options as string[]) : [];
}

/**
 * What a value is, for a message about a value of the wrong kind (`a service name`): the
 * schema's description (zod's `.describe`) on it or under its defaults.
 */
export function whatOf(schema: z.ZodType): string | undefined {
  for (let current: z.ZodType | undefined = schema; current; current = wrapped(current)) if (current.description) return current.description;
  return undefined;
}

const wrapped = (schema: z.ZodType): z.ZodType | undefined =>
  schema instanceof z.ZodDefault || schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodPrefault
    ? (schema.unwrap() as z.ZodType)
    : undefined;

/** The schema under its defaults, optionals and nullables. */
export function innermost(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let inner = wrapped(current); inner; inner = wrapped(current)) current = inner;
  return current;
}

/** The value the schema gives a field left out; undefined when it gives none. */
export function defaultOf(schema: z.ZodType): unknown {
  const parsed = schema.safeParse(undefined);
  return parsed.success ? parsed.data : undefined;
}

/** Whether a field must be given: its schema refuses it left out. */
export const isRequired = (schema: z.ZodType) => !schema.safeParse(undefined).success;

/** The default column of a reference table: the declared one, else the schema's in words. */
export function defaultText(field: DeclaredField): string {
  if (field.docs.default !== undefined) return field.docs.default;
  const value = defaultOf(field.schema);
  if (value === undefined || value === null) return isRequired(field.schema) ? '' : 'none';
  if (value === '') return 'empty';
  if (typeof value === 'object' && Object.keys(value).length === 0) return 'none';
  return String(value);
}

/**
 * A field as the dashboard's form is told of it, without any server code: its words, its flag,
 * and the JSON Schema of its input (type, values, limits, default), so that no limit is written
 * again by hand in the UI.
 */
export function fieldHints(name: string, field: { schema: z.ZodType; ui: FieldWords }, extra: Record<string, unknown> = {}) {
  const { $schema: _, ...schema } = z.toJSONSchema(field.schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { name, ...field.ui, required: isRequired(field.schema), ...extra, schema };
}
