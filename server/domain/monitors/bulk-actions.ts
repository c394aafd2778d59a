import type { Kysely } from 'kysely';
import { z } from 'zod';
import { MONITOR_LIMITS } from '../../../contract/limits.ts';
import type { Database } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import type { ChannelService } from '../notifications/channels.ts';
import { builtOnFirstUse, ID_PATTERN, invalid, oneLine, parseInput } from '../validation.ts';
import { monitorTypeNames } from './monitor-types.ts';
import type { MonitorService } from './monitors.ts';
import { fold, matchingMonitors, monitorStates, registerFold } from './view-repository.ts';

/** What a bulk action does to each monitor it selects. */
export const bulkActions = ['pause', 'resume', 'delete', 'addTag', 'wireToChannel', 'setGroup'] as const;
export type BulkAction = (typeof bulkActions)[number];

export interface BulkResult {
  /** The monitors selected, in id order. */
  ids: string[];
  /** How many of them changed: a paused monitor paused again, a tag or a group it had, is not a change. */
  changed: number;
  /** Monitors whose own change was refused after the others' went through (e.g. deleted meanwhile). */
  failures: { id: string; reason: string }[];
}

const MAX = MONITOR_LIMITS.bulkSelection;

const optionalText = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const bulkInput = builtOnFirstUse(() =>
  z
    .object({
      action: z.enum(bulkActions, { error: `must be one of ${bulkActions.join(', ')}` }),
      ids: z
        .array(z.string().regex(ID_PATTERN, 'must be a monitor id (a positive whole number)'))
        .min(1, 'must name at least one monitor')
        .max(MAX, `must name at most ${MAX} monitors`)
        .optional(),
      filter: z
        .object({
          query: optionalText(200),
          state: z.enum(monitorStates, { error: `must be one of ${monitorStates.join(', ')}` }).optional(),
          type: z.enum(monitorTypeNames, { error: `must be one of ${monitorTypeNames.join(', ')}` }).optional(),
          tag: optionalText(100),
        })
        .optional(),
      tag: oneLine(
        z.string().trim().min(1, 'a tag must not be empty').max(MONITOR_LIMITS.tagLength, `a tag must be at most ${MONITOR_LIMITS.tagLength} characters`),
      ).optional(),
      channelId: z.string().regex(ID_PATTERN, 'must be a notification channel id (a positive whole number)').optional(),
      /** The group setGroup puts the monitors in; '' takes them out of their group. */
      group: oneLine(z.string().trim().max(MONITOR_LIMITS.groupLength, `must be at most ${MONITOR_LIMITS.groupLength} characters`)).optional(),
    })
    .superRefine((input, ctx) => {
      if ((input.ids === undefined) === (input.filter === undefined))
        ctx.addIssue({ code: 'custom', path: ['ids'], message: 'name the monitors either by ids or by filter, not both nor neither' });
      if (input.action === 'addTag' && input.tag === undefined) ctx.addIssue({ code: 'custom', path: ['tag'], message: 'is required to add a tag' });
      if (input.action === 'wireToChannel' && input.channelId === undefined)
        ctx.addIssue({ code: 'custom', path: ['channelId'], message: 'is required to wire monitors to a channel' });
      if (input.action === 'setGroup' && input.group === undefined)
        ctx.addIssue({ code: 'custom', path: ['group'], message: 'is required to set the group (empty: no group)' });
    }),
);

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * One action on many monitors: the monitors are named by id or by the overview's filter (at most
 * MONITOR_LIMITS.bulkSelection), and each is changed through the monitor service's own call, so it
 * gets the same rules and the same audit entry as when changed alone. Everything that can be
 * known beforehand (scope, input, the ids, the selection's size, a tag's room, the channel and its
 * room) is checked first: a refusal changes nothing.
 */
export function createBulkMonitorService(db: Kysely<Database>, monitors: MonitorService, channels: ChannelService) {
  let folding: Promise<void> | undefined;

  return {
    async bulkUpdate(actor: Actor, workspaceId: number, input: unknown): Promise<BulkResult> {
      await authorize(db, actor, workspaceId, 'write');
      const { action, ids, filter, tag, channelId, group } = parseInput(bulkInput(), input);
      await (folding ??= registerFold(db));
      const selected = ids
        ? await matchingMonitors(db, workspaceId, { ids: [...new Set(ids.map(Number))] }, MAX)
        : await matchingMonitors(
            db,
            workspaceId,
            { state: filter?.state, type: filter?.type, tag: filter?.tag, q: filter?.query === undefined ? undefined : fold(filter.query) },
            MAX + 1,
          );
      if (ids) {
        const found = new Set(selected.map((m) => m.id));
        const missing = ids.findIndex((id) => !found.has(Number(id)));
        if (missing >= 0) throw new AppError('NOT_FOUND', `ids.${missing}: monitor ${ids[missing]} does not exist in this workspace`);
      } else if (selected.length > MAX) {
        throw invalid('filter', `matches more than ${MAX} monitors; narrow it, the most one bulk action can change`);
      }
      const result: BulkResult = { ids: selected.map((m) => String(m.id)), changed: 0, failures: [] };
      const attempt = async (id: number, change: () => Promise<unknown>) => {
        try {
          await change();
          result.changed += 1;
        } catch (error) {
          result.failures.push({ id: String(id), reason: reasonOf(error) });
        }
      };

      switch (action) {
        case 'pause':
        case 'resume': {
          const active = action === 'resume';
          for (const m of selected)
            if ((m.active === 1) !== active) await attempt(m.id, () => monitors.update(actor, workspaceId, m.type, String(m.id), { active }));
          break;
        }
        case 'delete':
          for (const m of selected) await attempt(m.id, () => monitors.delete(actor, workspaceId, String(m.id)));
          break;
        case 'addTag': {
          const lacking = selected.filter((m) => !(JSON.parse(m.tags) as string[]).includes(tag!));
          const full = lacking.filter((m) => (JSON.parse(m.tags) as string[]).length >= MONITOR_LIMITS.tags);
          if (full.length > 0)
            throw invalid(
              'tag',
              `${full.length} of the monitors already have ${MONITOR_LIMITS.tags} tags, the most a monitor can (first: monitor ${full[0]!.id})`,
            );
          for (const m of lacking)
            await attempt(m.id, () => monitors.update(actor, workspaceId, m.type, String(m.id), { tags: [...(JSON.parse(m.tags) as string[]), tag!] }));
          break;
        }
        case 'setGroup':
          for (const m of selected) if (m.group_name !== group) await attempt(m.id, () => monitors.update(actor, workspaceId, m.type, String(m.id), { group }));
          break;
        case 'wireToChannel': {
          // The channel's own update: it checks the channel, the workspace and the channel's room,
          // and writes the channel's one audit entry naming its monitors before and after.
          const channel = await channels.get(actor, workspaceId, channelId!);
          const linked = new Set(channel.monitorIds);
          const added = result.ids.filter((id) => !linked.has(id));
          if (added.length > 0) {
            await channels.update(actor, workspaceId, channelId!, { monitorIds: [...channel.monitorIds, ...added] });
            result.changed = added.length;
          }
          break;
        }
      }
      return result;
    },
  };
}

export type BulkMonitorService = ReturnType<typeof createBulkMonitorService>;
