import { type DescService } from '@bufbuild/protobuf';
import { Code, ConnectError, type Client, createClient, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-web';
import { BadRequestSchema } from '../../proto/gen/google/rpc/error_details_pb.js';
import { MaintenanceService } from '../../proto/gen/maintenance/v1/maintenance_pb.js';
import { MonitorService } from '../../proto/gen/monitor/v1/monitor_pb.js';
import { NotificationService } from '../../proto/gen/notification/v1/notification_pb.js';
import { PrivateLocationService } from '../../proto/gen/private_location/v1/private_location_pb.js';
import { StatusPageService } from '../../proto/gen/status_page/v1/status_page_pb.js';
import { StatusReportService } from '../../proto/gen/status_report/v1/status_report_pb.js';
import { ApiError, currentSessionToken, SESSION_TOKEN_HEADER, signedOut, type Violation } from './api.ts';

// The RPC services (monitor.v1, status_page.v1, status_report.v1, maintenance.v1,
// notification.v1, private_location.v1) as the UI calls them: the Connect protocol with JSON, on the dashboard's own
// origin under /rpc, signed in by the session and naming the workspace in a header.

/** The header naming the workspace a call is about (the service checks membership). */
const WORKSPACE_HEADER = 'x-statusdesk-workspace';

const HTTP_STATUS: Partial<Record<Code, number>> = {
  [Code.InvalidArgument]: 400,
  [Code.Unauthenticated]: 401,
  [Code.PermissionDenied]: 403,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.FailedPrecondition]: 412,
  [Code.ResourceExhausted]: 429,
  [Code.Unavailable]: 0,
};

const CODE_NAMES: Partial<Record<Code, string>> = {
  [Code.InvalidArgument]: 'VALIDATION',
  [Code.Unauthenticated]: 'UNAUTHORIZED',
  [Code.PermissionDenied]: 'FORBIDDEN',
  [Code.NotFound]: 'NOT_FOUND',
  [Code.AlreadyExists]: 'CONFLICT',
  [Code.FailedPrecondition]: 'PRECONDITION_FAILED',
  [Code.ResourceExhausted]: 'LIMIT_EXCEEDED',
  [Code.Unavailable]: 'UNAVAILABLE',
};

/**
 * An RPC failure as the UI shows every failure: the service's message, and the fields it names
 * (a google.rpc.BadRequest detail) so a form can put each beside its field.
 */
export function rpcError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const connect = ConnectError.from(error);
  const violations: Violation[] = connect
    .findDetails(BadRequestSchema)
    .flatMap((detail) => detail.fieldViolations.map((v) => ({ field: v.field, rule: v.description })));
  const message = connect.code === Code.Unavailable && !connect.rawMessage ? 'Statusdesk is not answering. Is it still running?' : connect.rawMessage;
  return new ApiError(HTTP_STATUS[connect.code] ?? 500, CODE_NAMES[connect.code] ?? 'INTERNAL', message, violations);
}

/** Signs the call in and names its workspace. */
function sessionInterceptor(workspaceId: string): Interceptor {
  return (next) => async (req) => {
    const token = await currentSessionToken();
    if (token) req.header.set(SESSION_TOKEN_HEADER, token);
    req.header.set(WORKSPACE_HEADER, workspaceId);
    return next(req);
  };
}

/**
 * A client whose every call fails with an ApiError, as the dashboard API's calls do. This is done
 * around the client, not in an interceptor: connect-es wraps what an interceptor throws in a
 * ConnectError of code `unknown`, which would lose the code and the violations.
 */
function failingAsApiErrors<T extends object>(client: T): T {
  return new Proxy(client, {
    get(target, key, receiver) {
      const method = Reflect.get(target, key, receiver) as unknown;
      if (typeof method !== 'function') return method;
      return async (...args: unknown[]) => {
        try {
          return await (method as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } catch (error) {
          const apiError = rpcError(error);
          if (apiError.status === 401) signedOut();
          throw apiError;
        }
      };
    },
  });
}

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
    const transport = createConnectTransport({
      baseUrl: `${location.origin}/rpc`,
      interceptors: [sessionInterceptor(workspaceId)],
      fetch: (input, init) => fetch(input, { ...init, credentials: 'same-origin', cache: 'no-store' }),
    });
    const make = <S extends DescService>(service: S) => failingAsApiErrors(createClient(service, transport));
    rpc = {
      monitors: make(services.monitors),
      pages: make(services.pages),
      reports: make(services.reports),
      maintenances: make(services.maintenances),
      notifications: make(services.notifications),
      privateLocations: make(services.privateLocations),
    };
    clients.set(workspaceId, rpc);
  }
  return rpc;
}
