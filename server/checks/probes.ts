import type { SecureContext } from 'node:tls';
import type { DestinationPolicy } from '../domain/destinations.ts';
import type { ProbeResult } from '../domain/monitors/check-results.ts';
import type { MonitorType } from '../domain/monitors/monitor-types.ts';
import type { MonitorOf } from '../domain/monitors/monitors.ts';
import { probeHttp } from './http-probe.ts';
import { probeCertificate } from './certificate-probe.ts';
import { emptyTiming } from './connection.ts';
// Static: the DNS probe is small, and node:dns is loaded already (the destination policy's lookup).
import { probeDns } from './dns-probe.ts';
import { probeResult } from './outcome.ts';
import { probeTcp } from './tcp-probe.ts';
import type { HeartbeatEvaluator } from './heartbeat-watch.ts';

/**
 * A monitor of one type as a runner keeps it while it is scheduled: what its checks and metrics
 * read, without what only people read (description, tags, times) nor where else it is checked
 * from (its private locations). At 100,000 monitors every field kept costs megabytes.
 */
export type ScheduledOf<K extends MonitorType> = Omit<MonitorOf<K>, 'description' | 'tags' | 'group' | 'createdAt' | 'updatedAt' | 'privateLocations'>;

/** What a runner gives its probes. */
export interface ProbeContext {
  /** Aborted when the runner closes: ends the checks in flight. */
  stop: AbortSignal;
  /**
   * Whether this runner runs the programs of stdio MCP monitors: the service's own runner does
   * (each such monitor opts in); a private location's only when started with --allow-commands.
   */
  allowCommands: boolean;
  /** Where checks may connect (domain/destinations.ts). */
  destinations: DestinationPolicy;
  /** The trust stores and user agent, built with the first probe that needs them: reading the stores takes a moment. */
  secure(): { trust: SecureContext; userAgent: string; stop: AbortSignal; destinations: DestinationPolicy };
  /**
   * The engine's evaluation of heartbeat monitors, which reads their state (heartbeat-watch.ts);
   * absent on a private location's runner, which never checks them.
   */
  heartbeats?: HeartbeatEvaluator;
}

/** A probe's result; null when there is nothing to record yet (a heartbeat monitor waiting for its first deadline). */
export type Probe<K extends MonitorType> = (
  monitor: ScheduledOf<K>,
  context: ProbeContext,
) => Promise<K extends 'heartbeat' ? ProbeResult | null : ProbeResult>;

/** The gRPC probe with the protobuf runtime and the health messages, loaded with the first gRPC check. */
let grpcProbeModule: Promise<typeof import('./grpc-probe.ts')> | undefined;
const grpcProbe = () => (grpcProbeModule ??= import('./grpc-probe.ts'));

const HEARTBEATS_ELSEWHERE = 'heartbeat monitors are not checked by private locations: their pings come to the service';

const COMMANDS_REFUSED = 'this runner does not run commands: start it with --allow-commands to check stdio MCP servers';

/** The MCP probe with the MCP client, loaded with the first MCP check. */
let mcpProbeModule: Promise<typeof import('./mcp-probe.ts')> | undefined;
const mcpProbe = () => (mcpProbeModule ??= import('./mcp-probe.ts'));

/** The WebSocket probe with the ws client, loaded with the first WebSocket check. */
let websocketProbeModule: Promise<typeof import('./websocket-probe.ts')> | undefined;
const websocketProbe = () => (websocketProbeModule ??= import('./websocket-probe.ts'));

/** The ping probe (it runs the system's ping), loaded with the first ping check. */
let pingProbeModule: Promise<typeof import('./ping-probe.ts')> | undefined;
const pingProbe = () => (pingProbeModule ??= import('./ping-probe.ts'));

/**
 * The probe of each monitor type (domain/monitors/monitor-types.ts), each of the shape of
 * tcp-probe.ts: connect, time the phases, return an outcome. Each returns the probe's own
 * promise, with no async function around it: one promise and one turn fewer per check.
 */
export const probes: { [K in MonitorType]: Probe<K> } = {
  tcp: (monitor, context) => probeTcp(monitor, context),
  grpc: (monitor, context) => grpcProbe().then((module) => module.probeGrpc(monitor, context.secure())),
  http: (monitor, context) => probeHttp(monitor, context.secure()),
  mcp: (monitor, context) =>
    monitor.transport === 'stdio' && !context.allowCommands
      ? Promise.resolve(probeResult('down', 0, emptyTiming(), 0, COMMANDS_REFUSED))
      : mcpProbe().then((module) => {
          const { trust, userAgent } = context.secure();
          return module.probeMcp({ ...monitor, degradedAfter: monitor.degraded }, { stop: context.stop, destinations: context.destinations, trust, userAgent });
        }),
  websocket: (monitor, context) => websocketProbe().then((module) => module.probeWebSocket(monitor, context.secure())),
  certificate: (monitor, context) => probeCertificate(monitor, context.secure()),
  ping: (monitor, context) => pingProbe().then((module) => module.probePing(monitor, context)),
  dns: (monitor, context) => probeDns(monitor, context),
  // Nothing is probed: the engine evaluates the state the monitor's pings left (heartbeat-probe.ts).
  heartbeat: (monitor, context) =>
    context.heartbeats ? context.heartbeats.evaluate(monitor) : Promise.resolve(probeResult('down', 0, emptyTiming(), 0, HEARTBEATS_ELSEWHERE)),
};
