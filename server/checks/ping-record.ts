import type { MessageInitShape } from '@bufbuild/protobuf';
import { isIP } from 'node:net';
import { z } from 'zod';
import type { PingCheckSchema } from '../../proto/gen/monitor/v1/monitor_pb.js';
import type { PingCheck } from '../domain/monitors/check-results.ts';

/**
 * A ping check's record on the wire (monitor.v1.PingCheck, which CheckResult and runner.v1's
 * RunnerCheck carry) and back, and what a runner may report of one. Apart from the probe, which
 * loads with the first ping check: the service encodes records without it.
 */

/** The record as monitor.v1.PingCheck carries it: absent round trips for nulls. */
export function pingCheckToWire(check: PingCheck): MessageInitShape<typeof PingCheckSchema> {
  return {
    address: check.address,
    transmitted: check.transmitted,
    received: check.received,
    lossPercent: check.lossPercent,
    rttMinMs: check.rttMinMs ?? undefined,
    rttAvgMs: check.rttAvgMs ?? undefined,
    rttMaxMs: check.rttMaxMs ?? undefined,
  };
}

/** monitor.v1.PingCheck as the domain holds it. */
export function pingCheckFromWire(m: {
  address: string;
  transmitted: number;
  received: number;
  lossPercent: number;
  rttMinMs?: number | undefined;
  rttAvgMs?: number | undefined;
  rttMaxMs?: number | undefined;
}): PingCheck {
  return {
    address: m.address,
    transmitted: m.transmitted,
    received: m.received,
    lossPercent: m.lossPercent,
    rttMinMs: m.rttMinMs ?? null,
    rttAvgMs: m.rttAvgMs ?? null,
    rttMaxMs: m.rttMaxMs ?? null,
  };
}

/** Most packets a ping check sends in a round (PING_LIMITS.count.max, with room for a ping that sent more than asked). */
const MAX_PACKETS = 1_000;

/**
 * The record as a runner may report it (a runner is not trusted): the probe makes no more than
 * this. Built inside the report's schema, with its first use.
 */
export function reportedPingCheck() {
  const packets = z.number().int('must be a whole number').min(0, 'must not be negative').max(MAX_PACKETS, `must be at most ${MAX_PACKETS}`);
  const rtt = z.number('must be a finite number of milliseconds').min(0, 'must not be negative').optional();
  return z
    .object({
      address: z.string().refine((value) => isIP(value) !== 0, 'must be an IP address'),
      transmitted: packets,
      received: packets,
      lossPercent: z.number('must be a percentage').min(0, 'must be 0 to 100').max(100, 'must be 0 to 100'),
      rttMinMs: rtt,
      rttAvgMs: rtt,
      rttMaxMs: rtt,
    })
    .refine((check) => check.received <= check.transmitted, { message: 'received must not exceed transmitted', path: ['received'] })
    .optional();
}
