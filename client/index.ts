import { type Client, createClient as createServiceClient, type Interceptor, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { MaintenanceService } from '../proto/gen/maintenance/v1/maintenance_pb.js';
import { MonitorService } from '../proto/gen/monitor/v1/monitor_pb.js';
import { NotificationService } from '../proto/gen/notification/v1/notification_pb.js';
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
  /** Status pages, their components and subscribers (status_page.v1.StatusPageService). */
  pages: Client<typeof StatusPageService>;
  /** Status reports (status_report.v1.StatusReportService). */
  reports: Client<typeof StatusReportService>;
  /** Maintenance windows (maintenance.v1.MaintenanceService). */
  maintenances: Client<typeof MaintenanceService>;
  /** Notification channels (notification.v1.NotificationService). */
  notifications: Client<typeof NotificationService>;
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
  return {
    monitors: createServiceClient(MonitorService, transport),
    pages: createServiceClient(StatusPageService, transport),
    reports: createServiceClient(StatusReportService, transport),
    maintenances: createServiceClient(MaintenanceService, transport),
    notifications: createServiceClient(NotificationService, transport),
    baseUrl,
  };
}
