// statusdesk:// links, from the operating system (open-url on macOS, a second instance's argv on
// Windows and Linux). Any program on the machine can open one, so a link is read into a typed route
// here and nothing else ever sees its text: only the routes below, with parameters of a known shape.
//
//   statusdesk://overview                 statusdesk://keys
//   statusdesk://monitors/42              statusdesk://audit
//   statusdesk://pages/7                  statusdesk://connect?editor=cursor
//   statusdesk://consent/<request id>

export type EditorId = 'claude-code' | 'cursor' | 'vscode' | 'claude-desktop';

export type DeepLink =
  | { kind: 'overview' }
  | { kind: 'monitor'; id: string }
  | { kind: 'page'; id: string }
  | { kind: 'consent'; requestId: string }
  | { kind: 'connect'; editor?: EditorId }
  | { kind: 'keys' }
  | { kind: 'audit' };

const SCHEME = 'statusdesk://';
/** Far longer than any link above; anything longer is not one of ours. */
const MAX_LENGTH = 256;
/**
 * Every character a link of ours can hold. No `%` (so nothing is encoded, not even a slash), no `@`
 * or `:` (no user info, no port), no `\`, `#`, `.` or whitespace.
 */
const LINK_CHARACTERS = /^[A-Za-z0-9/?=&_-]*$/;
/** Monitors and status pages are numbered by the service. */
const NUMERIC_ID = /^[1-9][0-9]{0,14}$/;
/** A consent request's id: 16 random bytes in base64url (server/domain/oauth/consent.ts). */
export const CONSENT_REQUEST_ID = /^[A-Za-z0-9_-]{22}$/;
const EDITORS: readonly EditorId[] = ['claude-code', 'cursor', 'vscode', 'claude-desktop'];

const isEditor = (value: string): value is EditorId => (EDITORS as readonly string[]).includes(value);

/** The query as name → value, or undefined when it repeats a name or has a part without `=`. */
function parseQuery(query: string | undefined): Map<string, string> | undefined {
  const params = new Map<string, string>();
  if (query === undefined) return params;
  for (const part of query.split('&')) {
    const [name, value, extra] = part.split('=');
    if (!name || value === undefined || extra !== undefined || params.has(name)) return undefined;
    params.set(name, value);
  }
  return params;
}

/** The route of a link's host and path segments, with no query parameters. */
function plainRoute(route: string, segments: string[]): DeepLink | undefined {
  const [id] = segments;
  if (segments.length === 0) {
    if (route === 'overview') return { kind: 'overview' };
    if (route === 'keys') return { kind: 'keys' };
    if (route === 'audit') return { kind: 'audit' };
    if (route === 'connect') return { kind: 'connect' };
  }
  if (segments.length === 1 && id !== undefined) {
    if (route === 'monitors' && NUMERIC_ID.test(id)) return { kind: 'monitor', id };
    if (route === 'pages' && NUMERIC_ID.test(id)) return { kind: 'page', id };
    if (route === 'consent' && CONSENT_REQUEST_ID.test(id)) return { kind: 'consent', requestId: id };
  }
  return undefined;
}

/** A statusdesk:// link as a route, or undefined for anything that is not exactly one of ours. */
export function parseDeepLink(url: string): DeepLink | undefined {
  if (url.length > MAX_LENGTH || url.slice(0, SCHEME.length).toLowerCase() !== SCHEME) return undefined;
  const rest = url.slice(SCHEME.length);
  if (!LINK_CHARACTERS.test(rest)) return undefined;
  const [location = '', query, extraQuery] = rest.split('?');
  if (extraQuery !== undefined) return undefined;
  // Windows hands a second instance the link with a slash added at the end.
  const [route = '', ...segments] = location.endsWith('/') ? location.slice(0, -1).split('/') : location.split('/');
  if (segments.some((segment) => segment === '')) return undefined;
  const params = parseQuery(query);
  if (!params) return undefined;
  if (route === 'connect' && segments.length === 0 && params.size === 1) {
    const editor = params.get('editor');
    return editor !== undefined && isEditor(editor) ? { kind: 'connect', editor } : undefined;
  }
  return params.size === 0 ? plainRoute(route, segments) : undefined;
}

/** The dashboard path that shows a link's route. */
export function dashboardPath(link: DeepLink): string {
  switch (link.kind) {
    case 'overview':
      return '/';
    case 'monitor':
      return `/monitors/${link.id}`;
    case 'page':
      return `/pages/${link.id}`;
    case 'consent':
      return `/oauth/consent?request=${link.requestId}`;
    case 'connect':
      return link.editor ? `/connect?editor=${link.editor}` : '/connect';
    case 'keys':
      return '/settings/general/api-keys';
    case 'audit':
      return '/audit';
  }
}

/**
 * The link a launch was asked to open (Windows and Linux pass it as an argument, to the first
 * instance or, through second-instance, to the one already running), or undefined.
 */
export function deepLinkFromArgv(argv: readonly string[]): DeepLink | undefined {
  const arg = argv.find((value) => value.slice(0, SCHEME.length).toLowerCase() === SCHEME);
  return arg === undefined ? undefined : parseDeepLink(arg);
}
