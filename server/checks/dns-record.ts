import type { MessageInitShape } from '@bufbuild/protobuf';
import { z } from 'zod';
import { DNS_LIMITS } from '../../contract/limits.ts';
import type { DNSCheckSchema } from '../../proto/gen/monitor/v1/monitor_pb.js';
import { type DnsCheck, type DnsResponseCode, dnsResponseCodes } from '../domain/monitors/check-results.ts';
import { dnsRecordTypes } from '../domain/monitors/types/dns.ts';

/**
 * A DNS check's record on the wire (monitor.v1.DNSCheck, which CheckResult and runner.v1's
 * RunnerCheck carry) and back, and what a runner may report of one.
 */

/** The most answers a check records, and the longest each (dns-probe.ts cuts longer ones). */
const MAX_ANSWERS = 100;
const MAX_ANSWER = 2048 + 1;
const MAX_TEXT = 1_000;

/** The record as monitor.v1.DNSCheck carries it: empty strings for nulls. */
export function dnsCheckToWire(check: DnsCheck): MessageInitShape<typeof DNSCheckSchema> {
  return {
    name: check.name,
    recordType: check.recordType,
    rcode: check.rcode ?? '',
    resolver: check.resolver ?? '',
    systemResolver: check.systemResolver,
    answers: check.answers,
    assertions: check.assertions,
  };
}

/** monitor.v1.DNSCheck as the domain holds it. */
export function dnsCheckFromWire(m: {
  name: string;
  recordType: string;
  rcode: string;
  resolver: string;
  systemResolver: boolean;
  answers: string[];
  assertions: { assertion: string; passed: boolean; actual: string }[];
}): DnsCheck {
  return {
    name: m.name,
    recordType: m.recordType,
    rcode: (m.rcode || null) as DnsResponseCode | null,
    resolver: m.resolver || null,
    systemResolver: m.systemResolver,
    answers: [...m.answers],
    assertions: m.assertions.map(({ assertion, passed, actual }) => ({ assertion, passed, actual })),
  };
}

/** The record as a runner may report it (a runner is not trusted): the probe makes no more than this. Built inside the report's schema, with its first use. */
export function reportedDnsCheck() {
  const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
  return z
    .object({
      name: text(DNS_LIMITS.hostLength + 16),
      recordType: z.enum(dnsRecordTypes, `must be one of ${dnsRecordTypes.join(', ')}`),
      rcode: z.union([z.literal(''), z.enum(dnsResponseCodes)], `must be empty or one of ${dnsResponseCodes.join(', ')}`),
      resolver: text(DNS_LIMITS.resolverLength),
      systemResolver: z.boolean(),
      answers: z.array(text(MAX_ANSWER)).max(MAX_ANSWERS, `must have at most ${MAX_ANSWERS} answers`),
      assertions: z.array(z.object({ assertion: text(MAX_TEXT * 50), passed: z.boolean(), actual: text(MAX_TEXT) })).max(3, 'must have at most 3 assertions'),
    })
    .optional();
}
