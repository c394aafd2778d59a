import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { SecureContext, TLSSocket } from 'node:tls';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { HealthCheckRequestSchema, HealthCheckResponse_ServingStatus, HealthCheckResponseSchema } from '../../proto/gen/grpc/health/v1/health_pb.js';
import type { DestinationPolicy } from '../domain/destinations.ts';
import type { CertificateCheck, GrpcStatus, ProbeResult, Timing } from '../domain/monitors/check-results.ts';
import type { GrpcConfig } from '../domain/monitors/monitor-rules.ts';
import { withCertificate } from './certificate-record.ts';
import { ConnectionFailure, Deadline, emptyTiming, openConnection, parseTarget, round, type Target, type TlsSettings, withRetries } from './connection.ts';
import { type Headers, headerValue, type Http2Answer, Http2Connection } from './http2-call.ts';
import { degradedMessage, failedProbe, probeResult } from './outcome.ts';

/**
 * The gRPC check (SPEC 2.8, 3.1): a unary grpc.health.v1.Health/Check on a fresh connection that
 * this module resolves, connects and secures itself, so each phase is measured rather than
 * estimated, then speaks HTTP/2 over it (http2-call.ts). The health request is only sent once the
 * server has completed the HTTP/2 handshake: a plaintext monitor aimed at a TLS port never sends one.
 */

export type GrpcProbeConfig = Pick<GrpcConfig, 'uri' | 'service' | 'tls' | 'metadata' | 'timeout' | 'degraded' | 'retry'>;

const CHECK_PATH = '/grpc.health.v1.Health/Check';

/** gRPC status codes by number, for messages. */
const CODE_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
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
  /** Where the check may connect (domain/destinations.ts); absent: anywhere. */
  destinations?: DestinationPolicy;
}

export async function probeGrpc(monitor: GrpcProbeConfig, options: GrpcProbeOptions): Promise<ProbeResult> {
  const deadline = new Deadline(monitor.timeout, options.stop);
  const target = parseTarget(monitor.uri);
  const timing = emptyTiming();
  let attempts = 0;
  let connection: Http2Connection | undefined;
  // Over TLS, the certificate of the last handshake is carried beside the outcome, failed or not.
  let certificate: CertificateCheck | undefined;
  const tls: TlsSettings | undefined =
    monitor.tls === 'plaintext'
      ? undefined
      : {
          verify: monitor.tls === 'verify',
          alpn: ['h2'],
          trust: options.trust,
          onCertificate: (found) => {
            certificate = found;
          },
        };
  try {
    connection = await withRetries(monitor.retry, deadline, async () => {
      attempts++;
      return handshake(await openConnection(target, deadline, timing, tls, options.destinations), monitor.tls, deadline);
    });
    const answer = await call(connection, target, monitor, options.userAgent, deadline, timing);
    const latency = deadline.elapsed();
    timing.total = latency;
    const [status, message] = interpret(answer, monitor.service);
    if (status !== 'SERVING') return withCertificate(probeResult('down', latency, timing, attempts, message, status), certificate);
    return withCertificate(
      monitor.degraded !== null && latency > monitor.degraded
        ? probeResult('degraded', latency, timing, attempts, degradedMessage('SERVING', latency, monitor.degraded), status)
        : probeResult('up', latency, timing, attempts, message, status),
      certificate,
    );
  } catch (error) {
    if (!(error instanceof ConnectionFailure)) throw error;
    const status: GrpcStatus = error.kind === 'timeout' ? 'DEADLINE_EXCEEDED' : 'UNAVAILABLE';
    return withCertificate(failedProbe(deadline, timing, attempts, error.message, status), certificate);
  } finally {
    connection?.close();
    deadline.clear();
  }
}

/**
 * Starts HTTP/2 on a connected socket and waits for the server's SETTINGS frame: proof that the
 * other end speaks HTTP/2 the way the monitor connects (TLS or h2c).
 */
async function handshake(socket: Socket | TLSSocket, mode: GrpcConfig['tls'], deadline: Deadline): Promise<Http2Connection> {
  if (mode !== 'plaintext' && (socket as TLSSocket).alpnProtocol !== 'h2') {
    socket.destroy();
    throw new ConnectionFailure('protocol', 'the server does not offer HTTP/2 over TLS (ALPN h2), which gRPC requires');
  }
  try {
    return await Http2Connection.open(socket, deadline);
  } catch (error) {
    if (!(error instanceof ConnectionFailure) || error.kind !== 'protocol' || mode !== 'plaintext') throw error;
    throw new ConnectionFailure('protocol', `${error.message}: if it serves TLS, set the TLS mode to verify or skip-verify`);
  }
}

/** The health request for `service`, length-prefixed and uncompressed. */
function healthRequest(service: string): Buffer {
  const message = toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema, { service }));
  const framed = Buffer.alloc(5 + message.length);
  framed.writeUInt32BE(message.length, 1);
  framed.set(message, 5);
  return framed;
}

/** Sends the health request and collects the whole answer. Failures here are never retried. */
async function call(
  connection: Http2Connection,
  target: Target,
  monitor: GrpcProbeConfig,
  userAgent: string,
  deadline: Deadline,
  timing: Timing,
): Promise<Http2Answer> {
  const headers: Headers = [
    [':method', 'POST'],
    [':scheme', monitor.tls === 'plaintext' ? 'http' : 'https'],
    [':path', CHECK_PATH],
    [':authority', target.authority],
    ['content-type', 'application/grpc'],
    ['te', 'trailers'],
    ['grpc-timeout', `${Math.max(1, Math.floor(deadline.remaining()))}m`],
    ['user-agent', userAgent],
  ];
  for (const name in monitor.metadata) if (name !== 'user-agent' && name !== 'te') headers.push([name, monitor.metadata[name]!]);
  const sent = performance.now();
  const answer = await connection.call(headers, healthRequest(monitor.service), deadline);
  if (answer.respondedAt) {
    timing.ttfb = round(answer.respondedAt - sent);
    timing.transfer = round(performance.now() - answer.respondedAt);
  }
  return answer;
}

/** The health status and message of an answer, per SPEC 3.1. */
function interpret(answer: Http2Answer, service: string): [GrpcStatus, string] {
  const named = service === '' ? 'the server' : `the service "${service}"`;
  // grpc-js reports a reset call as INTERNAL.
  if (answer.resetCode !== undefined) return ['UNKNOWN', `the server answered INTERNAL: the server reset the call (HTTP/2 error ${answer.resetCode})`];
  const httpStatus = Number(headerValue(answer.headers, ':status') ?? 0);
  const field = (name: string) => headerValue(answer.trailers, name) ?? headerValue(answer.headers, name);
  const code = httpStatus !== 200 ? codeOfHttpStatus(httpStatus) : Number(field('grpc-status') ?? NaN);
  const serverMessage = grpcMessage(field('grpc-message'));
  const detail = serverMessage ? `: ${serverMessage}` : httpStatus !== 200 ? ` (HTTP status ${httpStatus})` : '';
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
      return [
        'UNKNOWN',
        Number.isNaN(code) ? 'the server ended the call without a gRPC status' : `the server answered ${CODE_NAMES[code] ?? `code ${code}`}${detail}`,
      ];
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
  // The usual answer, only field 1 (the status, a varint: tag 0x08) with a value below 128 in
  // one byte, is read directly; any other is left to the protobuf library.
  if (body.length === 7 && body[5] === 0x08 && body[6]! < 0x80) return body[6];
  try {
    return fromBinary(HealthCheckResponseSchema, body.subarray(5)).status;
  } catch {
    return undefined;
  }
}

/** grpc-message is percent-encoded (gRPC over HTTP/2). */
function grpcMessage(value: string | undefined): string {
  const text = value ?? '';
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
