import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DestinationPolicy } from '../domain/destinations.ts';

/**
 * Signed JSON over HTTP: the one way webhooks, Slack, Discord and ntfy are told. One POST on a
 * connection of its own, no redirects followed, no retries. The address connected to is the one
 * the destination policy judged (its lookup resolves the name): fetch cannot be given a lookup,
 * so the POST goes through node:http. Errors name only the origin of the address: webhook URLs
 * carry their tokens in the path or query, and error messages are stored and shown.
 */

export const SIGNATURE_HEADER = 'x-statusdesk-signature';
export const EVENT_HEADER = 'x-statusdesk-event';
const USER_AGENT = 'Statusdesk';
const DEFAULT_TIMEOUT_MS = 10_000;

const hmac = (secret: string, timestamp: number, body: string) => createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with the channel's secret. */
export function signPayload(secret: string, body: string, now = Date.now()): string {
  const timestamp = Math.floor(now / 1000);
  return `t=${timestamp},v1=${hmac(secret, timestamp, body)}`;
}

export interface PostOptions {
  /** Signs the body into the x-statusdesk-signature header. */
  secret?: string;
  /** Sent as x-statusdesk-event. */
  event?: string;
  /** Extra request headers; they cannot replace content-type, user-agent or the two headers above. */
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Where the POST may connect; absent: anywhere. */
  destinations?: DestinationPolicy;
}

/** Network failures, by the error's code. */
const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'connection reset by the server',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  ETIMEDOUT: 'connection timed out',
  ENOTFOUND: 'DNS lookup failed: no such host',
  EAI_AGAIN: 'DNS lookup failed: the resolver did not answer',
  ENODATA: 'DNS lookup failed: no address for the host',
  HPE_INVALID_CONSTANT: 'the answer is not HTTP',
};

const CERTIFICATE_ERROR = /CERT|SELF_SIGNED|ERR_TLS_CERT_ALTNAME_INVALID|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

/** What went wrong in words, from the request's error; never its message, which may quote the URL (a refusal's names only the address). */
function describeFailure(error: unknown): string {
  if ((error as NodeJS.ErrnoException).code === 'EDESTINATION') return (error as Error).message;
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (code && NETWORK_ERRORS[code]) return NETWORK_ERRORS[code];
    if (code && CERTIFICATE_ERROR.test(code)) return 'certificate verification failed';
    if (code?.startsWith('ERR_SSL') || code?.startsWith('ERR_TLS')) return `TLS failed (${code})`;
    current = current.cause;
  }
  const code = error instanceof Error ? ((error.cause as NodeJS.ErrnoException | undefined)?.code ?? (error as NodeJS.ErrnoException).code) : undefined;
  return code ? `network error (${code})` : 'network error';
}

/**
 * POSTs `payload` as JSON and resolves once a 2xx answer arrived. Redirects are not followed: a
 * 3xx is a failure like any other non-2xx. Rejects with an Error naming only the origin:
 * `POST https://hooks.example.com answered 500`, `... failed: connection refused`,
 * `... timed out after 10000 ms`.
 */
export async function postJson(url: string, payload: unknown, options: PostOptions = {}): Promise<void> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new Error('POST failed: the address is not a valid URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new Error(`POST failed: ${target.protocol}// addresses are not supported, only http:// and https://`);
  const what = `POST ${target.origin}`;
  if (target.username || target.password) throw new Error(`${what} failed: the address carries credentials; send them in a header instead`);

  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const body = JSON.stringify(payload);
  let headers: Headers;
  try {
    headers = new Headers(options.headers);
  } catch {
    // The error would quote the header, which may be a credential.
    throw new Error(`${what} failed: a request header has an invalid name or value`);
  }
  headers.set('content-type', 'application/json');
  headers.set('user-agent', USER_AGENT);
  if (options.event !== undefined) headers.set(EVENT_HEADER, options.event);
  else headers.delete(EVENT_HEADER);
  if (options.secret !== undefined) headers.set(SIGNATURE_HEADER, signPayload(options.secret, body));
  else headers.delete(SIGNATURE_HEADER);

  const { destinations } = options;
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  // An IP address is not looked up: judged here, before anything is connected.
  const refused = destinations?.refusalOfHost(target.hostname.replace(/^\[|\]$/g, ''), port);
  if (refused) throw new Error(`${what} failed: ${refused}`);

  const status = await new Promise<number>((resolve, reject) => {
    let settled = false;
    const settle = (error: Error | undefined, code = 0) => {
      if (settled) return;
      settled = true;
      if (error) reject(error);
      else resolve(code);
    };
    // node:https (and node:tls under it) loads with the first https POST, not with the service.
    const { request } = process.getBuiltinModule(target.protocol === 'https:' ? 'node:https' : 'node:http');
    const req = request(target, {
      method: 'POST',
      headers: { ...Object.fromEntries(headers), 'content-length': String(Buffer.byteLength(body)) },
      // A connection of its own, closed after the answer: the policy's lookup judges each one.
      agent: false,
      lookup: destinations?.lookup(port),
    });
    // The whole exchange, the answer's body included, ends within the timeout.
    const timer = setTimeout(() => {
      settle(new Error(`${what} timed out after ${timeoutMs} ms`));
      req.destroy();
    }, timeoutMs);
    req.on('response', (response: IncomingMessage) => {
      settle(undefined, response.statusCode ?? 0);
      // The answer's body is not used: read to its end and dropped.
      response.resume();
      response.on('error', () => {});
      response.on('close', () => clearTimeout(timer));
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      settle(new Error(`${what} failed: ${describeFailure(error)}`));
    });
    req.on('close', () => {
      if (!settled) clearTimeout(timer);
      settle(new Error(`${what} failed: the connection broke off`));
    });
    req.end(body);
  });
  if (status < 200 || status > 299) throw new Error(`${what} answered ${status}`);
}
