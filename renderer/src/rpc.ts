import { type Client, createClient } from '@connectrpc/connect';
import { MaintenanceService } from '../../proto/gen/maintenance/v1/maintenance_pb.js';
import { MonitorService } from '../../proto/gen/monitor/v1/monitor_pb.js';
import { NotificationService } from '../../proto/gen/notification/v1/notification_pb.js';
import { PrivateLocationService } from '../../proto/gen/private_location/v1/private_location_pb.js';
import { StatusPageService } from '../../proto/gen/status_page/v1/status_page_pb.js';
import { StatusReportService } from '../../proto/gen/status_report/v1/status_report_pb.js';
import { rpcTransport } from './data/rpc-transport.ts';

export { rpcError } from './data/rpc-transport.ts';

// Plain clients of the RPC services, one set per workspace, on the workspace's transport
// (data/rpc-transport.ts): for calls made outside the query cache, by screens that have not moved
// to the data hooks of data/. A failure is a ConnectError, which `asApiError` reads.

const services = {
  monitors: MonitorService,
  pages: StatusPageService,
  reports: StatusReportService,
  maintenances: MaintenanceService,
  notifications: NotificationService,
  privateLocations: PrivateLocationService,
} as const;

export type Rpc = { [K in keyof typeof services]: Client<(typeof services)[K]> };

const clients = new Map<string, Rpc>();

/** The RPC clients of one workspace; the same object for the same workspace. */
export function rpcFor(workspaceId: string): Rpc {
  let rpc = clients.get(workspaceId);
  if (!rpc) {
    const transport = rpcTransport(workspaceId);
    rpc = {
      monitors: createClient(services.monitors, transport),
      pages: createClient(services.pages, transport),
      reports: createClient(services.reports, transport),
      maintenances: createClient(services.maintenances, transport),
      notifications: createClient(services.notifications, transport),
      privateLocations: createClient(services.privateLocations, transport),
    };
    clients.set(workspaceId, rpc);
  }
  return rpc;
}
