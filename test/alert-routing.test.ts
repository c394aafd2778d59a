/**
 * Where alerts go and how often: the events a channel chooses, the "back up after" of a recovery,
 * the monitor's link, flapping told once, a burst grouped into one alert per channel, reminders,
 * retries of a failing receiver and the backoff of a channel that keeps failing. Real services on
 * a real database, webhook channels posting to loopback receivers; the storms are driven by the
 * times of the changes and of the sweeps, never by waiting.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Actor } from '../server/domain/actor.ts';
import type { Monitor } from '../server/domain/monitors/monitors.ts';
import { alertHeadline, durationWords } from '../server/domain/public-words.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { AppError } from '../server/errors.ts';
import { createServices, type Services } from '../server/services.ts';
import { openTestDatabase } from './support/database.ts';
import { tempDir } from './support/harness.ts';
import { type HttpReceiver, startHttpReceiver } from './support/receivers.ts';

const system: Actor = { type: 'system', surface: 'cli' };
const SECRET = 'a-signing-secret-of-some-length';
const MINUTE = 60_000;
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

let dir: Awaited<ReturnType<typeof tempDir>>;
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let services: Services;
let workspaceId: number;
/** What the check engine would say of this machine's network. */
let offline: { since: number; reason: string } | undefined;

before(async () => {
  dir = await tempDir();
  db = await openTestDatabase(dir.path);
  services = createServices(db, {
    dashboardUrl: 'http://localhost:5999',
    alerts: { retryDelaysMs: [5, 5], storms: { flapChanges: 5, flapWindowMs: 10 * MINUTE, groupWindowMs: MINUTE }, offline: () => offline },
  });
  const owner: Actor = { type: 'user', userId: await ensureOwner(db), surface: 'cli' };
  workspaceId = Number((await services.workspaces.getBySlug(owner, 'personal')).id);
});

after(async () => {
  services.close();
  await db.destroy();
  await dir.remove();
});

let made = 0;
async function monitor(): Promise<Monitor> {
  made++;
  return services.monitors.create(system, workspaceId, 'tcp', { name: `routed ${made}`, uri: '127.0.0.1:9', periodicity: '10m', regions: ['iad'] });
}

async function webhook(receiver: HttpReceiver, monitors: Monitor[], events: string[] = []) {
  return services.channels.create(system, workspaceId, {
    name: `hook ${made}`,
    kind: 'webhook',
    monitorIds: monitors.map((m) => m.id),
    config: { url: `${receiver.url}/alerts`, secret: SECRET },
    events,
  });
}

function change(m: Monitor, from: 'up' | 'down' | 'degraded' | null, to: 'up' | 'down' | 'degraded', at: number, message = 'connection refused') {
  const kind = to === 'down' ? 'down' : to === 'degraded' ? 'degraded' : 'recovered';
  return services.alerts.stateChanged({
    monitorId: m.id,
    workspaceId: String(workspaceId),
    from,
    to,
    kind,
    at: iso(at),
    message,
    regions: ['iad'],
    runner: 'local',
  });
}

const bodies = (receiver: HttpReceiver) => receiver.requests.map((r) => JSON.parse(r.body));

describe('the events a channel receives', () => {
  test('a channel that chose down hears of downs only; one that chose nothing hears of everything', async () => {
    const [downs, all] = [await startHttpReceiver(), await startHttpReceiver()];
    try {
      const m = await monitor();
      const onlyDown = await webhook(downs, [m], ['down']);
      await webhook(all, [m]);
      assert.deepEqual(onlyDown.events, ['down']);
      await change(m, 'up', 'down', T0);
      await change(m, 'down', 'up', T0 + 12 * MINUTE);
      assert.deepEqual(
        bodies(downs).map((b) => b.event),
        ['monitor.down'],
      );
      assert.deepEqual(
        bodies(all).map((b) => b.event),
        ['monitor.down', 'monitor.recovered'],
      );
    } finally {
      await downs.close();
      await all.close();
    }
  });

  test('events are refused by name, each once, and a refused change stores nothing', async () => {
    const receiver = await startHttpReceiver();
    try {
      const m = await monitor();
      const channel = await webhook(receiver, [m], ['down', 'up']);
      await assert.rejects(
        services.channels.create(system, workspaceId, { name: 'x', kind: 'desktop', events: ['down', 'sideways'] }),
        (error: AppError) => error.code === 'VALIDATION' && /events\.1/.test(error.message) && /one of down, degraded, up/.test(error.message),
      );
      await assert.rejects(
        services.channels.update(system, workspaceId, channel.id, { events: ['down', 'down'] }),
        (error: AppError) => error instanceof AppError && error.code === 'VALIDATION' && /events: must name each event once/.test(error.message),
      );
      assert.deepEqual((await services.channels.get(system, workspaceId, channel.id)).events, ['down', 'up']);
      const every = await services.channels.update(system, workspaceId, channel.id, { events: [] });
      assert.deepEqual(every.events, [], 'an empty choice receives every event again');
    } finally {
      await receiver.close();
    }
  });
});

describe('what an alert says', () => {
  test('a recovery says how long the monitor was down, and every alert links to its monitor and names its regions', async () => {
    const receiver = await startHttpReceiver();
    try {
      const m = await monitor();
      await webhook(receiver, [m]);
      await change(m, 'up', 'down', T0);
      await change(m, 'down', 'degraded', T0 + 5 * MINUTE);
      await change(m, 'degraded', 'up', T0 + 12 * MINUTE + 5_000);
      const [down, , recovered] = bodies(receiver);
      assert.equal(down.link, `http://localhost:5999/monitors/${m.id}`);
      assert.deepEqual(down.regions, ['iad']);
      assert.equal(down.downForMs, undefined);
      assert.equal(recovered.downForMs, 12 * MINUTE + 5_000, 'from the first failure, through the degraded spell');
      assert.equal(alertHeadline(recovered), `${m.name} is back up after 12 min 5 s`);
    } finally {
      await receiver.close();
    }
  });

  test('durations read in the two largest units', () => {
    assert.deepEqual([0, 45_000, MINUTE, 2 * 3_600_000, 2 * 3_600_000 + 5 * MINUTE, 3 * 86_400_000 + 4 * 3_600_000 + 7 * MINUTE].map(durationWords), [
      '0 s',
      '45 s',
      '1 min',
      '2 h',
      '2 h 5 min',
      '3 d 4 h',
    ]);
  });
});

describe('no storms', () => {
  test('a flapping monitor sends one alert with the count, holds the flips after it, and says where it settled', async () => {
    const receiver = await startHttpReceiver();
    try {
      const m = await monitor();
      await webhook(receiver, [m]);
      const states = ['down', 'up', 'down', 'up', 'down', 'up', 'down', 'up'] as const;
      const alerts = [];
      for (const [i, to] of states.entries()) alerts.push(await change(m, i === 0 ? 'up' : states[i - 1]!, to, T0 + i * MINUTE));
      const sent = bodies(receiver);
      assert.equal(sent.length, 5, 'four changes, then the one that says it flaps');
      assert.equal(sent[4].flapping, 5);
      assert.equal(alertHeadline(sent[4]), `${m.name} is flapping: 5 changes in 10 min, now down`);
      for (const alert of alerts.slice(5))
        assert.deepEqual(
          alert!.deliveries.map((d) => d.held),
          ['the monitor is flapping: one alert said so'],
        );

      assert.deepEqual(await services.alerts.settleFlapping(T0 + 7 * MINUTE + 9 * MINUTE), [], 'still within the window of the last change');
      const [settled] = await services.alerts.settleFlapping(T0 + 7 * MINUTE + 10 * MINUTE);
      assert.equal(settled?.kind, 'recovered');
      assert.match(settled!.message, /Stable again after flapping \(3 more changes were held\): now up/);
      assert.equal(bodies(receiver).length, 6);
      assert.deepEqual(await services.alerts.settleFlapping(T0 + 60 * MINUTE), [], 'settled once');
    } finally {
      await receiver.close();
    }
  });

  test('monitors going down within a minute: the channel hears of the first at once, of the others in one grouped alert', async () => {
    const receiver = await startHttpReceiver();
    try {
      const monitors = [await monitor(), await monitor(), await monitor(), await monitor()];
      await webhook(receiver, monitors);
      const recorded = [];
      const now = Date.now();
      for (const [i, m] of monitors.entries()) recorded.push(await change(m, 'up', 'down', now + i * 1_000, `refused ${i}`));
      assert.equal(receiver.requests.length, 1, 'only the first went at once');
      for (const alert of recorded.slice(1)) assert.match(alert!.deliveries[0]!.held!, /grouped/);

      await services.alerts.sendGroups(now + MINUTE - 1);
      assert.equal(receiver.requests.length, 1, 'the minute has not passed');
      await services.alerts.sendGroups(now + MINUTE);
      await receiver.waitFor(2);
      const grouped = bodies(receiver)[1];
      assert.deepEqual(
        grouped.group.map((g: { name: string }) => g.name),
        monitors.slice(1).map((m) => m.name),
      );
      assert.equal(alertHeadline(grouped), `3 monitors are down: ${monitors[1]!.name}, ${monitors[2]!.name} and ${monitors[3]!.name}`);
      assert.match(grouped.message, /refused 1\n.*refused 2\n.*refused 3/);
      await services.alerts.sendGroups(now + 10 * MINUTE);
      assert.equal(receiver.requests.length, 2, 'a group is sent once');
    } finally {
      await receiver.close();
    }
  });
});

describe('a failing channel', () => {
  test('a 5xx is tried three times; three failing alerts back the channel off, and a test that goes through ends it', async () => {
    const receiver = await startHttpReceiver({ status: 503 });
    try {
      const m = await monitor();
      const channel = await webhook(receiver, [m]);
      const first = await change(m, 'up', 'down', T0);
      assert.equal(receiver.requests.length, 3, 'one attempt and two retries');
      assert.match(first!.deliveries[0]!.error!, /answered 503/);
      let health = (await services.channels.get(system, workspaceId, channel.id)).health;
      assert.equal(health.failures, 1);
      assert.match(health.lastError!, /answered 503/);
      assert.equal(health.backoffUntil, null);

      await change(m, 'down', 'up', T0 + MINUTE);
      await change(m, 'up', 'down', T0 + 2 * MINUTE);
      health = (await services.channels.get(system, workspaceId, channel.id)).health;
      assert.equal(health.failures, 3);
      assert.ok(health.backoffUntil && Date.parse(health.backoffUntil) > Date.now(), 'backed off after three failures in a row');

      const tried = receiver.requests.length;
      const skipped = await change(m, 'down', 'up', T0 + 3 * MINUTE);
      assert.equal(receiver.requests.length, tried, 'a backed-off channel is not tried');
      assert.equal(skipped!.deliveries[0]!.held, 'backed off');
      assert.match(skipped!.deliveries[0]!.error!, /failed 3 times in a row; it is tried again after/);

      receiver.setStatus(200);
      assert.deepEqual(await services.channels.test(system, workspaceId, channel.id), { delivered: true, error: null });
      health = (await services.channels.get(system, workspaceId, channel.id)).health;
      assert.deepEqual([health.failures, health.backoffUntil], [0, null]);
      assert.ok(health.lastSentAt);
    } finally {
      await receiver.close();
    }
  });

  test('a refusal (4xx) is not retried', async () => {
    const receiver = await startHttpReceiver({ status: 400 });
    try {
      const m = await monitor();
      await webhook(receiver, [m]);
      const alert = await change(m, 'up', 'down', T0);
      assert.equal(receiver.requests.length, 1);
      assert.match(alert!.deliveries[0]!.error!, /answered 400/);
    } finally {
      await receiver.close();
    }
  });
});

describe('this machine offline', () => {
  test('alerts of its checks of targets beyond it are held; back online, the monitors still failing are told once, the recovered ones not at all', async () => {
    const receiver = await startHttpReceiver();
    try {
      const [stillDown, recovered, local] = [await monitor(), await monitor(), await monitor()];
      // A real check of a closed port records the monitor down, as the engine would; then its
      // target moves beyond this machine (nothing connects to it: no check runs here).
      await services.monitors.trigger(system, workspaceId, stillDown.id);
      for (const m of [stillDown, recovered]) await services.monitors.update(system, workspaceId, 'tcp', m.id, { uri: 'db.internal:5432' });
      await webhook(receiver, [stillDown, recovered, local]);
      offline = { since: T0, reason: 'this machine has no network' };
      const held = await change(stillDown, 'up', 'down', T0 + 1_000);
      await change(recovered, 'up', 'down', T0 + 2_000);
      await change(recovered, 'down', 'up', T0 + 3_000);
      assert.equal(held!.deliveries[0]!.held, 'this machine is offline: held until it is back');
      assert.equal(receiver.requests.length, 0, 'nothing is sent while offline');
      // A target on this machine fails for its own reason: told at once.
      await change(local, 'up', 'down', T0 + 4_000);
      assert.equal(receiver.requests.length, 1);

      offline = undefined;
      const told = await services.alerts.backOnline({ since: T0, until: T0 + 5 * MINUTE });
      assert.deepEqual(
        told.map((a) => [a.monitorId, a.kind]),
        [[stillDown.id, 'down']],
      );
      assert.match(told[0]!.message, /held while this machine was offline for 5 min/);
      assert.equal(receiver.requests.length, 2);
      assert.deepEqual(await services.alerts.backOnline({ since: T0, until: T0 + 6 * MINUTE }), [], 'told once');

      // Its recovery, after that, is told as any.
      await change(stillDown, 'down', 'up', T0 + 10 * MINUTE);
      assert.deepEqual(
        bodies(receiver).map((b) => [b.monitor.id, b.event]),
        [
          [local.id, 'monitor.down'],
          [stillDown.id, 'monitor.down'],
          [stillDown.id, 'monitor.recovered'],
        ],
      );
    } finally {
      offline = undefined;
      await receiver.close();
    }
  });
});

describe('reminders', () => {
  test('a monitor still down reminds its channels at its interval, once per interval, and a refused interval is named', async () => {
    const receiver = await startHttpReceiver();
    try {
      await assert.rejects(
        services.monitors.create(system, workspaceId, 'tcp', {
          name: 'too eager',
          uri: '127.0.0.1:9',
          periodicity: '10m',
          regions: ['iad'],
          remindEvery: 60_000,
        }),
        (error: AppError) => error.code === 'VALIDATION' && /remindEvery: must be at least 5 minutes/.test(error.message),
      );
      const m = await services.monitors.create(system, workspaceId, 'tcp', {
        name: 'reminding',
        uri: '127.0.0.1:9',
        periodicity: '10m',
        regions: ['iad'],
        remindEvery: 30 * MINUTE,
      });
      assert.equal(m.remindEvery, 30 * MINUTE);
      await webhook(receiver, [m]);
      // A real check of a closed port records it down; its alert goes out.
      const [result] = await services.monitors.trigger(system, workspaceId, m.id);
      const downAt = Date.parse(result!.startedAt);
      await change(m, 'up', 'down', downAt);
      assert.equal(receiver.requests.length, 1);

      assert.deepEqual(await services.alerts.remind(downAt + 29 * MINUTE), [], 'not before its interval');
      const [reminder] = await services.alerts.remind(downAt + 31 * MINUTE);
      assert.equal(reminder?.kind, 'down');
      assert.match(reminder!.message, /Still down since .* for 31 min/);
      const body = bodies(receiver)[1];
      assert.equal(alertHeadline(body), `${m.name} is still down (since ${new Date(downAt).toISOString()})`);
      assert.deepEqual(await services.alerts.remind(downAt + 32 * MINUTE), [], 'once per interval');
      assert.equal((await services.alerts.remind(downAt + 62 * MINUTE)).length, 1, 'and again after the next');
    } finally {
      await receiver.close();
    }
  });
});
