import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * The destination policy: where the service may connect. Every outbound connection asks it: the
 * probes (TCP, gRPC, HTTP, on every redirect hop), notification channels and subscriber webhooks,
 * mail relays, OTLP endpoints, and the Client ID Metadata Document fetch (which only accepts
 * public addresses, `isPublicAddress`).
 *
 * Checking loopback and private hosts is what the service is for, so they stay allowed. Refused,
 * unless the owner allows them in `STATUSDESK_ALLOWED_DESTINATIONS`:
 *
 * - link-local addresses (169.254.0.0/16, fe80::/10): nothing a monitor checks lives there, and
 *   cloud metadata services do;
 * - cloud metadata addresses in every form (169.254.169.254 written in decimal, hex or octal,
 *   inside IPv6 as ::ffff:a9fe:a9fe or ::a9fe:a9fe; fd00:ec2::254, fd20:ce::254,
 *   100.100.100.200; the name metadata.google.internal);
 * - the service's own ports on a loopback or unspecified address, or on an address it listens on.
 *
 * The address judged is the one connected to, after DNS resolution, so a name that resolves to a
 * refused address (DNS rebinding included) is refused too. `refusal` runs on every check: it
 * parses an IPv4 address without allocating, and reads the allow-list only for a refusal.
 */

export const ALLOW_SETTING = 'STATUSDESK_ALLOWED_DESTINATIONS';

/** Why a destination is refused. */
export type Refusal = 'metadata' | 'link-local' | 'own-port';

const WHY: Record<Refusal, string> = {
  metadata: 'a cloud metadata address',
  'link-local': 'a link-local address',
  'own-port': "this service's own port",
};

/** What an address is, as far as the policy cares. */
export type AddressKind = 'metadata' | 'link-local' | 'loopback' | 'unspecified' | 'other';

// ---- addresses ---------------------------------------------------------------------------------

/** An IPv4 address in dotted decimal as a number (0 to 2^32 - 1), or -1. Allocates nothing. */
export function parseIPv4(text: string): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + part;
      dots++;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      // A leading zero would read as octal to some parsers: not dotted decimal.
      if (digits === 1 && part === 0) return -1;
      part = part * 10 + (c - 48);
      if (part > 255) return -1;
      digits++;
    } else {
      return -1;
    }
  }
  if (dots !== 3 || digits === 0) return -1;
  return value * 256 + part;
}

const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** An IPv6 address (a zone index dropped, a dotted IPv4 tail allowed) as its eight 16-bit groups, or null. */
export function parseIPv6(text: string): number[] | null {
  const zone = text.indexOf('%');
  const s = zone === -1 ? text : text.slice(0, zone);
  const head: number[] = [];
  let tail: number[] | null = null;
  let groups = head;
  let i = 0;
  if (s.startsWith('::')) {
    tail = groups = [];
    i = 2;
  } else if (s.startsWith(':')) {
    return null;
  }
  while (i < s.length) {
    let j = i;
    while (j < s.length && s.charCodeAt(j) !== 58) j++;
    const piece = s.slice(i, j);
    if (piece.includes('.')) {
      const v4 = parseIPv4(piece);
      if (v4 < 0 || j !== s.length) return null;
      groups.push(v4 >>> 16, v4 & 0xffff);
    } else {
      if (!HEX_GROUP.test(piece)) return null;
      groups.push(parseInt(piece, 16));
    }
    if (j === s.length) break;
    if (s.charCodeAt(j + 1) === 58) {
      if (tail) return null; // a second ::
      tail = groups = [];
      i = j + 2;
    } else {
      i = j + 1;
      if (i === s.length) return null; // a trailing single colon
    }
  }
  if (!tail) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/**
 * The IPv4 address an IPv6 address stands for, or -1: IPv4-mapped (::ffff:a.b.c.d),
 * IPv4-compatible (::a.b.c.d, but not :: or ::1), IPv4-translated (::ffff:0:a.b.c.d) and NAT64
 * (64:ff9b::a.b.c.d). Each reaches, or may reach, the IPv4 address.
 */
function embeddedIPv4(g: readonly number[]): number {
  const v4 = g[6]! * 65536 + g[7]!;
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0) {
    if (g[4] === 0 && g[5] === 0xffff) return v4;
    if (g[4] === 0xffff && g[5] === 0) return v4;
    if (g[4] === 0 && g[5] === 0 && v4 > 1) return v4;
    return -1;
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0) return v4;
  return -1;
}

const METADATA_V4 = [0xa9fea9fe /* 169.254.169.254 */, 0x646464c8 /* 100.100.100.200, Alibaba Cloud */];
/** fd00:ec2::254 (AWS), fd20:ce::254 (Google Cloud). */
const METADATA_V6 = [
  [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254],
  [0xfd20, 0xce, 0, 0, 0, 0, 0, 0x254],
];
/** The name of Google Cloud's metadata service, refused before any lookup; it stands for 169.254.169.254. */
const METADATA_NAME = 'metadata.google.internal';
const METADATA_ADDRESS = '169.254.169.254';

/** Whether `host` is the metadata service's name (any case, a final dot allowed); cheap for every other name. */
function isMetadataName(host: string): boolean {
  const n = host.length;
  if (n !== METADATA_NAME.length && n !== METADATA_NAME.length + 1) return false;
  return host.toLowerCase().replace(/\.$/, '') === METADATA_NAME;
}

function kindOfIPv4(v: number): AddressKind {
  if (v === METADATA_V4[0] || v === METADATA_V4[1]) return 'metadata';
  if (v >>> 16 === 0xa9fe) return 'link-local';
  if (v >>> 24 === 127) return 'loopback';
  if (v >>> 24 === 0) return 'unspecified';
  return 'other';
}

function kindOfIPv6(g: readonly number[]): AddressKind {
  const v4 = embeddedIPv4(g);
  if (v4 >= 0) return kindOfIPv4(v4);
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0 && g[6] === 0) {
    if (g[7] === 0) return 'unspecified';
    if (g[7] === 1) return 'loopback';
  }
  if (METADATA_V6.some((m) => m.every((group, n) => group === g[n]))) return 'metadata';
  return 'other';
}

/** What an IP address is (as `isIP` accepts it, an IPv6 zone index allowed); `other` for anything else. */
export function addressKind(address: string): AddressKind {
  const v4 = parseIPv4(address);
  if (v4 >= 0) return kindOfIPv4(v4);
  if (!address.includes(':')) return 'other';
  const groups = parseIPv6(address);
  return groups ? kindOfIPv6(groups) : 'other';
}

/** An address as eight groups, IPv4 (and IPv6 that stands for IPv4) in the IPv4-mapped form; null when not an address. */
function groupsOf(address: string): number[] | null {
  const v4 = parseIPv4(address);
  if (v4 >= 0) return [0, 0, 0, 0, 0, 0xffff, v4 >>> 16, v4 & 0xffff];
  const groups = parseIPv6(address);
  if (!groups) return null;
  const embedded = embeddedIPv4(groups);
  return embedded >= 0 ? [0, 0, 0, 0, 0, 0xffff, embedded >>> 16, embedded & 0xffff] : groups;
}

/**
 * An IP address written in any of the forms name resolvers read as one (2852039166, 0xa9fea9fe,
 * 0251.0376.0251.0376, 169.254.43518), in its usual form; undefined when `host` is a name. The
 * WHATWG URL parser reads these forms as `inet_aton` does.
 */
function literalAddress(host: string): string | undefined {
  if (isIP(host)) return host;
  if (!/^[0-9a-fA-FxX.]+$/.test(host)) return undefined;
  const read = URL.parse(`http://${host}/`)?.hostname;
  return read && isIP(read) === 4 ? read : undefined;
}

/** `host:port`, an IPv6 address in brackets. */
const where = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** Why a destination is refused, in words that name the setting allowing it; `address`: what `host` stands for, when it differs. */
export function refusalMessage(host: string, port: number, why: Refusal, address = host): string {
  const destination = address === host ? where(host, port) : `${where(host, port)} (${address})`;
  return `${destination} is ${WHY[why]}, which the destination policy refuses (the owner can allow it with ${ALLOW_SETTING})`;
}

/** A refused destination, as a connection error (`code` EDESTINATION). */
export class DestinationRefused extends Error {
  readonly code = 'EDESTINATION';
}

// ---- public addresses (Client ID Metadata Documents) -------------------------------------------

/** [first address, prefix length] of the IPv4 networks that are not the public internet. */
const NOT_PUBLIC_V4: [number, number][] = (
  [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const
).map(([net, prefix]) => [parseIPv4(net), prefix]);

/** [first address, prefix length] of the IPv6 networks that are not the public internet (IPv4 in IPv6 is judged as IPv4). */
const NOT_PUBLIC_V6: [number[], number][] = (
  [
    ['::', 128],
    ['::1', 128],
    ['100::', 64],
    ['2001:db8::', 32],
    ['fc00::', 7],
    ['fe80::', 10],
    ['fec0::', 10],
    ['ff00::', 8],
  ] as const
).map(([net, prefix]) => [parseIPv6(net)!, prefix]);

function inV4(v: number, [net, prefix]: [number, number]): boolean {
  const size = 2 ** (32 - prefix);
  return Math.floor(v / size) === Math.floor(net / size);
}

function inGroups(g: readonly number[], net: readonly number[], prefix: number): boolean {
  for (let n = 0, bits = prefix; bits > 0; n++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if ((g[n]! & mask) !== (net[n]! & mask)) return false;
  }
  return true;
}

/**
 * Whether an address is on the public internet: not loopback, private, shared, link-local,
 * documentation, multicast or reserved. IPv6 that stands for IPv4 (mapped, compatible, translated,
 * NAT64) is judged as that IPv4 address, so ::7f00:1 and ::ffff:7f00:1 are loopback.
 */
export function isPublicAddress(address: string): boolean {
  const v4 = parseIPv4(address);
  if (v4 >= 0) return !NOT_PUBLIC_V4.some((net) => inV4(v4, net));
  const groups = address.includes(':') ? parseIPv6(address) : null;
  if (!groups) return false;
  const embedded = embeddedIPv4(groups);
  if (embedded >= 0) return !NOT_PUBLIC_V4.some((net) => inV4(embedded, net));
  if (kindOfIPv6(groups) !== 'other') return false;
  return !NOT_PUBLIC_V6.some(([net, prefix]) => inGroups(groups, net, prefix));
}

// ---- the allow-list ----------------------------------------------------------------------------

/** One entry of the allow-list: a network (an address is a network of one), on one port or all. */
export interface AllowedDestination {
  network: number[];
  /** In bits of the eight groups: an IPv4 prefix counts 96 more. */
  prefix: number;
  port?: number;
}

const ALLOW_FORMAT =
  'must be addresses, networks (CIDR) or address:port pairs separated by commas, like 169.254.169.254,10.1.0.0/16,127.0.0.1:3000,[::1]:3000';

/** One entry's parts, or undefined when it is not one. */
function allowEntry(text: string): AllowedDestination | undefined {
  const bracketed = /^\[([^\]/]+)(?:\/(\d{1,3}))?\](?::(\d{1,5}))?$/.exec(text);
  const v4 = /^([\d.]+)(?:\/(\d{1,2}))?(?::(\d{1,5}))?$/.exec(text);
  const bareV6 = /^([0-9a-fA-F:.]+)(?:\/(\d{1,3}))?$/.exec(text);
  const match = bracketed ?? v4 ?? (text.includes(':') ? bareV6 : null);
  if (!match) return undefined;
  const [, address, prefixText, portText] = match;
  const isV4 = parseIPv4(address!) >= 0;
  const network = groupsOf(address!);
  if (!network || (v4 && !isV4) || (bracketed && isV4)) return undefined;
  const prefix = prefixText === undefined ? 128 : Number(prefixText) + (isV4 ? 96 : 0);
  if (prefix > 128) return undefined;
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return { network, prefix, port };
}

/** The allow-list of STATUSDESK_ALLOWED_DESTINATIONS; throws an Error naming the rule and the bad entry. */
export function parseAllowList(text: string): AllowedDestination[] {
  const entries: AllowedDestination[] = [];
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const parsed = allowEntry(entry);
    if (!parsed) throw new Error(`${ALLOW_FORMAT}; got ${entry}`);
    entries.push(parsed);
  }
  return entries;
}

// ---- the policy --------------------------------------------------------------------------------

export interface DestinationPolicyOptions {
  /** Destinations the owner allows although the policy refuses them. */
  allow?: readonly AllowedDestination[];
}

export type DestinationPolicy = ReturnType<typeof createDestinationPolicy>;

export function createDestinationPolicy(options: DestinationPolicyOptions = {}) {
  const allow = options.allow ?? [];
  /** The ports the service listens on, once it does. */
  const ownPorts = new Set<number>();
  /** Addresses (as groupsOf keys) the service listens on besides loopback: `--host`, every interface for 0.0.0.0. */
  const ownAddresses = new Set<string>();

  const allowed = (address: string, port: number) => {
    if (allow.length === 0) return false;
    const groups = groupsOf(address);
    return groups !== null && allow.some((entry) => (entry.port === undefined || entry.port === port) && inGroups(groups, entry.network, entry.prefix));
  };

  const isOwn = (address: string, kind: AddressKind) => kind === 'loopback' || kind === 'unspecified' || (ownAddresses.size > 0 && ownAddresses.has(String(groupsOf(address))));

  /** Why `address` (of kind `kind`) on `port` is refused, or undefined. */
  function judge(address: string, kind: AddressKind, port: number, shown = address): string | undefined {
    const why: Refusal | undefined =
      kind === 'metadata' || kind === 'link-local' ? kind : ownPorts.size > 0 && ownPorts.has(port) && isOwn(address, kind) ? 'own-port' : undefined;
    if (why === undefined || allowed(address, port)) return undefined;
    return refusalMessage(shown, port, why, address);
  }

  const policy = {
    /**
     * Why connecting to `address` (an IP address, as resolved from `name` when there was one) on
     * `port` is refused, in words naming the setting that allows it; undefined when it is
     * allowed. Runs on every check.
     */
    refusal(address: string, port: number, name = address): string | undefined {
      return judge(address, addressKind(address), port, name);
    },

    /** Why connecting to the host name `host` is refused before any lookup (a metadata service's name), or undefined. Cheap. */
    refusalOfName(host: string, port: number): string | undefined {
      return isMetadataName(host) ? judge(METADATA_ADDRESS, 'metadata', port, host) : undefined;
    },

    /**
     * Why connecting to `host` on `port` is refused as far as the host tells before any lookup (an
     * IP address, a metadata service's name); undefined when only its addresses can tell.
     */
    refusalOfHost(host: string, port: number): string | undefined {
      if (isIP(host)) return judge(host, addressKind(host), port);
      if (isMetadataName(host)) return judge(METADATA_ADDRESS, 'metadata', port, host);
      return undefined;
    },

    /**
     * What a destination as written refuses, for an error at write time (before anything is
     * connected): an IP address in any form, `localhost`, a metadata service's name. Another name
     * is judged once resolved. The own ports are judged only where this service connects
     * (`ownPorts`): a private location's runner runs elsewhere.
     */
    refusalAsWritten(host: string, port: number, { ownPorts: checkOwn = true } = {}): string | undefined {
      const name = host.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
      if (isMetadataName(name)) return judge(METADATA_ADDRESS, 'metadata', port, name);
      const literal = name === 'localhost' || name.endsWith('.localhost') ? '127.0.0.1' : literalAddress(name);
      if (literal === undefined) return undefined;
      const kind = addressKind(literal);
      if (!checkOwn && kind !== 'metadata' && kind !== 'link-local') return undefined;
      return judge(literal, kind, port, name);
    },

    /** `refusalAsWritten` of a URL's host and port (the scheme's port when it has none); undefined for what is not a URL. */
    refusalOfUrl(text: string, options?: { ownPorts?: boolean }): string | undefined {
      const url = URL.parse(text);
      if (!url?.hostname) return undefined;
      const port = Number(url.port) || DEFAULT_PORTS[url.protocol];
      return port ? policy.refusalAsWritten(url.hostname, port, options) : undefined;
    },

    /** `refusalAsWritten` of a `host:port` target (an IPv6 address in brackets); undefined for what is not one. */
    refusalOfHostPort(text: string, options?: { ownPorts?: boolean }): string | undefined {
      const match = /^\[(.+)\]:(\d+)$/.exec(text) ?? /^([^:]+):(\d+)$/.exec(text);
      return match ? policy.refusalAsWritten(match[1]!, Number(match[2]), options) : undefined;
    },

    /**
     * A `lookup` for node:net, node:http and their agents that resolves as usual and refuses (an
     * EDESTINATION error) when any address of the answer is refused on `port`. `refused` hears
     * of each refusal. A literal IP address is not looked up: check it with `refusalOfHost`.
     */
    lookup(port: number, refused?: (reason: string) => void): LookupFunction {
      return (hostname, lookupOptions, callback) => {
        const byName = isMetadataName(hostname) ? judge(METADATA_ADDRESS, 'metadata', port, hostname) : undefined;
        if (byName) {
          refused?.(byName);
          return process.nextTick(callback, new DestinationRefused(byName), '', 0);
        }
        dnsLookup(hostname, lookupOptions, (error, address: string | LookupAddress[], family?: number) => {
          if (error) return callback(error, '', 0);
          for (const entry of Array.isArray(address) ? address : [{ address, family: family ?? 0 }]) {
            const reason = policy.refusal(entry.address, port, hostname);
            if (reason) {
              refused?.(reason);
              return callback(new DestinationRefused(reason), '', 0);
            }
          }
          (callback as (error: null, address: string | LookupAddress[], family?: number) => void)(null, address, family);
        });
      };
    },

    /**
     * The service listens on `ports` at `host`: they join the refused destinations on loopback and
     * unspecified addresses, on `host` when it is an address, and on every address of the machine
     * when `host` is unspecified (0.0.0.0, ::).
     */
    listening(host: string, ports: readonly number[]): void {
      for (const port of ports) ownPorts.add(port);
      const kind = isIP(host) ? addressKind(host) : 'other';
      if (isIP(host) && kind === 'other') ownAddresses.add(String(groupsOf(host)));
      if (kind === 'unspecified') {
        for (const addresses of Object.values(networkInterfaces())) {
          for (const { address } of addresses ?? []) {
            const groups = groupsOf(address);
            if (groups) ownAddresses.add(String(groups));
          }
        }
      }
    },
  };
  return policy;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'smtp:': 587, 'smtps:': 465 };
