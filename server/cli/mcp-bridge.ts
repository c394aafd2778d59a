import { createInterface } from 'node:readline';
import { createParser } from 'eventsource-parser';
import type { Readable, Writable } from 'node:stream';
import { AppError } from '../errors.ts';
import { address, type Command, restBase, serviceUrl } from './flags.ts';
import { fetchWith, type ServiceCredential, serviceCredential } from './login.ts';
import { credentialRefused, notRunning } from './output.ts';

/**
 * `statusdesk mcp`: MCP over stdio for clients that only start local processes (Claude Desktop),
 * bridged to the service's Streamable HTTP endpoint. Every line of stdin is one JSON-RPC message
 * (or batch), POSTed on its own so that slow tool calls do not hold up quick ones; every message
 * of the answer, a JSON body or an SSE stream, becomes one line of stdout. The bridge keeps no
 * protocol state but the version the handshake negotiated: the endpoint is stateless.
 */

/** A JSON-RPC message as parsed; the bridge reads only the few members it routes on. */
type Message = Record<string, unknown>;
type Id = string | number;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** Where the 2026-07-28 revision puts a request's protocol version (its `_meta` envelope). */
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';

/** The `params` member that `Mcp-Name` mirrors, per method (2026-07-28 Streamable HTTP). */
const NAME_FIELD: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

const isObject = (value: unknown): value is Message => typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is Id => typeof value === 'string' || typeof value === 'number';
const isRequest = (m: Message): boolean => typeof m.method === 'string' && isId(m.id);
const isResponse = (m: Message): boolean => m.method === undefined && isId(m.id) && ('result' in m || 'error' in m);

function envelopeVersion(m: Message): string | undefined {
  const meta = isObject(m.params) ? m.params._meta : undefined;
  const version = isObject(meta) ? meta[PROTOCOL_VERSION_META] : undefined;
  return typeof version === 'string' ? version : undefined;
}

/**
 * An HTTP field value as the 2026-07-28 headers carry one: plain when it is printable ASCII
 * without edge whitespace, else base64 of its UTF-8 in the `=?base64?...?=` wrapper (also when
 * it already looks wrapped, so the server cannot misread it).
 */
export function headerValue(value: string): string {
  const plain = value !== '' && value === value.trim() && /^[\t\x20-\x7e]*$/.test(value) && !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/**
 * The headers of one POST. A request that carries the 2026-07-28 `_meta` envelope names its own
 * version, method and (for the methods that have one) name; anything else gets the version the
 * initialize handshake negotiated, once there is one. The handshake itself goes without.
 */
export function requestHeaders(body: unknown, negotiated: string | undefined): Headers {
  const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
  const single = isObject(body) ? body : undefined;
  const claimed = single && envelopeVersion(single);
  if (single && claimed) {
    headers.set('mcp-protocol-version', claimed);
    if (isRequest(single)) {
      headers.set('mcp-method', single.method as string);
      const field = Object.hasOwn(NAME_FIELD, single.method as string) ? NAME_FIELD[single.method as string] : undefined;
      const name = field && isObject(single.params) ? single.params[field] : undefined;
      if (typeof name === 'string') headers.set('mcp-name', headerValue(name));
    }
  } else if (negotiated && single?.method !== 'initialize') {
    headers.set('mcp-protocol-version', negotiated);
  }
  return headers;
}

/** Seconds to wait from a Retry-After header (whole seconds or an HTTP date), at least 1. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Math.max(1, Number(text));
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(1, Math.ceil((at - now) / 1000));
}

/** The readable part of an error body: the OAuth-style description, the REST envelope's message, or short text. */
function describeBody(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    if (isObject(body)) {
      const said = body.error_description ?? body.message ?? body.error;
      if (typeof said === 'string' && said !== '') return said;
    }
  } catch {
    // Not JSON: the text itself, if short enough to be a message.
  }
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/**
 * A refused POST as a JSON-RPC error a person can act on. The codes are the ones the /mcp
 * endpoint itself uses for the same conditions (UNAUTHORIZED -32001, FORBIDDEN -32003,
 * INTERNAL -32603); the rest are in the implementation-defined server range.
 */
export function httpError(status: number, headers: Headers, text: string, endpoint: string): JsonRpcError {
  const said = describeBody(text);
  const detail = said ? `: ${said}` : '';
  if (status === 401) {
    return { code: -32001, message: credentialRefused(new URL(endpoint).origin, `401${detail}`), data: { code: 'UNAUTHORIZED', status } };
  }
  if (status === 403) {
    return {
      code: -32003,
      message: `the service refused the request (403${detail}); check that --api-url or SERVICE_API_URL names the service as it knows itself`,
      data: { code: 'FORBIDDEN', status },
    };
  }
  if (status === 429) {
    const seconds = retryAfterSeconds(headers.get('retry-after'));
    const wait = seconds === undefined ? 'retry later' : `retry after ${seconds} second${seconds === 1 ? '' : 's'}`;
    return {
      code: -32000,
      // Said once, from the header; the service's own words (which repeat it) stay in data.
      message: `rate limited by the service (429): ${wait}`,
      data: { code: 'LIMIT_EXCEEDED', status, detail: said, ...(seconds === undefined ? {} : { retryAfter: seconds }) },
    };
  }
  if (status >= 500) {
    return { code: -32603, message: `the service failed (HTTP ${status}${detail}); its log has the details`, data: { code: 'INTERNAL', status } };
  }
  if (status === 404) {
    return {
      code: -32000,
      message: `no MCP endpoint at ${endpoint} (404); check that --api-url or SERVICE_API_URL is the Statusdesk service`,
      data: { status },
    };
  }
  return { code: -32000, message: `the service answered HTTP ${status}${detail}`, data: { status } };
}

/** A failed fetch (nothing answered) as a JSON-RPC error: a refused connection means no service there. */
export function networkError(error: unknown, endpoint: string): JsonRpcError {
  const cause = (error as { cause?: NodeJS.ErrnoException & { errors?: NodeJS.ErrnoException[] } }).cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  const origin = new URL(endpoint).origin;
  if (code === 'ECONNREFUSED') {
    return {
      code: -32000,
      message: notRunning(origin),
      data: { cause: code },
    };
  }
  const reason = code ?? cause?.message ?? (error as Error).message;
  return { code: -32000, message: `cannot reach ${origin}: ${reason}`, data: code ? { cause: code } : {} };
}

/**
 * The `data` payloads of an SSE stream, one per event of the default type, as they complete.
 * An event still open when the stream ends is delivered too.
 */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const ready: string[] = [];
  const parser = createParser({ onEvent: (event) => (event.event === undefined || event.event === 'message' ? void ready.push(event.data) : undefined) });
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    parser.feed(chunk);
    yield* ready.splice(0);
  }
  // A blank line ends whatever line and event the stream broke off in.
  parser.feed('\n\n');
  yield* ready.splice(0);
}

export interface BridgeOptions {
  /** The service's MCP endpoint, `{origin}/mcp`. */
  endpoint: string;
  credential: ServiceCredential;
  input: Readable;
  output: Writable;
  /** One line for people (stderr): stdout carries only protocol messages. */
  diagnostic(text: string): void;
}

/** Bridges until the input ends and every answer in flight is written (or the output closes). */
export async function runBridge(options: BridgeOptions): Promise<void> {
  const { endpoint, credential, input, output, diagnostic } = options;
  let negotiated: string | undefined;
  let outputClosed = false;
  const inFlight = new Set<Promise<void>>();
  /** The POST of each single request waiting for its answer, so a cancellation can end it. */
  const open = new Map<Id, { abort: AbortController; cancelled: boolean }>();

  const lines = createInterface({ input, crlfDelay: Infinity });
  output.on('error', (error: NodeJS.ErrnoException) => {
    // The client is gone (EPIPE): nothing more can be answered.
    if (!outputClosed) diagnostic(`output closed (${error.code ?? error.message}); stopping`);
    outputClosed = true;
    for (const { abort } of open.values()) abort.abort();
    lines.close();
  });

  // One write per message: concurrent answers never interleave within a line.
  const write = (message: unknown) => {
    if (!outputClosed) output.write(`${JSON.stringify(message)}\n`);
  };
  const fail = (id: Id | null, error: JsonRpcError) => write({ jsonrpc: '2.0', id, error });

  async function forward(body: Message | Message[]): Promise<void> {
    const messages = Array.isArray(body) ? body : [body];
    const requests = new Map(messages.filter(isRequest).map((m) => [m.id as Id, m]));
    /** What a diagnostic line is about: the methods posted. */
    const what = messages.map((m) => (typeof m.method === 'string' ? m.method : 'response')).join(', ');
    const answered = new Set<Id>();
    const abort = new AbortController();
    const single = !Array.isArray(body) && isRequest(body) ? (body.id as Id) : undefined;
    const entry = { abort, cancelled: false };
    if (single !== undefined) open.set(single, entry);
    const failAll = (error: JsonRpcError) => {
      for (const id of requests.keys()) if (!answered.has(id)) fail(id, error);
    };
    const deliver = (message: unknown) => {
      if (!isObject(message) && !Array.isArray(message)) return diagnostic('the service sent a message that is not JSON-RPC; dropped');
      for (const m of Array.isArray(message) ? message : [message]) {
        if (isObject(m) && isResponse(m) && requests.has(m.id as Id)) {
          answered.add(m.id as Id);
          const result = m.result;
          // The version is known before the client can send anything under it.
          if (requests.get(m.id as Id)?.method === 'initialize' && isObject(result) && typeof result.protocolVersion === 'string') {
            negotiated = result.protocolVersion;
          }
        }
        write(m);
      }
    };
    try {
      let response: Response;
      try {
        response = await fetchWith(credential, endpoint, {
          method: 'POST',
          headers: requestHeaders(body, negotiated),
          body: JSON.stringify(body),
          signal: abort.signal,
        });
      } catch (error) {
        if (entry.cancelled) return;
        // The login could not be refreshed: its message says what to run.
        const problem = error instanceof AppError ? { code: -32001, message: error.message, data: { code: error.code } } : networkError(error, endpoint);
        diagnostic(`${what}: ${problem.message}`);
        return failAll(problem);
      }
      if (!response.ok) {
        const text = await response.text().catch(() => '');
        // A JSON-RPC error the endpoint wrote itself (a 400 for a malformed request) says more than the status.
        try {
          const parsed: unknown = JSON.parse(text);
          const list = Array.isArray(parsed) ? parsed : [parsed];
          if (list.some((m) => isObject(m) && isResponse(m) && requests.has(m.id as Id))) deliver(parsed);
        } catch {
          // Not JSON-RPC: described from the status below.
        }
        if (requests.size > 0 && [...requests.keys()].every((id) => answered.has(id))) return;
        const problem = httpError(response.status, response.headers, text, endpoint);
        diagnostic(`${what}: ${problem.message}`);
        return failAll(problem);
      }
      const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type === 'text/event-stream' && response.body) {
        for await (const data of sseData(response.body)) {
          try {
            deliver(JSON.parse(data));
          } catch {
            diagnostic(`the service sent an event that is not JSON; dropped: ${data.slice(0, 200)}`);
          }
        }
      } else {
        const text = await response.text();
        if (text.trim() !== '') {
          try {
            deliver(JSON.parse(text));
          } catch {
            diagnostic(`the service answered ${response.status} with a body that is not JSON (${type || 'no content type'})`);
          }
        }
      }
      if (!entry.cancelled) failAll({ code: -32603, message: 'the service ended its answer without a response to this request', data: { code: 'INTERNAL' } });
    } catch (error) {
      // The stream broke off mid-answer, or the POST was cancelled while it streamed.
      if (entry.cancelled || outputClosed) return;
      const problem = networkError(error, endpoint);
      diagnostic(`${what}: ${problem.message}`);
      failAll(problem);
    } finally {
      if (single !== undefined && open.get(single) === entry) open.delete(single);
    }
  }

  for await (const line of lines) {
    const text = line.trim();
    if (text === '') continue;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      fail(null, { code: -32700, message: `Parse error: ${(error as Error).message}` });
      continue;
    }
    const messages = Array.isArray(body) ? body : [body];
    if (messages.length === 0 || !messages.every(isObject)) {
      fail(null, { code: -32600, message: 'Invalid Request: expected a JSON-RPC message object or a batch of them' });
      continue;
    }
    // The client gave up on a request: end its POST (the 2026-07-28 way to cancel) and write no
    // answer for it; the notification still goes on for a server that tracks requests itself.
    const message = body as Message;
    if (message.method === 'notifications/cancelled' && isObject(message.params) && isId(message.params.requestId)) {
      const pending = open.get(message.params.requestId);
      if (pending) {
        pending.cancelled = true;
        pending.abort.abort();
      }
    }
    const task = forward(body as Message | Message[]).catch((error: unknown) => diagnostic(`bridge failure: ${(error as Error)?.message ?? error}`));
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task));
  }
  await Promise.all(inFlight);
}

/** The MCP endpoint of a service address: REST and MCP hang off the API address without /rpc. */
export function mcpEndpoint(serviceUrl: string): string {
  let url: URL;
  try {
    url = new URL(serviceUrl);
  } catch {
    throw new AppError('VALIDATION', `not a service address: "${serviceUrl}" (expected e.g. http://localhost:3000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError('VALIDATION', `not an http(s) address: "${serviceUrl}"`);
  return `${restBase(url.toString())}/mcp`;
}

export const mcpCommand: Command = {
  usage: 'mcp [--api-url URL]',
  summary: "MCP over standard input and output for clients such as Claude Desktop, bridged to the service's /mcp",
  options: address,
  async run(values) {
    const endpoint = mcpEndpoint(serviceUrl(values));
    await runBridge({
      endpoint,
      credential: serviceCredential(endpoint),
      input: process.stdin,
      output: process.stdout,
      diagnostic: (text) => process.stderr.write(`statusdesk mcp: ${text}\n`),
    });
  },
};
