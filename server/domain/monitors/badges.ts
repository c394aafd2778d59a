import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { recordAudit } from '../audit/audit.ts';
import { builtOnFirstUse, parseId, parseInput } from '../validation.ts';
import { findMonitorRow } from './monitor-repository.ts';

/**
 * A monitor's public status badges: SVG images of its state, uptime and latency that a README can
 * show. Off unless the owner turns them on. Their address carries an unguessable badge id (128
 * random bits, never the monitor's numeric id), so nobody finds the badges of a monitor by counting.
 * Turning badges off makes the address answer 404 at once; turning them on again keeps the id
 * unless `rotate` asks for a new one, after which the old address names nothing.
 */

/** The uptime windows a badge can show. */
export const badgeWindows = ['24h', '7d', '30d'] as const;
export type BadgeWindow = (typeof badgeWindows)[number];
const WINDOW_MS: Record<BadgeWindow, number> = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 };
const HOUR_MS = 3_600_000;

const BADGE_ID = /^bdg_[A-Za-z0-9_-]{22}$/;
/** Whether `text` has the form of a badge id: anything else names no badge and is not looked up. */
export const isBadgeId = (text: string) => BADGE_ID.test(text);
const newBadgeId = () => `bdg_${randomBytes(16).toString('base64url')}`;

/** A monitor's badge setting as its owner sees it. */
export interface BadgeSettings {
  enabled: boolean;
  /** The id in the badges' address; null until badges were first turned on. */
  badgeId: string | null;
  /** The badges' addresses while they are on: empty while off. */
  urls: BadgeUrls | null;
}

export interface BadgeUrls {
  status: string;
  uptime24h: string;
  uptime7d: string;
  uptime30d: string;
  latency: string;
}

/** What a public badge shows: only ever a monitor whose badges are on. */
export type PublicBadge =
  | { paused: true; name: string }
  | {
      paused: false;
      name: string;
      /** The worst latest result of its runners; null before the first check. */
      state: 'up' | 'degraded' | 'down' | null;
      uptime: Record<BadgeWindow, number | null>;
      /** The latest check's latency in ms, null when it failed or none ran. */
      latencyMs: number | null;
    };

const updateInput = builtOnFirstUse(() =>
  z.strictObject({
    enabled: z.boolean({ error: 'must be true or false' }),
    rotate: z.boolean({ error: 'must be true or false' }).default(false),
  }),
);

const RANK = { up: 0, degraded: 1, down: 2 } as const;

export function createBadgeService(db: Kysely<Database>, options: { publicUrl: string; now?: () => number }) {
  const now = options.now ?? Date.now;
  const urlsOf = (badgeId: string): BadgeUrls => {
    const base = `${options.publicUrl}/badge/${badgeId}`;
    return {
      status: `${base}/status.svg`,
      uptime24h: `${base}/uptime-24h.svg`,
      uptime7d: `${base}/uptime-7d.svg`,
      uptime30d: `${base}/uptime-30d.svg`,
      latency: `${base}/latency.svg`,
    };
  };
  const settingsOf = (row: { badge_id: string; enabled: number } | undefined): BadgeSettings => ({
    enabled: row?.enabled === 1,
    badgeId: row?.badge_id ?? null,
    urls: row?.enabled === 1 ? urlsOf(row.badge_id) : null,
  });

  async function monitorOf(q: Kysely<Database>, workspaceId: number, id: string) {
    const row = await findMonitorRow(q, workspaceId, parseId('id', 'monitor', id));
    if (!row) throw notFound('monitor', id);
    return row;
  }

  async function uptimeOf(monitorId: number, window: BadgeWindow): Promise<number | null> {
    // Rollups are hourly (daily once old): a window starts at the hour it falls in.
    const from = Math.floor((now() - WINDOW_MS[window]) / HOUR_MS) * HOUR_MS;
    const row = await db
      .selectFrom('check_rollups')
      .select((eb) => [
        eb.fn.sum<number>('success_count').as('up'),
        eb.fn.sum<number>('degraded_count').as('degraded'),
        eb.fn.sum<number>('error_count').as('down'),
      ])
      .where('monitor_id', '=', monitorId)
      .where('hour', '>=', from)
      .executeTakeFirst();
    const up = Number(row?.up ?? 0) + Number(row?.degraded ?? 0);
    const all = up + Number(row?.down ?? 0);
    return all === 0 ? null : (up / all) * 100;
  }

  return {
    urlsOf,

    /** The monitor's badge setting. */
    async get(actor: Actor, workspaceId: number, id: string): Promise<BadgeSettings> {
      await authorize(db, actor, workspaceId, 'read');
      const monitor = await monitorOf(db, workspaceId, id);
      return settingsOf(await db.selectFrom('monitor_badges').select(['badge_id', 'enabled']).where('monitor_id', '=', monitor.id).executeTakeFirst());
    },

    /** What the monitor's badges show now, while they are on (for the owner's preview); undefined while off. */
    async preview(actor: Actor, workspaceId: number, id: string): Promise<PublicBadge | undefined> {
      await authorize(db, actor, workspaceId, 'read');
      const monitor = await monitorOf(db, workspaceId, id);
      const row = await db.selectFrom('monitor_badges').select(['badge_id', 'enabled']).where('monitor_id', '=', monitor.id).executeTakeFirst();
      return row?.enabled === 1 ? this.publicBadge(row.badge_id) : undefined;
    },

    /**
     * Turns the monitor's badges on or off. On again keeps the earlier id unless `rotate`; a
     * rotation while on gives a new id at once. A request that changes nothing records nothing.
     */
    async update(actor: Actor, workspaceId: number, id: string, input: { enabled?: unknown; rotate?: unknown }): Promise<BadgeSettings> {
      await authorize(db, actor, workspaceId, 'write');
      const { enabled, rotate } = parseInput(updateInput(), input);
      return writeTransaction(db, async (trx) => {
        const monitor = await monitorOf(trx, workspaceId, id);
        const before = await trx.selectFrom('monitor_badges').select(['badge_id', 'enabled']).where('monitor_id', '=', monitor.id).executeTakeFirst();
        const badgeId = !before || rotate ? newBadgeId() : before.badge_id;
        const after = { badge_id: badgeId, enabled: enabled ? 1 : 0 };
        if (before && before.enabled === after.enabled && before.badge_id === after.badge_id) return settingsOf(before);
        const at = new Date().toISOString();
        if (before)
          await trx
            .updateTable('monitor_badges')
            .set({ ...after, updated_at: at })
            .where('monitor_id', '=', monitor.id)
            .execute();
        else
          await trx
            .insertInto('monitor_badges')
            .values({ monitor_id: monitor.id, ...after, updated_at: at })
            .execute();
        await recordAudit(trx, {
          workspaceId,
          entityType: 'monitor',
          entityId: String(monitor.id),
          action: 'monitor.badges',
          actor,
          // The id is public once on; a rotation shows as a change of it, not as its value.
          before: { name: monitor.name, badges: before?.enabled === 1, badgeRotated: false },
          after: { name: monitor.name, badges: enabled, badgeRotated: before !== undefined && before.badge_id !== badgeId },
        });
        return settingsOf(after);
      });
    },

    /**
     * What the badges of `badgeId` show, or undefined: for an id of the wrong form, an unknown or
     * rotated one, and badges turned off alike (the edge answers all of them the same 404). A
     * paused monitor shows only that it is paused.
     */
    async publicBadge(badgeId: string): Promise<PublicBadge | undefined> {
      if (!isBadgeId(badgeId)) return undefined;
      const found = await db
        .selectFrom('monitor_badges')
        .innerJoin('monitors', 'monitors.id', 'monitor_badges.monitor_id')
        .select(['monitors.id', 'monitors.name', 'monitors.active'])
        .where('monitor_badges.badge_id', '=', badgeId)
        .where('monitor_badges.enabled', '=', 1)
        .executeTakeFirst();
      if (!found) return undefined;
      if (found.active !== 1) return { paused: true, name: found.name };
      const latest = await db.selectFrom('check_state').select(['result', 'checked_at', 'latency_ms']).where('monitor_id', '=', found.id).execute();
      let state: 'up' | 'degraded' | 'down' | null = null;
      for (const row of latest) {
        const result = row.result as keyof typeof RANK;
        if (state === null || RANK[result] > RANK[state]) state = result;
      }
      const newest = latest.reduce<(typeof latest)[number] | undefined>((a, b) => (a && a.checked_at >= b.checked_at ? a : b), undefined);
      const latencyMs = newest && newest.result !== 'down' && newest.latency_ms !== null ? newest.latency_ms : null;
      const [d, w, m] = await Promise.all(badgeWindows.map((window) => uptimeOf(found.id, window)));
      return { paused: false, name: found.name, state, uptime: { '24h': d!, '7d': w!, '30d': m! }, latencyMs };
    },
  };
}

export type BadgeService = ReturnType<typeof createBadgeService>;
