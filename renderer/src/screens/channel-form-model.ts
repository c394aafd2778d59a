import type { MessageInitShape } from '@bufbuild/protobuf';
import { CHANNEL_KINDS } from '../../../contract/channel-kinds.ts';
import type { CreateNotificationChannelRequestSchema, NotificationChannel } from '../../../proto/gen/notification/v1/notification_pb.js';
import { type DeclaredFieldHints, type FieldValue, emptyValueOf, formValueOf, inputOf, keptMapProblem, wireValueOf } from '../declared-fields.ts';
import type { FieldViolation } from '../../../contract/errors.ts';
import type { KeyValueRow } from '../key-value-rows.ts';

// The channel form's model: what it holds and the notification.v1 request it becomes, for every
// kind the service declares (contract/channel-kinds.ts, generated from server/delivery/channels/).
// A kind's message in the `config` oneof is named as the kind and has its declared fields under
// the same names (test/registries.test.ts checks), so no kind is named here.

/** A kind as the form offers it: its words and its fields. */
export interface ChannelKindHints {
  readonly kind: string;
  /** As a sentence writes it: `Slack`, `email`. */
  readonly title: string;
  readonly label: string;
  readonly hint?: string;
  readonly fields: readonly DeclaredFieldHints[];
}

/** Every kind, in the order the service lists them; typed here so a change of the contract's shape fails to compile. */
const KINDS: Readonly<Record<string, ChannelKindHints>> = CHANNEL_KINDS;
export const CHANNEL_KIND_LIST: readonly ChannelKindHints[] = Object.values(KINDS);

export const channelKindOf = (kind: string): ChannelKindHints | undefined => (Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined);

/** What the form holds, for every kind at once, so switching kinds keeps what was typed. */
export interface ChannelValues {
  name: string;
  kind: string;
  monitorIds: string[];
  /** Each kind's fields by name. */
  config: Record<string, Record<string, FieldValue>>;
}

/** The fields of a kind as the form starts them. */
const emptyConfig = (kind: ChannelKindHints) => Object.fromEntries(kind.fields.map((field) => [field.name, emptyValueOf(field)]));

/** The config the service shows of a channel: its kind's fields by name, credentials masked. */
const shownConfigOf = (channel: NotificationChannel | undefined) => (channel?.config.value ?? {}) as Record<string, unknown>;

export function channelValuesOf(channel: NotificationChannel | undefined): ChannelValues {
  const config = Object.fromEntries(CHANNEL_KIND_LIST.map((kind) => [kind.kind, emptyConfig(kind)]));
  const kind = channel ? channelKindOf(channel.kind) : undefined;
  if (kind) {
    const shown = shownConfigOf(channel);
    config[kind.kind] = Object.fromEntries(kind.fields.map((field) => [field.name, formValueOf(field, shown[field.name])]));
  }
  return { name: channel?.name ?? '', kind: channel?.kind ?? CHANNEL_KIND_LIST[0]!.kind, monitorIds: channel ? [...channel.monitorIds] : [], config };
}

/** The masked value the service shows for a stored credential (for the hint beside its empty input). */
export function maskedOf(channel: NotificationChannel | undefined, field: DeclaredFieldHints): string | undefined {
  const shown = shownConfigOf(channel)[field.name];
  return field.credential && typeof shown === 'string' && shown !== '' ? shown : undefined;
}

type ChannelConfig = MessageInitShape<typeof CreateNotificationChannelRequestSchema>['config'];

/** The request's `config`: the chosen kind's message, its fields as the form holds them. */
export function channelConfigOf(values: ChannelValues): ChannelConfig {
  const kind = channelKindOf(values.kind);
  const held = values.config[values.kind] ?? {};
  const value = Object.fromEntries((kind?.fields ?? []).map((field) => [field.name, wireValueOf(field, held[field.name] ?? emptyValueOf(field))]));
  // The oneof's case is the kind and its message has the declared fields: the generated union cannot be named by a string.
  return { case: values.kind, value } as ChannelConfig;
}

/** The form's fields in the service's names for their violations: `ntfy.topic`. */
export const violationFieldsOf = (kind: string) => [kind, ...(channelKindOf(kind)?.fields ?? []).map((field) => `${kind}.${field.name}`)];

/** Refused before sending: a changed credential map whose hidden values were not typed again. */
export function keptMapViolations(values: ChannelValues, channel: NotificationChannel | undefined): FieldViolation[] {
  const shown = channel?.kind === values.kind ? shownConfigOf(channel) : {};
  return (channelKindOf(values.kind)?.fields ?? []).flatMap((field) => {
    const stored = Object.keys((shown[field.name] ?? {}) as Record<string, string>);
    const rule = inputOf(field) === 'map' ? keptMapProblem(field, values.config[values.kind]?.[field.name] as KeyValueRow[], stored) : undefined;
    return rule ? [{ field: `${values.kind}.${field.name}`, rule }] : [];
  });
}

/**
 * Where a channel sends, in the list: its addresses and required settings as the service shows
 * them (credentials masked, never a secret), the first as it is and the rest after their label;
 * a kind without such fields is said by its hint.
 */
export function channelTargetOf(channel: NotificationChannel): string {
  const kind = channelKindOf(channel.kind);
  if (!kind) return '';
  const shown = shownConfigOf(channel);
  const parts = kind.fields
    .filter((field) => inputOf(field) !== 'secret' && (field.required || inputOf(field) === 'url'))
    .map((field) => {
      const value = shown[field.name];
      const text = Array.isArray(value) ? value.join(', ') : typeof value === 'string' && value !== '' ? value : field.schema.default;
      return { field, text: typeof text === 'string' ? text : '' };
    })
    .filter((part) => part.text !== '');
  if (parts.length === 0) return kind.hint ?? '';
  return parts.map((part, i) => (i === 0 ? part.text : `${part.field.label.toLowerCase()} ${part.text}`)).join(', ');
}
