import type { Kysely } from 'kysely';
import { z } from 'zod';
import { CHANNEL_LIMITS } from '../../../contract/limits.ts';
import type { Database } from '../../db/schema.ts';
import { keptByTables } from '../../db/table-stamps.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { recordAudit, recordUpdate, updateTransaction } from '../audit/audit.ts';
import { createDestinationPolicy, type DestinationPolicy } from '../destinations.ts';
import { monitorIdsIn } from '../monitors/monitor-repository.ts';
import { KEY_FILE, type Sealer } from '../sealing.ts';
import { builtOnFirstUse, expected, invalid, oneLine, pageQuery, paginationOf, parseId, parseInput } from '../validation.ts';
import { findWorkspaceRow } from '../workspaces/workspace-repository.ts';
import {
  type ChannelRow,
  allMonitorChannelsOf,
  channelLinksOfMonitors,
  channelRowsOfMonitor,
  deleteChannel,
  findChannelRow,
  hasEmailChannels,
  insertChannel,
  listChannelRows,
  markChannelFailed,
  markChannelSent,
  monitorLinksOfChannels,
  replaceChannelLinks,
  channelRowsOfWorkspace,
  setChannelLink,
  touchChannel,
  updateChannel,
} from './channel-repository.ts';
import { type ChannelKind, type ChannelKindRules, type ChannelTarget, maskCredential } from './channel-rules.ts';
import { answerOf, type DeliveryOutcome, type ReceiverAnswer, listDeliveryEntries, writeDeliveryEntry } from './delivery-log.ts';
import { type AlertEvent, type AlertTopic, alertTopics } from './events.ts';

export interface Channel {
  id: string;
  name: string;
  kind: ChannelKind;
  monitorIds: string[];
  /** The kind's fields; credentials masked. */
  config: Record<string, unknown>;
  /** The events it receives; empty: every event. */
  events: AlertTopic[];
  /** Receives the alerts of every monitor of the workspace, those created later included (`monitorIds` aside). */
  allMonitors: boolean;
  /** Each monitor created from now on is wired to it; monitors that exist are left as they are. */
  defaultForNew: boolean;
  /** How its deliveries fare. */
  health: ChannelHealth;
  createdAt: string;
  updatedAt: string;
}

/** How a channel's deliveries fare: a channel that keeps failing is backed off, and says why. */
export interface ChannelHealth {
  /** Deliveries that failed in a row, since the last that went through. */
  failures: number;
  lastError: string | null;
  lastFailedAt: string | null;
  lastSentAt: string | null;
  /** Until when alerts are not tried on it (they are recorded as not sent); null: it is tried. */
  backoffUntil: string | null;
}

/** Failures in a row after which a channel is backed off: one minute, doubling with each further failure, at most an hour. */
export const BACKOFF_AFTER_FAILURES = 3;
const BACKOFF_FIRST_MS = 60_000;
const BACKOFF_MOST_MS = 3_600_000;

/** Until when a channel with `failures` failures in a row, the last at `at`, is backed off; null when it is not. */
export function backoffAfter(failures: number, at: number): string | null {
  if (failures < BACKOFF_AFTER_FAILURES) return null;
  return new Date(at + Math.min(BACKOFF_MOST_MS, BACKOFF_FIRST_MS * 2 ** (failures - BACKOFF_AFTER_FAILURES))).toISOString();
}

/** A channel wired to a monitor, as the alert path reads it. */
export interface ChannelOfMonitor {
  id: number;
  /** An error in place of a channel whose credentials cannot be read. */
  target: ChannelTarget | AppError;
  /** The events it receives; empty: every event. */
  events: AlertTopic[];
  failures: number;
  backoffUntil: string | null;
}

const eventsOf = (row: ChannelRow): AlertTopic[] => (row.events === null ? [] : (JSON.parse(row.events) as AlertTopic[]));

/** A channel as a monitor shows it. */
export type ChannelRef = Readonly<{ id: string; name: string; kind: ChannelKind }>;

const MAX_PER_PAGE = 200;
/** Channel links of lists of monitors kept between changes of the channel tables; beyond this they start over. */
const KNOWN_LINKS_LIMIT = 1_000;
const name = builtOnFirstUse(() =>
  oneLine(z.string(expected('a name')).trim().min(1, 'is required').max(CHANNEL_LIMITS.nameLength, `must be at most ${CHANNEL_LIMITS.nameLength} characters`)),
);
const monitorIds = builtOnFirstUse(() =>
  z
    .array(z.union([z.string(), z.number()]), expected('a list of monitor ids'))
    .max(CHANNEL_LIMITS.monitors, `must name at most ${CHANNEL_LIMITS.monitors} monitors`),
);
const config = builtOnFirstUse(() => z.record(z.string(), z.unknown(), expected('an object with the fields of the channel kind')));
const events = builtOnFirstUse(() =>
  z
    .array(z.enum(alertTopics, expected(`one of ${alertTopics.join(', ')}`)), expected(`a list of events: ${alertTopics.join(', ')}; empty for every event`))
    .refine((list) => new Set(list).size === list.length, 'must name each event once'),
);
/** The inputs of create and update, for these kinds. */
function channelInputs(kinds: readonly ChannelKind[]) {
  const kind = () => z.enum(kinds as [ChannelKind, ...ChannelKind[]], expected(`one of ${kinds.join(', ')}`));
  return {
    create: builtOnFirstUse(() =>
      z.strictObject({
        name: name(),
        kind: kind(),
        monitorIds: monitorIds().default([]),
        config: config().default({}),
        events: events().default([]),
        allMonitors: z.boolean(expected('true or false')).default(false),
        defaultForNew: z.boolean(expected('true or false')).default(false),
      }),
    ),
    patch: builtOnFirstUse(() =>
      z.strictObject({
        name: name().optional(),
        /** When given, must be the channel's own kind: a channel never changes kind. */
        kind: kind().optional(),
        monitorIds: monitorIds().optional(),
        config: config().optional(),
        events: events().optional(),
        allMonitors: z.boolean(expected('true or false')).optional(),
        defaultForNew: z.boolean(expected('true or false')).optional(),
      }),
    ),
  };
}
/** The channels of one monitor, as its own form sets them; a bound on the list, as on a channel's monitors. */
const MAX_CHANNELS_OF_MONITOR = 1000;
const channelIdsInput = builtOnFirstUse(() =>
  z
    .array(z.union([z.string(), z.number()]), expected('a list of notification channel ids'))
    .max(MAX_CHANNELS_OF_MONITOR, `must name at most ${MAX_CHANNELS_OF_MONITOR} channels`),
);
const listInput = builtOnFirstUse(() => z.strictObject(pageQuery(MAX_PER_PAGE)));
const deliveriesInput = builtOnFirstUse(() => z.strictObject(pageQuery(MAX_PER_PAGE)));

/** Shown for each credential of a channel whose credentials cannot be read. */
const UNREADABLE = '(unreadable: set again)';

/** A failure to deliver reads as a sentence whatever was thrown. */
export const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export interface ChannelServiceOptions {
  sealer: Sealer;
  /** Sends an alert to one channel; throws when it could not be delivered. Resolves with the receiver's HTTP answer, where it has one. */
  deliver(target: ChannelTarget, event: AlertEvent): Promise<ReceiverAnswer | undefined | void>;
  /** What addresses a channel may name (checked again when delivering); by default the policy without an allow-list. */
  destinations?: DestinationPolicy;
  /** The kinds and their fields (delivery/channels/registry.ts). */
  kinds: ChannelKindRules;
}

/**
 * Notification channels (SPEC 2.10): where monitor alerts go, and which monitors feed each.
 * Credentials are sealed before they are stored and leave only masked.
 */
export function createChannelService(db: Kysely<Database>, options: ChannelServiceOptions) {
  const { sealer, kinds } = options;
  const destinations = options.destinations ?? createDestinationPolicy();
  const inputs = channelInputs(kinds.kinds);
  /** Credential fields of a kind, for splitting a flat input and for masking. */
  const credentialFields = (kind: ChannelKind) => Object.keys(kinds.rulesOf(kind).credentials.shape);
  /**
   * The channels of each of a list of monitors, by workspace and the list, kept until a channel or
   * a link changes. The caller's access is checked before; the lists are frozen, as callers share them.
   */
  const linksOfMonitors = keptByTables<ReadonlyMap<string, readonly ChannelRef[]>>(db, ['notification_channels', 'channel_monitors'], KNOWN_LINKS_LIMIT);

  /** Validates a kind's whole configuration and splits it into settings and credentials. */
  function splitConfig(kind: ChannelKind, input: Record<string, unknown>, { settingsOnly = false } = {}) {
    const secretFields = new Set(credentialFields(kind));
    const settingsIn: Record<string, unknown> = {};
    const credentialsIn: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(input)) (secretFields.has(field) ? credentialsIn : settingsIn)[field] = value;
    const prefixed = (schema: z.ZodType, value: unknown): Record<string, unknown> => {
      const result = schema.safeParse(value);
      if (result.success) return result.data as Record<string, unknown>;
      const issue = result.error.issues[0]!;
      const field = ['config', ...issue.path.map(String)].join('.');
      throw invalid(
        issue.code === 'unrecognized_keys' ? `config.${issue.keys[0]}` : field,
        issue.code === 'unrecognized_keys' ? `is not a field of a ${kind} channel` : issue.message,
      );
    };
    const rules = kinds.rulesOf(kind);
    const parsed = { settings: prefixed(rules.settings, settingsIn), credentials: settingsOnly ? {} : prefixed(rules.credentials, credentialsIn) };
    // An address the destination policy refuses as written is refused now rather than at the first alert.
    for (const [field, value] of [...Object.entries(parsed.settings), ...Object.entries(parsed.credentials)]) {
      const refused = rules.addresses.has(field) && typeof value === 'string' ? destinations.refusalOfUrl(value) : undefined;
      if (refused) throw invalid(`config.${field}`, refused);
    }
    return parsed;
  }

  /**
   * The channel's credentials, or undefined when they cannot be opened (the data folder's key
   * file was lost or replaced): the channel can then still be listed, given new credentials or
   * deleted, and its alerts record the failure.
   */
  function credentialsOf(row: ChannelRow): Record<string, unknown> | undefined {
    try {
      return sealer.open<Record<string, unknown>>(row.credentials);
    } catch {
      return undefined;
    }
  }

  const unreadable = (row: ChannelRow) =>
    new AppError(
      'PRECONDITION_FAILED',
      `the credentials of channel ${row.id} cannot be read (the sealing key they were sealed with is gone: the data folder's ${KEY_FILE}, or the desktop app's copy in the system keychain, was lost or replaced); give the channel its credentials again`,
    );

  function targetOf(row: ChannelRow): ChannelTarget {
    const credentials = credentialsOf(row);
    if (!credentials) throw unreadable(row);
    return { kind: row.kind, settings: JSON.parse(row.settings), credentials } as ChannelTarget;
  }

  async function linkedMonitors(q: Kysely<Database>, channelIds: number[]): Promise<Map<number, string[]>> {
    const byChannel = new Map<number, string[]>();
    for (const link of await monitorLinksOfChannels(q, channelIds))
      byChannel.set(link.channel_id, [...(byChannel.get(link.channel_id) ?? []), String(link.monitor_id)]);
    return byChannel;
  }

  function toChannel(row: ChannelRow, monitors: string[]): Channel {
    const credentials = credentialsOf(row);
    const masked = credentials
      ? Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, maskCredential(v)]))
      : Object.fromEntries(credentialFields(row.kind).map((k) => [k, UNREADABLE]));
    return {
      id: String(row.id),
      name: row.name,
      kind: row.kind,
      monitorIds: monitors,
      config: { ...JSON.parse(row.settings), ...masked },
      events: eventsOf(row),
      allMonitors: row.all_monitors === 1,
      defaultForNew: row.default_for_new === 1,
      health: {
        failures: row.failures,
        lastError: row.last_error,
        lastFailedAt: row.last_failed_at,
        lastSentAt: row.last_sent_at,
        backoffUntil: row.backoff_until,
      },
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }

  /** What the audit log keeps: masked credentials, and a keyed fingerprint that changes when they do. */
  function snapshot(channel: Channel, row: ChannelRow): Record<string, unknown> {
    const { updatedAt: _u, health: _h, ...rest } = channel;
    const credentials = credentialsOf(row);
    return { ...rest, credentialsFingerprint: sealer.token(`credentials:${credentials ? JSON.stringify(credentials) : row.credentials}`).slice(0, 12) };
  }

  async function checkMonitors(q: Kysely<Database>, workspaceId: number, ids: (string | number)[]): Promise<number[]> {
    const parsed = [...new Set(ids.map((id, i) => parseId(`monitorIds.${i}`, 'monitor', id)))];
    if (parsed.length === 0) return [];
    const found = await monitorIdsIn(q, workspaceId, parsed);
    const missing = parsed.find((id) => !found.has(id));
    if (missing !== undefined) throw new AppError('NOT_FOUND', `monitorIds: monitor ${missing} does not exist in this workspace`);
    return parsed;
  }

  async function loadRow(q: Kysely<Database>, workspaceId: number, id: string): Promise<ChannelRow> {
    const row = await findChannelRow(q, workspaceId, parseId('id', 'notification channel', id));
    if (!row) throw notFound('notification channel', id);
    return row;
  }

  /**
   * Records how a delivery to a channel went (`error` null: it went through): its entry in the
   * channel's delivery log, when the outcome names its alert, and, once no attempt follows, the
   * failures in a row, the last error and success, and the backoff of a channel that keeps
   * failing. Returns the log entry's id, for a later attempt to update.
   */
  async function recordDelivery(channelId: number, outcome: DeliveryOutcome, at = Date.now()): Promise<number | undefined> {
    const when = new Date(at).toISOString();
    const entryId = outcome.event ? await writeDeliveryEntry(db, channelId, { ...outcome, event: outcome.event }, when) : undefined;
    if (outcome.retrying) return entryId;
    const { error } = outcome;
    if (error === null) await markChannelSent(db, channelId, when);
    else await markChannelFailed(db, channelId, { error, at: when, backoffOf: (failures) => backoffAfter(failures, at) });
    return entryId;
  }

  async function channelOf(q: Kysely<Database>, row: ChannelRow): Promise<Channel> {
    return toChannel(row, (await linkedMonitors(q, [row.id])).get(row.id) ?? []);
  }

  return {
    /** Channels newest first, each with the monitors wired to it. */
    async list(actor: Actor, workspaceId: number, query: unknown = {}) {
      await authorize(db, actor, workspaceId, 'read');
      const { page, perPage } = parseInput(listInput(), query);
      const { rows, total } = await listChannelRows(db, workspaceId, perPage, (page - 1) * perPage);
      const monitors = await linkedMonitors(
        db,
        rows.map((r) => r.id),
      );
      return { channels: rows.map((r) => toChannel(r, monitors.get(r.id) ?? [])), pagination: paginationOf(page, perPage, total) };
    },

    async get(actor: Actor, workspaceId: number, id: string): Promise<Channel> {
      await authorize(db, actor, workspaceId, 'read');
      return channelOf(db, await loadRow(db, workspaceId, id));
    },

    /** The channels wired to each of these monitors of the workspace: id, name and kind only. */
    async ofMonitors(actor: Actor, workspaceId: number, monitorIds: readonly string[]): Promise<ReadonlyMap<string, readonly ChannelRef[]>> {
      await authorize(db, actor, workspaceId, 'read');
      return linksOfMonitors(`${workspaceId}/${JSON.stringify(monitorIds)}`, async () => {
        const byMonitor = new Map<string, ChannelRef[]>(monitorIds.map((id) => [id, []]));
        if (monitorIds.length === 0) return byMonitor;
        for (const row of await channelLinksOfMonitors(db, workspaceId, monitorIds.map(Number))) {
          byMonitor.get(String(row.monitor_id))?.push(Object.freeze({ id: String(row.id), name: row.name, kind: row.kind as ChannelKind }));
        }
        // A channel of every monitor feeds each of them, wired or not.
        const everyMonitor = await allMonitorChannelsOf(db, workspaceId);
        for (const channels of byMonitor.values()) {
          for (const row of everyMonitor)
            if (!channels.some((c) => c.id === String(row.id))) channels.push(Object.freeze({ id: String(row.id), name: row.name, kind: row.kind }));
          channels.sort((a, b) => Number(a.id) - Number(b.id));
        }
        for (const channels of byMonitor.values()) Object.freeze(channels);
        return byMonitor;
      });
    },

    async create(actor: Actor, workspaceId: number, input: unknown): Promise<Channel> {
      // A channel is where alerts go, with its credentials: admins and owners manage them.
      await authorize(db, actor, workspaceId, 'admin');
      const values = parseInput(inputs.create(), input);
      await kinds.load?.(values.kind);
      const { settings, credentials } = splitConfig(values.kind, values.config);
      return writeTransaction(db, async (trx) => {
        const monitors = await checkMonitors(trx, workspaceId, values.monitorIds);
        const now = new Date().toISOString();
        const row = await insertChannel(trx, {
          workspace_id: workspaceId,
          name: values.name,
          kind: values.kind,
          settings: JSON.stringify(settings),
          credentials: sealer.seal(credentials),
          events: values.events.length > 0 ? JSON.stringify(values.events) : null,
          all_monitors: values.allMonitors ? 1 : 0,
          default_for_new: values.defaultForNew ? 1 : 0,
          created_at: now,
          updated_at: now,
        });
        await replaceChannelLinks(trx, row.id, monitors);
        const created = await channelOf(trx, row);
        await recordAudit(trx, {
          workspaceId,
          entityType: 'notification_channel',
          entityId: row.id,
          action: 'notification_channel.create',
          actor,
          before: null,
          after: snapshot(created, row),
        });
        return created;
      });
    },

    /**
     * Changes the fields given. `config` is merged into the stored one: a credential left out
     * keeps its stored value, so a client that only ever saw masked values can still edit.
     */
    async update(actor: Actor, workspaceId: number, id: string, patch: unknown): Promise<Channel> {
      // A channel is where alerts go, with its credentials: admins and owners manage them.
      await authorize(db, actor, workspaceId, 'admin');
      const values = parseInput(inputs.patch(), patch);
      if (Object.values(values).every((v) => v === undefined))
        throw invalid('channel', 'names no field to change: set name, monitorIds, config, events, allMonitors or defaultForNew');
      return updateTransaction(db, async (trx) => {
        const row = await loadRow(trx, workspaceId, id);
        if (values.kind !== undefined && values.kind !== row.kind) {
          throw invalid('kind', `channel ${row.id} is a ${row.kind} channel and cannot become a ${values.kind} channel; create a new channel instead`);
        }
        const before = await channelOf(trx, row);
        const stored = credentialsOf(row);
        const secretFields = new Set(credentialFields(row.kind));
        // A credential sent back as it was shown (masked) is kept, not replaced by the mask.
        const given = Object.fromEntries(
          Object.entries(values.config ?? {}).filter(([k, v]) => !(stored && k in stored && JSON.stringify(v) === JSON.stringify(maskCredential(stored[k])))),
        );
        const givesCredentials = Object.keys(given).some((k) => secretFields.has(k));
        // Unreadable credentials are kept sealed as they are unless the update gives new ones, in
        // which case it must give them all: nothing is merged into what cannot be read.
        const keepSealed = !stored && !givesCredentials;
        await kinds.load?.(row.kind);
        const { settings, credentials } = splitConfig(row.kind, { ...JSON.parse(row.settings), ...(stored ?? {}), ...given }, { settingsOnly: keepSealed });
        const sealed = keepSealed ? row.credentials : JSON.stringify(credentials) === JSON.stringify(stored) ? row.credentials : sealer.seal(credentials);
        if (values.monitorIds !== undefined) await replaceChannelLinks(trx, row.id, await checkMonitors(trx, workspaceId, values.monitorIds));
        const next = await updateChannel(trx, row.id, {
          name: values.name ?? row.name,
          settings: JSON.stringify(settings),
          credentials: sealed,
          events: values.events === undefined ? row.events : values.events.length > 0 ? JSON.stringify(values.events) : null,
          all_monitors: values.allMonitors === undefined ? row.all_monitors : values.allMonitors ? 1 : 0,
          default_for_new: values.defaultForNew === undefined ? row.default_for_new : values.defaultForNew ? 1 : 0,
          updated_at: new Date().toISOString(),
        });
        const after = await channelOf(trx, next);
        await recordUpdate(
          trx,
          {
            workspaceId,
            entityType: 'notification_channel',
            entityId: row.id,
            action: 'notification_channel.update',
            actor,
            before: snapshot(before, row),
            after: snapshot(after, next),
          },
          before,
        );
        return after;
      });
    },

    /**
     * Sets which channels alert one monitor, from the monitor's side: the monitor is added to the
     * links of each channel named and removed from those of every other channel of the workspace,
     * in one transaction. Each channel that changes gets its update audit entry, as when its own
     * monitor list is edited; a set equal to the stored one changes and records nothing.
     * Answers the channels that changed, as they now are.
     */
    async setMonitorChannels(actor: Actor, workspaceId: number, monitorId: string, channelIds: unknown): Promise<Channel[]> {
      await authorize(db, actor, workspaceId, 'write');
      const ids = parseInput(channelIdsInput(), channelIds);
      return writeTransaction(db, async (trx) => {
        const monitor = parseId('monitorId', 'monitor', monitorId);
        if (!(await monitorIdsIn(trx, workspaceId, [monitor])).has(monitor)) throw notFound('monitor', monitorId);
        const wanted = new Set(ids.map((id, i) => parseId(`channelIds.${i}`, 'notification channel', id)));
        const rows = await channelRowsOfWorkspace(trx, workspaceId);
        const known = new Set(rows.map((row) => row.id));
        const missing = [...wanted].find((id) => !known.has(id));
        // Another workspace's channel reads as one that does not exist, as everywhere else.
        if (missing !== undefined) throw new AppError('NOT_FOUND', `channelIds: notification channel ${missing} does not exist in this workspace`);
        const linked = await linkedMonitors(
          trx,
          rows.map((row) => row.id),
        );
        const changed: Channel[] = [];
        for (const row of rows) {
          const monitors = linked.get(row.id) ?? [];
          const has = monitors.includes(String(monitor));
          if (has === wanted.has(row.id)) continue;
          // A channel holds at most so many monitors, whichever side wires them.
          if (!has && monitors.length >= CHANNEL_LIMITS.monitors)
            throw invalid('channelIds', `channel ${row.id} already alerts ${CHANNEL_LIMITS.monitors} monitors, the most one channel can`);
          const before = toChannel(row, monitors);
          await setChannelLink(trx, row.id, monitor, !has);
          const next = await touchChannel(trx, row.id, new Date().toISOString());
          const after = await channelOf(trx, next);
          await recordAudit(trx, {
            workspaceId,
            entityType: 'notification_channel',
            entityId: row.id,
            action: 'notification_channel.update',
            actor,
            before: snapshot(before, row),
            after: snapshot(after, next),
          });
          changed.push(after);
        }
        return changed;
      });
    },

    async delete(actor: Actor, workspaceId: number, id: string): Promise<void> {
      // A channel is where alerts go, with its credentials: admins and owners manage them.
      await authorize(db, actor, workspaceId, 'admin');
      await writeTransaction(db, async (trx) => {
        const row = await loadRow(trx, workspaceId, id);
        const before = await channelOf(trx, row);
        await deleteChannel(trx, row.id);
        await recordAudit(trx, {
          workspaceId,
          entityType: 'notification_channel',
          entityId: row.id,
          action: 'notification_channel.delete',
          actor,
          before: snapshot(before, row),
          after: null,
        });
      });
    },

    /** Sends a test alert through the channel now. Needs write: it reaches out to the channel's target. */
    async test(actor: Actor, workspaceId: number, id: string): Promise<{ delivered: boolean; error: string | null }> {
      await authorize(db, actor, workspaceId, 'write');
      const row = await loadRow(db, workspaceId, id);
      const { slug, name } = await findWorkspaceRow(db, workspaceId);
      // A made-up `down` alert, marked as a test: every kind shows it as one, and its event is `test` (events.ts: eventNameOf).
      const event: AlertEvent = {
        kind: 'down',
        monitor: { id: '0', name: 'Test monitor', type: 'tcp', target: 'example.test:443' },
        from: 'up',
        to: 'down',
        message: `This is a test alert for the channel "${row.name}". No monitor changed state.`,
        at: new Date().toISOString(),
        workspace: { slug, name },
        test: true,
      };
      // A test tells how the channel fares like any alert: one that works again is no longer backed off.
      let target: ChannelTarget | undefined;
      try {
        target = targetOf(row);
        const answer = (await options.deliver(target, event)) ?? undefined;
        await recordDelivery(row.id, { error: null, event, target, answer });
        return { delivered: true, error: null };
      } catch (error) {
        await recordDelivery(row.id, { error: reasonOf(error), event, target, answer: answerOf(error) });
        return { delivered: false, error: reasonOf(error) };
      }
    },

    /** The channel's delivery log, newest first: the latest deliveries of alerts and tests, and what the receiver answered. */
    async deliveries(actor: Actor, workspaceId: number, id: string, query: unknown = {}) {
      await authorize(db, actor, workspaceId, 'read');
      const { page, perPage } = parseInput(deliveriesInput(), query);
      const row = await loadRow(db, workspaceId, id);
      const { deliveries, total } = await listDeliveryEntries(db, row.id, perPage, (page - 1) * perPage);
      return { deliveries, pagination: paginationOf(page, perPage, total) };
    },

    recordDelivery,

    /** Whether any channel mails its alerts. Not a call of any surface: the service asks at start. */
    mailsAlerts: () => hasEmailChannels(db),

    /**
     * The channels wired to a monitor, opened for delivery, with the events each receives and
     * until when it is backed off. Not a call of any surface: the alert path uses it.
     */
    async targetsOf(monitorId: number): Promise<ChannelOfMonitor[]> {
      return (await channelRowsOfMonitor(db, monitorId)).map((row) => ({
        id: row.id,
        target: credentialsOf(row) ? targetOf(row) : unreadable(row),
        events: eventsOf(row),
        failures: row.failures,
        backoffUntil: row.backoff_until,
      }));
    },
  };
}

export type ChannelService = ReturnType<typeof createChannelService>;
