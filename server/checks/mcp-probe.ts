import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { Agent, type ClientRequestArgs, type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type Duplex, Readable } from 'node:stream';
import type { SecureContext } from 'node:tls';
import {
  Client,
  type JSONRPCMessage,
  deserializeMessage,
  type PriorDiscovery,
  ProtocolError,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  SdkError,
  SdkErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  StreamableHTTPClientTransport,
  serializeMessage,
  type Transport,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/client';
import type { DestinationPolicy } from '../domain/destinations.ts';
import { DEFAULT_COMMAND_PATH } from '../domain/monitors/types/mcp.ts';
import type { McpCheck, McpStatus, McpTool, ProbeResult, Timing } from '../domain/monitors/check-results.ts';
import { ConnectionFailure, Deadline, emptyTiming, openConnection, since, type Target, until, withRetries } from './connection.ts';
import { degradedMessage, probeResult } from './outcome.ts';

/**
 * The MCP check: reach the server (connect over Streamable HTTP, or spawn a stdio server in a
 * process group of its own), shake hands with the official 2.x client (`server/discover` for a
 * server that speaks the 2026-07-28 revision, `initialize` for a 2025-era one), then list every
 * page of `tools/list`, and count prompts and resources where the server declares them. Each
 * tool is fingerprinted (SHA-256 of a canonical JSON of what an editor shows the model), which
 * is what drift is decided on. Only a failed connection is retried; a stdio server that cannot be
 * started is not, nor is any answer. Whatever happens, the session is closed, every socket
 * destroyed and the stdio server's whole process group killed before the result is returned.
 */

export interface McpProbeTarget {
  transport: 'http' | 'stdio';
  /** The URL (http) or the command (stdio). */
  server: string;
  /** http: request headers (an authorization value among them). */
  headers: Record<string, string>;
  /** stdio: the command's arguments. */
  args: string[];
  /** stdio: the whole environment of the command (see serverEnvironment). */
  env: Record<string, string>;
  /** stdio: the working folder; '' runs it in a fresh empty temporary folder, removed after. */
  cwd: string;
  /** stdio: whether this monitor may run a command at all. */
  allowCommand: boolean;
  /** The whole check in milliseconds, retries included. */
  timeout: number;
  degradedAfter: number | null;
  retry: number;
}

export interface McpProbeContext {
  stop: AbortSignal;
  destinations: DestinationPolicy;
  /** Trust store for https servers (connection.ts trustStore); absent: only plain http can be checked. */
  trust?: SecureContext;
  userAgent?: string;
}

/** The most pages of one listing read; a server whose cursors go on longer fails the check. */
export const MAX_LIST_PAGES = 100;
/** How much of a stdio server's stderr is kept: its last lines, at most this many bytes. */
export const STDERR_TAIL_BYTES = 4096;
export const STDERR_TAIL_LINES = 20;
/** How long a stdio server has to exit after SIGTERM before its group is killed. */
const GRACE_MS = 500;

const CLIENT_NAME = 'statusdesk';

// ---- fingerprints ------------------------------------------------------------------------------

/** What of a tool is fingerprinted: all an editor puts before the model or acts on. */
const FINGERPRINTED = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

/** JSON with every object's keys sorted (recursively), so the same tool always reads the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.keys(inner)
            .sort()
            .map((key) => [key, (inner as Record<string, unknown>)[key]]),
        )
      : inner,
  );
}

/** A tool as the check records it: its canonical text and that text's SHA-256. */
export function fingerprintTool(tool: Record<string, unknown>): McpTool {
  const picked: Record<string, unknown> = {};
  for (const field of FINGERPRINTED) if (tool[field] !== undefined) picked[field] = tool[field];
  const text = canonicalJson(picked);
  return { name: String(tool.name), fingerprint: createHash('sha256').update(text).digest('hex'), text };
}

/**
 * Characters that a person reading a tool's text does not see but a model does, or that reorder
 * what is shown: zero-width and directional marks, bidirectional embeddings, overrides and
 * isolates, invisible operators, the byte order mark, and the tag characters (which can spell
 * out a whole hidden instruction).
 */
const HIDDEN = /[\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/gu;

const codePoint = (character: string) => `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** One warning line per tool whose texts carry hidden characters, naming their code points. */
export function hiddenCharacterWarnings(tools: McpTool[]): string[] {
  const warnings: string[] = [];
  for (const tool of tools) {
    const found = new Set(tool.text.match(HIDDEN) ?? []);
    if (found.size === 0) continue;
    const points = [...found].map(codePoint).sort();
    warnings.push(`tool ${JSON.stringify(tool.name)} carries invisible or bidirectional control characters: ${points.join(', ')}`);
  }
  return warnings;
}

// ---- the check ---------------------------------------------------------------------------------

/** A check's failure with its status; every other error is a fault of this code. */
class McpFailure extends Error {
  readonly status: McpStatus;
  constructor(status: McpStatus, message: string) {
    super(message);
    this.status = status;
  }
}

/** What the check learnt along the way, shown with its outcome whatever it is. */
interface Findings {
  attempts: number;
  /** Which step was under way: named in timeout messages. */
  step: string;
  protocolVersion: string | null;
  serverName: string | null;
  serverVersion: string | null;
  signIn: string | null;
  exitCode: number | null;
  stderrTail: string;
}

export async function probeMcp(target: McpProbeTarget, context: McpProbeContext): Promise<ProbeResult> {
  const deadline = new Deadline(target.timeout, context.stop);
  const timing = emptyTiming();
  const findings: Findings = {
    attempts: 0,
    step: target.transport === 'http' ? 'connecting' : 'starting the server',
    protocolVersion: null,
    serverName: null,
    serverVersion: null,
    signIn: null,
    exitCode: null,
    stderrTail: '',
  };
  try {
    const listing =
      target.transport === 'http'
        ? await checkHttp(target, context, deadline, timing, findings)
        : await checkStdio(target, context.stop, deadline, timing, findings);
    return succeeded(target, listing, deadline, timing, findings);
  } catch (error) {
    if (!(error instanceof McpFailure)) throw error;
    return failed(error, deadline, timing, findings);
  } finally {
    deadline.clear();
  }
}

interface Listing {
  tools: McpTool[];
  prompts: number | null;
  resources: number | null;
}

function mcpCheck(status: McpStatus, findings: Findings, listing?: Listing): McpCheck {
  const tools = listing?.tools ?? [];
  return {
    status,
    protocolVersion: findings.protocolVersion,
    serverName: findings.serverName,
    serverVersion: findings.serverVersion,
    tools,
    prompts: listing?.prompts ?? null,
    resources: listing?.resources ?? null,
    warnings: hiddenCharacterWarnings(tools),
    exitCode: findings.exitCode,
    // Kept with a failed check only: a healthy server's chatter is not worth storing.
    stderrTail: status === 'OK' ? '' : findings.stderrTail,
    signIn: findings.signIn,
  };
}

function succeeded(target: McpProbeTarget, listing: Listing, deadline: Deadline, timing: Timing, findings: Findings): ProbeResult {
  const latency = deadline.elapsed();
  timing.total = latency;
  const mcp = mcpCheck('OK', findings, listing);
  const count = listing.tools.length;
  const what = `${count} ${count === 1 ? 'tool' : 'tools'} listed (MCP ${findings.protocolVersion})`;
  const warned = mcp.warnings.length === 0 ? '' : `; ${mcp.warnings.length === 1 ? mcp.warnings[0] : `${mcp.warnings.length} tools carry hidden characters`}`;
  const result =
    target.degradedAfter !== null && latency > target.degradedAfter
      ? probeResult('degraded', latency, timing, findings.attempts, degradedMessage(what, latency, target.degradedAfter) + warned)
      : probeResult('up', latency, timing, findings.attempts, `${what} in ${latency} ms${warned}`);
  return { ...result, mcp };
}

function failed(failure: McpFailure, deadline: Deadline, timing: Timing, findings: Findings): ProbeResult {
  const latency = deadline.elapsed();
  timing.total = latency;
  // A server asking for a sign-in is up and reachable: it needs a person, not a fix.
  const result = failure.status === 'SIGN_IN_NEEDED' ? 'degraded' : 'down';
  return { ...probeResult(result, latency, timing, findings.attempts, failure.message), mcp: mcpCheck(failure.status, findings) };
}

/**
 * The handshake and the listing over a started transport, each step bounded by the deadline:
 * when it ends, the caller tears the transport down (the sockets destroyed, the process group
 * killed), which fails whatever is waiting. On stdio the handshake's time includes the server's
 * own start-up: the spawn phase ends as soon as the program runs.
 */
async function session(client: Client, transport: Transport, deadline: Deadline, timing: Timing, findings: Findings, prior?: PriorDiscovery): Promise<Listing> {
  const handshake = performance.now();
  findings.step = 'the handshake';
  await client.connect(transport, { ...requestOptions(deadline), ...(prior && { prior }) });
  timing.ttfb = since(handshake);
  findings.protocolVersion = client.getNegotiatedProtocolVersion() ?? null;
  const server = client.getServerVersion();
  findings.serverName = server?.name ?? null;
  findings.serverVersion = server?.version ?? null;

  const listing = performance.now();
  const capabilities = client.getServerCapabilities() ?? {};
  findings.step = 'tools/list';
  const tools = capabilities.tools ? await listAll(client, 'tools/list', 'tools', deadline) : [];
  findings.step = 'prompts/list';
  const prompts = capabilities.prompts ? (await listAll(client, 'prompts/list', 'prompts', deadline)).length : null;
  findings.step = 'resources/list';
  const resources = capabilities.resources ? (await listAll(client, 'resources/list', 'resources', deadline)).length : null;
  timing.transfer = since(listing);
  const fingerprinted = tools.map((tool) => fingerprintTool(tool));
  fingerprinted.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { tools: fingerprinted, prompts, resources };
}

/** The SDK's own timeout stands behind the deadline, which ends the check first. */
const requestOptions = (deadline: Deadline) => ({ timeout: Math.ceil(deadline.remaining()) + 1000 });

/**
 * Every page of a listing, following nextCursor. Pages are read one by one (not through the
 * client's aggregating list calls), so what is fingerprinted is what the server sent, without
 * the client's cache or its filtering.
 */
async function listAll(
  client: Client,
  method: 'tools/list' | 'prompts/list' | 'resources/list',
  field: 'tools' | 'prompts' | 'resources',
  deadline: Deadline,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const answer = (await client.request({ method, params: cursor === undefined ? {} : { cursor } }, requestOptions(deadline))) as Record<string, unknown>;
    const list = answer[field];
    if (!Array.isArray(list)) throw new McpFailure('PROTOCOL_ERROR', `the answer to ${method} has no ${field} list`);
    items.push(...(list as Record<string, unknown>[]));
    const next = answer.nextCursor;
    if (next === undefined || next === null || next === '') return items;
    if (page >= MAX_LIST_PAGES) throw new McpFailure('PROTOCOL_ERROR', `${method} went on past ${MAX_LIST_PAGES} pages: its cursors never end`);
    cursor = String(next);
  }
}

function newClient(userAgent: string | undefined, probeTimeout: number): Client {
  const version = userAgent?.split('/')[1] ?? '0.0.0';
  return new Client(
    { name: CLIENT_NAME, version },
    {
      capabilities: {},
      // server/discover first, for servers of the 2026-07-28 revision; `initialize` for the others.
      versionNegotiation: { mode: 'auto', probe: { timeoutMs: Math.max(1, Math.ceil(probeTimeout)) } },
      // What the check reads is never answered from a cache.
      defaultCacheTtlMs: 0,
    },
  );
}

// ---- reading failures --------------------------------------------------------------------------

/** Facts a transport gathered that say why a check failed better than the client's error can. */
interface TransportFacts {
  /** http: the last refusal of a POST (a later answered POST clears it). */
  refusal?: { status: number; statusText: string; challenge: string | null } | undefined;
  /** http: a POST answered 2xx with a body that is neither JSON nor an event stream. */
  unexpectedContent?: string | undefined;
  /** A connection (http) that could not be made after the first. */
  connectionFailure?: ConnectionFailure | undefined;
  /** stdio: the server exited; its code (or signal). */
  exit?: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** stdio: the first line on stdout that was not JSON-RPC. */
  notJsonRpc?: string | undefined;
}

const clip = (text: string, limit = 200) => (text.length > limit ? `${text.slice(0, limit)}…` : text);

/** What to call a failure of the client, in the order the facts explain it best. */
function explain(error: unknown, facts: TransportFacts, deadline: Deadline, findings: Findings, stopped: AbortSignal): McpFailure {
  if (error instanceof McpFailure) return error;
  if (facts.exit) {
    const how = facts.exit.code !== null ? `with code ${facts.exit.code}` : `on ${facts.exit.signal}`;
    const said = lastLine(findings.stderrTail);
    findings.exitCode = facts.exit.code;
    return new McpFailure('PROCESS_EXITED', `the server exited ${how} during ${findings.step}${said ? `: ${clip(said)}` : ' (it wrote nothing on stderr)'}`);
  }
  if (stopped.aborted) return new McpFailure('TIMEOUT', `the check was stopped during ${findings.step}`);
  if (deadline.expired || (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)) {
    const garbled = facts.notJsonRpc ? `; it wrote what is not JSON-RPC on stdout: ${clip(facts.notJsonRpc, 80)}` : '';
    return new McpFailure(garbled ? 'PROTOCOL_ERROR' : 'TIMEOUT', `timed out after ${deadline.ms} ms during ${findings.step}${garbled}`);
  }
  if (facts.refusal) {
    const { status, statusText, challenge } = facts.refusal;
    if (status === 401 && challenge !== null) {
      findings.signIn = challenge;
      return new McpFailure(
        'SIGN_IN_NEEDED',
        'the server needs a sign-in (HTTP 401 with WWW-Authenticate): connect to it once from an editor, then give this monitor its authorization header',
      );
    }
    return new McpFailure('HANDSHAKE_REFUSED', `the server refused ${findings.step} with HTTP ${status}${statusText ? ` ${statusText}` : ''}`);
  }
  if (facts.connectionFailure) return new McpFailure('UNREACHABLE', facts.connectionFailure.message);
  if (facts.unexpectedContent !== undefined)
    return new McpFailure('PROTOCOL_ERROR', `the server answered with ${facts.unexpectedContent || 'no content type'}, not JSON-RPC`);
  if (
    error instanceof UnsupportedProtocolVersionError ||
    (error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed && /protocol version/i.test(error.message))
  ) {
    return new McpFailure(
      'PROTOCOL_ERROR',
      `the server offers no protocol version this client speaks (${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}): ${error.message}`,
    );
  }
  const unsupported = error instanceof Error ? /protocol version is not supported: (.*)$/.exec(error.message) : null;
  if (unsupported) {
    findings.protocolVersion = unsupported[1]!;
    return new McpFailure(
      'PROTOCOL_ERROR',
      `the server speaks MCP protocol version ${unsupported[1]}, which this client does not support (it speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );
  }
  if (error instanceof ProtocolError) {
    const detail = `${clip(error.message)} (JSON-RPC error ${error.code})`;
    return findings.step === 'the handshake'
      ? new McpFailure('HANDSHAKE_REFUSED', `the server refused the handshake: ${detail}`)
      : new McpFailure('PROTOCOL_ERROR', `the server failed ${findings.step}: ${detail}`);
  }
  if (facts.notJsonRpc) return new McpFailure('PROTOCOL_ERROR', `the server wrote what is not JSON-RPC on stdout: ${clip(facts.notJsonRpc, 80)}`);
  const message = error instanceof Error ? error.message : String(error);
  return new McpFailure('PROTOCOL_ERROR', `${findings.step} failed: ${clip(message)}`);
}

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1)?.trim() ?? '';

// ---- Streamable HTTP ---------------------------------------------------------------------------

async function checkHttp(target: McpProbeTarget, context: McpProbeContext, deadline: Deadline, timing: Timing, findings: Findings): Promise<Listing> {
  let url: URL;
  try {
    url = new URL(target.server);
  } catch {
    throw new McpFailure('UNREACHABLE', `not a URL: ${clip(target.server)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new McpFailure('UNREACHABLE', `not an http(s) URL: ${clip(target.server)}`);
  const https = url.protocol === 'https:';
  if (https && !context.trust) throw new McpFailure('UNREACHABLE', 'no trust store was given for https');
  const tls = https ? { verify: true, alpn: ['http/1.1'], trust: context.trust! } : undefined;
  const host: Target = { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) || (https ? 443 : 80), authority: url.host };

  let first: Socket;
  try {
    first = await withRetries(target.retry, deadline, () => {
      findings.attempts++;
      return openConnection(host, deadline, timing, tls, context.destinations);
    });
  } catch (error) {
    if (!(error instanceof ConnectionFailure)) throw error;
    throw new McpFailure(error.kind === 'timeout' ? 'TIMEOUT' : 'UNREACHABLE', error.message);
  }

  const facts: TransportFacts = {};
  // Later connections (the SDK opens one per concurrent request) are judged and opened the same
  // way, within what is left of the budget, but not retried and not timed: the phase is the first's.
  const agent = new CheckAgent(first, async () => {
    const budget = new Deadline(Math.max(1, deadline.remaining()));
    try {
      return await openConnection(host, budget, emptyTiming(), tls, context.destinations);
    } catch (error) {
      if (error instanceof ConnectionFailure && error.kind !== 'timeout') facts.connectionFailure ??= error;
      throw error;
    } finally {
      budget.clear();
    }
  });
  const fetch = agentFetch(agent, facts, context.userAgent ?? CLIENT_NAME);
  const transport = new StreamableHTTPClientTransport(url, { fetch, requestInit: { headers: target.headers } });
  const client = newClient(context.userAgent, deadline.remaining() + 1000);
  const ended = () => {
    agent.destroy();
    void transport.close().catch(() => {});
  };
  try {
    deadline.onEnd(ended);
    if (deadline.expired) throw deadline.timedOut();
    return await session(client, transport, deadline, timing, findings);
  } catch (error) {
    throw explain(error, facts, deadline, findings, context.stop);
  } finally {
    deadline.onEnd(undefined);
    await closeHttp(client, transport, fetch, target.headers, url, deadline);
    agent.destroy();
  }
}

/**
 * Ends the session: a DELETE for a stateful server, so that it does not keep one per check. Sent
 * by the check itself, bounded, as the client may have closed its transport already (it does on
 * a failed handshake, after the server made the session).
 */
async function closeHttp(
  client: Client,
  transport: StreamableHTTPClientTransport,
  fetch: ReturnType<typeof agentFetch>,
  headers: Record<string, string>,
  url: URL,
  deadline: Deadline,
): Promise<void> {
  const session = transport.sessionId;
  await client.close().catch(() => {});
  if (session === undefined || deadline.expired) return;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), Math.min(1000, Math.max(1, deadline.remaining())));
  const version = transport.protocolVersion;
  try {
    const answer = await fetch(url, {
      method: 'DELETE',
      headers: { ...headers, 'mcp-session-id': session, ...(version && { 'mcp-protocol-version': version }) },
      signal: abort.signal,
    });
    await answer.body?.cancel();
  } catch {
    // the server keeps the session until it drops it itself
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The agent of one check: it hands out the connection the check opened and timed first, then
 * opens any other one through `open` (the destination policy's judgement included). Kept-alive
 * connections are reused; `destroy` ends them all.
 */
class CheckAgent extends Agent {
  #first: Socket | undefined;
  readonly #open: () => Promise<Socket>;

  constructor(first: Socket, open: () => Promise<Socket>) {
    super({ keepAlive: true });
    this.#first = first;
    this.#open = open;
  }

  override createConnection(_options: ClientRequestArgs, callback?: (error: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    const first = this.#first;
    if (first) {
      this.#first = undefined;
      return first;
    }
    this.#open().then(
      (socket) => callback?.(null, socket),
      (error: Error) => callback?.(error, undefined as unknown as Duplex),
    );
    return undefined;
  }

  override destroy(): void {
    this.#first?.destroy();
    this.#first = undefined;
    super.destroy();
  }
}

const NO_BODY = new Set([101, 204, 205, 304]);
const isEventStreamOrJson = (type: string) => /^(application\/([\w.+-]*\+)?json|text\/event-stream)\b/i.test(type);

function answerHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/**
 * The fetch the SDK's transport calls: node:http over the check's own connections, so every
 * connection is opened, judged and timed here. It notes refusals and odd content for `explain`.
 */
function agentFetch(agent: CheckAgent, facts: TransportFacts, userAgent: string) {
  return (input: string | URL, init?: RequestInit): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(String(input));
      const method = init?.method ?? 'GET';
      const headers: Record<string, string> = { 'user-agent': userAgent };
      new Headers(init?.headers).forEach((value, name) => {
        headers[name] = value;
      });
      headers.host = url.host;
      const request = httpRequest({ agent, method, host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: `${url.pathname}${url.search}`, headers });
      const signal = init?.signal;
      const abort = () => request.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      // Errors after the answer arrived (an abort while its body streams) reach the body's reader.
      request.on('error', reject);
      if (signal?.aborted) return abort();
      signal?.addEventListener('abort', abort, { once: true });
      request.once('close', () => signal?.removeEventListener('abort', abort));
      request.once('response', (answer) => {
        answer.on('error', () => {});
        const status = answer.statusCode ?? 0;
        if (method === 'POST') {
          if (status >= 400) {
            const challenge = answer.headers['www-authenticate'];
            facts.refusal = { status, statusText: answer.statusMessage ?? '', challenge: challenge === undefined ? null : String(challenge) };
          } else {
            facts.refusal = undefined;
            const type = String(answer.headers['content-type'] ?? '');
            if (status !== 202 && !NO_BODY.has(status) && !isEventStreamOrJson(type)) facts.unexpectedContent = type;
          }
        }
        const body = NO_BODY.has(status) ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, statusText: answer.statusMessage ?? '', headers: answerHeaders(answer.headers) }));
      });
      request.end(typeof init?.body === 'string' ? init.body : undefined);
    });
}

// ---- stdio -------------------------------------------------------------------------------------

/**
 * The environment a stdio server runs with: the monitor's own, and nothing of the service's. Only
 * where it names no PATH is one added (DEFAULT_COMMAND_PATH), so that a command named without its folder
 * can be found; on Windows SYSTEMROOT too, without which most programs cannot start.
 */
export function serverEnvironment(env: Record<string, string>): Record<string, string> {
  const result: Record<string, string> = { ...env };
  const names = new Set(Object.keys(env).map((name) => name.toUpperCase()));
  if (!names.has('PATH')) result.PATH = DEFAULT_COMMAND_PATH;
  if (process.platform === 'win32' && !names.has('SYSTEMROOT') && process.env.SYSTEMROOT) result.SYSTEMROOT = process.env.SYSTEMROOT;
  return result;
}

async function checkStdio(target: McpProbeTarget, stop: AbortSignal, deadline: Deadline, timing: Timing, findings: Findings): Promise<Listing> {
  if (!target.allowCommand) {
    throw new McpFailure('UNREACHABLE', 'this monitor may not run a command: a stdio server runs only on a monitor that allows it');
  }
  let folder = target.cwd;
  let temporary: string | undefined;
  if (folder === '') {
    try {
      folder = temporary = await mkdtemp(join(tmpdir(), 'statusdesk-mcp-'));
    } catch (error) {
      throw new McpFailure('UNREACHABLE', `could not make a temporary working folder: ${(error as Error).message}`);
    }
  } else {
    const found = await stat(folder).catch(() => undefined);
    if (!found?.isDirectory()) throw new McpFailure('UNREACHABLE', `the working folder ${folder} does not exist or is not a folder`);
  }
  try {
    try {
      return await stdioAttempt(target, folder, stop, deadline, timing, findings, false);
    } catch (error) {
      // A server that exits on a request before `initialize` (some SDKs do) exits on the
      // server/discover probe: it is started once more and spoken to the 2025 way only.
      if (!(error instanceof ProbeCutShort) || deadline.expired) throw error instanceof ProbeCutShort ? error.failure : error;
      return await stdioAttempt(target, folder, stop, deadline, timing, findings, true);
    }
  } finally {
    if (temporary) await rm(temporary, { recursive: true, force: true }).catch(() => {});
  }
}

/** The server exited before answering anything but the probe: worth one start without it. */
class ProbeCutShort extends Error {
  readonly failure: McpFailure;
  constructor(failure: McpFailure) {
    super(failure.message);
    this.failure = failure;
  }
}

async function stdioAttempt(
  target: McpProbeTarget,
  folder: string,
  stop: AbortSignal,
  deadline: Deadline,
  timing: Timing,
  findings: Findings,
  legacyOnly: boolean,
): Promise<Listing> {
  findings.attempts++;
  findings.step = 'starting the server';
  const facts: TransportFacts = {};
  const started = performance.now();
  let server: ServerProcess;
  try {
    server = new ServerProcess(target, folder, facts, findings);
  } catch (error) {
    // Refused before anything ran (an argument or a variable Node cannot pass on).
    throw new McpFailure('UNREACHABLE', `could not start ${JSON.stringify(target.server)}: ${(error as Error).message}`);
  }
  try {
    await server.started(deadline);
  } catch (error) {
    await server.kill();
    throw error;
  }
  timing.connect = since(started);
  const transport = new ProcessTransport(server, facts);
  // On stdio a silent probe means a 2025-era server: half the budget is left for `initialize`.
  const client = newClient(undefined, deadline.remaining() / 2);
  deadline.onEnd(() => void server.kill());
  try {
    if (deadline.expired) throw deadline.timedOut();
    return await session(client, transport, deadline, timing, findings, legacyOnly ? { kind: 'legacy' } : undefined);
  } catch (error) {
    await server.settled();
    const failure = explain(error, facts, deadline, findings, stop);
    if (!legacyOnly && failure.status === 'PROCESS_EXITED' && !transport.answered && transport.sentOnly('server/discover')) throw new ProbeCutShort(failure);
    throw failure;
  } finally {
    deadline.onEnd(undefined);
    await client.close().catch(() => {});
    await server.end();
  }
}

/**
 * A stdio server: spawned detached, so it leads a process group of its own that is killed whole
 * (whatever it started too), with stdin and stdout for JSON-RPC and the tail of stderr kept.
 */
class ServerProcess {
  readonly child: ChildProcess;
  readonly #findings: Findings;
  readonly #exited: Promise<void>;
  #tail = '';
  /** Set once the check ends the server: its exit after that is not the server's doing. */
  #ending = false;

  constructor(target: McpProbeTarget, folder: string, facts: TransportFacts, findings: Findings) {
    this.#findings = findings;
    this.child = spawn(target.server, target.args, {
      env: serverEnvironment(target.env),
      cwd: folder,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      windowsHide: true,
    });
    this.child.stdin!.on('error', () => {}); // a write to a server that exited: seen through its exit
    this.child.stderr!.on('data', (chunk: Buffer) => this.#keep(chunk));
    this.#exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        if (!this.#ending) facts.exit ??= { code, signal };
        resolve();
      });
      this.child.once('error', () => resolve());
    });
  }

  #keep(chunk: Buffer): void {
    let tail = this.#tail + chunk.toString('utf8');
    if (tail.length > STDERR_TAIL_BYTES) tail = tail.slice(-STDERR_TAIL_BYTES);
    const lines = tail.split('\n');
    if (lines.length > STDERR_TAIL_LINES + 1) tail = lines.slice(-(STDERR_TAIL_LINES + 1)).join('\n');
    this.#tail = tail;
    this.#findings.stderrTail = tail.trimEnd();
  }

  /** Resolves once the program runs; a command that cannot be started fails, naming it. */
  async started(deadline: Deadline): Promise<void> {
    try {
      await until(this.child, 'spawn', deadline);
    } catch (error) {
      if (error instanceof ConnectionFailure) throw new McpFailure('TIMEOUT', `timed out after ${deadline.ms} ms starting ${this.#command()}`);
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such command' : code === 'EACCES' ? 'it may not be run (EACCES)' : ((error as Error).message ?? code);
      throw new McpFailure('UNREACHABLE', `could not start ${this.#command()}: ${why}`);
    }
  }

  #command(): string {
    return JSON.stringify(this.child.spawnfile);
  }

  get exited(): Promise<void> {
    return this.#exited;
  }

  #running(): boolean {
    return this.child.pid !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async #waitExit(ms: number): Promise<void> {
    if (!this.#running()) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#exited, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  /** After a failure: a moment for the exit to be known, as stdout may close just before it. */
  async settled(): Promise<void> {
    if (!this.#ending) await this.#waitExit(200);
  }

  /** Signals the whole group (on Windows, which has none, the process tree). */
  #signal(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      if (process.platform === 'win32') {
        spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => {});
      } else {
        process.kill(-pid, signal);
      }
    } catch {
      // ESRCH: nothing of the group is left
    }
  }

  /** The deadline or a stop: the whole group is killed at once. */
  async kill(): Promise<void> {
    this.#ending = true;
    this.#signal('SIGKILL');
    await this.#waitExit(1000);
  }

  /**
   * The end of every check: stdin closed and SIGTERM to the group, a short grace, then SIGKILL to
   * whatever of the group is left (what the server started included, even once it has exited).
   */
  async end(): Promise<void> {
    this.#ending = true;
    if (this.child.pid !== undefined) {
      this.child.stdin!.end();
      if (this.#running()) {
        this.#signal('SIGTERM');
        await this.#waitExit(GRACE_MS);
      }
      this.#signal('SIGKILL');
      await this.#waitExit(1000);
    }
    this.child.stdin!.destroy();
    this.child.stdout!.destroy();
    this.child.stderr!.destroy();
  }
}

/**
 * The SDK's Transport over a ServerProcess: newline-delimited JSON-RPC on stdin and stdout. It
 * offers `pid` and `stderr`, by which the SDK knows a stdio transport: a probe that goes
 * unanswered there means a 2025-era server, not an outage.
 */
class ProcessTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  readonly #server: ServerProcess;
  readonly #facts: TransportFacts;
  readonly #sent: string[] = [];
  #pending = '';
  #closed = false;
  /** Whether the server answered anything. */
  answered = false;

  constructor(server: ServerProcess, facts: TransportFacts) {
    this.#server = server;
    this.#facts = facts;
  }

  get pid(): number | null {
    return this.#server.child.pid ?? null;
  }

  get stderr(): Readable | null {
    return this.#server.child.stderr;
  }

  /** Whether every request sent so far was `method`. */
  sentOnly(method: string): boolean {
    return this.#sent.every((sent) => sent === method);
  }

  async start(): Promise<void> {
    const stdout = this.#server.child.stdout!;
    stdout.setEncoding('utf8');
    stdout.on('data', (text: string) => this.#read(text));
    stdout.on('error', () => {});
    stdout.once('end', () => this.#close());
    // The leader's exit ends the session even while something it started keeps stdout open;
    // what it wrote before exiting is read first.
    void this.#server.exited.then(() => setTimeout(() => this.#close(), 20));
  }

  #read(text: string): void {
    this.#pending += text;
    if (this.#pending.length > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
      this.#facts.notJsonRpc ??= `a line longer than ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes`;
      this.#pending = '';
      return;
    }
    let newline: number;
    while ((newline = this.#pending.indexOf('\n')) !== -1) {
      const line = this.#pending.slice(0, newline).replace(/\r$/, '');
      this.#pending = this.#pending.slice(newline + 1);
      if (line.trim() === '') continue;
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line);
      } catch {
        // A line that is not JSON-RPC (a banner, a log line): noted and skipped, as the SDK's
        // own stdio transport skips it.
        this.#facts.notJsonRpc ??= line;
        continue;
      }
      this.answered = true;
      this.onmessage?.(message);
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ('method' in message && 'id' in message) this.#sent.push(message.method);
    const stdin = this.#server.child.stdin!;
    if (this.#closed || !stdin.writable) throw new SdkError(SdkErrorCode.ConnectionClosed, 'the server closed its input');
    stdin.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.#close();
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
