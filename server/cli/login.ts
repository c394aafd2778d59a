import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import type { AccessTokenSource } from '../../client/index.ts';
import { AppError } from '../errors.ts';
import { openBrowser } from './browser.ts';
import { DEFAULT_SERVICE_URL, note, unreachable } from './flags.ts';
import { configDir, deleteLogin, loadLogin, saveLogin, type StoredLogin, withLoginLock } from './login-store.ts';

/**
 * `statusdesk login` and `logout`: the command line as an OAuth client of the service (RFC 8252,
 * native apps): it registers itself, listens on an ephemeral loopback port for the redirect, and
 * keeps the tokens in the login store. Every client command then proves itself with
 * SERVICE_API_KEY, or else with the login to the service it talks to, refreshed as needed.
 */

const CLIENT_NAME = 'Statusdesk CLI';
const CALLBACK_PATH = '/callback';
/** Registered without a port: the service matches a loopback redirect on everything but the port, so each login listens on a fresh one. */
const REGISTERED_REDIRECT = `http://127.0.0.1${CALLBACK_PATH}`;
/** As long as the service keeps a consent request pending. */
const LOGIN_TIMEOUT_MS = 10 * 60_000;
/** An access token this close to its end is refreshed before use, not after a refusal. */
const REFRESH_MARGIN_MS = 60_000;
const HTTP_TIMEOUT_MS = 10_000;

/** Who a client command is to the service: an API key, or the access token of a login. */
export type ServiceCredential = { apiKey: string } | { accessToken: AccessTokenSource };

/** The service's origin, which is also its issuer: logins are kept under it. */
export function serviceOrigin(address: string): string {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new AppError('VALIDATION', `not a service address: "${address}" (expected e.g. ${DEFAULT_SERVICE_URL})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError('VALIDATION', `not an http(s) address: "${address}"`);
  return url.origin;
}

/** The `statusdesk login` that logs in to `issuer`, as people should type it. */
function loginCommand(issuer: string): string {
  return issuer === DEFAULT_SERVICE_URL ? 'statusdesk login' : `statusdesk login --api-url ${issuer}`;
}

function noCredential(issuer: string): string {
  return `SERVICE_API_KEY is not set and there is no login to ${issuer}: run \`${loginCommand(issuer)}\`, or create a key with \`statusdesk keys create\` and export it as SERVICE_API_KEY`;
}

/** oauth4webapi refuses plain http unless told; the service is usually on loopback http. */
function requestOptions(issuer: string) {
  return { [oauth.allowInsecureRequests]: new URL(issuer).protocol === 'http:', signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) };
}

/** Why an exchange with the authorization server failed, in a person's words. */
function reason(error: unknown): string {
  if (error instanceof oauth.ResponseBodyError) return error.error_description ? `${error.error}: ${error.error_description}` : error.error;
  const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
  if (error instanceof TypeError && cause?.code === 'ECONNREFUSED') return 'connection refused: is `statusdesk serve` running there?';
  if (error instanceof TypeError && cause) return cause.code ?? cause.message;
  return (error as Error)?.message ?? String(error);
}

/** The authorization server metadata (RFC 8414) of the service at `issuer`, which must name itself by that address. */
async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  try {
    return await oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, { ...requestOptions(issuer), algorithm: 'oauth2' }));
  } catch (error) {
    const named =
      error instanceof oauth.OperationProcessingError && error.code === oauth.JSON_ATTRIBUTE_COMPARISON
        ? (error.cause as { body?: { issuer?: unknown } })?.body?.issuer
        : undefined;
    if (typeof named === 'string') throw new AppError('VALIDATION', `the service at ${issuer} calls itself ${named}: use --api-url ${named}`);
    // Nothing there: said as every client command says it.
    if (unreachable(error)) throw error;
    throw new AppError('INTERNAL', `cannot read the OAuth metadata of ${issuer}: ${reason(error)}`);
  }
}

const publicClient = (clientId: string): oauth.Client => ({ client_id: clientId, token_endpoint_auth_method: 'none' });

function storedLogin(issuer: string, clientId: string, tokens: oauth.TokenEndpointResponse, previous?: StoredLogin): StoredLogin {
  const refreshToken = tokens.refresh_token ?? previous?.refreshToken;
  if (!refreshToken) throw new AppError('INTERNAL', `${issuer} issued no refresh token`);
  return {
    issuer,
    clientId,
    accessToken: tokens.access_token,
    refreshToken,
    expiresAt: new Date(Date.now() + (tokens.expires_in ?? 3600) * 1000).toISOString(),
    scope: tokens.scope ?? previous?.scope ?? 'write',
  };
}

/** Rotates the login's tokens with its refresh token; a refused refresh token ends the login. */
async function refresh(dir: string, login: StoredLogin): Promise<StoredLogin> {
  const as = await discover(login.issuer);
  const client = publicClient(login.clientId);
  let tokens: oauth.TokenEndpointResponse;
  try {
    tokens = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), login.refreshToken, requestOptions(login.issuer)),
    );
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError && (error.error === 'invalid_grant' || error.error === 'invalid_client')) {
      deleteLogin(dir, login.issuer);
      throw new AppError('UNAUTHORIZED', `your login has expired or was revoked: run \`${loginCommand(login.issuer)}\``);
    }
    throw new AppError('INTERNAL', `cannot refresh the login to ${login.issuer}: ${reason(error)}`);
  }
  const next = storedLogin(login.issuer, login.clientId, tokens, login);
  saveLogin(dir, next);
  return next;
}

/** The access token of the login to `issuer`, refreshed when it is about to end or was refused. */
function loginToken(dir: string, issuer: string): AccessTokenSource {
  const current = () => {
    const login = loadLogin(dir, issuer);
    if (!login) throw new AppError('UNAUTHORIZED', noCredential(issuer));
    return login;
  };
  return async (refused) => {
    // Another command may have refreshed meanwhile: then the stored token is already the new one.
    const usable = (login: StoredLogin) => (refused ? login.accessToken !== refused : Date.parse(login.expiresAt) - Date.now() > REFRESH_MARGIN_MS);
    const login = current();
    if (usable(login)) return login.accessToken;
    return withLoginLock(dir, async () => {
      const locked = current();
      return usable(locked) ? locked.accessToken : (await refresh(dir, locked)).accessToken;
    });
  };
}

/** SERVICE_API_KEY, else the login to the service at `address`; neither is an error saying how to get one. */
export function serviceCredential(address: string, env: NodeJS.ProcessEnv = process.env): ServiceCredential {
  if (env.SERVICE_API_KEY) return { apiKey: env.SERVICE_API_KEY };
  const issuer = serviceOrigin(address);
  const dir = configDir(env);
  if (!loadLogin(dir, issuer)) throw new AppError('UNAUTHORIZED', noCredential(issuer));
  return { accessToken: loginToken(dir, issuer) };
}

/** fetch with the credential; a bearer token the service refuses (401) is renewed and the request sent once more. */
export async function fetchWith(credential: ServiceCredential, url: string, init: RequestInit = {}): Promise<Response> {
  const send = (name: string, value: string) => {
    const headers = new Headers(init.headers);
    headers.set(name, value);
    return fetch(url, { ...init, headers });
  };
  if ('apiKey' in credential) return send('x-service-key', credential.apiKey);
  const token = await credential.accessToken();
  const response = await send('authorization', `Bearer ${token}`);
  if (response.status !== 401) return response;
  const renewed = await credential.accessToken(token);
  if (renewed === token) return response;
  await response.body?.cancel();
  return send('authorization', `Bearer ${renewed}`);
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page the browser shows at the end of the login. */
function answerPage(response: ServerResponse, status: number, title: string, text: string): void {
  // The connection ends with the page, so the command can exit as soon as the login is done.
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
  response.end(
    `<!doctype html><html lang="en"><meta charset="utf-8"><title>Statusdesk</title><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></html>\n`,
  );
}

interface Callback {
  params: URLSearchParams;
  answer(status: number, title: string, text: string): void;
}

/**
 * Listens on an ephemeral loopback port for the redirect of this login. A request that is not its
 * answer (another path, another state) is refused and the wait goes on: any local program can
 * reach the port, and none should be able to end the login.
 */
async function listenForCallback(check: (url: URL) => URLSearchParams) {
  let settle!: { resolve(callback: Callback): void; reject(error: Error): void };
  let settled = false;
  const arrived = new Promise<Callback>((resolve, reject) => (settle = { resolve, reject })).finally(() => (settled = true));
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', redirectUri);
    if (request.method !== 'GET' || url.pathname !== CALLBACK_PATH)
      return answerPage(response, 404, 'Not found', 'This address only receives the answer of a Statusdesk login.');
    if (settled) return answerPage(response, 409, 'Already answered', 'This login has already received its answer. You can close this tab.');
    let params: URLSearchParams;
    try {
      params = check(url);
    } catch (error) {
      if (!(error instanceof oauth.AuthorizationResponseError))
        return answerPage(response, 400, 'Not this login', `This is not the answer the login is waiting for: ${(error as Error).message}`);
      answerPage(response, 200, 'Statusdesk was not connected', `${error.error_description ?? error.error}. You can close this tab.`);
      return settle.reject(new AppError('FORBIDDEN', `login refused: ${error.error}${error.error_description ? `: ${error.error_description}` : ''}`));
    }
    settle.resolve({ params, answer: (status, title, text) => answerPage(response, status, title, text) });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}${CALLBACK_PATH}`;
  const timer = setTimeout(
    () => settle.reject(new AppError('INTERNAL', `no answer from the browser within ${LOGIN_TIMEOUT_MS / 60_000} minutes: run statusdesk login again`)),
    LOGIN_TIMEOUT_MS,
  );
  return {
    redirectUri,
    arrived,
    close() {
      clearTimeout(timer);
      server.close();
    },
  };
}

/** The loopback authorization code flow with PKCE against `issuer`; resolves to the login to store. */
async function logIn(issuer: string, withBrowser: boolean): Promise<StoredLogin> {
  const as = await discover(issuer);
  let client: oauth.Client;
  try {
    const registration = await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: CLIENT_NAME,
        redirect_uris: [REGISTERED_REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      requestOptions(issuer),
    );
    client = publicClient((await oauth.processDynamicClientRegistrationResponse(registration)).client_id);
  } catch (error) {
    throw new AppError('INTERNAL', `cannot register with ${issuer}: ${reason(error)}`);
  }
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const callback = await listenForCallback((url) => oauth.validateAuthResponse(as, client, url, state));
  try {
    const authorization = new URL(as.authorization_endpoint!);
    authorization.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: callback.redirectUri,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      scope: 'write',
      state,
      // The issuer itself: one token for both /rpc and /mcp.
      resource: issuer,
    }).toString();
    note(`${withBrowser ? 'Opening your browser to log in; if it does not open, visit' : 'To log in, visit'}:\n${authorization}`);
    if (withBrowser) openBrowser(authorization.href);
    const { params, answer } = await callback.arrived;
    try {
      const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, callback.redirectUri, verifier, {
        ...requestOptions(issuer),
        additionalParameters: { resource: issuer },
      });
      const login = storedLogin(issuer, client.client_id, await oauth.processAuthorizationCodeResponse(as, client, response));
      answer(200, 'Statusdesk is connected', 'The command line is logged in. You can close this tab.');
      return login;
    } catch (error) {
      answer(502, 'Statusdesk was not connected', 'The login could not be completed; the command line says why. You can close this tab.');
      throw error instanceof AppError ? error : new AppError('INTERNAL', `cannot complete the login to ${issuer}: ${reason(error)}`);
    }
  } finally {
    callback.close();
  }
}

/** Revokes a login's grant at the service (either token revokes the whole grant). */
async function revoke(login: StoredLogin): Promise<void> {
  const as = await discover(login.issuer);
  const client = publicClient(login.clientId);
  await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), login.refreshToken, requestOptions(login.issuer)));
}

/** `statusdesk login`: logs in to `issuer` and keeps the login, revoking the one it replaces. */
export async function logInTo(issuer: string, withBrowser: boolean): Promise<void> {
  const dir = configDir();
  const login = await logIn(issuer, withBrowser);
  const previous = loadLogin(dir, issuer);
  saveLogin(dir, login);
  // Each login registers anew, so the one it replaces would otherwise stay connected.
  if (previous) await revoke(previous).catch(() => {});
  note(`logged in to ${issuer} (workspace access: ${login.scope})`);
}

/** `statusdesk logout`: revokes the login to `issuer` at the service and forgets it. */
export async function logOutOf(issuer: string): Promise<void> {
  const dir = configDir();
  if (!loadLogin(dir, issuer)) return note(`not logged in to ${issuer}`);
  // Not while another command refreshes: the token revoked here would be retired by then.
  await withLoginLock(dir, async () => {
    const login = loadLogin(dir, issuer);
    if (!login) return;
    try {
      await revoke(login);
    } catch (error) {
      note(`could not revoke the login at ${issuer} (${reason(error)}); revoke "${CLIENT_NAME}" under Settings, Integrations, Connected apps in the dashboard`);
    }
    deleteLogin(dir, issuer);
    note(`logged out of ${issuer}`);
  });
}
