import { createClient, createRouterTransport } from '@connectrpc/connect';
import type { Logger } from 'pino';
import { MaintenanceService } from '../../proto/gen/maintenance/v1/maintenance_pb.js';
import { MonitorService } from '../../proto/gen/monitor/v1/monitor_pb.js';
import { NotificationService } from '../../proto/gen/notification/v1/notification_pb.js';
import { PrivateLocationService } from '../../proto/gen/private_location/v1/private_location_pb.js';
import { SettingsService } from '../../proto/gen/settings/v1/settings_pb.js';
import { StatusPageService } from '../../proto/gen/status_page/v1/status_page_pb.js';
import { StatusReportService } from '../../proto/gen/status_report/v1/status_report_pb.js';
import type { StatusdeskClient } from '../../client/index.ts';
import type { Services } from '../services.ts';
import type { Caller } from './auth.ts';
import { RPC_PATH } from './rpc-request.ts';
import { rpcInterceptors, rpcRoutes } from './routes.ts';

/**
 * The client library's calls answered inside the service, for one caller: the same services and
 * interceptors as the ports' handlers (routes.ts), so code written against the client library
 * (`statusdesk apply` and `export`) runs in the service with the rules, scope checks and audit
 * entries of every other call, acting as the person who asked. Nothing leaves the process, and no
 * credential is made or passed.
 */
export function inProcessClient(services: Services, log: Logger, caller: Caller): StatusdeskClient {
  const transport = createRouterTransport(rpcRoutes(services, log, 'dashboard'), {
    router: { interceptors: rpcInterceptors(log, async () => caller) },
  });
  return {
    monitors: createClient(MonitorService, transport),
    pages: createClient(StatusPageService, transport),
    reports: createClient(StatusReportService, transport),
    maintenances: createClient(MaintenanceService, transport),
    notifications: createClient(NotificationService, transport),
    privateLocations: createClient(PrivateLocationService, transport),
    settings: createClient(SettingsService, transport),
    baseUrl: RPC_PATH,
  };
}
