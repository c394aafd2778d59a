import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, NotificationChannelTable } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';

export type ChannelRow = Selectable<NotificationChannelTable>;

export async function findChannelRow(db: Kysely<Database>, workspaceId: number, id: number): Promise<ChannelRow | undefined> {
  return db.selectFrom('notification_channels').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** Whether any workspace has an email channel: its alerts are mailed. */
export async function hasEmailChannels(db: Kysely<Database>): Promise<boolean> {
  const row = await db.selectFrom('notification_channels').select('id').where('kind', '=', 'email').limit(1).executeTakeFirst();
  return row !== undefined;
}

/** A page of the workspace's channels, newest first, with the total. */
export async function listChannelRows(db: Kysely<Database>, workspaceId: number, limit: number, offset: number) {
  const select = db.selectFrom('notification_channels').where('workspace_id', '=', workspaceId);
  const [{ total }, rows] = await Promise.all([
    select.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    select.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
  ]);
  return { rows, total };
}

/** The channels of a monitor, oldest first: those wired to it, and those of every monitor of its workspace. */
export async function channelRowsOfMonitor(db: Kysely<Database>, monitorId: number): Promise<ChannelRow[]> {
  return db
    .selectFrom('notification_channels as ch')
    .selectAll('ch')
    .where((eb) =>
      eb.or([
        eb('ch.id', 'in', eb.selectFrom('channel_monitors').select('channel_id').where('monitor_id', '=', monitorId)),
        eb.and([eb('ch.all_monitors', '=', 1), eb('ch.workspace_id', '=', eb.selectFrom('monitors').select('workspace_id').where('id', '=', monitorId))]),
      ]),
    )
    .orderBy('ch.id')
    .execute();
}

/** The workspace's channels of every monitor, oldest first. */
export async function allMonitorChannelsOf(db: Kysely<Database>, workspaceId: number) {
  return db
    .selectFrom('notification_channels')
    .select(['id', 'name', 'kind'])
    .where('workspace_id', '=', workspaceId)
    .where('all_monitors', '=', 1)
    .orderBy('id')
    .execute();
}

/** Wires a new monitor to the workspace's channels that are a default for new monitors. */
export async function wireToDefaultChannels(db: Kysely<Database>, workspaceId: number, monitorId: number): Promise<void> {
  const channels = await db.selectFrom('notification_channels').select('id').where('workspace_id', '=', workspaceId).where('default_for_new', '=', 1).execute();
  if (channels.length > 0)
    await db
      .insertInto('channel_monitors')
      .values(channels.map(({ id }) => ({ channel_id: id, monitor_id: monitorId })))
      .execute();
}

/** Which of the workspace's channels are wired to which of these monitors, oldest channel first. */
export async function channelLinksOfMonitors(db: Kysely<Database>, workspaceId: number, monitorIds: number[]) {
  return db
    .selectFrom('channel_monitors as l')
    .innerJoin('notification_channels as c', 'c.id', 'l.channel_id')
    .select(['l.monitor_id', 'c.id', 'c.name', 'c.kind'])
    .where('c.workspace_id', '=', workspaceId)
    .where('l.monitor_id', 'in', monitorIds)
    .orderBy('c.id')
    .execute();
}

/** The links of these channels to their monitors, in monitor order. */
export async function monitorLinksOfChannels(db: Kysely<Database>, channelIds: number[]) {
  if (channelIds.length === 0) return [];
  return db.selectFrom('channel_monitors').selectAll().where('channel_id', 'in', channelIds).orderBy('monitor_id').execute();
}

/** Every channel of the workspace, oldest first. */
export async function channelRowsOfWorkspace(db: Kysely<Database>, workspaceId: number): Promise<ChannelRow[]> {
  return db.selectFrom('notification_channels').selectAll().where('workspace_id', '=', workspaceId).orderBy('id').execute();
}

/** Wires the channel to the monitor (`linked` true) or unwires it. */
export async function setChannelLink(db: Kysely<Database>, channelId: number, monitorId: number, linked: boolean): Promise<void> {
  if (linked) await db.insertInto('channel_monitors').values({ channel_id: channelId, monitor_id: monitorId }).execute();
  else await db.deleteFrom('channel_monitors').where('channel_id', '=', channelId).where('monitor_id', '=', monitorId).execute();
}

/** Marks the channel changed now (its links changed). */
export async function touchChannel(db: Kysely<Database>, id: number, at: string): Promise<ChannelRow> {
  return db.updateTable('notification_channels').set({ updated_at: at }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Wires the channel to exactly these monitors. */
export async function replaceChannelLinks(db: Kysely<Database>, channelId: number, monitorIds: number[]): Promise<void> {
  await db.deleteFrom('channel_monitors').where('channel_id', '=', channelId).execute();
  if (monitorIds.length > 0)
    await db
      .insertInto('channel_monitors')
      .values(monitorIds.map((monitor_id) => ({ channel_id: channelId, monitor_id })))
      .execute();
}

export async function insertChannel(db: Kysely<Database>, values: Insertable<NotificationChannelTable>): Promise<ChannelRow> {
  return db.insertInto('notification_channels').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateChannel(
  db: Kysely<Database>,
  id: number,
  values: { name: string; settings: string; credentials: string; events: string | null; all_monitors: number; default_for_new: number; updated_at: string },
): Promise<ChannelRow> {
  return db.updateTable('notification_channels').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteChannel(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('notification_channels').where('id', '=', id).execute();
}

/** A delivery to the channel went through: it is no longer failing nor backed off. */
export async function markChannelSent(db: Kysely<Database>, id: number, at: string): Promise<void> {
  await db.updateTable('notification_channels').set({ failures: 0, last_sent_at: at, backoff_until: null }).where('id', '=', id).execute();
}

/** A delivery to the channel failed: one more failure in a row, and the backoff `backoffOf` gives for that count. */
export async function markChannelFailed(
  db: Kysely<Database>,
  id: number,
  failure: { error: string; at: string; backoffOf: (failures: number) => string | null },
): Promise<void> {
  await writeTransaction(db, async (trx) => {
    const row = await trx.selectFrom('notification_channels').select('failures').where('id', '=', id).executeTakeFirst();
    if (!row) return; // deleted meanwhile
    const failures = row.failures + 1;
    await trx
      .updateTable('notification_channels')
      .set({ failures, last_error: failure.error, last_failed_at: failure.at, backoff_until: failure.backoffOf(failures) })
      .where('id', '=', id)
      .execute();
  });
}
