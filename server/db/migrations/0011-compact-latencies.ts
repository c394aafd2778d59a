import { type Kysely, sql } from 'kysely';
import { schemaWords } from '../engine.ts';

// Migrations never import application code: they must still run, unchanged, years from now.
// The rollups' latency histograms were pairs of (bucket index int32, count uint32), little-endian,
// in no order: eight bytes a bucket. They become the buckets in ascending order, each as two
// unsigned LEB128 varints, the gap from the bucket before it less one (the first bucket's from the
// lowest, index -348) and the count: two bytes a bucket, mostly.

const LOWEST = -348;
const ROWS_A_BATCH = 2_000;

type Row = { monitor_id: number; hour: number; latency: Uint8Array };

export async function up(db: Kysely<unknown>): Promise<void> {
  const t = schemaWords(db);
  let after: Row | undefined;
  for (;;) {
    const { rows } = await sql<Row>`select monitor_id, hour, latency from check_rollups
      ${after ? sql`where (monitor_id, hour) > (${after.monitor_id}, ${after.hour})` : sql``}
      order by monitor_id, hour limit ${ROWS_A_BATCH}`.execute(db);
    if (rows.length === 0) return;
    // One statement a batch; each value cast, for PostgreSQL to know its type.
    const values = rows.map(
      (row) => sql`(cast(${row.monitor_id} as ${t.integer}), cast(${row.hour} as ${t.integer}), cast(${compact(row.latency)} as ${t.blob}))`,
    );
    await sql`update check_rollups set latency = v.column3 from (values ${sql.join(values)}) as v
      where check_rollups.monitor_id = v.column1 and check_rollups.hour = v.column2`.execute(db);
    after = rows.at(-1);
  }
}

function compact(pairs: Uint8Array): Buffer {
  const view = new DataView(pairs.buffer, pairs.byteOffset, pairs.byteLength);
  const counts = new Map<number, number>();
  for (let at = 0; at + 8 <= pairs.byteLength; at += 8) {
    const index = view.getInt32(at, true);
    counts.set(index, (counts.get(index) ?? 0) + view.getUint32(at + 4, true));
  }
  // Up to five bytes a varint.
  const bytes = Buffer.allocUnsafe(counts.size * 10);
  let length = 0;
  const varint = (value: number) => {
    for (; value >= 0x80; value = Math.floor(value / 128)) bytes[length++] = (value % 128) | 0x80;
    bytes[length++] = value;
  };
  let previous = LOWEST - 1;
  for (const index of [...counts.keys()].sort((a, b) => a - b)) {
    varint(index - previous - 1);
    varint(counts.get(index)!);
    previous = index;
  }
  return bytes.subarray(0, length);
}
