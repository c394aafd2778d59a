import { type Client, Code, ConnectError, createClient as createServiceClient, type Interceptor, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { MaintenanceService } from '../proto/gen/maintenance/v1/maintenance_pb.js';
import { MonitorService } from '../proto/gen/monitor/v1/monitor_pb.js';
import { NotificationService } from '../proto/gen/notification/v1/notification_pb.js';
import { PrivateLocationService } from '../proto/gen/private_location/v1/private_location_pb.js';
import { SettingsService } from '../proto/gen/settings/v1/settings_pb.js';
import { StatusPageService } from '../proto/gen/status_page/v1/status_page_pb.js';
import { StatusReportService } from '../proto/gen/status_report/v1/status_report_pb.js';

// monitor.v1 is exported flat (`Periodicity`, `TCPMonitorSchema`, ...). The other packages are
// exported as namespaces named after them, since several declare the same names (each has its own
// `Pagination`): `statusReportV1.StatusReportStatus.INVESTIGATING`, `notificationV1.PaginationSchema`.
export * from '../proto/gen/monitor/v1/monitor_pb.js';
export * as statusPageV1 from '../proto/gen/status_page/v1/status_page_pb.js';
export * as statusReportV1 from '../proto/gen/status_report/v1/status_report_pb.js';
export * as maintenanceV1 from '../proto/gen/maintenance/v1/maintenance_pb.js';
export * as notificationV1 from '../proto/gen/notification/v1/notification_pb.js';
export * as privateLocationV1 from '../proto/gen/private_location/v1/private_location_pb.js';
export * as settingsV1 from '../proto/gen/settings/v1/settings_pb.js';
export { Code, ConnectError } from '@connectrpc/connect';

/** Where the service listens when nothing says otherwise. */
export const DEFAULT_API_URL = 'http://localhost:3000/rpc';

export interface ClientOptions {
  /** The RPC base address, e.g. `http://localhost:3000/rpc`. Wins over SERVICE_API_URL. */
  baseUrl?: string;
  /** An API key (`svc_...`). Wins over `accessToken` and SERVICE_API_KEY. */
  apiKey?: string;
  /**
   * An OAuth access token (`svc_oat_...`), sent as `Authorization: Bearer` instead of a key: the
   * token, or a source asked before every call. Wins over SERVICE_API_KEY.
   */
  accessToken?: string | AccessTokenSource;
  /** The wire protocol. Default `connect`. */
  protocol?: 'connect' | 'grpc' | 'grpc-web';
  /** Where to read SERVICE_API_KEY and SERVICE_API_URL. Default `process.env`. */
  env?: Record<string, string | undefined>;
}

export interface StatusdeskClient {
  monitors: Client<typeof MonitorService>;
  /** Status pages, their components and subscribers (status_page.v1.StatusPageService). */
  pages: Client<typeof StatusPageService>;
  /** Status reports (status_report.v1.StatusReportService). */
  reports: Client<typeof StatusReportService>;
  /** Maintenance windows (maintenance.v1.MaintenanceService). */
  maintenances: Client<typeof MaintenanceService>;
  /** Notification channels (notification.v1.NotificationService). */
  notifications: Client<typeof NotificationService>;
  /** Private locations and their runners' tokens (private_location.v1.PrivateLocationService). */
  privateLocations: Client<typeof PrivateLocationService>;
  /** The service's settings: its email settings and their test send (settings.v1.SettingsService). */
  settings: Client<typeof SettingsService>;
  /** The address the client talks to. */
  baseUrl: string;
}

/**
 * Gives a current access token. Called with the token the service just refused (401), it gives a
 * renewed one (for example by the refresh token grant), and the call is sent once more; giving
 * the refused token back, or throwing, ends the call.
 */
export type AccessTokenSource = (refused?: string) => Promise<string>;

/** Thrown by createClient when neither the options nor the environment hold a credential. */
export class MissingApiKeyError extends Error {
  constructor() {
    super('no API key: set SERVICE_API_KEY or pass apiKey or accessToken (create a key with `statusdesk keys create`, or log in with `statusdesk login`)');
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

/** Adds the bearer token to every call; a unary call refused with 401 is sent once more with a renewed token. */
function bearerToken(source: AccessTokenSource): Interceptor {
  return (next) => async (req) => {
    const token = await source();
    req.header.set('authorization', `Bearer ${token}`);
    try {
      return await next(req);
    } catch (error) {
      // A streaming request's messages are consumed by the first attempt.
      if (req.stream || ConnectError.from(error).code !== Code.Unauthenticated) throw error;
      const renewed = await source(token);
      if (renewed === token) throw error;
      req.header.set('authorization', `Bearer ${renewed}`);
      return await next(req);
    }
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

/** The interceptor that carries the credential: the key of the options, their access token, or SERVICE_API_KEY. */
function credential(options: ClientOptions, env: Record<string, string | undefined>): Interceptor {
  if (options.apiKey) return serviceKey(options.apiKey);
  const { accessToken } = options;
  if (typeof accessToken === 'function') return bearerToken(accessToken);
  if (accessToken) return bearerToken(async () => accessToken);
  if (env.SERVICE_API_KEY) return serviceKey(env.SERVICE_API_KEY);
  throw new MissingApiKeyError();
}

/** Typed clients of every Statusdesk service, authenticated with one API key or OAuth access token. */
export function createClient(options: ClientOptions = {}): StatusdeskClient {
  const env = options.env ?? process.env;
  const interceptor = credential(options, env);
  const baseUrl = (options.baseUrl || env.SERVICE_API_URL || DEFAULT_API_URL).replace(/\/+$/, '');
  const transport = transportFor(options.protocol, baseUrl, [interceptor]);
  return {
    monitors: createServiceClient(MonitorService, transport),
    pages: createServiceClient(StatusPageService, transport),
    reports: createServiceClient(StatusReportService, transport),
    maintenances: createServiceClient(MaintenanceService, transport),
    notifications: createServiceClient(NotificationService, transport),
    privateLocations: createServiceClient(PrivateLocationService, transport),
    settings: createServiceClient(SettingsService, transport),
    baseUrl,
  };
}
