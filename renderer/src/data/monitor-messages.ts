// A monitor as a create or an update sends it: the generated message of its type (monitor.v1),
// typed. Types alone, which the form's model (plain TypeScript, tested in Node) and the data
// hooks (data/monitors.ts) share.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type {
  CertificateMonitorSchema,
  DNSMonitorSchema,
  GRPCMonitorSchema,
  HeartbeatMonitorSchema,
  HTTPMonitorSchema,
  MCPMonitorSchema,
  PingMonitorSchema,
  TCPMonitorSchema,
  WebSocketMonitorSchema,
} from '../../../proto/gen/monitor/v1/monitor_pb.js';

export type TcpMonitorInit = MessageInitShape<typeof TCPMonitorSchema>;
export type GrpcMonitorInit = MessageInitShape<typeof GRPCMonitorSchema>;
export type HttpMonitorInit = MessageInitShape<typeof HTTPMonitorSchema>;
export type McpMonitorInit = MessageInitShape<typeof MCPMonitorSchema>;
export type PingMonitorInit = MessageInitShape<typeof PingMonitorSchema>;
export type WebSocketMonitorInit = MessageInitShape<typeof WebSocketMonitorSchema>;
export type CertificateMonitorInit = MessageInitShape<typeof CertificateMonitorSchema>;
export type DnsMonitorInit = MessageInitShape<typeof DNSMonitorSchema>;
export type HeartbeatMonitorInit = MessageInitShape<typeof HeartbeatMonitorSchema>;

/** A monitor as a create or an update carries it, with its type. */
export type WireMonitor =
  | { type: 'tcp'; monitor: TcpMonitorInit }
  | { type: 'grpc'; monitor: GrpcMonitorInit }
  | { type: 'http'; monitor: HttpMonitorInit }
  | { type: 'mcp'; monitor: McpMonitorInit }
  | { type: 'websocket'; monitor: WebSocketMonitorInit }
  | { type: 'certificate'; monitor: CertificateMonitorInit }
  | { type: 'dns'; monitor: DnsMonitorInit }
  | { type: 'ping'; monitor: PingMonitorInit }
  | { type: 'heartbeat'; monitor: HeartbeatMonitorInit };

/** The monitor of an update with its mask: only the changed fields, each named by its proto name. */
export type WireUpdate = WireMonitor & { updateMask: { paths: string[] } };
