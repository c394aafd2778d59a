/**
 * One rule for an id, on every surface (docs/reference/errors.md#ids): an id that cannot name a
 * record (anything but a positive whole number written in decimal, without a leading zero, of at
 * most 15 digits) is VALIDATION naming its field; a well-formed id that names nothing in the
 * caller's workspace, a record of another workspace included, is NOT_FOUND. A page is named by
 * its id or its slug, and a slug always holds a letter: a reference with a letter is a slug
 * looked up (NOT_FOUND when there is none), one without is an id. Real service, real clients:
 * ConnectRPC (the client library), MCP (the SDK client), and the dashboard's JSON API and RPC.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient as createRpcClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { Code, createClient, type StatusdeskClient, statusReportV1 } from '../client/index.ts';
import { withLocalOwner } from './support/database.ts';
import { assertCode, assertViolation, dashboardSession, json, startTestService, type TestService, withHeaders } from './support/harness.ts';
import { assertRpcError, connectMcp, ERAS, INVALID_PARAMS, type McpConnection, toolError } from './support/mcp-client.ts';

/** Ids no record can have. */
const MALFORMED = ['abc', '0', '-1', '1.5', '007', '1e3', ' 12', '1234567890123456'];
/** The malformed ids without a letter: as a page reference, one with a letter is a slug. */
const MALFORMED_PAGE_REFS = MALFORMED.filter((id) => !/[a-z]/i.test(id) && id.trim() === id);
/** Well-formed, and no record's: no test makes this many records. */
const UNKNOWN = '999999999';

let svc: TestService;
let client: StatusdeskClient;
/** Records of the key's workspace. */
let own: { pageId: string; reportId: string };
/** Records of another workspace, which the key may not see. */
let theirs: { workspaceId: string; pageId: string; reportId: string; keyId: string };

before(async () => {
  svc = await startTestService();
  client = createClient({ baseUrl: `${svc.apiUrl}/rpc`, apiKey: (await svc.createKey('write')).secret, env: {} });
  const page = (await client.pages.createStatusPage({ slug: 'ids-own', title: 'Own' })).statusPage!;
  const report = (await client.reports.createStatusReport({ pageId: page.id, title: 'Own', message: 'x', notify: false })).statusReport!;
  own = { pageId: page.id, reportId: report.id };
  // A workspace the service made itself has no members: neither the key nor the signed-in owner may see it.
  theirs = await withLocalOwner(svc.dataDir, async (services) => {
    const system = { type: 'system', surface: 'cli' } as const;
    const ws = await services.workspaces.create(system, { name: 'Theirs', slug: 'ids-theirs', plan: 'scale' });
    const wsId = Number(ws.id);
    const theirPage = await services.pages.create(system, wsId, { slug: 'ids-theirs', title: 'Theirs' });
    const { report: theirReport } = await services.reports.create(system, wsId, { pageId: theirPage.id, title: 'Theirs', message: 'x', notify: false });
    const { key } = await services.keys.create(system, { workspaceId: wsId, name: 'theirs', scope: 'read' });
    return { workspaceId: ws.id, pageId: theirPage.id, reportId: theirReport.id, keyId: key.id };
  });
});
after(() => svc.stop());

describe('an id over ConnectRPC', () => {
  /** Calls that take one id, with the field that carries it. */
  const byId: [string, string, (id: string) => Promise<unknown>][] = [
    ['GetStatusReport', 'id', (id) => client.reports.getStatusReport({ id })],
    ['ResolveStatusReport', 'id', (id) => client.reports.resolveStatusReport({ id, message: 'x', notify: false })],
    ['GetMaintenance', 'id', (id) => client.maintenances.getMaintenance({ id })],
    ['GetNotificationChannel', 'id', (id) => client.notifications.getNotificationChannel({ id })],
    ['GetPrivateLocation', 'id', (id) => client.privateLocations.getPrivateLocation({ id })],
    ['GetMonitor', 'id', (id) => client.monitors.getMonitor({ id })],
    ['UpdatePageComponent', 'id', (id) => client.pages.updatePageComponent({ id, name: 'x' })],
    ['RemoveSubscriber', 'id', (id) => client.pages.removeSubscriber({ id })],
    [
      'CreateStatusReport',
      'pageComponentIds.0',
      (id) => client.reports.createStatusReport({ pageId: own.pageId, title: 'x', message: 'y', pageComponentIds: [id], notify: false }),
    ],
  ];

  test('a malformed id is VALIDATION naming its field; a well-formed unknown one is NOT_FOUND', async () => {
    for (const [name, field, call] of byId) {
      for (const id of MALFORMED)
        await assertViolation(call(id), field, /positive whole number/).catch((error: Error) =>
          assert.fail(`${name}(${JSON.stringify(id)}): ${error.message}`),
        );
      await assertCode(call(UNKNOWN), Code.NotFound).catch((error: Error) => assert.fail(`${name}(${UNKNOWN}): ${error.message}`));
    }
  });

  test('a page reference without a letter is read as an id; one with a letter is a slug', async () => {
    for (const ref of MALFORMED_PAGE_REFS) {
      await assertViolation(client.pages.getStatusPage({ page: ref }), 'page', /positive whole number/);
      await assertViolation(client.reports.listStatusReports({ pageId: ref }), 'pageId', /positive whole number/);
    }
    for (const ref of [UNKNOWN, 'no-such-page', 'abc']) await assertCode(client.pages.getStatusPage({ page: ref }), Code.NotFound);
  });

  test('an id or slug of another workspace is NOT_FOUND, as if it did not exist', async () => {
    await assertCode(client.reports.getStatusReport({ id: theirs.reportId }), Code.NotFound);
    await assertCode(client.pages.getStatusPage({ page: theirs.pageId }), Code.NotFound);
    await assertCode(client.pages.getStatusPage({ page: 'ids-theirs' }), Code.NotFound);
  });
});

describe('an id over MCP', () => {
  let mcp: McpConnection;
  before(async () => {
    mcp = await connectMcp(svc.apiUrl, ERAS[0], (await svc.createKey('write')).secret);
  });
  after(() => mcp.close());

  test("a malformed id is a VALIDATION tool error naming its field; a well-formed unknown one, or another workspace's, is NOT_FOUND", async () => {
    for (const id of MALFORMED) {
      toolError(await mcp.call('update_status_report', { statusReportId: id, title: 'x' }), 'VALIDATION', /^id: must be a status report id/);
      toolError(
        await mcp.call('create_status_report', { pageId: own.pageId, title: 'x', message: 'y', pageComponentIds: [id], notify: false }),
        'VALIDATION',
        /^pageComponentIds\.0: /,
      );
    }
    for (const ref of MALFORMED_PAGE_REFS)
      toolError(await mcp.call('list_page_components', { pageId: ref }), 'VALIDATION', /^pageId: must be a status page id/);
    for (const id of [UNKNOWN, theirs.reportId]) toolError(await mcp.call('update_status_report', { statusReportId: id, title: 'x' }), 'NOT_FOUND');
    for (const ref of [UNKNOWN, theirs.pageId, 'ids-theirs', 'abc']) toolError(await mcp.call('list_page_components', { pageId: ref }), 'NOT_FOUND');
  });

  test('a numeric id the input schema refuses is VALIDATION too, as the JSON-RPC error of malformed input', async () => {
    for (const monitorId of [0, -1, 1.5]) await assertRpcError(mcp.call('get_monitor', { monitorId }), INVALID_PARAMS, 'VALIDATION');
    toolError(await mcp.call('get_monitor', { monitorId: Number(UNKNOWN) }), 'NOT_FOUND');
  });
});

describe('an id on the dashboard', () => {
  let session: Record<string, string>;
  let workspaceId: string;
  before(async () => {
    session = await dashboardSession(svc);
    workspaceId = (await withLocalOwner(svc.dataDir, (services, owner) => services.workspaces.getBySlug(owner, 'personal'))).id;
  });

  /** A request as the dashboard's page sends it; a POST carries a body the route would accept. */
  const dashboard = (path: string, method = 'GET') =>
    fetch(`${svc.dashboardUrl}${path}`, {
      method,
      headers: { ...session, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      body: method === 'POST' ? JSON.stringify({ name: 'x', scope: 'read' }) : undefined,
    });

  async function assertRefused(response: Response, status: number, code: string, field?: string): Promise<void> {
    const body = await json(response);
    assert.equal(response.status, status, `${response.url}: ${JSON.stringify(body)}`);
    assert.equal(body.code, code, `${response.url}: ${JSON.stringify(body)}`);
    if (field !== undefined)
      assert.deepEqual(
        body.violations?.map((v: { field: string }) => v.field),
        [field],
        `${response.url}: ${JSON.stringify(body)}`,
      );
  }

  /** Paths that name one id, with the field that carries it. */
  const paths: [string, string, (id: string) => string][] = [
    ['workspaceId', 'GET', (id) => `/api/workspaces/${encodeURIComponent(id)}/keys`],
    ['workspaceId', 'POST', (id) => `/api/workspaces/${encodeURIComponent(id)}/keys`],
    ['keyId', 'POST', (id) => `/api/keys/${encodeURIComponent(id)}/revoke`],
    ['connectionId', 'GET', (id) => `/api/connections/${encodeURIComponent(id)}/activity`],
  ];

  test('a malformed id in a path is 400 VALIDATION naming its field; a well-formed unknown one is 404 NOT_FOUND', async () => {
    for (const [field, method, path] of paths) {
      for (const id of MALFORMED) await assertRefused(await dashboard(path(id), method), 400, 'VALIDATION', field);
      await assertRefused(await dashboard(path(UNKNOWN), method), 404, 'NOT_FOUND');
    }
    for (const ref of MALFORMED_PAGE_REFS)
      await assertRefused(await dashboard(`/api/workspaces/${workspaceId}/pages/${encodeURIComponent(ref)}/preview`), 400, 'VALIDATION', 'page');
    await assertRefused(await dashboard(`/api/workspaces/${workspaceId}/pages/${UNKNOWN}/preview`), 404, 'NOT_FOUND');
  });

  test('a workspace, key or page of a workspace the person is not a member of is 404 NOT_FOUND', async () => {
    await assertRefused(await dashboard(`/api/workspaces/${theirs.workspaceId}/keys`), 404, 'NOT_FOUND');
    await assertRefused(await dashboard(`/api/keys/${theirs.keyId}/revoke`, 'POST'), 404, 'NOT_FOUND');
    await assertRefused(await dashboard(`/api/workspaces/${workspaceId}/pages/${theirs.pageId}/preview`), 404, 'NOT_FOUND');
  });

  test('the workspace an RPC call names, and the ids it carries, follow the same rule', async () => {
    const reports = (workspace: string) =>
      createRpcClient(
        statusReportV1.StatusReportService,
        createConnectTransport({
          baseUrl: `${svc.dashboardUrl}/rpc`,
          httpVersion: '1.1',
          interceptors: [withHeaders({ ...session, 'x-statusdesk-workspace': workspace })],
        }),
      );
    for (const id of MALFORMED) {
      // HTTP trims a header's value, so ' 12' arrives as 12.
      if (id.trim() === id) await assertViolation(reports(id).listStatusReports({}), 'x-statusdesk-workspace', /positive whole number/);
      await assertViolation(reports(workspaceId).getStatusReport({ id }), 'id', /positive whole number/);
    }
    await assertCode(reports(UNKNOWN).listStatusReports({}), Code.NotFound);
    await assertCode(reports(theirs.workspaceId).listStatusReports({}), Code.NotFound);
    await assertCode(reports(workspaceId).getStatusReport({ id: UNKNOWN }), Code.NotFound);
    await assertCode(reports(workspaceId).getStatusReport({ id: theirs.reportId }), Code.NotFound);
  });
});
