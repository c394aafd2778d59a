import type { MessageInitShape } from '@bufbuild/protobuf';
import { z } from 'zod';
import { WEBSOCKET_LIMITS } from '../../contract/limits.ts';
import type { WebSocketCheckSchema } from '../../proto/gen/monitor/v1/monitor_pb.js';
import { type WebSocketCheck, type WebSocketStatus, websocketStatuses } from '../domain/monitors/check-results.ts';

/**
 * A WebSocket check's record on the wire (monitor.v1.WebSocketCheck, which CheckResult and
 * runner.v1's RunnerCheck carry) and back, and what a runner may report of one. Apart from the
 * probe, which loads the ws client with the first check: the service encodes records without it.
 */

/** The record as monitor.v1.WebSocketCheck carries it: empty strings and absent fields for nulls. */
export function websocketCheckToWire(check: WebSocketCheck): MessageInitShape<typeof WebSocketCheckSchema> {
  return {
    status: check.status,
    subprotocol: check.subprotocol ?? '',
    closeCode: check.closeCode ?? undefined,
    closeReason: check.closeReason,
    expectedMatched: check.expectedMatched ?? undefined,
    messageBytes: check.messageBytes ?? undefined,
  };
}

/** monitor.v1.WebSocketCheck as the domain holds it. */
export function websocketCheckFromWire(m: {
  status: string;
  subprotocol: string;
  closeCode?: number | undefined;
  closeReason: string;
  expectedMatched?: boolean | undefined;
  messageBytes?: number | undefined;
}): WebSocketCheck {
  return {
    status: m.status as WebSocketStatus,
    subprotocol: m.subprotocol || null,
    closeCode: m.closeCode ?? null,
    closeReason: m.closeReason,
    expectedMatched: m.expectedMatched ?? null,
    messageBytes: m.messageBytes ?? null,
  };
}

/** The record as a runner may report it (a runner is not trusted): the probe makes no more than this. Built inside the report's schema, with its first use. */
export function reportedWebSocketCheck() {
  return z
    .object({
      status: z.enum(websocketStatuses, `must be one of ${websocketStatuses.join(', ')}`),
      subprotocol: z.string().max(WEBSOCKET_LIMITS.subprotocolLength, `must be at most ${WEBSOCKET_LIMITS.subprotocolLength} characters`),
      closeCode: z.number().int().min(1000, 'must be a close code, 1000 to 4999').max(4999, 'must be a close code, 1000 to 4999').optional(),
      // At most 123 bytes of UTF-8: never more characters than that.
      closeReason: z.string().max(123, 'must be at most 123 characters'),
      expectedMatched: z.boolean().optional(),
      messageBytes: z
        .number()
        .int()
        .min(0, 'must not be negative')
        .max(WEBSOCKET_LIMITS.messageBytes, `must be at most ${WEBSOCKET_LIMITS.messageBytes}`)
        .optional(),
    })
    .optional();
}
