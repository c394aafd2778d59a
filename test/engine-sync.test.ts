/**
 * The check engine's sync (server/checks/engine.ts): monitors changed by another process on the
 * same data folder are scheduled, rescheduled or forgotten at the next heartbeat. The heartbeat's
 * interval runs on mock timers; everything else is real (SQLite file, two connections).
 */
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import pino from 'pino';
import { createCheckEngine } from '../server/checks/engine.ts';
import { openDatabase } from '../server/db/open.ts';
import type { Actor } from '../server/domain/actor.ts';
import { createServices } from '../server/services.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { tempDir } from './support/harness.ts';
import { eventually } from './support/wait.ts';

const HEARTBEAT_MS = 15_000;

test('the heartbeat picks up monitors created, changed, paused and deleted by another process', async () => {
  const dir = await tempDir();
  const ours = await openDatabase(dir.path);
  const theirs = await openDatabase(dir.path);
  mock.timers.enable({ apis: ['setInterval'] });
  const engine = createCheckEngine(ours, { log: pino({ enabled: false }), version: 'test', schedule: true });
  try {
    const userId = await ensureOwner(theirs);
    const actor: Actor = { type: 'user', userId, surface: 'cli' };
    // The other process: its own connection, and services without this engine.
    const other = createServices(theirs);
    const workspaceId = Number((await other.workspaces.getBySlug(actor, 'personal')).id);
    const input = { periodicity: '30s', uri: '127.0.0.1:9', timeout: 1_000 } as const;
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

    mock.timers.tick(HEARTBEAT_MS);
    await eventually(
      () => engine.scheduler.has(Number(created.id)),
      (has) => has,
      'the created monitor is scheduled',
    );
    assert.deepEqual(scheduled(), [true, false, false], 'the paused and the deleted monitors are forgotten');
    assert.equal(engine.scheduler.load.jobs, 2);

    // The next heartbeat (done once it has seen one more monitor) keeps those that did not change.
    const later = await other.monitors.create(actor, workspaceId, 'tcp', { ...input, name: 'later' });
    mock.timers.tick(HEARTBEAT_MS);
    await eventually(
      () => engine.scheduler.has(Number(later.id)),
      (has) => has,
      'the later monitor is scheduled',
    );
    assert.deepEqual(scheduled(), [true, false, false]);
    assert.equal(engine.scheduler.has(Number(created.id)), true);
    assert.equal(engine.scheduler.load.jobs, 3);
  } finally {
    await engine.close();
    mock.timers.reset();
    await ours.destroy();
    await theirs.destroy();
    await dir.remove();
  }
});

test('the heartbeat forgets a monitor left without regions by another process, and schedules it again when it has one', async () => {
  const dir = await tempDir();
  const ours = await openDatabase(dir.path);
  const theirs = await openDatabase(dir.path);
  mock.timers.enable({ apis: ['setInterval'] });
  const engine = createCheckEngine(ours, { log: pino({ enabled: false }), version: 'test', schedule: true });
  try {
    const userId = await ensureOwner(theirs);
    const actor: Actor = { type: 'user', userId, surface: 'cli' };
    const other = createServices(theirs);
    const workspaceId = Number((await other.workspaces.getBySlug(actor, 'personal')).id);
    const monitor = await other.monitors.create(actor, workspaceId, 'tcp', { name: 'office only', periodicity: '30s', uri: '127.0.0.1:9', timeout: 1_000 });
    const id = Number(monitor.id);
    await engine.start();
    assert.equal(engine.scheduler.has(id), true);

    // As a monitor that runs only from private locations is stored: no region.
    const setRegions = (regions: string[]) =>
      theirs
        .updateTable('monitors')
        .set((eb) => ({ regions: JSON.stringify(regions), revision: eb('revision', '+', 1) }))
        .where('id', '=', id)
        .execute();
    await setRegions([]);
    mock.timers.tick(HEARTBEAT_MS);
    await eventually(
      () => engine.scheduler.has(id),
      (has) => !has,
      'the monitor without regions is forgotten',
    );
    await setRegions(['iad']);
    mock.timers.tick(HEARTBEAT_MS);
    await eventually(
      () => engine.scheduler.has(id),
      (has) => has,
      'the monitor with a region again is scheduled',
    );
  } finally {
    await engine.close();
    mock.timers.reset();
    await ours.destroy();
    await theirs.destroy();
    await dir.remove();
  }
});
