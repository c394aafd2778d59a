import { z } from '@hono/zod-openapi';
import type { HonoApp } from '../http/hono-app.ts';
import { HEALTHZ_PATH } from '../http/healthz.ts';
import { hostRefusedResponse } from './schemas.ts';

/**
 * The paths every port answers before routing (http/healthz.ts) and the document itself, in the
 * OpenAPI document so that it lists every REST path. Documented by hand: no route of this app
 * serves /healthz.
 */
export function registerServicePaths(app: HonoApp): void {
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: HEALTHZ_PATH,
    summary: 'Whether the service is up',
    description: 'For supervisors, health checks and load balancers, on both ports. HEAD answers the same without a body. No credential needed.',
    tags: ['Service'],
    operationId: 'getHealth',
    security: [],
    responses: {
      200: {
        description: 'The service is up.',
        content: {
          'application/json': {
            schema: z.object({
              status: z.literal('ok').openapi({ description: 'Always ok: a service that is not up does not answer.' }),
              version: z.string().openapi({ description: 'The version of Statusdesk.', example: '0.1.0' }),
            }),
          },
        },
      },
      ...hostRefusedResponse,
    },
  });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/openapi.json',
    summary: 'This OpenAPI document',
    description: 'No credential needed.',
    tags: ['Service'],
    operationId: 'getOpenApiDocument',
    security: [],
    responses: {
      200: { description: 'The document, OpenAPI 3.1.', content: { 'application/json': { schema: z.object({}).passthrough() } } },
      ...hostRefusedResponse,
    },
  });
}
