import { type IncomingHttpHeaders, type IncomingMessage, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { SecureContext } from 'node:tls';
import { MONITOR_LIMITS } from '../../contract/limits.ts';
import type { DestinationPolicy } from '../domain/destinations.ts';
import type { AssertionResult, CertificateCheck, ProbeResult, Timing } from '../domain/monitors/check-results.ts';
import type { HttpConfig } from '../domain/monitors/monitor-rules.ts';
import { isSecretName, REDACTED, redactHeaders } from '../domain/monitors/monitor-secrets.ts';
import { withCertificate } from './certificate-record.ts';
import { ConnectionFailure, Deadline, emptyTiming, openConnection, round, since, type TlsSettings, until, withRetries } from './connection.ts';
import { degradedMessage, failedProbe } from './outcome.ts';

/**
 * The HTTP check: one request (and its redirects, each on a fresh connection this module opens
 * and times itself, each hop's address judged by the destination policy), then the monitor's
 * assertions on the final answer. Only failed connection attempts are retried; an answer, even a
 * 500, is the result. What is recorded of the answer is its status, its headers (credentials
 * redacted) and whether each assertion held: never its body. An HTTPS check also records the
 * certificate of its last TLS handshake (after redirects, the last HTTPS server's), failed or not.
 */

export type HttpProbeConfig = Pick<
  HttpConfig,
  'url' | 'method' | 'headers' | 'body' | 'followRedirects' | 'statusCodeAssertions' | 'headerAssertions' | 'bodyAssertions' | 'timeout' | 'degraded' | 'retry'
>;

export interface HttpProbeOptions {
  trust: SecureContext;
  userAgent: string;
  /** Aborts the check (the engine is closing). */
  stop?: AbortSignal;
  /** Where the check may connect, on every hop (domain/destinations.ts); absent: anywhere. */
  destinations?: DestinationPolicy;
}

const MAX_REDIRECTS = MONITOR_LIMITS.redirects;
/** The part of a body kept for body assertions; the rest is not read. */
const MAX_BODY_BYTES = 1024 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/**
 * Request headers that must not follow a redirect to another origin: those whose names look like
 * credentials (the ones sealed at rest, monitor-secrets.ts), which covers `authorization`,
 * `proxy-authorization` and `cookie`.
 */
const isCredentialHeader = (name: string) => isSecretName(name);

interface Answer {
  url: URL;
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export async function probeHttp(monitor: HttpProbeConfig, options: HttpProbeOptions): Promise<ProbeResult> {
  const deadline = new Deadline(monitor.timeout, options.stop);
  const timing = emptyTiming();
  const counter = { attempts: 0 };
  let request = { url: new URL(monitor.url), method: monitor.method as string, body: monitor.body, headers: monitor.headers };
  let redirects = 0;
  let certificate: CertificateCheck | undefined;
  // One for the check: every HTTPS hop verifies, and its certificate replaces the previous hop's.
  const tls: TlsSettings = {
    verify: true,
    alpn: ['http/1.1'],
    trust: options.trust,
    onCertificate: (found) => {
      certificate = found;
    },
  };
  try {
    for (; ; redirects++) {
      const answer = await exchange(request, monitor.retry, tls, options, deadline, timing, counter);
      const location = answer.headers.location;
      if (!monitor.followRedirects || !REDIRECTS.has(answer.status) || !location)
        return withCertificate(judge(monitor, answer, deadline, timing, counter.attempts), certificate);
      if (redirects === MAX_REDIRECTS)
        return withCertificate(
          { ...failedProbe(deadline, timing, counter.attempts, `stopped after ${MAX_REDIRECTS} redirects`), url: request.url.href },
          certificate,
        );
      const next = redirectTarget(request, answer.status, location);
      if (!next)
        return withCertificate(
          { ...failedProbe(deadline, timing, counter.attempts, `redirected to an address that is not http or https: ${location}`), url: request.url.href },
          certificate,
        );
      request = next;
    }
  } catch (error) {
    if (!(error instanceof ConnectionFailure)) throw error;
    // A hop the policy refused says it was a redirect that led there: the monitor's own URL was allowed.
    const message = error.kind === 'policy' && redirects > 0 ? `redirected to ${request.url.origin}: ${error.message}` : error.message;
    return withCertificate({ ...failedProbe(deadline, timing, counter.attempts, message), url: request.url.href }, certificate);
  } finally {
    deadline.clear();
  }
}

interface Request {
  url: URL;
  method: string;
  body: string;
  headers: Record<string, string>;
}

/** The request a redirect leads to, as browsers do it; null if it leaves http(s). */
function redirectTarget(previous: Request, status: number, location: string): Request | null {
  let url: URL;
  try {
    url = new URL(location, previous.url);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const toGet = status === 303 || ((status === 301 || status === 302) && previous.method === 'POST');
  const sameOrigin = url.origin === previous.url.origin;
  const headers = sameOrigin ? previous.headers : Object.fromEntries(Object.entries(previous.headers).filter(([name]) => !isCredentialHeader(name)));
  return toGet
    ? { url, method: previous.method === 'HEAD' ? 'HEAD' : 'GET', body: '', headers: withoutBodyHeaders(headers) }
    : { url, method: previous.method, body: previous.body, headers };
}

function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !name.toLowerCase().startsWith('content-')));
}

/** Adds one hop's phases to the check's: with redirects, each phase is the sum over the hops. */
function addPhases(total: Timing, hop: Timing): void {
  for (const phase of ['dns', 'connect', 'tls', 'ttfb', 'transfer'] as const) {
    if (hop[phase] !== null) total[phase] = round((total[phase] ?? 0) + hop[phase]);
  }
}

/** One request on a fresh connection, with the answer's first MAX_BODY_BYTES. */
async function exchange(
  request: Request,
  retry: number,
  tls: TlsSettings,
  options: HttpProbeOptions,
  deadline: Deadline,
  timing: Timing,
  counter: { attempts: number },
): Promise<Answer> {
  const { url } = request;
  const https = url.protocol === 'https:';
  const target = { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) || (https ? 443 : 80), authority: url.host };
  const hop = emptyTiming();
  // Attempts of the request that produced the answer: redirects are not retries.
  counter.attempts = 0;
  try {
    const socket = await withRetries(retry, deadline, () => {
      counter.attempts++;
      return openConnection(target, deadline, hop, https ? tls : undefined, options.destinations);
    });
    const req = httpRequest({
      createConnection: () => socket,
      method: request.method,
      path: `${url.pathname}${url.search}`,
      headers: { 'user-agent': options.userAgent, ...request.headers, host: url.host, connection: 'close' },
    });
    req.on('error', () => {}); // reported through the waits below
    try {
      req.end(request.body === '' ? undefined : request.body);
      const sent = performance.now();
      let response: IncomingMessage;
      try {
        response = await until<IncomingMessage>(req, 'response', deadline);
      } catch (error) {
        if (deadline.expired) throw deadline.timedOut();
        throw answerFailure(`the server did not answer: ${(error as Error).message}`);
      }
      const responded = performance.now();
      hop.ttfb = round(responded - sent);
      const body = await readBody(response, deadline);
      hop.transfer = since(responded);
      return { url, status: response.statusCode ?? 0, statusText: response.statusMessage ?? '', headers: response.headers, body };
    } finally {
      // One request per connection: whatever happened, it is closed now.
      req.destroy();
    }
  } finally {
    addPhases(timing, hop);
  }
}

/** The request reached the server but no usable answer came back. Thrown outside withRetries: never retried. */
const answerFailure = (message: string) => new ConnectionFailure('protocol', message);

async function readBody(response: IncomingMessage, deadline: Deadline): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const done = until(response, 'end', deadline);
  response.on('data', (chunk: Buffer) => {
    if (size >= MAX_BODY_BYTES) return;
    chunks.push(chunk);
    size += chunk.length;
    // Enough for the assertions: the rest of a large body is not worth the wait.
    if (size >= MAX_BODY_BYTES) response.destroy();
  });
  try {
    await done;
  } catch (error) {
    if (deadline.expired) throw deadline.timedOut();
    if (size < MAX_BODY_BYTES) throw answerFailure(`the answer broke off: ${(error as Error).message}`);
  }
  return Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString('utf8');
}

/** Applies the assertions and the degraded threshold to the final answer. */
function judge(monitor: HttpProbeConfig, answer: Answer, deadline: Deadline, timing: Timing, attempts: number): ProbeResult {
  const latency = deadline.elapsed();
  timing.total = latency;
  const assertionResults = evaluate(monitor, answer);
  const failed = assertionResults.filter((a) => !a.passed);
  const base = {
    latencyMs: latency,
    timing,
    attempts,
    grpcStatus: null,
    statusCode: answer.status,
    url: answer.url.href,
    responseHeaders: redactHeaders(answer.headers),
    assertionResults,
  };
  const status = `${answer.status}${answer.statusText ? ` ${answer.statusText}` : ''}`;
  if (failed.length > 0) {
    const more = failed.length > 1 ? ` and ${failed.length - 1} more` : '';
    return { ...base, result: 'down', message: `assertion failed: ${failed[0]!.assertion} (got ${failed[0]!.actual})${more}` };
  }
  if (monitor.degraded !== null && latency > monitor.degraded)
    return { ...base, result: 'degraded', message: degradedMessage(status, latency, monitor.degraded) };
  return { ...base, result: 'up', message: `${status} in ${latency} ms` };
}

const NUMBER_TESTS: Record<HttpConfig['statusCodeAssertions'][number]['comparator'], (a: number, b: number) => boolean> = {
  equal: (a, b) => a === b,
  not_equal: (a, b) => a !== b,
  greater_than: (a, b) => a > b,
  greater_than_or_equal: (a, b) => a >= b,
  less_than: (a, b) => a < b,
  less_than_or_equal: (a, b) => a <= b,
};

const STRING_TESTS: Record<HttpConfig['bodyAssertions'][number]['comparator'], (a: string, b: string) => boolean> = {
  contains: (a, b) => a.includes(b),
  not_contains: (a, b) => !a.includes(b),
  equal: (a, b) => a === b,
  not_equal: (a, b) => a !== b,
  empty: (a) => a === '',
  not_empty: (a) => a !== '',
};

const quoted = (text: string, limit = 120) => JSON.stringify(text.length > limit ? `${text.slice(0, limit)}…` : text);

function evaluate(monitor: HttpProbeConfig, answer: Answer): AssertionResult[] {
  const results: AssertionResult[] = [];
  const code = String(answer.status);
  if (monitor.statusCodeAssertions.length === 0) {
    results.push({ assertion: 'status code 2xx', passed: answer.status >= 200 && answer.status < 300, actual: code });
  }
  for (const a of monitor.statusCodeAssertions) {
    results.push({ assertion: `status code ${a.comparator} ${a.target}`, passed: NUMBER_TESTS[a.comparator](answer.status, a.target), actual: code });
  }
  for (const a of monitor.headerAssertions) {
    const name = a.key.toLowerCase();
    const raw = answer.headers[name];
    const value = Array.isArray(raw) ? raw.join(', ') : (raw ?? '');
    const shown = isSecretName(name) ? REDACTED : raw === undefined ? 'no such header' : quoted(value);
    const target = a.comparator === 'empty' || a.comparator === 'not_empty' ? '' : ` ${quoted(a.target)}`;
    results.push({ assertion: `header ${name} ${a.comparator}${target}`, passed: STRING_TESTS[a.comparator](value, a.target), actual: shown });
  }
  for (const a of monitor.bodyAssertions) {
    const target = a.comparator === 'empty' || a.comparator === 'not_empty' ? '' : ` ${quoted(a.target)}`;
    const passed = STRING_TESTS[a.comparator](answer.body, a.target);
    results.push({ assertion: `body ${a.comparator}${target}`, passed, actual: BODY_FOUND[a.comparator][passed ? 1 : 0] });
  }
  return results;
}

/**
 * What a body assertion found, [when it failed, when it held]: whether it matched, never the
 * body's text. Results are stored and shown (response logs, MCP, the dashboard), and the start of
 * an internal answer must not be readable through them.
 */
const BODY_FOUND: Record<HttpConfig['bodyAssertions'][number]['comparator'], [string, string]> = {
  contains: ['a body without it', 'a body containing it'],
  not_contains: ['a body containing it', 'a body without it'],
  equal: ['a different body', 'that body'],
  not_equal: ['that body', 'a different body'],
  empty: ['a body that is not empty', 'an empty body'],
  not_empty: ['an empty body', 'a body that is not empty'],
};
