/**
 * The methods of /mcp (SPEC 4.3: it accepts GET, POST and DELETE), on the real service: every
 * method is admitted the same way first; GET opens the event stream of the 2025 revisions, kept
 * alive, counted against its credential and ended when the service stops; DELETE is told that the
 * session it names does not exist; other methods are 405. The SDK clients of both majors open the
 * stream and never see an error. The streams' own timing (keep-alives, a credential gone, the stop
 * signal) is tried on createEventStreams with short intervals.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Credential } from '../server/domain/actor.ts';
import { createEventStreams, KEEP_ALIVE_MS, MAX_STREAMS_PER_CREDENTIAL } from '../server/mcp/event-streams.ts';
import { startTestService, type TestService } from './support/harness.ts';
import { eraOptions, legacyRequest, MODERN_ERA, ok, postMcp } from './support/mcp-client.ts';
import { eventually } from './support/wait.ts';

const REQUEST_TIMEOUT_MS = 15_000;
/** Well under the listener's 5 s grace: a stop that waited for a stream to time out would miss it. */
const PROMPT_STOP_MS = 2_500;

const decoder = new TextDecoder();

/** An open GET of /mcp: its answer, and a way to hang up. */
interface OpenStream {
  response: Response;
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  close(): void;
}

async function getMcp(apiUrl: string, headers: Record<string, string>): Promise<OpenStream> {
  const hangUp = new AbortController();
  const response = await fetch(`${apiUrl}/mcp`, { headers, signal: hangUp.signal });
  const reader = response.ok ? response.body?.getReader() : undefined;
  if (!response.ok) await response.body?.cancel();
  return { response, reader, close: () => hangUp.abort() };
}

/** What a stream sends until `pattern` is in it, or until it ends; fails after `timeoutMs`. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, pattern: RegExp | 'end', timeoutMs = 5_000): Promise<string> {
  let text = '';
  const deadline = Date.now() + timeoutMs;
  while (pattern === 'end' || !pattern.test(text)) {
    const left = deadline - Date.now();
    if (left <= 0) assert.fail(`not within ${timeoutMs} ms: ${pattern === 'end' ? 'the end of the stream' : pattern} (got ${JSON.stringify(text)})`);
    const next = await Promise.race([reader.read(), sleep(left).then(() => 'late' as const)]);
    if (next === 'late') continue;
    if (next.done) {
      if (pattern === 'end') return text;
      assert.fail(`the stream ended before ${pattern} (got ${JSON.stringify(text)})`);
    }
    text += decoder.decode(next.value, { stream: true });
  }
  return text;
}

/** A fetch that records the method and status of every request a client makes. */
function recordingFetch(seen: { method: string; status: number; type: string }[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    seen.push({ method: init?.method ?? 'GET', status: response.status, type: response.headers.get('content-type') ?? '' });
    return response;
  };
}

/** Opens GETs with `key` until one is refused (at most `max` + 1); the ones that opened, and the refusal. */
async function fillStreams(apiUrl: string, key: string, max = MAX_STREAMS_PER_CREDENTIAL): Promise<{ opened: OpenStream[]; refusal: Response | undefined }> {
  const opened: OpenStream[] = [];
  for (let i = 0; i <= max; i++) {
    const stream = await getMcp(apiUrl, { 'x-service-key': key, accept: 'text/event-stream' });
    if (stream.response.status !== 200) return { opened, refusal: stream.response };
    opened.push(stream);
  }
  return { opened, refusal: undefined };
}

describe('/mcp: GET, POST and DELETE', { timeout: 120_000 }, () => {
  let svc: TestService;
  let key: { id: string; secret: string };
  let challenge: string;

  before(async () => {
    svc = await startTestService();
    key = await svc.createKey('read');
    challenge = `Bearer resource_metadata="${svc.apiUrl}/.well-known/oauth-protected-resource/mcp", scope="read write"`;
  });
  after(() => svc.stop());

  test('every method checks the credential first: 401 with the WWW-Authenticate of a POST', async () => {
    const refusals = async (headers: Record<string, string>) => {
      const answers = new Map<string, { status: number; challenge: string | null; body: string }>();
      for (const method of ['POST', 'GET', 'DELETE', 'PUT', 'PATCH', 'HEAD']) {
        const response = await fetch(`${svc.apiUrl}/mcp`, {
          method,
          headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': 'some-session', ...headers },
          body: ['POST', 'PUT', 'PATCH'].includes(method) ? JSON.stringify(legacyRequest('tools/list')) : undefined,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        answers.set(method, { status: response.status, challenge: response.headers.get('www-authenticate'), body: await response.text() });
      }
      return answers;
    };
    // No credential: the bare challenge. A dead key: the challenge with error="invalid_token".
    for (const [headers, sent] of [
      [{}, false],
      [{ 'x-service-key': 'svc_not_a_live_key_0000000000000000' }, true],
      [{ authorization: 'Bearer svc_oat_not_a_live_token' }, true],
    ] as const) {
      const answers = await refusals(headers);
      const post = answers.get('POST')!;
      assert.equal(post.status, 401);
      if (sent) assert.ok(post.challenge?.startsWith(`${challenge}, error="invalid_token"`), post.challenge ?? 'no challenge');
      else assert.equal(post.challenge, challenge);
      for (const [method, answer] of answers) {
        assert.equal(answer.status, 401, `${method}: ${answer.status} ${answer.body}`);
        assert.equal(answer.challenge, post.challenge, `${method}: WWW-Authenticate`);
        if (method !== 'HEAD') assert.deepEqual(JSON.parse(answer.body), JSON.parse(post.body), `${method}: body`);
      }
    }
  });

  test('GET opens an event stream: text/event-stream, a comment at once, and it stays open', async () => {
    const stream = await getMcp(svc.apiUrl, { 'x-service-key': key.secret, accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' });
    try {
      assert.equal(stream.response.status, 200);
      assert.equal(stream.response.headers.get('content-type'), 'text/event-stream');
      assert.equal(stream.response.headers.get('cache-control'), 'no-store');
      assert.equal(stream.response.headers.get('x-accel-buffering'), 'no');
      assert.equal(stream.response.headers.get('mcp-session-id'), null, 'stateless: no session id');
      assert.equal(await readUntil(stream.reader!, /\n\n/), ': stream open\n\n');
      // Nothing more comes until the keep-alive, and the stream does not end.
      const more = await Promise.race([stream.reader!.read().then((r) => (r.done ? 'ended' : 'data')), sleep(500).then(() => 'open')]);
      assert.equal(more, 'open');
    } finally {
      stream.close();
    }
    // Any Accept that takes an event stream opens one; one that takes none is 406.
    for (const accept of ['*/*', 'text/*', 'application/json, text/event-stream;q=0.9']) {
      const other = await getMcp(svc.apiUrl, { 'x-service-key': key.secret, accept });
      other.close();
      assert.equal(other.response.status, 200, `Accept: ${accept}`);
    }
    const refused = await fetch(`${svc.apiUrl}/mcp`, {
      headers: { 'x-service-key': key.secret, accept: 'application/json' },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    assert.equal(refused.status, 406);
    assert.deepEqual(await refused.json(), {
      error: 'not_acceptable',
      error_description: 'GET /mcp opens an event stream: the Accept header must list text/event-stream',
    });
  });

  test(`a credential holds ${MAX_STREAMS_PER_CREDENTIAL} streams at most: the next is a plain 429 with Retry-After; a closed one gives its place back`, async () => {
    const crowded = await svc.createKey('read');
    const { opened, refusal } = await fillStreams(svc.apiUrl, crowded.secret);
    try {
      assert.equal(opened.length, MAX_STREAMS_PER_CREDENTIAL);
      assert.ok(refusal, 'no stream was refused');
      assert.equal(refusal.status, 429);
      assert.equal(refusal.headers.get('retry-after'), String(KEEP_ALIVE_MS / 1000));
      // Another credential is not touched, and POST still works for this one.
      const other = await getMcp(svc.apiUrl, { 'x-service-key': key.secret, accept: 'text/event-stream' });
      other.close();
      assert.equal(other.response.status, 200);
      assert.equal((await postMcp(svc.apiUrl, legacyRequest('tools/list'), { 'x-service-key': crowded.secret })).status, 200);

      opened.shift()!.close();
      const again = await eventually(
        () => getMcp(svc.apiUrl, { 'x-service-key': crowded.secret, accept: 'text/event-stream' }),
        (stream) => {
          if (stream.response.status === 200) return true;
          stream.close();
          return false;
        },
        'a place given back by a closed stream',
      );
      opened.push(again);
    } finally {
      for (const stream of opened) stream.close();
    }
  });

  test('the 429 of a full credential is the RFC 6750 shape, naming the limit', async () => {
    const crowded = await svc.createKey('read');
    const { opened } = await fillStreams(svc.apiUrl, crowded.secret, MAX_STREAMS_PER_CREDENTIAL - 1);
    try {
      const refused = await fetch(`${svc.apiUrl}/mcp`, {
        headers: { 'x-service-key': crowded.secret, accept: 'text/event-stream' },
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      assert.equal(refused.status, 429);
      assert.deepEqual(await refused.json(), {
        error: 'rate_limited',
        error_description: `this credential holds ${MAX_STREAMS_PER_CREDENTIAL} event streams open at /mcp, the most it may; close one, or retry after ${KEEP_ALIVE_MS / 1000} s`,
      });
    } finally {
      for (const stream of opened) stream.close();
    }
  });

  test('DELETE: the session it names does not exist (404); without Mcp-Session-Id it names none (400)', async () => {
    const del = (headers: Record<string, string>) =>
      fetch(`${svc.apiUrl}/mcp`, {
        method: 'DELETE',
        headers: { 'x-service-key': key.secret, 'mcp-protocol-version': '2025-11-25', ...headers },
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    const named = await del({ 'mcp-session-id': '1868a90c-0000-4000-8000-000000000000' });
    assert.equal(named.status, 404);
    assert.deepEqual(await named.json(), {
      error: 'session_not_found',
      error_description: 'no such session: this server is stateless, never issues an Mcp-Session-Id and keeps no session to end',
    });
    const none = await del({});
    assert.equal(none.status, 400);
    const body = (await none.json()) as { error: string; error_description: string };
    assert.equal(body.error, 'invalid_request');
    assert.match(body.error_description, /Mcp-Session-Id header/);
  });

  test('other methods: 405 with Allow: GET, POST, DELETE', async () => {
    for (const method of ['PUT', 'PATCH', 'HEAD']) {
      const response = await fetch(`${svc.apiUrl}/mcp`, {
        method,
        headers: { 'x-service-key': key.secret, accept: 'text/event-stream' },
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      assert.equal(response.status, 405, method);
      assert.equal(response.headers.get('allow'), 'GET, POST, DELETE', method);
      if (method !== 'HEAD') assert.equal(((await response.json()) as { error: string }).error, 'method_not_allowed');
      else await response.body?.cancel();
    }
  });

  test('the 1.x SDK client opens its stream after initialize, holds it while connected, and closes it', async () => {
    const own = await svc.createKey('read');
    const seen: { method: string; status: number; type: string }[] = [];
    const errors: unknown[] = [];
    const transport = new TransportV1(new URL(`${svc.apiUrl}/mcp`), { requestInit: { headers: { 'x-service-key': own.secret } }, fetch: recordingFetch(seen) });
    const client = new ClientV1({ name: 'sdk-1x', version: '1.0.0' });
    client.onerror = (error) => errors.push(error);
    await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
    let raw: OpenStream[] = [];
    try {
      await eventually(
        () => seen.find((r) => r.method === 'GET'),
        (r) => r !== undefined,
        'the client opening its stream',
      );
      assert.deepEqual(
        seen.find((r) => r.method === 'GET'),
        { method: 'GET', status: 200, type: 'text/event-stream' },
      );
      ok((await client.callTool({ name: 'list_status_pages', arguments: {} }, undefined, { timeout: REQUEST_TIMEOUT_MS })) as Parameters<typeof ok>[0]);
      // The client's stream is one of the credential's four.
      const { opened, refusal } = await fillStreams(svc.apiUrl, own.secret);
      raw = opened;
      assert.equal(opened.length, MAX_STREAMS_PER_CREDENTIAL - 1);
      assert.equal(refusal?.status, 429);
      // No session was issued, so there is none to end: no DELETE is sent.
      assert.equal(transport.sessionId, undefined);
      await transport.terminateSession();
      assert.ok(!seen.some((r) => r.method === 'DELETE'));
    } finally {
      for (const stream of raw) stream.close();
      await client.close();
    }
    assert.deepEqual(errors, []);
    // Closing the client gave its place back.
    const { opened } = await eventually(
      () => fillStreams(svc.apiUrl, own.secret),
      (r) => {
        for (const stream of r.opened) stream.close();
        return r.opened.length === MAX_STREAMS_PER_CREDENTIAL;
      },
      'the places of the closed client and streams',
    );
    assert.equal(opened.length, MAX_STREAMS_PER_CREDENTIAL);
  });

  test('the 2.x SDK client opens the stream in the 2025 eras and none in 2026-07-28; both work without an error', async () => {
    for (const era of ['2025-11-25', '2025-06-18', MODERN_ERA] as const) {
      const seen: { method: string; status: number; type: string }[] = [];
      const errors: unknown[] = [];
      const transport = new TransportV2(new URL(`${svc.apiUrl}/mcp`), {
        requestInit: { headers: { 'x-service-key': key.secret } },
        fetch: recordingFetch(seen),
      });
      const client = new ClientV2({ name: 'sdk-2x', version: '1.0.0' }, eraOptions(era));
      client.onerror = (error) => errors.push(error);
      await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
      try {
        ok((await client.callTool({ name: 'list_status_pages', arguments: {} }, { timeout: REQUEST_TIMEOUT_MS })) as Parameters<typeof ok>[0]);
        if (era === MODERN_ERA) {
          await sleep(200);
          assert.deepEqual(
            seen.filter((r) => r.method !== 'POST'),
            [],
            `${era}: only POSTs`,
          );
        } else {
          await eventually(
            () => seen.find((r) => r.method === 'GET'),
            (r) => r !== undefined,
            `${era}: the client opening its stream`,
          );
          assert.deepEqual(
            seen.find((r) => r.method === 'GET'),
            { method: 'GET', status: 200, type: 'text/event-stream' },
            era,
          );
        }
        await transport.terminateSession();
        assert.ok(!seen.some((r) => r.method === 'DELETE'), `${era}: a DELETE was sent`);
      } finally {
        await client.close();
      }
      assert.deepEqual(errors, [], era);
    }
  });
});

describe('stopping the service with event streams open', { timeout: 60_000 }, () => {
  test('every stream ends (HTTP/1.1, HTTP/2, an SDK client) and the stop is prompt', async () => {
    const svc = await startTestService();
    let stopped = false;
    let h2: http2.ClientHttp2Session | undefined;
    let client: ClientV1 | undefined;
    try {
      const key = await svc.createKey('read');
      const h1 = await getMcp(svc.apiUrl, { 'x-service-key': key.secret, accept: 'text/event-stream' });
      assert.equal(h1.response.status, 200);
      await readUntil(h1.reader!, /stream open/);

      h2 = http2.connect(svc.apiUrl);
      const h2Stream = h2.request({ ':method': 'GET', ':path': '/mcp', 'x-service-key': key.secret, accept: 'text/event-stream' });
      const h2Status = new Promise<number>((resolve) => h2Stream.once('response', (headers) => resolve(Number(headers[':status']))));
      let h2Text = '';
      h2Stream.setEncoding('utf8');
      h2Stream.on('data', (chunk: string) => (h2Text += chunk));
      const h2Ended = new Promise<void>((resolve) => h2Stream.once('close', () => resolve()));
      assert.equal(await h2Status, 200);
      await eventually(
        () => h2Text,
        (t) => t.includes('stream open'),
        'the HTTP/2 stream opening',
      );

      const seen: { method: string; status: number; type: string }[] = [];
      client = new ClientV1({ name: 'sdk-1x', version: '1.0.0' });
      await client.connect(
        new TransportV1(new URL(`${svc.apiUrl}/mcp`), { requestInit: { headers: { 'x-service-key': key.secret } }, fetch: recordingFetch(seen) }),
        { timeout: REQUEST_TIMEOUT_MS },
      );
      await eventually(() => seen.some((r) => r.method === 'GET' && r.status === 200), Boolean, 'the client opening its stream');

      const started = performance.now();
      await svc.stop();
      stopped = true;
      const took = performance.now() - started;
      assert.ok(took < PROMPT_STOP_MS, `the stop took ${took.toFixed(0)} ms`);
      await readUntil(h1.reader!, 'end', 1_000);
      await Promise.race([h2Ended, sleep(1_000).then(() => assert.fail('the HTTP/2 stream did not end'))]);
    } finally {
      await client?.close();
      h2?.destroy();
      if (!stopped) await svc.stop();
    }
  });
});

describe('createEventStreams', () => {
  const actor = (keyId: string): Credential => ({ type: 'apiKey', keyId, scopes: ['read'], workspaceId: 1, userId: null, surface: 'mcp' });
  const live = async () => true;

  test('a keep-alive comment every interval, until the client hangs up; its place is given back', async () => {
    const streams = createEventStreams({ keepAliveMs: 30, perCredential: 1 });
    const hangUp = new AbortController();
    const body = streams.open(actor('1'), hangUp.signal, live);
    assert.ok(body instanceof ReadableStream);
    const reader = body.getReader();
    assert.equal(await readUntil(reader, /(: keep-alive\n\n){2}/), ': stream open\n\n: keep-alive\n\n: keep-alive\n\n');
    assert.ok(!(streams.open(actor('1'), new AbortController().signal, live) instanceof ReadableStream), 'a second stream of a credential that may hold one');
    hangUp.abort();
    assert.equal(streams.size, 0);
    const next = streams.open(actor('1'), new AbortController().signal, live);
    assert.ok(next instanceof ReadableStream);
    await next.cancel();
    assert.equal(streams.size, 0, 'a cancelled stream kept its place');
  });

  test('a stream whose credential is gone ends at the next keep-alive', async () => {
    const streams = createEventStreams({ keepAliveMs: 30 });
    let stillLive = true;
    const body = streams.open(actor('2'), new AbortController().signal, async () => stillLive);
    assert.ok(body instanceof ReadableStream);
    const reader = body.getReader();
    await readUntil(reader, /keep-alive/);
    stillLive = false;
    await readUntil(reader, 'end', 1_000);
    assert.equal(streams.size, 0);
  });

  test('stopping ends every stream, and one opened after ends at once', async () => {
    const stopping = new AbortController();
    const streams = createEventStreams({ stopping: stopping.signal, keepAliveMs: 60_000 });
    const bodies = [streams.open(actor('3'), new AbortController().signal, live), streams.open(actor('4'), new AbortController().signal, live)];
    assert.equal(streams.size, 2);
    stopping.abort();
    for (const body of bodies) {
      assert.ok(body instanceof ReadableStream);
      assert.equal(await readUntil(body.getReader(), 'end', 1_000), ': stream open\n\n');
    }
    const late = streams.open(actor('3'), new AbortController().signal, live);
    assert.ok(late instanceof ReadableStream);
    await readUntil(late.getReader(), 'end', 1_000);
    assert.equal(streams.size, 0);
  });
});
