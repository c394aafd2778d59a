import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { PERIOD_MS } from '../../server/checks/check-runner.ts';
import { offsetOf } from '../../server/checks/scheduler.ts';
import { KEY_FILE } from '../../server/domain/sealing.ts';

/**
 * Service processes sharing one PostgreSQL database: what they stored and leased, read beside
 * them, and whether each monitor was checked once in each of its slots.
 */

/** The rows of `text` ($1, $2 ... placeholders) on the database at `url`. */
export async function queryPostgres<T extends pg.QueryResultRow>(url: string, text: string, ...params: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** Gives the data folder `to` the sealing key of `from`: processes sharing a database share it. */
export function shareSealingKey(from: string, to: string): void {
  copyFileSync(join(from, KEY_FILE), join(to, KEY_FILE));
}

/** How many shards of the monitors each live process holds, by holder. */
export async function shardsByHolder(url: string): Promise<number[]> {
  const rows = await queryPostgres<{ n: string }>(
    url,
    `select count(*) as n from check_leases where shard < 64 and holder is not null and expires_at > (extract(epoch from clock_timestamp()) * 1000)::bigint group by holder order by n`,
  );
  return rows.map((r) => Number(r.n));
}

/** A stored check, as the slot count reads it. */
export interface StoredStart {
  monitorId: number;
  startedAt: number;
}

/** The checks of monitors `ids` that started in [from, to) stored in the database at `url`. */
export async function checksIn(url: string, ids: number[], from: number, to: number): Promise<StoredStart[]> {
  const rows = await queryPostgres<{ monitor_id: string; started_at: string }>(
    url,
    'select monitor_id, started_at from check_results where monitor_id = any($1) and started_at >= $2 and started_at < $3',
    ids,
    from,
    to,
  );
  return rows.map((r) => ({ monitorId: Number(r.monitor_id), startedAt: Number(r.started_at) }));
}

export interface SlotCount {
  /** Slots of a monitor in the window with two checks or more, counted once per extra check. */
  duplicates: number;
  /** Slots of a monitor in the window without a check. */
  missed: number;
  /** The monitors that missed a slot, with the time of each slot missed. */
  misses: Map<number, number[]>;
  /** The checks of the window's slots. */
  checks: number;
  /** The 99th percentile of how long after its slot a check of the window started, ms. */
  lagP99: number;
}

const PERIOD = PERIOD_MS['30s'];

/**
 * Counts the checks of 30 s monitors (`ids`) in each of their slots that fall in [from, to),
 * from `checks` stored up to a period after `to`: a check belongs to the slot it started in (the
 * scheduler starts it at the slot, later only by its lag, far less than a period).
 */
export function countSlots(checks: StoredStart[], ids: number[], from: number, to: number): SlotCount {
  const seen = new Map<string, number>();
  const lags: number[] = [];
  for (const { monitorId, startedAt } of checks) {
    const offset = offsetOf(monitorId, PERIOD);
    const slot = Math.floor((startedAt - offset) / PERIOD) * PERIOD + offset;
    if (slot < from || slot >= to) continue;
    const key = `${monitorId}:${slot}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    lags.push(startedAt - slot);
  }
  lags.sort((a, b) => a - b);
  const result: SlotCount = { duplicates: 0, missed: 0, misses: new Map(), checks: lags.length, lagP99: lags[Math.floor(lags.length * 0.99)] ?? 0 };
  for (const id of ids) {
    const offset = offsetOf(id, PERIOD);
    for (let slot = Math.ceil((from - offset) / PERIOD) * PERIOD + offset; slot < to; slot += PERIOD) {
      const count = seen.get(`${id}:${slot}`) ?? 0;
      if (count > 1) result.duplicates += count - 1;
      if (count === 0) {
        result.missed++;
        result.misses.set(id, [...(result.misses.get(id) ?? []), slot]);
      }
    }
  }
  return result;
}
