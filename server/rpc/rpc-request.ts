import { RPC_PATH } from '../../contract/dashboard.ts';
import type { Request } from '../http/listener.ts';

/**
 * Which requests the RPC handler serves, without loading it: ConnectRPC and the protobuf
 * descriptors are loaded with the first RPC request (routes.ts).
 */

export { RPC_PATH };

/** The gRPC protocol (`application/grpc`, `application/grpc+proto`, `+json`), not gRPC-Web. */
const GRPC_CONTENT_TYPE = /^application\/grpc(?:\+[\w.-]+)?\s*(?:;|$)/i;

export function isGrpc(req: Request): boolean {
  const type = req.headers['content-type'];
  return typeof type === 'string' && GRPC_CONTENT_TYPE.test(type);
}

/**
 * Whether a request is for the RPC handler: anything under `/rpc/`, and gRPC at any other path,
 * since standard gRPC clients (grpcurl, generated grpc-js and grpc-go clients) call `/package.Service/Method`
 * and cannot add a prefix. Connect and gRPC-Web are served under `/rpc` only.
 */
export function isRpcRequest(req: Request): boolean {
  return req.url?.startsWith(`${RPC_PATH}/`) === true || isGrpc(req);
}
