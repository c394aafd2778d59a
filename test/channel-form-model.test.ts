// The channel form's model in Node, walked over every declared channel kind: what the form holds
// for a kind's example becomes, through the generated request schema and the service's own wire
// codec, exactly that example; an edit sends back no credential it did not see; a changed map of
// hidden values is refused before sending; and the screens that state the service's limits take
// them from contract/ rather than writing them by hand.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  CreateNotificationChannelRequestSchema,
  NotificationChannelSchema,
  UpdateNotificationChannelRequestSchema,
} from '../proto/gen/notification/v1/notification_pb.js';
import { inputOf } from '../renderer/src/declared-input.ts';
import { rowsOf } from '../renderer/src/key-value-rows.ts';
import {
  CHANNEL_KIND_LIST,
  channelConfigOf,
  channelTargetOf,
  channelValuesOf,
  type FieldValue,
  KEPT_MAP_VALUE,
  keptMapViolations,
  maskedOf,
} from '../renderer/src/screens/channel-form-model.ts';
import type { ChannelKind } from '../server/db/schema.ts';
import { channelKindNames, channelSpecOf } from '../server/delivery/channels/registry.ts';
import { maskCredential } from '../server/domain/notifications/channel-rules.ts';
import { domainConfig, wireConfig } from '../server/rpc/channel-config.ts';

/** What a person types for a value of the field: a map as rows, a number as its text. */
function typed(kind: ChannelKind, name: string, value: unknown): FieldValue {
  const field = CHANNEL_KIND_LIST.find((k) => k.kind === kind)!.fields.find((f) => f.name === name)!;
  if (inputOf(field) === 'map') return rowsOf(value as Record<string, string>);
  if (inputOf(field) === 'list') return value as string[];
  return String(value);
}

/** The config the service reads from a create request as the client sends it (encoded, then decoded). */
function receivedConfig(config: ReturnType<typeof channelConfigOf>) {
  const sent = create(CreateNotificationChannelRequestSchema, { name: 'x', config });
  const received = fromBinary(CreateNotificationChannelRequestSchema, toBinary(CreateNotificationChannelRequestSchema, sent));
  return domainConfig(received.config as { case: string; value: unknown });
}

/** A stored channel as the service shows it: credentials masked. */
function shownChannel(kind: ChannelKind, config: Record<string, unknown>) {
  const fields = channelSpecOf(kind).fields();
  const masked = Object.fromEntries(Object.entries(config).map(([name, value]) => [name, fields[name]?.credential ? maskCredential(value) : value]));
  return create(NotificationChannelSchema, { id: '7', name: 'Stored', kind, config: wireConfig(kind, masked) as never });
}

describe('the channel form model', () => {
  test('it knows every kind the service declares, in the same order', () => {
    assert.deepEqual(
      CHANNEL_KIND_LIST.map((k) => k.kind),
      channelKindNames,
    );
  });

  for (const kind of channelKindNames) {
    test(`${kind}: the declared example typed into the form reaches the service as that example`, () => {
      const example = channelSpecOf(kind).example as Record<string, unknown>;
      const values = channelValuesOf(undefined);
      values.kind = kind;
      for (const [name, value] of Object.entries(example)) values.config[kind]![name] = typed(kind, name, value);
      assert.deepEqual(receivedConfig(channelConfigOf(values)), { kind, config: example });
    });

    test(`${kind}: an edit starts credentials empty beside their mask, and leaves out what it did not see`, () => {
      const example = channelSpecOf(kind).example as Record<string, unknown>;
      const channel = shownChannel(kind, example);
      const values = channelValuesOf(channel);
      const fields = CHANNEL_KIND_LIST.find((k) => k.kind === kind)!.fields;
      const sent = receivedConfig(channelConfigOf(values))!.config;
      for (const field of fields) {
        const value = example[field.name];
        if (field.credential && inputOf(field) === 'map') {
          // Hidden values go back as the service showed them, which it reads as "keep".
          assert.deepEqual(sent[field.name], Object.fromEntries(Object.keys(value as object).map((name) => [name, KEPT_MAP_VALUE])), field.name);
        } else if (field.credential) {
          assert.equal(values.config[kind]![field.name], '', `${field.name} starts empty`);
          assert.equal(maskedOf(channel, field), maskCredential(value), `${field.name} is said masked`);
          assert.equal(sent[field.name], undefined, `${field.name} is left out, so it is kept`);
        } else {
          assert.deepEqual(sent[field.name], value, `${field.name} is sent as stored`);
        }
      }
      // An update carries the same config.
      create(UpdateNotificationChannelRequestSchema, { id: '7', config: channelConfigOf(values) });
    });
  }

  test('a changed map of hidden values is refused before sending, naming the field and the names to type again', () => {
    const channel = shownChannel('webhook', channelSpecOf('webhook').example as Record<string, unknown>);
    const values = channelValuesOf(channel);
    assert.deepEqual(keptMapViolations(values, channel), [], 'left as it is, the map is kept');
    const rows = values.config.webhook!.headers as ReturnType<typeof rowsOf>;
    values.config.webhook!.headers = [...rows, ...rowsOf({ 'x-team': 'ops' })];
    assert.deepEqual(keptMapViolations(values, channel), [
      { field: 'webhook.headers', rule: 'the headers are replaced together: type the value of authorization again, or remove it' },
    ]);
  });

  test('the list says where each kind sends, from its fields, never a secret', () => {
    const target = (kind: ChannelKind) => channelTargetOf(shownChannel(kind, channelSpecOf(kind).example as Record<string, unknown>));
    assert.equal(target('webhook'), 'https://…example.com/…');
    assert.equal(target('email'), 'ops@example.com');
    assert.equal(target('ntfy'), `https://ntfy.example.com, topic ${maskCredential('ops-alerts')}`);
    assert.equal(target('desktop'), channelSpecOf('desktop').ui.hint);
  });

  test("the channel, location and key forms write none of the service's limits by hand", () => {
    const files = [
      'screens/notifications.tsx',
      'screens/channel-form-model.ts',
      'declared-field.tsx',
      'declared-input.ts',
      'screens/locations.tsx',
      'screens/keys.tsx',
      'screens/connect-editor.tsx',
    ];
    const handWritten = /maxLength=\{\d|\bmax="\d|\b(?:at most|up to|default) \d|\d+ (?:characters|KiB|addresses|labels)|\b\d+ to \d+\b/gi;
    const code = (name: string) => readFileSync(new URL(`../renderer/src/${name}`, import.meta.url), 'utf8').replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
    const found = files.flatMap((name) => [...code(name).matchAll(handWritten)].map((match) => `${name}: ${match[0]}`));
    assert.deepEqual(found, []);
  });
});
