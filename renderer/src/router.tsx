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

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  navigatedInApp = true;
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  window.dispatchEvent(new Event(NAVIGATED));
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
