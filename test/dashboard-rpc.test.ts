// The RPC services on the dashboard port, as the UI calls them with connect-web: the Connect
// protocol under /rpc, for the signed-in person, in the workspace each call names.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import { MonitorService, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { withLocalOwner } from './support/database.ts';
import { dashboardSession, startTestService, type TestService } from './support/harness.ts';

let service: TestService;
let session: Record<string, string>;
let personal: string;

before(async () => {
  service = await startTestService();
  session = await dashboardSession(service);
  personal = (await withLocalOwner(service.dataDir, (services, owner) => services.workspaces.getBySlug(owner, 'personal'))).id;
});
after(() => service.stop());

/** Sets each header of `headers` on every call (undefined values are left out). */
function withHeaders(headers: Record<string, string | undefined>): Interceptor {
  return (next) => (req) => {
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) req.header.set(name, value);
    return next(req);
  };
}

function monitors(headers: Record<string, string | undefined>, base = service.dashboardUrl) {
  return createClient(MonitorService, createConnectTransport({ baseUrl: `${base}/rpc`, httpVersion: '1.1', interceptors: [withHeaders(headers)] }));
}

const asPage = (workspaceId: string) => ({ ...session, 'x-statusdesk-workspace': workspaceId });

async function rejects(call: Promise<unknown>, code: Code, message: RegExp): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof ConnectError, String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.rawMessage, message);
    return true;
  });
}

describe('the RPC services on the dashboard port', () => {
  test('the signed-in page creates and lists monitors in the workspace it names; the audit log says the dashboard did it', async () => {
    const name = `dashboard-made ${Date.now()}`;
    const created = await monitors(asPage(personal)).createTCPMonitor({ monitor: { name, uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_1M } });
    assert.equal(created.monitor?.name, name);
    const listed = await monitors(asPage(personal)).listMonitors({ limit: 100 });
    assert.ok(listed.tcpMonitors.some((m) => m.id === created.monitor!.id));
    const entry = await withLocalOwner(service.dataDir, async (services, owner) => {
      const { auditLogs } = await services.auditLog.list(owner, Number(personal), { entityType: 'monitor', entityId: created.monitor!.id });
      return auditLogs[0];
    });
    assert.equal(entry?.action, 'monitor.create');
    assert.equal(entry?.actorType, 'user');
  });

  test('without the session cookie, or without the page token, a call is unauthenticated and changes nothing', async () => {
    const { cookie, 'x-statusdesk-session': token, origin } = session;
    const before = (await monitors(asPage(personal)).listMonitors({})).totalSize;
    for (const headers of [
      { origin, 'x-statusdesk-session': token },
      { origin, cookie },
      { origin, cookie: `statusdesk_session=${'A'.repeat(43)}`, 'x-statusdesk-session': token },
    ]) {
      await rejects(
        monitors({ ...headers, 'x-statusdesk-workspace': personal }).createTCPMonitor({ monitor: { name: 'never', uri: 'db.internal:1' } }),
        Code.Unauthenticated,
        /not signed in/,
      );
    }
    assert.equal((await monitors(asPage(personal)).listMonitors({})).totalSize, before);
  });

  test('a call from another origin, or with none, is refused before anything happens', async () => {
    for (const origin of ['http://localhost:5173', 'null', undefined]) {
      // The port's guard refuses a foreign origin; the RPC itself refuses a call without one.
      await rejects(
        monitors({ ...asPage(personal), origin }).listMonitors({}),
        Code.PermissionDenied,
        /may not call this service|only from the dashboard's own pages/,
      );
    }
  });

  test('the workspace header is required, and a workspace the person is not a member of does not exist', async () => {
    await rejects(monitors({ ...session }).listMonitors({}), Code.InvalidArgument, /x-statusdesk-workspace: must be a workspace id/);
    await rejects(monitors({ ...session, 'x-statusdesk-workspace': '1 OR 1' }).listMonitors({}), Code.InvalidArgument, /x-statusdesk-workspace/);
    // A workspace made by the service itself has no members: the signed-in owner is not one.
    const foreign = await withLocalOwner(service.dataDir, async (services) => {
      const ws = await services.workspaces.create({ type: 'system', surface: 'cli' }, { name: 'Theirs', slug: `theirs-${Date.now()}`, plan: 'scale' });
      return ws.id;
    });
    await rejects(monitors(asPage(foreign)).listMonitors({}), Code.NotFound, /does not exist/);
  });

  test('the dashboard port serves neither gRPC nor the RPC outside /rpc, and an API key opens nothing there', async () => {
    const grpc = createClient(MonitorService, createGrpcTransport({ baseUrl: service.dashboardUrl, interceptors: [withHeaders(asPage(personal))] }));
    await assert.rejects(grpc.listMonitors({}), (error: unknown) => error instanceof ConnectError);
    const key = await service.createKey('write');
    await rejects(
      monitors({ origin: service.dashboardUrl, 'x-service-key': key.secret, 'x-statusdesk-workspace': personal }).listMonitors({}),
      Code.Unauthenticated,
      /not signed in/,
    );
  });
});
