import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { after, afterEach, before, describe, test } from 'node:test';
import { Client, type ClientOptions, ProtocolError } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createClient } from '../client/index.ts';
import { headerValue, httpError, mcpEndpoint, networkError, requestHeaders, retryAfterSeconds, runBridge, sseData } from '../server/cli/mcp-bridge.ts';
import { closedPort } from './support/grpc-peers.ts';
import { CLI, runCli, startTestService, type TestService } from './support/harness.ts';
import { until } from './support/wait.ts';

/**
 * `statusdesk mcp`, the stdio bridge, as an MCP client runs it: the SDK's stdio client spawns the
 * real command, which talks to the real service (in this process) over HTTP.
 */

const T = { timeout: 60_000 };
const REQUEST = { timeout: 15_000 };
const ERAS = ['2025-06-18', '2025-11-25', '2026-07-28'] as const;
type Era = (typeof ERAS)[number];

/** No setting from the surrounding shell leaks in. */
const clean: NodeJS.ProcessEnv = { SERVICE_API_KEY: undefined, SERVICE_API_URL: undefined, STATUSDESK_LOG_LEVEL: undefined };

let svc: TestService;
let write: string;
let read: string;

before(async () => {
  svc = await startTestService();
  write = (await svc.createKey('write')).secret;
  read = (await svc.createKey('read')).secret;
  const api = createClient({ baseUrl: `${svc.apiUrl}/rpc`, apiKey: write, env: {} });
  await api.pages.createStatusPage({ slug: 'bridged', title: 'Bridged' });
});

after(async () => {
  await svc?.stop();
});

const clients: Client[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function eraOptions(era: Era): ClientOptions {
  return era === '2026-07-28' ? { versionNegotiation: { mode: { pin: era } } } : { supportedProtocolVersions: [era] };
}

interface Bridge {
  client: Client;
  transport: StdioClientTransport;
  stderr(): string;
}

/** `statusdesk mcp ARGS` spawned by the SDK's stdio client, not yet connected. */
function bridge(env: Record<string, string>, era: Era = '2025-11-25', args: string[] = []): Bridge {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'statusdesk-tests', version: '1.0.0' }, eraOptions(era));
  clients.push(client);
  return { client, transport, stderr: () => stderr };
}

async function connected(env: Record<string, string>, era: Era = '2025-11-25', args: string[] = []): Promise<Bridge> {
  const b = bridge(env, era, args);
  await b.client.connect(b.transport, REQUEST);
  return b;
}

/** The JSON-RPC error a call was answered with. */
async function rpcError(call: Promise<unknown>): Promise<ProtocolError> {
  try {
    const result = await call;
    assert.fail(`expected a JSON-RPC error, got ${JSON.stringify(result).slice(0, 300)}`);
  } catch (error) {
    assert.ok(error instanceof ProtocolError, `expected a JSON-RPC error, got ${String(error)}`);
    return error;
  }
}

const alive = (pid: number | null) => {
  assert.ok(pid);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The bridge as a plain child process, for what the SDK client hides: raw lines and the exit. */
function raw(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [CLI, 'mcp'], { env: { ...process.env, ...clean, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const wake of waiters.splice(0)) wake();
  });
  // 'close', not 'exit': by then stdout and stderr are read to their end.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    lines,
    exited,
    stderr: () => stderr,
    send: (message: unknown) => child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`),
    /** Resolves once stdout has `count` lines. */
    async until(count: number) {
      while (lines.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
      return lines.map((line) => JSON.parse(line));
    },
  };
}

const initialize = (id: number | string, version = '2025-11-25') => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('statusdesk mcp through the SDK stdio client', () => {
  for (const era of ERAS) {
    test(`lists the tools and calls one in the ${era} era`, T, async () => {
      const { client, stderr } = await connected({ SERVICE_API_KEY: write, SERVICE_API_URL: `${svc.apiUrl}/rpc` }, era);
      assert.equal(client.getNegotiatedProtocolVersion(), era);
      const names = (await client.listTools(undefined, REQUEST)).tools.map((t) => t.name);
      assert.ok(names.includes('list_status_pages'), names.join(', '));
      assert.ok(names.includes('create_status_report'), 'a write key lists the mutation tools');
      const result = await client.callTool({ name: 'list_status_pages', arguments: {} }, REQUEST);
      assert.notEqual(result.isError, true, JSON.stringify(result));
      const pages = (result.structuredContent as { statusPages: { slug: string }[] }).statusPages;
      assert.deepEqual(
        pages.map((p) => p.slug),
        ['bridged'],
      );
      // resources/read carries a URI as its Mcp-Name in the 2026-07-28 era.
      const resources = (await client.listResources(undefined, REQUEST)).resources;
      const openapi = resources.find((r) => r.name === 'openapi-specification');
      assert.ok(openapi, JSON.stringify(resources));
      const contents = (await client.readResource({ uri: openapi.uri }, REQUEST)).contents;
      assert.match(JSON.stringify(contents), /openapi/);
      assert.equal(stderr(), '');
    });
  }

  test('--api-url takes the bare service address and wins over SERVICE_API_URL', T, async () => {
    const wrong = `http://127.0.0.1:${await closedPort()}/rpc`;
    const { client } = await connected({ SERVICE_API_KEY: read, SERVICE_API_URL: wrong }, '2025-11-25', ['--api-url', svc.apiUrl]);
    const result = await client.callTool({ name: 'list_status_pages', arguments: {} }, REQUEST);
    assert.notEqual(result.isError, true, JSON.stringify(result));
  });

  test("the service's own JSON-RPC errors pass through: a read key cannot call a mutation tool", T, async () => {
    const { client, transport } = await connected({ SERVICE_API_KEY: read, SERVICE_API_URL: svc.apiUrl });
    const names = (await client.listTools(undefined, REQUEST)).tools.map((t) => t.name);
    assert.ok(!names.includes('create_status_report'));
    const error = await rpcError(
      client.callTool({ name: 'create_status_report', arguments: { pageId: 'bridged', title: 'x', message: 'y', notify: false } }, REQUEST),
    );
    assert.equal(error.code, -32003, error.message);
    assert.ok(alive(transport.pid));
  });

  test('without SERVICE_API_KEY the command refuses to start: one line, exit 1, nothing on stdout', T, async () => {
    for (const key of [undefined, '']) {
      const result = await runCli(['mcp', '--api-url', svc.apiUrl], { ...clean, SERVICE_API_KEY: key });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stdout, '');
      assert.match(
        result.stderr,
        /^statusdesk: SERVICE_API_KEY is not set and there is no login to http:\/\/localhost:\d+: run `statusdesk login --api-url http:\/\/localhost:\d+`, or create a key with `statusdesk keys create` and export it as SERVICE_API_KEY\n$/,
      );
    }
  });

  test('an unknown key: each request is answered with a JSON-RPC error saying how to make a key', T, async () => {
    const unknown = `svc_${'x'.repeat(43)}`;
    const { client, transport, stderr } = bridge({ SERVICE_API_KEY: unknown, SERVICE_API_URL: svc.apiUrl });
    const error = await rpcError(client.connect(transport, REQUEST));
    assert.equal(error.code, -32001);
    assert.match(error.message, /refused the credential \(401.*\): run statusdesk login, or set SERVICE_API_KEY .*statusdesk keys create/);
    assert.deepEqual(error.data, { code: 'UNAUTHORIZED', status: 401 });
    assert.match(stderr(), /^statusdesk mcp: initialize: the service at http:\/\/[^ ]+ refused the credential/);

    // The client gives up on a failed handshake; the bridge itself keeps answering.
    const wire = raw({ SERVICE_API_KEY: unknown, SERVICE_API_URL: svc.apiUrl });
    wire.send(initialize(1));
    await wire.until(1);
    wire.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const answers = await wire.until(2);
    assert.deepEqual(
      answers.map((a) => a.error?.code),
      [-32001, -32001],
    );
    assert.equal(wire.child.exitCode, null, 'still running');
    wire.child.stdin.end();
    assert.equal(await wire.exited, 0);
  });

  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    test(`a key revoked while the bridge runs (${era}): JSON-RPC errors, and the bridge stays up`, T, async () => {
      const doomed = await svc.createKey('write');
      const { client, transport } = await connected({ SERVICE_API_KEY: doomed.secret, SERVICE_API_URL: svc.apiUrl }, era);
      await client.listTools(undefined, REQUEST);
      const revoked = await runCli(['keys', 'revoke', doomed.id, '--data-dir', svc.dataDir], clean);
      assert.equal(revoked.code, 0, revoked.stderr);
      for (let i = 0; i < 2; i++) {
        const error = await rpcError(client.callTool({ name: 'list_status_pages', arguments: {} }, REQUEST));
        assert.equal(error.code, -32001);
        assert.match(error.message, /revoked/);
        assert.match(error.message, /statusdesk keys create/);
        assert.ok(alive(transport.pid));
      }
    });
  }

  test('no service at the address: the error says so and how to start it', T, async () => {
    const address = `http://127.0.0.1:${await closedPort()}`;
    const notRunning = new RegExp(`^Statusdesk is not running at ${address.replaceAll('.', '\\.')}: start it with statusdesk serve`);
    const legacy = bridge({ SERVICE_API_KEY: write, SERVICE_API_URL: `${address}/rpc` }, '2025-11-25');
    assert.match((await rpcError(legacy.client.connect(legacy.transport, REQUEST))).message, notRunning);
    // A client pinned to 2026-07-28 reads any error to its server/discover probe (which the SDK
    // sends from a throwaway sibling process) as "not that revision", and says only that.
    const modern = bridge({ SERVICE_API_KEY: write, SERVICE_API_URL: `${address}/rpc` }, '2026-07-28');
    await assert.rejects(modern.client.connect(modern.transport, REQUEST), /Version negotiation failed/);
    const wire = raw({ SERVICE_API_KEY: write, SERVICE_API_URL: `${address}/rpc` });
    wire.send(initialize(1));
    wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    wire.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const answers = await wire.until(2);
    for (const answer of answers) assert.match(answer.error?.message ?? '', notRunning);
    assert.equal(wire.child.exitCode, null, 'still running');
    wire.child.stdin.end();
    assert.equal(await wire.exited, 0);
    assert.equal(wire.lines.length, 2, 'the notification got no answer');
    assert.match(wire.stderr(), /^statusdesk mcp: initialize: Statusdesk is not running/);
    assert.match(
      wire.stderr(),
      /^statusdesk mcp: notifications\/initialized: Statusdesk is not running/m,
      'a notification that could not be delivered is only reported',
    );
  });
});

describe('statusdesk mcp on the wire', () => {
  test('stdin ending ends the bridge with exit 0, after the answers in flight are written', T, async () => {
    const bridge = raw({ SERVICE_API_KEY: write, SERVICE_API_URL: svc.apiUrl });
    bridge.send(initialize(1));
    bridge.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    bridge.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    bridge.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_status_pages', arguments: {} } });
    bridge.child.stdin.end();
    assert.equal(await bridge.exited, 0);
    const answers = bridge.lines.map((line) => JSON.parse(line));
    assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2, 3], 'a notification gets no answer');
    for (const answer of answers) assert.ok(answer.result, JSON.stringify(answer));
    assert.equal(bridge.stderr(), '');
  });

  test('concurrent requests are answered whole, one message a line; a line that is not JSON is a parse error', T, async () => {
    const bridge = raw({ SERVICE_API_KEY: write, SERVICE_API_URL: svc.apiUrl });
    bridge.send(initialize(0));
    await bridge.until(1);
    const count = 12;
    for (let id = 1; id <= count; id++) {
      bridge.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_doc_page', arguments: { path: 'docs/reference/mcp-server' } } });
    }
    bridge.send('{"jsonrpc": "2.0", "id": 99,');
    bridge.child.stdin.end();
    assert.equal(await bridge.exited, 0);
    const answers = bridge.lines.map((line) => JSON.parse(line));
    assert.equal(answers.length, count + 2);
    const parseError = answers.find((a) => a.id === null);
    assert.equal(parseError?.error.code, -32700);
    const calls = answers.filter((a) => typeof a.id === 'number' && a.id > 0);
    assert.deepEqual(
      calls.map((a) => a.id).sort((x, y) => x - y),
      Array.from({ length: count }, (_, i) => i + 1),
    );
    assert.notEqual(calls[0].result.isError, true, JSON.stringify(calls[0]).slice(0, 300));
    const first = JSON.stringify(calls[0].result);
    for (const call of calls) assert.equal(JSON.stringify(call.result), first, 'every answer arrived whole');
  });

  test('the version initialize negotiated goes on later posts; 2026-07-28 requests carry their own headers', T, async () => {
    // In this process, so the posts can be watched on their way to the real service.
    const seen: Headers[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      seen.push(new Headers(init?.headers));
      return realFetch(input, init);
    };
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: any[] = [];
    createInterface({ input: output }).on('line', (line) => lines.push(JSON.parse(line)));
    const diagnostics: string[] = [];
    try {
      const done = runBridge({ endpoint: mcpEndpoint(svc.apiUrl), credential: { apiKey: read }, input, output, diagnostic: (text) => diagnostics.push(text) });
      input.write(`${JSON.stringify(initialize(1, '2025-06-18'))}\n`);
      await until(() => lines.length >= 1, 'the answer to initialize');
      assert.equal(lines[0].result?.protocolVersion, '2025-06-18', JSON.stringify(lines[0]));
      input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })}\n`);
      await until(() => lines.length >= 2, 'the answer to tools/list');
      const envelope = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      input.end(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_status_pages', arguments: {}, _meta: envelope } })}\n`);
      await done;
      assert.deepEqual(diagnostics, []);
      assert.equal(seen.length, 3);
      assert.equal(seen[0]!.get('mcp-protocol-version'), null, 'the handshake goes without');
      assert.equal(seen[1]!.get('mcp-protocol-version'), '2025-06-18');
      assert.ok(lines[1].result?.tools?.length > 0, JSON.stringify(lines[1]));
      assert.equal(seen[2]!.get('mcp-protocol-version'), '2026-07-28');
      assert.equal(seen[2]!.get('mcp-method'), 'tools/call');
      assert.equal(seen[2]!.get('mcp-name'), 'list_status_pages');
      assert.deepEqual(
        lines[2].result?.structuredContent?.statusPages?.map((p: { slug: string }) => p.slug),
        ['bridged'],
        JSON.stringify(lines[2]),
      );
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  test('a cancelled request gets no answer: its post is ended and the cancellation passed on', T, async () => {
    const posted: string[] = [];
    const realFetch = globalThis.fetch;
    // The one slow request is held back (until aborted) on its way to the real service.
    globalThis.fetch = async (input, init) => {
      const body = String(init?.body);
      posted.push(body);
      if (body.includes('"id":"slow"')) {
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 10_000);
          init?.signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(init.signal!.reason);
          });
        });
      }
      return realFetch(input, init);
    };
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: any[] = [];
    createInterface({ input: output }).on('line', (line) => lines.push(JSON.parse(line)));
    const diagnostics: string[] = [];
    try {
      const started = Date.now();
      const done = runBridge({ endpoint: mcpEndpoint(svc.apiUrl), credential: { apiKey: read }, input, output, diagnostic: (text) => diagnostics.push(text) });
      input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'list_status_pages', arguments: {} } })}\n`);
      input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'quick', method: 'tools/list', params: {} })}\n`);
      input.end(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow', reason: 'user' } })}\n`);
      await done;
      assert.ok(Date.now() - started < 5_000, 'the held request was ended, not waited for');
      assert.deepEqual(
        lines.map((l) => l.id),
        ['quick'],
      );
      assert.ok(posted.some((body) => body.includes('notifications/cancelled')));
      assert.deepEqual(diagnostics, []);
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  test('a spent rate limit is a JSON-RPC error that says when to retry', T, async () => {
    const limited = await startTestService({ STATUSDESK_RATE_LIMIT: '2' });
    try {
      const key = (await limited.createKey('read')).secret;
      const bridge = raw({ SERVICE_API_KEY: key, SERVICE_API_URL: limited.apiUrl });
      bridge.send(initialize(1));
      bridge.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
      await bridge.until(2);
      bridge.send({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} });
      const answers = await bridge.until(3);
      const refused = answers.find((a) => a.id === 3);
      assert.equal(refused?.error?.code, -32000, JSON.stringify(refused));
      assert.match(refused.error.message, /rate limit.*retry after \d+ seconds?/);
      assert.equal(refused.error.data.code, 'LIMIT_EXCEEDED');
      assert.ok(Number.isInteger(refused.error.data.retryAfter) && refused.error.data.retryAfter >= 1);
      bridge.child.stdin.end();
      assert.equal(await bridge.exited, 0);
    } finally {
      await limited.stop();
    }
  });
});

describe('statusdesk mcp parts', () => {
  test('the endpoint is /mcp on the API address, with or without /rpc', () => {
    assert.equal(mcpEndpoint('http://localhost:3000/rpc'), 'http://localhost:3000/mcp');
    assert.equal(mcpEndpoint('http://localhost:3000/rpc/'), 'http://localhost:3000/mcp');
    assert.equal(mcpEndpoint('http://localhost:3000'), 'http://localhost:3000/mcp');
    assert.equal(mcpEndpoint('https://status.example/api/rpc'), 'https://status.example/api/mcp');
    assert.throws(() => mcpEndpoint('localhost:3000'), /http\(s\)/);
    assert.throws(() => mcpEndpoint('not a url'), /not a service address/);
  });

  test('2026-07-28 requests name their version, method and name; others the negotiated version', () => {
    const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
    const call = requestHeaders({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_monitors', _meta: envelope } }, '2025-11-25');
    assert.equal(call.get('mcp-protocol-version'), '2026-07-28');
    assert.equal(call.get('mcp-method'), 'tools/call');
    assert.equal(call.get('mcp-name'), 'list_monitors');
    assert.equal(call.get('accept'), 'application/json, text/event-stream');
    const read = requestHeaders({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'https://x.example/llms.txt', _meta: envelope } }, undefined);
    assert.equal(read.get('mcp-name'), 'https://x.example/llms.txt');
    const discover = requestHeaders({ jsonrpc: '2.0', id: 3, method: 'server/discover', params: { _meta: envelope } }, undefined);
    assert.equal(discover.get('mcp-name'), null);

    const legacy = requestHeaders({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} }, '2025-06-18');
    assert.equal(legacy.get('mcp-protocol-version'), '2025-06-18');
    assert.equal(legacy.get('mcp-method'), null);
    assert.equal(requestHeaders({ jsonrpc: '2.0', id: 5, method: 'initialize', params: {} }, '2025-06-18').get('mcp-protocol-version'), null);
    assert.equal(requestHeaders({ jsonrpc: '2.0', id: 6, method: 'tools/list' }, undefined).get('mcp-protocol-version'), null);
  });

  test('header values outside printable ASCII are base64 in the =?base64?...?= wrapper', () => {
    assert.equal(headerValue('list_monitors'), 'list_monitors');
    assert.equal(headerValue('héllo'), `=?base64?${Buffer.from('héllo').toString('base64')}?=`);
    assert.equal(headerValue(' padded'), `=?base64?${Buffer.from(' padded').toString('base64')}?=`);
    assert.equal(headerValue('=?base64?abc?='), `=?base64?${Buffer.from('=?base64?abc?=').toString('base64')}?=`);
  });

  test('Retry-After in seconds or as a date, at least 1', () => {
    assert.equal(retryAfterSeconds('7'), 7);
    assert.equal(retryAfterSeconds('0'), 1);
    assert.equal(retryAfterSeconds(new Date(1_000_000 + 4_500).toUTCString(), 1_000_000), 4);
    assert.equal(retryAfterSeconds(null), undefined);
    assert.equal(retryAfterSeconds('soon'), undefined);
  });

  test('refusals become JSON-RPC errors a person can act on', () => {
    const endpoint = 'http://localhost:3000/mcp';
    const json = (body: unknown) => JSON.stringify(body);
    const forbidden = httpError(403, new Headers(), json({ code: 'FORBIDDEN', message: 'host evil:3000 is not this service; use localhost:3000' }), endpoint);
    assert.equal(forbidden.code, -32003);
    assert.match(forbidden.message, /403: host evil:3000 is not this service/);
    const limited = httpError(429, new Headers({ 'retry-after': '12' }), json({ error: 'rate_limited', error_description: 'slow down' }), endpoint);
    assert.match(limited.message, /retry after 12 seconds/);
    assert.deepEqual(limited.data, { code: 'LIMIT_EXCEEDED', status: 429, detail: 'slow down', retryAfter: 12 });
    assert.doesNotMatch(limited.message, /slow down/);
    const failed = httpError(502, new Headers(), '<html>Bad Gateway</html>', endpoint);
    assert.equal(failed.code, -32603);
    assert.match(failed.message, /HTTP 502/);
    assert.match(httpError(404, new Headers(), '', endpoint).message, /no MCP endpoint at http:\/\/localhost:3000\/mcp/);
    const refused = networkError(
      Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) }),
      endpoint,
    );
    assert.match(refused.message, /^Statusdesk is not running at http:\/\/localhost:3000: start it with statusdesk serve/);
    const unresolved = networkError(
      Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('getaddrinfo'), { code: 'ENOTFOUND' }) }),
      endpoint,
    );
    assert.equal(unresolved.message, 'cannot reach http://localhost:3000: ENOTFOUND');
  });

  test('SSE: the data of each message event, whatever the line ends and chunk boundaries', async () => {
    const text = ': comment\r\nevent: message\r\ndata: {"a":\r\ndata: 1}\r\n\r\nevent: other\ndata: skipped\n\ndata:{"b":2}\r\rid: 7\ndata: {"c":3}';
    const collect = async (chunks: string[]) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
          controller.close();
        },
      });
      const out: string[] = [];
      for await (const data of sseData(body)) out.push(data);
      return out;
    };
    const expected = ['{"a":\n1}', '{"b":2}', '{"c":3}'];
    assert.deepEqual(await collect([text]), expected);
    assert.deepEqual(await collect([...text]), expected, 'one character a chunk, CRLF split too');
  });
});
