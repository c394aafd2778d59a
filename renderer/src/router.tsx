import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';

// A history router for the handful of screens there are. The service answers each of these paths
// with index.html (server/dashboard/ui-routes.ts keeps the same list).
export const ROUTES = ['/', '/keys', '/connections', '/oauth/consent'] as const;

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
  return <a href={to} aria-current={path === to ? 'page' : undefined} onClick={handle} {...rest} />;
}
