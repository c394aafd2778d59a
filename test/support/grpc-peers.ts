/**
 * Real network peers for the TCP and gRPC probe tests, all on loopback (127.0.0.1 or ::1) only.
 * Every peer has a close(); nothing here outlives its test file (listeners are unref'd, the
 * blocked listener's wait is bounded).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import * as http2 from 'node:http2';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { Worker } from 'node:worker_threads';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatusMap } from 'grpc-health-check';
import { generate } from 'selfsigned';
import {
  type HealthCheckRequest,
  HealthCheckRequestSchema,
  type HealthCheckResponse,
  HealthCheckResponse_ServingStatus,
  HealthCheckResponseSchema,
} from '../../proto/gen/grpc/health/v1/health_pb.js';
import type { GrpcStatus } from '../../server/domain/monitors/check-results.ts';

export type LoopbackHost = '127.0.0.1' | '::1';

/** `host:port` as a monitor URI (IPv6 in brackets). */
export function hostPort(host: string, port: number): string {
  return net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
}

// ---- the health protocol, encoded with the project's generated schemas -----------------------

export const CHECK_PATH = '/grpc.health.v1.Health/Check';

const serializeRequest = (message: HealthCheckRequest) => Buffer.from(toBinary(HealthCheckRequestSchema, message));
const deserializeRequest = (bytes: Buffer) => fromBinary(HealthCheckRequestSchema, bytes);
const serializeResponse = (message: HealthCheckResponse) => Buffer.from(toBinary(HealthCheckResponseSchema, message));
const deserializeResponse = (bytes: Buffer) => fromBinary(HealthCheckResponseSchema, bytes);

/** grpc.health.v1.Health with only Check, for hand-written handlers and for the grpc-js client. */
export const healthCheckService: grpc.ServiceDefinition = {
  check: {
    path: CHECK_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: serializeRequest,
    requestDeserialize: deserializeRequest,
    responseSerialize: serializeResponse,
    responseDeserialize: deserializeResponse,
    originalName: 'Check',
  },
};

/** An unrelated service, so that "a server without the health service" still serves something. */
const echoService: grpc.ServiceDefinition = {
  echo: {
    path: '/test.Echo/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: Buffer) => value,
    requestDeserialize: (value: Buffer) => value,
    responseSerialize: (value: Buffer) => value,
    responseDeserialize: (value: Buffer) => value,
  },
};

export const ServingStatus = HealthCheckResponse_ServingStatus;

// ---- grpc-js servers --------------------------------------------------------------------------

/** What a hand-written Check handler answers: a serving status, a gRPC error, or nothing ever. */
export type CheckAnswer = { status: HealthCheckResponse_ServingStatus } | { code: grpc.status; details: string } | 'never';

export interface ReceivedCall {
  service: string;
  metadata: grpc.Metadata;
}

export interface GrpcPeerOptions {
  /** Served by grpc-health-check's HealthImplementation (the reference implementation). */
  health?: ServingStatusMap;
  /** A hand-written Check handler instead. Neither: the server has no health service at all. */
  check?: (request: HealthCheckRequest) => CheckAnswer;
  /** Waits this long before answering. */
  delayMs?: number;
  /** Serve TLS with this key and certificate instead of h2c. */
  tls?: { key: string; cert: string };
  host?: LoopbackHost;
}

export interface GrpcPeer {
  host: LoopbackHost;
  port: number;
  /** `host:port` for a monitor and for grpc-js. */
  uri: string;
  /** Every Check call that reached a handler. */
  calls: ReceivedCall[];
  close(): Promise<void>;
}

export async function startGrpcPeer(options: GrpcPeerOptions = {}): Promise<GrpcPeer> {
  const host = options.host ?? '127.0.0.1';
  const calls: ReceivedCall[] = [];
  const pending = new Set<() => void>();
  const server = new grpc.Server();
  server.addService(echoService, { echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => callback(null, call.request) });

  const later = (answer: () => void) => {
    if (!options.delayMs) return answer();
    const timer = setTimeout(() => {
      pending.delete(cancel);
      answer();
    }, options.delayMs);
    const cancel = () => clearTimeout(timer);
    pending.add(cancel);
  };

  if (options.health) {
    const health = new HealthImplementation(options.health);
    // Records each call, then lets the reference implementation answer it.
    health.addToServer({
      addService: (definition, implementation) => {
        const check = implementation['check'] as grpc.handleUnaryCall<{ service: string }, unknown>;
        server.addService(definition as grpc.ServiceDefinition, {
          ...implementation,
          check: (call: grpc.ServerUnaryCall<{ service: string }, unknown>, callback: grpc.sendUnaryData<unknown>) => {
            calls.push({ service: call.request.service, metadata: call.metadata });
            later(() => check(call, callback));
          },
        });
      },
    });
  } else if (options.check) {
    const decide = options.check;
    server.addService(healthCheckService, {
      check: (call: grpc.ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>, callback: grpc.sendUnaryData<HealthCheckResponse>) => {
        calls.push({ service: call.request.service, metadata: call.metadata });
        const answer = decide(call.request);
        if (answer === 'never') return; // the call stays open until the client gives up
        later(() => {
          if ('status' in answer) callback(null, create(HealthCheckResponseSchema, { status: answer.status }));
          else callback({ code: answer.code, details: answer.details });
        });
      },
    });
  }

  const credentials = options.tls
    ? grpc.ServerCredentials.createSsl(null, [{ private_key: Buffer.from(options.tls.key), cert_chain: Buffer.from(options.tls.cert) }], false)
    : grpc.ServerCredentials.createInsecure();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(hostPort(host, 0), credentials, (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    host,
    port,
    uri: hostPort(host, port),
    calls,
    async close() {
      for (const cancel of pending) cancel();
      server.forceShutdown();
    },
  };
}

// ---- a hand-made HTTP/2 gRPC peer: sees every connection, session and stream -------------------

export interface RawGrpcPeerOptions {
  /**
   * 'never': accept the call and stay silent (ignoring grpc-timeout); 'reset': reset the stream
   * (RST_STREAM INTERNAL_ERROR) once the request arrived; else answer this serving status.
   */
  answer: 'never' | 'reset' | HealthCheckResponse_ServingStatus;
  tls?: { key: string; cert: string };
  host?: LoopbackHost;
}

export interface RawGrpcPeer {
  port: number;
  uri: string;
  /** TCP connections accepted. */
  connections: number;
  /** TLS peer: handshakes that failed (e.g. a client speaking h2c). */
  tlsClientErrors: number;
  /** HTTP/2 sessions established. */
  sessions: number;
  /** HTTP/2 streams opened, with their request headers. */
  streams: http2.IncomingHttpHeaders[];
  close(): Promise<void>;
}

/**
 * A gRPC health server written directly on node:http2, so a test can count what reached it at
 * every level, down to HTTP/2 streams.
 */
export async function startRawGrpcPeer(options: RawGrpcPeerOptions): Promise<RawGrpcPeer> {
  const host = options.host ?? '127.0.0.1';
  const server: http2.Http2Server | http2.Http2SecureServer = options.tls
    ? http2.createSecureServer({ key: options.tls.key, cert: options.tls.cert, allowHTTP1: false })
    : http2.createServer();
  const sockets = new Set<net.Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  const peer: RawGrpcPeer = {
    port: 0,
    uri: '',
    connections: 0,
    tlsClientErrors: 0,
    sessions: 0,
    streams: [],
    async close() {
      for (const session of sessions) session.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', (socket: net.Socket) => {
    peer.connections++;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => peer.tlsClientErrors++);
  server.on('session', (session: http2.ServerHttp2Session) => {
    peer.sessions++;
    sessions.add(session);
    session.on('error', () => {});
    session.once('close', () => sessions.delete(session));
  });
  server.on('stream', (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => {
    peer.streams.push(headers);
    stream.on('error', () => {});
    stream.resume();
    if (options.answer === 'never') return;
    if (options.answer === 'reset') {
      stream.once('end', () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
      return;
    }
    const status = options.answer;
    stream.once('end', () => {
      const message = serializeResponse(create(HealthCheckResponseSchema, { status }));
      const frame = Buffer.alloc(5 + message.length);
      frame.writeUInt32BE(message.length, 1);
      message.copy(frame, 5);
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(frame);
    });
  });
  server.listen(0, host);
  await once(server, 'listening');
  server.unref();
  peer.port = (server.address() as net.AddressInfo).port;
  peer.uri = hostPort(host, peer.port);
  return peer;
}

// ---- TCP peers ----------------------------------------------------------------------------------

export interface TcpListener {
  port: number;
  uri: string;
  /** Connections accepted so far. */
  connections: number;
  /** Accepted connections that the other end has closed since. */
  closedByPeer: number;
  close(): Promise<void>;
}

/**
 * A plain TCP listener that accepts and counts connections, and sees them closed. It never sends
 * a byte; with `closeAtOnce` it closes each connection as soon as it is accepted.
 */
export async function startTcpListener(host: LoopbackHost = '127.0.0.1', port = 0, closeAtOnce = false): Promise<TcpListener> {
  const sockets = new Set<net.Socket>();
  const listener: TcpListener = {
    port: 0,
    uri: '',
    connections: 0,
    closedByPeer: 0,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = net.createServer((socket) => {
    listener.connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.resume();
    // Unless closeAtOnce, this side never closes a socket before close(): a close is the other end's.
    socket.once('close', () => {
      listener.closedByPeer++;
      sockets.delete(socket);
    });
    if (closeAtOnce) socket.destroy();
  });
  server.listen(port, host);
  await once(server, 'listening');
  server.unref();
  listener.port = (server.address() as net.AddressInfo).port;
  listener.uri = hostPort(host, listener.port);
  return listener;
}

/** A port number nothing listens on: bound, then closed. */
export async function closedPort(host: LoopbackHost = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Blackhole {
  port: number;
  uri: string;
  close(): Promise<void>;
}

const BLACKHOLE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');
const server = net.createServer();
server.listen({ host: '127.0.0.1', port: 0, backlog: 1 }, () => {
  parentPort.postMessage(server.address().port);
  // Blocks this thread so that it never accepts: the kernel's accept queue fills and further
  // SYNs are dropped. Bounded: woken by close(), or gives up after a minute.
  Atomics.wait(new Int32Array(workerData.wake), 0, 0, 60000);
  server.close();
});
`;

/**
 * A loopback port where a TCP connect never completes: a listener with a backlog of 1 whose
 * thread never accepts, its accept queue filled by connections made here, so the kernel drops
 * further SYNs.
 */
export async function startBlackhole(): Promise<Blackhole> {
  const wake = new SharedArrayBuffer(4);
  const worker = new Worker(BLACKHOLE_WORKER, { eval: true, workerData: { wake } });
  worker.unref();
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const fillers: net.Socket[] = [];
  const release = async () => {
    for (const socket of fillers) socket.destroy();
    const flag = new Int32Array(wake);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
    await worker.terminate();
  };
  // Fill the queue until a connect stays pending: that one proves the port is a blackhole.
  for (let i = 0; ; i++) {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.on('error', () => {});
    fillers.push(socket);
    const connected = await Promise.race([once(socket, 'connect').then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 150))]);
    if (!connected) break;
    if (i === 16) {
      await release();
      throw new Error('could not fill the accept queue of the blackhole listener');
    }
  }
  return { port, uri: hostPort('127.0.0.1', port), close: release };
}

/** A TLS listener that does not offer HTTP/2 (no ALPN). */
export async function startTlsWithoutAlpn(key: string, cert: string): Promise<{ port: number; uri: string; close(): Promise<void> }> {
  const sockets = new Set<tls.TLSSocket>();
  const server = tls.createServer({ key, cert }, (socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => {});
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  server.unref();
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    uri: hostPort('127.0.0.1', port),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---- a resolver that fails ------------------------------------------------------------------------

/**
 * Runs `run` while the probes' `lookup` (their named import of node:dns/promises) fails with `code`
 * the way getaddrinfo does for an unknown name, by replacing the builtin's export: no resolver is
 * ever asked. Use it with `localhost`, which the hosts file answers, so that even if the
 * replacement did not take, no query would leave the machine (and the test would fail).
 */
export async function withFailingResolver<T>(code: string, run: () => Promise<T>): Promise<T> {
  const dnsPromises = createRequire(import.meta.url)('node:dns/promises') as { lookup: unknown };
  const original = dnsPromises.lookup;
  const asked: string[] = [];
  dnsPromises.lookup = async (hostname: string) => {
    asked.push(hostname);
    throw Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), { code, hostname });
  };
  syncBuiltinESMExports();
  try {
    const result = await run();
    assert.ok(asked.length > 0, 'the probe resolved the name through node:dns/promises');
    return result;
  } finally {
    dnsPromises.lookup = original;
    syncBuiltinESMExports();
  }
}

// ---- certificates -------------------------------------------------------------------------------

export interface KeyAndCert {
  key: string;
  cert: string;
}

export interface TestCertificates {
  /** Self-signed, for localhost and 127.0.0.1. */
  selfSigned: KeyAndCert;
  /** A generated CA (trust it with trustStore([ca.cert])). */
  ca: KeyAndCert;
  /** Signed by `ca`, SAN IP 127.0.0.1 and DNS localhost. */
  leaf: KeyAndCert;
  /** Signed by `ca`, SAN DNS other.example only: the wrong name for a loopback target. */
  wrongName: KeyAndCert;
}

function leafExtensions(altNames: { type: 2 | 7; value?: string; ip?: string }[]) {
  return [
    { name: 'basicConstraints' as const, cA: false },
    { name: 'keyUsage' as const, digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage' as const, serverAuth: true },
    { name: 'subjectAltName' as const, altNames },
  ];
}

export async function makeCertificates(): Promise<TestCertificates> {
  const base = { keyType: 'ec', algorithm: 'sha256' } as const;
  const selfSigned = await generate([{ name: 'commonName', value: 'localhost' }], {
    ...base,
    extensions: leafExtensions([
      { type: 2, value: 'localhost' },
      { type: 7, ip: '127.0.0.1' },
    ]),
  });
  const ca = await generate([{ name: 'commonName', value: 'Statusdesk Test CA' }], {
    ...base,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const signer = { ca: { key: ca.private, cert: ca.cert } };
  const leaf = await generate([{ name: 'commonName', value: 'localhost' }], {
    ...base,
    ...signer,
    extensions: leafExtensions([
      { type: 2, value: 'localhost' },
      { type: 7, ip: '127.0.0.1' },
    ]),
  });
  const wrongName = await generate([{ name: 'commonName', value: 'other.example' }], {
    ...base,
    ...signer,
    extensions: leafExtensions([{ type: 2, value: 'other.example' }]),
  });
  const pair = (generated: { private: string; cert: string }) => ({ key: generated.private, cert: generated.cert });
  return { selfSigned: pair(selfSigned), ca: pair(ca), leaf: pair(leaf), wrongName: pair(wrongName) };
}

// ---- the grpc-js client's view, as a probe status ---------------------------------------------------

export interface GrpcJsCheckOptions {
  /** An IP-literal `host:port` only: grpc-js resolves names with DNS queries of its own. */
  uri: string;
  credentials: grpc.ChannelCredentials;
  service?: string;
  deadlineMs?: number;
  metadata?: Record<string, string>;
}

const STATUS_OF_CODE: Partial<Record<grpc.status, GrpcStatus>> = {
  [grpc.status.NOT_FOUND]: 'SERVICE_UNKNOWN',
  [grpc.status.UNIMPLEMENTED]: 'UNIMPLEMENTED',
  [grpc.status.DEADLINE_EXCEEDED]: 'DEADLINE_EXCEEDED',
  [grpc.status.UNAVAILABLE]: 'UNAVAILABLE',
};

const STATUS_OF_SERVING: Partial<Record<HealthCheckResponse_ServingStatus, GrpcStatus>> = {
  [HealthCheckResponse_ServingStatus.SERVING]: 'SERVING',
  [HealthCheckResponse_ServingStatus.NOT_SERVING]: 'NOT_SERVING',
  [HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN]: 'SERVICE_UNKNOWN',
};

/** Calls Health/Check with @grpc/grpc-js and names the outcome the way the probe's grpcStatus does. */
export async function grpcJsCheck(options: GrpcJsCheckOptions): Promise<GrpcStatus> {
  const client = new grpc.Client(options.uri, options.credentials);
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(options.metadata ?? {})) metadata.set(key, value);
  try {
    return await new Promise<GrpcStatus>((resolve) => {
      client.makeUnaryRequest(
        CHECK_PATH,
        serializeRequest,
        deserializeResponse,
        create(HealthCheckRequestSchema, { service: options.service ?? '' }),
        metadata,
        { deadline: Date.now() + (options.deadlineMs ?? 2000) },
        (error, response) => {
          if (error) resolve(STATUS_OF_CODE[error.code] ?? 'UNKNOWN');
          else resolve((response && STATUS_OF_SERVING[response.status]) ?? 'UNKNOWN');
        },
      );
    });
  } finally {
    client.close();
  }
}

/** grpc-js TLS credentials that accept any certificate, like the probe's skip-verify. */
export function grpcJsSkipVerify(): grpc.ChannelCredentials {
  return grpc.credentials.createSsl(null, null, null, { rejectUnauthorized: false, checkServerIdentity: () => undefined });
}
