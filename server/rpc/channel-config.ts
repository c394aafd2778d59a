import { type DescField, type DescMessage, ScalarType } from '@bufbuild/protobuf';
import { NotificationChannelSchema } from '../../proto/gen/notification/v1/notification_pb.js';
import { channelSpecOf, isChannelKind, wordOf } from '../delivery/channels/registry.ts';

/**
 * A channel's `config` between the wire and the domain, for every kind alike: each kind's message
 * in notification.v1's `config` oneof is the field named as the kind, and has the fields the
 * kind declares (delivery/channels/), under the same names. The oneof's case is the field's
 * camelCased name (`google_chat` is the case `googleChat`). No rules here.
 */

/** A wire config: the `config` oneof of a request or a channel. */
type WireConfig = { case: string | undefined; value?: unknown };

const configOneof = () => NotificationChannelSchema.oneofs.find((oneof) => oneof.localName === 'config')!;

/** The oneof's field of a kind: the field named as the kind. */
const kindField = (kind: string): DescField | undefined => configOneof().fields.find((field) => field.name === kind);

/** The oneof's field of a case. */
const caseField = (oneofCase: string | undefined): DescField | undefined => configOneof().fields.find((field) => field.localName === oneofCase);

/** The message of a kind's config, or undefined when notification.v1 has none. */
export const configMessageOf = (kind: string): DescMessage | undefined => kindField(kind)?.message;

/** The oneof's case of a kind (`googleChat` for `google_chat`); the kind itself when notification.v1 has none. */
export const configCaseOf = (kind: string): string => kindField(kind)?.localName ?? kind;

/** A field with presence (`optional`): set, even to the empty string, or not. */
const hasPresence = (field: DescField) => field.proto.proto3Optional === true;

/** Not an empty string, list or map. */
const isGiven = (value: unknown) =>
  value !== undefined &&
  value !== '' &&
  (Array.isArray(value) ? value.length > 0 : typeof value !== 'object' || value === null || Object.keys(value).length > 0);

/** A copy of a map or a list, the value itself otherwise. */
const copied = (field: DescField, value: unknown) =>
  field.fieldKind === 'map' ? { ...(value as object) } : field.fieldKind === 'list' ? [...(value as unknown[])] : value;

/**
 * The kind and fields of a wire config, by the domain's names. Plain strings, lists and maps that
 * are empty are left out: on create the domain then fills its default or names the missing
 * field; on update a field left out keeps its stored value (credentials included, since clients
 * only ever see them masked). Optional fields pass on when present.
 */
export function domainConfig(wire: WireConfig): { kind: string; config: Record<string, unknown> } | undefined {
  const chosen = caseField(wire.case);
  const message = chosen?.message;
  if (!chosen || !message) return undefined;
  const value = wire.value as Record<string, unknown>;
  const config: Record<string, unknown> = {};
  for (const field of message.fields) {
    const given = copied(field, value[field.localName]);
    if (hasPresence(field) ? given !== undefined : isGiven(given)) config[field.localName] = given;
  }
  return { kind: chosen.name, config };
}

/** The wire config of a channel's kind and config (credentials already masked by the domain). */
export function wireConfig(kind: string, config: Record<string, unknown>): { case: string; value: Record<string, unknown> } {
  const value: Record<string, unknown> = {};
  for (const field of configMessageOf(kind)?.fields ?? []) {
    const given = config[field.localName];
    if (field.fieldKind === 'map') value[field.localName] = given ?? {};
    else if (field.fieldKind === 'list') value[field.localName] = Array.isArray(given) ? given.map(String) : [];
    else if (field.fieldKind === 'scalar' && field.scalar === ScalarType.STRING)
      value[field.localName] = typeof given === 'string' ? given : hasPresence(field) ? undefined : '';
    else value[field.localName] = typeof given === 'number' ? given : undefined;
  }
  return { case: configCaseOf(kind), value };
}

/**
 * A channel's config in the words of the flags and MCP (a webhook's `url` is `webhookUrl`):
 * credentials as the service masked them, an optional field not set `null`.
 */
export function configWords(wire: WireConfig): Record<string, unknown> {
  const kind = caseField(wire.case)?.name;
  const message = kind === undefined ? undefined : configMessageOf(kind);
  if (!message || !isChannelKind(kind)) return {};
  const fields = channelSpecOf(kind).fields();
  const value = wire.value as Record<string, unknown>;
  return Object.fromEntries(
    message.fields.map((field) => {
      const given = copied(field, value[field.localName]);
      const declared = fields[field.localName];
      return [declared ? wordOf(field.localName, declared) : field.localName, given === undefined && hasPresence(field) ? null : given];
    }),
  );
}
