import { connectNodeAdapter } from '@connectrpc/connect-node';
import type { Logger } from 'pino';
import { MaintenanceService } from '../../proto/gen/maintenance/v1/maintenance_pb.js';
import { MonitorService } from '../../proto/gen/monitor/v1/monitor_pb.js';
import { NotificationService } from '../../proto/gen/notification/v1/notification_pb.js';
import { StatusPageService } from '../../proto/gen/status_page/v1/status_page_pb.js';
import { StatusReportService } from '../../proto/gen/status_report/v1/status_report_pb.js';
import type { Services } from '../domain/services.ts';
import type { Admit } from '../http/credentials.ts';
import type { RequestHandler } from '../http/listener.ts';
import { authenticate, mapErrors } from './auth.ts';
import { maintenanceServiceImpl } from './maintenance-service.ts';
import { monitorServiceImpl } from './monitor-service.ts';
import { notificationServiceImpl } from './notification-service.ts';
import { statusPageServiceImpl } from './status-page-service.ts';
import { statusReportServiceImpl } from './status-report-service.ts';

export const RPC_PATH = '/rpc';

/**
 * The ConnectRPC services under `/rpc`: Connect (HTTP/1.1 and h2c), gRPC (h2c) and gRPC-Web,
 * all on the API port.
 */
export function createRpcHandler(options: { services: Services; admit: Admit; log: Logger; maxBodyBytes: number }): RequestHandler {
  const { services, admit, log, maxBodyBytes } = options;
  return connectNodeAdapter({
    requestPathPrefix: RPC_PATH,
    readMaxBytes: maxBodyBytes,
    // A misspelt field is refused rather than silently dropped.
    jsonOptions: { ignoreUnknownFields: false },
    interceptors: [mapErrors(log), authenticate(admit)],
    routes(router) {
      router.service(MonitorService, monitorServiceImpl(services));
      router.service(StatusPageService, statusPageServiceImpl(services));
      router.service(StatusReportService, statusReportServiceImpl(services));
      router.service(MaintenanceService, maintenanceServiceImpl(services));
      router.service(NotificationService, notificationServiceImpl(services));
    },
  });
}
