import type { Context } from 'hono';
import { AppError } from '../errors.ts';
import type { AppEnv } from '../http/hono-app.ts';

/** The workspace a dashboard path names; an id that cannot be one is a workspace that does not exist. */
export function workspaceIdOf(c: Context<AppEnv>): number {
  const given = c.req.param('workspaceId') ?? '';
  const id = /^\d{1,15}$/.test(given) ? Number(given) : 0;
  if (id <= 0) throw new AppError('NOT_FOUND', `workspace ${given} does not exist`);
  return id;
}

