/**
 * TLS servers on loopback with certificates made here (selfsigned): a test CA, and server
 * certificates signed by it or by themselves, valid for as long as a test needs, for the names it
 * needs. Each server records the name each client asked for (SNI), so a test sees what was sent.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createSecureContext, createServer, type TLSSocket } from 'node:tls';
import { generate } from 'selfsigned';

export interface KeyAndCert {
  key: string;
  cert: string;
}

export type AltName = { type: 2; value: string } | { type: 7; ip: string };

const DAY_MS = 86_400_000;

/** The names of a certificate for every loopback way of reaching a test server. */
export const LOOPBACK_NAMES: AltName[] = [
  { type: 2, value: 'localhost' },
  { type: 7, ip: '127.0.0.1' },
  { type: 7, ip: '::1' },
];

/** A certificate authority of the test's own (trust it with trustStore([ca.cert])). */
export async function makeTestCa(): Promise<KeyAndCert> {
  const ca = await generate([{ name: 'commonName', value: 'Statusdesk Test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - 30 * DAY_MS),
    notAfterDate: new Date(Date.now() + 3650 * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  return { key: ca.private, cert: ca.cert };
}

export interface ServerCertOptions {
  /** The names it is for; default every loopback name. */
  names?: AltName[];
  /** Its signer; none: self-signed. */
  ca?: KeyAndCert;
  /** When it starts and ends, from now: by default a day ago to 90 days on. */
  validFromMs?: number;
  validForMs?: number;
  commonName?: string;
}

/** A server certificate for `names`, signed by `ca` (or by itself), valid over the span asked for. */
export async function makeServerCert(options: ServerCertOptions = {}): Promise<KeyAndCert> {
  const from = Date.now() + (options.validFromMs ?? -DAY_MS);
  const leaf = await generate([{ name: 'commonName', value: options.commonName ?? 'statusdesk test server' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(from),
    notAfterDate: new Date(from + (options.validForMs ?? 91 * DAY_MS)),
    ...(options.ca ? { ca: { key: options.ca.key, cert: options.ca.cert } } : {}),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: options.names ?? LOOPBACK_NAMES },
    ],
  });
  return { key: leaf.private, cert: leaf.cert };
}

export interface TlsPeer {
  port: number;
  /** `host:port` of the server. */
  uri: string;
  /** TCP connections accepted. */
  connections: number;
  /** The server names handshakes asked for (SNI), in order; a handshake without one adds none. */
  serverNames: string[];
  close(): Promise<void>;
}

export interface TlsPeerOptions {
  host?: '127.0.0.1' | '::1';
  /** Certificates served to clients asking for these names (SNI); others get `certificate`. */
  byName?: Record<string, KeyAndCert>;
  /** Holds each handshake this long before answering (where the client sends a name). */
  delayMs?: number;
}

/** A TLS server that completes the handshake and closes the connection. */
export async function startTlsPeer(certificate: KeyAndCert, options: TlsPeerOptions = {}): Promise<TlsPeer> {
  const host = options.host ?? '127.0.0.1';
  const contexts = new Map(Object.entries(options.byName ?? {}).map(([name, pair]) => [name, createSecureContext(pair)]));
  const serverNames: string[] = [];
  const sockets = new Set<TLSSocket>();
  const server = createServer(
    {
      ...certificate,
      SNICallback: (name, done) => {
        serverNames.push(name);
        const answer = () => done(null, contexts.get(name));
        if (options.delayMs) setTimeout(answer, options.delayMs);
        else answer();
      },
    },
    (socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
      socket.end();
    },
  );
  server.on('tlsClientError', () => {});
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const peer: TlsPeer = {
    port,
    uri: host === '::1' ? `[::1]:${port}` : `${host}:${port}`,
    connections: 0,
    serverNames,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', () => peer.connections++);
  return peer;
}

export const days = (n: number) => n * DAY_MS;
