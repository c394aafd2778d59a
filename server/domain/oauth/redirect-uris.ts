/**
 * Which redirect URIs a client may use (SPEC 4.4 rules 4 and 5), and when one given at
 * authorization matches one registered (RFC 8252: loopback addresses match on all but the port).
 */

/** Custom schemes of AI editors that receive the code themselves. */
const EDITOR_SCHEMES = ['cursor:', 'vscode:', 'vscode-insiders:'] as const;
/** Loopback hosts as `URL.hostname` spells them. */
const LOOPBACK_HOSTS = ['127.0.0.1', '[::1]', 'localhost'];
/** Schemes a browser would run or read locally instead of navigating to a client. */
const DANGEROUS_SCHEMES = ['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:'];

/** AI-assistant vendor domains whose https redirects registration accepts, with their subdomains. */
export const DEFAULT_REDIRECT_DOMAINS = [
  'claude.ai',
  'claude.com',
  'anthropic.com',
  'chatgpt.com',
  'openai.com',
  'cursor.com',
  'cursor.sh',
  'vscode.dev',
  'github.com',
];

export interface RedirectPolicy {
  /** Hosts (no port) of this service: https redirects to them are allowed. */
  ownHosts: string[];
  /** Allowed vendor domains; each admits its subdomains too. */
  vendorDomains: string[];
}

function parse(uri: string): URL | undefined {
  try {
    return new URL(uri);
  } catch {
    return undefined;
  }
}

/** Shape rules every redirect URI keeps, registered or from a metadata document. */
function shapeProblem(uri: string, url: URL | undefined): string | undefined {
  if (!url) return 'must be an absolute URI';
  if (uri.includes('#')) return 'must not contain a fragment';
  if (url.username || url.password) return 'must not contain user information';
  if (DANGEROUS_SCHEMES.includes(url.protocol)) return `the ${url.protocol} scheme is never allowed`;
  return undefined;
}

const isLoopback = (url: URL) => url.protocol === 'http:' && LOOPBACK_HOSTS.includes(url.hostname);

/** Why registration refuses `uri`, or undefined when it is allowed. */
export function registrationProblem(uri: string, policy: RedirectPolicy): string | undefined {
  const url = parse(uri);
  const shape = shapeProblem(uri, url);
  if (shape || !url) return shape;
  if (url.protocol === 'http:') {
    return isLoopback(url) ? undefined : 'http is allowed only on a loopback host: 127.0.0.1, [::1] or localhost';
  }
  if (url.protocol === 'https:') {
    const host = url.hostname.toLowerCase();
    const allowed = policy.ownHosts.includes(host) || policy.vendorDomains.some((d) => host === d || host.endsWith(`.${d}`));
    return allowed ? undefined : `https is allowed only on this service's host or an allowed AI-assistant domain (${policy.vendorDomains.join(', ')})`;
  }
  if ((EDITOR_SCHEMES as readonly string[]).includes(url.protocol)) return undefined;
  return `the ${url.protocol} scheme is not allowed: use a loopback http address, https on an allowed domain, or ${EDITOR_SCHEMES.join(', ')}`;
}

/** Why a metadata document's redirect URI cannot be used; its domain's owner chose it, so only the shape is checked. */
export function metadataRedirectProblem(uri: string): string | undefined {
  return shapeProblem(uri, parse(uri));
}

/** Whether `given` (from an authorization or token request) is `registered`; a loopback one may differ in port. */
export function redirectMatches(registered: string, given: string): boolean {
  if (registered === given) return true;
  const a = parse(registered);
  const b = parse(given);
  if (!a || !b || !isLoopback(a) || !isLoopback(b) || given.includes('#')) return false;
  return a.hostname === b.hostname && a.pathname === b.pathname && a.search === b.search && !b.username && !b.password;
}

/** Whether a redirect goes to this machine, where any local program may be listening. */
export function isLoopbackRedirect(uri: string): boolean {
  const url = parse(uri);
  return url !== undefined && isLoopback(url);
}
