import type SQLite from 'better-sqlite3';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { isPostgres } from '../../db/engine.ts';
import { type Db, withSqlite } from '../../db/open.ts';
import type { CheckResultRow, Database } from '../../db/schema.ts';
import type { CheckOutcome } from './check-results.ts';
import type { MonitorType } from './monitor-rules.ts';

/** A monitor's state as the overview shows it: its checks' worst outcome, or why there is none. */
export const monitorStates = ['up', 'degraded', 'down', 'pending', 'paused'] as const;
export type MonitorState = (typeof monitorStates)[number];

const DAY_MS = 86_400_000;

export interface OverviewFilter {
  /** Already folded (see fold): matched as a substring of the folded name, target and tags. */
  q?: string;
  state?: MonitorState;
  type?: MonitorType;
  /** One tag, exactly. */
  tag?: string;
  /** Only these monitors (a picker's chosen ones); none when empty. */
  ids?: readonly number[];
}

export interface OverviewRowData {
  id: number;
  name: string;
  type: MonitorType;
  target: string;
  tags: string;
  group_name: string;
  state: MonitorState;
  changed_at: number | null;
  created_at: string;
}

/**
 * Case folding for names, targets and tags, as the overview compares and orders them. SQLite's own
 * lower() and LIKE fold ASCII letters only, as does PostgreSQL's lower() in the C collation; this
 * folds every script the way JavaScript does.
 */
export const fold = (text: string) => text.toLowerCase();
const FOLD_FUNCTION = 'statusdesk_fold';
const withFold = new WeakSet<SQLite.Database>();

/** Makes fold callable from SQL on the database's connection, once. PostgreSQL folds by itself (see words). */
export async function registerFold(db: Db): Promise<void> {
  if (isPostgres(db)) return;
  return withSqlite(db, (sqlite) => {
    if (withFold.has(sqlite)) return;
    sqlite.function(FOLD_FUNCTION, { deterministic: true }, (text: unknown) => (typeof text === 'string' ? fold(text) : text));
    withFold.add(sqlite);
  });
}

/** The overview's SQL that differs between the engines. */
interface OverviewWords {
  /**
   * `expression` folded: by lower() when it is printable ASCII (the same result, without a call
   * into JavaScript on SQLite, which costs more than the rest of the query at 10,000 monitors), by
   * fold otherwise. `expression` must be a column or cheap: it is written twice.
   */
  folded(expression: RawBuilder<unknown>): RawBuilder<string>;
  /** Whether `text` holds `part`. */
  contains(text: RawBuilder<unknown>, part: string): RawBuilder<boolean>;
  /** The tags of monitor `m` as rows of one column, `t.value`. */
  tags: RawBuilder<unknown>;
  /** What the monitor checks: its type's target field (types/: `uri`, `url`, `server`, a heartbeat's `schedule`). */
  target: RawBuilder<string>;
  /** `expression` compared by code points, as JavaScript's `<` compares (SQLite's text already is). */
  exact(expression: RawBuilder<unknown>): RawBuilder<string>;
}

const sqliteWords: OverviewWords = {
  folded: (expression) => sql`(case when ${expression} glob '*[^ -~]*' then ${sql.raw(FOLD_FUNCTION)}(${expression}) else lower(${expression}) end)`,
  contains: (text, part) => sql`instr(${text}, ${part}) > 0`,
  tags: sql`json_each(m.tags) t`,
  target: sql`coalesce(m.settings ->> '$.uri', m.settings ->> '$.url', m.settings ->> '$.server', m.settings ->> '$.schedule', '')`,
  exact: (expression) => sql`${expression}`,
};

/**
 * ICU's root locale folds as JavaScript does; the result is put back in the C collation, so it
 * orders by code points as SQLite orders by bytes.
 */
const postgresWords: OverviewWords = {
  folded: (expression) => sql`(case when ${expression} ~ '[^ -~]' then lower(${expression} collate "und-x-icu") collate "C" else lower(${expression}) end)`,
  contains: (text, part) => sql`strpos(${text}, ${part}) > 0`,
  tags: sql`jsonb_array_elements_text(m.tags::jsonb) t(value)`,
  target: sql`coalesce(m.settings::jsonb ->> 'uri', m.settings::jsonb ->> 'url', m.settings::jsonb ->> 'server', m.settings::jsonb ->> 'schedule', '')`,
  exact: (expression) => sql`(${expression} collate "C")`,
};

const wordsOf = (db: Kysely<Database>) => (isPostgres(db) ? postgresWords : sqliteWords);

const state = sql<MonitorState>`case when m.active = 0 then 'paused' else coalesce(s.state, 'pending') end`;
/** The overview's order of states: what needs attention first. */
const rank = sql<number>`case when m.active = 0 then 4 else case s.state when 'down' then 0 when 'degraded' then 1 when 'up' then 3 else 2 end end`;

function monitorsWithState(db: Kysely<Database>, workspaceId: number) {
  return db.selectFrom('monitors as m').leftJoin('monitor_state as s', 's.monitor_id', 'm.id').where('m.workspace_id', '=', workspaceId);
}

function filtered(db: Kysely<Database>, workspaceId: number, filter: OverviewFilter) {
  const { folded, contains, tags, target } = wordsOf(db);
  let query = monitorsWithState(db, workspaceId);
  if (filter.type !== undefined) query = query.where('m.type', '=', filter.type);
  if (filter.state !== undefined) query = query.where(sql<boolean>`${state} = ${filter.state}`);
  if (filter.tag !== undefined) query = query.where(sql<boolean>`exists (select 1 from ${tags} where t.value = ${filter.tag})`);
  if (filter.ids !== undefined) query = filter.ids.length === 0 ? query.where(sql<boolean>`1 = 0`) : query.where('m.id', 'in', filter.ids);
  if (filter.q !== undefined) {
    const q = filter.q;
    query = query.where(
      sql<boolean>`(${contains(folded(sql`m.name`), q)} or ${contains(folded(target), q)}
        or exists (select 1 from ${tags} where ${contains(folded(sql`t.value`), q)}))`,
    );
  }
  return query;
}

/**
 * The overview grouped: rows come group by group (see groupSummaries for the order), and the
 * members of the `collapsed` groups ('' is no group) are left out.
 */
export interface Grouping {
  collapsed: readonly string[];
}

/** Monitors in no group come after every group. */
const inNoGroup = sql<number>`case when m.group_name = '' then 1 else 0 end`;

/**
 * One page of the monitors that match, in the overview's order (grouped: group by group), and how
 * many match in all. The filter runs once: the page's ids and the count come from one pass (a
 * second only for a page past the end), and the page's rows are read by id.
 */
export async function overviewPage(
  db: Kysely<Database>,
  workspaceId: number,
  filter: OverviewFilter,
  limit: number,
  offset: number,
  grouping?: Grouping,
): Promise<{ rows: OverviewRowData[]; total: number }> {
  const { folded, exact } = wordsOf(db);
  const matching = () => {
    const query = filtered(db, workspaceId, filter);
    return grouping && grouping.collapsed.length > 0 ? query.where('m.group_name', 'not in', grouping.collapsed) : query;
  };
  let ordered = matching().select(['m.id', sql<number>`count(*) over ()`.as('total')]);
  // A group's place is its worst member's rank, as groupSummaries orders them.
  if (grouping)
    ordered = ordered
      .orderBy(inNoGroup)
      .orderBy(sql`min(${rank}) over (partition by m.group_name)`)
      .orderBy(folded(sql`m.group_name`))
      .orderBy(exact(sql`m.group_name`));
  const page = await ordered.orderBy(rank).orderBy(folded(sql`m.name`)).orderBy('m.id').limit(limit).offset(offset).execute();
  if (page.length === 0) {
    const total =
      offset === 0
        ? 0
        : Number(
            (
              await matching()
                .select((eb) => eb.fn.countAll<number>().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          );
    return { rows: [], total };
  }
  const found = await monitorsWithState(db, workspaceId)
    .select(['m.id', 'm.name', 'm.type', 'm.tags', 'm.group_name', wordsOf(db).target.as('target'), state.as('state'), 's.changed_at', 'm.created_at'])
    .where(
      'm.id',
      'in',
      page.map((p) => p.id),
    )
    .execute();
  const byId = new Map(found.map((row) => [row.id, row]));
  // A monitor deleted between the two reads drops out of the page.
  return { rows: page.flatMap((p) => byId.get(p.id) ?? []), total: page[0]!.total };
}

/**
 * The monitors of the workspace the filter matches (every one when it is empty), in id order,
 * at most `limit`: what a bulk action works on, with what it needs to know of each.
 */
export async function matchingMonitors(
  db: Kysely<Database>,
  workspaceId: number,
  filter: OverviewFilter,
  limit: number,
): Promise<{ id: number; type: MonitorType; active: number; tags: string; group_name: string }[]> {
  return filtered(db, workspaceId, filter).select(['m.id', 'm.type', 'm.active', 'm.tags', 'm.group_name']).orderBy('m.id').limit(limit).execute();
}

/** How many of the workspace's monitors are in each state. */
export async function stateCounts(db: Kysely<Database>, workspaceId: number): Promise<Record<MonitorState, number>> {
  const rows = await monitorsWithState(db, workspaceId)
    .select([state.as('state'), (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy(sql`1`)
    .execute();
  const counts = Object.fromEntries(monitorStates.map((s) => [s, 0])) as Record<MonitorState, number>;
  for (const row of rows) counts[row.state] = Number(row.n);
  return counts;
}

/** A group of the monitors that match: how many, in each state, and its worst member's state. */
export interface GroupSummary {
  name: string;
  total: number;
  state: MonitorState;
  counts: Record<MonitorState, number>;
}

/** The states from worst to best, as the overview ranks them (`rank`). */
const WORST_FIRST: readonly MonitorState[] = ['down', 'degraded', 'pending', 'up', 'paused'];

/**
 * The groups of the monitors the filter matches, in the grouped overview's order: the group with
 * the worst member first, then by name (case-insensitively, then exactly); monitors in no group
 * last, as the group ''.
 */
export async function groupSummaries(db: Kysely<Database>, workspaceId: number, filter: OverviewFilter): Promise<GroupSummary[]> {
  const rows = await filtered(db, workspaceId, filter)
    .select(['m.group_name', state.as('state'), (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy([sql`1`, sql`2`])
    .execute();
  const groups = new Map<string, GroupSummary>();
  for (const row of rows) {
    let group = groups.get(row.group_name);
    if (!group) {
      group = { name: row.group_name, total: 0, state: 'paused', counts: Object.fromEntries(monitorStates.map((s) => [s, 0])) as Record<MonitorState, number> };
      groups.set(row.group_name, group);
    }
    group.counts[row.state] += Number(row.n);
    group.total += Number(row.n);
  }
  for (const group of groups.values()) group.state = WORST_FIRST.find((s) => group.counts[s] > 0) ?? 'paused';
  const rankOf = (group: GroupSummary) => WORST_FIRST.indexOf(group.state);
  return [...groups.values()].sort(
    (a, b) => Number(a.name === '') - Number(b.name === '') || rankOf(a) - rankOf(b) || compare(fold(a.name), fold(b.name)) || compare(a.name, b.name),
  );
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Every group used in the workspace, once, ordered case-insensitively. */
export async function workspaceGroups(db: Kysely<Database>, workspaceId: number): Promise<string[]> {
  const { folded, exact } = wordsOf(db);
  const rows = await sql<{ name: string }>`select name from (select distinct m.group_name as name from monitors m
    where m.workspace_id = ${workspaceId} and m.group_name <> '') used order by ${folded(sql`name`)}, ${exact(sql`name`)}`.execute(db);
  return rows.rows.map((r) => r.name);
}

/** Every tag used in the workspace, once, ordered case-insensitively. */
export async function workspaceTags(db: Kysely<Database>, workspaceId: number): Promise<string[]> {
  const { folded, tags } = wordsOf(db);
  const rows = await sql<{ tag: string }>`select tag from (select distinct t.value as tag from monitors m, ${tags}
    where m.workspace_id = ${workspaceId}) used order by ${folded(sql`tag`)}, tag`.execute(db);
  return rows.rows.map((r) => r.tag);
}

/** Each runner's latest check of these monitors. */
export async function latestChecks(db: Kysely<Database>, monitorIds: number[]) {
  if (monitorIds.length === 0) return [];
  return db
    .selectFrom('check_state')
    .select(['monitor_id', 'runner', 'result', 'regions', 'checked_at', 'latency_ms'])
    .where('monitor_id', 'in', monitorIds)
    .execute();
}

/**
 * The latest `count` checks of each of these monitors (a few more where checks share a start),
 * in no order: outcome, start and message. Each monitor's oldest start to read is found first, by
 * stepping `count` entries down its index, so the read is `count` index entries a monitor however
 * long its history is; a window function over the monitors' results would read all of them.
 */
export async function recentOutcomes(
  db: Kysely<Database>,
  monitorIds: number[],
  count: number,
): Promise<{ monitor_id: number; id: number; result: CheckOutcome; started_at: number; message: string }[]> {
  if (monitorIds.length === 0) return [];
  const { rows } = await sql<{ monitor_id: number; id: number; result: CheckOutcome; started_at: number; message: string }>`
    select r.monitor_id, r.id, r.result, r.started_at, r.message
    from (
      select m.id as monitor_id,
        coalesce((select r2.started_at from check_results r2 where r2.monitor_id = m.id order by r2.started_at desc limit 1 offset ${count - 1}), 0) as since
      from monitors m where m.id in (${sql.join(monitorIds)})
    ) c
    join check_results r on r.monitor_id = c.monitor_id and r.started_at >= c.since`.execute(db);
  return rows.map((row) => ({ ...row, monitor_id: Number(row.monitor_id), id: Number(row.id), started_at: Number(row.started_at) }));
}

/** When each of these monitors was created (ISO 8601), by id. */
export async function monitorsCreatedAt(db: Kysely<Database>, monitorIds: number[]): Promise<Map<number, string>> {
  if (monitorIds.length === 0) return new Map();
  const rows = await db.selectFrom('monitors').select(['id', 'created_at']).where('id', 'in', monitorIds).execute();
  return new Map(rows.map((row) => [row.id, new Date(row.created_at).toISOString()]));
}

/** Those of these monitors whose latest check by some runner failed. */
export async function downMonitorIds(db: Kysely<Database>, monitorIds: number[]): Promise<number[]> {
  const rows = await db.selectFrom('check_state').select('monitor_id').distinct().where('result', '=', 'down').where('monitor_id', 'in', monitorIds).execute();
  return rows.map((row) => row.monitor_id);
}

/** The hourly rollups of these monitors in [fromHour, toHour). */
export async function rollups(db: Kysely<Database>, monitorIds: number[], fromHour: number, toHour: number) {
  if (monitorIds.length === 0) return [];
  return db
    .selectFrom('check_rollups')
    .select(['monitor_id', 'hour', 'success_count', 'degraded_count', 'error_count', 'latency'])
    .where('monitor_id', 'in', monitorIds)
    .where('hour', '>=', fromHour)
    .where('hour', '<', toHour)
    .execute();
}

/** The outcomes of these monitors summed per UTC day (`day` counts days since the epoch) from `fromHour`. */
export async function dailyOutcomes(db: Kysely<Database>, monitorIds: number[], fromHour: number) {
  if (monitorIds.length === 0) return [];
  return db
    .selectFrom('check_rollups')
    .select((eb) => [
      'monitor_id',
      eb.fn.sum<number>('success_count').as('up'),
      eb.fn.sum<number>('degraded_count').as('degraded'),
      eb.fn.sum<number>('error_count').as('down'),
      eb.cast<number>(eb('hour', '/', DAY_MS), 'integer').as('day'),
    ])
    .where('monitor_id', 'in', monitorIds)
    .where('hour', '>=', fromHour)
    .groupBy(['monitor_id', 'day'])
    .execute();
}

/** The raw results of one monitor in [from, to): outcome, latency and time only. */
export async function rawOutcomes(
  db: Kysely<Database>,
  monitorId: number,
  from: number,
  to: number,
): Promise<{ result: CheckOutcome; latency_ms: number; started_at: number }[]> {
  return db
    .selectFrom('check_results')
    .select(['result', 'latency_ms', 'started_at'])
    .where('monitor_id', '=', monitorId)
    .where('started_at', '>=', from)
    .where('started_at', '<', to)
    .execute();
}

/** The latest `limit` results of one monitor, newest first. */
export async function latestResults(db: Kysely<Database>, monitorId: number, limit: number): Promise<CheckResultRow[]> {
  return db
    .selectFrom('check_results')
    .selectAll()
    .where('monitor_id', '=', monitorId)
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Spans in which no check ran that end at or after `from`, oldest first. */
export async function gapsSince(db: Kysely<Database>, from: number) {
  return db.selectFrom('check_gaps').select(['started_at', 'ended_at']).where('ended_at', '>=', from).orderBy('started_at').execute();
}

/** The monitor's regions, or undefined when it is not one of the workspace's. */
export async function monitorRegions(db: Kysely<Database>, workspaceId: number, monitorId: number): Promise<string[] | undefined> {
  const row = await db.selectFrom('monitors').select('regions').where('workspace_id', '=', workspaceId).where('id', '=', monitorId).executeTakeFirst();
  return row && (JSON.parse(row.regions) as string[]);
}
