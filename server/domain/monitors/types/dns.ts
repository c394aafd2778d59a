import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { DNS_LIMITS } from '../../../../contract/limits.ts';
import { expected } from '../../validation.ts';
import { DEFAULTED_REGIONS } from './host-port.ts';
import { defineMonitorType } from './monitor-type.ts';

/** The record types a DNS monitor asks for. */
export const dnsRecordTypes = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'SOA', 'PTR'] as const;
export type DnsRecordType = (typeof dnsRecordTypes)[number];

const { hostLength, resolverLength, values: MAX_VALUES, valueLength, minAnswers, maxAnswers } = DNS_LIMITS;

/** The port of a resolver given without one. */
export const DNS_PORT = 53;

const EXAMPLE_NAME = 'example.com';
/** A label of a name asked about: letters, digits, `-` and `_` (service labels such as `_sip`), not starting or ending with `-`. */
const LABEL = /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;

/** A name written as the check asks for it: lower case, without the final dot. */
export const canonicalName = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** Why `value` is not a name a check can ask about, or undefined when it is one. */
function nameProblem(value: string, what = 'a name'): string | undefined {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(value);
  if (scheme) return `must be ${what} without a scheme: drop "${scheme[1]}://" and write e.g. ${EXAMPLE_NAME}`;
  if (/[^\x00-\x7f]/.test(value)) return `must be ${what} in its ASCII form: write an internationalized name as its xn-- form`;
  if (/[/:@?#\s]/.test(value)) return `must be ${what} alone, e.g. ${EXAMPLE_NAME}: no port, path or spaces`;
  const name = value.replace(/\.$/, '');
  if (name.length > hostLength) return `must be at most ${hostLength} characters`;
  const bad = name.split('.').find((label) => !LABEL.test(label));
  if (bad !== undefined) {
    return bad === ''
      ? `must not have an empty label (two dots in a row, or a dot first): got "${value}"`
      : `has a label "${bad}" that is not one: letters, digits, "-" and "_", at most 63 characters, not starting or ending with "-"`;
  }
  return undefined;
}

/** A resolver as the check asks it: its address and port. */
export interface ResolverAddress {
  host: string;
  port: number;
}

/**
 * A resolver written `address`, `address:port`, `ipv6`, `[ipv6]` or `[ipv6]:port`, or why it is
 * not one. By address only: a resolver given by name would need a resolver to be found.
 */
export function parseResolver(text: string): ResolverAddress | string {
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(text);
  let host: string;
  let port: string | undefined;
  if (bracketed) {
    host = bracketed[1]!;
    port = bracketed[2];
    if (isIP(host) !== 6) return `"${host}" in brackets is not an IPv6 address`;
  } else if (isIP(text) === 6) {
    host = text;
  } else {
    [host, port] = text.split(':') as [string, string | undefined];
    if (text.split(':').length > 2) return 'an IPv6 address with a port must be in brackets, e.g. [::1]:5353';
    if (isIP(host) !== 4) {
      return /^[\d.]+$/.test(host)
        ? `"${host}" is not an IPv4 address: write four numbers from 0 to 255, e.g. 192.168.1.1`
        : `must be an IP address, not a name: a resolver given by name would need a resolver to find it (write e.g. 192.168.1.1 or [::1]:5353)`;
    }
  }
  if (host.includes('%')) return 'must not carry an IPv6 zone index (%): link-local resolvers are not asked';
  if (port === undefined) return { host, port: DNS_PORT };
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return `the port must be a number from 1 to 65535, got "${port}"`;
  return { host, port: Number(port) };
}

/** `host:port`, an IPv6 address in brackets: a resolver as the check's record and messages write it. */
export const resolverText = ({ host, port }: ResolverAddress) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** The name a PTR check asks about for an IP address: `4.3.2.1.in-addr.arpa`, or the nibbles of an IPv6 address under `ip6.arpa`. */
export function reverseName(address: string): string {
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return `${ip.toByteArray().reverse().join('.')}.in-addr.arpa`;
  const nibbles = ip
    .toByteArray()
    .flatMap((byte) => [byte >> 4, byte & 15])
    .map((nibble) => nibble.toString(16));
  return `${nibbles.reverse().join('.')}.ip6.arpa`;
}

/** The name a check of `host` for `recordType` asks about: the host, or for PTR of an address, its reverse name. */
export function queriedName(host: string, recordType: DnsRecordType): string {
  return recordType === 'PTR' && isIP(host) !== 0 ? reverseName(host) : canonicalName(host);
}

/**
 * How a value of each record type is written (an answer as the check records it, and a value a
 * monitor expects): what it is, an example, and the value read into its one written form (names
 * lower case without the final dot, IPv6 compressed, numbers without leading zeros), or
 * undefined when it is not one.
 */
const NUMBER = '(\\d{1,10})';
const NAME = '(\\S+)';
const forms: Record<DnsRecordType, { words: string; example: string; read(value: string): string | undefined }> = {
  A: { words: 'an IPv4 address', example: '192.0.2.10', read: (v) => (isIP(v) === 4 ? ipaddr.parse(v).toString() : undefined) },
  AAAA: { words: 'an IPv6 address', example: '2001:db8::10', read: (v) => (isIP(v) === 6 && !v.includes('%') ? ipaddr.parse(v).toString() : undefined) },
  CNAME: { words: 'a name', example: 'www.example.net', read: (v) => readName(v) },
  NS: { words: 'a name', example: 'ns1.example.com', read: (v) => readName(v) },
  PTR: { words: 'a name', example: 'host.example.com', read: (v) => readName(v) },
  MX: { words: 'a preference and a mail server', example: '10 mail.example.com', read: (v) => readFields(v, [NUMBER, NAME]) },
  SRV: { words: 'priority, weight, port and target', example: '10 5 5060 sip.example.com', read: (v) => readFields(v, [NUMBER, NUMBER, NUMBER, NAME]) },
  SOA: {
    words: 'primary server, mailbox, serial, refresh, retry, expire and minimum TTL',
    example: 'ns1.example.com hostmaster.example.com 2024010101 7200 3600 1209600 300',
    read: (v) => readFields(v, [NAME, NAME, NUMBER, NUMBER, NUMBER, NUMBER, NUMBER]),
  },
  // A TXT record's strings joined: compared as they are, case and spaces included.
  TXT: { words: 'a text', example: 'v=spf1 -all', read: (v) => v },
};

const readName = (value: string) => (nameProblem(value) === undefined || value === '.' ? canonicalName(value) : undefined);

/** Fields separated by spaces, each a number or a name, written back with one space between and names read as names. */
function readFields(value: string, parts: string[]): string | undefined {
  const match = new RegExp(`^${parts.join('\\s+')}$`).exec(value.trim());
  if (!match) return undefined;
  const fields = match.slice(1).map((field, i) => (parts[i] === NUMBER ? String(Number(field)) : readName(field)));
  return fields.includes(undefined) ? undefined : fields.join(' ');
}

/** A value of `recordType` in its one written form; undefined when it is not one. */
export const readValue = (recordType: DnsRecordType, value: string) => forms[recordType].read(value);

/** What a value of `recordType` is, with an example: for messages. */
export const valueWords = (recordType: DnsRecordType) => `${forms[recordType].words}, e.g. ${forms[recordType].example}`;

/** A list of values the answers are held to. */
const expectedValues = () =>
  z
    .array(
      z
        .string({ error: 'must be a list of texts' })
        .min(1, 'a value must not be empty')
        .max(valueLength, `a value must be at most ${valueLength} characters`)
        .regex(/^[^\0\r\n]*$/, 'a value must not contain line breaks or NUL'),
      { error: 'must be a list of values' },
    )
    .max(MAX_VALUES, `must have at most ${MAX_VALUES} values`)
    .default([]);

const wholeNumber = ({ min, max }: { min: number; max: number }) =>
  z
    .number({ error: `must be a whole number from ${min} to ${max}` })
    .int(`must be a whole number from ${min} to ${max}`)
    .min(min, `must be ${min} to ${max}`)
    .max(max, `must be ${min} to ${max}`);

/**
 * DNS: one query for a record type of a name, to the system's resolvers or a given one, and the
 * answers held to what the monitor expects (checks/dns-probe.ts).
 */
export const dns = defineMonitorType({
  type: 'dns',
  title: 'DNS',
  summary: 'Asks a DNS resolver for a record of a name and checks the answers.',
  message: 'DNSMonitor',
  target: 'host',
  targetIsUrl: false,
  // The name is asked about, not connected to: the resolver is what the check connects to (resolver below).
  targetKind: () => 'name',
  connectsTo: (config) => (config.resolver === '' ? [] : [{ field: 'resolver', hostPort: resolverText(parseResolver(config.resolver) as ResolverAddress) }]),
  targetWords: 'a name to look up (an IP address for PTR)',
  timeoutWords: 'the budget of the whole check: every query, retries and resolvers included',
  regions: { empty: DEFAULTED_REGIONS },
  fields: () => ({
    host: {
      schema: z
        .string(expected(`the name to look up, e.g. ${EXAMPLE_NAME}`))
        .trim()
        .min(1, `is required: the name to look up, e.g. ${EXAMPLE_NAME}`)
        .max(hostLength + 1, `must be at most ${hostLength} characters`)
        .superRefine((value, ctx) => {
          if (isIP(value) !== 0) {
            if (value.includes('%')) ctx.addIssue({ code: 'custom', message: 'must not carry an IPv6 zone index (%)' });
            return;
          }
          const problem = nameProblem(value);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
      ui: {
        label: 'Name to look up',
        hint: 'A name such as example.com or _sip._tcp.example.com. For PTR, an IP address: its reverse name is asked about.',
        placeholder: EXAMPLE_NAME,
      },
      docs: {
        rules: `a name (letters, digits, \`-\` and \`_\` in each label, at most ${hostLength} characters, a final dot allowed; an internationalized name in its \`xn--\` form), no scheme or port. An IP address only with \`PTR\`: the check asks for its reverse name (\`10.2.0.192.in-addr.arpa\`, or under \`ip6.arpa\`).`,
      },
    },
    recordType: {
      schema: z.enum(dnsRecordTypes, { error: `must be one of ${dnsRecordTypes.join(', ')}` }).default('A'),
      flag: { name: 'record-type', description: 'the record type to ask for (default A)', read: 'choice', upperCase: true },
      ui: { label: 'Record type', hint: 'The type of record asked for.' },
      docs: { rules: dnsRecordTypes.map((t) => `\`${t}\``).join(', ') },
    },
    resolver: {
      schema: z
        .string({ error: 'must be an IP address with an optional port, or empty for the system’s resolvers' })
        .trim()
        .max(resolverLength, `must be at most ${resolverLength} characters`)
        .superRefine((value, ctx) => {
          if (value === '') return;
          const parsed = parseResolver(value);
          if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: parsed });
        })
        .default(''),
      flag: { name: 'resolver', valueName: 'ADDRESS[:PORT]', description: "the DNS server to ask (default: the system's resolvers)", read: 'text' },
      ui: {
        label: 'Resolver',
        hint: 'The DNS server to ask: an IP address, with a port if not 53 (192.168.1.1, 10.0.0.2:5353, [::1]:5353). Empty asks the system’s resolvers.',
        placeholder: '192.168.1.1',
      },
      docs: {
        rules:
          'empty: the resolvers of the machine that checks, in the order its configuration lists them (`/etc/resolv.conf` on Linux, the network settings on macOS and Windows). Otherwise an IP address and an optional port (default 53): `192.168.1.1`, `10.0.0.2:5353`, `::1`, `[::1]:5353`; never a name. The destination policy judges it as it judges any target.',
        default: "the system's",
      },
    },
    contains: {
      schema: expectedValues(),
      flag: { name: 'contains', valueName: 'VALUE', description: 'a value the answers must include (repeat for more)', read: 'list' },
      ui: { label: 'Answers contain', hint: 'Each value must be among the answers, e.g. 192.0.2.10 for A or 10 mail.example.com for MX. One per line.' },
      docs: {
        rules: `at most ${MAX_VALUES} values, each among the answers (other answers may come too). Written as the record type's answers are recorded: see [Answers](#answers).`,
      },
    },
    equals: {
      schema: expectedValues(),
      flag: { name: 'equals', valueName: 'VALUE', description: 'the answers must be exactly these values, in any order (repeat for each)', read: 'list' },
      ui: { label: 'Answers equal', hint: 'The answers must be exactly these values, in any order: no more, no fewer. One per line.' },
      docs: { rules: `at most ${MAX_VALUES} values: the answers must be exactly these, in any order.` },
    },
    minAnswers: {
      schema: wholeNumber(minAnswers).default(minAnswers.default),
      flag: { name: 'min-answers', valueName: 'N', description: `the fewest answers accepted (default ${minAnswers.default})`, read: 'int' },
      ui: { label: 'Fewest answers', hint: `The fewest answers accepted, ${minAnswers.min} to ${minAnswers.max}.` },
      docs: { rules: `${minAnswers.min} to ${minAnswers.max}. An answer with no records is a failure of its own, whatever this says.` },
    },
    maxAnswers: {
      schema: wholeNumber(maxAnswers).default(maxAnswers.default),
      flag: { name: 'max-answers', valueName: 'N', description: 'the most answers accepted (default 0: no maximum)', read: 'int' },
      ui: { label: 'Most answers', hint: `The most answers accepted, up to ${maxAnswers.max}; 0 for no maximum.` },
      docs: { rules: `${maxAnswers.min} to ${maxAnswers.max}; 0 is no maximum. At least \`minAnswers\` otherwise.`, default: '0 (no maximum)' },
    },
  }),
  refine(value, ctx) {
    if (isIP(value.host) !== 0 && value.recordType !== 'PTR') {
      ctx.addIssue({
        code: 'custom',
        path: ['host'],
        message: `is an IP address: a ${value.recordType} check looks up a name; to find the name of an address, use record type PTR`,
      });
    }
    for (const list of ['contains', 'equals'] as const) {
      value[list].forEach((item, i) => {
        if (readValue(value.recordType, item) === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [list, i],
            message: `must be ${valueWords(value.recordType)} for record type ${value.recordType}, got "${item}"`,
          });
        }
      });
      const read = value[list].map((item) => readValue(value.recordType, item));
      if (new Set(read).size !== read.length) ctx.addIssue({ code: 'custom', path: [list], message: 'must not list a value twice' });
    }
    const { minAnswers: least, maxAnswers: most } = value;
    if (most !== 0 && most < least) {
      ctx.addIssue({ code: 'custom', path: ['maxAnswers'], message: `must be at least minAnswers (${least}), or 0 for no maximum` });
    } else if (value.equals.length > 0 && (value.equals.length < least || (most !== 0 && value.equals.length > most))) {
      ctx.addIssue({
        code: 'custom',
        path: ['equals'],
        message: `lists ${value.equals.length} values, which the count of answers allowed (${answerCountWords(least, most)}) can never match`,
      });
    }
  },
  rows: (m) => [
    ['record type', m.recordType],
    ['resolver', m.resolver || "(the system's)"],
    ['contains', m.contains.join(', ') || '-'],
    ['equals', m.equals.join(', ') || '-'],
    ['answers', answerCountWords(m.minAnswers, m.maxAnswers)],
  ],
  example: {
    host: '_sip._tcp.example.com',
    recordType: 'SRV',
    resolver: '[::1]:5353',
    contains: ['10 5 5060 sip.example.com'],
    equals: ['10 5 5060 sip.example.com', '20 5 5060 sip2.example.com'],
    minAnswers: 2,
    maxAnswers: 4,
  },
  moreExamples: [{ host: '192.0.2.10', recordType: 'PTR', resolver: '192.168.1.1' }],
});

/** `at least 1`, `1 to 4`: the count of answers a monitor accepts, in words. */
export function answerCountWords(least: number, most: number): string {
  if (most === 0) return `at least ${least}`;
  return least === most ? `exactly ${least}` : `${least} to ${most}`;
}
