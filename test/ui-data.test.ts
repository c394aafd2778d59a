// The UI's data layer (renderer/src/data/query-keys.ts) in Node: what each event of the live feed
// makes out of date, as filters over the query cache, matched against the keys connect-query
// really files the RPC services' queries under (one workspace's, not another's); and the names of
// the RPC services the UI calls, against their descriptors.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DescMethodUnary, DescService } from '@bufbuild/protobuf';
import type { Transport } from '@connectrpc/connect';
// The framework-free cores of connect-query and TanStack Query (the React packages' own
// dependencies), so React's types stay out of the Node tests' program.
import { addStaticKeyToTransport, createConnectQueryKey } from '@connectrpc/connect-query-core';
import { partialMatchKey, type QueryKey } from '@tanstack/query-core';
import type { LiveEvent } from '../contract/dashboard-api.ts';
import { LIVE_ENTITIES } from '../contract/dashboard.ts';
import { MaintenanceService } from '../proto/gen/maintenance/v1/maintenance_pb.js';
import { MonitorService } from '../proto/gen/monitor/v1/monitor_pb.js';
import { NotificationService } from '../proto/gen/notification/v1/notification_pb.js';
import { PrivateLocationService } from '../proto/gen/private_location/v1/private_location_pb.js';
import { SettingsService } from '../proto/gen/settings/v1/settings_pb.js';
import { StatusPageService } from '../proto/gen/status_page/v1/status_page_pb.js';
import { StatusReportService } from '../proto/gen/status_report/v1/status_report_pb.js';
import { outdatedBy, queryKeys, RPC_SERVICES, rpcTransportKey } from '../renderer/src/data/query-keys.ts';

/** A transport that never sends: connect-query only reads its key here. */
const idle: Transport = { unary: () => Promise.reject(new Error('not sent')), stream: () => Promise.reject(new Error('not sent')) };
const transportOf = (workspaceId: string) => addStaticKeyToTransport(idle, rpcTransportKey(workspaceId));

/** The key connect-query gives a call of `method` with `input` in a workspace, as rpc-transport.ts makes its transport. */
function rpcKey(workspaceId: string, method: DescMethodUnary, input: Record<string, unknown> = {}): QueryKey {
  return createConnectQueryKey({ schema: method, input, transport: transportOf(workspaceId), cardinality: 'finite' }) as QueryKey;
}

const outdates = (keys: QueryKey[], key: QueryKey) => keys.some((filter) => partialMatchKey(key, filter));
const changed = (entity: (typeof LIVE_ENTITIES)[number], id = '5'): LiveEvent => ({ type: 'changed', entity, id });

describe("the UI's data layer", () => {
  test("each RPC service's name is its descriptor's, the name connect-query puts in its keys", () => {
    const services: Record<keyof typeof RPC_SERVICES, DescService> = {
      monitors: MonitorService,
      pages: StatusPageService,
      reports: StatusReportService,
      maintenances: MaintenanceService,
      notifications: NotificationService,
      privateLocations: PrivateLocationService,
      settings: SettingsService,
    };
    for (const [name, service] of Object.entries(services)) assert.equal(RPC_SERVICES[name as keyof typeof services], service.typeName, name);
  });

  test("a change outdates the RPC reads of its service in its workspace, and not another workspace's", () => {
    const cases: [LiveEvent, QueryKey][] = [
      [changed('monitor'), rpcKey('7', MonitorService.method.getMonitor, { id: '5' })],
      [changed('page'), rpcKey('7', StatusPageService.method.listPageComponents, { pageId: '3' })],
      [changed('report'), rpcKey('7', StatusReportService.method.listStatusReports, { pageId: '3' })],
      [changed('maintenance'), rpcKey('7', MaintenanceService.method.listMaintenances, { pageId: '3' })],
      [changed('channel'), rpcKey('7', NotificationService.method.listNotificationChannels, { perPage: 200 })],
    ];
    for (const [event, key] of cases) {
      assert.ok(outdates(outdatedBy('7', event), key), `${JSON.stringify(event)} outdates ${JSON.stringify(key)}`);
      assert.ok(!outdates(outdatedBy('8', event), key), `${JSON.stringify(event)} in workspace 8 leaves workspace 7's ${JSON.stringify(key)}`);
    }
    assert.ok(!outdates(outdatedBy('7', changed('page')), rpcKey('7', MonitorService.method.getMonitor, { id: '5' })), 'a page change leaves the monitors');
  });

  test("a check's new state outdates the overview, that monitor's views and status, not its settings", () => {
    const event: LiveEvent = { type: 'state', monitorId: '5', monitorName: 'db', from: 'up', to: 'down', at: new Date().toISOString(), message: 'refused' };
    const keys = outdatedBy('7', event);
    assert.ok(outdates(keys, queryKeys.overview('7', { q: 'db' }, 100)));
    assert.ok(outdates(keys, queryKeys.latency('7', '5', '1d')));
    assert.ok(outdates(keys, queryKeys.results('7', '5', 20)));
    assert.ok(!outdates(keys, queryKeys.latency('7', '6', '1d')), "another monitor's views stay");
    assert.ok(outdates(keys, rpcKey('7', MonitorService.method.getMonitorStatus, { id: '5' })));
    assert.ok(!outdates(keys, rpcKey('7', MonitorService.method.getMonitor, { id: '5' })), 'its settings did not change');
  });

  test('every kind of change the feed announces outdates something of the workspace', () => {
    for (const entity of LIVE_ENTITIES) {
      const keys = outdatedBy('7', changed(entity));
      assert.ok(keys.length > 0, entity);
      assert.ok(
        keys.every((key) => JSON.stringify(key).includes('"7"') || JSON.stringify(key).includes(rpcTransportKey('7'))),
        `${entity}: ${JSON.stringify(keys)}`,
      );
    }
    assert.ok(outdates(outdatedBy('7', changed('key')), queryKeys.keys('7')));
    assert.ok(outdates(outdatedBy('7', changed('connection')), queryKeys.connections('7')));
  });
});
