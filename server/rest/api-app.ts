import type { Logger } from 'pino';
import type { Services } from '../domain/services.ts';
import { resolveActor } from '../http/credentials.ts';
import { createHonoApp } from '../http/hono-app.ts';
import { registerStatusPages } from '../public/status-routes.ts';
import { registerDocs } from './docs.ts';
import { registerWhoami } from './whoami.ts';

export interface ApiAppOptions {
  services: Services;
  log: Logger;
  apiUrl: string;
  docsBase: string;
  maxBodyBytes: number;
  version: string;
}

/** The REST surface on the API port: /v1/*, /openapi.json and the bundled docs. */
export function createApiApp(options: ApiAppOptions) {
  const { services } = options;
  const app = createHonoApp({
    ...options,
    authenticate: { path: '/v1/*', actor: (c) => resolveActor(services, c.req.raw.headers, 'rest') },
  });

  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'x-service-key',
    description: 'An API key (svc_...) from Settings, General, API Keys, or `statusdesk keys create`.',
  });

  registerWhoami(app, services);

  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Statusdesk API',
      version: options.version,
      description: 'REST paths of the Statusdesk service. Errors share one envelope: code, message, requestId, docs.',
    },
    servers: [{ url: options.apiUrl }],
  });

  registerDocs(app);
  registerStatusPages(app, services);
  return app;
}
