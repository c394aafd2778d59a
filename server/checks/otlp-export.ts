import type { Attributes, Counter, Gauge, Histogram } from '@opentelemetry/api';
import type { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { Logger } from 'pino';
import type { DestinationPolicy } from '../domain/destinations.ts';
import type { Monitor } from '../domain/monitors/monitors.ts';
import type { StoredCheck } from './result-store.ts';

/**
 * Metrics export (SPEC 2.9) with the OpenTelemetry SDK: each monitor with an OTLP endpoint has
 * its measurements exported there over OTLP/HTTP with its headers. Exports run on the SDK's own
 * timer, with a timeout,
 * after the check is stored: a slow or failing collector never delays a check or breaks one.
 * The names are documented in docs/reference/metrics.md.
 *
 * The SDK is loaded with the first check of a monitor that has an endpoint, so a service that
 * exports nothing never loads it; what is recorded meanwhile is kept and recorded once it is in.
 *
 * Endpoints go through the destination policy: an address it refuses is never connected to, and
 * each refusal is logged as a warning naming the monitor.
 */

/** The parts of the OpenTelemetry SDK the export uses. */
async function loadSdk() {
  const [{ OTLPMetricExporter }, { resourceFromAttributes }, { MeterProvider, PeriodicExportingMetricReader }] = await Promise.all([
    import('@opentelemetry/exporter-metrics-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-metrics'),
  ]);
  return { OTLPMetricExporter, resourceFromAttributes, MeterProvider, PeriodicExportingMetricReader };
}
type Sdk = Awaited<ReturnType<typeof loadSdk>>;

/** Durations are exported in seconds, as OpenTelemetry's semantic conventions do. */
const BOUNDARIES_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const PHASES = ['dns', 'connect', 'tls', 'ttfb', 'transfer'] as const;
const EXPORT_TIMEOUT_MS = 5_000;
/** A collector that does not answer never holds up stopping the service longer than this. */
const CLOSE_WAIT_MS = 2_000;

interface Instruments {
  duration: Histogram;
  phases: Record<(typeof PHASES)[number], Histogram>;
  checks: Counter;
  serving: Gauge;
  mcpTools: Gauge;
  dnsAnswers: Gauge;
  certificateDaysLeft: Gauge;
  websocketMessageSize: Gauge;
  pingLoss: Gauge;
  heartbeatSincePing: Gauge;
}

type OtlpEndpoint = NonNullable<Monitor['openTelemetry']>;

interface Exporter {
  /** Endpoint and headers: a change means a new exporter. */
  key: string;
  provider: MeterProvider;
  instruments: Instruments;
}

/** The endpoint of a monitor whose address the policy refuses before any lookup (an IP address, a metadata name). */
interface RefusedEndpoint {
  key: string;
}

export interface OtlpExportOptions {
  /** How often each endpoint receives the accumulated metrics. */
  intervalMs: number;
  log: Logger;
  version: string;
  /** Where exports may connect; absent: anywhere. */
  destinations?: DestinationPolicy;
}

function instrumentsOf(provider: MeterProvider, version: string): Instruments {
  const meter = provider.getMeter('statusdesk.checks', version);
  const histogram = (name: string, description: string) =>
    meter.createHistogram(name, { description, unit: 's', advice: { explicitBucketBoundaries: BOUNDARIES_S } });
  return {
    duration: histogram('statusdesk.check.duration', 'Duration of the whole check, retries included.'),
    phases: {
      dns: histogram('statusdesk.check.dns.duration', 'Duration of the DNS lookup.'),
      connect: histogram('statusdesk.check.connect.duration', 'Duration of the TCP connection establishment.'),
      tls: histogram('statusdesk.check.tls.duration', 'Duration of the TLS handshake.'),
      ttfb: histogram('statusdesk.check.ttfb.duration', 'Time from sending the request to the first byte of the answer.'),
      transfer: histogram('statusdesk.check.transfer.duration', 'Time from the first byte of the answer to its end.'),
    },
    checks: meter.createCounter('statusdesk.check.count', { description: 'Checks run, by result.', unit: '{check}' }),
    serving: meter.createGauge('statusdesk.grpc.health.serving', { description: '1 while the gRPC service reports SERVING, else 0.', unit: '1' }),
    mcpTools: meter.createGauge('statusdesk.mcp.tools', { description: 'Tools the MCP server lists, at its last check that listed them.', unit: '{tool}' }),
    dnsAnswers: meter.createGauge('statusdesk.dns.answers', {
      description: 'Records in the answer of a DNS check, at its last check that got an answer without error (0: the name has none of the type).',
      unit: '{record}',
    }),
    certificateDaysLeft: meter.createGauge('statusdesk.certificate.days_left', {
      description: "Whole days until the server's certificate expires, at its last check that saw one (negative once expired).",
      unit: 'd',
    }),
    websocketMessageSize: meter.createGauge('statusdesk.websocket.message.size', {
      description: 'Size of the first message a WebSocket check received, at its last check that waited for one.',
      unit: 'By',
    }),
    pingLoss: meter.createGauge('statusdesk.ping.packet_loss', { description: 'Packets lost by the last check that ran ping, in percent.', unit: '%' }),
    heartbeatSincePing: meter.createGauge('statusdesk.heartbeat.since_last_ping', {
      description: "Time from a heartbeat monitor's latest ping to its last recorded state (its run time is statusdesk.check.duration).",
      unit: 's',
    }),
  };
}

export function createOtlpExport(options: OtlpExportOptions) {
  /**
   * One exporter per monitor. Shared ones would be fewer requests, but cumulative series cannot
   * be removed from a provider: a monitor deleted or moved elsewhere would go on being exported.
   */
  const exporters = new Map<number, Exporter | RefusedEndpoint>();
  let sdk: Sdk | undefined;
  /** While the SDK loads: the calls made meanwhile, in order, run once it is in. */
  let waiting: ((sdk: Sdk) => void)[] | undefined;
  let loading: Promise<void> | undefined;

  /** Runs `call` once the SDK is in, after the calls queued before it; the first call loads it. */
  function whenLoaded(call: (sdk: Sdk) => void): void {
    if (!waiting) {
      const queue: ((sdk: Sdk) => void)[] = (waiting = []);
      loading = loadSdk().then(
        (loaded) => {
          sdk = loaded;
          waiting = undefined;
          for (const queued of queue) queued(loaded);
        },
        (error: unknown) => {
          // What was queued is lost; the next check tries again.
          waiting = undefined;
          options.log.error({ err: error }, 'loading the OpenTelemetry SDK failed');
        },
      );
    }
    waiting.push(call);
  }

  /** The policy's lookup for an endpoint, and its refusal when the host alone tells (an IP address); a refusal is logged. */
  function guarded(monitorId: number, endpoint: string) {
    const { destinations } = options;
    if (!destinations) return {};
    const url = new URL(endpoint);
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const refused = (reason: string) => options.log.warn({ monitorId }, `metrics export refused: ${reason}`);
    const now = destinations.refusalOfHost(url.hostname.replace(/^\[|\]$/g, ''), port);
    if (now) refused(now);
    return { refusedNow: now !== undefined, lookup: destinations.lookup(port, refused) };
  }

  function exporterFor(sdk: Sdk, monitorId: number, endpoint: string, headers: Record<string, string>): Exporter | undefined {
    const key = JSON.stringify([endpoint, Object.entries(headers).sort()]);
    const current = exporters.get(monitorId);
    if (current?.key === key) return 'provider' in current ? current : undefined;
    if (current) stop(monitorId);
    const { refusedNow, lookup } = guarded(monitorId, endpoint);
    if (refusedNow) {
      exporters.set(monitorId, { key });
      return undefined;
    }
    const { MeterProvider, OTLPMetricExporter, PeriodicExportingMetricReader, resourceFromAttributes } = sdk;
    const reader = new PeriodicExportingMetricReader({
      // Every connection of the exporter's agent resolves through the policy's lookup.
      exporter: new OTLPMetricExporter({
        url: endpoint,
        headers,
        timeoutMillis: EXPORT_TIMEOUT_MS,
        ...(lookup ? { httpAgentOptions: { keepAlive: true, lookup } } : {}),
      }),
      exportIntervalMillis: options.intervalMs,
      exportTimeoutMillis: Math.min(EXPORT_TIMEOUT_MS, options.intervalMs),
    });
    const provider = new MeterProvider({
      resource: resourceFromAttributes({ 'service.name': 'statusdesk', 'service.version': options.version }),
      readers: [reader],
    });
    const exporter = { key, provider, instruments: instrumentsOf(provider, options.version) };
    exporters.set(monitorId, exporter);
    return exporter;
  }

  function stop(monitorId: number): void {
    const exporter = exporters.get(monitorId);
    if (!exporter) return;
    exporters.delete(monitorId);
    if (!('provider' in exporter)) return;
    exporter.provider.shutdown().catch((error: Error) => options.log.debug({ err: error }, 'closing an OTLP exporter failed'));
  }

  /** Stops exporting for a monitor: what it recorded is sent one last time, then its exporter closes. */
  function forget(monitorId: number): void {
    if (sdk) stop(monitorId);
    else if (waiting) waiting.push(() => stop(monitorId));
  }

  /** One check's measurements, once per region it stands for. */
  function record(sdk: Sdk, monitor: Pick<Monitor, 'id' | 'name' | 'type' | 'openTelemetry'>, endpoint: OtlpEndpoint, check: StoredCheck): void {
    const exporter = exporterFor(sdk, check.monitorId, endpoint.endpoint, endpoint.headers);
    if (!exporter) return;
    const { instruments } = exporter;
    for (const region of check.regions) {
      const attributes: Attributes = {
        'statusdesk.monitor.id': monitor.id,
        'statusdesk.monitor.name': monitor.name,
        'statusdesk.monitor.type': monitor.type,
        'statusdesk.region': region,
        'statusdesk.runner': check.runner,
      };
      instruments.duration.record(check.latencyMs / 1000, attributes);
      for (const phase of PHASES) {
        const ms = check.timing[phase];
        if (ms !== null) instruments.phases[phase].record(ms / 1000, attributes);
      }
      instruments.checks.add(1, { ...attributes, 'statusdesk.check.result': check.result });
      if (monitor.type === 'grpc') instruments.serving.record(check.grpcStatus === 'SERVING' ? 1 : 0, attributes);
      if (check.mcp?.status === 'OK') instruments.mcpTools.record(check.mcp.tools.length, attributes);
      if (check.dns?.rcode === 'NOERROR') instruments.dnsAnswers.record(check.dns.answers.length, attributes);
      if (check.certificate) instruments.certificateDaysLeft.record(check.certificate.daysLeft, attributes);
      if (typeof check.websocket?.messageBytes === 'number') instruments.websocketMessageSize.record(check.websocket.messageBytes, attributes);
      if (check.ping) instruments.pingLoss.record(check.ping.lossPercent, attributes);
      if (check.heartbeat?.lastPingAt)
        instruments.heartbeatSincePing.record(Math.max(0, check.startedAt - Date.parse(check.heartbeat.lastPingAt)) / 1000, attributes);
    }
  }

  return {
    /** Records one check's measurements; a monitor without an endpoint stops being exported. */
    record(monitor: Pick<Monitor, 'id' | 'name' | 'type' | 'openTelemetry'>, check: StoredCheck): void {
      const endpoint = monitor.openTelemetry;
      if (!endpoint) return forget(check.monitorId);
      if (sdk) return record(sdk, monitor, endpoint, check);
      whenLoaded((loaded) => record(loaded, monitor, endpoint, check));
    },

    forget,

    /** Exports what is pending everywhere, then stops; waits at most CLOSE_WAIT_MS for the SDK and collectors. */
    async close(): Promise<void> {
      const closing = (async () => {
        await loading;
        const all = [...exporters.values()].filter((e) => 'provider' in e);
        exporters.clear();
        await Promise.allSettled(all.map((e) => e.provider.shutdown()));
      })();
      await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
    },
  };
}

export type OtlpExport = ReturnType<typeof createOtlpExport>;
