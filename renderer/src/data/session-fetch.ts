// The tab's session and the one fetch every call of the UI goes through: the JSON API, the RPC
// services (as their transport's fetch) and the live feed. It signs the call in with the page's
// half of the session, beside the session cookie, and turns a 401 into "signed out" for every
// screen. Nothing else in the UI sets the session header or reads a 401.
import { SESSION_TOKEN_HEADER, SESSION_TOKEN_META } from '../../../contract/dashboard.ts';

/** Where this tab keeps its half of the session: its own origin's session storage, gone with the tab. */
const TOKEN_KEY = 'statusdesk.session';
/** Tabs of this origin hand the token to a new tab of theirs; no other origin can join the channel. */
const TOKEN_CHANNEL = 'statusdesk.session';
/** How long a new tab waits for another tab of the dashboard to answer. */
const ASK_TABS_MS = 250;
/**
 * The paths whose 401 means the session is gone. The consent page's request
 * (`/oauth/consent/requests/…`) is read by browsers that were never signed in, and answers them.
 */
const SIGNED_IN_PATHS = ['/api/', '/rpc/'];

function storedToken(): string | undefined {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

function storeToken(token: string | undefined): void {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // Storage refused: the token lasts as long as this page.
  }
}

let sessionToken: Promise<string | undefined> | undefined;
const channel = typeof BroadcastChannel === 'undefined' ? undefined : new BroadcastChannel(TOKEN_CHANNEL);
channel?.addEventListener('message', (event: MessageEvent<{ ask?: true; token?: string; signedOut?: true }>) => {
  if (event.data.ask) {
    void currentTokenOfThisTab().then((token) => token && channel.postMessage({ token }));
  } else if (event.data.signedOut) {
    storeToken(undefined);
    sessionToken = Promise.resolve(undefined);
  }
});

/** The token this tab holds, without asking the others. */
function currentTokenOfThisTab(): Promise<string | undefined> {
  const stored = storedToken();
  return stored ? Promise.resolve(stored) : (sessionToken ?? Promise.resolve(undefined));
}

/** Asks the other open tabs of the dashboard for the token; undefined when none answers in time. */
function askOtherTabs(): Promise<string | undefined> {
  if (!channel) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const onAnswer = (event: MessageEvent<{ token?: string }>) => {
      if (!event.data.token) return;
      finish(event.data.token);
    };
    const finish = (token: string | undefined) => {
      clearTimeout(timer);
      channel.removeEventListener('message', onAnswer);
      if (token) storeToken(token);
      resolve(token);
    };
    const timer = setTimeout(finish, ASK_TABS_MS, undefined);
    channel.addEventListener('message', onAnswer);
    channel.postMessage({ ask: true });
  });
}

/**
 * Takes the session token from the sign-in answer's meta element into this tab's session storage,
 * and shows `/` instead of the one-time link's address. Runs before the first render.
 */
export function adoptSessionToken(): void {
  const meta = document.querySelector<HTMLMetaElement>(`meta[name="${SESSION_TOKEN_META}"]`);
  if (!meta) return;
  storeToken(meta.content);
  sessionToken = Promise.resolve(meta.content || undefined);
  meta.remove();
  history.replaceState(null, '', '/');
}

/** Keeps the page token a sign-in answer returned (`{ token }`) as this tab's half of the session. */
export function keepSessionToken(token: string): void {
  storeToken(token);
  sessionToken = Promise.resolve(token);
}

/** This tab's session token, or another open tab's; undefined when the window is not signed in. */
export function currentSessionToken(): Promise<string | undefined> {
  const stored = storedToken();
  if (stored) return Promise.resolve(stored);
  sessionToken ??= askOtherTabs();
  return sessionToken;
}

/** Forgets the token in this tab and every other tab of the dashboard. */
export function forgetSessionToken(): void {
  storeToken(undefined);
  sessionToken = Promise.resolve(undefined);
  channel?.postMessage({ signedOut: true });
}

const signedOutListeners = new Set<() => void>();

/** Called whenever a call answers 401: the session is gone or never was. */
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** Forgets the token, and tells every listener the window is signed out. */
export function signedOut(): void {
  forgetSessionToken();
  signedOutListeners.forEach((listener) => listener());
}

/**
 * `fetch` on the page's own origin, signed in: the session token in its header, the cookie sent,
 * nothing cached. A 401 on a path that needs the session signs the window out (the answer is
 * still returned, for the caller to report).
 */
export async function sessionFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const token = await currentSessionToken();
  if (token) headers.set(SESSION_TOKEN_HEADER, token);
  const response = await fetch(input, { ...init, headers, credentials: 'same-origin', cache: 'no-store' });
  if (response.status === 401) {
    const { pathname } = new URL(input instanceof Request ? input.url : String(input), location.origin);
    if (SIGNED_IN_PATHS.some((path) => pathname.startsWith(path))) signedOut();
  }
  return response;
}
