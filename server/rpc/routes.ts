import { connectNodeAdapter } from '@connectrpc/connect-node';
import type { Logger } from 'pino';
import { MonitorService } from '../../proto/gen/monitor/v1/monitor_pb.js';
import type { Services } from '../domain/services.ts';
import type { RequestHandler } from '../http/listener.ts';
import { authenticate, mapErrors } from './auth.ts';
import { monitorServiceImpl } from './monitor-service.ts';

export const RPC_PATH = '/rpc';

/**
 * The ConnectRPC services under `/rpc`: Connect (HTTP/1.1 and h2c), gRPC (h2c) and gRPC-Web,
 * all on the API port.
 */
export function createRpcHandler(options: { services: Services; log: Logger; maxBodyBytes: number }): RequestHandler {
  const { services, log, maxBodyBytes } = options;
  return connectNodeAdapter({
    requestPathPrefix: RPC_PATH,
    readMaxBytes: maxBodyBytes,
    // A misspelt field is refused rather than silently dropped.
    jsonOptions: { ignoreUnknownFields: false },
    interceptors: [mapErrors(log), authenticate(services)],
    routes(router) {
      router.service(MonitorService, monitorServiceImpl(services));
    },
  });
}
