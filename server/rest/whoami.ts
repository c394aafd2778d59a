import { createRoute } from '@hono/zod-openapi';
import type { Services } from '../services.ts';
import type { HonoApp } from '../http/hono-app.ts';
import { authErrorResponses, IdentitySchema } from './schemas.ts';

const whoamiRoute = createRoute({
  method: 'get',
  path: '/v1/whoami',
  summary: 'The workspace and credential behind the request',
  description: 'Resolves the API key in x-service-key, or the OAuth access token in Authorization: Bearer, to its workspace, plan and scopes.',
  tags: ['Identity'],
  operationId: 'whoami',
  security: [{ apiKey: [] }, { oauth: [] }],
  responses: {
    200: { description: 'The identity of the caller.', content: { 'application/json': { schema: IdentitySchema } } },
    ...authErrorResponses,
  },
});

export function registerWhoami(app: HonoApp, services: Services): void {
  app.openapi(whoamiRoute, async (c) => c.json(await services.identity.whoami(c.get('actor')), 200));
}
