import type { Context } from 'hono';
import type { DashboardAnswer, JsonEndpoint } from '../../contract/dashboard-api.ts';
import { DASHBOARD_API } from '../../contract/dashboard.ts';
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
