import type { SecureContext } from 'node:tls';
import type { DestinationPolicy } from '../domain/destinations.ts';
import type { ProbeResult } from '../domain/monitors/check-results.ts';
import type { MonitorType } from '../domain/monitors/monitor-types.ts';
import type { MonitorOf } from '../domain/monitors/monitors.ts';
import { probeHttp } from './http-probe.ts';
import { emptyTiming } from './connection.ts';
import { probeResult } from './outcome.ts';
import { probeTcp } from './tcp-probe.ts';

/**
 * A monitor of one type as a runner keeps it while it is scheduled: what its checks and metrics
 * read, without what only people read (description, tags, times) nor where else it is checked
 * from (its private locations). At 100,000 monitors every field kept costs megabytes.
 */
export type ScheduledOf<K extends MonitorType> = Omit<MonitorOf<K>, 'description' | 'tags' | 'createdAt' | 'updatedAt' | 'privateLocations'>;

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
}

export type Probe<K extends MonitorType> = (monitor: ScheduledOf<K>, context: ProbeContext) => Promise<ProbeResult>;

/** The gRPC probe with the protobuf runtime and the health messages, loaded with the first gRPC check. */
let grpcProbeModule: Promise<typeof import('./grpc-probe.ts')> | undefined;
const grpcProbe = () => (grpcProbeModule ??= import('./grpc-probe.ts'));

const COMMANDS_REFUSED = 'this runner does not run commands: start it with --allow-commands to check stdio MCP servers';

/** The MCP probe with the MCP client, loaded with the first MCP check. */
let mcpProbeModule: Promise<typeof import('./mcp-probe.ts')> | undefined;
const mcpProbe = () => (mcpProbeModule ??= import('./mcp-probe.ts'));

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
};
