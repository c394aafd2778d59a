import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { KEY_LIMITS } from '../../../contract/limits.ts';
import type { ApiKeyRow, Database } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { lastUsedRecorder } from '../last-used.ts';
import { AppError, notFound } from '../../errors.ts';
import { type Actor, isCredential, type Scope, scopes, type Surface } from '../actor.ts';
import { authorize } from '../access.ts';
import { recordAudit } from '../audit/audit.ts';
import { ACCESS_TOKEN_PREFIX, hashSecret, KEY_PREFIX, newSecret, REFRESH_TOKEN_PREFIX } from '../secrets.ts';
import { builtOnFirstUse, oneLine, parseId, parseInput } from '../validation.ts';
import { findKeyRow, insertKey, listKeyRows, liveKeyLookup, markKeyRevoked, markKeyUsed } from './key-repository.ts';

const isOAuthToken = (secret: string) => secret.startsWith(ACCESS_TOKEN_PREFIX) || secret.startsWith(REFRESH_TOKEN_PREFIX);

/** `svc_` and eight characters of the random part: enough to tell keys apart, useless to an attacker. */
const LOOKUP_PREFIX_LENGTH = 12;

export interface ApiKey {
  id: string;
  workspaceId: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  /** True for a key created before scopes existed; it acts as write. */
  legacy: boolean;
  createdByUserId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const createKeyInput = builtOnFirstUse(() =>
  z.object({
    workspaceId: z.number().int().positive(),
    name: oneLine(z.string().trim().min(1, 'must not be empty').max(KEY_LIMITS.nameLength, `must be at most ${KEY_LIMITS.nameLength} characters`)),
    scope: z.enum(scopes, { error: 'must be read or write' }),
  }),
);

function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: String(row.id),
    workspaceId: String(row.workspace_id),
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes === null ? ['write'] : (JSON.parse(row.scopes) as Scope[]),
    legacy: row.scopes === null,
    createdByUserId: row.created_by_user_id === null ? null : String(row.created_by_user_id),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** What the audit log keeps of a key: everything but last use, which is not a change. */
function snapshot(key: ApiKey): Record<string, unknown> {
  const { lastUsedAt: _lastUsedAt, ...rest } = key;
  return rest;
}

/** Revokes a key in the caller's transaction, audited; a revoked key stays as it is, with no entry. */
async function revokeKeyRow(trx: Kysely<Database>, current: ApiKeyRow, actor: Actor): Promise<ApiKey> {
  if (current.revoked_at) return toApiKey(current);
  const updated = await markKeyRevoked(trx, current.id, new Date().toISOString());
  await recordAudit(trx, {
    workspaceId: current.workspace_id,
    entityType: 'api_key',
    entityId: current.id,
    action: 'api_key.revoke',
    actor,
    before: snapshot(toApiKey(current)),
    after: snapshot(toApiKey(updated)),
  });
  return toApiKey(updated);
}

/** Revokes the key `keyId` in the caller's transaction (a member removed takes their keys along). */
export async function revokeKeyById(trx: Kysely<Database>, keyId: number, actor: Actor): Promise<void> {
  const row = await findKeyRow(trx, keyId);
  if (row) await revokeKeyRow(trx, row, actor);
}

function generateKeySecret(): string {
  for (;;) {
    const secret = newSecret(KEY_PREFIX);
    if (!isOAuthToken(secret)) return secret;
  }
}

export function createKeyService(db: Kysely<Database>) {
  const touch = lastUsedRecorder((id, at) => markKeyUsed(db, id, at));
  const liveKeyRowsByPrefix = liveKeyLookup(db);

  async function findKey(q: Kysely<Database>, actor: Actor, keyId: string): Promise<ApiKeyRow> {
    const row = await findKeyRow(q, parseId('keyId', 'API key', keyId));
    const visible = row && (!isCredential(actor) || row.workspace_id === actor.workspaceId);
    if (!row || !visible) throw notFound('API key', keyId);
    return row;
  }

  return {
    /**
     * Issues a key. Only people at the owner's local tools (dashboard, CLI) issue keys; the
     * secret is returned here once and stored only as a hash.
     */
    async create(actor: Actor, input: z.input<typeof createKeyInput>): Promise<{ key: ApiKey; secret: string }> {
      if (isCredential(actor)) {
        throw new AppError('FORBIDDEN', 'API keys are created only in the dashboard or with the statusdesk CLI');
      }
      const values = parseInput(createKeyInput(), input);
      await authorize(db, actor, values.workspaceId, 'admin');
      const secret = generateKeySecret();
      return writeTransaction(db, async (trx) => {
        const row = await insertKey(trx, {
          workspace_id: values.workspaceId,
          name: values.name,
          prefix: secret.slice(0, LOOKUP_PREFIX_LENGTH),
          secret_hash: hashSecret(secret),
          scopes: JSON.stringify([values.scope]),
          created_by_user_id: actor.type === 'user' ? actor.userId : null,
          created_at: new Date().toISOString(),
        });
        const key = toApiKey(row);
        await recordAudit(trx, {
          workspaceId: row.workspace_id,
          entityType: 'api_key',
          entityId: row.id,
          action: 'api_key.create',
          actor,
          before: null,
          after: snapshot(key),
        });
        return { key, secret };
      });
    },

    async list(actor: Actor, workspaceId: number): Promise<ApiKey[]> {
      await authorize(db, actor, workspaceId, 'read');
      return (await listKeyRows(db, workspaceId)).map(toApiKey);
    },

    /**
     * Revokes a key. A read-only key may revoke itself and nothing else (SPEC 2.2); revoking a
     * revoked key changes nothing and writes no audit entry.
     */
    async revoke(actor: Actor, keyId: string): Promise<ApiKey> {
      return writeTransaction(db, async (trx) => {
        const current = await findKey(trx, actor, keyId);
        if (actor.type === 'apiKey' && actor.keyId !== String(current.id) && !actor.scopes.includes('write')) {
          throw new AppError('FORBIDDEN', 'a read-only API key may revoke only itself');
        }
        if (actor.type === 'oauth') throw new AppError('FORBIDDEN', 'API keys are revoked only in the dashboard or with the statusdesk CLI');
        if (actor.type === 'user') await authorize(trx, actor, current.workspace_id, 'admin');
        return revokeKeyRow(trx, current, actor);
      });
    },

    /**
     * Resolves an `x-service-key` secret to its actor, or undefined when the secret is not a live
     * key (unknown, malformed or revoked): the edge answers 401 either way.
     */
    async authenticate(secret: string, surface: Surface): Promise<Extract<Actor, { type: 'apiKey' }> | undefined> {
      if (!secret.startsWith(KEY_PREFIX) || isOAuthToken(secret) || secret.length > 200) return undefined;
      const hash = Buffer.from(hashSecret(secret));
      const candidates = await liveKeyRowsByPrefix(secret.slice(0, LOOKUP_PREFIX_LENGTH));
      const row = candidates.find((c) => timingSafeEqual(Buffer.from(c.secret_hash), hash));
      if (!row) return undefined;
      await touch(row.id);
      const key = toApiKey(row);
      return {
        type: 'apiKey',
        keyId: key.id,
        scopes: key.scopes,
        workspaceId: row.workspace_id,
        userId: row.created_by_user_id,
        surface,
      };
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
