import { isIP } from 'node:net';
import { z } from 'zod';
import { PING_LIMITS } from '../../../../contract/limits.ts';
import { expected } from '../../validation.ts';
import { DEFAULTED_REGIONS, isHostname } from './host-port.ts';
import { defineMonitorType } from './monitor-type.ts';

const { hostLength, count, packetTimeoutMs, degradedLoss } = PING_LIMITS;

const EXAMPLE_HOST = 'nas.local';

/**
 * Why `value` is not a host ping may be given, or undefined when it is one: a hostname or an IP
 * address and nothing else. The host never reaches a command line as it is (the check pings the
 * address it resolves to), but a value that could be read as an option (`-f`) or by a shell
 * (`;`, `$(…)`, spaces) is refused here already, with what to write instead.
 */
export function pingHostProblem(value: string): string | undefined {
  if (value.length > hostLength) return undefined; // the length's own rule names it
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(value);
  if (scheme) return `must be a hostname or an IP address without a scheme: drop "${scheme[1]}://" and write e.g. ${EXAMPLE_HOST}`;
  if (value.startsWith('-')) return 'must be a hostname or an IP address, not an option: it must not start with "-"';
  if (value.startsWith('[') && value.endsWith(']') && isIP(value.slice(1, -1)) === 6)
    return `an IPv6 address is written without brackets here: ${value.slice(1, -1)}`;
  if (value.includes('%') && isIP(value) === 6) return 'an IPv6 address must not carry a zone index (%): link-local addresses are not checked';
  if (isIP(value) !== 0) return undefined;
  if (/^[^:]+:\d+$/.test(value) || /^\[.*\]:\d+$/.test(value))
    return `must be a host without a port: ping has no ports, write e.g. ${value.replace(/:\d+$/, '').replace(/^\[|\]$/g, '')}`;
  if (/^[\d.]+$/.test(value)) return `"${value}" is not an IP address: write four numbers from 0 to 255, e.g. 192.168.1.10`;
  if (!isHostname(value)) {
    return `must be a hostname (letters, digits, "-", "_" and dots) or an IP address, e.g. ${EXAMPLE_HOST} or 192.168.1.10; spaces and characters such as ; $ ( ) are refused`;
  }
  return undefined;
}

const wholeNumber = (min: number, max: number) =>
  z
    .number({ error: `must be a whole number from ${min} to ${max}` })
    .int(`must be a whole number from ${min} to ${max}`)
    .min(min, `must be ${min} to ${max}`)
    .max(max, `must be ${min} to ${max}`);

/**
 * Ping (ICMP echo): the system's `ping` command sends `count` echo requests to the address the
 * host resolves to, and its output gives the packets answered and the round-trip times
 * (checks/ping-probe.ts). Node cannot send ICMP without privileges; the system's ping can.
 */
export const ping = defineMonitorType({
  type: 'ping',
  title: 'Ping',
  summary: 'Sends ICMP echo requests to a host with the system’s ping, and reads the packet loss and round-trip times.',
  message: 'PingMonitor',
  target: 'host',
  targetIsUrl: false,
  targetKind: () => 'host',
  targetWords: 'a hostname or an IP address',
  timeoutWords: 'the budget of the whole check: the lookup and every round of packets, retries included',
  regions: { empty: DEFAULTED_REGIONS },
  fields: () => ({
    host: {
      schema: z
        .string(expected(`a hostname or an IP address, e.g. ${EXAMPLE_HOST}`))
        .trim()
        .min(1, `is required: a hostname or an IP address, e.g. ${EXAMPLE_HOST}`)
        .max(hostLength, `must be at most ${hostLength} characters`)
        .superRefine((value, ctx) => {
          const problem = pingHostProblem(value);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
      ui: { label: 'Hostname or IP address', hint: 'The host to ping, e.g. a NAS, a router or a printer: no scheme, no port.', placeholder: EXAMPLE_HOST },
      docs: {
        rules: `a hostname or an IP address (IPv6 without brackets), at most ${hostLength} characters; no scheme, no port. A value starting with \`-\`, or holding spaces or characters such as \`;\` \`$\` \`(\`, is refused. The check pings the address the name resolves to.`,
      },
    },
    count: {
      schema: wholeNumber(count.min, count.max).default(count.default),
      flag: { name: 'count', valueName: 'N', description: `echo requests per check, ${count.min} to ${count.max} (default ${count.default})`, read: 'int' },
      ui: { label: 'Packets', hint: `Echo requests sent per check, ${count.min} to ${count.max}.` },
      docs: { rules: `echo requests sent per check, ${count.min} to ${count.max}` },
    },
    packetTimeout: {
      schema: z
        .number({ error: 'must be a duration in milliseconds' })
        .int('must be whole milliseconds')
        .min(packetTimeoutMs.min, `must be at least ${packetTimeoutMs.min} ms`)
        .max(packetTimeoutMs.max, `must be at most ${packetTimeoutMs.max / 1000} s`)
        .default(packetTimeoutMs.default),
      flag: {
        name: 'packet-timeout',
        valueName: 'DURATION',
        description: `how long each echo request is waited for, e.g. 500ms or 2s (default ${packetTimeoutMs.default / 1000}s)`,
        read: 'duration',
      },
      ui: {
        label: 'Packet timeout (milliseconds)',
        hint: 'How long each echo request is waited for; on Linux, rounded up to whole seconds. Packets × this must fit in the timeout.',
      },
      docs: {
        rules: `how long each echo request is waited for, ${packetTimeoutMs.min} ms to ${packetTimeoutMs.max / 1000} s (a Duration on the wire). On Linux, whose ping counts in whole seconds, rounded up. \`count\` × \`packetTimeout\` must not exceed \`timeout\`.`,
        default: `${packetTimeoutMs.default / 1000} s`,
      },
    },
    degradedLoss: {
      schema: wholeNumber(degradedLoss.min, degradedLoss.max).default(degradedLoss.default),
      flag: {
        name: 'degraded-loss',
        valueName: 'PERCENT',
        description: `packet loss in percent above which an answered check is degraded, ${degradedLoss.min} to ${degradedLoss.max} (default ${degradedLoss.default}: any loss)`,
        read: 'int',
      },
      ui: {
        label: 'Degraded above a loss of (%)',
        hint: 'A check that got answers but lost more than this share of its packets counts as degraded. 0: any loss; 100: never.',
      },
      docs: {
        rules: `packet loss in percent, ${degradedLoss.min} to ${degradedLoss.max}, above which a check that got answers is degraded: \`0\` degrades on any loss, \`100\` never (losing every packet is down)`,
      },
    },
  }),
  refine(value, ctx) {
    // The refinement sees the whole configuration: the common fields too.
    const { timeout } = value as typeof value & { timeout: number };
    if (value.count * value.packetTimeout > timeout) {
      ctx.addIssue({
        code: 'custom',
        path: ['packetTimeout'],
        message: `count × packetTimeout (${value.count} × ${value.packetTimeout} ms) must not exceed timeout (${timeout} ms): every packet must be waited for within the check's budget`,
      });
    }
  },
  rows: (m) => [
    ['count', String(m.count)],
    ['packet timeout', `${m.packetTimeout} ms`],
    ['degraded loss', `above ${m.degradedLoss} %`],
  ],
  example: { host: 'nas.local', count: 5, packetTimeout: 2000, degradedLoss: 20 },
});
