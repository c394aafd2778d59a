import type { HonoApp } from '../http/hono-app.ts';
import { MCP_PATH } from '../mcp/mcp-route.ts';
import { oauthJson } from './respond.ts';

const SCOPES = ['read', 'write'];

/** RFC 8414 authorization server metadata and RFC 9728 protected resource metadata. */
export function registerMetadata(app: HonoApp, issuer: string, docsBase: string): void {
  const server = {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: SCOPES,
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${docsBase}/docs/reference/oauth`,
  };
  const resource = (path: string, name: string) => ({
    resource: `${issuer}${path}`,
    authorization_servers: [issuer],
    scopes_supported: SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: name,
    resource_documentation: `${docsBase}/docs/reference/oauth`,
  });
  const mcp = resource(MCP_PATH, 'Statusdesk MCP server');
  const api = resource('', 'Statusdesk API');
  app.get('/.well-known/oauth-authorization-server', () => oauthJson(server));
  app.get(`/.well-known/oauth-protected-resource${MCP_PATH}`, () => oauthJson(mcp));
  app.get('/.well-known/oauth-protected-resource', () => oauthJson(api));
}
