import type { Kysely } from 'kysely';
import { z } from 'zod';
import { LOCATION_LIMITS } from '../../../contract/limits.ts';
import type { Database, PrivateLocationRow } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { recordAudit, recordUpdate, updateTransaction } from '../audit/audit.ts';
import { isRegion } from '../regions.ts';
import { hashSecret, newSecret, RUNNER_TOKEN_LOOKUP_LENGTH, RUNNER_TOKEN_PREFIX } from '../secrets.ts';
import { builtOnFirstUse, expected, invalid, pageQuery, paginationOf, parseId, parseInput } from '../validation.ts';
import {
  deleteLocation,
  EMBEDDED_RUNNER,
  findLocationRow,
  insertLocation,
  listLocationRows,
  renameRunnerState,
  updateLocation,
} from './location-repository.ts';

/**
 * Private locations (SPEC 2.10): the runners that execute checks. The embedded runner `local`
 * serves every workspace and is listed to each, first; a remote location belongs to one
 * workspace and is served by a runner holding its agent token. Tokens are returned once, when
 * issued, and stored only as a hash and a lookup prefix.
 */

const MAX_PER_PAGE = 100;
/** A runner not heard from for this long is reported in error: it is not checking. */
export const RUNNER_SILENCE_MS = 60_000;

export interface PrivateLocation {
  id: string;
  name: string;
  status: 'active' | 'error';
  metadata: Record<string, string>;
  lastSeenAt: string | null;
  createdAt: string;
  /** True for the embedded runner `local`, which serves every region and has no token. */
  embedded: boolean;
  /** What its runner said of itself when it last connected; null if it never did. */
  runnerVersion: string | null;
  runnerHostname: string | null;
  /** Results its runner dropped from its full buffer, as last reported. */
  droppedResults: number;
}

const NAME_RULE = 'must be lower-case letters, digits and hyphens, starting with a letter';
const { nameLength, labels, labelNameLength, labelValueLength } = LOCATION_LIMITS;
const NAME_LENGTH_RULE = `must be ${nameLength.min} to ${nameLength.max} characters`;
const name = builtOnFirstUse(() =>
  z
    .string(expected('a name'))
    .min(nameLength.min, NAME_LENGTH_RULE)
    .max(nameLength.max, NAME_LENGTH_RULE)
    .regex(/^[a-z][a-z0-9-]*$/, NAME_RULE)
    .refine((value) => value !== EMBEDDED_RUNNER, `must not be ${EMBEDDED_RUNNER}, the name of the embedded runner`)
    .refine((value) => !isRegion(value), 'must not be a region id of the catalogue'),
);
const metadata = builtOnFirstUse(() =>
  z
    .record(
      z
        .string()
        .min(1, `a metadata name must be 1 to ${labelNameLength} characters`)
        .max(labelNameLength, `a metadata name must be 1 to ${labelNameLength} characters`),
      z.string(expected('a string')).max(labelValueLength, `must be at most ${labelValueLength} characters`),
      expected('an object of string values'),
    )
    .refine((entries) => Object.keys(entries).length <= labels, `must have at most ${labels} entries`),
);
const createInput = builtOnFirstUse(() => z.strictObject({ name: name(), metadata: metadata().default({}) }));
const updateInput = builtOnFirstUse(() => z.strictObject({ name: name().optional(), metadata: metadata().optional() }));
const listInput = builtOnFirstUse(() => z.strictObject(pageQuery(MAX_PER_PAGE, MAX_PER_PAGE)));

function toLocation(row: PrivateLocationRow, now: number): PrivateLocation {
  const silent = row.last_seen_at === null || now - Date.parse(row.last_seen_at) > RUNNER_SILENCE_MS;
  return {
    id: String(row.id),
    name: row.name,
    status: silent ? 'error' : row.status,
    metadata: JSON.parse(row.metadata),
    lastSeenAt: row.last_seen_at,
    createdAt: row.created_at,
    embedded: row.workspace_id === null,
    runnerVersion: row.runner_version,
    runnerHostname: row.runner_hostname,
    droppedResults: row.dropped_results,
  };
}

/** What the audit log keeps of a location: what people set, and which token is live (its lookup prefix, never the token). */
function snapshot(row: PrivateLocationRow): Record<string, unknown> {
  return { id: String(row.id), name: row.name, metadata: JSON.parse(row.metadata), tokenPrefix: row.token_prefix };
}

/** A new agent token and the columns that store it. */
function issueToken() {
  const token = newSecret(RUNNER_TOKEN_PREFIX);
  return { token, stored: { token_hash: hashSecret(token), token_prefix: token.slice(0, RUNNER_TOKEN_LOOKUP_LENGTH) } };
}

/** A duplicate name, said as the name's rule. */
function nameTaken(error: unknown, value: string): never {
  if (isUniqueViolation(error, 'private_locations.name')) {
    throw new AppError('CONFLICT', `name: a private location named "${value}" already exists; choose another`, [{ field: 'name', rule: 'must be unique' }]);
  }
  throw error;
}

export interface LocationServiceOptions {
  /** Told after a location is deleted or its token replaced has committed: its runner must stop. */
  revoked?(locationId: number): void;
  /** Told after a location is renamed or deleted has committed: the monitors' current states follow. */
  runnersChanged?(): void;
  now?: () => number;
}

export function createLocationService(db: Kysely<Database>, options: LocationServiceOptions = {}) {
  const { revoked = () => {}, runnersChanged = () => {}, now = Date.now } = options;

  /** The location if the workspace sees it; another workspace's is not found, like an unknown id. */
  async function loadRow(q: Kysely<Database>, workspaceId: number, id: string): Promise<PrivateLocationRow> {
    const row = await findLocationRow(q, parseId('id', 'private location', id));
    if (!row || (row.workspace_id !== null && row.workspace_id !== workspaceId)) throw notFound('private location', id);
    return row;
  }

  /** A remote location the workspace may change; the embedded runner is refused. */
  async function loadRemoteRow(q: Kysely<Database>, workspaceId: number, id: string, change: string): Promise<PrivateLocationRow> {
    const row = await loadRow(q, workspaceId, id);
    if (row.workspace_id === null) throw new AppError('PRECONDITION_FAILED', `the embedded runner ${row.name} cannot be ${change}: it is part of the service`);
    return row;
  }

  return {
    /** The embedded runner first, then the workspace's locations, oldest first. */
    async list(actor: Actor, workspaceId: number, query: unknown = {}) {
      await authorize(db, actor, workspaceId, 'read');
      const { page, perPage } = parseInput(listInput(), query);
      const { rows, total } = await listLocationRows(db, workspaceId, perPage, (page - 1) * perPage);
      const t = now();
      return { locations: rows.map((row) => toLocation(row, t)), pagination: paginationOf(page, perPage, total) };
    },

    async get(actor: Actor, workspaceId: number, id: string): Promise<PrivateLocation> {
      await authorize(db, actor, workspaceId, 'read');
      return toLocation(await loadRow(db, workspaceId, id), now());
    },

    /** Creates a location and issues its token, returned here only. */
    async create(actor: Actor, workspaceId: number, input: unknown): Promise<{ location: PrivateLocation; token: string }> {
      await authorize(db, actor, workspaceId, 'admin');
      const values = parseInput(createInput(), input);
      const { token, stored } = issueToken();
      const row = await writeTransaction(db, async (trx) => {
        const created = await insertLocation(trx, {
          name: values.name,
          status: 'error',
          metadata: JSON.stringify(values.metadata),
          regions: JSON.stringify([values.name]),
          workspace_id: workspaceId,
          created_at: new Date(now()).toISOString(),
          ...stored,
        }).catch((error: unknown) => nameTaken(error, values.name));
        await recordAudit(trx, {
          workspaceId,
          entityType: 'private_location',
          entityId: created.id,
          action: 'private_location.create',
          actor,
          before: null,
          after: snapshot(created),
        });
        return created;
      });
      return { location: toLocation(row, now()), token };
    },

    /**
     * Renames a location and/or replaces its metadata. A rename carries the monitors' current
     * state of its runner along; stored results keep the old name.
     */
    async update(actor: Actor, workspaceId: number, id: string, patch: unknown): Promise<PrivateLocation> {
      await authorize(db, actor, workspaceId, 'admin');
      const values = parseInput(updateInput(), patch);
      if (values.name === undefined && values.metadata === undefined) throw invalid('private location', 'names no field to change: set name or metadata');
      const { next, renamed } = await updateTransaction(db, async (trx) => {
        const current = await loadRemoteRow(trx, workspaceId, id, 'changed');
        const renamed = values.name !== undefined && values.name !== current.name;
        const next = await updateLocation(trx, current.id, {
          ...(renamed ? { name: values.name, regions: JSON.stringify([values.name]) } : {}),
          ...(values.metadata !== undefined ? { metadata: JSON.stringify(values.metadata) } : {}),
        }).catch((error: unknown) => nameTaken(error, values.name!));
        if (renamed) await renameRunnerState(trx, current.name, next.name);
        await recordUpdate(
          trx,
          {
            workspaceId,
            entityType: 'private_location',
            entityId: current.id,
            action: 'private_location.update',
            actor,
            before: snapshot(current),
            after: snapshot(next),
          },
          { next: current, renamed: false },
        );
        return { next, renamed };
      });
      if (renamed) runnersChanged();
      return toLocation(next, now());
    },

    /** Deletes a location: its token stops working, its runner is told to stop, monitors no longer choose it. */
    async delete(actor: Actor, workspaceId: number, id: string): Promise<void> {
      await authorize(db, actor, workspaceId, 'admin');
      const locationId = await writeTransaction(db, async (trx) => {
        const current = await loadRemoteRow(trx, workspaceId, id, 'deleted');
        await deleteLocation(trx, current.id);
        await recordAudit(trx, {
          workspaceId,
          entityType: 'private_location',
          entityId: current.id,
          action: 'private_location.delete',
          actor,
          before: snapshot(current),
          after: null,
        });
        return current.id;
      });
      revoked(locationId);
      runnersChanged();
    },

    /** Replaces a location's token: the old one stops working, the new one is returned here only. */
    async rotateToken(actor: Actor, workspaceId: number, id: string): Promise<{ location: PrivateLocation; token: string }> {
      await authorize(db, actor, workspaceId, 'admin');
      const { token, stored } = issueToken();
      const row = await writeTransaction(db, async (trx) => {
        const current = await loadRemoteRow(trx, workspaceId, id, 'given a token');
        const next = await updateLocation(trx, current.id, stored);
        await recordAudit(trx, {
          workspaceId,
          entityType: 'private_location',
          entityId: current.id,
          action: 'private_location.rotate_token',
          actor,
          before: snapshot(current),
          after: snapshot(next),
        });
        return next;
      });
      revoked(row.id);
      return { location: toLocation(row, now()), token };
    },
  };
}

export type LocationService = ReturnType<typeof createLocationService>;
