/**
 * A seeded, bounded fuzzer over every surface of the API port and the dashboard's JSON API: valid
 * requests, mutated (bytes flipped, bodies cut short, fields repeated, wrong content types, odd
 * methods and headers, long and oddly encoded paths), and sent over HTTP/1.1 and h2c to loopback.
 *
 * The contract, for every request: an answer that is not a 5xx (nor a gRPC INTERNAL or UNKNOWN, nor a
 * JSON-RPC internal error), no stack trace in what comes back, no change to the database when the
 * request was refused, and, after every batch, a service that still answers a known-good request.
 *
 * The seed is fixed, so every run of the suite sends the same requests and a red run can be
 * repeated; FUZZ_SEED=<n> explores another seed (FUZZ_SEED=random picks one and prints it).
 * FUZZ_REPORT=<file> writes every violation there.
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import { after, before, describe, test, type TestContext } from 'node:test';
import { create, type DescMessage, type DescService, fromJson, toBinary } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { sql } from 'kysely';
import { MaintenanceService } from '../proto/gen/maintenance/v1/maintenance_pb.js';
import { MonitorService, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { NotificationService } from '../proto/gen/notification/v1/notification_pb.js';
import { StatusPageService } from '../proto/gen/status_page/v1/status_page_pb.js';
import { StatusReportService } from '../proto/gen/status_report/v1/status_report_pb.js';
import { dashboardSession, startTestService, type TestService } from './support/harness.ts';
import { ALL_TOOLS } from './support/mcp-client.ts';
import { seededRandom } from './support/seeded-random.ts';

/** The seed of the suite; other seeds were explored with FUZZ_SEED (1 to 22 and random ones) and found nothing more. */
const DEFAULT_SEED = 293202130;
const SEED = process.env.FUZZ_SEED === 'random' ? randomInt(2 ** 31) : process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) >>> 0 : DEFAULT_SEED;
console.log(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} repeats this run)`);

/** Requests between two known-good requests. */
const BATCH = 40;
const ANSWER_TIMEOUT_MS = 10_000;
const SERVICES: DescService[] = [MonitorService, StatusPageService, StatusReportService, MaintenanceService, NotificationService];
const PAGE_SLUG = 'fuzz-page';

// ---- randomness ---------------------------------------------------------------------------------

class Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }
  text(max: number): string {
    const alphabet = 'abcXYZ019 -_./:%?&=#@!$\'"<>{}[]\\\u00e9\u4e2d\u{1f600}\u0000\n\t';
    const chars = [...alphabet];
    let s = '';
    for (let i = this.int(max + 1); i > 0; i--) s += this.pick(chars);
    return s;
  }
}

/** Each surface draws from its own stream, so a surface's requests do not depend on which ran first. */
const rngFor = (surface: string) => new Rng(SEED ^ [...surface].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619), 2166136261));

const HUGE_NUMBERS = [
  '1e999',
  '-1e999',
  '123456789012345678901234567890',
  '9007199254740993',
  '-0',
  '1.5e-400',
  '0.1',
  '-1',
  '4294967296',
  '18446744073709551616',
];

/** A random JSON text, raw literals included (huge numbers, deep nesting) that JSON.stringify cannot write. */
function randomJson(r: Rng, depth = 0): string {
  const kind = r.int(depth > 3 ? 6 : 9);
  switch (kind) {
    case 0:
      return 'null';
    case 1:
      return r.pick(['true', 'false']);
    case 2:
      return r.pick(HUGE_NUMBERS);
    case 3:
      return String(r.int(1000) - 10);
    case 4:
    case 5:
      return JSON.stringify(r.chance(0.05) ? 'x'.repeat(70_000) : r.text(20));
    case 6:
      return `[${Array.from({ length: r.int(4) }, () => randomJson(r, depth + 1)).join(',')}]`;
    case 7:
      return `{${Array.from({ length: r.int(4) }, () => `${JSON.stringify(r.text(8))}:${randomJson(r, depth + 1)}`).join(',')}}`;
    default:
      return deepNesting(r);
  }
}

function deepNesting(r: Rng): string {
  const n = r.pick([50, 1_000, 10_000, 100_000]);
  return r.chance(0.5) ? `${'['.repeat(n)}${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
}

/** A JSON object with the given field names, each with a random value (mostly of the wrong type). */
function randomObject(r: Rng, fields: string[]): string {
  const chosen = fields.filter(() => r.chance(0.6));
  return `{${chosen.map((f) => `${JSON.stringify(f)}:${randomJson(r, 1)}`).join(',')}}`;
}

// ---- requests and their mutations ----------------------------------------------------------------

interface FuzzRequest {
  h2?: boolean;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  trailers: Record<string, string | string[] | undefined>;
  body: string;
}

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=zz',
  'multipart/form-data',
  'application/json; charset=utf-16',
  'application/json',
  'application/proto',
  'application/connect+json',
  'application/grpc',
  'application/grpc+json',
  'application/grpc-web+proto',
  'application/grpc-web-text',
  '*/*',
  'application/json;;;=',
  'x'.repeat(3_000),
];
const ODD_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', 'FUZZ', 'M-SEARCH', 'PURGE'];
const PERCENT_TRICKS = [
  '%2e%2e/',
  '%2F',
  '%00',
  '%zz',
  '%',
  '%c0%af',
  '%252e%252e%252f',
  '%F0%9F%98%80',
  ';x=1',
  '//',
  '/./',
  '/../',
  '%2e',
  '..%5c',
  '%ff%fe',
  '?&&==&',
];
const RANDOM_HEADERS: [string, (r: Rng) => string][] = [
  ['accept', (r) => r.pick(['*/*', 'text/html', 'application/json', 'application/json, text/event-stream', 'text/event-stream', 'image/png', ''])],
  ['accept-encoding', (r) => r.pick(['gzip', 'br, zstd', 'identity;q=0', 'x'.repeat(2_000), 'gzip;q=abc'])],
  ['content-encoding', (r) => r.pick(['gzip', 'br', 'deflate', 'identity', 'bogus', 'gzip, gzip'])],
  ['connect-protocol-version', (r) => r.pick(['1', '2', '', 'x'])],
  ['connect-timeout-ms', (r) => r.pick(['-1', '0', '99999999999999999999', 'abc', '1'])],
  ['connect-content-encoding', (r) => r.pick(['gzip', 'bogus'])],
  ['grpc-timeout', (r) => r.pick(['1n', '99999999H', 'x', '-5S', '0m'])],
  ['grpc-encoding', (r) => r.pick(['gzip', 'identity', 'snappy'])],
  ['x-service-key', (r) => r.pick(['', 'sk_live_x', 'x'.repeat(10_000), r.text(40).replace(/[^\x21-\x7e]/g, 'a')])],
  ['authorization', (r) => r.pick(['Bearer ', 'Bearer x', 'Basic Og==', `Bearer ${'a'.repeat(5_000)}`, 'Digest x'])],
  ['cookie', (r) => r.pick(['statusdesk_session=', 'statusdesk_session=x; statusdesk_session=y', 'a'.repeat(4_000), '=;=;='])],
  ['x-statusdesk-session', (r) => r.pick(['', 'x', 'a'.repeat(3_000)])],
  ['origin', (r) => r.pick(['null', 'http://evil.example', 'http://127.0.0.1:1', ''])],
  ['mcp-protocol-version', (r) => r.pick(['2025-11-25', '2025-06-18', '2026-07-28', '1999-01-01', 'x', ''])],
  ['mcp-session-id', (r) => r.pick(['x', 'a'.repeat(1_000), ''])],
  ['range', (r) => r.pick(['bytes=0-1', 'bytes=-1', 'bytes=99999999-', 'lines=1'])],
  ['if-none-match', (r) => r.pick(['*', '"x"', 'W/"', ''])],
  ['if-modified-since', (r) => r.pick(['yesterday', 'Thu, 01 Jan 1970 00:00:00 GMT', ''])],
  ['x-forwarded-for', (r) => r.pick(['1.2.3.4', 'x', '::1, 10.0.0.1'])],
  ['x-request-id', (r) => r.pick(['x', 'a'.repeat(5_000), '../../etc/passwd'])],
  ['accept-language', (r) => r.pick(['*', 'en;q=x', 'zz'])],
];

/** Percent-encodes what node:http refuses in a request target, leaving the rest as the fuzzer made it. */
const sendablePath = (path: string) => path.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c));

function mutate(r: Rng, req: FuzzRequest): FuzzRequest {
  const out: FuzzRequest = { ...req, headers: { ...req.headers } };
  for (let n = 1 + r.int(3); n > 0; n--) {
    const body = out.body ?? Buffer.alloc(0);
    switch (r.int(11)) {
      case 0: {
        const copy = Buffer.from(body.length ? body : r.bytes(8));
        for (let i = 1 + r.int(8); i > 0; i--) {
          const at = r.int(copy.length);
          copy[at] = copy[at]! ^ (1 << r.int(8));
        }
        out.body = copy;
        break;
      }
      case 1:
        out.body = body.subarray(0, r.int(body.length + 1));
        break;
      case 2: {
        // The first field again, with another value: {"a":1} becomes {"a":<random>,"a":1}.
        const text = body.toString('utf8');
        const at = text.indexOf('{"');
        if (at !== -1) {
          const end = text.indexOf('"', at + 2);
          out.body = Buffer.from(`${text.slice(0, at + 1)}${text.slice(at + 1, end + 1)}:${randomJson(r, 2)},${text.slice(at + 1)}`);
        } else {
          out.body = Buffer.concat([body, body]);
        }
        break;
      }
      case 3:
        out.headers['content-type'] = r.pick(CONTENT_TYPES);
        break;
      case 4:
        for (let i = 1 + r.int(4); i > 0; i--) {
          const [name, value] = r.pick(RANDOM_HEADERS);
          out.headers[name] = value(r);
        }
        break;
      case 5:
        out.method = r.pick(ODD_METHODS);
        break;
      case 6:
        out.path = r.chance(0.5)
          ? `${out.path}/${'a'.repeat(r.pick([300, 5_000, 20_000]))}`
          : `${out.path}${out.path.includes('?') ? '&' : '?'}q=${'b'.repeat(r.pick([300, 7_000]))}`;
        break;
      case 7: {
        const at = r.int(out.path.length + 1);
        out.path = `${out.path.slice(0, at)}${r.pick(PERCENT_TRICKS)}${out.path.slice(at)}`;
        break;
      }
      case 8:
        out.body = r.chance(0.1) ? Buffer.alloc(1_300_000, 0x61) : r.bytes(r.int(64));
        break;
      case 9:
        out.body = Buffer.from(randomJson(r));
        break;
      default:
        delete out.headers[r.pick(Object.keys(out.headers).length ? Object.keys(out.headers) : ['x'])];
    }
  }
  if (!out.path.startsWith('/')) out.path = `/${out.path}`;
  return out;
}

// ---- sending ---------------------------------------------------------------------------------------

/** Headers HTTP/2 forbids or node:http manages itself: the fuzzer leaves them alone. */
const MANAGED = new Set(['content-length', 'transfer-encoding', 'host', 'connection', 'keep-alive', 'upgrade', 'proxy-connection', 'expect']);

function cleanHeaders(headers: Record<string, string>, h2: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (MANAGED.has(lower)) continue;
    if (h2 && lower === 'te' && value !== 'trailers') continue;
    out[lower] = value.replace(/[^\t\x20-\x7e]/g, '?');
  }
  return out;
}

/** Whether an answer is the head of an event stream a GET opened, which ends only when the client leaves. */
const opensEventStream = (req: FuzzRequest, headers: Answer['headers']) =>
  req.method === 'GET' && String(headers['content-type'] ?? '').startsWith('text/event-stream');

class Sender {
  private readonly port: number;
  constructor(port: number) {
    this.port = port;
  }

  send(req: FuzzRequest): Promise<Answer> {
    return req.h2 ? this.sendH2(req) : this.sendH1(req);
  }

  private sendH1(req: FuzzRequest): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const headers = cleanHeaders(req.headers, false);
      // Node's client sends a GET body with no framing at all, which HTTP/1.1 reads as a second,
      // malformed request after the first; give it a length, as an HTTP client must.
      const body = req.method === 'HEAD' ? undefined : req.body;
      if (req.method === 'GET' && body !== undefined && body.length > 0 && !Object.keys(headers).some((h) => /^(content-length|transfer-encoding)$/i.test(h))) {
        headers['content-length'] = String(Buffer.byteLength(body));
      }
      const r = http.request(
        { host: '127.0.0.1', port: this.port, method: req.method, path: sendablePath(req.path), headers, agent: false, timeout: ANSWER_TIMEOUT_MS },
        (res) => {
          // A GET that opens an event stream (/mcp) is answered by its head: the stream stays open
          // until the client leaves, which it does here.
          if (opensEventStream(req, res.headers)) {
            resolve({ status: res.statusCode ?? 0, headers: res.headers, trailers: {}, body: '' });
            r.destroy();
            return;
          }
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, trailers: res.trailers, body: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', reject);
        },
      );
      r.on('timeout', () => r.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)));
      r.on('error', reject);
      r.end(body);
    });
  }

  /**
   * One h2c connection per request: a stream whose body the server stops reading holds the
   * connection's flow-control window, and must not stall the requests after it.
   */
  private sendH2(req: FuzzRequest): Promise<Answer> {
    const session = http2.connect(`http://127.0.0.1:${this.port}`);
    session.on('error', () => {});
    return new Promise<Answer>((resolve, reject) => {
      let stream: http2.ClientHttp2Stream;
      try {
        stream = session.request({ ':method': req.method, ':path': sendablePath(req.path), ...cleanHeaders(req.headers, true) }, { endStream: false });
      } catch (error) {
        reject(error);
        return;
      }
      let status = 0;
      let headers: Answer['headers'] = {};
      let trailers: Answer['trailers'] = {};
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => stream.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS);
      stream.on('response', (h) => {
        status = Number(h[':status']);
        headers = h as Answer['headers'];
        if (opensEventStream(req, headers)) {
          clearTimeout(timer);
          resolve({ status, headers, trailers, body: '' });
          stream.close();
        }
      });
      stream.on('trailers', (t) => (trailers = t as Answer['trailers']));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      // The answer is whole at its end, whether or not the server read all of the body.
      stream.on('end', () => {
        clearTimeout(timer);
        resolve({ status, headers, trailers, body: Buffer.concat(chunks).toString('utf8') });
      });
      stream.on('close', () => {
        clearTimeout(timer);
        reject(new Error(`stream closed without an answer (code ${stream.rstCode})`));
      });
      stream.end(req.method === 'HEAD' || req.method === 'GET' ? undefined : req.body);
    }).finally(() => session.destroy());
  }

  close() {}
}

// ---- the contract -----------------------------------------------------------------------------------

/** A frame of a stack trace (`at fn (/path/file.ts:1:2)`, raw or JSON-escaped), or Node.js's internals: never in an answer. */
const STACK = /node:internal|\bat (?:[\w.<>$[\] ]+ )?\(?(?:file:\/\/|\/|[A-Za-z]:\\{1,2})[^\s()"]*:\d+:\d+\)?/;

interface Violation {
  surface: string;
  kind: string;
  request: string;
  answer: string;
}

function describeRequest(req: FuzzRequest): string {
  const body = req.body
    ? req.body.length > 300
      ? `${req.body.subarray(0, 300).toString('utf8')}... (${req.body.length} bytes)`
      : req.body.toString('utf8')
    : '';
  const path = req.path.length > 300 ? `${req.path.slice(0, 300)}... (${req.path.length} chars)` : req.path;
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, v.length > 120 ? `${v.slice(0, 120)}...(${v.length})` : v]));
  return `${req.h2 ? 'h2c' : 'HTTP/1.1'} ${req.method} ${path} ${JSON.stringify(headers)} ${JSON.stringify(body)}`;
}

const describeAnswer = (a: Answer) =>
  `${a.status} ${JSON.stringify({ 'content-type': a.headers['content-type'], 'grpc-status': a.trailers['grpc-status'] ?? a.headers['grpc-status'], 'grpc-message': a.trailers['grpc-message'] ?? a.headers['grpc-message'] })} ${JSON.stringify(a.body.slice(0, 400))}`;

/** The status of a gRPC answer: from the trailers, the headers (trailers-only), or a gRPC-Web trailer frame in the body. */
function grpcStatus(a: Answer): string | undefined {
  const value = a.trailers['grpc-status'] ?? a.headers['grpc-status'];
  if (value !== undefined) return String(value);
  return /grpc-status:\s*(\d+)/.exec(a.body)?.[1];
}

/** Whether the service refused the request (so it must not have changed anything). */
function refused(a: Answer): boolean {
  if (a.status >= 400) return true;
  const grpc = grpcStatus(a);
  if (grpc !== undefined && grpc !== '0') return true;
  return /"error"\s*:\s*\{|"isError"\s*:\s*true/.test(a.body);
}

/**
 * Answers the protocols themselves prescribe, though they read like server errors: Connect answers
 * a Content-Encoding it does not support with `unimplemented` (HTTP 501) and a deadline that has
 * passed (a timeout of 0) with `deadline_exceeded` (HTTP 504), and gRPC answers a message flagged as
 * compressed without a grpc-encoding with INTERNAL (as grpc-go and grpc-java do).
 */
function prescribed(a: Answer): boolean {
  if (a.status === 501 && /"code"\s*:\s*"unimplemented"/.test(a.body) && /compression|encoding/.test(a.body)) return true;
  if (a.status === 504 && /"code"\s*:\s*"deadline_exceeded"/.test(a.body) && /a timeout of 0/.test(a.body)) return true;
  const message = decodeURIComponent(String(a.trailers['grpc-message'] ?? a.headers['grpc-message'] ?? /grpc-message:\s*(.*)/.exec(a.body)?.[1] ?? ''));
  return grpcStatus(a) === '13' && /^received compressed envelope, but do not know how to decompress$/.test(message.trim());
}

/** What about an answer breaks the contract, if anything. */
function contractBreach(a: Answer): string | undefined {
  if (prescribed(a)) return undefined;
  if (a.status >= 500) return `HTTP ${a.status}`;
  const grpc = grpcStatus(a);
  if (grpc === '13' || grpc === '2') return `gRPC status ${grpc}`;
  if (/"code"\s*:\s*-32603/.test(a.body)) return 'JSON-RPC internal error (-32603)';
  const trace = STACK.exec(`${a.body}\n${String(a.trailers['grpc-message'] ?? a.headers['grpc-message'] ?? '')}`);
  if (trace) return `stack trace in the answer: ${JSON.stringify(trace[0].trim().slice(0, 160))}`;
  return undefined;
}

/**
 * Defects the fuzzer has found that are not fixed yet: each is reported as a todo with its reason,
 * and the contract still holds for everything else. Empty when the service keeps it everywhere.
 */
const KNOWN_DEFECTS: { reason: string; matches(v: Violation): boolean }[] = [];

// ---- the run -----------------------------------------------------------------------------------------

interface Fixture {
  service: TestService;
  port: number;
  dashboardPort: number;
  readKey: string;
  readKeyId: string;
  session: Record<string, string>;
  pageId: string;
  monitorId: string;
  clientId: string;
  tables: string[];
}

let fx: Fixture;
const outcomes = new Map<string, number>();
let sent = 0;

/** The rows of every table, read in one statement on the service's own database. */
async function counts(): Promise<Record<string, number>> {
  const columns = fx.tables.map((t) => sql`(select count(*) from ${sql.table(t)}) as ${sql.ref(t)}`);
  const { rows } = await sql<Record<string, number>>`select ${sql.join(columns)}`.execute(fx.service.db);
  return Object.fromEntries(Object.entries(rows[0]!).map(([t, n]) => [t, Number(n)]));
}

function changed(a: Record<string, number>, b: Record<string, number>): string | undefined {
  const diff = Object.keys(a)
    .filter((t) => a[t] !== b[t])
    .map((t) => `${t} ${a[t]} -> ${b[t]}`);
  return diff.length ? diff.join(', ') : undefined;
}

/** The answer to a request nobody fuzzed: the service is up and itself. */
async function knownGood(dashboard: boolean): Promise<string | undefined> {
  try {
    const whoami = await fetch(`${fx.service.apiUrl}/v1/whoami`, { headers: { 'x-service-key': fx.readKey }, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    await whoami.arrayBuffer();
    if (whoami.status !== 200) return `GET /v1/whoami answered ${whoami.status}`;
    if (dashboard) {
      const session = await fetch(`${fx.service.dashboardUrl}/api/session`, { headers: fx.session, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
      await session.arrayBuffer();
      if (session.status !== 200) return `GET /api/session answered ${session.status}`;
    }
    return undefined;
  } catch (error) {
    return `no answer to a known-good request: ${(error as Error).message}`;
  }
}

/**
 * Sends `total` requests from `generate` one at a time (so a change to the database belongs to one
 * request), checks each answer, and the known-good request after every batch; returns the violations.
 */
async function fuzz(
  surface: string,
  total: number,
  generate: (r: Rng) => FuzzRequest,
  options: { port?: number; dashboard?: boolean; skip?: (req: FuzzRequest) => boolean } = {},
): Promise<Violation[]> {
  const r = rngFor(surface);
  const sender = new Sender(options.port ?? fx.port);
  const violations: Violation[] = [];
  try {
    for (let i = 0; i < total; i++) {
      const req = generate(r);
      if (options.skip?.(req)) continue;
      const before = await counts();
      let answer: Answer | undefined;
      try {
        answer = await sender.send(req);
      } catch (error) {
        const message = (error as Error).message;
        // node:http refusing to send what the fuzzer made is not an answer of the service.
        if (
          /^(Invalid|Header name|Request path)|ERR_INVALID|ERR_UNESCAPED|ERR_HTTP2_INVALID/.test(message) ||
          (error as NodeJS.ErrnoException).code?.startsWith('ERR_INVALID')
        )
          continue;
        sent++;
        const outcome = /no answer within/.test(message) ? 'timeout' : 'reset';
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        if (outcome === 'timeout') violations.push({ surface, kind: 'no answer', request: describeRequest(req), answer: message });
      }
      if (answer) {
        sent++;
        const grpc = grpcStatus(answer);
        const key = `${answer.status}${grpc !== undefined && grpc !== '0' ? ` grpc-status ${grpc}` : ''}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        const breach = contractBreach(answer);
        if (breach) violations.push({ surface, kind: breach, request: describeRequest(req), answer: describeAnswer(answer) });
        if (refused(answer)) {
          const diff = changed(before, await counts());
          if (diff)
            violations.push({ surface, kind: `refused, yet the database changed (${diff})`, request: describeRequest(req), answer: describeAnswer(answer) });
        }
      }
      if ((i + 1) % BATCH === 0 || i === total - 1) {
        const down = await knownGood(options.dashboard ?? false);
        if (down) {
          violations.push({ surface, kind: 'crash', request: `after the batch ending with ${describeRequest(req)}`, answer: down });
          break;
        }
      }
    }
  } finally {
    sender.close();
  }
  return violations;
}

/** Fails on every violation not known yet; reports each known one as a todo with its reason. */
async function judge(t: TestContext, violations: Violation[]) {
  if (process.env.FUZZ_REPORT && violations.length) {
    appendFileSync(
      process.env.FUZZ_REPORT,
      violations.map((v) => `- **${v.surface}: ${v.kind}** (seed ${SEED})\n  - request: \`${v.request}\`\n  - answer: \`${v.answer}\`\n`).join(''),
    );
  }
  const unknown: Violation[] = [];
  const known = new Map<string, Violation[]>();
  for (const v of violations) {
    const defect = KNOWN_DEFECTS.find((d) => d.matches(v));
    if (defect) known.set(defect.reason, [...(known.get(defect.reason) ?? []), v]);
    else unknown.push(v);
  }
  for (const [reason, found] of known) {
    await t.test(`known defect: ${reason}`, { todo: reason }, () => {
      assert.fail(`${found.length} request(s), the first: ${found[0]!.request} -> ${found[0]!.answer}`);
    });
  }
  assert.equal(
    unknown.length,
    0,
    `seed ${SEED}: ${unknown.length} violation(s) of the contract:\n${unknown
      .slice(0, 10)
      .map((v) => `- ${v.kind}\n  ${v.request}\n  -> ${v.answer}`)
      .join('\n')}`,
  );
}

// ---- the surfaces ----------------------------------------------------------------------------------

function keyHeader(r: Rng): Record<string, string> {
  const roll = r.next();
  if (roll < 0.8) return { 'x-service-key': fx.readKey };
  if (roll < 0.9) return {};
  return { 'x-service-key': r.pick(['sk_nope', '', `${fx.readKey}x`, fx.readKey.slice(0, -1)]) };
}

/** Field values that make a request well-formed, where the method's input has those fields. */
function templateFor(input: DescMessage): Record<string, unknown> {
  const values: Record<string, unknown> = {
    id: fx.monitorId,
    monitorId: fx.monitorId,
    pageId: fx.pageId,
    statusPageId: fx.pageId,
    limit: 10,
    slug: 'fuzz-other',
    title: 'Fuzz',
    monitor: { name: 'fuzz', uri: '127.0.0.1:9', url: 'http://127.0.0.1:9/', periodicity: 'PERIODICITY_1M', regions: ['iad'] },
  };
  return Object.fromEntries(input.fields.filter((f) => f.jsonName in values).map((f) => [f.jsonName, values[f.jsonName]]));
}

function protoBytes(r: Rng, input: DescMessage): Buffer {
  if (r.chance(0.2)) return r.bytes(r.int(40));
  try {
    return Buffer.from(toBinary(input, fromJson(input, templateFor(input) as never, { ignoreUnknownFields: true })));
  } catch {
    return Buffer.from(toBinary(input, create(input)));
  }
}

function grpcFrame(r: Rng, message: Buffer): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = r.chance(0.9) ? 0 : r.pick([1, 0x80, 0xff]);
  prefix.writeUInt32BE(r.chance(0.85) ? message.length : r.pick([0, message.length + 10, 0xffffffff, 16_000_000]), 1);
  const frame = Buffer.concat([prefix, message]);
  return r.chance(0.1) ? Buffer.concat([frame, frame]) : frame;
}

function rpcRequest(r: Rng): FuzzRequest {
  const service = r.pick(SERVICES);
  const method = r.pick(service.methods);
  const path = `/rpc/${service.typeName}/${method.name}`;
  const fields = method.input.fields.map((f) => f.jsonName);
  let req: FuzzRequest;
  switch (r.int(4)) {
    case 0:
      req = {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'connect-protocol-version': '1', ...keyHeader(r) },
        body: Buffer.from(r.chance(0.5) ? JSON.stringify(templateFor(method.input)) : randomObject(r, fields)),
      };
      break;
    case 1:
      req = {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/proto', 'connect-protocol-version': '1', ...keyHeader(r) },
        body: protoBytes(r, method.input),
      };
      break;
    case 2:
      req = {
        h2: true,
        method: 'POST',
        path: r.chance(0.5) ? path : path.slice('/rpc'.length),
        headers: { 'content-type': r.pick(['application/grpc', 'application/grpc+proto']), te: 'trailers', ...keyHeader(r) },
        body: grpcFrame(r, protoBytes(r, method.input)),
      };
      break;
    default:
      req = {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1', ...keyHeader(r) },
        body: grpcFrame(r, protoBytes(r, method.input)),
      };
  }
  if (r.chance(0.1)) req.h2 = !req.h2;
  return r.chance(0.7) ? mutate(r, req) : req;
}

const MCP_METHODS = [
  'initialize',
  'notifications/initialized',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'server/discover',
  'notifications/cancelled',
  'sampling/createMessage',
  'x/unknown',
  '',
];

function mcpMessage(r: Rng): string {
  const method = r.pick(MCP_METHODS);
  let params: string;
  if (method === 'tools/call') {
    const name = r.chance(0.85) ? r.pick(ALL_TOOLS) : r.text(12);
    params = r.chance(0.5)
      ? JSON.stringify({
          name,
          arguments: { limit: r.pick([1, -1, 1e9, 0]), id: fx.monitorId, pageId: fx.pageId, title: 'x', status: 'investigating', message: 'm' },
        })
      : `{"name":${JSON.stringify(name)},"arguments":${randomJson(r, 1)}}`;
  } else if (method === 'initialize') {
    params = JSON.stringify({
      protocolVersion: r.pick(['2025-11-25', '2025-06-18', '2026-07-28', 'x']),
      capabilities: {},
      clientInfo: { name: 'fuzz', version: '1' },
    });
  } else if (method === 'resources/read') {
    params = JSON.stringify({ uri: r.pick(['statusdesk://docs/index', 'file:///etc/passwd', r.text(30), `statusdesk://status/${PAGE_SLUG}`]) });
  } else {
    params = r.chance(0.5) ? '{}' : randomJson(r, 1);
  }
  const id = r.pick(['1', '"a"', 'null', '1.5', '{}', '[]', ...HUGE_NUMBERS]);
  const parts = [
    `"jsonrpc":${r.chance(0.9) ? '"2.0"' : r.pick(['"1.0"', '2', 'null'])}`,
    `"method":${r.chance(0.9) ? JSON.stringify(method) : randomJson(r, 2)}`,
  ];
  if (!method.startsWith('notifications/') || r.chance(0.3)) parts.push(`"id":${id}`);
  if (r.chance(0.9)) parts.push(`"params":${params}`);
  return `{${parts.join(',')}}`;
}

function mcpRequest(r: Rng): FuzzRequest {
  let body: string;
  const roll = r.next();
  if (roll < 0.6) body = mcpMessage(r);
  else if (roll < 0.75) body = `[${Array.from({ length: r.int(5) }, () => mcpMessage(r)).join(',')}]`;
  else if (roll < 0.85) body = randomJson(r);
  else body = r.pick(['', 'null', '[]', '"x"', '1e999', deepNesting(r), '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}{']);
  const req: FuzzRequest = {
    h2: r.chance(0.2),
    method: r.chance(0.9) ? 'POST' : r.pick(['GET', 'DELETE']),
    path: '/mcp',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': r.pick(['2025-11-25', '2025-06-18', '2026-07-28']),
      ...keyHeader(r),
    },
    body: Buffer.from(body),
  };
  return r.chance(0.4) ? mutate(r, req) : req;
}

function whoamiRequest(r: Rng): FuzzRequest {
  const req: FuzzRequest = {
    h2: r.chance(0.3),
    method: 'GET',
    path: r.pick(['/v1/whoami', '/v1/whoami/', '/v1//whoami', '/V1/WHOAMI', '/v1/whoami?x=1']),
    headers: { accept: 'application/json', ...keyHeader(r) },
  };
  return r.chance(0.8) ? mutate(r, req) : req;
}

function statusRequest(r: Rng): FuzzRequest {
  const slug = r.chance(0.8) ? PAGE_SLUG : r.pick(['nope', '..', '%2e%2e', 'a'.repeat(300), 'UPPER', '', r.text(10)]);
  const query = () => `?s=${encodeURIComponent(r.pick(['1', '0', '-1', '99999999999999999999', r.text(8)]))}&token=${encodeURIComponent(r.text(30))}`;
  const form = () => {
    const email = r.pick(['fuzz@example.com', 'not-an-email', '', 'a@b', `${'x'.repeat(300)}@example.com`, 'a@example.com\r\nBcc: b@example.com', r.text(20)]);
    return r.chance(0.8)
      ? `email=${encodeURIComponent(email)}`
      : r.pick([`email=${encodeURIComponent(email)}&email=x@example.com`, 'email', '=', '&&', '%zz=%zz']);
  };
  const roll = r.int(7);
  const req: FuzzRequest =
    roll === 0
      ? { method: 'GET', path: `/status/${slug}`, headers: {} }
      : roll === 1
        ? { method: 'GET', path: `/status/${slug}/feed.atom`, headers: {} }
        : roll === 2
          ? { method: 'GET', path: `/status/${slug}/summary.json`, headers: {} }
          : roll === 3
            ? { method: 'POST', path: `/status/${slug}/subscribe`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Buffer.from(form()) }
            : roll === 4
              ? { method: r.pick(['GET', 'POST']), path: `/status/${slug}/${r.pick(['confirm', 'unsubscribe'])}${query()}`, headers: {} }
              : roll === 5
                ? {
                    method: 'POST',
                    path: `/status/${slug}/subscribe`,
                    headers: { 'content-type': 'multipart/form-data; boundary=zz' },
                    body: Buffer.from(`--zz\r\nContent-Disposition: form-data; name="email"\r\n\r\n${form()}\r\n--zz--\r\n`),
                  }
                : { method: 'GET', path: `/status/${slug}/${r.text(10)}`, headers: {} };
  req.h2 = r.chance(0.2);
  return r.chance(0.5) ? mutate(r, req) : req;
}

const DOC_PATHS = [
  '/docs/',
  '/docs/guides/getting-started',
  '/docs/reference/errors',
  '/docs/reference/rpc.md',
  '/docs/../package.json',
  '/docs/%2e%2e/%2e%2e/etc/passwd',
  '/docs/..%2f..%2fpackage.json',
  '/docs/guides',
  '/docs/reference/',
  '/llms.txt',
  '/openapi.json',
];

function docsRequest(r: Rng): FuzzRequest {
  const req: FuzzRequest = {
    h2: r.chance(0.2),
    method: 'GET',
    path: r.chance(0.85) ? r.pick(DOC_PATHS) : `/docs/${r.text(20)}`,
    headers: { accept: r.pick(['text/html', 'text/markdown', '*/*']) },
  };
  return r.chance(0.6) ? mutate(r, req) : req;
}

function oauthRequest(r: Rng): FuzzRequest {
  const form = (pairs: Record<string, string>) => Buffer.from(new URLSearchParams(Object.entries(pairs).filter(() => r.chance(0.85))).toString());
  const value = () => r.pick(['', 'x', fx.clientId, 'a'.repeat(3_000), r.text(20), 'http://127.0.0.1:9/cb', 'https://evil.example/cb', '1e999']);
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
  let req: FuzzRequest;
  switch (r.int(5)) {
    case 0:
      req = {
        method: 'POST',
        path: '/oauth/register',
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(
          r.chance(0.5)
            ? JSON.stringify({
                client_name: r.text(20),
                redirect_uris: [r.pick(['http://127.0.0.1:9/cb', 'http://localhost/cb', 'https://evil.example/cb', 'javascript:alert(1)', r.text(20)])],
                grant_types: ['authorization_code', 'refresh_token'],
                response_types: ['code'],
                token_endpoint_auth_method: r.pick(['none', 'client_secret_basic']),
              })
            : randomObject(r, [
                'client_name',
                'redirect_uris',
                'grant_types',
                'response_types',
                'token_endpoint_auth_method',
                'scope',
                'client_uri',
                'logo_uri',
                'software_id',
              ]),
        ),
      };
      break;
    case 1: {
      const params: Record<string, string> = {
        response_type: r.pick(['code', 'token', '']),
        client_id: r.chance(0.7) ? fx.clientId : value(),
        redirect_uri: r.chance(0.7) ? 'http://127.0.0.1:9/cb' : value(),
        code_challenge: r.chance(0.7) ? challenge : value(),
        code_challenge_method: r.pick(['S256', 'plain', '']),
        state: r.text(10),
        scope: r.pick(['read', 'write', 'read write', 'admin', '']),
        resource: r.pick([`${fx.service.apiUrl}/mcp`, 'http://evil.example/', '']),
      };
      const query = new URLSearchParams(Object.entries(params).filter(() => r.chance(0.9)));
      if (r.chance(0.2)) query.append('client_id', value());
      req = { method: 'GET', path: `/oauth/authorize?${query}`, headers: {} };
      break;
    }
    case 2:
      req = {
        method: 'POST',
        path: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({
          grant_type: r.pick(['authorization_code', 'refresh_token', 'client_credentials', 'password', '']),
          code: value(),
          redirect_uri: value(),
          code_verifier: value(),
          client_id: value(),
          refresh_token: value(),
          resource: value(),
        }),
      };
      break;
    case 3:
      req = {
        method: 'POST',
        path: '/oauth/revoke',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ token: value(), token_type_hint: r.pick(['access_token', 'refresh_token', 'x']), client_id: value() }),
      };
      break;
    default:
      req = {
        method: 'GET',
        path: r.pick([
          '/.well-known/oauth-authorization-server',
          '/.well-known/oauth-protected-resource',
          '/.well-known/oauth-protected-resource/mcp',
          '/.well-known/openid-configuration',
        ]),
        headers: {},
      };
  }
  req.h2 = r.chance(0.2);
  return r.chance(0.5) ? mutate(r, req) : req;
}

function dashboardRequest(r: Rng): FuzzRequest {
  const ws = r.chance(0.8) ? '1' : r.pick(['0', '-1', 'abc', '1e3', '99999999999999999999', '%00']);
  const id = r.pick(['1', '999999', 'abc', '', '-1', r.text(8)]);
  const json = (value: unknown) => Buffer.from(r.chance(0.6) ? JSON.stringify(value) : randomJson(r));
  const templates: (() => FuzzRequest)[] = [
    () => ({ method: 'GET', path: '/api/session', headers: {} }),
    () => ({ method: 'GET', path: `/api/workspaces/${ws}/keys`, headers: {} }),
    () => ({
      method: 'POST',
      path: `/api/workspaces/${ws}/keys`,
      headers: { 'content-type': 'application/json' },
      body: json({ name: r.text(20), scope: r.pick(['read', 'write', 'admin', '', 7]) }),
    }),
    () => ({ method: 'POST', path: `/api/keys/${id}/revoke`, headers: { 'content-type': 'application/json' }, body: json({}) }),
    () => ({ method: 'GET', path: `/api/workspaces/${ws}/connections`, headers: {} }),
    () => ({ method: 'GET', path: `/api/connections/${id}/activity`, headers: {} }),
    () => ({ method: 'POST', path: `/api/connections/${id}/revoke`, headers: { 'content-type': 'application/json' }, body: json({}) }),
    () => ({ method: 'GET', path: '/api/oauth/requests', headers: {} }),
    () => ({
      method: 'POST',
      path: `/api/oauth/requests/${id}/${r.pick(['approve', 'deny'])}`,
      headers: { 'content-type': 'application/json' },
      body: json({ scope: r.pick(['read', 'write', 'x']) }),
    }),
    () => ({ method: 'GET', path: `/oauth/consent/requests/${id}`, headers: {} }),
    () => ({ method: 'GET', path: r.pick(['/', '/keys', '/connected-apps', '/assets/x.js', '/assets/../index.html', '/signin?token=x']), headers: {} }),
  ];
  const req = r.pick(templates)();
  // The session rides along on most requests; some go without, or with half of it.
  const session = r.next();
  req.headers = { ...(session < 0.85 ? fx.session : session < 0.92 ? { cookie: fx.session.cookie! } : {}), ...req.headers };
  req.h2 = r.chance(0.15);
  return r.chance(0.5) ? mutate(r, req) : req;
}

// ---- the tests ------------------------------------------------------------------------------------------

/** A metadata network that reaches nothing: no client_id URL leaves the machine. */
const NO_NETWORK = {
  resolve: async () => {
    throw new Error('the fuzzer allows no network');
  },
  connect: () => {
    throw new Error('the fuzzer allows no network');
  },
};

describe(`fuzzing every surface (seed ${SEED})`, { timeout: 120_000 }, () => {
  before(async () => {
    const service = await startTestService({ STATUSDESK_RATE_LIMIT: '0' }, undefined, { metadataNetwork: NO_NETWORK });
    const write = await service.createKey('write');
    const read = await service.createKey('read');
    const transport = createConnectTransport({
      baseUrl: `${service.apiUrl}/rpc`,
      httpVersion: '1.1',
      interceptors: [(next) => (req) => (req.header.set('x-service-key', write.secret), next(req))],
    });
    const page = (await createClient(StatusPageService, transport).createStatusPage({ slug: PAGE_SLUG, title: 'Fuzz page', description: 'Fuzzed' }))
      .statusPage!;
    const monitor = (
      await createClient(MonitorService, transport).createTCPMonitor({
        monitor: { name: 'fuzz db', uri: '127.0.0.1:9', periodicity: Periodicity.PERIODICITY_1M, regions: ['iad'] },
      })
    ).monitor!;
    const registered = await fetch(`${service.apiUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Fuzz editor',
        redirect_uris: ['http://127.0.0.1:9/cb'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    assert.equal(registered.status, 201, await registered.clone().text());
    const tables = (await service.db.introspection.getTables({ withInternalKyselyTables: true })).map((t) => t.name);
    fx = {
      service,
      port: Number(new URL(service.apiUrl).port),
      dashboardPort: Number(new URL(service.dashboardUrl).port),
      readKey: read.secret,
      readKeyId: read.id,
      session: await dashboardSession(service),
      pageId: page.id,
      monitorId: monitor.id,
      clientId: ((await registered.json()) as { client_id: string }).client_id,
      tables,
    };
  });

  after(async () => {
    const lines = [...outcomes.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k}: ${n}`);
    console.log(`fuzz seed ${SEED}: ${sent} requests answered or reset; by outcome: ${lines.join(', ')}`);
    await fx?.service.stop();
  });

  /** Surfaces fuzzed with a read key only: no request of theirs may change anything. */
  const readOnly = async (t: TestContext, surface: string, total: number, generate: (r: Rng) => FuzzRequest) => {
    const before = await counts();
    const violations = await fuzz(surface, total, generate);
    const diff = changed(before, await counts());
    if (diff) violations.push({ surface, kind: `the database changed under read-only fuzzing (${diff})`, request: '(the whole surface)', answer: '' });
    await judge(t, violations);
  };

  test('/rpc: Connect JSON and binary, gRPC over h2c (also at the standard paths), gRPC-Web', async (t) => readOnly(t, 'rpc', 1_000, rpcRequest));
  test('/mcp: JSON-RPC messages and batches, wrong types, huge numbers, deep nesting', async (t) => readOnly(t, 'mcp', 700, mcpRequest));
  test('/v1/whoami', async (t) => readOnly(t, 'whoami', 150, whoamiRequest));
  test('/docs/*, /llms.txt and /openapi.json', async (t) => readOnly(t, 'docs', 250, docsRequest));
  test('/status/{slug}: the page, feed.atom, summary.json, subscription forms and links', async (t) => judge(t, await fuzz('status', 450, statusRequest)));
  test('/oauth/*: register, authorize, token, revoke and the metadata documents', async (t) => judge(t, await fuzz('oauth', 500, oauthRequest)));
  test('the dashboard API, signed in', async (t) =>
    judge(
      t,
      await fuzz('dashboard', 450, dashboardRequest, {
        port: fx.dashboardPort,
        dashboard: true,
        // Signing out, or revoking the key the known-good request uses, would end the run early.
        skip: (req) => /signout/i.test(req.path) || req.path.includes(`/api/keys/${fx.readKeyId}/`),
      }),
    ));
});
