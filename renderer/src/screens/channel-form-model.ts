import type { MessageInitShape } from '@bufbuild/protobuf';
import { CHANNEL_KINDS } from '../../../contract/channel-kinds.ts';
import type { CreateNotificationChannelRequestSchema, NotificationChannel } from '../../../proto/gen/notification/v1/notification_pb.js';
import type { FieldViolation } from '../../../contract/errors.ts';
import { type DeclaredFieldHints, inputOf, readableDefaultOf } from '../declared-input.ts';
import { entriesOf, type KeyValueRow, rowsOf } from '../key-value-rows.ts';

// The channel form's model: what it holds and the notification.v1 request it becomes, for every
// kind the service declares (contract/channel-kinds.ts, generated from server/delivery/channels/).
// A kind's message in the `config` oneof is named as the kind and has its declared fields under
// the same names (test/registries.test.ts checks), so no kind is named here. Which input takes a
// field is declared-input.ts; what is the channel form's own is here: the words it shows (a field
// that may be left empty says so), the value it holds for each field, and credentials kept on an
// edit when left empty.

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

/** What the form holds for a field: text (numbers and choices too), a switch, a list, or a map's rows. */
export type FieldValue = string | boolean | string[] | KeyValueRow[];

/** The field's label, saying when it may be left empty (a field with a default of its own says it in its hint). */
export function labelOf(field: DeclaredFieldHints): string {
  return field.required || readableDefaultOf(field) !== undefined ? field.label : `${field.label} (optional)`;
}

/** The field's hint as the service words it, and what leaving it empty gives when the schema has a default. */
export function hintOf(field: DeclaredFieldHints): string | undefined {
  const fallback = readableDefaultOf(field);
  const empty = fallback !== undefined && inputOf(field) !== 'choice' ? `Empty: ${fallback}.` : undefined;
  return [field.hint, empty].filter(Boolean).join(' ') || undefined;
}

/** What one entry of a map is called, from its label: `Headers` → `Header`. */
export const itemOf = (field: DeclaredFieldHints) => (/[^s]s$/.test(field.label) ? field.label.slice(0, -1) : `${field.label} entry`);

/** A map's placeholder `name: value` as the placeholders of a row's two inputs. */
export function rowPlaceholdersOf(field: DeclaredFieldHints): { name?: string; value?: string } {
  const [name, ...value] = field.placeholder?.split(': ') ?? [];
  return { name, value: value.length > 0 ? value.join(': ') : undefined };
}

/** The form's value before anything is typed: empty, or the default of a choice or a switch. */
export function emptyValueOf(field: DeclaredFieldHints): FieldValue {
  const input = inputOf(field);
  if (input === 'list' || input === 'map') return [];
  if (input === 'check') return field.schema.default === true;
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
  return input === 'check' ? shown === true : String(shown);
}

/** What the service shows of a map value it keeps hidden; sent back as shown, the stored value is kept. */
export const KEPT_MAP_VALUE = '••••••••';

/**
 * The value the wire carries: a number as a number, a switch, a list as is, a map from its rows,
 * a secret as typed and other text trimmed. Empty is left out, so on a create the service fills
 * its default or names the missing field, and on an edit a credential left empty is kept.
 */
export function wireValueOf(field: DeclaredFieldHints, value: FieldValue): unknown {
  const input = inputOf(field);
  if (input === 'check') return value === true;
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
function keptMapProblem(field: DeclaredFieldHints, rows: readonly KeyValueRow[], storedNames: readonly string[]): string | undefined {
  if (!field.credential || inputOf(field) !== 'map') return undefined;
  const changed = rows.some((r) => !r.kept || r.value !== '') || rows.length !== storedNames.length;
  const missing = rows.filter((r) => r.kept && r.value === '' && r.name.trim());
  if (!changed || missing.length === 0) return undefined;
  return `the ${field.label.toLowerCase()} are replaced together: type the value of ${missing.map((r) => r.name).join(', ')} again, or remove it`;
}

/** What the form holds, for every kind at once, so switching kinds keeps what was typed. */
export interface ChannelValues {
  name: string;
  kind: string;
  monitorIds: string[];
  /** The events it receives (contract/alert-topics.ts); none: every event. */
  events: string[];
  /** It receives the alerts of every monitor, those added later too. */
  allMonitors: boolean;
  /** Monitors created from now on are wired to it. */
  defaultForNew: boolean;
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
  return {
    name: channel?.name ?? '',
    kind: channel?.kind ?? CHANNEL_KIND_LIST[0]!.kind,
    monitorIds: channel ? [...channel.monitorIds] : [],
    events: channel ? [...channel.events] : [],
    allMonitors: channel?.allMonitors ?? false,
    defaultForNew: channel?.defaultForNew ?? false,
    config,
  };
}

/** The masked value the service shows for a stored credential (for the hint beside its empty input). */
export function maskedOf(channel: NotificationChannel | undefined, field: DeclaredFieldHints): string | undefined {
  const shown = shownConfigOf(channel)[field.name];
  return field.credential && typeof shown === 'string' && shown !== '' ? shown : undefined;
}

type ChannelConfig = MessageInitShape<typeof CreateNotificationChannelRequestSchema>['config'];

/** The oneof's case of a kind: its field's name camelCased, as protobuf-es names it (`google_chat` is `googleChat`). */
export const configCaseOf = (kind: string) => kind.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/** The request's `config`: the chosen kind's message, its fields as the form holds them. */
export function channelConfigOf(values: ChannelValues): ChannelConfig {
  const kind = channelKindOf(values.kind);
  const held = values.config[values.kind] ?? {};
  const value = Object.fromEntries((kind?.fields ?? []).map((field) => [field.name, wireValueOf(field, held[field.name] ?? emptyValueOf(field))]));
  // The oneof's case is the kind's and its message has the declared fields: the generated union cannot be named by a string.
  return { case: configCaseOf(values.kind), value } as ChannelConfig;
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

/** How a channel's deliveries fare, in a few words, and the last error when it is failing. */
export function channelHealthOf(channel: NotificationChannel): { state: 'ok' | 'failing' | 'backed-off'; words: string; error?: string } {
  const health = channel.health;
  if (!health || health.failures === 0) return { state: 'ok', words: health?.lastSentAt ? 'Delivering' : 'Nothing sent yet' };
  const error = health.lastError || undefined;
  if (health.backoffUntil) return { state: 'backed-off', words: `Paused after ${health.failures} failures in a row`, error };
  return { state: 'failing', words: `Failing: ${health.failures} in a row`, error };
}

/** Bytes of a generated signing secret: 256 bits, written as 43 base64url characters. */
const GENERATED_SECRET_BYTES = 32;

/**
 * A signing secret made in the browser (crypto.getRandomValues): it is typed into the form as if
 * pasted, shown once beside its Copy button, and sent with the channel; the service stores it
 * sealed and never shows it again.
 */
export function generatedSecret(random: (bytes: Uint8Array<ArrayBuffer>) => void = (bytes) => crypto.getRandomValues(bytes)): string {
  const bytes = new Uint8Array(GENERATED_SECRET_BYTES);
  random(bytes);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
