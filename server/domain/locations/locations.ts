import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database, PrivateLocationRow } from '../../db/schema.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { regions as regionCatalogue } from '../regions.ts';
import { parseInput } from '../validation.ts';
import { listLocationRows } from './location-repository.ts';

/**
 * Private locations (SPEC 2.10): the runners that execute checks. Every workspace on this
 * machine is served by the same runners, so each workspace sees them all. Agent tokens are
 * stored hashed and never leave the repository.
 */

const MAX_PER_PAGE = 100;
/** A runner not heard from for this long is reported in error: it is not checking. */
export const RUNNER_SILENCE_MS = 60_000;

export interface PrivateLocation {
  id: string;
  name: string;
  status: 'active' | 'error';
  metadata: Record<string, string>;
  /** Regions the runner serves. */
  regions: string[];
  lastSeenAt: string | null;
  createdAt: string;
}

const pageInput = z.strictObject({
  page: z.number().int().min(1, 'must be 1 or more').default(1),
  perPage: z.number().int().min(1, `must be 1 to ${MAX_PER_PAGE}`).max(MAX_PER_PAGE, `must be 1 to ${MAX_PER_PAGE}`).default(MAX_PER_PAGE),
});

function toLocation(row: PrivateLocationRow, now: number): PrivateLocation {
  const silent = row.last_seen_at === null || now - Date.parse(row.last_seen_at) > RUNNER_SILENCE_MS;
  return {
    id: String(row.id),
    name: row.name,
    status: silent ? 'error' : row.status,
    metadata: JSON.parse(row.metadata),
    regions: row.regions === null ? regionCatalogue.map((r) => r.id) : JSON.parse(row.regions),
    lastSeenAt: row.last_seen_at,
    createdAt: row.created_at,
  };
}

export function createLocationService(db: Kysely<Database>, now: () => number = Date.now) {
  return {
    async list(actor: Actor, workspaceId: number, page: { page?: number; perPage?: number } = {}) {
      await authorize(db, actor, workspaceId, 'read');
      const input = parseInput(pageInput, page);
      const { rows, total } = await listLocationRows(db, input.perPage, (input.page - 1) * input.perPage);
      const t = now();
      return {
        locations: rows.map((row) => toLocation(row, t)),
        pagination: { page: input.page, perPage: input.perPage, totalSize: total, totalPages: Math.ceil(total / input.perPage) },
      };
    },
  };
}
