import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../db/schema.ts';
import { activeMaintenanceFor } from '../maintenance/occurrences.ts';
import type { MonitorStateChange } from '../monitors/check-results.ts';
import { isOnThisMachine, targetOf } from '../monitors/monitor-types.ts';
import { findMonitor, type Monitor } from '../monitors/monitors.ts';
import { findWorkspaceRow } from '../workspaces/workspace-repository.ts';
import { setTimeout as delay } from 'node:timers/promises';
import { EMBEDDED_RUNNER } from '../locations/location-repository.ts';
import { durationWords } from '../public-words.ts';
import { failingSince, insertAlert, latestHeldFailures, monitorsToRemind, stillFailing } from './alert-repository.ts';
import { ChannelGroups, FlapGuard, STORM_RULES } from './alert-storms.ts';
import type { ChannelTarget } from './channel-rules.ts';
import { type ChannelOfMonitor, reasonOf } from './channels.ts';
import { answerOf, type DeliveryOutcome, type ReceiverAnswer } from './delivery-log.ts';
import { type AlertEvent, topicOf } from './events.ts';
import type { ToolChange } from '../monitors/tool-pins.ts';

export interface Alert {
  id: string;
  monitorId: string;
  kind: AlertEvent['kind'];
  message: string;
  occurredAt: string;
  /** The maintenance window that held the alert back; null when it was sent. */
  suppressedBy: string | null;
  /**
   * What became of it on each channel that receives its event: `held` says why it was not sent
   * on its own (grouped with others of the same minute, the monitor flapping, the channel backed off).
   */
  deliveries: { channelId: string; ok: boolean; error: string | null; held?: string }[];
}

export interface AlertServiceOptions {
  /** The channels wired to a monitor, with the events each receives and its backoff. */
  targetsOf(monitorId: number): Promise<ChannelOfMonitor[]>;
  /** One attempt to send an alert to a channel; rejects with the reason. Resolves with the receiver's HTTP answer, where it has one. */
  deliver(target: ChannelTarget, event: AlertEvent): Promise<ReceiverAnswer | undefined | void>;
  /**
   * Records how a delivery to a channel went (`error` null: it went through), in its delivery log
   * and its health; returns the log entry's id, which a later attempt of the same delivery updates.
   */
  recordDelivery(channelId: number, outcome: DeliveryOutcome): Promise<number | undefined | void>;
  /**
   * Shows an alert in the desktop app, if one runs (throws when none does): a tool drift is shown
   * there even when no desktop channel is wired to the monitor.
   */
  desktop?(event: AlertEvent): void;
  /** The dashboard's address: each alert links to its monitor there. */
  dashboardUrl?: string;
  /** Waits before a second and a third attempt of a delivery that failed in a way worth retrying (a 5xx, a lost connection). */
  retryDelaysMs?: readonly number[];
  /** Flapping and grouping rules; STORM_RULES by default. */
  storms?: Partial<typeof STORM_RULES>;
  /** Whether this machine is offline now (checks/offline.ts): the alerts of its own checks are then held until it is back. */
  offline?: () => { since: number; reason: string } | undefined;
  log: Logger;
}

/** How often alerts held back by a maintenance window that has ended, flapping that has settled and reminders due are looked for. */
const SWEEP_EVERY_MS = 30_000;
const RETRY_DELAYS_MS = [1_000, 5_000];

/** Whether a failed delivery is worth another attempt: the receiver failed (5xx) or the connection did, not a refusal. */
const isRetryable = (error: unknown) => (error as { retryable?: unknown })?.retryable === true;

/**
 * Monitor alerts: each change of a monitor's overall result (the check engine emits one per
 * change) goes to every channel wired to the monitor that receives its event, unless an active
 * maintenance window covers it. No storms (alert-storms.ts): a flapping monitor sends one alert
 * with the count, and a channel told of a change hears of the others of the same kind within a
 * minute in one grouped alert. A channel that keeps failing is backed off. Each alert is
 * recorded with what became of it; a monitor may remind its channels while it stays down.
 */
export function createAlertService(db: Kysely<Database>, options: AlertServiceOptions) {
  const rules = { ...STORM_RULES, ...options.storms };
  const flaps = new FlapGuard(rules);
  const groups = new ChannelGroups<{ channelId: number; target: ChannelTarget; event: AlertEvent }>(rules.groupWindowMs);
  const retryDelays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  const linkOf = (monitorId: string) => (options.dashboardUrl ? new URL(`/monitors/${monitorId}`, options.dashboardUrl).href : undefined);

  /** One delivery, with a second and a third attempt for a failure worth retrying; its outcome recorded on the channel. */
  async function deliverTo(channelId: number, target: ChannelTarget, event: AlertEvent): Promise<string | null> {
    let failure: string | null = null;
    let answer: ReceiverAnswer | undefined;
    let attempts = 0;
    let entryId: number | undefined;
    const record = (outcome: Omit<DeliveryOutcome, 'event' | 'target' | 'answer' | 'attempts' | 'entryId'>) =>
      options
        .recordDelivery(channelId, { ...outcome, event, target, answer, attempts, entryId })
        .catch((error: unknown) => options.log.error({ err: error, channelId }, 'recording a delivery failed'));
    for (let attempt = 0; ; attempt++) {
      attempts = attempt + 1;
      try {
        answer = (await options.deliver(target, event)) ?? undefined;
        failure = null;
        break;
      } catch (error) {
        failure = reasonOf(error);
        answer = answerOf(error);
        if (!isRetryable(error) || attempt >= retryDelays.length) break;
        // The delivery log says it is being retried while it waits.
        entryId = (await record({ error: failure, retrying: true })) ?? entryId;
        await delay(retryDelays[attempt]!);
      }
    }
    if (failure !== null) options.log.warn({ channelId, monitorId: event.monitor.id, reason: failure }, 'alert delivery failed');
    await record({ error: failure });
    return failure;
  }

  /**
   * What becomes of `event` on one channel: not its event, backed off (at `now`), held for a group
   * (the minute of a group is the checks' time, when the changes happened), or sent.
   */
  async function toChannel(channel: ChannelOfMonitor, event: AlertEvent, now: number): Promise<Alert['deliveries'][number] | undefined> {
    const channelId = String(channel.id);
    if (channel.events.length > 0 && !channel.events.includes(topicOf(event))) return undefined;
    if (channel.target instanceof Error) {
      await options.recordDelivery(channel.id, { error: channel.target.message, event }).catch(() => undefined);
      return { channelId, ok: false, error: channel.target.message };
    }
    if (channel.backoffUntil !== null && Date.parse(channel.backoffUntil) > now) {
      return {
        channelId,
        ok: false,
        error: `not sent: the channel failed ${channel.failures} times in a row; it is tried again after ${channel.backoffUntil}`,
        held: 'backed off',
      };
    }
    // A product that resolves by a key per monitor (PagerDuty, Opsgenie) sends a grouped alert as one event per monitor itself.
    const groupable = event.kind !== 'tool_drift' && !event.flapping && !event.remindedSince;
    if (groupable && groups.admit(channel.id, event.kind, { channelId: channel.id, target: channel.target, event }, Date.parse(event.at)) === 'hold') {
      armGroups();
      return { channelId, ok: true, error: null, held: 'grouped with the alerts of the same kind within a minute' };
    }
    const error = await deliverTo(channel.id, channel.target, event);
    return { channelId, ok: error === null, error };
  }

  /**
   * Sends `event` to every channel of the monitor that receives it and records the alert;
   * `onDesktop`: also to the desktop app when no desktop channel of the monitor shows it.
   * `held`: why the alert is recorded without being sent (the monitor is flapping).
   */
  async function send(
    monitor: Monitor,
    event: Omit<AlertEvent, 'monitor' | 'workspace'>,
    suppressedBy: number | undefined,
    { onDesktop = false, held }: { onDesktop?: boolean; held?: string } = {},
  ): Promise<Alert | undefined> {
    const monitorId = Number(monitor.id);
    let deliveries: Alert['deliveries'] = [];
    if (suppressedBy === undefined) {
      const { slug, name } = await findWorkspaceRow(db, Number(monitor.workspaceId));
      const link = linkOf(monitor.id);
      const full: AlertEvent = {
        ...event,
        monitor: { id: monitor.id, name: monitor.name, type: monitor.type, target: targetOf(monitor) },
        workspace: { slug, name },
        ...(link && { link }),
      };
      const channels = await options.targetsOf(monitorId);
      if (held !== undefined) {
        deliveries = channels
          .filter((c) => c.events.length === 0 || c.events.includes(topicOf(full)))
          .map((c) => ({ channelId: String(c.id), ok: false, error: null, held }));
      } else {
        if (onDesktop && !channels.some(({ target }) => !(target instanceof Error) && target.kind === 'desktop')) {
          try {
            options.desktop?.(full);
          } catch {
            // No desktop app runs: the channels still have it.
          }
        }
        const now = Date.now();
        deliveries = (await Promise.all(channels.map((channel) => toChannel(channel, full, now)))).filter((d) => d !== undefined);
      }
    }
    const id = await insertAlert(db, {
      monitorId,
      kind: event.kind,
      message: event.message,
      at: event.at,
      suppressedBy: suppressedBy ?? null,
      deliveries,
    }).catch(
      () => undefined, // the monitor was deleted meanwhile
    );
    if (id === undefined) return undefined;
    return {
      id: String(id),
      monitorId: monitor.id,
      kind: event.kind,
      message: event.message,
      occurredAt: event.at,
      suppressedBy: suppressedBy === undefined ? null : String(suppressedBy),
      deliveries,
    };
  }

  /** Monitors whose failure was held while this machine was offline, and what it was. */
  const heldOffline = new Map<number, 'down' | 'degraded'>();

  async function stateChanged(change: MonitorStateChange): Promise<Alert | undefined> {
    // A first check that is up is not news.
    if (change.kind === 'checked') return undefined;
    const monitor = await findMonitor(db, Number(change.workspaceId), Number(change.monitorId));
    if (!monitor) return undefined; // deleted while its check ran
    const id = Number(monitor.id);
    const { kind, from, to, message, at } = change;
    const event: Omit<AlertEvent, 'monitor' | 'workspace'> = { kind, from, to, message, at, ...(change.regions && { regions: change.regions }) };
    // Offline, this machine's checks of targets beyond it fail for its own reason: their alerts
    // wait. A target on this machine fails for its own, and is told (the desktop app needs no network).
    if (change.runner === EMBEDDED_RUNNER && options.offline?.() && !isOnThisMachine(targetOf(monitor))) {
      if (kind === 'recovered') heldOffline.delete(id);
      else heldOffline.set(id, kind);
      return send(monitor, event, undefined, { held: 'this machine is offline: held until it is back' });
    }
    // A failure never told (held while offline) is not followed by its recovery.
    if (kind === 'recovered' && heldOffline.delete(id)) return send(monitor, event, undefined, { held: 'its failure was held while this machine was offline' });
    if (kind === 'recovered') {
      const since = await failingSince(db, id);
      if (since !== undefined) event.downForMs = Math.max(0, Date.parse(at) - Date.parse(since));
    }
    // At the check's time (the engine's clock), so an occurrence of a repeating window is judged where the check ran.
    const maintenance = await activeMaintenanceFor(db, id, at);
    if (maintenance !== undefined) return send(monitor, event, maintenance);
    const verdict = flaps.admit(id, to, Date.parse(at));
    if (verdict.action === 'hold') return send(monitor, event, undefined, { held: 'the monitor is flapping: one alert said so' });
    if (verdict.action === 'flapping') event.flapping = verdict.changes;
    return send(monitor, event, undefined);
  }

  /**
   * An MCP monitor's server changed its tools (tool-pins.ts opened or changed a drift): every
   * channel of the monitor, and the desktop app, is told which, once. Not held back by maintenance: a changed tool is
   * a security event, not an outage.
   */
  async function toolsDrifted(drift: { monitorId: number; workspaceId: number; at: string; changes: readonly ToolChange[] }): Promise<Alert | undefined> {
    const monitor = await findMonitor(db, drift.workspaceId, drift.monitorId);
    if (!monitor) return undefined;
    const changed = drift.changes.map(({ name, change }) => `${change} ${name}`);
    const message = `Tools changed since they were accepted: ${changed.slice(0, 10).join(', ')}${changed.length > 10 ? ` and ${changed.length - 10} more` : ''}. Review and accept them in Statusdesk before an editor uses them again.`;
    return send(monitor, { kind: 'tool_drift', from: 'up', to: 'up', message, at: drift.at }, undefined, { onDesktop: true });
  }

  /**
   * This machine is back online: the monitors whose failure was held and that still fail are
   * told now, once, with the span; those that recovered meanwhile are left alone.
   */
  async function backOnline(span: { since: number; until: number }): Promise<Alert[]> {
    const sent: Alert[] = [];
    const held = [...heldOffline.keys()];
    heldOffline.clear();
    for (const { id, workspace_id, state, message } of await stillFailing(db, held)) {
      const monitor = await findMonitor(db, workspace_id, id);
      if (!monitor) continue;
      const kind = state as 'down' | 'degraded';
      const offlineFor = durationWords(span.until - span.since);
      const alert = await send(
        monitor,
        { kind, from: 'up', to: kind, message: `${message} (held while this machine was offline for ${offlineFor})`, at: new Date(span.until).toISOString() },
        await activeMaintenanceFor(db, id),
      );
      if (alert) sent.push(alert);
    }
    return sent;
  }

  /** Sends the alerts held for groups whose minute has passed: one grouped alert per channel and kind. */
  async function sendGroups(now = Date.now()): Promise<void> {
    for (const { channelId, items } of groups.due(now)) {
      const [first] = items;
      const group = items.map(({ event }) => ({ ...event.monitor, message: event.message }));
      const event: AlertEvent = {
        ...first!.event,
        group,
        message: group.map((m) => `${m.name}: ${m.message}`).join('\n'),
        at: items.at(-1)!.event.at,
      };
      delete event.link;
      await deliverTo(channelId, first!.target, items.length === 1 ? first!.event : event);
    }
  }

  let groupTimer: NodeJS.Timeout | undefined;
  /** Sends the held groups when the first of them is due. */
  function armGroups(): void {
    const next = groups.nextDue();
    if (next === undefined || groupTimer) return;
    groupTimer = setTimeout(
      () => {
        groupTimer = undefined;
        inBackground(sendGroups(), 'sending grouped alerts failed');
        armGroups();
      },
      Math.max(0, next - Date.now()),
    );
    groupTimer.unref();
  }

  /** Monitors that stopped flapping: their channels are told the state they settled in, if it is not the one last said. */
  async function settleFlapping(now = Date.now()): Promise<Alert[]> {
    const sent: Alert[] = [];
    for (const { monitorId, held, to } of flaps.settle(now)) {
      if (to === null) continue;
      const row = await db.selectFrom('monitors').select('workspace_id').where('id', '=', monitorId).executeTakeFirst();
      const monitor = row && (await findMonitor(db, row.workspace_id, monitorId));
      if (!monitor) continue;
      const kind = to === 'up' ? 'recovered' : to;
      const message = `Stable again after flapping (${held} more changes were held): now ${to}.`;
      const alert = await send(monitor, { kind, from: null, to, message, at: new Date(now).toISOString() }, await activeMaintenanceFor(db, monitorId));
      if (alert) sent.push(alert);
    }
    return sent;
  }

  /** Reminders due: a monitor still down or degraded, silent for its reminder interval, reminds its channels. */
  async function remind(now = Date.now()): Promise<Alert[]> {
    const sent: Alert[] = [];
    for (const row of await monitorsToRemind(db)) {
      const lastSaid = Math.max(row.changed_at, row.last_alert_at ? Date.parse(row.last_alert_at) : 0);
      if (now - lastSaid < row.remind_every_ms!) continue;
      if ((await activeMaintenanceFor(db, row.id)) !== undefined || flaps.isFlapping(row.id)) continue;
      const monitor = await findMonitor(db, row.workspace_id, row.id);
      if (!monitor) continue;
      const since = (await failingSince(db, row.id)) ?? new Date(row.changed_at).toISOString();
      const state = row.state as 'down' | 'degraded';
      const message = `Still ${state} since ${since}, for ${durationWords(now - Date.parse(since))}.`;
      const alert = await send(monitor, { kind: state, from: state, to: state, message, at: new Date(now).toISOString(), remindedSince: since }, undefined);
      if (alert) sent.push(alert);
    }
    return sent;
  }

  /**
   * Alerts held back by a maintenance window that has ended, for monitors still down or
   * degraded: sent now, once, so a failure that outlasts the window is not kept quiet. A
   * monitor that recovered during the window had its recovery held back too, and is left alone.
   */
  async function releaseHeld(): Promise<Alert[]> {
    const held = await latestHeldFailures(db);
    const sent: Alert[] = [];
    for (const alert of held) {
      if ((await activeMaintenanceFor(db, alert.monitor_id)) !== undefined) continue;
      const monitor = await findMonitor(db, alert.workspace_id, alert.monitor_id);
      if (!monitor) continue;
      const kind = alert.kind as 'down' | 'degraded';
      const released = await send(
        monitor,
        { kind, from: 'up', to: kind, message: `${alert.message} (held back during maintenance, which has ended)`, at: new Date().toISOString() },
        undefined,
      );
      if (released) sent.push(released);
    }
    return sent;
  }

  /** Alerts still being sent in the background: closing waits for them (each delivery is bounded). */
  const inFlight = new Set<Promise<unknown>>();
  const inBackground = (work: Promise<unknown>, failed: string, context: object = {}) => {
    const settled: Promise<unknown> = work
      .catch((error: unknown) => options.log.error({ err: error, ...context }, failed))
      .finally(() => inFlight.delete(settled));
    inFlight.add(settled);
  };
  let sweeping: NodeJS.Timeout | undefined;

  /** What the sweep does: held alerts released, flapping settled, reminders sent, groups due sent. */
  async function sweep(now = Date.now()): Promise<void> {
    await releaseHeld();
    await settleFlapping(now);
    await remind(now);
    await sendGroups(now);
  }

  return {
    stateChanged,
    releaseHeld,
    toolsDrifted,
    settleFlapping,
    remind,
    backOnline,
    sendGroups,
    sweep,

    /** A drift's alert goes out in the background, a failure logged. */
    toolsDriftedInBackground(drift: Parameters<typeof toolsDrifted>[0]): void {
      inBackground(toolsDrifted(drift), 'tool drift alert failed', { monitorId: drift.monitorId });
    },

    /** The check engine's state-change listener: the change's alert goes out in the background, a failure logged. */
    sendInBackground(change: MonitorStateChange): void {
      inBackground(stateChanged(change), 'alert failed', { monitorId: change.monitorId });
    },

    /**
     * Sweeps every 30 s while `mine` says so (one process of those sharing a database), in the
     * background, until closed: releases held alerts, settles flapping, sends reminders.
     */
    start(mine: () => boolean = () => true): void {
      sweeping ??= setInterval(() => {
        if (mine()) inBackground(sweep(), 'the alert sweep failed');
      }, SWEEP_EVERY_MS).unref();
    },

    /** Stops sweeping, sends the grouped alerts still held, and waits for the alerts still being sent. */
    async close(): Promise<void> {
      clearInterval(sweeping);
      sweeping = undefined;
      clearTimeout(groupTimer);
      groupTimer = undefined;
      inBackground(sendGroups(Number.POSITIVE_INFINITY), 'sending grouped alerts failed');
      await Promise.all(inFlight);
    },
  };
}

export type AlertService = ReturnType<typeof createAlertService>;
