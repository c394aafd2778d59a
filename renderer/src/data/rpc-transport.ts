// The RPC services (monitor.v1, status_page.v1, status_report.v1, maintenance.v1,
// notification.v1, private_location.v1) as the UI calls them: the Connect protocol with JSON, on
// the dashboard's own origin under /rpc, through the session's fetch (session-fetch.ts), naming
// the workspace in a header. One transport per workspace, which connect-query's hooks and the
// plain clients of rpc.ts share. Only the screens that call an RPC load this file.
import { Code, ConnectError, type Interceptor, type Transport } from '@connectrpc/connect';
import { addStaticKeyToTransport } from '@connectrpc/connect-query';
import { createConnectTransport } from '@connectrpc/connect-web';
import { RPC_PATH, WORKSPACE_HEADER } from '../../../contract/dashboard.ts';
import { ERROR_CODES, type ErrorCode, HTTP_STATUS_OF, RPC_CODE_OF } from '../../../contract/errors.ts';
import { BadRequestSchema } from '../../../proto/gen/google/rpc/error_details_pb.js';
import { ApiError, NOT_ANSWERING, readErrorsWith, type Violation } from './api-error.ts';
import { rpcTransportKey } from './query-keys.ts';
import { sessionFetch } from './session-fetch.ts';

/** The service's kind of error for each Connect code it sends (contract/errors.ts). */
const ERROR_CODE_OF = new Map<number, ErrorCode>(ERROR_CODES.map((code) => [RPC_CODE_OF[code], code]));

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
  // connect-web says `unavailable` with no message of the service's when the fetch itself failed.
  if (connect.code === Code.Unavailable && !connect.rawMessage) return new ApiError(0, 'UNAVAILABLE', NOT_ANSWERING);
  const code = ERROR_CODE_OF.get(connect.code) ?? 'INTERNAL';
  return new ApiError(HTTP_STATUS_OF[code], code, connect.rawMessage, violations);
}

readErrorsWith((error) => (error instanceof ConnectError ? rpcError(error) : undefined));

/** Names the workspace a call is about (the service checks membership). */
const inWorkspace =
  (workspaceId: string): Interceptor =>
  (next) =>
  (req) => {
    req.header.set(WORKSPACE_HEADER, workspaceId);
    return next(req);
  };

const transports = new Map<string, Transport>();

/** The transport of one workspace's calls; the same object for the same workspace. */
export function rpcTransport(workspaceId: string): Transport {
  let transport = transports.get(workspaceId);
  if (!transport) {
    transport = addStaticKeyToTransport(
      createConnectTransport({ baseUrl: `${location.origin}${RPC_PATH}`, interceptors: [inWorkspace(workspaceId)], fetch: sessionFetch }),
      rpcTransportKey(workspaceId),
    );
    transports.set(workspaceId, transport);
  }
  return transport;
}
