/**
 * A real DNS server for the DNS monitor's tests and bench, on loopback only (127.0.0.1 or ::1):
 * UDP and TCP on the same port, answers built with dns-packet from a zone the test gives. Each
 * name of the zone answers its records, or a failure of its own: NXDOMAIN, SERVFAIL, REFUSED, or
 * no answer at all (the client times out). A name not in the zone is NXDOMAIN; a name without
 * records of the asked type is NOERROR with no answers (no data). An answer too big for UDP (512
 * bytes, or what the client's EDNS option says) is sent truncated, so the client asks again over
 * TCP, as a real server makes it. Nothing here outlives close().
 */
import { once } from 'node:events';
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import packet from 'dns-packet';

export type LoopbackHost = '127.0.0.1' | '::1';

/** The record types the DNS monitor asks for, as the zone holds their data (dns-packet's shapes). */
export interface ZoneRecords {
  A?: string[];
  AAAA?: string[];
  CNAME?: string;
  MX?: { preference: number; exchange: string }[];
  /** Each record is one or more strings (a long TXT is several strings of at most 255 bytes). */
  TXT?: (string | string[])[];
  NS?: string[];
  SRV?: { priority: number; weight: number; port: number; target: string }[];
  SOA?: { mname: string; rname: string; serial: number; refresh: number; retry: number; expire: number; minimum: number };
  PTR?: string[];
}

/** What a name of the zone answers: its records, or a failure. */
export type ZoneEntry =
  | (ZoneRecords & { delayMs?: number })
  | { fail: 'NXDOMAIN' | 'SERVFAIL' | 'REFUSED' | 'NOTIMP'; delayMs?: number }
  /** No answer at all: the query is read and dropped. */
  | { silent: true };

export type Zone = Record<string, ZoneEntry>;

export interface DnsServer {
  host: LoopbackHost;
  port: number;
  /** The server as a resolver address: `127.0.0.1:5353`, `[::1]:5353`. */
  address: string;
  /** Queries received, by transport; each `name TYPE`, in order. */
  queries: { udp: string[]; tcp: string[] };
  /** Replaces what a name answers. */
  set(name: string, entry: ZoneEntry): void;
  close(): Promise<void>;
}

const TTL = 300;
/** The UDP answer a client without EDNS takes (RFC 1035). */
const PLAIN_UDP_LIMIT = 512;

/** The response codes the server answers, as the low four bits of the header's flags (RFC 1035 4.1.1). */
const RCODES = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

const canonical = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** The answer records of `name` for `type`, following a CNAME of the zone for any other type (as a recursive resolver answers). */
function answersOf(zone: Map<string, ZoneEntry>, name: string, type: string, depth = 0): packet.Answer[] | undefined {
  const entry = zone.get(canonical(name));
  if (!entry || 'fail' in entry || 'silent' in entry) return undefined;
  const own = (entry as Record<string, unknown>)[type];
  if (type === 'CNAME' || own !== undefined || entry.CNAME === undefined) return own === undefined ? [] : recordsOf(name, type, own);
  const cname = { type: 'CNAME', name, ttl: TTL, data: entry.CNAME } as packet.Answer;
  if (depth > 8) return [cname];
  return [cname, ...(answersOf(zone, entry.CNAME, type, depth + 1) ?? [])];
}

function recordsOf(name: string, type: string, data: unknown): packet.Answer[] {
  const items = Array.isArray(data) ? data : [data];
  return items.map((item) => ({ type, name, ttl: TTL, data: item }) as packet.Answer);
}

/** The answer to one query, whole: what UDP may have to truncate. */
function answer(zone: Map<string, ZoneEntry>, query: packet.Packet): { response: packet.Packet; silent: boolean; delayMs: number } {
  const question = query.questions?.[0];
  const base = { id: query.id, type: 'response' as const, questions: query.questions ?? [] };
  const flags = (rcode: keyof typeof RCODES) => packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | RCODES[rcode];
  if (!question) return { response: { ...base, flags: flags('FORMERR') }, silent: false, delayMs: 0 };
  const entry = zone.get(canonical(question.name));
  const delayMs = entry && 'delayMs' in entry ? (entry.delayMs ?? 0) : 0;
  if (entry && 'silent' in entry) return { response: base, silent: true, delayMs };
  if (entry && 'fail' in entry) return { response: { ...base, flags: flags(entry.fail) }, silent: false, delayMs };
  const answers = answersOf(zone, question.name, question.type);
  if (answers === undefined) return { response: { ...base, flags: flags('NXDOMAIN') }, silent: false, delayMs };
  return { response: { ...base, flags: flags('NOERROR'), answers }, silent: false, delayMs };
}

/** The largest UDP answer the query's client takes: its EDNS option's size, else 512 bytes. */
function udpLimit(query: packet.Packet): number {
  const opt = query.additionals?.find((record) => record.type === 'OPT') as { udpPayloadSize?: number } | undefined;
  return Math.max(PLAIN_UDP_LIMIT, opt?.udpPayloadSize ?? PLAIN_UDP_LIMIT);
}

const asText = (query: packet.Packet) => `${query.questions?.[0]?.name ?? '?'} ${query.questions?.[0]?.type ?? '?'}`;

/** Starts a DNS server on `host` (UDP and TCP on one free port) answering from `zone`. */
export async function startDnsServer(zoneRecords: Zone, host: LoopbackHost = '127.0.0.1'): Promise<DnsServer> {
  const zone = new Map(Object.entries(zoneRecords).map(([name, entry]) => [canonical(name), entry]));
  const queries = { udp: [] as string[], tcp: [] as string[] };
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, send: () => void) => {
    if (ms <= 0) return send();
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, ms);
    timers.add(timer);
  };

  const onQuery = (udp: dgram.Socket) => (message: Buffer, from: dgram.RemoteInfo) => {
    let query: packet.Packet;
    try {
      query = packet.decode(message);
    } catch {
      return;
    }
    queries.udp.push(asText(query));
    const { response, silent, delayMs } = answer(zone, query);
    if (silent) return;
    let bytes = packet.encode(response);
    // Too big for UDP: the header and question alone, marked truncated (TC), as RFC 1035 says.
    if (bytes.length > udpLimit(query)) bytes = packet.encode({ ...response, flags: (response.flags ?? 0) | packet.TRUNCATED_RESPONSE, answers: [] });
    later(delayMs, () => udp.send(bytes, from.port, from.address));
  };

  const sockets = new Set<net.Socket>();
  const tcp = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      // Each message is a 2-byte length, then the message (RFC 1035 4.2.2).
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const length = buffered.readUInt16BE(0);
        const message = buffered.subarray(2, 2 + length);
        buffered = buffered.subarray(2 + length);
        let query: packet.Packet;
        try {
          query = packet.decode(message);
        } catch {
          socket.destroy();
          return;
        }
        queries.tcp.push(asText(query));
        const { response, silent, delayMs } = answer(zone, query);
        if (silent) continue;
        later(delayMs, () => socket.writable && socket.write(packet.streamEncode(response)));
      }
    });
  });

  // UDP takes a free port first; TCP then takes the same number, which another program may hold: a few tries.
  let udp: dgram.Socket;
  let port: number;
  for (let attempt = 0; ; attempt++) {
    udp = dgram.createSocket(host === '::1' ? 'udp6' : 'udp4');
    udp.on('message', onQuery(udp));
    udp.bind(0, host);
    await once(udp, 'listening');
    port = udp.address().port;
    try {
      tcp.listen(port, host);
      await once(tcp, 'listening');
      break;
    } catch (error) {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      if (attempt >= 10) throw error;
    }
  }
  udp.unref();
  tcp.unref();

  return {
    host,
    port,
    address: host === '::1' ? `[::1]:${port}` : `${host}:${port}`,
    queries,
    set(name, entry) {
      zone.set(canonical(name), entry);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await Promise.all([new Promise<void>((resolve) => udp.close(() => resolve())), new Promise<void>((resolve) => tcp.close(() => resolve()))]);
    },
  };
}

/** A free loopback UDP port with nothing listening on it: queries there are refused at once (ICMP port unreachable). */
export async function closedUdpPort(host: LoopbackHost = '127.0.0.1'): Promise<number> {
  const socket = dgram.createSocket(host === '::1' ? 'udp6' : 'udp4');
  socket.bind(0, host);
  await once(socket, 'listening');
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}
