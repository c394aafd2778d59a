/**
 * A monitor going down opens an incident on it, coming back closes it: the check engine
 * (server/checks/engine.ts) on a real database checks a real HTTP listener on 127.0.0.1 whose
 * answer the test turns from 200 to 503 and back. The engine schedules nothing (every check is
 * one the test asks for), and its clock is the test's: each check starts a minute after the one
 * before, so durations are exact and nothing sleeps.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import pino from 'pino';
import { createCheckEngine } from '../server/checks/engine.ts';
import type { Actor } from '../server/domain/actor.ts';
import { INCIDENTS_KEPT } from '../server/domain/monitors/monitor-incidents.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { createServices } from '../server/services.ts';
import { openTestDatabase } from './support/database.ts';
import { tempDir } from './support/harness.ts';

const MINUTE = 60_000;
const system: Actor = { type: 'system', surface: 'cli' };

/** An HTTP server on 127.0.0.1 that answers `status()` with a one-line body. */
async function startListener(status: () => number): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.statusCode = status();
    res.end(res.statusCode === 200 ? 'ok' : 'unavailable');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('incidents from failures', () => {
  test('down opens one incident, its failed checks counted; up closes it with its duration; a second outage opens a second; deleting the monitor deletes them', async () => {
    const dir = await tempDir();
    const db = await openTestDatabase(dir.path);
    const ownerId = await ensureOwner(db);
    let clock = Date.parse('2026-03-02T10:00:00.000Z');
    const now = () => clock;
    const engine = createCheckEngine(db, { log: pino({ enabled: false }), version: 'test', schedule: false, now });
    const services = createServices(db, { checks: engine.checks, now });
    engine.onStateChange((change) => void services.monitorIncidents.stateChanged(change));
    const owner: Actor = { type: 'user', userId: ownerId, surface: 'cli' };
    const workspaceId = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
    let status = 200;
    const target = await startListener(() => status);
    try {
      await engine.start();
      const monitor = await services.monitors.create(system, workspaceId, 'http', {
        name: 'shop',
        url: target.url,
        periodicity: '1m',
        regions: ['iad'],
        timeout: 2_000,
        retry: 0,
      });
      /** One check, a minute after the last, its state change recorded. */
      const check = async () => {
        clock += MINUTE;
        await services.monitors.trigger(system, workspaceId, monitor.id);
        await services.monitorIncidents.settled();
      };
      const incidents = () => services.monitorIncidents.list(owner, workspaceId, monitor.id);

      await check();
      assert.deepEqual(await incidents(), [], 'up: no incident');

      // Down for three checks: one incident, open, counting each failed check.
      status = 503;
      const downAt = clock + MINUTE;
      await check();
      await check();
      await check();
      let [open, ...rest] = await incidents();
      assert.equal(rest.length, 0, 'one incident, not one per failed check');
      assert.equal(open!.startedAt, new Date(downAt).toISOString());
      assert.equal(open!.endedAt, null, 'still open');
      assert.equal(open!.failedChecks, 3);
      assert.equal(open!.durationMs, 2 * MINUTE, 'while open, up to now');
      assert.match(open!.firstMessage, /503/);

      // Up again: closed, with its end and duration.
      status = 200;
      await check();
      [open, ...rest] = await incidents();
      assert.equal(rest.length, 0);
      assert.equal(open!.endedAt, new Date(downAt + 3 * MINUTE).toISOString());
      assert.equal(open!.durationMs, 3 * MINUTE);
      assert.equal(open!.failedChecks, 3);
      await check();
      assert.equal((await incidents())[0]!.durationMs, 3 * MINUTE, 'a closed incident keeps its duration');

      // A second outage: a second incident, newest first.
      status = 503;
      const secondAt = clock + MINUTE;
      await check();
      const both = await incidents();
      assert.equal(both.length, 2);
      assert.equal(both[0]!.startedAt, new Date(secondAt).toISOString());
      assert.equal(both[0]!.endedAt, null);
      assert.equal(both[0]!.failedChecks, 1);
      assert.equal(both[1]!.endedAt, new Date(downAt + 3 * MINUTE).toISOString());

      // A monitor the workspace does not have has none to list.
      await assert.rejects(services.monitorIncidents.list(owner, workspaceId, '999'), /monitor 999 does not exist in this workspace/);

      // Deleted: its incidents go with it.
      await services.monitors.delete(system, workspaceId, monitor.id);
      const left = await db.selectFrom('monitor_incidents').select('id').where('monitor_id', '=', Number(monitor.id)).execute();
      assert.deepEqual(left, []);
    } finally {
      await target.close();
      await engine.close();
      await db.destroy();
      await dir.remove();
    }
  });

  test(`only the latest ${INCIDENTS_KEPT} incidents of a monitor are kept; a monitor found up after its state was lost ends its incident`, async () => {
    const dir = await tempDir();
    const db = await openTestDatabase(dir.path);
    const ownerId = await ensureOwner(db);
    const services = createServices(db, {});
    const owner: Actor = { type: 'user', userId: ownerId, surface: 'cli' };
    const workspaceId = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
    try {
      const monitor = await services.monitors.create(system, workspaceId, 'tcp', { name: 'db', uri: 'db.internal:5432', periodicity: '1m', regions: ['iad'] });
      const t0 = Date.parse('2026-03-02T10:00:00.000Z');
      // The engine's state changes, as it would announce them: down and up again, over and over.
      for (let i = 0; i < INCIDENTS_KEPT + 5; i++) {
        const base = { monitorId: monitor.id, workspaceId: String(workspaceId), message: `refused ${i}` };
        void services.monitorIncidents.stateChanged({ ...base, from: 'up', to: 'down', kind: 'down', at: new Date(t0 + i * 2 * MINUTE).toISOString() });
        void services.monitorIncidents.stateChanged({
          ...base,
          from: 'down',
          to: 'up',
          kind: 'recovered',
          at: new Date(t0 + (i * 2 + 1) * MINUTE).toISOString(),
        });
      }
      await services.monitorIncidents.settled();
      const kept = await services.monitorIncidents.list(owner, workspaceId, monitor.id);
      assert.equal(kept.length, INCIDENTS_KEPT);
      assert.equal(kept[0]!.firstMessage, `refused ${INCIDENTS_KEPT + 4}`, 'the newest first');
      assert.equal(kept.at(-1)!.firstMessage, 'refused 5', 'the oldest five are gone');
      assert.ok(kept.every((incident) => incident.durationMs === MINUTE && incident.endedAt !== null));

      // A monitor whose state was lost while down (paused, or moved to another runner) and is
      // then found up: the first check's change has no `from`, and still ends the incident.
      const later = t0 + 1_000 * MINUTE;
      const base = { monitorId: monitor.id, workspaceId: String(workspaceId), message: 'refused again' };
      void services.monitorIncidents.stateChanged({ ...base, from: 'up', to: 'down', kind: 'down', at: new Date(later).toISOString() });
      void services.monitorIncidents.stateChanged({ ...base, from: null, to: 'up', kind: 'checked', at: new Date(later + 5 * MINUTE).toISOString() });
      const [latest] = await services.monitorIncidents.list(owner, workspaceId, monitor.id);
      assert.equal(latest!.endedAt, new Date(later + 5 * MINUTE).toISOString());
    } finally {
      await db.destroy();
      await dir.remove();
    }
  });
});
