import { type Kysely, sql } from 'kysely';
import { schemaWords } from '../engine.ts';

/** The shards monitors are spread over (`id % 64`), fixed once created, and one row more: the upkeep. */
const ROWS = 65;

// Migrations never import application code: they must still run, unchanged, years from now.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  // Which service process checks the monitors of each shard, until when (epoch ms): processes
  // sharing one database share the monitors, each checked by one of them. Holder null: free. The
  // last row names the process that does the upkeep of the instance.
  await sql`create table check_leases (
    shard ${t.integer} primary key,
    holder text,
    expires_at ${t.integer} not null default 0
  )${t.withoutRowid}`.execute(db);
  const shards = Array.from({ length: ROWS }, (_, shard) => sql`(${shard})`);
  await sql`insert into check_leases (shard) values ${sql.join(shards)}`.execute(db);
  // The processes that check monitors, until when each is known to live: a fair share is the
  // shards over their number, so one that holds none yet is counted too.
  await sql`create table check_lease_holders (
    holder text primary key,
    expires_at ${t.integer} not null
  )${t.withoutRowid}`.execute(db);
}
