import type { Logger } from 'pino';
import type { ContentIndex } from '../content/content-index.ts';
import type { Services } from '../services.ts';
import type { Admit } from '../http/credentials.ts';
import { createHonoApp } from '../http/hono-app.ts';
import { registerMcp } from '../mcp/mcp-route.ts';
import type { MetadataNetwork } from '../oauth/client-metadata.ts';
import { registerOAuth } from '../oauth/routes.ts';
import { registerFormerSlugs } from '../public/former-slugs.ts';
import { registerStatusPages } from '../public/status-routes.ts';
import { registerBadges } from '../public/badge-routes.ts';
import { registerDocs } from './docs.ts';
import { registerHeartbeatPings } from './heartbeat-pings.ts';
import { registerServicePaths } from './service-paths.ts';
import { registerWhoami } from './whoami.ts';

export interface ApiAppOptions {
  services: Services;
  /** Resolves and rate-limits the caller of /v1/* and /mcp. */
  admit: Admit;
  /** The documentation and public pages behind the content tools, /llms.txt and search. */
  content: ContentIndex;
  log: Logger;
  apiUrl: string;
  /** Where /oauth/authorize sends the browser for consent. */
  dashboardUrl: string;
  metadataNetwork?: MetadataNetwork;
  docsBase: string;
  maxBodyBytes: number;
  version: string;
  /** Aborted when the service starts stopping: the answers that stay open (MCP event streams) end then. */
  stopping?: AbortSignal;
}

/** The REST surface on the API port: /v1/*, /openapi.json and the bundled docs. */
export function createApiApp(options: ApiAppOptions) {
  const { services } = options;
  const app = createHonoApp({
    ...options,
    authenticate: { path: '/v1/*', actor: (c) => options.admit(c.req.raw.headers, 'rest') },
  });

  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'x-service-key',
    description: 'An API key (svc_...) from Settings, General, API Keys, or `statusdesk keys create`.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'oauth', {
    type: 'oauth2',
    description: 'An OAuth access token (svc_oat_...) for the resource of the whole API, sent as Authorization: Bearer.',
    flows: {
      authorizationCode: {
        authorizationUrl: `${options.apiUrl}/oauth/authorize`,
        tokenUrl: `${options.apiUrl}/oauth/token`,
        refreshUrl: `${options.apiUrl}/oauth/token`,
        scopes: { read: 'Read the workspace', write: 'Read and change the workspace' },
      },
    },
  });

  registerWhoami(app, services);
  registerServicePaths(app);

  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Statusdesk API',
      version: options.version,
      description: 'REST paths of the Statusdesk service. Errors share one envelope: code, message, requestId, docs.',
      license: { name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' },
    },
    servers: [{ url: options.apiUrl }],
  });

  registerOAuth(app, {
    services,
    issuer: options.apiUrl,
    dashboardUrl: options.dashboardUrl,
    docsBase: options.docsBase,
    metadataNetwork: options.metadataNetwork,
  });
  registerDocs(app, options.content);
  registerFormerSlugs(app, services);
  registerStatusPages(app, services);
  registerBadges(app, services);
  registerHeartbeatPings(app, services);
  registerMcp(app, {
    services,
    admit: options.admit,
    stopping: options.stopping,
    content: options.content,
    apiUrl: options.apiUrl,
    docsUrl: options.docsBase,
    version: options.version,
    log: options.log,
    // Read in-process: the resource is the document /openapi.json serves.
    openapi: async () => (await app.request('/openapi.json')).text(),
  });
  return app;
}
