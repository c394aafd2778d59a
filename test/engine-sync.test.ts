/**
 * The check engine's sync (server/checks/engine.ts): monitors changed by another process on the
 * same data folder are scheduled, rescheduled or forgotten at the next heartbeat. The heartbeat's
 * interval runs on mock timers; everything else is real (SQLite file, two connections).
 */
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import pino from 'pino';
import { type CheckEngine, createCheckEngine } from '../server/checks/engine.ts';
import type { Db } from '../server/db/open.ts';
import type { Actor } from '../server/domain/actor.ts';
import { createServices, type Services } from '../server/services.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { openTestDatabase } from './support/database.ts';
import { tempDir } from './support/harness.ts';
import { eventually } from './support/wait.ts';

const HEARTBEAT_MS = 15_000;
const input = { periodicity: '30s', uri: '127.0.0.1:9', timeout: 1_000 } as const;

interface Processes {
  engine: CheckEngine;
  /** The engine's own connection. */
  ours: Db;
  /** The other process: its own connection, and services without this engine. */
  theirs: Db;
  other: Services;
  actor: Actor;
  workspaceId: number;
}

/** An engine with its heartbeat on mock timers, and another process on the same data folder; all removed after `work`. */
async function withAnotherProcess(work: (p: Processes) => Promise<void>): Promise<void> {
  const dir = await tempDir();
  const ours = await openTestDatabase(dir.path);
  const theirs = await openTestDatabase(dir.path);
  mock.timers.enable({ apis: ['setInterval'] });
  const engine = createCheckEngine(ours, { log: pino({ enabled: false }), version: 'test', schedule: true });
  try {
    const userId = await ensureOwner(theirs);
    const actor: Actor = { type: 'user', userId, surface: 'cli' };
    const other = createServices(theirs);
    const workspaceId = Number((await other.workspaces.getBySlug(actor, 'personal')).id);
    await work({ engine, ours, theirs, other, actor, workspaceId });
  } finally {
    await engine.close();
    mock.timers.reset();
    await ours.destroy();
    await theirs.destroy();
    await dir.remove();
  }
}

/** Ticks one heartbeat and waits until monitor `id` is scheduled (or not). */
async function heartbeatUntil(engine: CheckEngine, id: string | number, scheduled: boolean, what: string): Promise<void> {
  mock.timers.tick(HEARTBEAT_MS);
  await eventually(
    () => engine.scheduler.has(Number(id)),
    (has) => has === scheduled,
    what,
  );
}

test('the heartbeat picks up monitors created, changed, paused and deleted by another process', () =>
  withAnotherProcess(async ({ engine, other, actor, workspaceId }) => {
    const kept = await other.monitors.create(actor, workspaceId, 'tcp', { ...input, name: 'kept' });
    const paused = await other.monitors.create(actor, workspaceId, 'tcp', { ...input, name: 'paused' });
    const deleted = await other.monitors.create(actor, workspaceId, 'tcp', { ...input, name: 'deleted' });
    await engine.start();
    const scheduled = () => [kept, paused, deleted].map((m) => engine.scheduler.has(Number(m.id)));
    assert.deepEqual(scheduled(), [true, true, true]);

    await other.monitors.update(actor, workspaceId, 'tcp', paused.id, { active: false });
    await other.monitors.delete(actor, workspaceId, deleted.id);
    const created = await other.monitors.create(actor, workspaceId, 'tcp', { ...input, name: 'created' });
    await other.monitors.update(actor, workspaceId, 'tcp', kept.id, { periodicity: '1m' });
    assert.equal(engine.scheduler.has(Number(created.id)), false, 'nothing told this engine yet');

    await heartbeatUntil(engine, created.id, true, 'the created monitor is scheduled');
    assert.deepEqual(scheduled(), [true, false, false], 'the paused and the deleted monitors are forgotten');
    assert.equal(engine.scheduler.load.jobs, 2);

    // The next heartbeat (done once it has seen one more monitor) keeps those that did not change.
    const later = await other.monitors.create(actor, workspaceId, 'tcp', { ...input, name: 'later' });
    await heartbeatUntil(engine, later.id, true, 'the later monitor is scheduled');
    assert.deepEqual(scheduled(), [true, false, false]);
    assert.equal(engine.scheduler.has(Number(created.id)), true);
    assert.equal(engine.scheduler.load.jobs, 3);
  }));

test('the heartbeat forgets a monitor left without regions by another process, and schedules it again when it has one', () =>
  withAnotherProcess(async ({ engine, theirs, other, actor, workspaceId }) => {
    const monitor = await other.monitors.create(actor, workspaceId, 'tcp', { ...input, name: 'office only' });
    await engine.start();
    assert.equal(engine.scheduler.has(Number(monitor.id)), true);

    // As a monitor that runs only from private locations is stored: no region.
    const setRegions = (regions: string[]) =>
      theirs
        .updateTable('monitors')
        .set((eb) => ({ regions: JSON.stringify(regions), revision: eb('revision', '+', 1) }))
        .where('id', '=', Number(monitor.id))
        .execute();
    await setRegions([]);
    await heartbeatUntil(engine, monitor.id, false, 'the monitor without regions is forgotten');
    await setRegions(['iad']);
    await heartbeatUntil(engine, monitor.id, true, 'the monitor with a region again is scheduled');
  }));

test("a heartbeat reads again what was written on the engine's own connection without telling it, and keeps the rest when nothing changed", () =>
  withAnotherProcess(async ({ engine, ours, other, actor, workspaceId }) => {
    const monitor = await other.monitors.create(actor, workspaceId, 'tcp', { ...input, name: 'written here' });
    await engine.start();
    assert.equal(engine.scheduler.has(Number(monitor.id)), true);

    // Heartbeats with nothing changed leave the schedule as it is.
    mock.timers.tick(HEARTBEAT_MS);
    mock.timers.tick(HEARTBEAT_MS);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(engine.scheduler.has(Number(monitor.id)), true);

    // A commit of this connection does not change SQLite's data_version: the write itself must be seen.
    await ours
      .updateTable('monitors')
      .set((eb) => ({ active: 0, revision: eb('revision', '+', 1) }))
      .where('id', '=', Number(monitor.id))
      .execute();
    await heartbeatUntil(engine, monitor.id, false, "the monitor paused on the engine's own connection is forgotten");
  }));
