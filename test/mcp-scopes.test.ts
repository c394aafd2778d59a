/**
 * Who may do what over MCP, and the HTTP edge of /mcp: the scope matrix (read and write keys),
 * the plan gate of the audit tools, credentials (missing, unknown, revoked, key and bearer),
 * methods, the Host/Origin guard, rate limits, and the remote documentation resources. Everything
 * runs against the real service on loopback ports.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { SdkHttpError } from '@modelcontextprotocol/client';
import { queryRows } from './support/database.ts';
import type { Actor } from '../server/domain/actor.ts';
import type { PlanName } from '../server/domain/plans.ts';
import type { Services } from '../server/services.ts';
import { startTestService, type TestService } from './support/harness.ts';
import {
  ALL_TOOLS,
  AUDIT_TOOLS,
  assertRpcError,
  connectMcp,
  ERAS,
  FORBIDDEN,
  INVALID_PARAMS,
  legacyRequest,
  MUTATION_TOOLS,
  ok,
  postMcp,
  rawHttp,
  READ_TOOLS,
} from './support/mcp-client.ts';
import { unfinishedPost } from './support/raw-http.ts';

const system: Actor = { type: 'system', surface: 'cli' };
const daysFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
const toolNames = async (apiUrl: string, era: (typeof ERAS)[number], secret: string) => {
  const connection = await connectMcp(apiUrl, era, secret, { listTools: false });
  try {
    return (await connection.client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await connection.close();
  }
};

/** Resolves with the error a promise rejects with; fails when it resolves. */
async function rejection(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  assert.fail('expected the call to fail, but it succeeded');
}

// ---- scopes ---------------------------------------------------------------------------------------

describe('scopes', { timeout: 120_000 }, () => {
  let svc: TestService;
  let services: Services;
  let ws: number;
  let write: { id: string; secret: string };
  let read: { id: string; secret: string };

  before(async () => {
    svc = await startTestService();
    services = svc.services;
    ws = Number((await services.workspaces.getBySlug(system, 'personal')).id);
    write = await svc.createKey('write');
    read = await svc.createKey('read');
  });
  after(() => svc.stop());

  for (const era of ERAS) {
    test(`${era}: a read key lists only the read tools; a write key all 23`, async () => {
      const readTools = await toolNames(svc.apiUrl, era, read.secret);
      assert.deepEqual(readTools, [...READ_TOOLS].sort());
      assert.equal(readTools.length, 18);
      for (const name of readTools) assert.doesNotMatch(name, /^(create|add|update|resolve)_/, `${name} is listed for a read key`);
      assert.deepEqual(await toolNames(svc.apiUrl, era, write.secret), ALL_TOOLS);
    });
  }

  test('every mutation called with a read key: JSON-RPC -32003 FORBIDDEN, and nothing changes', async () => {
    const page = await services.pages.create(system, ws, { slug: 'scoped', title: 'Scoped' });
    const component = await services.pages.addComponent(system, ws, page.id, { name: 'API' });
    const { report } = await services.reports.create(system, ws, { pageId: page.id, title: 'Guarded', message: 'm', notify: false });
    const snapshot = async () => ({
      report: await services.reports.get(system, ws, report.id),
      reports: (await services.reports.list(system, ws, { filter: 'all', pageId: page.id })).pagination.totalSize,
      windows: (await services.maintenances.list(system, ws, { pageId: page.id })).pagination.totalSize,
      audit: (await services.auditLog.list(system, ws, { perPage: 50 })).pagination.totalSize,
    });
    const before = await snapshot();

    for (const era of ERAS) {
      const reader = await connectMcp(svc.apiUrl, era, read.secret);
      try {
        const calls: Record<(typeof MUTATION_TOOLS)[number], Record<string, unknown>> = {
          create_status_report: { pageId: page.id, title: 'By reader', message: 'm', pageComponentIds: [component.id], notify: false },
          add_status_report_update: { statusReportId: report.id, status: 'identified', message: 'By reader', notify: false },
          update_status_report: { statusReportId: report.id, title: 'By reader' },
          resolve_status_report: { statusReportId: report.id, message: 'By reader', notify: true },
          create_maintenance: { pageId: page.id, title: 'By reader', from: daysFromNow(1), to: daysFromNow(2), notify: false },
        };
        for (const name of MUTATION_TOOLS) {
          const error = await assertRpcError(reader.call(name, calls[name]), FORBIDDEN, 'FORBIDDEN');
          assert.match(error.message, /read-only/, `${era} ${name}: ${error.message}`);
        }
        // Reads work, public content too.
        assert.ok(ok(await reader.call('list_status_pages')).statusPages.some((p: any) => p.id === page.id));
        ok(await reader.call('search_docs', { query: 'status page' }));
        assert.equal((await reader.client.listResources()).resources.length, 3);
      } finally {
        await reader.close();
      }
    }
    assert.deepEqual(await snapshot(), before);
    const entries = (await services.auditLog.list(system, ws, { perPage: 50 })).auditLogs;
    assert.ok(
      entries.every((e) => e.actorId !== read.id),
      'a refused call was audited',
    );
  });

  test('a write key on the same calls changes things (the matrix can tell the two apart)', async () => {
    const writer = await connectMcp(svc.apiUrl, '2025-11-25', write.secret);
    try {
      const page = await services.pages.create(system, ws, { slug: 'scoped-write', title: 'Scoped write' });
      const created = ok(await writer.call('create_status_report', { pageId: page.id, title: 'By writer', message: 'm', notify: false }));
      assert.equal(created.statusReport.title, 'By writer');
      assert.equal((await services.reports.get(system, ws, created.statusReport.id)).title, 'By writer');
    } finally {
      await writer.close();
    }
  });
});

// ---- plans ----------------------------------------------------------------------------------------

describe('plan gate', { timeout: 120_000 }, () => {
  let svc: TestService;
  let services: Services;
  const keys: Partial<Record<PlanName, { write: string; read: string; ws: number }>> = {};

  before(async () => {
    svc = await startTestService();
    services = svc.services;
    const actor = await services.keys.authenticate((await svc.createKey('read')).secret, 'rpc');
    const owner: Actor = { type: 'user', userId: actor!.userId!, surface: 'cli' };
    for (const plan of ['hobby', 'starter', 'pro', 'scale'] as const) {
      const workspace = await services.workspaces.create(owner, { name: plan, slug: `plan-${plan}`, plan });
      keys[plan] = {
        write: (await svc.createKey('write', `plan-${plan}`)).secret,
        read: (await svc.createKey('read', `plan-${plan}`)).secret,
        ws: Number(workspace.id),
      };
    }
  });
  after(() => svc.stop());

  for (const [plan, count] of [
    ['hobby', 21],
    ['starter', 21],
    ['pro', 23],
    ['scale', 23],
  ] as const) {
    test(`${plan}: ${count} tools for a write key, ${count - 5} for a read key, in every era`, async () => {
      for (const era of ERAS) {
        const names = await toolNames(svc.apiUrl, era, keys[plan]!.write);
        assert.equal(names.length, count, `${era}: ${names.join(', ')}`);
        const expected = count === 23 ? ALL_TOOLS : ALL_TOOLS.filter((n) => !(AUDIT_TOOLS as readonly string[]).includes(n));
        assert.deepEqual(names, expected);
        const readNames = await toolNames(svc.apiUrl, era, keys[plan]!.read);
        assert.equal(readNames.length, count - 5, `${era} read: ${readNames.join(', ')}`);
      }
    });
  }

  test('hobby and starter: the audit tools are unknown tools (-32602); entries are still written', async () => {
    for (const plan of ['hobby', 'starter'] as const) {
      for (const era of ERAS) {
        const writer = await connectMcp(svc.apiUrl, era, keys[plan]!.write);
        try {
          await assertRpcError(writer.call('list_audit_logs', {}), INVALID_PARAMS, undefined, /list_audit_logs/);
          await assertRpcError(writer.call('get_audit_log', { auditLogId: '1' }), INVALID_PARAMS, undefined, /get_audit_log/);
        } finally {
          await writer.close();
        }
      }
    }
    // A starter workspace of its own, since this test moves it to pro.
    const owner: Actor = { type: 'user', userId: (await services.keys.authenticate(keys.starter!.write, 'rpc'))!.userId!, surface: 'cli' };
    const moving = await services.workspaces.create(owner, { name: 'moving', slug: 'plan-starter-moving', plan: 'starter' });
    const movingKey = (await svc.createKey('write', 'plan-starter-moving')).secret;
    const writer = await connectMcp(svc.apiUrl, '2025-11-25', movingKey);
    try {
      const page = await services.pages.create(system, Number(moving.id), { slug: 'plan-starter-page', title: 'Starter' });
      const report = ok(await writer.call('create_status_report', { pageId: page.id, title: 'Starter report', message: 'm', notify: false })).statusReport;
      // Moved to pro, the workspace reads the entry written while on starter.
      await queryRows(svc.dataDir, "update workspaces set plan = 'pro' where id = ?", Number(moving.id));
      const upgraded = await connectMcp(svc.apiUrl, '2025-11-25', movingKey);
      try {
        const entries = ok(await upgraded.call('list_audit_logs', { entityType: 'status_report', entityId: report.id })).auditLogs;
        assert.equal(entries.length, 1);
        assert.equal(entries[0].actor_type, 'mcp');
      } finally {
        await upgraded.close();
      }
    } finally {
      await writer.close();
    }
  });

  test('hobby: publishing with notify true is a silent no-op and answers notified true', async () => {
    const writer = await connectMcp(svc.apiUrl, '2025-11-25', keys.hobby!.write);
    try {
      const page = await services.pages.create(system, keys.hobby!.ws, { slug: 'plan-hobby-page', title: 'Hobby' });
      const created = ok(await writer.call('create_status_report', { pageId: page.id, title: 'Hobby report', message: 'm', notify: true }));
      assert.equal(created.notified, true);
      const window = ok(
        await writer.call('create_maintenance', { pageId: page.id, title: 'Hobby window', from: daysFromNow(1), to: daysFromNow(2), notify: true }),
      );
      assert.equal(window.notified, true);
    } finally {
      await writer.close();
    }
  });
});

// ---- the HTTP edge --------------------------------------------------------------------------------

describe('HTTP edge of /mcp', { timeout: 120_000 }, () => {
  let svc: TestService;
  let services: Services;
  let key: { id: string; secret: string };
  let port: number;
  let resourceMetadata: string;

  before(async () => {
    svc = await startTestService();
    services = svc.services;
    key = await svc.createKey('write');
    port = Number(new URL(svc.apiUrl).port);
    resourceMetadata = `Bearer resource_metadata="${svc.apiUrl}/.well-known/oauth-protected-resource/mcp", scope="read write"`;
  });
  after(() => svc.stop());

  /** 401 with the metadata and scopes; a credential that was sent and refused also gets error="invalid_token" (RFC 6750 section 3.1). */
  async function assertUnauthorized(response: { status: number; headers: Headers; text: string }, sent = true) {
    assert.equal(response.status, 401, response.text);
    const challenge = response.headers.get('www-authenticate') ?? '';
    if (sent) assert.ok(challenge.startsWith(`${resourceMetadata}, error="invalid_token", error_description="`), challenge);
    else assert.equal(challenge, resourceMetadata);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const body = JSON.parse(response.text);
    assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
    assert.equal(body.error, 'invalid_token');
    assert.ok(typeof body.error_description === 'string' && body.error_description.length > 0);
  }

  test('a live key is served (the control for every refusal below)', async () => {
    const response = await postMcp(svc.apiUrl, legacyRequest('tools/list'), { 'x-service-key': key.secret });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.messages[0].result.tools.length, 23);
    assert.equal(response.headers.get('mcp-session-id'), null, 'stateless: no session id');
  });

  test('no credential, an unknown key, any bearer: 401 with the protected-resource metadata', async () => {
    await assertUnauthorized(await postMcp(svc.apiUrl, legacyRequest('tools/list')), false);
    await assertUnauthorized(
      await postMcp(svc.apiUrl, legacyRequest('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } })),
      false,
    );
    await assertUnauthorized(await postMcp(svc.apiUrl, legacyRequest('tools/list'), { 'x-service-key': 'svc_not_a_live_key_0000000000000000' }));
    await assertUnauthorized(await postMcp(svc.apiUrl, legacyRequest('tools/list'), { authorization: 'Bearer svc_oat_not_a_live_token' }));
    await assertUnauthorized(await postMcp(svc.apiUrl, legacyRequest('tools/list'), { authorization: `Bearer ${key.secret}` }));
    // The SDK client sees the 401 as such, in every era.
    for (const era of ERAS) {
      const error = await rejection(connectMcp(svc.apiUrl, era, {}));
      assert.ok(error instanceof Error, String(error));
      assert.ok(error instanceof SdkHttpError ? error.status === 401 : /401|unauthori[sz]ed/i.test(error.message + error.name), `${era}: ${String(error)}`);
    }
  });

  test('no credential or a dead one, with a body that never finishes: the 401 comes at once, from the headers alone', async () => {
    const body = JSON.stringify(legacyRequest('tools/list'));
    // A declared length, as the SDK clients send their bodies; only the first 10 bytes ever come.
    const mcpHeaders = {
      host: new URL(svc.apiUrl).host,
      'content-type': 'application/json',
      'content-length': String(body.length),
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    };
    const credentials: [Record<string, string>, boolean][] = [
      [{}, false],
      [{ 'x-service-key': 'svc_not_a_live_key_0000000000000000' }, true],
      [{ authorization: 'Bearer svc_oat_not_a_live_token' }, true],
    ];
    for (const [credential, sent] of credentials) {
      const post = unfinishedPost(port, '/mcp', { ...mcpHeaders, ...credential }, body.slice(0, 10), 5_000);
      try {
        await assertUnauthorized(await post.answer, sent);
      } finally {
        post.destroy();
      }
    }
    // The control: a live key's request is answered only once its body is complete.
    const post = unfinishedPost(port, '/mcp', { ...mcpHeaders, 'x-service-key': key.secret }, body.slice(0, 10), 10_000);
    try {
      const early = await Promise.race([post.answer.then(() => 'answered'), new Promise((resolve) => setTimeout(resolve, 300, 'waiting'))]);
      assert.equal(early, 'waiting', 'a live key was answered before its body was sent');
      post.finish(body.slice(10));
      const response = await post.answer;
      assert.equal(response.status, 200, response.text);
    } finally {
      post.destroy();
    }
  });

  test('key and bearer together: the key wins', async () => {
    const response = await postMcp(svc.apiUrl, legacyRequest('tools/list'), { 'x-service-key': key.secret, authorization: 'Bearer svc_oat_not_a_live_token' });
    assert.equal(response.status, 200, response.text);
    for (const era of ERAS) {
      const connection = await connectMcp(svc.apiUrl, era, { 'x-service-key': key.secret, authorization: 'Bearer svc_oat_not_a_live_token' });
      try {
        ok(await connection.call('list_status_pages'));
      } finally {
        await connection.close();
      }
    }
    // A dead key is not rescued by a bearer.
    await assertUnauthorized(await postMcp(svc.apiUrl, legacyRequest('tools/list'), { 'x-service-key': 'svc_dead', authorization: `Bearer ${key.secret}` }));
  });

  test('a revoked key gets 401 on its next call', async () => {
    const doomed = await svc.createKey('write');
    const actor = await services.keys.authenticate(doomed.secret, 'rpc');
    const owner: Actor = { type: 'user', userId: actor!.userId!, surface: 'cli' };
    for (const era of ERAS) {
      const fresh = era === ERAS[0] ? doomed : await svc.createKey('write');
      const connection = await connectMcp(svc.apiUrl, era, fresh.secret);
      try {
        ok(await connection.call('list_status_pages'));
        await services.keys.revoke(owner, fresh.id);
        const error = await rejection(connection.call('list_status_pages'));
        assert.ok(error instanceof SdkHttpError, `${era}: ${String(error)}`);
        assert.equal((error as SdkHttpError).status, 401);
      } finally {
        await connection.close();
      }
      await assertUnauthorized(await postMcp(svc.apiUrl, legacyRequest('tools/list'), { 'x-service-key': fresh.secret }));
    }
  });

  test('a foreign Host or Origin: 403 before MCP; the service’s own Host is served', async () => {
    const body = JSON.stringify(legacyRequest('tools/list'));
    const headers = (host: string, extra: Record<string, string> = {}) => ({
      host,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      'x-service-key': key.secret,
      ...extra,
    });
    const own = await rawHttp(port, { method: 'POST', path: '/mcp', headers: headers(`localhost:${port}`), body });
    assert.equal(own.status, 200, own.text);
    for (const host of ['evil.example', `evil.example:${port}`, `attacker.localhost.example:${port}`]) {
      const foreign = await rawHttp(port, { method: 'POST', path: '/mcp', headers: headers(host), body });
      assert.equal(foreign.status, 403, `${host}: ${foreign.status} ${foreign.text}`);
      assert.ok(!foreign.text.includes('"tools"'), 'MCP answered behind a foreign Host');
    }
    // Without a credential the guard still answers first.
    const anonymous = await rawHttp(port, { method: 'POST', path: '/mcp', headers: { host: 'evil.example', 'content-type': 'application/json' }, body });
    assert.equal(anonymous.status, 403);
    const origin = await rawHttp(port, { method: 'POST', path: '/mcp', headers: headers(`localhost:${port}`, { origin: 'http://evil.example' }), body });
    assert.equal(origin.status, 403, `foreign Origin: ${origin.status} ${origin.text}`);
  });
});

// ---- rate limits -----------------------------------------------------------------------------------

describe('rate limits (STATUSDESK_RATE_LIMIT=5)', { timeout: 120_000 }, () => {
  let svc: TestService;

  before(async () => {
    svc = await startTestService({ STATUSDESK_RATE_LIMIT: '5' });
  });
  after(() => svc.stop());

  async function assertLimited(response: { status: number; headers: Headers; text: string }, maxRetryAfter = 12) {
    assert.equal(response.status, 429, `${response.status} ${response.text}`);
    const retryAfter = response.headers.get('retry-after');
    assert.match(retryAfter ?? '', /^\d+$/, `Retry-After: ${retryAfter}`);
    // Five calls a minute refill one every 12 s.
    assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= maxRetryAfter, `Retry-After: ${retryAfter}`);
    const body = JSON.parse(response.text);
    assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
    assert.equal(body.error, 'rate_limited');
    assert.ok(!('jsonrpc' in body));
  }

  test('the sixth request in a minute is a plain 429 with Retry-After; other credentials are not touched', async () => {
    const limited = await svc.createKey('read');
    const other = await svc.createKey('read');
    for (let i = 1; i <= 5; i++) {
      const response = await postMcp(svc.apiUrl, legacyRequest('tools/list'), { 'x-service-key': limited.secret });
      assert.equal(response.status, 200, `request ${i}: ${response.status} ${response.text}`);
    }
    await assertLimited(await postMcp(svc.apiUrl, legacyRequest('tools/list'), { 'x-service-key': limited.secret }));
    await assertLimited(
      await postMcp(svc.apiUrl, legacyRequest('tools/call', { name: 'list_status_pages', arguments: {} }), { 'x-service-key': limited.secret }),
    );

    // The same bucket serves REST and RPC.
    const rest = await svc.api('/v1/whoami', { key: limited.secret });
    assert.equal(rest.status, 429);
    assert.match(rest.headers.get('retry-after') ?? '', /^\d+$/);
    assert.equal(((await rest.json()) as { code?: string }).code, 'LIMIT_EXCEEDED');
    const rpc = await svc.api('/rpc/monitor.v1.MonitorService/ListMonitors', {
      key: limited.secret,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(rpc.status, 429);
    assert.equal(((await rpc.json()) as { code?: string }).code, 'resource_exhausted');

    const fine = await postMcp(svc.apiUrl, legacyRequest('tools/list'), { 'x-service-key': other.secret });
    assert.equal(fine.status, 200);
  });

  test('a batch counts each of its messages', async () => {
    const batched = await svc.createKey('read');
    const batch = await postMcp(svc.apiUrl, [legacyRequest('tools/list'), legacyRequest('tools/list'), legacyRequest('tools/list')], {
      'x-service-key': batched.secret,
    });
    assert.equal(batch.status, 200, batch.text);
    assert.equal(batch.messages.length, 3);
    for (let i = 1; i <= 2; i++)
      assert.equal((await postMcp(svc.apiUrl, legacyRequest('tools/list'), { 'x-service-key': batched.secret })).status, 200, `request ${i} after the batch`);
    await assertLimited(await postMcp(svc.apiUrl, legacyRequest('tools/list'), { 'x-service-key': batched.secret }));

    // Seven messages are seven calls: more than a budget of five ever holds, so it is refused for good.
    const greedy = await svc.createKey('read');
    const seven = Array.from({ length: 7 }, () => legacyRequest('tools/call', { name: 'list_status_pages', arguments: {} }));
    const refused = await postMcp(svc.apiUrl, seven, { 'x-service-key': greedy.secret });
    await assertLimited(refused, 60);
    assert.match(refused.text, /batch of 7 calls/);
  });

  test('notifications, GET and DELETE count nothing; each request of an SDK session counts one', async () => {
    const quiet = await svc.createKey('read');
    for (let i = 0; i < 8; i++) {
      const response = await postMcp(svc.apiUrl, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'x-service-key': quiet.secret });
      assert.equal(response.status, 202, `notification ${i + 1}: ${response.status} ${response.text}`);
    }
    // A GET opens an event stream (closed again here), a DELETE is told there is no such session.
    for (const method of ['GET', 'DELETE', 'GET', 'DELETE', 'GET', 'DELETE']) {
      const response = await fetch(`${svc.apiUrl}/mcp`, {
        method,
        headers: { 'x-service-key': quiet.secret, accept: 'text/event-stream', 'mcp-session-id': 'none' },
        signal: AbortSignal.timeout(5000),
      });
      assert.equal(response.status, method === 'GET' ? 200 : 404, `${method}: ${response.status}`);
      await response.body?.cancel();
    }
    for (let i = 1; i <= 5; i++) {
      const response = await postMcp(svc.apiUrl, legacyRequest('tools/list'), { 'x-service-key': quiet.secret });
      assert.equal(response.status, 200, `request ${i} after notifications: ${response.status}`);
    }
    await assertLimited(await postMcp(svc.apiUrl, legacyRequest('tools/list'), { 'x-service-key': quiet.secret }));

    // The 2025 era: initialize is one call (the initialized notification none), each tool call one more.
    const legacy = await svc.createKey('read');
    const session = await connectMcp(svc.apiUrl, '2025-11-25', legacy.secret, { listTools: false });
    try {
      for (let i = 1; i <= 4; i++) ok(await session.call('list_status_pages'));
      const error = await rejection(session.call('list_status_pages'));
      assert.ok(error instanceof SdkHttpError, String(error));
      assert.equal((error as SdkHttpError).status, 429);
    } finally {
      await session.close();
    }

    // The modern era: server/discover is one call, each tool call one more.
    const sdk = await svc.createKey('read');
    const connection = await connectMcp(svc.apiUrl, '2026-07-28', sdk.secret, { listTools: false });
    try {
      for (let i = 1; i <= 4; i++) ok(await connection.call('list_status_pages'));
      const error = await rejection(connection.call('list_status_pages'));
      assert.ok(error instanceof SdkHttpError, String(error));
      assert.equal((error as SdkHttpError).status, 429);
    } finally {
      await connection.close();
    }
  });
});

// ---- remote documentation resources ------------------------------------------------------------------

describe('resources from a documentation site that fails', { timeout: 120_000 }, () => {
  let svc: TestService;
  let docs: Server;
  let docsUrl: string;
  let mode: 'error' | 'hang' | 'stall' | 'ok' = 'error';
  const seen: string[] = [];
  const hanging = new Set<ServerResponse>();

  before(async () => {
    docs = createServer((req: IncomingMessage, res: ServerResponse) => {
      seen.push(`${req.method} ${req.url}`);
      if (mode === 'hang') return void hanging.add(res);
      if (mode === 'stall') {
        // Headers and a first chunk at once, then nothing.
        res.writeHead(200, { 'content-type': 'text/markdown' });
        res.write('# Partial');
        return void hanging.add(res);
      }
      if (mode === 'error') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('broken');
      res.writeHead(200, { 'content-type': 'text/markdown' }).end(`# Remote ${req.url}\n\nServed by the documentation site.\n`);
    });
    docs.listen(0, '127.0.0.1');
    await once(docs, 'listening');
    docs.unref();
    docsUrl = `http://127.0.0.1:${(docs.address() as AddressInfo).port}`;
    svc = await startTestService({ STATUSDESK_DOCS_URL: docsUrl });
  });
  after(async () => {
    for (const res of hanging) res.destroy();
    await svc.stop();
    docs.closeAllConnections();
    docs.close();
  });

  test('resources/list names the documentation site; a read it answers 500 is a short pointer to the address', async () => {
    const key = await svc.createKey('read');
    const connection = await connectMcp(svc.apiUrl, '2025-11-25', key.secret);
    try {
      const { resources } = await connection.client.listResources();
      assert.deepEqual(Object.fromEntries(resources.map((r) => [r.name, r.uri])), {
        'openapi-specification': `${svc.apiUrl}/openapi.json`,
        'mcp-server-reference': `${docsUrl}/docs/reference/mcp-server`,
        'site-index': `${docsUrl}/llms.txt`,
      });
      for (const uri of [`${docsUrl}/docs/reference/mcp-server`, `${docsUrl}/llms.txt`]) {
        const read = await connection.client.readResource({ uri });
        const text = (read.contents[0] as { text?: string }).text ?? '';
        assert.ok(text.length > 0, 'the read resolved empty');
        assert.ok(text.includes(uri), `the pointer does not name ${uri}: ${text}`);
        assert.ok(text.length < 600, `not a short pointer (${text.length} characters)`);
      }
      assert.ok(seen.includes('GET /docs/reference/mcp-server') && seen.includes('GET /llms.txt'), `the site was not asked: ${seen.join(', ')}`);
      // The OpenAPI document is the service's own.
      const openapi = await connection.client.readResource({ uri: `${svc.apiUrl}/openapi.json` });
      assert.equal(JSON.parse((openapi.contents[0] as { text: string }).text).openapi, '3.1.0');

      mode = 'ok';
      const served = await connection.client.readResource({ uri: `${docsUrl}/llms.txt` }, { cacheMode: 'bypass' });
      assert.match((served.contents[0] as { text: string }).text, /Served by the documentation site/);
    } finally {
      mode = 'error';
      await connection.close();
    }
  });

  test('a site that never answers, or stops mid-body: the pointer after the 5 s timeout, not a hang', { timeout: 40_000 }, async () => {
    const key = await svc.createKey('read');
    const connection = await connectMcp(svc.apiUrl, '2025-11-25', key.secret);
    try {
      for (const [how, uri] of [
        ['hang', `${docsUrl}/docs/reference/mcp-server`],
        ['stall', `${docsUrl}/llms.txt`],
      ] as const) {
        mode = how;
        const started = Date.now();
        const read = await connection.client.readResource({ uri }, { cacheMode: 'bypass', timeout: 12_000 });
        const elapsed = Date.now() - started;
        const text = (read.contents[0] as { text?: string }).text ?? '';
        assert.ok(text.includes(uri), `${how}: ${text}`);
        assert.ok(elapsed >= 4_500 && elapsed < 9_000, `${how}: answered after ${elapsed} ms`);
      }
    } finally {
      mode = 'error';
      for (const res of hanging) res.destroy();
      await connection.close();
    }
  });
});
