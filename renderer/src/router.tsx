import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';

// A history router for the screens there are. The service answers each of these paths with
// index.html (server/dashboard/ui-routes.ts keeps the same list, in the same `:param` syntax).
export const ROUTES = [
  '/',
  '/monitors/new',
  '/monitors/:id',
  '/monitors/:id/edit',
  '/pages',
  '/pages/:id',
  '/notifications',
  '/locations',
  '/audit',
  '/connect',
  '/keys',
  '/connections',
  '/oauth/consent',
] as const;

export type Route = (typeof ROUTES)[number];

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
