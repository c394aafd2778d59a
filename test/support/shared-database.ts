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

export interface SlotCount {
  /** Slots of a monitor in the window with two checks or more, counted once per extra check. */
  duplicates: number;
  /** Slots of a monitor in the window without a check. */
  missed: number;
  /** The monitors that missed a slot, with the time of each slot missed. */
  misses: Map<number, number[]>;
}

/**
 * Counts the stored checks of 30 s monitors (`ids`) in each of their slots that fall in
 * [from, to): a check belongs to the slot it started in (the scheduler starts it at the slot,
 * later only by its lag, far less than a period).
 */
export async function countSlots(url: string, ids: number[], from: number, to: number): Promise<SlotCount> {
  const period = PERIOD_MS['30s'];
  const rows = await queryPostgres<{ monitor_id: string; started_at: string }>(
    url,
    'select monitor_id, started_at from check_results where monitor_id = any($1) and started_at >= $2 and started_at < $3',
    ids,
    from,
    to + period,
  );
  const slotOf = (id: number, at: number) => {
    const offset = offsetOf(id, period);
    return Math.floor((at - offset) / period) * period + offset;
  };
  const seen = new Map<string, number>();
  for (const row of rows) {
    const id = Number(row.monitor_id);
    const key = `${id}:${slotOf(id, Number(row.started_at))}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const result: SlotCount = { duplicates: 0, missed: 0, misses: new Map() };
  for (const id of ids) {
    const offset = offsetOf(id, period);
    for (let slot = Math.ceil((from - offset) / period) * period + offset; slot < to; slot += period) {
      const checks = seen.get(`${id}:${slot}`) ?? 0;
      if (checks > 1) result.duplicates += checks - 1;
      if (checks === 0) {
        result.missed++;
        result.misses.set(id, [...(result.misses.get(id) ?? []), slot]);
      }
    }
  }
  return result;
}
