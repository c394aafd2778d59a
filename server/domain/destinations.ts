import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

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
 * refused address (DNS rebinding included) is refused too. A destination without ports (ICMP, which
 * a ping monitor sends) is judged on port 0: only allow-list entries without a port allow it.
 * `refusal` runs on every check: it reads the address once (ipaddr.js), and the allow-list only
 * for a refusal.
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

type Address = ipaddr.IPv4 | ipaddr.IPv6;

const networks = (...cidrs: string[]) => cidrs.map((cidr) => ipaddr.parseCIDR(cidr));

/**
 * IPv6 networks whose addresses stand for the IPv4 address in their last 32 bits, which a
 * connection to them reaches or may reach: IPv4-mapped (::ffff:a.b.c.d), IPv4-translated
 * (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and IPv4-compatible (::a.b.c.d). ipaddr.js's
 * `process` reads only the first. :: and ::1 are IPv6's own, not IPv4-compatible.
 */
const IPV4_INSIDE = networks('::ffff:0:0/96', '::ffff:0:0:0/96', '64:ff9b::/96', '::/96');
const UNSPECIFIED_OR_LOOPBACK = ipaddr.parseCIDR('::/127');

/**
 * An IP address as `isIP` accepts it (an IPv6 zone index, which names an interface, dropped), IPv6
 * that stands for an IPv4 address read as that address; undefined for anything else. `isIP` first:
 * ipaddr.js also reads the inet_aton forms (2852039166), which a resolved address never is (see
 * `literalAddress`).
 */
function readAddress(text: string): Address | undefined {
  const zone = text.indexOf('%');
  const bare = zone === -1 ? text : text.slice(0, zone);
  const family = isIP(bare);
  if (family === 4 && zone === -1) return ipaddr.IPv4.parse(bare);
  if (family !== 6) return undefined;
  // ipaddr.js reads ::a.b.c.d as ::ffff:a.b.c.d, which would make ::0.0.0.1 0.0.0.1; 0::a.b.c.d it reads as written.
  const ip = ipaddr.IPv6.parse(bare.lastIndexOf(':') === 1 ? `0${bare}` : bare);
  if (!IPV4_INSIDE.some((network) => ip.match(network)) || ip.match(UNSPECIFIED_OR_LOOPBACK)) return ip;
  return ipaddr.fromByteArray(ip.toByteArray().slice(12));
}

/**
 * What the policy tells addresses apart by, the first that holds: cloud metadata services
 * (169.254.169.254 in most clouds, Alibaba Cloud's 100.100.100.200, AWS's fd00:ec2::254, Google
 * Cloud's fd20:ce::254), link-local, loopback, unspecified; `other` for the rest.
 */
const KINDS = {
  metadata: networks('169.254.169.254/32', '100.100.100.200/32', 'fd00:ec2::254/128', 'fd20:ce::254/128'),
  'link-local': networks('169.254.0.0/16', 'fe80::/10'),
  loopback: networks('127.0.0.0/8', '::1/128'),
  unspecified: networks('0.0.0.0/8', '::/128'),
};
const kindOf = (ip: Address | undefined): AddressKind => (ip === undefined ? 'other' : (ipaddr.subnetMatch(ip, KINDS, 'other') as AddressKind));

/** What an IP address is (as `isIP` accepts it, an IPv6 zone index allowed); `other` for anything else. */
export function addressKind(address: string): AddressKind {
  return kindOf(readAddress(address));
}

/** The name of Google Cloud's metadata service, refused before any lookup; it stands for 169.254.169.254. */
const METADATA_NAME = 'metadata.google.internal';
const METADATA_ADDRESS = '169.254.169.254';

/** Whether `host` is the metadata service's name (any case, a final dot allowed); cheap for every other name. */
function isMetadataName(host: string): boolean {
  const n = host.length;
  if (n !== METADATA_NAME.length && n !== METADATA_NAME.length + 1) return false;
  return host.toLowerCase().replace(/\.$/, '') === METADATA_NAME;
}

/**
 * An IP address written in any of the forms name resolvers read as one (2852039166, 0xa9fea9fe,
 * 0251.0376.0251.0376, 169.254.43518), in its usual form; undefined when `host` is a name.
 * ipaddr.js reads IPv4 addresses as `inet_aton` does.
 */
function literalAddress(host: string): string | undefined {
  if (isIP(host)) return host;
  return ipaddr.IPv4.isValid(host) ? ipaddr.IPv4.parse(host).toString() : undefined;
}

/** `host:port`, an IPv6 address in brackets; port 0 (a destination without ports, a ping's) the host alone. */
const where = (host: string, port: number) => (port === 0 ? host : host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

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

/** The ranges of ipaddr.js that are not the public internet: loopback, private, shared, link-local, documentation, multicast, reserved. */
const NOT_PUBLIC = new Set([
  'unspecified',
  'broadcast',
  'multicast',
  'linkLocal',
  'loopback',
  'carrierGradeNat',
  'private',
  'reserved',
  'uniqueLocal',
  'deprecatedSiteLocal',
  'discard',
]);

/**
 * Whether an address is on the public internet: not loopback, private, shared, link-local,
 * documentation, multicast or reserved. IPv6 that stands for IPv4 (mapped, compatible, translated,
 * NAT64) is judged as that IPv4 address, so ::7f00:1 and ::ffff:7f00:1 are loopback.
 */
export function isPublicAddress(address: string): boolean {
  const ip = readAddress(address);
  return ip !== undefined && !NOT_PUBLIC.has(ip.range());
}

// ---- the allow-list ----------------------------------------------------------------------------

/** One entry of the allow-list: a network (an address is a network of one), on one port or all. */
export interface AllowedDestination {
  /** The network's eight 16-bit groups, an IPv4 network in the IPv4-mapped form (::ffff:a.b.c.d). */
  network: number[];
  /** In bits of the eight groups: an IPv4 prefix counts 96 more. */
  prefix: number;
  port?: number;
}

/** An address as IPv6, IPv4 in the IPv4-mapped form: the one space of the allow-list's networks. */
const asIPv6 = (ip: Address) => (ip instanceof ipaddr.IPv4 ? ip.toIPv4MappedAddress() : ip);

const ALLOW_FORMAT = 'must be addresses, networks (CIDR) or address:port pairs separated by commas, like 169.254.169.254,10.1.0.0/16,127.0.0.1:3000,[::1]:3000';

/** One entry's parts, or undefined when it is not one. */
function allowEntry(text: string): AllowedDestination | undefined {
  const bracketed = /^\[([^\]/]+)(?:\/(\d{1,3}))?\](?::(\d{1,5}))?$/.exec(text);
  const v4 = /^([\d.]+)(?:\/(\d{1,2}))?(?::(\d{1,5}))?$/.exec(text);
  const bareV6 = /^([0-9a-fA-F:.]+)(?:\/(\d{1,3}))?$/.exec(text);
  const match = bracketed ?? v4 ?? (text.includes(':') ? bareV6 : null);
  if (!match) return undefined;
  const [, address, prefixText, portText] = match;
  const isV4 = isIP(address!) === 4;
  const ip = readAddress(address!);
  if (!ip || (v4 && !isV4) || (bracketed && isV4)) return undefined;
  const prefix = prefixText === undefined ? 128 : Number(prefixText) + (isV4 ? 96 : 0);
  if (prefix > 128) return undefined;
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return { network: asIPv6(ip).parts, prefix, port };
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
  /** Addresses the service listens on besides loopback (`--host`, every interface for 0.0.0.0), as `readAddress` reads them, in words. */
  const ownAddresses = new Set<string>();

  const allowed = (ip: Address | undefined, port: number) => {
    if (allow.length === 0 || ip === undefined) return false;
    const address = asIPv6(ip);
    return allow.some((entry) => (entry.port === undefined || entry.port === port) && address.match(new ipaddr.IPv6(entry.network), entry.prefix));
  };

  const isOwn = (ip: Address | undefined, kind: AddressKind) =>
    kind === 'loopback' || kind === 'unspecified' || (ip !== undefined && ownAddresses.has(ip.toString()));

  /**
   * Why `address` (read as `ip`) on `port` is refused, or undefined; `shown`: the name it was
   * resolved from. `ownPorts` false: only what is refused wherever it is connected from.
   */
  function judge(address: string, ip: Address | undefined, port: number, shown = address, { ownPorts: checkOwn = true } = {}): string | undefined {
    const kind = kindOf(ip);
    const why: Refusal | undefined =
      kind === 'metadata' || kind === 'link-local' ? kind : checkOwn && ownPorts.has(port) && isOwn(ip, kind) ? 'own-port' : undefined;
    if (why === undefined || allowed(ip, port)) return undefined;
    return refusalMessage(shown, port, why, address);
  }

  const policy = {
    /**
     * Why connecting to `address` (an IP address, as resolved from `name` when there was one) on
     * `port` is refused, in words naming the setting that allows it; undefined when it is
     * allowed. Runs on every check.
     */
    refusal(address: string, port: number, name = address): string | undefined {
      return judge(address, readAddress(address), port, name);
    },

    /** Why connecting to the host name `host` is refused before any lookup (a metadata service's name), or undefined. Cheap. */
    refusalOfName(host: string, port: number): string | undefined {
      return isMetadataName(host) ? judge(METADATA_ADDRESS, readAddress(METADATA_ADDRESS), port, host) : undefined;
    },

    /**
     * Why connecting to `host` on `port` is refused as far as the host tells before any lookup (an
     * IP address, a metadata service's name); undefined when only its addresses can tell.
     */
    refusalOfHost(host: string, port: number): string | undefined {
      return isIP(host) ? judge(host, readAddress(host), port) : policy.refusalOfName(host, port);
    },

    /**
     * What a destination as written refuses, for an error at write time (before anything is
     * connected): an IP address in any form, `localhost`, a metadata service's name. Another name
     * is judged once resolved. The own ports are judged only where this service connects
     * (`ownPorts`): a private location's runner runs elsewhere.
     */
    refusalAsWritten(host: string, port: number, options: { ownPorts?: boolean } = {}): string | undefined {
      const name = host
        .replace(/^\[|\]$/g, '')
        .toLowerCase()
        .replace(/\.$/, '');
      if (isMetadataName(name)) return policy.refusalOfName(name, port);
      const literal = name === 'localhost' || name.endsWith('.localhost') ? '127.0.0.1' : literalAddress(name);
      return literal === undefined ? undefined : judge(literal, readAddress(literal), port, name, options);
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
        const byName = policy.refusalOfName(hostname, port);
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
      const ip = readAddress(host);
      const kind = kindOf(ip);
      if (ip && kind === 'other') ownAddresses.add(ip.toString());
      if (kind === 'unspecified') {
        for (const addresses of Object.values(networkInterfaces())) {
          for (const { address } of addresses ?? []) {
            const own = readAddress(address);
            if (own) ownAddresses.add(own.toString());
          }
        }
      }
    },
  };
  return policy;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443, 'smtp:': 587, 'smtps:': 465 };
