// Where the app's windows may go. A window holds a signed-in dashboard session, so it shows the
// dashboard's own origin and nothing else: other web addresses open in the system browser, where
// the session is not, and every other scheme (file:, javascript:, data:, custom ones) goes nowhere.

export type NavigationDecision = 'allow' | 'open-externally' | 'deny';

/**
 * The policy the dashboard sends with every answer (DASHBOARD_SECURITY_HEADERS in
 * server/dashboard/dashboard-app.ts; a test keeps the two equal). The app sets it on the window's
 * responses too, so a page is held to it even if an answer arrived without it.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** An http(s) address without user info, or undefined. */
function webUrl(url: string): URL | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  // user:password@ is how an address is dressed up as another; none of ours carries it.
  if (parsed.username !== '' || parsed.password !== '') return undefined;
  return parsed;
}

/** A window moving to `url`: stays for the dashboard's exact origin, hands other web addresses to the browser. */
export function navigationDecision(url: string, dashboardOrigin: string): NavigationDecision {
  const target = webUrl(url);
  if (!target) return 'deny';
  return dashboardOrigin !== '' && target.origin === dashboardOrigin ? 'allow' : 'open-externally';
}

/** A page asking for a new window (target=_blank, window.open): never an app window, at most the browser. */
export function windowOpenDecision(url: string, dashboardOrigin: string): Exclude<NavigationDecision, 'allow'> {
  return navigationDecision(url, dashboardOrigin) === 'deny' ? 'deny' : 'open-externally';
}
