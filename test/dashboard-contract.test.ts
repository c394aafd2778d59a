// The dashboard's JSON API answers what contract/dashboard-api.ts declares, the types the UI reads
// its answers as: every JSON call of contract/dashboard.ts, made on a real service with data in
// each part of its answer, parsed with its strict schema (a field missing, of another type, or
// one the contract does not name fails, with its path). The live feed's events too.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { z } from 'zod';
import { Code, createClient, Periodicity, statusReportV1, type StatusdeskClient } from '../client/index.ts';
import { DASHBOARD_ANSWERS, DASHBOARD_BODIES, type DashboardBody, type JsonEndpoint, LIVE_EVENT } from '../contract/dashboard-api.ts';
import { DASHBOARD_API, pathOf, type PathParams } from '../contract/dashboard.ts';
import { RPC_CODE_OF } from '../contract/errors.ts';
import { closedPort } from './support/grpc-peers.ts';
import { newWorkspace } from './support/harness.ts';
import { startHttpMcpServer, toolsWithDescription } from './support/mcp-servers.ts';
import { connectClient, type OAuthTestService, registerClient, startConsent, startOAuthService, startReceiver, TestBrowser } from './support/oauth-peers.ts';

let service: OAuthTestService;
let owner: TestBrowser;
const servers: Server[] = [];

/** The home and project folders whose editors' files the MCP server import reads: a Cursor file, and a VS Code file that is no JSON. */
const editors = mkdtempSync(join(tmpdir(), 'statusdesk-contract-editors-'));
const cursorFile = join(editors, 'home', '.cursor', 'mcp.json');
const vscodeFile = join(editors, 'home', '.config', 'Code', 'User', 'settings.json');

before(async () => {
  mkdirSync(join(cursorFile, '..'), { recursive: true });
  mkdirSync(join(vscodeFile, '..'), { recursive: true });
  mkdirSync(join(editors, 'project'));
  writeFileSync(
    cursorFile,
    JSON.stringify({
      mcpServers: {
        docs: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer contract-secret', Accept: 'application/json' } },
        local: { command: 'statusdesk-contract-no-such-command', args: ['--flag'], env: { TOKEN: 'contract-token', HOME_REF: '${env:HOME}' } },
        statusdesk: { command: 'statusdesk', args: ['mcp'] },
      },
    }),
  );
  writeFileSync(vscodeFile, '{ "mcp": { "servers": ');
  service = await startOAuthService({ editorFolders: { home: join(editors, 'home'), project: join(editors, 'project') } });
  owner = new TestBrowser();
  await owner.signIn(service);
});
after(async () => {
  for (const server of servers) server.close();
  await service?.stop();
  rmSync(editors, { recursive: true, force: true });
});

/** Which JSON calls a test made, so the last test can say none was left out. */
const called = new Set<JsonEndpoint>();

/** Calls a JSON endpoint as the dashboard's page does, and parses its answer with the contract's schema. */
async function call<E extends JsonEndpoint>(
  endpoint: E,
  params: PathParams<E>,
  options: { query?: Record<string, string>; body?: DashboardBody<E>; browser?: TestBrowser } = {},
): Promise<z.infer<(typeof DASHBOARD_ANSWERS)[E]>> {
  const { method } = DASHBOARD_API[endpoint];
  const query = options.query ? `?${new URLSearchParams(options.query)}` : '';
  const response = await (options.browser ?? owner).fetch(`${service.dashboardUrl}${pathOf(endpoint, params)}${query}`, {
    method,
    ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(options.body ?? {}) } : {}),
  });
  const answer: unknown = await response.json();
  assert.ok(response.ok, `${endpoint} answered ${response.status}: ${JSON.stringify(answer)}`);
  if (options.body !== undefined && endpoint in DASHBOARD_BODIES) DASHBOARD_BODIES[endpoint as keyof typeof DASHBOARD_BODIES].parse(options.body);
  const parsed = DASHBOARD_ANSWERS[endpoint].safeParse(answer);
  assert.ok(parsed.success, `${endpoint} does not answer what the contract declares: ${parsed.error?.message}\n${JSON.stringify(answer, null, 2)}`);
  called.add(endpoint);
  return parsed.data as z.infer<(typeof DASHBOARD_ANSWERS)[E]>;
}

/** A workspace of the test's own, with an RPC client holding a write key of it. */
async function workspace(): Promise<{ id: string; rpc: StatusdeskClient }> {
  const ws = await newWorkspace(service, 'contract');
  const { secret } = await service.createKey('write', ws.slug);
  return { id: ws.id, rpc: createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: secret, env: {} }) };
}

/** A loopback TCP port that accepts every connection. */
async function tcpTarget(): Promise<string> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the dashboard API answers what its contract declares', () => {
  test('the session, and API keys: listed, created (the secret once) and revoked', async () => {
    const session = await call('session', {});
    assert.ok(session.user, 'the owner is a person');
    const ws = await workspace();
    const created = await call('createKey', { workspaceId: ws.id }, { body: { name: 'contract key', scope: 'read' } });
    assert.deepEqual(created.key.scopes, ['read']);
    const { keys } = await call('keys', { workspaceId: ws.id });
    assert.ok(keys.some((key) => key.id === created.key.id));
    const { key } = await call('revokeKey', { keyId: created.key.id });
    assert.notEqual(key.revokedAt, null);
  });

  test("the overview, a monitor's latency, results and regions, the plan and the audit log, with checks stored", async () => {
    const ws = await workspace();
    const { monitor } = await ws.rpc.monitors.createTCPMonitor({
      monitor: { name: 'contract db', uri: await tcpTarget(), periodicity: Periodicity.PERIODICITY_1M, retry: 0, regions: ['iad'], tags: ['prod'] },
    });
    await ws.rpc.monitors.triggerMonitor({ id: monitor!.id });
    const params = { workspaceId: ws.id, monitorId: monitor!.id };

    const overview = await call('overview', { workspaceId: ws.id }, { query: { limit: '10' } });
    assert.equal(overview.monitors[0]?.state, 'up');
    assert.deepEqual(overview.tags, ['prod']);
    for (const window of ['1d', '7d', '14d']) {
      const latency = await call('latency', params, { query: { window } });
      assert.ok(latency.points.length > 0, window);
    }
    assert.equal((await call('results', params, { query: { limit: '5' } })).results[0]?.result, 'up');
    assert.equal((await call('regions', params)).regions[0]?.status, 'active');
    assert.ok((await call('plan', { workspaceId: ws.id })).frequencies.includes('30s'));
    const audit = await call('audit', { workspaceId: ws.id }, { query: { limit: '1' } });
    assert.equal(audit.entries[0]?.entityId, monitor!.id);
  });

  test("a monitor's incidents: one opened by a check that found it down", async () => {
    const ws = await workspace();
    const { monitor } = await ws.rpc.monitors.createTCPMonitor({
      monitor: { name: 'contract outage', uri: `127.0.0.1:${await closedPort()}`, periodicity: Periodicity.PERIODICITY_1H, retry: 0, regions: ['iad'] },
    });
    await ws.rpc.monitors.triggerMonitor({ id: monitor!.id });
    const { incidents } = await call('incidents', { workspaceId: ws.id, monitorId: monitor!.id });
    assert.equal(incidents.length, 1);
    assert.equal(incidents[0]?.endedAt, null);
    assert.equal(incidents[0]?.failedChecks, 1);
  });

  test("an MCP monitor's results carry what its check found of the server, and its overview row says when its tools changed", async () => {
    const ws = await workspace();
    const server = await startHttpMcpServer('v2', { prompts: 2 });
    try {
      const { monitor } = await ws.rpc.monitors.createMCPMonitor({
        monitor: { name: 'contract tools', server: server.url, periodicity: Periodicity.PERIODICITY_1M, retry: 0, regions: ['iad'] },
      });
      const params = { workspaceId: ws.id, monitorId: monitor!.id };
      await ws.rpc.monitors.triggerMonitor({ id: monitor!.id });
      const [latest] = (await call('results', params, { query: { limit: '5' } })).results;
      assert.deepEqual(
        { ...latest?.mcp, protocolVersion: typeof latest?.mcp?.protocolVersion },
        {
          status: 'OK',
          protocolVersion: 'string',
          serverName: 'test-v2',
          serverVersion: latest?.mcp?.serverVersion,
          toolCount: 3,
          prompts: 2,
          resources: null,
          warnings: [],
          exitCode: null,
          stderrTail: '',
          signIn: null,
        },
      );
      assert.equal((await call('overview', { workspaceId: ws.id }, { query: { limit: '10' } })).monitors[0]?.toolsChanged, false);
      server.behaviour = { ...server.behaviour, tools: toolsWithDescription('echo', 'Echoes, and more.') };
      await ws.rpc.monitors.triggerMonitor({ id: monitor!.id });
      assert.equal((await call('overview', { workspaceId: ws.id }, { query: { limit: '10' } })).monitors[0]?.toolsChanged, true);
    } finally {
      await server.close();
    }
  });

  test('the MCP servers the editors are set up with, values redacted, with the file that is no JSON; a picked one made a monitor', async () => {
    const { servers, problems, read } = await call('mcpServers', {});
    const byName = new Map(servers.map((server) => [server.name, server]));
    assert.deepEqual(byName.get('docs')?.headers, { Authorization: '[redacted]', Accept: 'application/json' });
    assert.deepEqual(byName.get('local')?.env, { TOKEN: '[redacted]', HOME_REF: '${env:HOME}' });
    assert.equal(byName.get('statusdesk')?.itself, true);
    assert.deepEqual(byName.get('docs')?.files, [cursorFile]);
    assert.ok(read.includes(cursorFile));
    assert.deepEqual(
      problems.map((problem) => problem.file),
      [vscodeFile],
    );
    assert.match(problems[0]!.message, /not valid JSON/);

    const ws = await workspace();
    const { monitors } = await call('importMcpServers', { workspaceId: ws.id }, { body: { picks: [{ name: 'docs', file: cursorFile }] } });
    assert.deepEqual(
      monitors.map((m) => m.name),
      ['docs'],
    );
    const { monitor } = await ws.rpc.monitors.getMonitor({ id: monitors[0]!.id });
    assert.equal(monitor.case, 'mcpMonitor');
    assert.deepEqual([monitor.value?.server, monitor.value?.periodicity], ['http://127.0.0.1:9/mcp', Periodicity.PERIODICITY_5M]);

    // Statusdesk itself, and a server no file names, are refused, naming the pick; nothing is created.
    for (const pick of [
      { name: 'statusdesk', file: cursorFile },
      { name: 'gone', file: cursorFile },
    ]) {
      const refused = await owner.fetch(`${service.dashboardUrl}${pathOf('importMcpServers', { workspaceId: ws.id })}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ picks: [pick] }),
      });
      assert.equal(refused.status, 400);
      assert.match(((await refused.json()) as { message: string }).message, /^picks\[0\]: /);
    }
    assert.equal((await ws.rpc.monitors.listMonitors({})).mcpMonitors.length, 1);
  });

  test("a status page's preview, with a component, an open report and maintenance both active and upcoming", async () => {
    const ws = await workspace();
    const slug = `contract-${randomBytes(4).toString('hex')}`;
    const { statusPage } = await ws.rpc.pages.createStatusPage({ slug, title: 'Contract' });
    const pageId = statusPage!.id;
    const { component } = await ws.rpc.pages.addPageComponent({ pageId, name: 'API', group: 'Core' });
    await ws.rpc.reports.createStatusReport({
      pageId,
      title: 'Slow API',
      status: statusReportV1.StatusReportStatus.IDENTIFIED,
      message: 'Looking',
      pageComponentIds: [component!.id],
      notify: false,
    });
    const at = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
    await ws.rpc.maintenances.createMaintenance({
      pageId,
      title: 'Now',
      message: 'Work',
      from: at(-5),
      to: at(55),
      pageComponentIds: [component!.id],
      notify: false,
    });
    await ws.rpc.maintenances.createMaintenance({ pageId, title: 'Later', from: at(600), to: at(660), notify: false });

    const preview = await call('pagePreview', { workspaceId: ws.id, pageId });
    assert.equal(preview.components[0]?.group, 'Core');
    assert.equal(preview.activeReports[0]?.latestUpdate?.message, 'Looking');
    assert.deepEqual([preview.maintenances.active.length, preview.maintenances.upcoming.length], [1, 1]);
  });

  test('consent requests as the person who decides sees them and as the browser that asked sees them; approved, denied; connections, their activity, revoked', async () => {
    const receiver = await startReceiver();
    try {
      const ask = async () => {
        const client = await registerClient(service.apiUrl, [receiver.redirectUri()], 'Contract editor');
        const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
        return startConsent(service, {
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: receiver.redirectUri(),
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 's',
        });
      };
      const approving = await ask();
      const asked = await call('consentRequest', { id: approving.requestId }, { browser: approving.browser });
      assert.equal(asked.csrfToken, undefined, 'the browser that asked is not signed in');
      const seen = await call('consentRequest', { id: approving.requestId });
      assert.ok(seen.csrfToken && seen.workspaces?.length);
      const { requests } = await call('pendingRequests', {});
      assert.ok(requests.some((r) => r.id === approving.requestId));
      const approved = await call(
        'approve',
        { id: approving.requestId },
        { body: { csrfToken: seen.csrfToken, workspaceId: String(service.personalId), access: 'read' } },
      );
      assert.equal(approved.status, 'approved');

      const denying = await ask();
      const pending = await call('consentRequest', { id: denying.requestId });
      assert.equal((await call('deny', { id: denying.requestId }, { body: { csrfToken: pending.csrfToken! } })).status, 'denied');

      const { grantId } = await connectClient(service, receiver, { name: 'Contract app' });
      const { connections } = await call('connections', { workspaceId: String(service.personalId) });
      assert.ok(connections.some((c) => c.id === String(grantId)));
      await call('activity', { connectionId: String(grantId) });
      const { connection } = await call('revokeConnection', { connectionId: String(grantId) });
      assert.notEqual(connection.revokedAt, null);
    } finally {
      await receiver.close();
    }
  });

  test("the live feed's events: a monitor's change and its state", async () => {
    const ws = await workspace();
    const abort = new AbortController();
    const stream = await owner.fetch(`${service.dashboardUrl}${pathOf('events', { workspaceId: ws.id })}`, { signal: abort.signal });
    assert.equal(stream.status, 200);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    try {
      const { monitor } = await ws.rpc.monitors.createTCPMonitor({
        monitor: { name: 'contract live', uri: await tcpTarget(), periodicity: Periodicity.PERIODICITY_1M, regions: ['iad'] },
      });
      await ws.rpc.monitors.triggerMonitor({ id: monitor!.id });
      const seen = new Set<string>();
      let text = '';
      for (let reads = 0; reads < 50 && seen.size < 2; reads++) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
        for (const [, name, data] of text.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)) {
          const parsed = LIVE_EVENT.safeParse(JSON.parse(data!));
          assert.ok(parsed.success, `a ${name} event is not what the contract declares: ${data}`);
          assert.equal(parsed.data.type, name);
          seen.add(name!);
        }
      }
      assert.deepEqual([...seen].sort(), ['changed', 'state']);
    } finally {
      abort.abort();
      await reader.cancel().catch(() => undefined);
    }
  });

  test("the workspace's file: exported, planned and applied", async () => {
    const ws = await workspace();
    await ws.rpc.monitors.createTCPMonitor({ monitor: { name: 'contract file', uri: await tcpTarget(), periodicity: Periodicity.PERIODICITY_1H } });
    const exported = await call('configExport', { workspaceId: ws.id });
    assert.equal(exported.monitors, 1);
    const file = exported.file.replace('frequency: 1h', 'frequency: 30m');
    const plan = await call('configPlan', { workspaceId: ws.id }, { body: { file } });
    assert.deepEqual(plan.summary, { create: 0, update: 1, delete: 0, unchanged: 0 });
    const applied = await call('configApply', { workspaceId: ws.id }, { body: { file } });
    assert.deepEqual([applied.applied, applied.error, applied.changes[0]?.outcome], [1, null, 'applied']);
  });

  test('members, invitations and sessions; an invitation previewed and accepted by a new person, who lists their own sessions', async () => {
    const ws = await workspace();
    const invited = await call('invite', { workspaceId: ws.id }, { body: { role: 'member', note: 'contract', expiresInHours: 2 } });
    assert.equal(invited.invitation.state, 'pending');
    const token = new URL(invited.link).pathname.split('/').at(-1)!;
    const withdrawn = await call('invite', { workspaceId: ws.id }, { body: { role: 'admin' } });
    await call('revokeInvitation', { workspaceId: ws.id, invitationId: withdrawn.invitation.id });
    const { invitations } = await call('invitations', { workspaceId: ws.id });
    assert.deepEqual(
      invitations.map((i) => i.state),
      ['revoked', 'pending'],
    );

    const newcomer = new TestBrowser();
    const preview = await call('invitation', { token }, { browser: newcomer });
    assert.equal(preview.role, 'member');
    const joined = await call('acceptInvitation', { token }, { browser: newcomer, body: { name: 'Contract Newcomer' } });
    assert.equal(joined.workspaceId, ws.id);
    newcomer.sessionTokens.set(new URL(service.dashboardUrl).host, joined.token);
    const { sessions } = await call('sessions', {}, { browser: newcomer });
    assert.deepEqual(
      sessions.map((s) => [s.method, s.current]),
      [['invitation', true]],
    );
    const { members, you } = await call('members', { workspaceId: ws.id }, { browser: newcomer });
    assert.equal(you.role, 'member');
    const person = members.find((m) => m.name === 'Contract Newcomer')!;
    const { member } = await call('changeRole', { workspaceId: ws.id, userId: person.userId }, { body: { role: 'admin' } });
    assert.equal(member.role, 'admin');
    await call('removeMember', { workspaceId: ws.id, userId: person.userId });
    // A person ends a session of theirs by its id: here the one they are using.
    await call('endSession', { sessionId: sessions[0]!.id }, { browser: newcomer });
    const after = await newcomer.fetch(`${service.dashboardUrl}/api/session`);
    assert.equal(after.status, 401);
  });

  test('passkeys: the ways to sign in, the list, and the options of a registration and a sign-in', async () => {
    const methods = await call('signInMethods', {}, { browser: new TestBrowser() });
    assert.equal(methods.passkey, true);
    assert.deepEqual((await call('passkeys', {})).passkeys, []);
    const registration = await call('passkeyOptions', {});
    assert.equal(typeof registration.options.challenge, 'string');
    const signIn = await call('signInOptions', {}, { browser: new TestBrowser() });
    assert.equal(typeof signIn.options.challenge, 'string');
  });

  /**
   * The calls that carry an authenticator's signed answer (addPasskey, signInPasskey) and removing
   * a passkey are made in Chromium with its virtual authenticator (ui-passkeys.test.ts), which
   * parses their answers with the same schemas.
   */
  const IN_CHROMIUM = new Set<JsonEndpoint>(['addPasskey', 'signInPasskey', 'removePasskey']);

  // After the tests, in whatever order they ran: none of the contract's JSON calls was left out.
  after(() => {
    const json = Object.keys(DASHBOARD_ANSWERS) as JsonEndpoint[];
    assert.deepEqual(
      json.filter((endpoint) => !called.has(endpoint) && !IN_CHROMIUM.has(endpoint)),
      [],
      'JSON calls of the contract no test above made',
    );
  });
});

describe("the contract's tables", () => {
  test("each kind of error goes over RPC with Connect's code of that kind", () => {
    assert.deepEqual(RPC_CODE_OF, {
      NOT_FOUND: Code.NotFound,
      VALIDATION: Code.InvalidArgument,
      CONFLICT: Code.AlreadyExists,
      LIMIT_EXCEEDED: Code.ResourceExhausted,
      PRECONDITION_FAILED: Code.FailedPrecondition,
      UNAUTHORIZED: Code.Unauthenticated,
      FORBIDDEN: Code.PermissionDenied,
      INTERNAL: Code.Internal,
      STORAGE_FULL: Code.Unavailable,
    });
  });

  test('a path takes its parameters each as one encoded segment', () => {
    assert.equal(pathOf('latency', { workspaceId: '7', monitorId: 'a/b c' }), '/api/workspaces/7/monitors/a%2Fb%20c/latency');
    assert.equal(pathOf('session', {}), '/api/session');
  });
});
