import { closeCodeWords } from '../../../contract/websocket-close-codes.ts';
import type { WebSocketCheck } from '../../../proto/gen/monitor/v1/monitor_pb.js';
import type { CheckResult } from '../api.ts';
import { When } from '../time.tsx';
import './monitor-detail-websocket.css';

// The part of a monitor's screen that only a WebSocket monitor has: what its latest check found of
// the handshake (its HTTP status, the subprotocol agreed), of the expected message (whether it
// held the text, and its size: never its text), and of a close by the server (its code in words).

/** What a WebSocket check found, as the dashboard lists checks. */
export type WebSocketSeen = NonNullable<CheckResult['websocket']>;

/** Each outcome of a WebSocket check in words (docs/reference/monitors.md, "WebSocket"). */
export const WEBSOCKET_STATUS_WORDS: Record<string, string> = {
  OK: 'Upgraded',
  UNREACHABLE: 'Unreachable',
  TIMEOUT: 'Timed out',
  HANDSHAKE_REFUSED: 'Upgrade refused',
  SUBPROTOCOL_REFUSED: 'Subprotocol refused',
  CLOSED: 'Closed by the server',
  UNEXPECTED_MESSAGE: 'Unexpected message',
  MESSAGE_TOO_LARGE: 'Message too large',
  PROTOCOL_ERROR: 'Protocol error',
};

export const websocketStatusWord = (status: string) => WEBSOCKET_STATUS_WORDS[status] ?? status;

/** The WebSocket part of a TriggerMonitor result in the shape of the dashboard's results. */
export function websocketSeenOf(check: WebSocketCheck | undefined): WebSocketSeen | null {
  if (!check) return null;
  return {
    status: check.status,
    subprotocol: check.subprotocol || null,
    closeCode: check.closeCode ?? null,
    closeReason: check.closeReason,
    expectedMatched: check.expectedMatched ?? null,
    messageBytes: check.messageBytes ?? null,
  };
}

const bytes = (count: number) => `${count.toLocaleString()} ${count === 1 ? 'byte' : 'bytes'}`;

/** The handshake and the expected message as the latest check found them. */
export function WebSocketFacts({ latest, expects }: { latest: CheckResult | undefined; expects: boolean }) {
  const seen = latest?.websocket;
  if (!latest || !seen) return <p className="empty">No check yet. Press Check now to run one.</p>;
  const upgrade =
    latest.statusCode === null ? <span className="muted">No answer</span> : latest.statusCode === 101 ? '101 Switching Protocols' : String(latest.statusCode);
  const message = !expects ? (
    <span className="muted">None expected</span>
  ) : seen.messageBytes === null ? (
    <span className="muted">None arrived</span>
  ) : (
    `${seen.expectedMatched ? 'Held the expected text' : 'Did not hold the expected text'} (${bytes(seen.messageBytes)})`
  );
  return (
    <dl className="websocket-facts">
      <div>
        <dt>Latest check</dt>
        <dd>
          {websocketStatusWord(seen.status)} <When iso={latest.startedAt} />
        </dd>
      </div>
      <div>
        <dt>Answer to the upgrade</dt>
        <dd>{upgrade}</dd>
      </div>
      <div>
        <dt>Subprotocol</dt>
        <dd>{seen.subprotocol ?? <span className="muted">None</span>}</dd>
      </div>
      <div>
        <dt>First message</dt>
        <dd>{message}</dd>
      </div>
      {seen.closeCode !== null ? (
        <div>
          <dt>Closed by the server</dt>
          <dd>
            {closeCodeWords(seen.closeCode)}
            {seen.closeReason ? <span className="muted"> “{seen.closeReason}”</span> : null}
          </dd>
        </div>
      ) : null}
    </dl>
  );
}
