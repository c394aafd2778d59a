import { entriesOf, type KeyValueRow, rowsOf } from './key-value-rows.ts';

// A field the service declares once (its words, and the JSON Schema of its input, in contract/)
// as a form takes it: which input draws it, the value the form holds, and the value the wire
// carries. Plain TypeScript, so forms' models use it and it is tested in Node; the input itself is
// declared-field.tsx. Nothing here names a channel kind or a monitor type: a new one whose fields
// are text, secrets, addresses, numbers, choices, lists or maps needs no change here.

/** The JSON Schema of a field's input, as far as a form reads it. */
export interface FieldSchema {
  readonly type?: string;
  readonly enum?: readonly (string | number)[];
  readonly default?: unknown;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly format?: string;
  readonly pattern?: string;
  readonly items?: FieldSchema;
}

/** A field as contract/ tells the forms of it (a channel kind's, a monitor type's). */
export interface DeclaredFieldHints {
  readonly name: string;
  readonly label: string;
  readonly hint?: string;
  /** An example value; for a map, one entry as `name: value`. */
  readonly placeholder?: string;
  /** Declared where the schema does not say it. */
  readonly input?: 'secret' | 'url';
  readonly required: boolean;
  /** Only ever shown masked: the form starts it empty, and empty keeps the stored value. */
  readonly credential?: boolean;
  readonly schema: FieldSchema;
}

export type InputKind = 'text' | 'secret' | 'url' | 'email' | 'number' | 'choice' | 'list' | 'map';

/** What the form holds for a field: text (numbers and choices too), a list, or a map's rows. */
export type FieldValue = string | string[] | KeyValueRow[];

/** The input that draws a field, from its schema, else its declared input, else text. */
export function inputOf(field: DeclaredFieldHints): InputKind {
  const { schema } = field;
  if (schema.enum) return 'choice';
  if (schema.type === 'integer' || schema.type === 'number') return 'number';
  if (schema.type === 'array') return 'list';
  if (schema.type === 'object') return 'map';
  if (field.input) return field.input;
  return schema.format === 'email' ? 'email' : 'text';
}

/** The field's label, saying when it may be left empty (a field with a default of its own says it in its hint). */
export function labelOf(field: DeclaredFieldHints): string {
  return field.required || hasDefault(field) ? field.label : `${field.label} (optional)`;
}

/** A default people can read: a text or a number, not an empty map or list. */
const hasDefault = (field: DeclaredFieldHints) => typeof field.schema.default === 'string' || typeof field.schema.default === 'number';

/** The field's hint as the service words it, and what leaving it empty gives when the schema has a default. */
export function hintOf(field: DeclaredFieldHints): string | undefined {
  const empty = hasDefault(field) && inputOf(field) !== 'choice' ? `Empty: ${String(field.schema.default)}.` : undefined;
  return [field.hint, empty].filter(Boolean).join(' ') || undefined;
}

/** A whole number between bounds close enough to list them all, e.g. a priority 1 to 5. */
export function choicesOfRange(field: DeclaredFieldHints): number[] | undefined {
  const { type, minimum, maximum } = field.schema;
  if (type !== 'integer' || minimum === undefined || maximum === undefined || maximum - minimum > 9) return undefined;
  return Array.from({ length: maximum - minimum + 1 }, (_, i) => minimum + i);
}

/** What one entry of a map is called, from its label: `Headers` → `Header`. */
export const itemOf = (field: DeclaredFieldHints) => (/[^s]s$/.test(field.label) ? field.label.slice(0, -1) : `${field.label} entry`);

/** A map's placeholder `name: value` as the placeholders of a row's two inputs. */
export function rowPlaceholdersOf(field: DeclaredFieldHints): { name?: string; value?: string } {
  const [name, ...value] = field.placeholder?.split(': ') ?? [];
  return { name, value: value.length > 0 ? value.join(': ') : undefined };
}

/** The form's value before anything is typed: empty, or a choice's default. */
export function emptyValueOf(field: DeclaredFieldHints): FieldValue {
  const input = inputOf(field);
  if (input === 'list' || input === 'map') return [];
  return input === 'choice' && field.schema.default !== undefined ? String(field.schema.default) : '';
}

/**
 * The form's value from what the service shows. A credential starts empty (shown masked, and
 * empty keeps it); a credential map keeps its names, its values hidden.
 */
export function formValueOf(field: DeclaredFieldHints, shown: unknown): FieldValue {
  const input = inputOf(field);
  if (input === 'map') return rowsOf((shown ?? {}) as Record<string, string>, () => field.credential === true);
  if (input === 'list') return Array.isArray(shown) ? shown.map(String) : [];
  if (field.credential || shown === undefined || shown === null) return emptyValueOf(field);
  return String(shown);
}

/** What the service shows of a map value it keeps hidden; sent back as shown, the stored value is kept. */
export const KEPT_MAP_VALUE = '••••••••';

/**
 * The value the wire carries: a number as a number, a list as is, a map from its rows, a secret
 * as typed and other text trimmed. Empty is left out, so on a create the service fills its
 * default or names the missing field, and on an edit a credential left empty is kept.
 */
export function wireValueOf(field: DeclaredFieldHints, value: FieldValue): unknown {
  const input = inputOf(field);
  if (input === 'list') return value as string[];
  if (input === 'map') return entriesOf(value as KeyValueRow[], KEPT_MAP_VALUE);
  const text = input === 'secret' ? (value as string) : (value as string).trim();
  if (text === '') return undefined;
  return input === 'number' || (input === 'choice' && typeof field.schema.enum?.[0] === 'number') ? Number(text) : text;
}

/**
 * A credential map whose values came back hidden is replaced whole: when it changed, each hidden
 * value is needed again. The rule for the field when one is missing, undefined otherwise.
 */
export function keptMapProblem(field: DeclaredFieldHints, rows: readonly KeyValueRow[], storedNames: readonly string[]): string | undefined {
  if (!field.credential || inputOf(field) !== 'map') return undefined;
  const changed = rows.some((r) => !r.kept || r.value !== '') || rows.length !== storedNames.length;
  const missing = rows.filter((r) => r.kept && r.value === '' && r.name.trim());
  if (!changed || missing.length === 0) return undefined;
  return `the ${field.label.toLowerCase()} are replaced together: type the value of ${missing.map((r) => r.name).join(', ')} again, or remove it`;
}
