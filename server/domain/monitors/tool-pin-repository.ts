import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { McpTool } from './check-results.ts';

// The pinned tools and the drifts of MCP monitors (tool-pins.ts decides what they mean).

export interface StoredPin {
  tools: McpTool[];
  pinnedAt: string;
}

export interface StoredDrift {
  id: number;
  detectedAt: string;
  tools: McpTool[];
}

export async function findPin(db: Kysely<Database>, monitorId: number): Promise<StoredPin | undefined> {
  const row = await db.selectFrom('mcp_tool_pins').select(['tools', 'pinned_at']).where('monitor_id', '=', monitorId).executeTakeFirst();
  return row && { tools: JSON.parse(row.tools), pinnedAt: row.pinned_at };
}

export async function upsertPin(db: Kysely<Database>, monitorId: number, tools: readonly McpTool[], at: string, by: string): Promise<void> {
  const values = { tools: JSON.stringify(tools), pinned_at: at, pinned_by: by };
  await db
    .insertInto('mcp_tool_pins')
    .values({ monitor_id: monitorId, ...values })
    .onConflict((oc) => oc.column('monitor_id').doUpdateSet(values))
    .execute();
}

/** The monitor's open drift, if any. */
export async function findOpenDrift(db: Kysely<Database>, monitorId: number): Promise<StoredDrift | undefined> {
  const row = await db
    .selectFrom('mcp_tool_drifts')
    .select(['id', 'detected_at', 'tools'])
    .where('monitor_id', '=', monitorId)
    .where('accepted_at', 'is', null)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row && { id: row.id, detectedAt: row.detected_at, tools: JSON.parse(row.tools) };
}

export async function insertDrift(db: Kysely<Database>, monitorId: number, tools: readonly McpTool[], at: string): Promise<void> {
  await db
    .insertInto('mcp_tool_drifts')
    .values({ monitor_id: monitorId, detected_at: at, updated_at: at, tools: JSON.stringify(tools), accepted_at: null, accepted_by: null })
    .execute();
}

/** Records a later check of an open drift; `changed`: it found yet other tools, which the drift now holds. */
export async function updateDrift(db: Kysely<Database>, id: number, tools: readonly McpTool[], at: string, changed: boolean): Promise<void> {
  await db
    .updateTable('mcp_tool_drifts')
    .set(changed ? { updated_at: at, tools: JSON.stringify(tools) } : { updated_at: at })
    .where('id', '=', id)
    .execute();
}

export async function closeDrift(db: Kysely<Database>, id: number, at: string, by: string): Promise<void> {
  await db.updateTable('mcp_tool_drifts').set({ accepted_at: at, accepted_by: by }).where('id', '=', id).execute();
}

/** Of the monitors given, those with an open drift. */
export async function driftedMonitorIds(db: Kysely<Database>, monitorIds: readonly number[]): Promise<Set<number>> {
  if (monitorIds.length === 0) return new Set();
  const rows = await db.selectFrom('mcp_tool_drifts').select('monitor_id').where('monitor_id', 'in', monitorIds).where('accepted_at', 'is', null).execute();
  return new Set(rows.map((row) => row.monitor_id));
}
