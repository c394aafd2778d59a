import { z } from 'zod';
import { MONITOR_LIMITS } from '../../../../contract/limits.ts';
import { CONNECTION_HEADERS, HEADER_NAME, headerBounds, headerValue } from '../../validation.ts';
import { hostPort } from './host-port.ts';
import { defineMonitorType } from './monitor-type.ts';

export const tlsModes = ['verify', 'skip-verify', 'plaintext'] as const;

/** A fully qualified protobuf service name, e.g. `grpc.health.v1.Health`. */
const SERVICE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** gRPC metadata: sent as HTTP/2 headers, so names must be lower-case and not pseudo-headers. */
const grpcMetadata = () =>
  z
    .record(
      z.string().superRefine((name, ctx) => {
        const problem = name.startsWith(':')
          ? 'pseudo-headers are set by the check and cannot be metadata'
          : !HEADER_NAME.test(name)
            ? 'must be a valid HTTP/2 header name'
            : name !== name.toLowerCase()
              ? 'HTTP/2 header names must be lower-case'
              : CONNECTION_HEADERS.has(name) || name === 'content-type'
                ? 'is set by the connection and cannot be metadata'
                : name.startsWith('grpc-')
                  ? 'names starting with grpc- are reserved by gRPC'
                  : undefined;
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
      headerValue(),
    )
    .superRefine((entries, ctx) => {
      headerBounds(entries, ctx);
      for (const [name, value] of Object.entries(entries)) {
        if (name.endsWith('-bin') && !BASE64.test(value)) {
          ctx.addIssue({ code: 'custom', path: [name], message: 'a -bin metadata value must be base64' });
        }
      }
    });

/** gRPC: one grpc.health.v1.Health/Check call on a fresh connection (checks/grpc-probe.ts). */
export const grpc = defineMonitorType({
  type: 'grpc',
  title: 'gRPC',
  summary: 'Calls grpc.health.v1.Health/Check on a server.',
  message: 'GRPCMonitor',
  target: 'uri',
  targetIsUrl: false,
  targetWords: 'host:port',
  timeoutWords: 'the budget of the whole check',
  // No default regions: a gRPC server is rarely reachable from everywhere.
  regions: {
    empty: 'must name at least one region, or the monitor at least one private location',
    absent: 'is required: name at least one region, or at least one private location',
  },
  fields: () => ({
    uri: {
      schema: hostPort('api.internal:50051'),
      ui: { label: 'Host and port', hint: 'A hostname or an IP address, without a scheme; port 1 to 65535.', placeholder: 'api.internal:50051' },
      docs: {
        rules:
          '`host:port`, port required, IPv6 in brackets (`[::1]:50051`). A scheme (`grpc://`, `https://`) is refused with a message to drop it: the TLS mode says how to connect.',
      },
    },
    service: {
      schema: z
        .string()
        .trim()
        .max(MONITOR_LIMITS.serviceNameLength, `must be at most ${MONITOR_LIMITS.serviceNameLength} characters`)
        .superRefine((value, ctx) => {
          if (value === '') return;
          if (value.includes('/')) {
            ctx.addIssue({ code: 'custom', message: 'is a service name, not a method path: write e.g. my.pkg.MyService instead of /my.pkg.MyService/Method' });
          } else if (!SERVICE_NAME.test(value)) {
            ctx.addIssue({ code: 'custom', message: 'must be a service name like my.pkg.MyService, or empty for the whole server' });
          }
        })
        .describe('a service name')
        .default(''),
      flag: { name: 'service', valueName: 'NAME', description: 'the gRPC service to ask about (default: overall health)', read: 'text' },
      ui: {
        label: 'Service name',
        hint: 'Sent in the health request, e.g. my.package.MyService. Empty checks the whole server. A service name, not a method path.',
      },
      docs: {
        rules:
          'a service name such as `my.pkg.MyService`, sent in the health request; empty checks the whole server. A method path (`/my.pkg.MyService/Method`) is refused. `grpc.health.v1.Health` is accepted but reports SERVICE_UNKNOWN on nearly every server.',
      },
    },
    tls: {
      schema: z.enum(tlsModes, { error: `must be one of ${tlsModes.join(', ')}` }).default('verify'),
      flag: { name: 'tls', description: 'how to connect (default verify)', read: 'choice' },
      ui: { label: 'TLS', hint: 'verify checks the certificate against the system trust store; skip-verify accepts any; plaintext is h2c.' },
      docs: { rules: '`TLS_MODE_VERIFY` (system trust store), `TLS_MODE_SKIP_VERIFY` (TLS, any certificate), `TLS_MODE_PLAINTEXT` (h2c)' },
    },
    metadata: {
      schema: grpcMetadata().default({}),
      flag: { name: 'metadata', valueName: 'k=v', description: 'gRPC metadata to send', read: 'pairs' },
      ui: { label: 'Metadata', hint: 'Sent with the request as HTTP/2 headers. Names are lower-case; grpc- names are reserved.' },
      docs: {
        rules:
          'sent as HTTP/2 headers: lower-case header names; pseudo-headers (`:authority`), connection headers, `content-type` and `grpc-*` names are refused; values without line breaks; names ending in `-bin` need base64 values. At most 32 entries and 8 KiB.',
      },
    },
  }),
  secretMaps: ['metadata'],
  rows: (m) => [
    ['service', m.service || '(overall health)'],
    ['tls', m.tls ?? '-'],
    ['metadata', Object.keys(m.metadata).join(',') || '-'],
  ],
  example: { uri: 'api.internal:50051', service: 'orders.v1.Orders', tls: 'plaintext', metadata: { 'x-team': 'orders' } },
});
