import { Code, type ConnectRouter } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import type { Logger } from 'pino';
import { MaintenanceService } from '../../proto/gen/maintenance/v1/maintenance_pb.js';
import { MonitorService } from '../../proto/gen/monitor/v1/monitor_pb.js';
import { NotificationService } from '../../proto/gen/notification/v1/notification_pb.js';
import { PrivateLocationService } from '../../proto/gen/private_location/v1/private_location_pb.js';
import { RunnerService } from '../../proto/gen/runner/v1/runner_pb.js';
import { StatusPageService } from '../../proto/gen/status_page/v1/status_page_pb.js';
import { StatusReportService } from '../../proto/gen/status_report/v1/status_report_pb.js';
import { SettingsService } from '../../proto/gen/settings/v1/settings_pb.js';
import type { Services } from '../services.ts';
import type { RequestHandler, Response } from '../http/listener.ts';
import { authenticate, mapErrors, type ResolveCaller } from './auth.ts';
import { refineRequestErrors } from './errors.ts';
import { isGrpc, RPC_PATH } from './rpc-request.ts';
import { maintenanceServiceImpl } from './maintenance-service.ts';
import { monitorServiceImpl } from './monitor-service.ts';
import { notificationServiceImpl } from './notification-service.ts';
import { privateLocationServiceImpl } from './private-location-service.ts';
import { runnerServiceImpl } from './runner-service.ts';
import { statusPageServiceImpl } from './status-page-service.ts';
import { statusReportServiceImpl } from './status-report-service.ts';
import { settingsServiceImpl } from './settings-service.ts';

/**
 * The gRPC spec's percent-encoding of `grpc-message`: bytes outside printable ASCII, and `%`.
 * Connect encodes it with encodeURIComponent, which also escapes `:`, `,`, `/` and the like;
 * grpc-js decodes with decodeURI, which leaves those escaped (`missing credentials%3A ...`).
 */
export function encodeGrpcMessage(message: string): string {
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function reencodeGrpcMessage(headers: unknown): void {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return;
  const fields = headers as Record<string, unknown>;
  const value = fields['grpc-message'];
  if (typeof value !== 'string') return;
  try {
    fields['grpc-message'] = encodeGrpcMessage(decodeURIComponent(value));
  } catch {
    // Not Connect's encoding: leave it as it is.
  }
}

/**
 * Rewrites `grpc-message` wherever Connect sends it to a gRPC client: in the trailers, or in the
 * headers of a trailers-only response.
 */
function encodeStatusPerGrpcSpec(res: Response): void {
  const target = res as unknown as { writeHead(...args: unknown[]): unknown; addTrailers(headers: unknown): void };
  const writeHead = target.writeHead;
  const addTrailers = target.addTrailers;
  target.writeHead = function (...args: unknown[]) {
    for (const arg of args) reencodeGrpcMessage(arg);
    return writeHead.apply(this, args);
  };
  target.addTrailers = function (headers: unknown) {
    reencodeGrpcMessage(headers);
    addTrailers.call(this, headers);
  };
}

export interface RpcHandlerOptions {
  services: Services;
  /** Who calls, from a call's headers. */
  caller: ResolveCaller;
  log: Logger;
  maxBodyBytes: number;
  /**
   * The API port: also gRPC at the standard `/package.Service/Method` paths, and gRPC-Web.
   * The dashboard port serves the Connect protocol under `/rpc` only, to its own pages.
   */
  surface: 'api' | 'dashboard';
}

/**
 * The services every surface of the RPC services answers, each over the same domain services: the
 * ports' Connect, gRPC and gRPC-Web handlers, and the dashboard's in-process client
 * (in-process-client.ts).
 */
export function rpcRoutes(services: Services, log: Logger, surface: 'api' | 'dashboard') {
  const impls = {
    monitors: monitorServiceImpl(services),
    pages: statusPageServiceImpl(services),
    reports: statusReportServiceImpl(services),
    maintenances: maintenanceServiceImpl(services),
    notifications: notificationServiceImpl(services),
    privateLocations: privateLocationServiceImpl(services),
    settings: settingsServiceImpl(services),
  };
  return (router: ConnectRouter) => {
    router.service(MonitorService, impls.monitors);
    router.service(StatusPageService, impls.pages);
    router.service(StatusReportService, impls.reports);
    router.service(MaintenanceService, impls.maintenances);
    router.service(NotificationService, impls.notifications);
    router.service(PrivateLocationService, impls.privateLocations);
    router.service(SettingsService, impls.settings);
    // Runners reach the API port only: the dashboard's pages have no use for it.
    if (surface === 'api') router.service(RunnerService, runnerServiceImpl(services, log.child({ component: 'runners' })));
  };
}

/** Every call's interceptors: domain errors as Connect codes (outermost), then the caller resolved. */
export const rpcInterceptors = (log: Logger, caller: ResolveCaller) => [mapErrors(log), authenticate(caller, [RunnerService.typeName])];

/**
 * The ConnectRPC services behind the same interceptors: on the API port, Connect (HTTP/1.1 and
 * h2c), gRPC (h2c) and gRPC-Web under `/rpc`, and gRPC also at the standard paths; on the
 * dashboard port, the Connect protocol under `/rpc` for the UI (connect-web).
 */
export function createRpcHandler(options: RpcHandlerOptions): RequestHandler {
  const { services, caller, log, maxBodyBytes, surface } = options;
  const routes = rpcRoutes(services, log, surface);
  const common = {
    readMaxBytes: maxBodyBytes,
    // A misspelt field is refused rather than silently dropped.
    jsonOptions: { ignoreUnknownFields: false },
    interceptors: rpcInterceptors(log, caller),
    // Runs before the body is read: hooks the refusals of a body Connect cannot take (errors.ts).
    requestGate: refineRequestErrors(maxBodyBytes),
    routes,
  };
  if (surface === 'dashboard') {
    const prefixed = connectNodeAdapter({ ...common, grpc: false, grpcWeb: false, requestPathPrefix: RPC_PATH });
    return (req, res) => {
      if (req.url?.startsWith(`${RPC_PATH}/`)) return prefixed(req, res);
      res.statusCode = 404;
      res.end();
    };
  }
  const prefixed = connectNodeAdapter({ ...common, requestPathPrefix: RPC_PATH });
  const standard = connectNodeAdapter({
    ...common,
    connect: false,
    grpcWeb: false,
    // A gRPC client is told in its own terms that a method is not here.
    fallback(req, res) {
      const path = (req.url ?? '').split('?')[0];
      res.writeHead(200, { 'content-type': 'application/grpc' });
      res.addTrailers({ 'grpc-status': String(Code.Unimplemented), 'grpc-message': encodeGrpcMessage(`unknown method ${path}`) });
      res.end();
    },
  });
  return (req, res) => {
    const grpc = isGrpc(req);
    if (grpc) encodeStatusPerGrpcSpec(res);
    if (req.url?.startsWith(`${RPC_PATH}/`)) return prefixed(req, res);
    if (grpc) return standard(req, res);
    res.statusCode = 404;
    res.end();
  };
}
