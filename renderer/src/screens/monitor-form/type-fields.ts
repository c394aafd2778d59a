import type { DescEnum } from '@bufbuild/protobuf';
import { MONITOR_TYPES } from '../../../../contract/monitor-types.ts';

// Each monitor type's own fields as the service declares them (contract/monitor-types.ts,
// generated from server/domain/monitors/types/): their words, limits and defaults, and how the
// form takes each one: a plain input drawn from its declaration (type-field.tsx), or an editor of
// its own. Plain TypeScript, tested in Node with the model.

/** The types the form creates and edits: those whose monitor.v1 message the model writes. */
export type MonitorType = 'tcp' | 'grpc' | 'http' | 'mcp';
export const FORM_TYPES = ['tcp', 'grpc', 'http', 'mcp'] as const satisfies readonly (MonitorType & keyof typeof MONITOR_TYPES)[];

/** One type's declaration: its title, summary, target and fields. */
export const typeOf = (type: MonitorType) => MONITOR_TYPES[type];

/** A field of a type as the contract declares it. */
export type TypeFieldSpec = (typeof MONITOR_TYPES)[MonitorType]['fields'][number];
type Spec<T extends MonitorType, N extends string> = Extract<(typeof MONITOR_TYPES)[T]['fields'][number], { name: N }>;

/** The words a choice field of a type takes, as the contract lists them (`verify`, `GET`). */
export type ChoiceOf<T extends MonitorType, N extends string> = Spec<T, N>['schema'] extends { enum: readonly (infer E)[] } ? E : never;

/** The declaration of `name`, a field of `type`. */
export function specOf<T extends MonitorType, N extends (typeof MONITOR_TYPES)[T]['fields'][number]['name']>(type: T, name: N): Spec<T, N> {
  const found = (MONITOR_TYPES[type].fields as readonly TypeFieldSpec[]).find((field) => field.name === name);
  if (!found) throw new Error(`${type} monitors have no field ${name}`);
  return found as Spec<T, N>;
}

/** The value the service gives a field left out. */
export const defaultOf = <T extends MonitorType, N extends (typeof MONITOR_TYPES)[T]['fields'][number]['name']>(type: T, name: N) =>
  (specOf(type, name).schema as { default: unknown }).default as Spec<T, N>['schema'] extends { default: infer D } ? D : never;

/** The schema of a field as the form reads it: JSON Schema, of which it knows these words. */
interface InputSchema {
  type?: string;
  enum?: readonly string[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  items?: InputSchema;
  properties?: Record<string, InputSchema>;
}

/** How a field is typed in. */
export type FieldInput =
  | { kind: 'text'; url: boolean; maxLength: number | undefined }
  | { kind: 'number'; integer: boolean; min: number | undefined; max: number | undefined }
  | { kind: 'choice'; choices: readonly string[] }
  | { kind: 'check' }
  /** An editor of its own: a `host:port` target, a map, a list, the request body. */
  | { kind: 'own' };

/** Fields whose schema is plain but whose editor is not: the request body's hint follows the method. */
const OWN_EDITORS: ReadonlySet<string> = new Set(['body']);

/** How an MCP monitor reaches its server, as the contract lists the words (`http`, `stdio`). */
export type McpTransport = ChoiceOf<'mcp', 'transport'>;

/**
 * The fields of an MCP monitor that only one transport uses: the form shows them for it alone,
 * and sends them for it alone (the service refuses one of them given for the other transport).
 */
export const MCP_TRANSPORT_FIELDS = {
  http: ['headers'],
  stdio: ['args', 'env', 'cwd', 'allowCommand'],
} as const satisfies Record<McpTransport, readonly (typeof MONITOR_TYPES)['mcp']['fields'][number]['name'][]>;

/** Whether the form shows `name`, a field of `type`, for an MCP monitor over `transport`. */
export function shownFor(type: MonitorType, name: string, transport: McpTransport): boolean {
  if (type !== 'mcp') return true;
  const owner = (Object.keys(MCP_TRANSPORT_FIELDS) as McpTransport[]).find((t) => (MCP_TRANSPORT_FIELDS[t] as readonly string[]).includes(name));
  return owner === undefined || owner === transport;
}

/** How the form takes `spec`, a field of `type`. */
export function inputOf(type: MonitorType, spec: TypeFieldSpec): FieldInput {
  const schema = spec.schema as InputSchema;
  const declared = typeOf(type);
  // A `host:port` target is two inputs (targetIsUrl false); a URL target is one.
  if (OWN_EDITORS.has(spec.name) || (spec.name === declared.target && !declared.targetIsUrl)) return { kind: 'own' };
  if (schema.enum) return { kind: 'choice', choices: schema.enum };
  switch (schema.type) {
    case 'string':
      return { kind: 'text', url: spec.name === declared.target, maxLength: schema.maxLength };
    case 'integer':
    case 'number':
      return { kind: 'number', integer: schema.type === 'integer', min: schema.minimum, max: schema.maximum };
    case 'boolean':
      return { kind: 'check' };
    default:
      return { kind: 'own' };
  }
}

/** The fields of `type` the form draws from their declaration alone, in the declaration's order. */
export const plainFieldsOf = (type: MonitorType): TypeFieldSpec[] =>
  (typeOf(type).fields as readonly TypeFieldSpec[]).filter((spec) => inputOf(type, spec).kind !== 'own');

/** The longest text a field takes, as declared. */
export const maxLengthOf = (spec: TypeFieldSpec): number | undefined => (spec.schema as InputSchema).maxLength;

/** The bounds of a list of texts (an MCP monitor's arguments): how many, and how long each. */
export function textListLimits(spec: TypeFieldSpec) {
  const schema = spec.schema as InputSchema;
  return { items: schema.maxItems, maxLength: schema.items?.maxLength };
}

/** The bounds of a list field of the HTTP type (its assertions): how many, and each item's part. */
export function listLimits(name: 'statusCodeAssertions' | 'headerAssertions' | 'bodyAssertions') {
  const schema = specOf('http', name).schema as InputSchema;
  const target = schema.items?.properties?.target ?? {};
  return { items: schema.maxItems, min: target.minimum, max: target.maximum, maxLength: target.maxLength };
}

/**
 * A word of the contract as its wire enum's value: the enum's prefix and the word in upper snake
 * case (`skip-verify` is `TLS_MODE_SKIP_VERIFY`), as the service's codec reads it.
 */
export function wireEnum<E extends number>(schema: DescEnum, word: string): E {
  const value = schema.values.find((v) => v.name === `${prefixOf(schema)}${word.toUpperCase().replace(/-/g, '_')}`);
  if (!value) throw new Error(`${schema.typeName} has no value for "${word}"`);
  return value.number as E;
}

/** The word of `words` a wire enum's value stands for; undefined for the unspecified value or one not among them. */
export function wordOf<W extends string>(schema: DescEnum, value: number, words: readonly W[]): W | undefined {
  const name = schema.values.find((v) => v.number === value)?.name;
  return words.find((word) => name === `${prefixOf(schema)}${word.toUpperCase().replace(/-/g, '_')}`);
}

const prefixOf = (schema: DescEnum) => schema.values.find((v) => v.number === 0)!.name.replace(/UNSPECIFIED$/, '');

/** A field's hint and placeholder, which not every declaration has. */
export const hintOf = (spec: TypeFieldSpec): string | undefined => ('hint' in spec ? spec.hint : undefined);
export const placeholderOf = (spec: TypeFieldSpec): string | undefined => ('placeholder' in spec ? spec.placeholder : undefined);
