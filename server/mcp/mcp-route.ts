import type { createMcpHandler } from '@modelcontextprotocol/server';
import type { Context } from 'hono';
import { type Actor, credentialId, isCredential } from '../domain/actor.ts';
import type { Admit } from '../http/credentials.ts';
import { retryAfter } from '../http/errors.ts';
import type { AppEnv, HonoApp } from '../http/hono-app.ts';
import { sendStreamed } from '../http/send-streamed.ts';
import { AppError } from '../errors.ts';
import { oauthJson } from '../oauth/respond.ts';
import { createEventStreams, type EventStreams } from './event-streams.ts';
import type { McpServerOptions } from './mcp-server.ts';

export const MCP_PATH = '/mcp';

/**
 * The write tool a single `tools/call` body names, if any: a read-only OAuth connection calling it
 * is sent to step up its scope (MCP authorization, scope challenge) instead of into the server.
 */
function writeToolCalled(body: unknown, isWriteTool: (name: string) => boolean): { id: unknown; name: string } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const message = body as { method?: unknown; id?: unknown; params?: { name?: unknown } };
  const name = message.params?.name;
  return message.method === 'tools/call' && typeof name === 'string' && isWriteTool(name) ? { id: message.id, name } : undefined;
}

/** Methods served here whose params are required (MCP schema). */
const PARAMS_REQUIRED = new Set(['initialize', 'tools/call', 'resources/read']);

/**
 * Why a JSON-RPC request's params cannot be what its method takes, if so. The SDK checks this too,
 * but answers -32603 with its validator's dump; the client's mistake is -32602, said plainly.
 */
function paramsProblem(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (typeof method !== 'string' || !('id' in message)) return undefined;
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) return `params of ${method} must be an object`;
  if (params === undefined && PARAMS_REQUIRED.has(method)) return `${method} needs params: an object`;
  return undefined;
}

/**
 * The answer to a body with malformed params: -32602 for each such request; in a batch, the other
 * requests are not run (-32600), so nothing half-happens.
 */
function malformedParamsAnswer(body: unknown): Response | undefined {
  const messages = Array.isArray(body) ? body : [body];
  const problems = messages.map(paramsProblem);
  if (problems.every((p) => p === undefined)) return undefined;
  const requests = messages.filter((m) => typeof m === 'object' && m !== null && 'id' in m && 'method' in m) as { id: unknown }[];
  const answers = requests.map((m) => {
    const problem = problems[messages.indexOf(m)];
    const error = problem
      ? { code: -32602, message: problem, data: { code: 'VALIDATION', violations: [{ field: 'params', rule: 'must be an object' }] } }
      : { code: -32600, message: 'not run: another request of this batch has malformed params' };
    return { jsonrpc: '2.0', id: m.id ?? null, error };
  });
  return new Response(JSON.stringify(Array.isArray(body) ? answers : answers[0]), { status: 200, headers: { 'content-type': 'application/json' } });
}

/** How many calls a JSON-RPC body makes: one per request; notifications and answers cost nothing. */
function callsIn(body: unknown): number {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter((m) => typeof m === 'object' && m !== null && 'method' in m && 'id' in m).length;
}

/** An answer before MCP, in the RFC 6750 shape the OAuth endpoints use too. */
const oauthError = (status: 400 | 401 | 404 | 405 | 406 | 429, error: string, description: string, headers: Record<string, string> = {}) =>
  oauthJson({ error, error_description: description }, status, headers);

/** The methods of the endpoint (SPEC 4.3), as an `Allow` header names them. */
const METHODS = 'GET, POST, DELETE';

/** Whether an Accept header takes an event stream; no header takes anything (RFC 9110, 12.5.1). */
function acceptsEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return true;
  return accept.split(',').some((range) => ['text/event-stream', 'text/*', '*/*'].includes(range.split(';')[0]!.trim().toLowerCase()));
}

/**
 * GET opens the event stream of the 2025 revisions (Streamable HTTP, "Listening for Messages from
 * the Server"). This server sends nothing unasked, so the stream carries keep-alive comments only;
 * 2025 clients open it after `initialize`. Each credential may hold a few at once (a plain 429 past
 * that, as for the rate limit). `Last-Event-ID` is ignored: there are no events to resume.
 */
function openEventStream(c: Context<AppEnv>, actor: Actor, streams: EventStreams, admit: Admit): Response {
  if (!acceptsEventStream(c.req.header('accept'))) {
    return oauthError(406, 'not_acceptable', `GET ${MCP_PATH} opens an event stream: the Accept header must list text/event-stream`);
  }
  if (!isCredential(actor)) throw new AppError('UNAUTHORIZED', 'an event stream is opened with an API key or an OAuth access token');
  const headers = c.req.raw.headers;
  // Looked at with every keep-alive: a stream of a revoked key or an expired token ends.
  const stillLive = () =>
    admit.resolve(headers, 'mcp').then(
      () => true,
      () => false,
    );
  const stream = streams.open(actor, c.req.raw.signal, stillLive);
  if (!(stream instanceof ReadableStream)) {
    const description = `this credential holds ${stream.open} event streams open at ${MCP_PATH}, the most it may; close one, or retry after ${stream.retryAfterSeconds} s`;
    return oauthError(429, 'rate_limited', description, { 'retry-after': String(stream.retryAfterSeconds) });
  }
  return new Response(stream, {
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      // A proxy in front must pass each line on as it comes.
      'x-accel-buffering': 'no',
      // An HTTP/1.1 connection that carried a stream closes with it, so that it does not hold a
      // stopping service until the client's keep-alive runs out. HTTP/2 has no such header.
      ...(c.env.incoming.httpVersionMajor === 1 ? { connection: 'close' } : {}),
    },
  });
}

/**
 * DELETE asks to end the session its `Mcp-Session-Id` names. This server is stateless: it never
 * issues a session id, so no session it is asked to end exists. The 2025 revisions answer a request
 * for a session the server does not know with 404 (Session Management, 3); 405 would say the
 * endpoint takes no DELETE, which SPEC 4.3 says it does. SDK clients send DELETE only with a
 * session id the server gave them, so they never send one here.
 */
function endSession(c: Context<AppEnv>): Response {
  if (c.req.header('mcp-session-id') === undefined) {
    return oauthError(
      400,
      'invalid_request',
      `DELETE ${MCP_PATH} ends the session its Mcp-Session-Id header names, and this request names none; this server is stateless and keeps no sessions`,
    );
  }
  return oauthError(404, 'session_not_found', 'no such session: this server is stateless, never issues an Mcp-Session-Id and keeps no session to end');
}

/**
 * /mcp: Streamable HTTP, stateless, both protocol eras (SPEC 4.3): POST carries JSON-RPC, GET opens
 * an event stream, DELETE asks to end a session. The caller of every method is admitted here,
 * before anything else: a missing or dead credential is a 401 that points at the protected-resource
 * metadata (answered from the headers, before the body is read), a spent rate limit a plain 429
 * with Retry-After, neither of them a JSON-RPC error.
 */
export function registerMcp(app: HonoApp, options: McpServerOptions & { admit: Admit; stopping?: AbortSignal }): void {
  // The MCP SDK and the tools are loaded by the first request that reaches them, not at start:
  // a service no MCP client talks to never pays for them.
  let loading: Promise<{ handler: ReturnType<typeof createMcpHandler>; isWriteTool: (name: string) => boolean }> | undefined;
  const load = () =>
    (loading ??= Promise.all([import('@modelcontextprotocol/server'), import('./mcp-server.ts')])
      .then(([sdk, server]) => ({
        handler: sdk.createMcpHandler(server.createMcpServerFactory(options), { legacy: 'stateless' }),
        isWriteTool: server.isWriteTool,
      }))
      .catch((error: unknown) => {
        loading = undefined;
        throw error;
      }));
  const resourceMetadata = `${options.apiUrl}/.well-known/oauth-protected-resource${MCP_PATH}`;
  const streams = createEventStreams({ stopping: options.stopping });

  app.all(MCP_PATH, async (c) => {
    // Who is calling comes from the headers: a caller without a live credential is refused before
    // its body is read, so an unauthenticated client cannot hold the request open by sending it
    // slowly, and before its method is looked at, so every method is refused alike.
    let actor: Actor;
    try {
      actor = await options.admit.resolve(c.req.raw.headers, 'mcp');
    } catch (error) {
      if (error instanceof AppError && error.code === 'UNAUTHORIZED') {
        // RFC 6750 section 3.1: a request without credentials gets no error code; a refused token gets invalid_token.
        const sent = c.req.header('x-service-key') !== undefined || c.req.header('authorization') !== undefined;
        const challenge = `Bearer resource_metadata="${resourceMetadata}", scope="read write"${sent ? `, error="invalid_token", error_description="${error.message.replace(/["\\]/g, '')}"` : ''}`;
        return oauthError(401, 'invalid_token', error.message, { 'www-authenticate': challenge });
      }
      throw error;
    }
    // GET and DELETE make no calls, so they count nothing against the rate limit. (Hono serves a
    // HEAD through the GET routes; it is not a GET here: a stream without a body would never end.)
    if (c.req.method === 'GET') return openEventStream(c, actor, streams, options.admit);
    if (c.req.method === 'DELETE') return endSession(c);
    if (c.req.method !== 'POST') return oauthError(405, 'method_not_allowed', `${MCP_PATH} accepts GET, POST and DELETE`, { allow: METHODS });

    // How many calls it makes is in the body.
    const text = await c.req.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    try {
      options.admit.count(actor, callsIn(body));
    } catch (error) {
      if (error instanceof AppError && error.retryAfterSeconds !== undefined) return oauthError(429, 'rate_limited', error.message, retryAfter(error));
      throw error;
    }
    const malformed = malformedParamsAnswer(body);
    if (malformed) return malformed;
    const { handler, isWriteTool } = await load();
    const stepUp = actor.type === 'oauth' && !actor.scopes.includes('write') ? writeToolCalled(body, isWriteTool) : undefined;
    if (stepUp) {
      // The domain would refuse it too (FORBIDDEN); answering here lets the client ask the person for write.
      const message = `${stepUp.name} changes things: this connection has read-only access; reconnect and choose Read & write`;
      return new Response(JSON.stringify({ jsonrpc: '2.0', id: stepUp.id ?? null, error: { code: -32003, message, data: { code: 'FORBIDDEN' } } }), {
        status: 403,
        headers: {
          'content-type': 'application/json',
          'www-authenticate': `Bearer error="insufficient_scope", scope="write", resource_metadata="${resourceMetadata}", error_description="${message}"`,
        },
      });
    }
    // The body was read here; the handler gets it parsed, or as text to answer a parse error itself.
    const request = body === undefined ? new Request(c.req.raw.url, { method: 'POST', headers: c.req.raw.headers, body: text }) : c.req.raw;
    const answer = await handler.fetch(request, {
      authInfo: { token: '', clientId: isCredential(actor) ? credentialId(actor) : '', scopes: isCredential(actor) ? actor.scopes : [], extra: { actor } },
      parsedBody: body,
    });
    return answer.headers.get('content-type')?.startsWith('text/event-stream') ? sendStreamed(c.env.outgoing, answer) : answer;
  });
}
