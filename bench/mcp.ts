/**
 * MCP benchmark: the service's /mcp endpoint next to a bare server built on the same SDK.
 *
 *   npm run bench:mcp -- [--rounds N] [--round-ms MS] [--warmup-ms MS] [--split-ms MS] [--cpu-prof DIR]
 *
 * Measured: `tools/call list_monitors` (50 monitors in the workspace, the whole list on one page)
 * and `tools/list`, at 1 and 16 concurrent clients, in the stateless legacy era (2025-11-25: a
 * POST with the JSON-RPC body, no initialize, no session), plus one row of `tools/call
 * list_monitors` in the modern era (2026-07-28: the `_meta` envelope with the protocol version and
 * the client's capabilities, and the Mcp-Method / Mcp-Name headers). Requests per second and
 * p50/p99 latency of each, and the ratio service/bare. Aim: at least 0.8 in every row.
 *
 * The service runs as shipped: `statusdesk serve` (the bundle in dist/) as its own process, with
 * STATUSDESK_CHECKS=off and STATUSDESK_RATE_LIMIT=0 (rate limits off: a bench sends far more than
 * a credential may), the default log level (one access line per request) with stderr to a file as
 * a supervisor would keep it. The data is written before it starts, through the domain services:
 * 50 monitors (TCP, gRPC and HTTP, interleaved) and a write key, which every request carries.
 *
 * The baseline is another process: node:http with `toNodeHandler(createMcpHandler(factory,
 * { legacy: 'stateless' }))` from @modelcontextprotocol/node and @modelcontextprotocol/server,
 * the factory building a fresh McpServer per request with one trivial tool. That tool is named
 * list_monitors and answers the service's own list_monitors result, and its tools/list answers the
 * service's own listing (23 tools with their input and output schemas, about 45 KB), both read once
 * at start: both sides send the same bytes, and the SDK validates and encodes the same answer on
 * each. A bare tools/list naming its one tool (352 bytes) would measure the size of the listing,
 * not the service's work. What separates the two is the service's own work per request: the front
 * (request id, Host/Origin guard, access log), the credential, the per-request server with the
 * full tool set, the input validation, the domain call and its SQLite reads.
 *
 * The load generator is httpLoad of bench/support/load.ts: keep-alive connections on 127.0.0.1,
 * one request in flight on each, a bounded loop of fixed duration, the body (content-length or
 * chunked, as the SDK answers) counted rather than copied. Both sides get the same request bytes
 * but for the Host header (the service's own host for the service, whose guard refuses others).
 * Every answer must be a 200 with a body of the size checked before the runs; the content is
 * checked before measuring (tool count, 50 monitors, no isError).
 *
 * Per row: a warm-up of each side, then rounds of fixed duration, service and bare alternating
 * (and swapping which goes first); the figures are medians of the rounds, the ratio the median of
 * the per-round ratios. Server CPU comes from /proc (Linux); "client busy" is this thread's
 * event-loop use: when it nears 100% the client, not the server, sets the pace.
 *
 * Where the CPU goes: both processes run with --inspect on 127.0.0.1, and after a row's measured
 * rounds each side runs one more round (--split-ms, default 1000; 0 leaves it out) under the V8
 * sampling profiler, reached over the DevTools protocol. Each sample's time goes to a place (the
 * HTTP front, the credential, the MCP SDK, the tools, the domain and SQLite, GC, other) by the
 * modules on its stack (the bundle's chunks are mapped back to their modules through esbuild's
 * `// path` markers), and the table shows ms per request of each place on each side.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type net from 'node:net';
import { arch, availableParallelism, loadavg, platform, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ListToolsResult } from '@modelcontextprotocol/server';
import { compare, parseNumber, table } from './support/figures.ts';
import { type HttpLoadFigures, httpCall, httpLoad, requestBytes, type SideFigures, summarise } from './support/load.ts';
import { type Child, SERVE, spawnReady } from './support/processes.ts';

const SELF = fileURLToPath(import.meta.url);
const CPUS = availableParallelism();

const AIM_RATIO = 0.8;
const MONITOR_COUNT = 50;
const MCP_PATH = '/mcp';
const LEGACY_VERSION = '2025-11-25';
const MODERN_VERSION = '2026-07-28';
/** The tools/list of a write key on a plan with the audit log (the default workspace's plan). */
const TOOLS_WITH_AUDIT_LOG = 23;
const TOOLS_WITHOUT_AUDIT_LOG = 21;

const REQUEST_TIMEOUT_MS = 30_000;
/** Set on the baseline process: this file then serves the bare MCP handler instead of measuring. */
const ROLE_ENV = 'BENCH_MCP_ROLE';
/** The service's answers the baseline gives as its own (`Answers`, as JSON). */
const ANSWERS_FILE_ENV = 'BENCH_MCP_ANSWERS_FILE';

/** The service's results of tools/call list_monitors and tools/list, read before the baseline starts. */
interface Answers {
  listMonitors: { content: { type: 'text'; text: string }[]; structuredContent: Record<string, unknown> };
  toolsList: ListToolsResult;
}

// ---- small helpers --------------------------------------------------------------------------

const line = (text: string) => process.stderr.write(`${text}\n`);

const fixed = (digits: number) => (value: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const f0 = fixed(0);
const f1 = fixed(1);
const f2 = fixed(2);
const pct = (share: number) => (Number.isFinite(share) ? `${(share * 100).toFixed(0)}%` : 'n/a');
const round2 = (value: number) => (Number.isFinite(value) ? Math.round(value * 100) / 100 : null);
const mapValues = <K extends string, V, W>(record: Record<K, V>, f: (value: V) => W) =>
  Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v as V)])) as Record<K, W>;

// ---- the baseline process -------------------------------------------------------------------

/**
 * The bare server: the SDK's stateless handler on node:http, a fresh McpServer per request with
 * one tool whose answer is the service's list_monitors result as read at start (a constant), and
 * whose tools/list answers the service's listing (a constant too). Its input schema takes the same
 * arguments as the service's tool, so the request validates.
 */
async function bareServer(): Promise<void> {
  const [{ createMcpHandler, McpServer }, { toNodeHandler }, { z }] = await Promise.all([
    import('@modelcontextprotocol/server'),
    import('@modelcontextprotocol/node'),
    import('zod'),
  ]);
  const answers = JSON.parse(readFileSync(process.env[ANSWERS_FILE_ENV]!, 'utf8')) as Answers;
  const input = z.object({ page: z.number().int().min(1).optional(), perPage: z.number().int().min(1).max(50).optional() });
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'bench-bare', version: '1.0.0' });
      server.registerTool('list_monitors', { description: 'Lists the monitors.', inputSchema: input }, () => answers.listMonitors);
      // In place of the listing of the one tool registered above.
      server.server.setRequestHandler('tools/list', () => answers.toolsList);
      return server;
    },
    { legacy: 'stateless' },
  );
  const node = toNodeHandler(handler);
  // The same keep-alive timeout as the service's HTTP/1.1 server.
  const server = http.createServer({ keepAliveTimeout: 5_000 }, (req, res) => void node(req, res));
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as net.AddressInfo;
    process.stdout.write(`${JSON.stringify({ event: 'ready', port })}\n`);
  });
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void handler.close();
  });
}

// ---- seeding --------------------------------------------------------------------------------

interface Seeded {
  key: string;
  plan: string;
  expectedTools: number;
  mix: Record<'tcp' | 'grpc' | 'http', number>;
  ms: number;
}

const REGION_SETS = [['iad', 'fra'], ['ams', 'sin', 'syd'], ['gru'], ['iad', 'lhr', 'nrt', 'jnb']];
const PERIODICITIES = ['30s', '1m', '5m', '10m', '30m', '1h'];

/**
 * The data, written before the service starts, through the domain services: a write key (so
 * tools/list names every tool) and 50 monitors of the three types, interleaved so the
 * newest-first list mixes them. Every target is on loopback; checks are off in the service anyway.
 */
async function seed(dataDir: string): Promise<Seeded> {
  const started = performance.now();
  const [{ openDatabase }, { createServices }, { ensureOwner }, { planOf }] = await Promise.all([
    import('../server/db/open.ts'),
    import('../server/services.ts'),
    import('../server/domain/users/users.ts'),
    import('../server/domain/plans.ts'),
  ]);
  const db = await openDatabase(dataDir);
  try {
    const services = createServices(db);
    try {
      const owner = { type: 'user' as const, userId: await ensureOwner(db), surface: 'cli' as const };
      const workspace = await services.workspaces.getBySlug(owner, 'personal');
      const ws = Number(workspace.id);
      const { secret } = await services.keys.create(owner, { workspaceId: ws, name: 'bench:mcp', scope: 'write' });
      const kinds = ['tcp', 'grpc', 'http'] as const;
      const mix = { tcp: 0, grpc: 0, http: 0 };
      for (let i = 0; i < MONITOR_COUNT; i++) {
        const kind = kinds[i % kinds.length]!;
        const common = {
          name: `bench ${kind} monitor ${i + 1}`,
          description: `Created by bench/mcp.ts (${i + 1}).`,
          periodicity: PERIODICITIES[i % PERIODICITIES.length]!,
          regions: REGION_SETS[i % REGION_SETS.length]!,
          timeout: 10_000,
          degraded: 2_000,
          retry: i % 4,
          tags: ['bench', `team-${i % 5}`],
        };
        const port = 22_000 + i;
        if (kind === 'tcp') {
          await services.monitors.create(owner, ws, 'tcp', { ...common, uri: `127.0.0.1:${port}` });
        } else if (kind === 'grpc') {
          await services.monitors.create(owner, ws, 'grpc', {
            ...common,
            uri: `127.0.0.1:${port}`,
            service: 'shop.v1.OrderService',
            tls: 'plaintext',
            metadata: { 'x-team': `team-${i % 5}` },
          });
        } else {
          await services.monitors.create(owner, ws, 'http', {
            ...common,
            url: `http://127.0.0.1:${port}/healthz`,
            method: 'GET',
            headers: { accept: 'application/json' },
            statusCodeAssertions: [{ comparator: 'equal', target: 200 }],
            bodyAssertions: [{ comparator: 'contains', target: '"ok"' }],
          });
        }
        mix[kind]++;
      }
      const plan = planOf(workspace.plan);
      return {
        key: secret,
        plan: plan.name,
        expectedTools: plan.auditLog ? TOOLS_WITH_AUDIT_LOG : TOOLS_WITHOUT_AUDIT_LOG,
        mix,
        ms: performance.now() - started,
      };
    } finally {
      services.close();
    }
  } finally {
    await db.destroy();
  }
}

// ---- child processes ------------------------------------------------------------------------

// ---- the requests ---------------------------------------------------------------------------

type Era = 'legacy' | 'modern';
type Method = 'tools/call' | 'tools/list';

interface Case {
  id: string;
  era: Era;
  method: Method;
  clients: number;
}

const CASES: Case[] = [
  { id: 'legacy tools/call list_monitors', era: 'legacy', method: 'tools/call', clients: 1 },
  { id: 'legacy tools/call list_monitors', era: 'legacy', method: 'tools/call', clients: 16 },
  { id: 'legacy tools/list', era: 'legacy', method: 'tools/list', clients: 1 },
  { id: 'legacy tools/list', era: 'legacy', method: 'tools/list', clients: 16 },
  { id: 'modern tools/call list_monitors', era: 'modern', method: 'tools/call', clients: 16 },
];

const ERA_VERSION: Record<Era, string> = { legacy: LEGACY_VERSION, modern: MODERN_VERSION };

/** The JSON-RPC body and the MCP headers of one request of the era. */
function mcpMessage(era: Era, method: Method): { body: string; headers: Record<string, string> } {
  const params: Record<string, unknown> = method === 'tools/call' ? { name: 'list_monitors', arguments: { perPage: MONITOR_COUNT } } : {};
  const headers: Record<string, string> = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': ERA_VERSION[era],
  };
  if (era === 'modern') {
    // The per-request envelope of 2026-07-28, and the standard headers that mirror the body.
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'statusdesk-bench', version: '1.0.0' },
    };
    headers['mcp-method'] = method;
    if (method === 'tools/call') headers['mcp-name'] = 'list_monitors';
  }
  return { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), headers };
}

/** The request as bytes, for the load generator: the same for both sides but for Host. */
function mcpRequest(host: string, era: Era, method: Method, key: string): Buffer {
  const { body, headers } = mcpMessage(era, method);
  return requestBytes('POST', host, MCP_PATH, { ...headers, 'x-service-key': key }, body);
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
  /** The JSON-RPC response: the body itself, or the last `data:` of an SSE stream. */
  message: { result?: Record<string, unknown>; error?: { code: number; message: string } } | undefined;
}

/** One request on its own connection, for the checks before measuring. */
async function call(port: number, host: string, era: Era, method: Method, key: string): Promise<Answer> {
  const { body, headers } = mcpMessage(era, method);
  const answer = await httpCall(port, {
    method: 'POST',
    path: MCP_PATH,
    headers: { ...headers, host, 'x-service-key': key },
    body,
    timeoutMs: REQUEST_TIMEOUT_MS,
  });
  const text = answer.body.toString('utf8');
  const contentType = String(answer.headers['content-type'] ?? '');
  let message: Answer['message'];
  try {
    if (contentType.startsWith('text/event-stream')) {
      const data = text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim());
      message = data.length ? JSON.parse(data[data.length - 1]!) : undefined;
    } else {
      message = JSON.parse(text);
    }
  } catch {
    message = undefined;
  }
  return { status: answer.status, contentType, body: text, message };
}

/** Why the answer is not the expected one, or '' when it is. */
function verdict(answer: Answer, method: Method, expect: { tools: number; monitors: number }): string {
  const head = `${answer.status} ${answer.contentType}`;
  if (answer.status !== 200) return `answered ${head}: ${answer.body.slice(0, 400)}`;
  const message = answer.message;
  if (!message) return `answered ${head} with no JSON-RPC message: ${answer.body.slice(0, 400)}`;
  if (message.error) return `answered JSON-RPC error ${message.error.code}: ${message.error.message}`;
  const result = message.result ?? {};
  if (method === 'tools/list') {
    const tools = (result.tools ?? []) as { name: string }[];
    if (tools.length !== expect.tools) return `tools/list named ${tools.length} tools, expected ${expect.tools}`;
    if (!tools.some((t) => t.name === 'list_monitors')) return 'tools/list does not name list_monitors';
    return '';
  }
  if (result.isError) return `list_monitors answered isError: ${JSON.stringify(result.content).slice(0, 400)}`;
  const structured = (result.structuredContent ?? {}) as { monitors?: unknown[]; pagination?: { totalSize?: number } };
  if (structured.monitors?.length !== expect.monitors)
    return `list_monitors returned ${structured.monitors?.length ?? 'no'} monitors, expected ${expect.monitors}`;
  if (structured.pagination?.totalSize !== expect.monitors)
    return `list_monitors said totalSize ${structured.pagination?.totalSize}, expected ${expect.monitors}`;
  const text = (result.content as { type: string; text?: string }[] | undefined)?.find((c) => c.type === 'text')?.text;
  let listed: { monitors?: unknown[] } | undefined;
  try {
    listed = text === undefined ? undefined : (JSON.parse(text) as { monitors?: unknown[] });
  } catch {
    listed = undefined;
  }
  if (listed?.monitors?.length !== expect.monitors) return 'list_monitors: the text content is not the same list as structuredContent';
  return '';
}

// ---- figures --------------------------------------------------------------------------------

type Side = 'service' | 'bare';

interface Row {
  case: Case;
  /** Decoded body bytes of each side's answer, as checked before the runs. */
  bytes: Record<Side, number>;
  figures: Record<Side, SideFigures>;
  ratios: number[];
  ratio: number;
  /** Main-thread ms per request by place, from a profiled round of each side after the measured ones. */
  split: Record<Side, { ms: Record<Place, number>; cpuMs: number }> | undefined;
}

// ---- where the CPU goes -------------------------------------------------------------------

/** Where a request's CPU is spent, in the order the split table shows them. */
const PLACES = ['front', 'credential', 'sdk', 'tools', 'domain', 'gc', 'other'] as const;
type Place = (typeof PLACES)[number];
const PLACE_HEADINGS: Record<Place, string> = {
  front: 'HTTP front',
  credential: 'credential',
  sdk: 'MCP SDK',
  tools: 'tools',
  domain: 'domain+SQLite',
  gc: 'GC',
  other: 'other',
};

/**
 * The place of a module: the service's layers and the libraries each uses. zod and Node.js's own
 * modules have no place: their time counts where they were called from.
 */
function placeOf(module: string): Place | undefined {
  if (/^server\/http\/(credentials|rate-limit)\.ts$/.test(module)) return 'credential';
  if (/^(server\/(domain|db)\/|node_modules\/(kysely|better-sqlite3)\/)/.test(module)) return 'domain';
  if (/^server\/mcp\//.test(module) || module === 'bench/mcp.ts') return 'tools';
  if (/^node_modules\/@modelcontextprotocol\/node\//.test(module)) return 'front';
  if (/^node_modules\/@modelcontextprotocol\//.test(module)) return 'sdk';
  if (
    /^(server\/http\/|node_modules\/(hono|@hono|pino|pino-std-serializers|sonic-boom)\/|node:(_http_|net$|internal\/(http|streams|stream_base)))/.test(module)
  )
    return 'front';
  return undefined;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
/** The bundle's module markers (`// server/mcp/tool.ts`) by file: the module a line of a chunk comes from. */
const bundleMarkers = new Map<string, { line: number; module: string }[]>();

/** Reads the markers of the bundle the service has just loaded, before anything builds it again. */
function readBundleMarkers(): void {
  for (const name of ['statusdesk.js', ...readdirSync(join(DIST, 'chunks')).map((chunk) => join('chunks', chunk))]) {
    const markers: { line: number; module: string }[] = [];
    readFileSync(join(DIST, name), 'utf8')
      .split('\n')
      .forEach((text, index) => {
        const marker = /^\/\/ ((?:node_modules|server)\/\S+\.[cm]?[jt]s)$/.exec(text);
        if (marker) markers.push({ line: index, module: marker[1]! });
      });
    bundleMarkers.set(join(DIST, name), markers);
  }
}

/** The module a profile frame runs in: a path under the repository (sources, the bundle's modules, node_modules) or a node: module. */
function moduleOf(url: string, line: number): string {
  if (!url.startsWith('file://')) return url;
  const path = fileURLToPath(url);
  if (path.startsWith(DIST)) {
    // Chunks of a later build, which the service never ran, have no markers: their frames count as `other`.
    const markers = bundleMarkers.get(path) ?? [];
    let low = 0;
    let high = markers.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (markers[mid]!.line <= line) low = mid;
      else high = mid - 1;
    }
    return markers[low] && markers[low]!.line <= line ? markers[low]!.module : 'dist';
  }
  const inModules = path.lastIndexOf('/node_modules/');
  return inModules >= 0 ? path.slice(inModules + 1) : path.slice(ROOT.length);
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * The sampled main-thread time of a profile by place, in ms. A sample counts for the credential
 * when the credential check is anywhere on its stack, otherwise for the innermost frame that has a
 * place; samples with none count for `other`.
 */
function splitOf(profile: CpuProfile): Record<Place, number> {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n.id);
  const placeOfNode = new Map<number, Place | 'idle'>();
  const resolve = (id: number): Place | 'idle' => {
    const known = placeOfNode.get(id);
    if (known) return known;
    const { functionName } = nodes.get(id)!.callFrame;
    let place: Place | 'idle';
    if (functionName === '(idle)') place = 'idle';
    else if (functionName === '(garbage collector)') place = 'gc';
    else {
      let innermost: Place | undefined;
      for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
        const frame = nodes.get(at)!.callFrame;
        const own = placeOf(moduleOf(frame.url, frame.lineNumber));
        if (own === 'credential') {
          innermost = own;
          break;
        }
        innermost ??= own;
      }
      place = innermost ?? 'other';
    }
    placeOfNode.set(id, place);
    return place;
  };
  const split = Object.fromEntries(PLACES.map((p) => [p, 0])) as Record<Place, number>;
  profile.samples.forEach((id, i) => {
    const place = resolve(id);
    if (place !== 'idle') split[place] += (profile.timeDeltas[i] ?? 0) / 1000;
  });
  return split;
}

/** A DevTools protocol session on a child started with --inspect, for its sampling profiler. */
async function profilerOf(logFile: string) {
  let address: string | undefined;
  for (let tries = 0; !address && tries < 50; tries++) {
    address = /Debugger listening on (ws:\/\/\S+)/.exec(readFileSync(logFile, 'utf8'))?.[1];
    if (!address) await new Promise((r) => setTimeout(r, 20));
  }
  if (!address) throw new Error(`no inspector address in ${logFile}`);
  const socket = new WebSocket(address);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`could not reach the inspector at ${address}`));
  });
  const pending = new Map<number, (message: { result?: unknown; error?: { message: string } }) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
    if (message.id !== undefined) pending.get(message.id)?.(message);
  };
  let nextId = 1;
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<any>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, (message) => {
        pending.delete(id);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result);
      });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    /** Runs `work` under the profiler, enabled only meanwhile; the main-thread time by place. */
    async profile<T>(work: () => Promise<T>): Promise<{ value: T; split: Record<Place, number> }> {
      await send('Profiler.enable');
      await send('Profiler.setSamplingInterval', { interval: 1000 });
      await send('Profiler.start');
      const value = await work();
      const { profile } = (await send('Profiler.stop')) as { profile: CpuProfile };
      await send('Profiler.disable');
      return { value, split: splitOf(profile) };
    },
    close: () => socket.close(),
  };
}

// ---- main -----------------------------------------------------------------------------------

interface Options {
  rounds: number;
  roundMs: number;
  warmupMs: number;
  splitMs: number;
  cpuProf: string | undefined;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string' },
      'round-ms': { type: 'string' },
      'warmup-ms': { type: 'string' },
      'split-ms': { type: 'string' },
      'cpu-prof': { type: 'string' },
    },
    strict: true,
  });
  return {
    rounds: parseNumber('rounds', values.rounds, 5, 1, 15),
    roundMs: parseNumber('round-ms', values['round-ms'], 2_000, 200, 60_000),
    warmupMs: parseNumber('warmup-ms', values['warmup-ms'], 1_000, 0, 30_000),
    splitMs: parseNumber('split-ms', values['split-ms'], 1_000, 0, 60_000),
    cpuProf: values['cpu-prof'] === undefined ? undefined : resolve(values['cpu-prof']),
  };
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions();
  } catch (error) {
    process.stderr.write(
      `bench:mcp: ${(error as Error).message}\nUsage: npm run bench:mcp -- [--rounds N] [--round-ms MS] [--warmup-ms MS] [--split-ms MS] [--cpu-prof DIR]\n`,
    );
    return 2;
  }
  const { rounds, roundMs, warmupMs, splitMs, cpuProf } = options;

  const loadBefore = loadavg()[0]!;
  const root = await mkdtemp(join(tmpdir(), 'statusdesk-bench-mcp-'));
  const dataDir = join(root, 'data');
  const cleanups: (() => Promise<unknown>)[] = [];
  const problems: string[] = [];
  let serviceLog: (() => string) | undefined;
  /** Runs the clean-ups newest first, each once, whatever the others do. */
  const stopAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        problems.push(`clean-up: ${(error as Error).message}`);
        line(`bench:mcp: clean-up: ${(error as Error).message}`);
      }
    }
  };
  try {
    const seeded = await seed(dataDir);
    line(
      `seeded in ${f0(seeded.ms)} ms: ${MONITOR_COUNT} monitors (${seeded.mix.tcp} TCP, ${seeded.mix.grpc} gRPC, ${seeded.mix.http} HTTP), ` +
        `a write key; plan ${seeded.plan}, so tools/list should name ${seeded.expectedTools} tools`,
    );

    // The caller's STATUSDESK_* settings never change what is measured; only these are set.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('STATUSDESK_') && name !== ROLE_ENV));
    const profiled = (args: string[], name: string) => [
      ...(cpuProf ? ['--cpu-prof', '--cpu-prof-dir', cpuProf, '--cpu-prof-name', `${name}.cpuprofile`] : []),
      ...(splitMs > 0 ? ['--inspect=127.0.0.1:0'] : []),
      ...args,
    ];
    if (cpuProf) mkdirSync(cpuProf, { recursive: true });
    const service = await spawnReady(
      'statusdesk serve',
      profiled([...SERVE, '--data-dir', dataDir, '--port', '0', '--dashboard-port', '0', '--host', '127.0.0.1'], 'service'),
      { ...env, STATUSDESK_CHECKS: 'off', STATUSDESK_RATE_LIMIT: '0' },
      join(root, 'service.log'),
      (ready) => Number(new URL(String(ready.apiUrl)).port),
    );
    cleanups.push(async () => {
      const problem = await service.stop();
      if (problem) problems.push(`service: ${problem}`);
    });
    serviceLog = service.logTail;
    if (splitMs > 0) readBundleMarkers();
    // The service's own host (its guard refuses others); the connection itself goes to 127.0.0.1.
    const serviceHost = new URL(String(service.ready.apiUrl)).host;
    line(`service ready on 127.0.0.1:${service.port} (pid ${service.child.pid}), Host ${serviceHost}`);

    // ---- checks of the service, and what the baseline will answer ----
    const expectService = { tools: seeded.expectedTools, monitors: MONITOR_COUNT };
    const reference = await call(service.port, serviceHost, 'legacy', 'tools/call', seeded.key);
    const referenceProblem = verdict(reference, 'tools/call', expectService);
    if (referenceProblem) throw new Error(`service, legacy tools/call list_monitors: ${referenceProblem}`);
    const listing = await call(service.port, serviceHost, 'legacy', 'tools/list', seeded.key);
    const listingProblem = verdict(listing, 'tools/list', expectService);
    if (listingProblem) throw new Error(`service, legacy tools/list: ${listingProblem}`);
    const withoutMeta = ({ _meta: _ignored, ...result }: Record<string, unknown>) => result;
    const answersFile = join(root, 'answers.json');
    const answers = { listMonitors: withoutMeta(reference.message!.result!), toolsList: withoutMeta(listing.message!.result!) };
    writeFileSync(answersFile, JSON.stringify(answers));

    const bare = await spawnReady(
      'bare MCP server',
      profiled([SELF], 'bare'),
      { ...env, [ROLE_ENV]: 'bare', [ANSWERS_FILE_ENV]: answersFile },
      join(root, 'bare.log'),
      (ready) => Number(ready.port),
    );
    cleanups.push(async () => {
      const problem = await bare.stop();
      if (problem) problems.push(`bare: ${problem}`);
    });
    const bareHost = `127.0.0.1:${bare.port}`;
    line(`bare server ready on ${bareHost} (pid ${bare.child.pid})`);

    const profilers = splitMs > 0 ? { service: await profilerOf(join(root, 'service.log')), bare: await profilerOf(join(root, 'bare.log')) } : undefined;
    if (profilers) cleanups.push(async () => Object.values(profilers).forEach((p) => p.close()));

    const targets: Record<Side, { child: Child; host: string; expect: { tools: number; monitors: number } }> = {
      service: { child: service, host: serviceHost, expect: expectService },
      bare: { child: bare, host: bareHost, expect: expectService },
    };

    // Every request kind, on both sides, answered as expected; the body sizes the runs compare to.
    const checked = new Map<string, Record<Side, { bytes: number; contentType: string }>>();
    for (const c of CASES) {
      const kind = `${c.era} ${c.method}`;
      if (checked.has(kind)) continue;
      const sizes = {} as Record<Side, { bytes: number; contentType: string }>;
      let ok = true;
      for (const side of ['service', 'bare'] as const) {
        const t = targets[side];
        const answer = await call(t.child.port, t.host, c.era, c.method, seeded.key);
        const problem = verdict(answer, c.method, t.expect);
        if (problem) {
          problems.push(`${side}, ${c.id} (${ERA_VERSION[c.era]}): ${problem}; the row is left out`);
          ok = false;
          break;
        }
        sizes[side] = { bytes: Buffer.byteLength(answer.body), contentType: answer.contentType.split(';')[0]! };
      }
      if (ok) {
        checked.set(kind, sizes);
        line(`${kind}: service ${sizes.service.bytes} bytes (${sizes.service.contentType}), bare ${sizes.bare.bytes} bytes (${sizes.bare.contentType})`);
      }
    }

    // ---- the runs ----
    const rows: Row[] = [];
    for (const c of CASES) {
      const sizes = checked.get(`${c.era} ${c.method}`);
      if (!sizes) continue;
      const label = `${c.id}, ${c.clients} client${c.clients === 1 ? '' : 's'}`;
      const requests = {
        service: mcpRequest(serviceHost, c.era, c.method, seeded.key),
        bare: mcpRequest(bareHost, c.era, c.method, seeded.key),
      };
      const round = (side: Side, durationMs: number) =>
        httpLoad({
          port: targets[side].child.port,
          connections: c.clients,
          durationMs,
          serverPid: targets[side].child.child.pid,
          request: () => requests[side],
        });
      const { samples, ratios, ratio } = await compare<Side, HttpLoadFigures>(['service', 'bare'], options, round, (r, last) =>
        line(
          `${label}: round ${r + 1}/${rounds}: service ${f0(last.service.rps)} rps (p99 ${f2(last.service.p99)} ms) | ` +
            `bare ${f0(last.bare.rps)} rps (p99 ${f2(last.bare.p99)} ms)`,
        ),
      );
      for (const side of ['service', 'bare'] as const) {
        const expected = sizes[side].bytes;
        const low = Math.min(...samples[side].map((s) => s.minBytes));
        const high = Math.max(...samples[side].map((s) => s.maxBytes));
        if (low < expected * 0.95 || high > expected * 1.05) problems.push(`${label}, ${side}: bodies of ${low} to ${high} bytes, expected about ${expected}`);
        const errors = samples[side].reduce((n, s) => n + s.errors, 0);
        if (errors > 0) problems.push(`${label}, ${side}: ${errors} failed requests; first: ${samples[side].find((s) => s.firstError)!.firstError}`);
      }
      // Where each side's CPU goes, from one more round of each under the sampling profiler (it slows
      // what it watches, so the measured rounds run without it).
      let split: Row['split'];
      if (profilers) {
        split = {} as NonNullable<Row['split']>;
        for (const side of ['service', 'bare'] as const) {
          const { value, split: ms } = await profilers[side].profile(() => round(side, splitMs));
          split[side] = { ms: mapValues(ms, (v) => v / value.requests), cpuMs: value.serverUsPerRequest / 1000 };
        }
      }
      rows.push({
        case: c,
        bytes: { service: sizes.service.bytes, bare: sizes.bare.bytes },
        figures: { service: summarise(samples.service), bare: summarise(samples.bare) },
        ratios,
        ratio,
        split,
      });
    }
    const loadAfter = loadavg()[0]!;

    // ---- report ----
    const summary = [['request', 'era', 'clients', 'service rps', 'p50 ms', 'p99 ms', 'bare rps', 'p50 ms', 'p99 ms', 'ratio', `aim ${AIM_RATIO}`]];
    const diagnostics = [
      [
        'request',
        'era',
        'clients',
        'rps min-max service',
        'bare',
        'body bytes svc/bare',
        'server CPU svc/bare',
        'server us/req svc/bare',
        'client busy svc/bare',
      ],
    ];
    for (const row of rows) {
      const { service: s, bare: b } = row.figures;
      const request = row.case.method === 'tools/call' ? 'tools/call list_monitors' : 'tools/list';
      const era = ERA_VERSION[row.case.era];
      summary.push([
        request,
        era,
        String(row.case.clients),
        f0(s.rps),
        f2(s.p50),
        f2(s.p99),
        f0(b.rps),
        f2(b.p50),
        f2(b.p99),
        f2(row.ratio),
        row.ratio >= AIM_RATIO ? 'met' : 'MISSED',
      ]);
      diagnostics.push([
        request,
        era,
        String(row.case.clients),
        `${f0(s.rpsMin)}-${f0(s.rpsMax)}`,
        `${f0(b.rpsMin)}-${f0(b.rpsMax)}`,
        `${row.bytes.service}/${row.bytes.bare}`,
        `${pct(s.serverCpu)}/${pct(b.serverCpu)}`,
        `${f0(s.serverUsPerRequest)}/${f0(b.serverUsPerRequest)}`,
        `${pct(s.clientBusy)}/${pct(b.clientBusy)}`,
      ]);
    }
    const splits = [['request', 'era', 'clients', 'side', ...PLACES.map((p) => PLACE_HEADINGS[p]), 'total', 'CPU (/proc)']];
    for (const row of rows) {
      for (const side of row.split ? (['service', 'bare'] as const) : []) {
        const { ms, cpuMs } = row.split![side];
        const request = row.case.method === 'tools/call' ? 'tools/call list_monitors' : 'tools/list';
        splits.push([
          request,
          ERA_VERSION[row.case.era],
          String(row.case.clients),
          side,
          ...PLACES.map((p) => f2(ms[p])),
          f2(PLACES.reduce((sum, p) => sum + ms[p], 0)),
          f2(cpuMs),
        ]);
      }
    }
    const ratioMet = rows.length === CASES.length && rows.every((r) => r.ratio >= AIM_RATIO);
    const worst = rows.reduce<Row | undefined>((w, r) => (!w || r.ratio < w.ratio ? r : w), undefined);
    const out = [
      '',
      `MCP: POST ${MCP_PATH}, ${MONITOR_COUNT} monitors (${seeded.mix.tcp} TCP, ${seeded.mix.grpc} gRPC, ${seeded.mix.http} HTTP), a write key on the ${seeded.plan} plan ` +
        `(${seeded.expectedTools} tools); Node ${process.version}, ${platform()} ${arch()}, ${CPUS} CPUs; 1-minute load average ${f1(loadBefore)} before, ${f1(loadAfter)} after`,
      `Service: statusdesk serve (dist/ bundle) as its own process, STATUSDESK_CHECKS=off, STATUSDESK_RATE_LIMIT=0, log level info to a file.`,
      "Bare: node:http + toNodeHandler(createMcpHandler(factory, { legacy: 'stateless' })) in its own process, a fresh McpServer per request with one tool",
      "   (list_monitors, answering the service's own result as a constant; its tools/list answers the service's own listing, so both sides send the same bytes).",
      `Load: httpLoad (bench/support/load.ts), HTTP/1.1 on node:net, keep-alive, one request in flight per connection, 127.0.0.1; per row ${warmupMs} ms warm-up per side,`,
      `   then ${rounds} round${rounds === 1 ? '' : 's'} of ${roundMs} ms per side, service and bare alternating; medians of the rounds; ratio = median of per-round service/bare rps.`,
      `Requests: ${LEGACY_VERSION}: stateless legacy (no initialize, MCP-Protocol-Version header, Accept: application/json, text/event-stream);`,
      `   ${MODERN_VERSION}: the _meta envelope (protocolVersion, clientCapabilities, clientInfo) with Mcp-Method and Mcp-Name headers.`,
      '',
      table(summary),
      '',
      'Diagnostics (medians of the rounds): server CPU = CPU of the server process as a share of one CPU (from /proc); us/req = its CPU time per request;',
      'client busy = event-loop use of this bench thread (near 100%: the client sets the pace).',
      table(diagnostics),
      '',
      ...(profilers
        ? [
            `CPU per request by place (ms of main-thread time, sampled every 1 ms during one more round of ${splitMs} ms per side): HTTP front = node:http, Hono`,
            "   (or the bare side's @modelcontextprotocol/node), request id, guard, access log; credential = the caller's admission and rate limit up to",
            '   its first await (its SQL counts below); MCP SDK = its transport, web streams, validation and the JSON of the answer; tools = server/mcp (the',
            "   bare side's tool); domain+SQLite = the domain services, Kysely and better-sqlite3. zod and Node.js count where they were called from;",
            "   the service's 2026-07-28 answers are made by Hono's global Response, so their JSON counts under its front. Samples are wall time on",
            "   the main thread: on a busy machine, time the thread waited for a CPU inflates `other`; CPU (/proc) is the process's CPU per request.",
            table(splits, 4),
            '',
          ]
        : []),
      worst
        ? `Worst ratio: ${f2(worst.ratio)} (${worst.case.id}, ${worst.case.clients} client${worst.case.clients === 1 ? '' : 's'}); aim >= ${AIM_RATIO} in every row: ${ratioMet ? 'met' : 'MISSED'}`
        : 'No row was measured.',
    ];
    if (cpuProf) out.push('', `CPU profiles (service.cpuprofile, bare.cpuprofile): written to ${cpuProf} when the processes stop.`);
    process.stdout.write(`${out.join('\n')}\n`);

    await stopAll();
    if (problems.length > 0) process.stdout.write(`\nProblems:\n${problems.map((x) => `  ${x}`).join('\n')}\n`);
    const figure = (f: SideFigures) => ({
      rps: round2(f.rps),
      p50Ms: round2(f.p50),
      p99Ms: round2(f.p99),
      maxMs: round2(f.max),
      serverCpu: round2(f.serverCpu),
      serverUsPerRequest: round2(f.serverUsPerRequest),
      clientBusy: round2(f.clientBusy),
    });
    const result = {
      bench: 'mcp',
      node: process.version,
      cpus: CPUS,
      monitors: MONITOR_COUNT,
      tools: seeded.expectedTools,
      rounds,
      roundMs,
      warmupMs,
      aimRatio: AIM_RATIO,
      ratioMet,
      rows: rows.map((r) => ({
        request: r.case.method === 'tools/call' ? 'tools/call list_monitors' : 'tools/list',
        protocolVersion: ERA_VERSION[r.case.era],
        clients: r.case.clients,
        bodyBytes: r.bytes,
        service: figure(r.figures.service),
        bare: figure(r.figures.bare),
        ratio: round2(r.ratio),
        ratios: r.ratios.map(round2),
        ratioMet: r.ratio >= AIM_RATIO,
        cpuMsPerRequest: r.split && mapValues(r.split, (side) => ({ ...mapValues(side.ms, round2), cpu: round2(side.cpuMs) })),
      })),
      loadAverage: { before: round2(loadBefore), after: round2(loadAfter) },
      problems,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return problems.length > 0 ? 1 : 0;
  } catch (error) {
    // The service's own words (its log goes to a file in the folder about to be removed).
    const tail = serviceLog?.();
    if (tail) line(`--- service log (tail) ---\n${tail}\n---`);
    throw error;
  } finally {
    await stopAll();
    await rm(root, { recursive: true, force: true });
  }
}

if (process.env[ROLE_ENV] === 'bare') {
  await bareServer();
} else {
  try {
    process.exitCode = await main();
  } catch (error) {
    process.stderr.write(`bench:mcp: ${String((error as Error)?.stack ?? error)}\n`);
    process.exitCode = 1;
  }
}
