import type { MessageInitShape } from '@bufbuild/protobuf';
import { z } from 'zod';
import type { CertificateCheckSchema } from '../../proto/gen/monitor/v1/monitor_pb.js';
import type { CertificateCheck } from '../domain/monitors/check-results.ts';

/**
 * A certificate record on the wire (monitor.v1.CertificateCheck, which CheckResult and runner.v1's
 * RunnerCheck carry) and back, and what a runner may report of one. The proto code is imported
 * for its types alone, and timestamps are written field by field: the engine loads no protobuf
 * runtime for them.
 */

type TimestampFields = { seconds: bigint; nanos: number };

/** An ISO time as a google.protobuf.Timestamp's fields. */
function timestampOf(iso: string): TimestampFields {
  const ms = Date.parse(iso);
  const at = Number.isNaN(ms) ? 0 : ms;
  const seconds = Math.floor(at / 1000);
  return { seconds: BigInt(seconds), nanos: (at - seconds * 1000) * 1_000_000 };
}

/** A google.protobuf.Timestamp's fields as an ISO time (the epoch when absent). */
const isoOf = (t: TimestampFields | undefined) => new Date(t ? Number(t.seconds) * 1000 + Math.floor(t.nanos / 1_000_000) : 0).toISOString();

/** The record as monitor.v1.CertificateCheck carries it: an empty string for no error. */
export function certificateToWire(c: CertificateCheck): MessageInitShape<typeof CertificateCheckSchema> {
  return {
    subject: c.subject,
    issuer: c.issuer,
    subjectAltNames: c.subjectAltNames,
    notBefore: timestampOf(c.notBefore),
    notAfter: timestampOf(c.notAfter),
    daysLeft: c.daysLeft,
    fingerprintSha256: c.fingerprintSha256,
    serialNumber: c.serialNumber,
    verified: c.verified,
    nameMatches: c.nameMatches,
    serverName: c.serverName,
    error: c.error ?? '',
  };
}

/** monitor.v1.CertificateCheck as the domain holds it. */
export function certificateFromWire(c: {
  subject: string;
  issuer: string;
  subjectAltNames: readonly string[];
  notBefore?: TimestampFields | undefined;
  notAfter?: TimestampFields | undefined;
  daysLeft: number;
  fingerprintSha256: string;
  serialNumber: string;
  verified: boolean;
  nameMatches: boolean;
  serverName: string;
  error: string;
}): CertificateCheck {
  return {
    subject: c.subject,
    issuer: c.issuer,
    subjectAltNames: [...c.subjectAltNames],
    notBefore: isoOf(c.notBefore),
    notAfter: isoOf(c.notAfter),
    daysLeft: c.daysLeft,
    fingerprintSha256: c.fingerprintSha256,
    serialNumber: c.serialNumber,
    verified: c.verified,
    nameMatches: c.nameMatches,
    serverName: c.serverName,
    error: c.error || null,
  };
}

/** The most subject alternative names a record may carry: a real certificate names at most some hundreds. */
const MAX_NAMES = 1_000;
const MAX_TEXT = 1_000;

/** The record as a runner may report it (a runner is not trusted). Built inside the report's schema, with its first use. */
export function reportedCertificateCheck() {
  const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
  const time = z.object({
    seconds: z.bigint().min(-62_135_596_800n, 'must be a time after year 1').max(253_402_300_799n, 'must be a time before year 10000'),
    nanos: z.number().int().min(0).max(999_999_999),
  });
  return z
    .object({
      subject: text(MAX_TEXT),
      issuer: text(MAX_TEXT),
      subjectAltNames: z.array(text(MAX_TEXT)).max(MAX_NAMES, `must have at most ${MAX_NAMES} names`),
      notBefore: time.optional(),
      notAfter: time.optional(),
      daysLeft: z.number().int('must be a whole number of days'),
      fingerprintSha256: z.union([z.literal(''), z.string().regex(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/, 'must be a SHA-256 as hex bytes joined by colons')]),
      serialNumber: text(256),
      verified: z.boolean(),
      nameMatches: z.boolean(),
      serverName: text(MAX_TEXT),
      error: text(MAX_TEXT),
    })
    .optional();
}
