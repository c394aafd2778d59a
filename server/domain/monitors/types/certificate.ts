import { isIP } from 'node:net';
import { z } from 'zod';
import { CERTIFICATE_LIMITS } from '../../../../contract/limits.ts';
import { expected } from '../../validation.ts';
import { DEFAULTED_REGIONS, hostPort, isHostname } from './host-port.ts';
import { defineMonitorType } from './monitor-type.ts';

const { serverNameLength, minDaysLeft } = CERTIFICATE_LIMITS;
const DAYS_RULE = `must be a whole number of days from ${minDaysLeft.min} to ${minDaysLeft.max}`;

/** The name sent in SNI instead of the host: a hostname, never an IP address (TLS has no SNI for one). */
const serverName = () =>
  z
    .string(expected('a hostname'))
    .trim()
    .max(serverNameLength, `must be at most ${serverNameLength} characters`)
    .superRefine((value, ctx) => {
      if (value === '') return;
      const problem = value.includes(':')
        ? isIP(value.replace(/^\[|\]$/g, '')) === 6
          ? 'must be a hostname: TLS sends no IP address as a server name; leave it empty to check an IP address'
          : "must be a hostname without a port: the port is the target's"
        : isIP(value) !== 0
          ? 'must be a hostname: TLS sends no IP address as a server name; leave it empty to check an IP address'
          : value.startsWith('*')
            ? 'must be a hostname, not a wildcard: the name a client would ask for, e.g. www.example.com'
            : !isHostname(value.replace(/\.$/, ''))
              ? 'must be a hostname, e.g. www.example.com'
              : undefined;
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .describe('a hostname')
    .default('');

/**
 * Certificate expiry: a TLS handshake with `host:port` (checks/certificate-probe.ts) and the
 * server's certificate judged: its dates, whether its chain verifies against the trust store, and
 * whether it is for the name asked for.
 */
export const certificate = defineMonitorType({
  type: 'certificate',
  title: 'Certificate',
  summary: 'Makes a TLS handshake with a host and port and checks its certificate: trust, name, and the days until it expires.',
  message: 'CertificateMonitor',
  target: 'uri',
  targetIsUrl: false,
  targetWords: 'host:port',
  timeoutWords: 'the budget of the whole check: connection and TLS handshake',
  regions: { empty: DEFAULTED_REGIONS },
  fields: () => ({
    uri: {
      schema: hostPort('example.com:443'),
      ui: { label: 'Host and port', hint: 'A hostname or an IP address, without a scheme; port 1 to 65535 (443 for HTTPS).', placeholder: 'example.com:443' },
      docs: { rules: '`host:port`: a hostname or an IP address, port 1 to 65535 (443 for HTTPS). IPv6 in brackets: `[::1]:443`. No scheme.' },
    },
    serverName: {
      schema: serverName(),
      flag: {
        name: 'server-name',
        valueName: 'NAME',
        description: 'the name sent in SNI and checked against the certificate (default: the host)',
        read: 'text',
      },
      ui: {
        label: 'Server name (SNI)',
        hint: 'Sent in the handshake and checked against the certificate. Empty: the host; none for an IP address.',
        placeholder: 'www.example.com',
      },
      docs: {
        rules: `a hostname, at most ${serverNameLength} characters, sent in the handshake (SNI) and matched against the certificate. Empty: the host of \`uri\`, or for an IP address no SNI, and the address matched. Not an IP address, a port or a wildcard.`,
        default: 'the host',
      },
    },
    minDaysLeft: {
      schema: z
        .number({ error: DAYS_RULE })
        .int(DAYS_RULE)
        .min(minDaysLeft.min, DAYS_RULE)
        .max(minDaysLeft.max, DAYS_RULE)
        .describe('a whole number of days')
        .default(minDaysLeft.default),
      flag: {
        name: 'min-days-left',
        valueName: 'DAYS',
        description: `degraded when fewer days remain before expiry (default ${minDaysLeft.default})`,
        read: 'int',
      },
      ui: { label: 'Days before expiry', hint: 'A check is degraded when fewer days than this remain. 0: only an expired certificate counts.' },
      docs: {
        rules: `${minDaysLeft.min} to ${minDaysLeft.max}: a check is \`degraded\` when fewer whole days remain before the certificate expires; 0 never degrades for the date alone`,
      },
    },
  }),
  rows: (m) => [
    ['server name', m.serverName || '(the host)'],
    ['min days left', String(m.minDaysLeft)],
  ],
  example: { uri: 'shop.example.com:443', serverName: 'www.example.com', minDaysLeft: 30 },
});
