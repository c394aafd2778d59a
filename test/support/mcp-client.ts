/**
 * MCP clients for the integration tests: the official SDK client over Streamable HTTP, speaking
 * one protocol era (the 2025 `initialize` handshake at a given revision, or the stateless
 * 2026-07-28 revision through `server/discover`), with the headers a test chooses; the 1.x SDK
 * client (`@modelcontextprotocol/sdk`, what the MCP Inspector and most editors run), which speaks
 * 2025-11-25 only; plus raw JSON-RPC posts for what a client library hides (statuses, headers, bodies).
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { type CallToolResult, Client, type ClientOptions, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError as ProtocolErrorV1 } from '@modelcontextprotocol/sdk/types.js';

export const LEGACY_ERAS = ['2025-11-25', '2025-06-18'] as const;
export const MODERN_ERA = '2026-07-28';
export const ERAS = [...LEGACY_ERAS, MODERN_ERA] as const;
export type Era = (typeof ERAS)[number];

/** The read tools, audit tools included (SPEC 4.3). */
export const READ_TOOLS = [
  'list_status_pages',
  'list_page_components',
  'list_status_reports',
  'list_maintenances',
  'list_monitors',
  'get_monitor',
  'get_monitor_status',
  'get_monitor_summary',
  'list_response_logs',
  'get_response_log',
  'list_notifications',
  'list_private_locations',
  'list_audit_logs',
  'get_audit_log',
  'search_docs',
  'get_doc_page',
  'search_content',
  'get_content_page',
] as const;
export const MUTATION_TOOLS = [
  'create_status_report',
  'add_status_report_update',
  'update_status_report',
  'resolve_status_report',
  'create_maintenance',
] as const;
export const PUBLISHING_TOOLS = ['create_status_report', 'add_status_report_update', 'resolve_status_report', 'create_maintenance'] as const;
/** Registered only on plans with the audit-log feature. */
export const AUDIT_TOOLS = ['list_audit_logs', 'get_audit_log'] as const;
export const ALL_TOOLS = [...READ_TOOLS, ...MUTATION_TOOLS].sort();

/** JSON-RPC error codes of the contract. */
export const INVALID_PARAMS = -32602;
export const FORBIDDEN = -32003;

/** How long one MCP request may take before the test fails instead of hanging. */
const REQUEST_TIMEOUT_MS = 15_000;

export interface McpConnection {
  client: Client;
  era: Era;
  /** Calls a tool; fails on a JSON-RPC error (use `callError` to expect one). */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** The client options that make the SDK client speak `era`. */
export function eraOptions(era: Era): ClientOptions {
  if (era === MODERN_ERA) return { versionNegotiation: { mode: { pin: MODERN_ERA } } };
  // The 2025 handshake offers the first legacy entry of the list.
  return { supportedProtocolVersions: [era] };
}

/** The value of an `x-service-key` header, or a set of headers, as the headers of every request. */
export function credentialHeaders(credential: string | Record<string, string>): Record<string, string> {
  return typeof credential === 'string' ? { 'x-service-key': credential } : credential;
}

/**
 * A connected SDK client in `era`, sending `headers` on every request. The tool list is fetched
 * once, so every later tool call is checked against the tool's outputSchema by the client.
 */
export async function connectMcp(
  apiUrl: string,
  era: Era,
  credential: string | Record<string, string>,
  options: { listTools?: boolean } = {},
): Promise<McpConnection> {
  const transport = new StreamableHTTPClientTransport(new URL(`${apiUrl}/mcp`), {
    requestInit: { headers: credentialHeaders(credential) },
  });
  const client = new Client({ name: 'statusdesk-tests', version: '1.0.0' }, eraOptions(era));
  await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
  assert.equal(client.getNegotiatedProtocolVersion(), era, `the client did not negotiate ${era}`);
  if (options.listTools ?? true) await client.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS });
  return {
    client,
    era,
    call: (name, args = {}) => client.callTool({ name, arguments: args }, { timeout: REQUEST_TIMEOUT_MS }) as Promise<CallToolResult>,
    close: () => client.close(),
  };
}

/** The one era the 1.x SDK client offers in its `initialize`. */
export const V1_ERA = '2025-11-25';

/** A connection of either SDK major: what the error tests run through both. */
export interface SdkConnection {
  sdk: '1.x' | '2.x';
  era: Era;
  /** Calls a tool; fails on a JSON-RPC error, and on a result the client itself refuses. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/**
 * A connected 1.x SDK client, sending `headers` on every request. The tool list is fetched once,
 * so, as in the Inspector, every later tool call is checked by the client against the tool's
 * outputSchema (1.x checks `structuredContent` whenever it is present, even with `isError`).
 */
export async function connectMcpV1(apiUrl: string, credential: string | Record<string, string>): Promise<SdkConnection & { client: ClientV1 }> {
  const transport = new TransportV1(new URL(`${apiUrl}/mcp`), { requestInit: { headers: credentialHeaders(credential) } });
  const client = new ClientV1({ name: 'statusdesk-tests-1x', version: '1.0.0' });
  await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
  assert.equal(client.getServerVersion()?.name, 'statusdesk');
  await client.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS });
  return {
    sdk: '1.x',
    era: V1_ERA,
    client,
    call: (name, args = {}) => client.callTool({ name, arguments: args }, undefined, { timeout: REQUEST_TIMEOUT_MS }) as Promise<CallToolResult>,
    close: () => client.close(),
  };
}

/** A JSON-RPC error as either SDK major throws it: `code`, `message` and `data`. */
export type AnyProtocolError = ProtocolError | ProtocolErrorV1;

/** The JSON-RPC error a call was answered with (by a client of either major); fails when it succeeded. */
export async function rpcError(call: Promise<unknown>): Promise<AnyProtocolError> {
  let result: unknown;
  try {
    result = await call;
  } catch (error) {
    assert.ok(error instanceof ProtocolError || error instanceof ProtocolErrorV1, `expected a JSON-RPC error, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected a JSON-RPC error, got the result ${JSON.stringify(result).slice(0, 500)}`);
}

/** Asserts a JSON-RPC error of `code` whose data names `appCode` (when given). */
export async function assertRpcError(call: Promise<unknown>, code: number, appCode?: string, message?: RegExp): Promise<AnyProtocolError> {
  const error = await rpcError(call);
  assert.equal(error.code, code, `expected JSON-RPC ${code}, got ${error.code}: ${error.message}`);
  if (appCode !== undefined) assert.deepEqual((error.data as { code?: unknown } | undefined)?.code, appCode, `error.data: ${JSON.stringify(error.data)}`);
  if (message) assert.match(error.message, message);
  return error;
}

/** The structured content of a successful tool result, after checking it repeats its text content. */
export function ok<T = any>(result: CallToolResult): T {
  assert.notEqual(result.isError, true, `the tool failed: ${textOf(result)}`);
  assert.ok(result.structuredContent !== undefined && result.structuredContent !== null, 'no structuredContent');
  assert.deepEqual(JSON.parse(textOf(result)), result.structuredContent, 'the text content is not the same JSON as structuredContent');
  return result.structuredContent as T;
}

/** The text of a tool result's (single) text content. */
export function textOf(result: CallToolResult): string {
  const texts = result.content.filter((c) => c.type === 'text');
  assert.equal(texts.length, 1, `expected one text content, got ${JSON.stringify(result.content)}`);
  return (texts[0] as { text: string }).text;
}

/**
 * Asserts an isError tool result of `code`; returns the code and message its text carries. An
 * error result has no `structuredContent` (it could not match the tool's outputSchema, which 1.x
 * clients check even on errors): its one text content is `CODE: message`.
 */
export function toolError(result: CallToolResult, code: string, message?: RegExp): { code: string; message: string } {
  assert.equal(result.isError, true, `expected isError with ${code}, got ${JSON.stringify(result.structuredContent ?? result.content).slice(0, 500)}`);
  assert.equal(result.structuredContent, undefined, `an error result carries structuredContent: ${JSON.stringify(result).slice(0, 500)}`);
  const text = textOf(result);
  const match = /^([A-Z_]+): (\S[\s\S]*)$/.exec(text);
  assert.ok(match, `the text content is not "CODE: message": ${text}`);
  const error = { code: match[1]!, message: match[2]! };
  assert.equal(error.code, code, `expected ${code}, got ${text}`);
  if (message) assert.match(error.message, message);
  return error;
}

// ---- raw HTTP -------------------------------------------------------------------------------------

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The JSON-RPC messages of the answer (a JSON body or the data events of an SSE body). */
  messages: any[];
}

/** The body of an MCP answer as JSON-RPC messages, whether JSON or an SSE stream. */
function messagesOf(contentType: string, text: string): any[] {
  if (text.trim() === '') return [];
  if (contentType.startsWith('text/event-stream')) {
    return text
      .split(/\r?\n\r?\n/)
      .map((event) =>
        event
          .split(/\r?\n/)
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart())
          .join('\n'),
      )
      .filter((data) => data !== '')
      .map((data) => JSON.parse(data));
  }
  if (contentType.startsWith('application/json')) {
    const body = JSON.parse(text);
    return Array.isArray(body) ? body : [body];
  }
  return [];
}

let rawId = 1;

/** A JSON-RPC request of the 2025 era (no envelope), as a client sends it. */
export function legacyRequest(method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0', id: rawId++, method, params };
}

/** POSTs `body` (a JSON-RPC message or batch) to /mcp in the 2025-11-25 era, with `headers`. */
export async function postMcp(apiUrl: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  const response = await fetch(`${apiUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  const messages = response.ok ? messagesOf(response.headers.get('content-type') ?? '', text) : [];
  return { status: response.status, headers: response.headers, text, messages };
}

/**
 * One request through node:http, so the Host header can be anything: the connection goes to
 * 127.0.0.1 at `port` whatever the header names, and no name is resolved.
 */
export function rawHttp(
  port: number,
  options: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: options.method, path: options.path, headers: options.headers, timeout: REQUEST_TIMEOUT_MS },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(options.body);
  });
}
