import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../db/engine.ts';
import type { Database } from '../db/schema.ts';
import { writeTransaction } from '../db/transaction.ts';
import { redactSecrets, splitSecrets } from './monitors/monitor-secrets.ts';
import { webhookFingerprint } from './notifications/subscribers.ts';
import type { Sealer } from './sealing.ts';

/**
 * Seals what earlier versions stored in the clear. Migration 0006 cannot (migrations never read
 * the key file), so it leaves one row per step in `pending_sealing`, and the service runs this at
 * start: each step seals its rows and deletes its row in the same transaction, so it runs once,
 * and a step interrupted halfway is simply run again at the next start (every step skips rows
 * already sealed). Returns the number of rows changed.
 *
 * - monitors: credential-like header, metadata and OTLP header values move to the sealed
 *   `secrets` column, `[redacted]` taking their place;
 * - page_subscribers: webhook URLs move to `sealed_address`, a keyed fingerprint taking their place;
 * - audit_log: monitor snapshots keep `[redacted]` instead of those values.
 *
 * SQLite keeps overwritten bytes in free space and in the WAL until they are reused, so the
 * rewrite runs with secure_delete on and ends with a checkpoint that truncates the WAL. PostgreSQL
 * has neither: its server's storage is its administrator's to keep.
 */
export async function sealStoredSecrets(db: Kysely<Database>, sealer: Sealer): Promise<number> {
  const pending = new Set((await db.selectFrom('pending_sealing').select('step').execute()).map((r) => r.step));
  if (pending.size === 0) return 0;
  let changed = 0;
  const sqlite = !isPostgres(db);
  if (sqlite) await sql`pragma secure_delete = on`.execute(db);
  try {
    await writeTransaction(db, async (trx) => {
      if (pending.has('monitors')) {
        const rows = await trx.selectFrom('monitors').select(['id', 'settings', 'open_telemetry']).where('secrets', 'is', null).execute();
        for (const row of rows) {
          const config = { ...JSON.parse(row.settings), openTelemetry: row.open_telemetry === null ? null : JSON.parse(row.open_telemetry) };
          const { clear, secrets } = splitSecrets(config);
          if (!secrets) continue;
          const { openTelemetry, ...settings } = clear;
          await trx
            .updateTable('monitors')
            .set({ settings: JSON.stringify(settings), open_telemetry: openTelemetry && JSON.stringify(openTelemetry), secrets: sealer.seal(secrets) })
            .where('id', '=', row.id)
            .execute();
          changed++;
        }
      }
      if (pending.has('page_subscribers')) {
        const rows = await trx
          .selectFrom('page_subscribers')
          .select(['id', 'address'])
          .where('kind', '=', 'webhook')
          .where('sealed_address', 'is', null)
          .execute();
        for (const row of rows) {
          await trx
            .updateTable('page_subscribers')
            .set({ address: webhookFingerprint(sealer, row.address), sealed_address: sealer.seal(row.address) })
            .where('id', '=', row.id)
            .execute();
          changed++;
        }
      }
      if (pending.has('audit_log')) {
        const rows = await trx.selectFrom('audit_log').select(['id', 'before', 'after']).where('entity_type', '=', 'monitor').execute();
        const redacted = (json: string | null) => {
          if (json === null) return null;
          const snapshot = JSON.parse(json);
          if (snapshot.openTelemetry !== undefined) return JSON.stringify(redactSecrets(snapshot));
          const { openTelemetry: _none, ...rest } = redactSecrets({ ...snapshot, openTelemetry: null });
          return JSON.stringify(rest);
        };
        for (const row of rows) {
          const before = redacted(row.before);
          const after = redacted(row.after);
          if (before === row.before && after === row.after) continue;
          await trx.updateTable('audit_log').set({ before, after }).where('id', '=', row.id).execute();
          changed++;
        }
      }
      await trx
        .deleteFrom('pending_sealing')
        .where('step', 'in', [...pending])
        .execute();
    });
  } finally {
    if (sqlite) await sql`pragma secure_delete = off`.execute(db);
  }
  if (sqlite && changed > 0) await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
  return changed;
}
