import { connect as http2Connect, type ClientHttp2Session, constants, type IncomingHttpHeaders } from 'node:http2';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { SecureContext, TLSSocket } from 'node:tls';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { HealthCheckRequestSchema, HealthCheckResponse_ServingStatus, HealthCheckResponseSchema } from '../../proto/gen/grpc/health/v1/health_pb.js';
import type { GrpcStatus, ProbeResult, Timing } from '../domain/monitors/check-results.ts';
import type { GrpcConfig } from '../domain/monitors/monitor-rules.ts';
import { ConnectionFailure, Deadline, emptyTiming, openConnection, parseTarget, round, since, type Target, until, withRetries } from './connection.ts';
import { degradedMessage, failedProbe, probeResult } from './outcome.ts';

/**
 * The gRPC check (SPEC 2.8, 3.1): a unary grpc.health.v1.Health/Check on a fresh connection that
 * this module resolves, connects and secures itself, so each phase is measured rather than
 * estimated, then speaks HTTP/2 over it. The health request is only sent once the server has
 * completed the HTTP/2 handshake: a plaintext monitor aimed at a TLS port never sends one.
 */

export type GrpcProbeConfig = Pick<GrpcConfig, 'uri' | 'service' | 'tls' | 'metadata' | 'timeout' | 'degraded' | 'retry'>;

const CHECK_PATH = '/grpc.health.v1.Health/Check';

/** gRPC status codes by number, for messages. */
const CODE_NAMES = [
  'OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED',
];
const Code = { OK: 0, DEADLINE_EXCEEDED: 4, NOT_FOUND: 5, UNIMPLEMENTED: 12, UNAVAILABLE: 14, UNKNOWN: 2 } as const;

/** The gRPC code of a non-200 HTTP answer, as gRPC's HTTP/2 protocol document maps them. */
function codeOfHttpStatus(status: number): number {
  if (status === 400) return 13;
  if (status === 401) return 16;
  if (status === 403) return 7;
  if (status === 404) return Code.UNIMPLEMENTED;
  if ([429, 502, 503, 504].includes(status)) return Code.UNAVAILABLE;
  return Code.UNKNOWN;
}

export interface GrpcProbeOptions {
  /** Trust store for TLS verification (see trustStore). */
  trust: SecureContext;
  userAgent: string;
  /** Aborts the check (the engine is closing). */
  stop?: AbortSignal;
}

export async function probeGrpc(monitor: GrpcProbeConfig, options: GrpcProbeOptions): Promise<ProbeResult> {
  const deadline = new Deadline(monitor.timeout, options.stop);
  const target = parseTarget(monitor.uri);
  const timing = emptyTiming();
  let attempts = 0;
  let session: ClientHttp2Session | undefined;
  try {
    session = await withRetries(monitor.retry, deadline, async () => {
      attempts++;
      const tls = monitor.tls === 'plaintext' ? undefined : { verify: monitor.tls === 'verify', alpn: ['h2'], trust: options.trust };
      return handshake(await openConnection(target, deadline, timing, tls), target, monitor.tls, deadline);
    });
    const answer = await call(session, target, monitor, options.userAgent, deadline, timing);
    const latency = deadline.elapsed();
    timing.total = latency;
    const [status, message] = interpret(answer, monitor.service);
    if (status !== 'SERVING') return probeResult('down', latency, timing, attempts, message, status);
    return monitor.degraded !== null && latency > monitor.degraded
      ? probeResult('degraded', latency, timing, attempts, degradedMessage('SERVING', latency, monitor.degraded), status)
      : probeResult('up', latency, timing, attempts, message, status);
  } catch (error) {
    if (!(error instanceof ConnectionFailure)) throw error;
    const status: GrpcStatus = error.kind === 'timeout' ? 'DEADLINE_EXCEEDED' : 'UNAVAILABLE';
    return failedProbe(deadline, timing, attempts, error.message, status);
  } finally {
    session?.destroy();
    deadline.clear();
  }
}

/**
 * Starts HTTP/2 on a connected socket and waits for the server's SETTINGS frame: proof that the
 * other end speaks HTTP/2 the way the monitor connects (TLS or h2c).
 */
async function handshake(socket: Socket | TLSSocket, target: Target, mode: GrpcConfig['tls'], deadline: Deadline): Promise<ClientHttp2Session> {
  if (mode !== 'plaintext' && (socket as TLSSocket).alpnProtocol !== 'h2') {
    socket.destroy();
    throw new ConnectionFailure('protocol', 'the server does not offer HTTP/2 over TLS (ALPN h2), which gRPC requires');
  }
  const session = http2Connect(`${mode === 'plaintext' ? 'http' : 'https'}://${target.authority}`, {
    createConnection: () => socket,
    settings: { enablePush: false },
  });
  session.on('error', () => {}); // reported through the waits below
  try {
    await until(session, 'remoteSettings', deadline);
    return session;
  } catch {
    session.destroy();
    if (deadline.expired) throw deadline.timedOut();
    throw new ConnectionFailure(
      'protocol',
      mode === 'plaintext'
        ? 'the server did not answer the HTTP/2 handshake: if it serves TLS, set the TLS mode to verify or skip-verify'
        : 'the server did not answer the HTTP/2 handshake',
    );
  }
}

interface Answer {
  httpStatus: number;
  /** The HTTP/2 error code with which the server reset the call, if it did. */
  resetCode?: number;
  headers: IncomingHttpHeaders;
  trailers: IncomingHttpHeaders;
  body: Buffer;
}

/** Sends the health request and collects the whole answer. Failures here are never retried. */
async function call(session: ClientHttp2Session, target: Target, monitor: GrpcProbeConfig, userAgent: string, deadline: Deadline, timing: Timing): Promise<Answer> {
  const request = toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema, { service: monitor.service }));
  const frame = Buffer.alloc(5 + request.length);
  frame.writeUInt32BE(request.length, 1);
  frame.set(request, 5);

  const stream = session.request({
    ...monitor.metadata,
    ':method': 'POST',
    ':path': CHECK_PATH,
    ':authority': target.authority,
    'content-type': 'application/grpc',
    te: 'trailers',
    'grpc-timeout': `${Math.max(1, Math.floor(deadline.remaining()))}m`,
    'user-agent': userAgent,
  });
  const sent = performance.now();
  stream.end(frame);

  let responded = 0;
  let headers: IncomingHttpHeaders = {};
  let trailers: IncomingHttpHeaders = {};
  const chunks: Buffer[] = [];
  stream.on('response', (h) => {
    responded = performance.now();
    timing.ttfb = round(responded - sent);
    headers = h;
  });
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('trailers', (t) => (trailers = t));
  try {
    await until(stream, 'end', deadline);
  } catch {
    stream.destroy();
    if (deadline.expired) throw deadline.timedOut();
    // The request left: whatever broke the call, it is not retried.
    if (stream.rstCode && stream.rstCode !== constants.NGHTTP2_NO_ERROR && stream.rstCode !== constants.NGHTTP2_REFUSED_STREAM) {
      return { httpStatus: 0, headers, trailers, body: Buffer.alloc(0), resetCode: stream.rstCode };
    }
    if (!responded) throw new ConnectionFailure('reset', 'the connection closed before the server answered');
  }
  if (responded) timing.transfer = since(responded);
  // Closing the session under an open stream costs an error object per check: let it close first.
  if (!stream.closed) await new Promise((resolve) => stream.once('close', resolve));
  return { httpStatus: Number(headers[':status'] ?? 0), headers, trailers, body: Buffer.concat(chunks) };
}

/** The health status and message of an answer, per SPEC 3.1. */
function interpret(answer: Answer, service: string): [GrpcStatus, string] {
  const named = service === '' ? 'the server' : `the service "${service}"`;
  // grpc-js reports a reset call as INTERNAL.
  if (answer.resetCode !== undefined) return ['UNKNOWN', `the server answered INTERNAL: the server reset the call (HTTP/2 error ${answer.resetCode})`];
  const code = answer.httpStatus !== 200 ? codeOfHttpStatus(answer.httpStatus) : Number(answer.trailers['grpc-status'] ?? answer.headers['grpc-status'] ?? NaN);
  const serverMessage = grpcMessage(answer.trailers['grpc-message'] ?? answer.headers['grpc-message']);
  const detail = serverMessage ? `: ${serverMessage}` : answer.httpStatus !== 200 ? ` (HTTP status ${answer.httpStatus})` : '';
  switch (code) {
    case Code.OK:
      break;
    case Code.NOT_FOUND:
      return ['SERVICE_UNKNOWN', `the server does not know ${named} (NOT_FOUND)`];
    case Code.UNIMPLEMENTED:
      return ['UNIMPLEMENTED', `the server has no health service: ${CHECK_PATH} is UNIMPLEMENTED${detail}`];
    case Code.DEADLINE_EXCEEDED:
      return ['DEADLINE_EXCEEDED', `the server answered DEADLINE_EXCEEDED${detail}`];
    case Code.UNAVAILABLE:
      return ['UNAVAILABLE', `the server answered UNAVAILABLE${detail}`];
    default:
      return ['UNKNOWN', Number.isNaN(code) ? 'the server ended the call without a gRPC status' : `the server answered ${CODE_NAMES[code] ?? `code ${code}`}${detail}`];
  }
  const status = decodeStatus(answer.body);
  switch (status) {
    case HealthCheckResponse_ServingStatus.SERVING:
      return ['SERVING', `${named} is SERVING`];
    case HealthCheckResponse_ServingStatus.NOT_SERVING:
      return ['NOT_SERVING', `${named} is NOT_SERVING`];
    case HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN:
      return ['SERVICE_UNKNOWN', `the server does not know ${named} (SERVICE_UNKNOWN)`];
    case HealthCheckResponse_ServingStatus.UNKNOWN:
      return ['UNKNOWN', `${named} reports its status as UNKNOWN`];
    default:
      return ['UNKNOWN', status === undefined ? 'the answer is not a health check response' : `the server answered an unknown serving status ${status}`];
  }
}

/** The serving status in a length-prefixed, uncompressed HealthCheckResponse, if it is one. */
function decodeStatus(body: Buffer): number | undefined {
  if (body.length < 5 || body[0] !== 0 || body.readUInt32BE(1) !== body.length - 5) return undefined;
  try {
    return fromBinary(HealthCheckResponseSchema, body.subarray(5)).status;
  } catch {
    return undefined;
  }
}

/** grpc-message is percent-encoded (gRPC over HTTP/2). */
function grpcMessage(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value.join(', ') : (value ?? '');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
