import { networkInterfaces } from 'node:os';
import { AppError } from '../errors.ts';
import { errorAnswer, requestPath, sendErrorAnswer } from './errors.ts';
import type { Request, RequestHandler } from './listener.ts';

/**
 * DNS-rebinding and cross-site protection for a loopback service: a request must name one of the
 * service's own hosts, and a browser request must come from one of the service's own origins.
 */
export interface OriginGuard {
  /**
   * Why the request is refused, or undefined when it may pass. A host or origin admitted only for
   * some paths passes here; `confine` refuses it elsewhere.
   */
  check(host: string | undefined, origin: string | undefined): string | undefined;
  /** Why the request may not reach `url` (the request target) under its host and origin, or undefined. */
  checkPath(host: string | undefined, origin: string | undefined, url: string | undefined): string | undefined;
  /**
   * `route` behind the path check: a request under a host or origin that may reach only some paths
   * is refused 403 elsewhere, in the same envelope as the refusals of `check`.
   */
  confine(route: RequestHandler, docsBase: string): RequestHandler;
}

/**
 * Hosts (host:port as in `Host`) and origins admitted only under some path prefixes, like the
 * public address of the status pages (a tunnel or proxy), which must not reach the API, MCP,
 * OAuth or the dashboard.
 */
export interface Confined {
  hosts: Iterable<string>;
  origins: Iterable<string>;
  /** Path prefixes they may reach, like `/status/`. */
  paths: string[];
}

/**
 * The status pages' custom domains: a request whose Host is one of them (any port: the port is the
 * proxy's) reaches that page only, at `/` and under its own `/status/{slug}` path, and never the
 * API, the dashboard, OAuth or MCP.
 */
export interface PageHostLookup {
  /** The slug of the page served under `hostname` (lower-case, no port), or undefined. */
  slugOf(hostname: string): string | undefined;
}

/** `host` without its port, lower-case; an IP literal in brackets stays as it is (it is never a page's name). */
function hostnameOf(host: string): string {
  const name = host.toLowerCase();
  return name.startsWith('[') ? name : name.replace(/:\d*$/, '');
}

/** Whether `path` is the page's: `/`, `/status/{slug}` or below it. */
function isPagePath(path: string, slug: string): boolean {
  return path === '/' || path === `/status/${slug}` || path.startsWith(`/status/${slug}/`);
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

/** The path of a request target (origin or absolute form), with dot segments resolved as the router resolves them. */
function hostOf(req: Request): string | undefined {
  const value = req.headers[':authority'] ?? req.headers.host;
  return Array.isArray(value) ? value[0] : value;
}

function originOf(req: Request): string | undefined {
  const value = req.headers.origin;
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The guard of one port: `hosts` and `origins` reach every path; the `confined` ones only their
 * paths, unless they are also among the full ones (a public address equal to the API's own).
 */
export function createOriginGuard(hosts: Iterable<string>, origins: Iterable<string>, confined?: Confined, pageHosts?: PageHostLookup): OriginGuard {
  const allowedHosts = new Set([...hosts].map((h) => h.toLowerCase()));
  const allowedOrigins = new Set([...origins].map((o) => o.toLowerCase()));
  const confinedHosts = new Set([...(confined?.hosts ?? [])].map((h) => h.toLowerCase()).filter((h) => !allowedHosts.has(h)));
  const confinedOrigins = new Set([...(confined?.origins ?? [])].map((o) => o.toLowerCase()).filter((o) => !allowedOrigins.has(o)));
  const paths = confined?.paths ?? [];
  const ownHost = [...allowedHosts][0];
  /** The slug of the page whose custom domain `host` names, when it names none of the service's own hosts. */
  const pageOf = (host: string | undefined): string | undefined => {
    if (!pageHosts || !host) return undefined;
    const name = host.toLowerCase();
    return allowedHosts.has(name) || confinedHosts.has(name) ? undefined : pageHosts.slugOf(hostnameOf(name));
  };
  /** A browser on the page's own domain, whatever the scheme or port the proxy offers. */
  const isPageOrigin = (origin: string, host: string) => {
    try {
      const url = new URL(origin);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname === hostnameOf(host);
    } catch {
      return false;
    }
  };

  const guard: OriginGuard = {
    check(host, origin) {
      const name = host?.toLowerCase();
      if (pageOf(name) !== undefined) {
        if (origin !== undefined && !allowedOrigins.has(origin.toLowerCase()) && !isPageOrigin(origin, name!))
          return `origin ${origin} may not call this service`;
        return undefined;
      }
      if (!name || !(allowedHosts.has(name) || confinedHosts.has(name))) {
        return `host ${host || '(none)'} is not this service; use ${ownHost}`;
      }
      if (origin !== undefined && !(allowedOrigins.has(origin.toLowerCase()) || confinedOrigins.has(origin.toLowerCase()))) {
        return `origin ${origin} may not call this service`;
      }
      return undefined;
    },
    checkPath(host, origin, url) {
      const slug = pageOf(host);
      if (slug !== undefined) {
        return isPagePath(requestPath(url), slug)
          ? undefined
          : `host ${host} serves one status page, at /; the API, the dashboard, OAuth and MCP are not there`;
      }
      const hostConfined = host !== undefined && confinedHosts.has(host.toLowerCase());
      const originConfined = origin !== undefined && confinedOrigins.has(origin.toLowerCase());
      if (!hostConfined && !originConfined) return undefined;
      const path = requestPath(url);
      if (path !== '' && paths.some((prefix) => path.startsWith(prefix))) return undefined;
      // The same words as a foreign host or origin: the public address is not this service beyond its pages.
      return hostConfined ? `host ${host} is not this service; use ${ownHost}` : `origin ${origin} may not call this service`;
    },
    confine(route, docsBase) {
      if (confinedHosts.size === 0 && confinedOrigins.size === 0 && !pageHosts) return route;
      return (req, res) => {
        const host = hostOf(req);
        const refusal = guard.checkPath(host, originOf(req), req.url);
        if (refusal)
          return sendErrorAnswer(
            res,
            errorAnswer(requestPath(req.url), 403, new AppError('FORBIDDEN', refusal), String(req.headers['x-request-id'] ?? ''), docsBase),
          );
        // The custom domain's root is its page.
        const slug = pageOf(host);
        if (slug !== undefined && requestPath(req.url) === '/') {
          const query = req.url?.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
          req.url = `/status/${slug}${query}`;
        }
        route(req, res);
      };
    },
  };
  return guard;
}
