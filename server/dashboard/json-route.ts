import type { Context } from 'hono';
import type { DashboardAnswer, JsonEndpoint } from '../../contract/dashboard-api.ts';
import { DASHBOARD_API } from '../../contract/dashboard.ts';
import { AppError } from '../errors.ts';
import type { AppEnv, HonoApp } from '../http/hono-app.ts';

/**
 * Answers one JSON call of the dashboard's contract (contract/dashboard.ts) on its method and
 * path. What `handler` resolves to must be the answer contract/dashboard-api.ts declares for it,
 * so the UI, which reads the answer as that type, and the service cannot drift apart;
 * test/dashboard-contract.test.ts checks the answers as sent against the same schemas.
 */
export function jsonRoute<E extends JsonEndpoint>(
  app: HonoApp,
  endpoint: E,
  handler: (c: Context<AppEnv>) => Promise<DashboardAnswer<E>>,
  options: { status?: 200 | 201 } = {},
): void {
  const { method, path } = DASHBOARD_API[endpoint];
  const answer = async (c: Context<AppEnv>) => c.json((await handler(c)) as object, options.status ?? 200);
  if (method === 'GET') app.get(path, answer);
  else app.post(path, answer);
}

/** The JSON object a change sends (anything but an object reads as none: the services name what is missing). */
export async function jsonBodyOf(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new AppError('VALIDATION', 'the request body is not valid JSON');
  }
  return body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
}
