import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';
import { UI_ROUTES } from '../../contract/dashboard.ts';

// A history router for the screens there are: the paths of contract/dashboard.ts, which the
// service answers with index.html, in the same `:param` syntax.
export const ROUTES = UI_ROUTES;

export type Route = (typeof ROUTES)[number];

/**
 * Addresses that show another route's screen. The settings area and each of its sections open
 * their first screen, and the addresses API Keys and Connected apps had before they moved under
 * Settings keep working for bookmarks and older links. The address is replaced by the one shown,
 * so it names the screen and Back does not return to it.
 */
export const REDIRECTS = {
  '/settings': '/settings/general/api-keys',
  '/settings/general': '/settings/general/api-keys',
  '/settings/integrations': '/settings/integrations/connected-apps',
  '/keys': '/settings/general/api-keys',
  '/connections': '/settings/integrations/connected-apps',
} as const satisfies Partial<Record<Route, Route>>;

export type RedirectRoute = keyof typeof REDIRECTS;

const isRedirect = (route: Route): route is RedirectRoute => Object.hasOwn(REDIRECTS, route);

/** The path a path is shown at when it redirects, or undefined when it does not. */
export function redirectOf(path: string): string | undefined {
  const route = matchRoute(path)?.route;
  return route && isRedirect(route) ? REDIRECTS[route] : undefined;
}

/** The route a path shows and its parameters, or undefined for a path no screen draws. */
export function matchRoute(path: string): { route: Route; params: Record<string, string> } | undefined {
  const parts = path.split('/').filter(Boolean);
  for (const route of ROUTES) {
    const pattern = route.split('/').filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((segment, i) => {
      if (segment.startsWith(':')) {
        try {
          params[segment.slice(1)] = decodeURIComponent(parts[i]!);
        } catch {
          return false;
        }
        return true;
      }
      return segment === parts[i];
    });
    if (matches) return { route, params };
  }
  return undefined;
}

const NAVIGATED = 'statusdesk:navigated';
let navigatedInApp = false;

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(NAVIGATED, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(NAVIGATED, onChange);
  };
}

const snapshot = () => location.pathname + location.search;

/** The current path and query; re-renders on every navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const current = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(current, location.origin);
  return { path: url.pathname, query: url.searchParams };
}

/** True once the user has moved between screens, so a screen knows to take the focus. */
export const hasNavigated = () => navigatedInApp;

/** What a history entry the dashboard made remembers: the address it was opened from. */
interface EntryState {
  from?: string;
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  navigatedInApp = true;
  // A replaced entry keeps where it was opened from; a new one remembers the address it leaves,
  // filters and search included (screens keep them in their address), for its way back.
  if (options.replace) history.replaceState(history.state, '', to);
  else history.pushState({ from: snapshot() } satisfies EntryState, '', to);
  window.dispatchEvent(new Event(NAVIGATED));
}

/** The dashboard address this screen was opened from, or undefined when it was opened directly. */
export function cameFrom(): string | undefined {
  const from = (history.state as EntryState | null)?.from;
  return typeof from === 'string' && from.startsWith('/') ? from : undefined;
}

/** The screens a way back names, by route. */
const BACK_TO: Partial<Record<Route, string>> = {
  '/': 'the overview',
  '/pages/:id': 'the status page',
  '/pages': 'status pages',
  '/notifications': 'notifications',
  '/audit': 'the audit log',
  '/locations': 'private locations',
};

/**
 * A link back to the screen this one was opened from, as it was left (its filters and search are
 * in its address), else to `fallback`. Going back steps back in the history when it can, so Back
 * and Forward keep their meaning.
 */
export function BackLink({ fallback }: { fallback: string }) {
  const from = cameFrom();
  const to = from ?? fallback;
  const route = matchRoute(new URL(to, location.origin).pathname)?.route;
  const name = (route && BACK_TO[route]) ?? 'the previous screen';
  const back = (event: MouseEvent<HTMLAnchorElement>) => {
    if (from === undefined || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigatedInApp = true;
    history.back();
  };
  return (
    <p className="back-link small">
      <Link to={to} onClick={back}>
        <span aria-hidden="true">← </span>Back to {name}
      </Link>
    </p>
  );
}

/**
 * Puts the address a redirecting path is shown at in place of it. Unlike navigate, it is not a
 * move of the user's: a screen opened by a redirect at load does not take the focus.
 */
export function redirect(to: string): void {
  if (to === snapshot()) return;
  history.replaceState(null, '', to);
  window.dispatchEvent(new Event(NAVIGATED));
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string };

export function Link({ to, onClick, ...rest }: LinkProps) {
  const { path } = useLocation();
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  const current = path === to || (to !== '/' && !to.includes('?') && path.startsWith(`${to}/`));
  return <a href={to} aria-current={current ? 'page' : undefined} onClick={handle} {...rest} />;
}
