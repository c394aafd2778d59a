// How a field the service declares (its words, and the JSON Schema of its input, in contract/:
// a monitor type's, a channel kind's) is typed in: which input takes it, its limits, its default
// and the words a choice offers. Plain TypeScript, so the forms' models use it and it is tested
// in Node; declared-field.tsx draws a plain one. Nothing here names a monitor type or a channel
// kind: a new one whose fields are text, secrets, addresses, numbers, choices, switches, lists or
// maps needs no change here.

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
  readonly properties?: Readonly<Record<string, FieldSchema>>;
}

/** A field as contract/ tells the forms of it (a monitor type's, a channel kind's). */
export interface DeclaredFieldHints {
  readonly name: string;
  readonly label: string;
  readonly hint?: string;
  /** An example value; for a map, one entry as `name: value`. */
  readonly placeholder?: string;
  /** Declared where the schema does not say it. */
  readonly input?: 'secret' | 'url';
  readonly required: boolean;
  /** Only ever shown masked: a form starts it empty, and empty keeps the stored value. */
  readonly credential?: boolean;
  readonly schema: FieldSchema;
}

export type InputKind = 'text' | 'secret' | 'url' | 'email' | 'number' | 'choice' | 'check' | 'list' | 'map';

/** The input that takes a field, from its schema, else its declared input, else text. */
export function inputOf(field: DeclaredFieldHints): InputKind {
  const { schema } = field;
  if (schema.enum) return 'choice';
  if (schema.type === 'integer' || schema.type === 'number') return 'number';
  if (schema.type === 'boolean') return 'check';
  if (schema.type === 'array') return 'list';
  if (schema.type === 'object') return 'map';
  if (field.input) return field.input;
  return schema.format === 'email' ? 'email' : 'text';
}

/** Whether one input of the declared-field component takes it (a list or a map has an editor of its form's). */
export const isPlain = (field: DeclaredFieldHints) => inputOf(field) !== 'list' && inputOf(field) !== 'map';

/** The limits of an input as its schema states them. */
export interface InputLimits {
  /** The longest text. */
  maxLength: number | undefined;
  min: number | undefined;
  max: number | undefined;
  /** How many items a list or map takes. */
  maxItems: number | undefined;
  /** A number with no fraction. */
  integer: boolean;
}

export function limitsOf(schema: FieldSchema): InputLimits {
  return { maxLength: schema.maxLength, min: schema.minimum, max: schema.maximum, maxItems: schema.maxItems, integer: schema.type === 'integer' };
}

/** The value the service gives the field when it is left out. */
const defaultOf = (field: DeclaredFieldHints): unknown => field.schema.default;

/** A default people can read: a text or a number, not an empty map or list. */
export function readableDefaultOf(field: DeclaredFieldHints): string | undefined {
  const value = defaultOf(field);
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/** A whole number between bounds close enough to list them all, e.g. a priority 1 to 5. */
export function choicesOfRange(field: DeclaredFieldHints): number[] | undefined {
  const { type, minimum, maximum } = field.schema;
  if (type !== 'integer' || minimum === undefined || maximum === undefined || maximum - minimum > 9) return undefined;
  return Array.from({ length: maximum - minimum + 1 }, (_, i) => minimum + i);
}

/** What a choice offers: the words it takes, or the whole numbers of a short range; undefined for a field typed freely. */
export function choicesOf(field: DeclaredFieldHints): readonly (string | number)[] | undefined {
  const input = inputOf(field);
  if (input === 'choice') return field.schema.enum;
  return input === 'number' ? choicesOfRange(field) : undefined;
}

/** Few enough words to show side by side as radios; more, or numbers, go in a list. */
const MOST_RADIOS = 4;
export const isRadioChoice = (field: DeclaredFieldHints) => inputOf(field) === 'choice' && (field.schema.enum?.length ?? 0) <= MOST_RADIOS;

/** Whether a list of choices offers "not set": a field that may be left out and has no default word of its own. */
export const offersNotSet = (field: DeclaredFieldHints) => !field.required && !(inputOf(field) === 'choice' && defaultOf(field) !== undefined);
