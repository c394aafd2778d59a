import type { DescEnum } from '@bufbuild/protobuf';
import { MONITOR_TYPES } from '../../../../contract/monitor-types.ts';
import { type DeclaredFieldHints, type InputKind, inputOf, limitsOf } from '../../declared-input.ts';

// Each monitor type's own fields as the service declares them (contract/monitor-types.ts,
// generated from server/domain/monitors/types/), and what the monitor form does with them beyond
// how a declared field is typed in (declared-input.ts): which ones have an editor of their own,
// which an MCP monitor shows for its transport, and the words of the wire's enums. Plain
// TypeScript, tested in Node with the model.

/** The types the form creates and edits: those whose monitor.v1 message the model writes. */
export type MonitorType = 'tcp' | 'grpc' | 'http' | 'mcp' | 'certificate' | 'websocket' | 'dns' | 'ping' | 'heartbeat';
export const FORM_TYPES = ['tcp', 'grpc', 'http', 'mcp', 'certificate', 'websocket', 'dns', 'ping', 'heartbeat'] as const satisfies readonly (MonitorType &
  keyof typeof MONITOR_TYPES)[];

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

/**
 * Fields whose schema is plain but whose editor is not: the request body's hint follows the
 * method; a heartbeat's time zone goes with its cron expression, and its grace time is a count of a unit.
 */
const OWN_EDITORS: ReadonlySet<string> = new Set(['body', 'timezone', 'grace']);

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

/**
 * `spec`, a field of `type`, as the form types it in: a URL target is declared a URL input (the
 * contract says so of the type, not of the field).
 */
export function declaredOf(type: MonitorType, spec: TypeFieldSpec): DeclaredFieldHints {
  const declared = typeOf(type);
  return spec.name === declared.target && declared.targetIsUrl ? { ...spec, input: 'url' } : spec;
}

/**
 * How the form takes `spec`, a field of `type`: the plain input that types it in, or an editor of
 * its own (a `host:port` target, a map, a list, the request body).
 */
export function editorOf(type: MonitorType, spec: TypeFieldSpec): InputKind | 'own' {
  const declared = typeOf(type);
  // A `host:port` target is two inputs (targetIsUrl false); a URL target is one.
  if (OWN_EDITORS.has(spec.name) || (spec.name === declared.target && !declared.targetIsUrl)) return 'own';
  const input = inputOf(declaredOf(type, spec));
  return input === 'list' || input === 'map' ? 'own' : input;
}

/** The fields of `type` the form draws from their declaration alone, in the declaration's order. */
export const plainFieldsOf = (type: MonitorType): TypeFieldSpec[] =>
  (typeOf(type).fields as readonly TypeFieldSpec[]).filter((spec) => editorOf(type, spec) !== 'own');

/** The bounds of a list of texts (an MCP monitor's arguments): how many, and how long each. */
export function textListLimits(spec: DeclaredFieldHints) {
  const { schema } = spec;
  return { items: limitsOf(schema).maxItems, maxLength: schema.items ? limitsOf(schema.items).maxLength : undefined };
}

/** The bounds of a list field of the HTTP type (its assertions): how many, and each item's part. */
export function listLimits(name: 'statusCodeAssertions' | 'headerAssertions' | 'bodyAssertions') {
  const schema = (specOf('http', name) as DeclaredFieldHints).schema;
  const target = limitsOf(schema.items?.properties?.target ?? {});
  return { items: limitsOf(schema).maxItems, min: target.min, max: target.max, maxLength: target.maxLength };
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
