/**
 * Which runner runs the program of a stdio MCP monitor: the service's own (each such monitor
 * opted in when saved), and a private location's only when started with --allow-commands.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emptyTiming } from '../server/checks/connection.ts';
import { type ProbeContext, probes, type ScheduledOf } from '../server/checks/probes.ts';
import { createDestinationPolicy } from '../server/domain/destinations.ts';
import { stdioTarget } from './support/mcp-servers.ts';

function contextOf(allowCommands: boolean): ProbeContext {
  const stop = new AbortController().signal;
  const destinations = createDestinationPolicy();
  return { stop, allowCommands, destinations, secure: () => ({ trust: undefined as never, userAgent: 'test', stop, destinations }) };
}

/** A scheduled stdio MCP monitor running the stdio test server. */
function stdioMonitor(): ScheduledOf<'mcp'> {
  const { degradedAfter: _d, ...target } = stdioTarget('v2');
  return {
    ...target,
    id: '1',
    workspaceId: '1',
    type: 'mcp',
    name: 'stdio',
    active: true,
    periodicity: '1m',
    regions: ['iad'],
    degraded: null,
    remindEvery: null,
    openTelemetry: null,
  };
}

test('a runner without --allow-commands does not start the program: the check is down and says how to allow it', async () => {
  const result = await probes.mcp(stdioMonitor(), contextOf(false));
  assert.equal(result.result, 'down');
  assert.equal(result.attempts, 0, 'nothing was started');
  assert.match(result.message, /does not run commands: start it with --allow-commands/);
  assert.deepEqual(result.timing, emptyTiming());
});

test('a runner that allows commands runs it', async () => {
  const result = await probes.mcp(stdioMonitor(), contextOf(true));
  assert.equal(result.result, 'up', result.message);
  assert.equal(result.mcp?.status, 'OK');
});
