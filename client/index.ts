import { type Client, createClient as createServiceClient, type Interceptor, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { MonitorService } from '../proto/gen/monitor/v1/monitor_pb.js';

export * from '../proto/gen/monitor/v1/monitor_pb.js';
export { Code, ConnectError } from '@connectrpc/connect';

/** Where the service listens when nothing says otherwise. */
export const DEFAULT_API_URL = 'http://localhost:3000/rpc';

export interface ClientOptions {
  /** The RPC base address, e.g. `http://localhost:3000/rpc`. Wins over SERVICE_API_URL. */
  baseUrl?: string;
  /** An API key (`svc_...`). Wins over SERVICE_API_KEY. */
  apiKey?: string;
  /** The wire protocol. Default `connect`. */
  protocol?: 'connect' | 'grpc' | 'grpc-web';
  /** Where to read SERVICE_API_KEY and SERVICE_API_URL. Default `process.env`. */
  env?: Record<string, string | undefined>;
}

export interface StatusdeskClient {
  monitors: Client<typeof MonitorService>;
  /** The address the client talks to. */
  baseUrl: string;
}

/** Thrown by createClient when neither the options nor the environment hold an API key. */
export class MissingApiKeyError extends Error {
  constructor() {
    super('no API key: set SERVICE_API_KEY or pass apiKey (create a key with `statusdesk keys create`)');
    this.name = 'MissingApiKeyError';
  }
}

/** Adds the key to every call. */
function serviceKey(apiKey: string): Interceptor {
  return (next) => (req) => {
    req.header.set('x-service-key', apiKey);
    return next(req);
  };
}

function transportFor(protocol: ClientOptions['protocol'], baseUrl: string, interceptors: Interceptor[]): Transport {
  switch (protocol ?? 'connect') {
    case 'grpc':
      return createGrpcTransport({ baseUrl, interceptors });
    case 'grpc-web':
      return createGrpcWebTransport({ baseUrl, httpVersion: '1.1', interceptors });
    default:
      return createConnectTransport({ baseUrl, httpVersion: '1.1', interceptors });
  }
}

/** Typed clients of every Statusdesk service, authenticated with one API key. */
export function createClient(options: ClientOptions = {}): StatusdeskClient {
  const env = options.env ?? process.env;
  const apiKey = options.apiKey || env.SERVICE_API_KEY;
  if (!apiKey) throw new MissingApiKeyError();
  const baseUrl = (options.baseUrl || env.SERVICE_API_URL || DEFAULT_API_URL).replace(/\/+$/, '');
  const transport = transportFor(options.protocol, baseUrl, [serviceKey(apiKey)]);
  return { monitors: createServiceClient(MonitorService, transport), baseUrl };
}
