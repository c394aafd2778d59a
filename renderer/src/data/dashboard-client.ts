// The dashboard's JSON API as the UI calls it: each call named as contract/dashboard.ts names it,
// its parameters, query, body and answer typed by contract/dashboard-api.ts, so a call the
// service does not answer that way does not compile. Every failure is an ApiError.
import type { DashboardAnswer, DashboardBody, DashboardQuery, JsonEndpoint } from '../../../contract/dashboard-api.ts';
import { DASHBOARD_API, type DashboardEndpoint, pathOf, type PathParams } from '../../../contract/dashboard.ts';
import { ApiError, errorOf, NOT_ANSWERING } from './api-error.ts';
import { sessionFetch } from './session-fetch.ts';

export interface CallOptions<E extends JsonEndpoint> {
  query?: DashboardQuery<E>;
  body?: DashboardBody<E>;
  /** TanStack Query's, so a query no screen needs any more stops. */
  signal?: AbortSignal;
}

/** A query string of the values that are set. */
function search(query: object | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '' && value !== null) params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Sends one call; an answer that is not OK is thrown as its ApiError. */
async function send<E extends DashboardEndpoint>(
  endpoint: E,
  params: PathParams<E>,
  options: { query?: object; body?: unknown; signal?: AbortSignal; accept: string },
): Promise<Response> {
  const { method } = DASHBOARD_API[endpoint];
  const headers: Record<string, string> = { accept: options.accept };
  // A change is always JSON: the service takes no other body from a page (another site can send a form).
  if (method === 'POST') headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await sessionFetch(`${pathOf(endpoint, params)}${search(options.query)}`, {
      method,
      headers,
      body: method === 'POST' ? JSON.stringify(options.body ?? {}) : undefined,
      signal: options.signal,
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiError(0, 'UNAVAILABLE', NOT_ANSWERING);
  }
  if (!response.ok) throw await errorOf(response);
  return response;
}

/** One JSON call of the dashboard's API: its answer as the contract declares it. */
export async function callDashboard<E extends JsonEndpoint>(endpoint: E, params: PathParams<E>, options: CallOptions<E> = {}): Promise<DashboardAnswer<E>> {
  const response = await send(endpoint, params, { ...options, accept: 'application/json' });
  return (await response.json()) as DashboardAnswer<E>;
}

/** Ends the session on the service (204, nothing to read). */
export async function signOutOfService(): Promise<void> {
  await send('signOut', {}, { accept: 'application/json' });
}

/** A file the dashboard API makes (a POST, since it comes from a button of this page): its bytes and name. */
export async function downloadFile(endpoint: 'exportPage', params: PathParams<'exportPage'>, fallbackName: string): Promise<{ blob: Blob; filename: string }> {
  const response = await send(endpoint, params, { accept: '*/*' });
  const filename = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  return { blob: await response.blob(), filename };
}
