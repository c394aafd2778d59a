import { createClient, type StatusdeskClient } from '../../client/index.ts';
import { serviceUrl, type Values } from './flags.ts';
import { serviceCredential } from './login.ts';

/** The client library at `serviceUrl`, with the key of SERVICE_API_KEY or else the login to that service. */
export function client(values: Values): StatusdeskClient {
  const baseUrl = withRpcPath(serviceUrl(values));
  return createClient({ baseUrl, ...serviceCredential(baseUrl) });
}

/** The service's bare address (`http://localhost:3000`) means its RPC base, as whoami accepts both. */
function withRpcPath(address: string): string {
  const url = new URL(address);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/rpc';
  return url.toString().replace(/\/+$/, '');
}
