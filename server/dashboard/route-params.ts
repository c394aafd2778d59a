import type { Context } from 'hono';
import { parseId } from '../domain/validation.ts';
import type { AppEnv } from '../http/hono-app.ts';

/**
 * The workspace a dashboard path names, read as every id is (VALIDATION when it cannot be one); a
 * workspace the person is not a member of is NOT_FOUND where the domain checks membership.
 */
export function workspaceIdOf(c: Context<AppEnv>): number {
  return parseId('workspaceId', 'workspace', c.req.param('workspaceId'));
}
