import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { recordAudit } from '../audit/audit.ts';
import { parseId } from '../validation.ts';
import type { McpTool } from './check-results.ts';
import { findMonitorRow } from './monitor-repository.ts';
import { closeDrift, findOpenDrift, findPin, insertDrift, type StoredDrift, type StoredPin, updateDrift, upsertPin } from './tool-pin-repository.ts';

/**
 * Tool drift of MCP monitors: the one home of its rules. The first check that lists a server's
 * tools pins them (trust on first use). A later check that finds them otherwise (a tool added,
 * removed, or any of its texts changed: a "rug pull") opens a drift, which stays open, and alerts
 * once, until a person accepts the tools found (they become the pinned set). A check that finds
 * the pinned set again closes the drift as reverted. Each step is audited.
 *
 * Only a person accepts: a connected app (an AI editor, over OAuth or MCP) and an API key are
 * refused, so that text planted in a tool description can never make an editor accept itself.
 */

export interface ToolChange {
  name: string;
  change: 'added' | 'removed' | 'changed';
  /** The pinned text; empty for an added tool. */
  before: string;
  /** The text found now; empty for a removed tool. */
  after: string;
}

/** What a check listed: the engine passes each MCP check whose listing succeeded. */
export interface ToolListing {
  monitorId: number;
  workspaceId: number;
  /** Epoch ms of the check's start. */
  at: number;
  tools: readonly McpTool[];
}

/** What a listing did: a drift opened or changed is news for alerts and the dashboards. */
export type ListingOutcome =
  | { kind: 'pinned' | 'unchanged' | 'reverted' }
  | { kind: 'drifted'; monitorId: number; workspaceId: number; at: string; changes: ToolChange[] };

/** The tools of a monitor as people read them. */
export interface MonitorTools {
  pinned: McpTool[];
  pinnedAt: string | null;
  drift: { detectedAt: string; changes: ToolChange[] } | null;
}

/** The changes from the pinned tools to the ones found, by tool name. */
export function diffTools(pinned: readonly McpTool[], found: readonly McpTool[]): ToolChange[] {
  const before = new Map(pinned.map((tool) => [tool.name, tool]));
  const after = new Map(found.map((tool) => [tool.name, tool]));
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  const changes: ToolChange[] = [];
  for (const name of names) {
    const old = before.get(name);
    const now = after.get(name);
    if (!old) changes.push({ name, change: 'added', before: '', after: now!.text });
    else if (!now) changes.push({ name, change: 'removed', before: old.text, after: '' });
    else if (old.fingerprint !== now.fingerprint) changes.push({ name, change: 'changed', before: old.text, after: now.text });
  }
  return changes;
}

/** The set's identity: its tools' names and fingerprints, in name order. */
const setKey = (tools: readonly McpTool[]) =>
  tools
    .map((tool) => `${tool.name}:${tool.fingerprint}`)
    .sort()
    .join('\n');

/** Who changed the pins, in audit snapshots: the counts and names, not the texts. */
const summary = (tools: readonly McpTool[]) => ({ tools: tools.length, names: tools.map((tool) => tool.name).sort() });

const SYSTEM: Actor = { type: 'system', surface: 'rpc' };
const ACCEPT_BY_A_PERSON =
  "tools are accepted by a person, in the dashboard or with `statusdesk monitors accept-tools` on the service's machine: a connected app or an API key cannot accept them";

export function createToolPinService(db: Kysely<Database>) {
  /** An MCP monitor of the workspace, or NOT_FOUND (another type is not found here either). */
  async function mcpMonitor(q: Kysely<Database>, workspaceId: number, id: string) {
    const row = await findMonitorRow(q, workspaceId, parseId('id', 'monitor', id));
    if (!row) throw notFound('monitor', id);
    if (row.type !== 'mcp')
      throw new AppError('VALIDATION', `id: monitor ${id} is a ${row.type} monitor; only MCP monitors have tools`, [
        { field: 'id', rule: 'must be an MCP monitor' },
      ]);
    return row;
  }

  const toolsOf = (pin: StoredPin | undefined, drift: StoredDrift | undefined): MonitorTools => ({
    pinned: pin?.tools ?? [],
    pinnedAt: pin?.pinnedAt ?? null,
    drift: drift && pin ? { detectedAt: drift.detectedAt, changes: diffTools(pin.tools, drift.tools) } : null,
  });

  return {
    /** Records what a check listed: pins on first use, opens, updates or closes the drift. */
    async listed(listing: ToolListing): Promise<ListingOutcome> {
      // The common case, the pinned set found again without a drift open, is read, not written:
      // a write transaction for every MCP check would queue behind the result writer.
      const pinned = await findPin(db, listing.monitorId);
      if (pinned && setKey(pinned.tools) === setKey(listing.tools) && !(await findOpenDrift(db, listing.monitorId))) return { kind: 'unchanged' };
      return writeTransaction(db, async (trx) => {
        const at = new Date(listing.at).toISOString();
        const tools = [...listing.tools].sort((a, b) => a.name.localeCompare(b.name));
        const pin = await findPin(trx, listing.monitorId);
        const audit = (action: string, before: Record<string, unknown> | null, after: Record<string, unknown> | null) =>
          recordAudit(trx, { workspaceId: listing.workspaceId, entityType: 'monitor', entityId: listing.monitorId, action, actor: SYSTEM, before, after });
        if (!pin) {
          // The monitor may be gone since its check ran: its pins would go with it.
          if (!(await findMonitorRow(trx, listing.workspaceId, listing.monitorId))) return { kind: 'unchanged' };
          await upsertPin(trx, listing.monitorId, tools, at, 'first check');
          await audit('monitor.tools_pinned', null, summary(tools));
          return { kind: 'pinned' };
        }
        const open = await findOpenDrift(trx, listing.monitorId);
        if (setKey(pin.tools) === setKey(tools)) {
          if (!open) return { kind: 'unchanged' };
          await closeDrift(trx, open.id, at, 'reverted');
          await audit('monitor.tools_reverted', summary(open.tools), summary(tools));
          return { kind: 'reverted' };
        }
        if (open && setKey(open.tools) === setKey(tools)) {
          await updateDrift(trx, open.id, tools, at, false);
          return { kind: 'unchanged' };
        }
        const changes = diffTools(pin.tools, tools);
        if (open) await updateDrift(trx, open.id, tools, at, true);
        else await insertDrift(trx, listing.monitorId, tools, at);
        await audit('monitor.tools_drifted', summary(pin.tools), { ...summary(tools), changes: changes.map(({ name, change }) => `${change} ${name}`) });
        return { kind: 'drifted', monitorId: listing.monitorId, workspaceId: listing.workspaceId, at, changes };
      });
    },

    /** The pinned tools of an MCP monitor, and its open drift with what changed. */
    async get(actor: Actor, workspaceId: number, id: string): Promise<MonitorTools> {
      await authorize(db, actor, workspaceId, 'read');
      const row = await mcpMonitor(db, workspaceId, id);
      return toolsOf(await findPin(db, row.id), await findOpenDrift(db, row.id));
    },

    /** A person accepts the tools found now: they become the pinned set, and the drift closes. */
    async accept(actor: Actor, workspaceId: number, id: string): Promise<MonitorTools> {
      await authorize(db, actor, workspaceId, 'write');
      if (actor.type !== 'user') throw new AppError('FORBIDDEN', ACCEPT_BY_A_PERSON);
      return writeTransaction(db, async (trx) => {
        const row = await mcpMonitor(trx, workspaceId, id);
        const pin = await findPin(trx, row.id);
        const open = await findOpenDrift(trx, row.id);
        if (!pin || !open) return toolsOf(pin, undefined);
        const at = new Date().toISOString();
        await upsertPin(trx, row.id, open.tools, at, `user ${actor.userId}`);
        await closeDrift(trx, open.id, at, `user ${actor.userId}`);
        await recordAudit(trx, {
          workspaceId,
          entityType: 'monitor',
          entityId: row.id,
          action: 'monitor.tools_accepted',
          actor,
          before: summary(pin.tools),
          after: { ...summary(open.tools), accepted: true },
        });
        return toolsOf({ tools: open.tools, pinnedAt: at }, undefined);
      });
    },
  };
}
