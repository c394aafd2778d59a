import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, afterEach, before } from 'node:test';
import { type Client, Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createClient as createStatusdeskClient, type StatusdeskClient } from '../../client/index.ts';
import { createConnectTransport } from '@connectrpc/connect-node';
import SQLite from 'better-sqlite3';
import pino from 'pino';
import { BadRequestSchema } from '../../proto/gen/google/rpc/error_details_pb.js';
import { MonitorService } from '../../proto/gen/monitor/v1/monitor_pb.js';
import { type ServiceConfig, serviceConfig } from '../../server/config.ts';
import { DATABASE_FILE } from '../../server/db/open.ts';
import type { Scope } from '../../server/domain/actor.ts';
import type { PlanName } from '../../server/domain/plans.ts';
import { AppError, type ErrorCode } from '../../server/errors.ts';
import { type RunningService, startService } from '../../server/main.ts';
import { databaseEnv, databaseOf, withLocalOwner } from './database.ts';

export const CLI = new URL('../../bin/statusdesk.js', import.meta.url).pathname;

/**
 * The records of running services (server/service-record.ts) that this test process and the
 * commands it runs write and read: a folder of its own, never the user's.
 */
const stateDir = mkdtempSync(join(tmpdir(), 'statusdesk-state-'));
process.env.STATUSDESK_STATE_DIR = stateDir;
process.once('exit', () => rmSync(stateDir, { recursive: true, force: true }));

export async function tempDir(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'statusdesk-test-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export interface TestService extends RunningService {
  dataDir: string;
  /** Issues a key through the owner's local tools, as `statusdesk keys create` does. */
  createKey(scope: Scope, workspace?: string): Promise<{ id: string; secret: string }>;
  /** GET/POST against the API port with an optional key. */
  api(path: string, init?: RequestInit & { key?: string }): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * The real service, in this process, on free loopback ports with a fresh data folder (and its
 * PostgreSQL database under STATUSDESK_TEST_DATABASE=postgres: support/database.ts). `overrides`
 * set what no environment variable can (a stand-in network for metadata documents).
 */
export async function startTestService(env: NodeJS.ProcessEnv = {}, dataDir?: string, overrides: Partial<ServiceConfig> = {}): Promise<TestService> {
  const dir = dataDir ? undefined : await tempDir();
  const path = dataDir ?? dir!.path;
  // Monitors in tests point at names like db.internal: nothing is checked unless a test asks.
  const config = serviceConfig({ dataDir: path, port: '0', dashboardPort: '0' }, { STATUSDESK_CHECKS: 'off', ...(await databaseEnv(path)), ...env });
  const service = await startService({ ...config, ...overrides }, pino({ level: 'silent' }));
  // Tests see the service as it is once its engine has read the monitors (it starts as the ports answer).
  await service.checking;
  return {
    ...service,
    dataDir: path,
    async createKey(scope, workspace = 'personal') {
      return withLocalOwner(path, async (services, owner) => {
        const ws = await services.workspaces.getBySlug(owner, workspace);
        const { key, secret } = await services.keys.create(owner, { workspaceId: Number(ws.id), name: `${scope} key`, scope });
        return { id: key.id, secret };
      });
    },
    api(p, init = {}) {
      const { key, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key) headers.set('x-service-key', key);
      return fetch(`${service.apiUrl}${p}`, { ...rest, headers });
    },
    async stop() {
      await service.close();
      await dir?.remove();
    },
  };
}

/** A Connect interceptor that sets each of `headers` on every call. */
export function withHeaders(headers: Record<string, string>): Interceptor {
  return (next) => (req) => {
    for (const [name, value] of Object.entries(headers)) req.header.set(name, value);
    return next(req);
  };
}

/**
 * A workspace of its own for one test (tests run in any order), owned by the machine's owner, on
 * `plan`: its id and its slug (also its name).
 */
export async function newWorkspace(service: TestService, prefix: string, plan: PlanName = 'scale'): Promise<{ id: string; slug: string }> {
  const slug = `${prefix}-${randomBytes(4).toString('hex')}`;
  const workspace = await withLocalOwner(service.dataDir, (services, owner) => services.workspaces.create(owner, { name: slug, slug, plan }));
  return { id: workspace.id, slug };
}

/** The MonitorService of the API port (Connect over HTTP/1.1), called with the API key `key`. */
export function monitorRpc(service: TestService, key: string): Client<typeof MonitorService> {
  return createClient(
    MonitorService,
    createConnectTransport({ baseUrl: `${service.apiUrl}/rpc`, httpVersion: '1.1', interceptors: [withHeaders({ 'x-service-key': key })] }),
  );
}

/**
 * Signs in to the dashboard with the service's one-time link and gives the headers its page sends:
 * the session cookie, the page token handed over in the answer's body, and the dashboard's origin.
 */
export async function dashboardSession(service: TestService): Promise<Record<string, string>> {
  const signIn = await fetch(service.signInUrl, { redirect: 'manual' });
  assert.equal(signIn.status, 200, 'the sign-in link was already used: sign in once per service');
  const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
  return { cookie, 'x-statusdesk-session': sessionTokenOf(await signIn.text()), origin: service.dashboardUrl };
}

/** The page token a sign-in answer hands its page, in a meta element. */
export function sessionTokenOf(html: string): string {
  const token = /<meta name="statusdesk-session" content="([A-Za-z0-9_-]+)">/.exec(html)?.[1];
  assert.ok(token, 'no session token in the sign-in answer');
  return token;
}

/**
 * Temporary folders and child processes that each test of a file makes, removed and killed after
 * that test (registers an afterEach; call once at the file's top level).
 */
export function perTestCleanup(): { folder(): Promise<string>; children: ChildProcess[] } {
  const folders: (() => Promise<void>)[] = [];
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    while (folders.length) await folders.pop()!();
  });
  return {
    children,
    async folder() {
      const dir = await tempDir();
      folders.push(dir.remove);
      return dir.path;
    },
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the `statusdesk` command as a user would, with the Node.js running the tests; on the
 * database of the data folder it names (support/database.ts).
 */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const dataDir = valueOf(args, '--data-dir') ?? (env.STATUSDESK_DATA_DIR || undefined);
  const database = dataDir ? await databaseEnv(dataDir) : {};
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...database, ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A failure the way a person should see it: exit 1, nothing on stdout, one line on stderr. */
/** A service and a write key of its `personal` workspace, with the client library and the command both pointed at it. */
export interface ClientCommandService {
  service: TestService;
  api: StatusdeskClient;
  /** The environment of the command: the key and the address, nothing inherited that could point elsewhere. */
  env: NodeJS.ProcessEnv;
  cli(args: string[]): Promise<CliResult>;
}

/** Starts a ClientCommandService before the file's tests and stops it after them; its fields are set once they start. */
export function useClientCommandService(): ClientCommandService {
  const shared = {} as ClientCommandService;
  before(async () => {
    const service = await startTestService();
    const rpc = `${service.apiUrl}/rpc`;
    const key = (await service.createKey('write')).secret;
    const env = { SERVICE_API_KEY: key, SERVICE_API_URL: rpc, STATUSDESK_DATA_DIR: undefined };
    Object.assign(shared, { service, api: createStatusdeskClient({ baseUrl: rpc, apiKey: key, env: {} }), env, cli: (args: string[]) => runCli(args, env) });
  });
  after(() => shared.service?.stop());
  return shared;
}

export function assertOneLineError(result: CliResult, pattern: RegExp): void {
  assert.equal(result.code, 1, `exit code (stdout: ${result.stdout}, stderr: ${result.stderr})`);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /^statusdesk: [^\n]+\n$/, `not one line: ${JSON.stringify(result.stderr)}`);
  assert.match(result.stderr, pattern);
}

/** The JSON a successful command printed: exit 0, nothing on stderr. */
export function jsonOf(result: CliResult): any {
  assert.equal(result.code, 0, `exit code (stderr: ${result.stderr})`);
  assert.equal(result.stderr, '');
  return JSON.parse(result.stdout);
}

/** The cells of a table the command printed, its columns apart by two spaces or more. */
export function tableOf(stdout: string): string[][] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {2,}/));
}

/** An instant `minutes` from now. */
export const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

/** An instant `days` from now, to the second, as the API writes instants. */
export const daysFromNow = (days: number) => new Date(Math.floor(Date.now() / 1000) * 1000 + days * 86_400_000).toISOString().replace('.000Z', 'Z');

export interface ServeProcess {
  child: ChildProcess;
  ready: { event: string; apiUrl: string; dashboardUrl: string; signInUrl: string };
  stderr(): string;
  /** Sends the signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The value of `flag` in `args` (`--flag value` or `--flag=value`). */
function valueOf(args: string[], flag: string): string | undefined {
  const at = args.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (at < 0) return undefined;
  return args[at] === flag ? args[at + 1] : args[at]!.slice(flag.length + 1);
}

/** `statusdesk serve` as a child process, on the database of its data folder (support/database.ts); resolves on its ready line. */
export async function spawnServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const dataDir = valueOf(args, '--data-dir') ?? env.STATUSDESK_DATA_DIR;
  const url = dataDir && !valueOf(args, '--database') && !env.STATUSDESK_DATABASE_URL ? await databaseOf(dataDir) : undefined;
  if (url) args = [...args, '--database', url];
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--dashboard-port', '0', ...args], {
    env: { ...process.env, STATUSDESK_CHECKS: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not become ready: ${stderr}`));
    }, 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before ready: ${stderr}`));
    });
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve({
        child,
        ready: JSON.parse(line),
        stderr: () => stderr,
        stop(signal = 'SIGTERM') {
          child.kill(signal);
          return exited;
        },
      });
    });
  });
}

/** The rows `sql` reads from a data folder's database, opened read-only beside the service. */
export function readRows<T = Record<string, unknown>>(dataDir: string, sql: string, ...params: unknown[]): T[] {
  const db = new SQLite(join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** A POST of `fields` as an HTML form sends them. */
export function formPost(fields: Record<string, string>): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() };
}

/** A response body as JSON, loosely typed: tests assert its shape field by field. */
export async function json(response: Response): Promise<any> {
  return response.json();
}

/** Checks the error envelope and the request id header; returns the parsed body. */
export async function assertErrorEnvelope(response: Response, status: number, code: string, message: RegExp, docsBase: string) {
  assert.equal(response.status, status);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const body = await json(response);
  assert.equal(body.code, code);
  assert.match(body.message, message);
  assert.equal(body.requestId, response.headers.get('x-request-id'));
  assert.equal(body.docs, `${docsBase}/docs/reference/errors#${code.toLowerCase()}`);
  const fields = ['code', 'docs', 'message', 'requestId'];
  assert.deepEqual(Object.keys(body).sort(), code === 'VALIDATION' && 'violations' in body ? [...fields, 'violations'].sort() : fields);
  return body;
}

/** Asserts an AppError of `code`; with `field`, one that names it (message prefix or violation). */
export async function rejectsWith(call: Promise<unknown>, code: ErrorCode, field?: string): Promise<AppError> {
  let caught: unknown;
  try {
    await call;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof AppError, `expected an AppError ${code}, got ${caught === undefined ? 'success' : String(caught)}`);
  assert.equal(caught.code, code, `expected ${code}, got ${caught.code}: ${caught.message}`);
  if (field !== undefined) {
    const named = caught.message.startsWith(`${field}:`) || caught.violations.some((v) => v.field === field);
    assert.ok(named, `expected ${field} to be named, got: ${caught.message} ${JSON.stringify(caught.violations)}`);
  }
  return caught;
}

/** The ConnectError a call fails with; fails the test if the call succeeds. */
export async function connectRejection(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  assert.fail('expected the call to fail, but it succeeded');
}

/** Asserts a ConnectError of `code`, with a message matching `message` when given. */
export async function assertCode(call: Promise<unknown>, code: Code, message?: RegExp): Promise<ConnectError> {
  const error = await connectRejection(call);
  assert.equal(error.code, code, `expected ${Code[code]}, got ${Code[error.code]}: ${error.rawMessage}`);
  if (message) assert.match(error.rawMessage, message);
  return error;
}

/** Asserts an InvalidArgument whose field violations name `field`, with a description matching `rule`. */
export async function assertViolation(call: Promise<unknown>, field: string, rule: RegExp = /./): Promise<ConnectError> {
  const error = await assertCode(call, Code.InvalidArgument);
  const violations = error.findDetails(BadRequestSchema).flatMap((d) => d.fieldViolations);
  const violation = violations.find((v) => v.field === field);
  assert.ok(violation, `no violation of ${field} in ${JSON.stringify(violations.map((v) => [v.field, v.description]))}`);
  assert.match(violation.description, rule);
  return error;
}
