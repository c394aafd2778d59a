import { networkInterfaces } from 'node:os';

/**
 * DNS-rebinding and cross-site protection for a loopback service: a request must name one of the
 * service's own hosts, and a browser request must come from one of the service's own origins.
 */
export interface OriginGuard {
  /** Why the request is refused, or undefined when it may pass. */
  check(host: string | undefined, origin: string | undefined): string | undefined;
}

/** Names of this machine's loopback interface. */
export const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '::1'];

const hostPort = (address: string, port: number) => `${address.includes(':') ? `[${address}]` : address}:${port}`;

/**
 * host:port forms by which clients reach a port: the loopback names, plus the bound address when
 * the user opted in to another one (every interface address for a wildcard bind).
 */
export function ownHosts(port: number, boundHost: string): string[] {
  const hosts = [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`];
  if (boundHost === '0.0.0.0' || boundHost === '::') {
    const addresses = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
    hosts.push(...addresses.filter((a) => !a.internal).map((a) => hostPort(a.address, port)));
  } else if (!LOOPBACK_NAMES.includes(boundHost)) {
    hosts.push(hostPort(boundHost, port));
  }
  return hosts;
}

export function createOriginGuard(hosts: Iterable<string>, origins: Iterable<string>): OriginGuard {
  const allowedHosts = new Set([...hosts].map((h) => h.toLowerCase()));
  const allowedOrigins = new Set([...origins].map((o) => o.toLowerCase()));
  return {
    check(host, origin) {
      if (!host || !allowedHosts.has(host.toLowerCase())) {
        return `host ${host || '(none)'} is not this service; use ${[...allowedHosts][0]}`;
      }
      if (origin !== undefined && !allowedOrigins.has(origin.toLowerCase())) {
        return `origin ${origin} may not call this service`;
      }
      return undefined;
    },
  };
}
