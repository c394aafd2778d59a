import { AsyncLocalStorage } from 'node:async_hooks';
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DestinationPolicy } from '../domain/destinations.ts';

/**
 * JSON (signed for webhooks) or a form over HTTP: the one way webhooks and chat services are told.
 * One request on a connection of its own, no redirects followed, no retries. The address connected
 * to is the one the destination policy judged (its lookup resolves the name): fetch cannot be
 * given a lookup, so the request goes through node:http. Errors name only the origin of the
 * address: webhook URLs carry their tokens in the path or query, and error messages are stored
 * and shown. A service's own words for a refusal (`{"ok":false,"description":"chat not found"}`)
 * reach the error through the caller's `refusal`, which reads the answer's body.
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
  /** The method, where the API asks for another than POST (Matrix sends a message with PUT). */
  method?: 'POST' | 'PUT' | 'PATCH';
  /**
   * The error for an answer that is not 2xx, in the service's own words (`Telegram refused: chat
   * not found`; channels/service-api.ts's `refusalOf` builds one), or undefined for the plain
   * `POST <origin> answered <status>`.
   */
  refusal?: (answer: HttpAnswer) => string | undefined;
}

/** An answer that is not 2xx: its status and the start of its body, as text. */
export interface HttpAnswer {
  status: number;
  body: string;
}

/** How much of a refusing answer's body is read: services explain in a few hundred bytes. */
const ANSWER_BODY_LIMIT = 16 * 1024;
/** How long an answer's body is waited for when answers are kept: its start is enough for a delivery log. */
const KEPT_BODY_WAIT_MS = 1_000;

/** The answers of the requests made within `keepingAnswers`, in order. */
const keptAnswers = new AsyncLocalStorage<HttpAnswer[]>();

/**
 * Runs `send`, keeping the answer (status and the start of the body) of each request it makes,
 * accepted or not: a channel's delivery log shows what the receiver said. Outside it, an accepted
 * answer's body is not read.
 */
export function keepingAnswers<T>(send: () => Promise<T>): { answers: HttpAnswer[]; done: Promise<T> } {
  const answers: HttpAnswer[] = [];
  return { answers, done: keptAnswers.run(answers, send) };
}

/** A service's words in an error: one line, no control characters, at most 300 characters. */
export function serviceWords(text: string): string {
  const line = text.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** The body of a JSON answer, or undefined when it is not JSON. */
export function jsonOf(answer: HttpAnswer): any {
  try {
    return JSON.parse(answer.body);
  } catch {
    return undefined;
  }
}

/**
 * A delivery that failed, and whether another attempt may go through: the receiver failed (5xx),
 * asked to slow down (429), or the connection was lost; not a refusal (4xx), a refused address or
 * a timeout (a receiver that hangs would hold the alert three times as long).
 */
export class DeliveryError extends Error {
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean) {
    super(message);
    this.retryable = retryable;
  }
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
 * `... timed out after 10000 ms`, or the service's own words where `refusal` finds them.
 */
export function postJson(url: string, payload: unknown, options: PostOptions = {}): Promise<void> {
  return sendBody(url, JSON.stringify(payload), 'application/json', options);
}

/** POSTs `fields` as an HTML form (`application/x-www-form-urlencoded`), as postJson does JSON. */
export function postForm(url: string, fields: Record<string, string>, options: PostOptions = {}): Promise<void> {
  return sendBody(url, new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded', options);
}

/** Sends `body` as it is, of `contentType` (a custom webhook's rendered template), as postJson does JSON. */
export function postText(url: string, body: string, contentType: string, options: PostOptions = {}): Promise<void> {
  return sendBody(url, body, contentType, options);
}

async function sendBody(url: string, body: string, contentType: string, options: PostOptions): Promise<void> {
  const method = options.method ?? 'POST';
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new Error(`${method} failed: the address is not a valid URL`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new Error(`${method} failed: ${target.protocol}// addresses are not supported, only http:// and https://`);
  const what = `${method} ${target.origin}`;
  if (target.username || target.password) throw new Error(`${what} failed: the address carries credentials; send them in a header instead`);

  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let headers: Headers;
  try {
    headers = new Headers(options.headers);
  } catch {
    // The error would quote the header, which may be a credential.
    throw new Error(`${what} failed: a request header has an invalid name or value`);
  }
  headers.set('content-type', contentType);
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

  const keep = keptAnswers.getStore();
  const answer = await new Promise<HttpAnswer>((resolve, reject) => {
    let settled = false;
    let status = 0;
    const chunks: Buffer[] = [];
    let size = 0;
    /** Settles with the answer, once its status is known, or with the error. */
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      if (error && status === 0) reject(error);
      else resolve({ status, body: Buffer.concat(chunks).subarray(0, ANSWER_BODY_LIMIT).toString('utf8') });
    };
    // node:https (and node:tls under it) loads with the first https request, not with the service.
    const { request } = process.getBuiltinModule(target.protocol === 'https:' ? 'node:https' : 'node:http');
    const req = request(target, {
      method,
      headers: { ...Object.fromEntries(headers), 'content-length': String(Buffer.byteLength(body)) },
      // A connection of its own, closed after the answer: the policy's lookup judges each one.
      agent: false,
      lookup: destinations?.lookup(port),
    });
    // The whole exchange, the answer's body included, ends within the timeout; a refusal's body
    // cut short by it is read as far as it came.
    const timer = setTimeout(() => {
      settle(new Error(`${what} timed out after ${timeoutMs} ms`));
      req.destroy();
    }, timeoutMs);
    req.on('response', (response: IncomingMessage) => {
      status = response.statusCode ?? 0;
      const accepted = status >= 200 && status <= 299;
      // An accepted answer's body is not used; a refusal's is read (its start) when the caller reads
      // the service's words. Where answers are kept, every body is read, for a second at most when
      // no one reads the service's words.
      if (accepted || !options.refusal) {
        if (keep) setTimeout(() => settle(), KEPT_BODY_WAIT_MS).unref();
        else settle();
      }
      response.on('data', (chunk: Buffer) => {
        if (settled || size >= ANSWER_BODY_LIMIT) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size >= ANSWER_BODY_LIMIT) settle();
      });
      response.on('end', () => settle());
      response.on('error', () => settle());
      response.on('close', () => {
        clearTimeout(timer);
        settle();
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      settle(new DeliveryError(`${what} failed: ${describeFailure(error)}`, !(error as NodeJS.ErrnoException).code?.startsWith('EDESTINATION')));
    });
    req.on('close', () => {
      if (!settled) clearTimeout(timer);
      settle(new DeliveryError(`${what} failed: the connection broke off`, true));
    });
    req.end(body);
  });
  keep?.push(answer);
  if (answer.status >= 200 && answer.status <= 299) return;
  throw new DeliveryError(options.refusal?.(answer) ?? `${what} answered ${answer.status}`, answer.status >= 500 || answer.status === 429);
}
