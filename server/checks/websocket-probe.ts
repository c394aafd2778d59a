import { type ClientRequest, type IncomingMessage, STATUS_CODES } from 'node:http';
import type { createConnection, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { SecureContext } from 'node:tls';
import WebSocket from 'ws';
import { kibibytes, WEBSOCKET_LIMITS } from '../../contract/limits.ts';
import { closeCodeWords } from '../../contract/websocket-close-codes.ts';
import type { DestinationPolicy } from '../domain/destinations.ts';
import type { CertificateCheck, ProbeResult, Timing, WebSocketCheck, WebSocketStatus } from '../domain/monitors/check-results.ts';
import type { ConfigOf } from '../domain/monitors/monitor-rules.ts';
import { withCertificate } from './certificate-record.ts';
import { ConnectionFailure, Deadline, emptyTiming, openConnection, since, type Target, withRetries } from './connection.ts';
import { degradedMessage, probeResult } from './outcome.ts';

/**
 * The WebSocket check: one connection, opened and timed as every probe opens one (connection.ts:
 * DNS, the destination policy on the address resolved, TCP, TLS verified against the trust store
 * for wss), then the opening handshake over it with the `ws` client, which reads the upgrade's
 * answer (a refusal's HTTP status included) and the frames. Optionally a text message is sent
 * once the socket is open, and the first message received must contain the expected text. Then
 * the socket is closed cleanly (1000). Only a failed connection is retried; an answer, even a
 * refusal, is the result. What is recorded of a message is whether it held the expected text and
 * its size, never its text; a message larger than WEBSOCKET_LIMITS.messageBytes fails the check
 * unread (ws's maxPayload), so a server cannot make a check hold more.
 */

export type WebSocketProbeConfig = Pick<
  ConfigOf<'websocket'>,
  'url' | 'headers' | 'subprotocol' | 'sendText' | 'expectText' | 'timeout' | 'degraded' | 'retry'
>;

export interface WebSocketProbeOptions {
  trust: SecureContext;
  userAgent: string;
  /** Aborts the check (the engine is closing). */
  stop?: AbortSignal;
  /** Where the check may connect (domain/destinations.ts); absent: anywhere. */
  destinations?: DestinationPolicy;
}

const MAX_MESSAGE_BYTES = WEBSOCKET_LIMITS.messageBytes;
/** How long the clean close may take once the check is decided: past it the socket is destroyed. */
const CLOSE_WAIT_MS = 1000;
/** A close reason is at most 123 bytes on the wire; this keeps a stored one to that too. */
const MAX_REASON = 123;

/** A check's failure with its status; every other error is a fault of this code. */
class WebSocketFailure extends Error {
  readonly status: WebSocketStatus;
  constructor(status: WebSocketStatus, message: string) {
    super(message);
    this.status = status;
  }
}

/** What the check found out along the way, kept with its outcome whatever it is. */
interface Findings {
  attempts: number;
  statusCode: number | null;
  record: WebSocketCheck;
  /** When the check was decided, in ms from its start: the close that follows is not the check's time. */
  decidedMs: number | null;
  /** wss: the server's certificate, as every TLS check records it. */
  certificate?: CertificateCheck;
}

export async function probeWebSocket(monitor: WebSocketProbeConfig, options: WebSocketProbeOptions): Promise<ProbeResult> {
  const deadline = new Deadline(monitor.timeout, options.stop);
  const timing = emptyTiming();
  const findings: Findings = {
    attempts: 0,
    statusCode: null,
    decidedMs: null,
    record: { status: 'OK', subprotocol: null, closeCode: null, closeReason: '', expectedMatched: null, messageBytes: null },
  };
  try {
    const url = new URL(monitor.url);
    const secure = url.protocol === 'wss:';
    const target: Target = { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) || (secure ? 443 : 80), authority: url.host };
    let socket: Socket;
    try {
      socket = await withRetries(monitor.retry, deadline, () => {
        findings.attempts++;
        const tls = secure
          ? { verify: true, alpn: ['http/1.1'], trust: options.trust, onCertificate: (found: CertificateCheck) => (findings.certificate = found) }
          : undefined;
        return openConnection(target, deadline, timing, tls, options.destinations);
      });
    } catch (error) {
      if (!(error instanceof ConnectionFailure)) throw error;
      if (error.kind === 'timeout') throw new WebSocketFailure('TIMEOUT', `${error.message} while connecting`);
      throw new WebSocketFailure('UNREACHABLE', error.message);
    }
    await converse(socket, url, monitor, options.userAgent, deadline, timing, findings);
    return withCertificate(succeeded(monitor, deadline, timing, findings), findings.certificate);
  } catch (error) {
    if (!(error instanceof WebSocketFailure)) throw error;
    const latency = findings.decidedMs ?? deadline.elapsed();
    timing.total = latency;
    findings.record.status = error.status;
    return withCertificate(
      { ...probeResult('down', latency, timing, findings.attempts, error.message), statusCode: findings.statusCode, websocket: findings.record },
      findings.certificate,
    );
  } finally {
    deadline.clear();
  }
}

function succeeded(monitor: WebSocketProbeConfig, deadline: Deadline, timing: Timing, findings: Findings): ProbeResult {
  const latency = findings.decidedMs ?? deadline.elapsed();
  timing.total = latency;
  const { subprotocol } = findings.record;
  const what =
    `upgraded${subprotocol ? ` with subprotocol ${subprotocol}` : ''}` +
    (monitor.expectText
      ? `, and ${monitor.sendText ? 'the reply' : 'the first message'} held the expected text`
      : monitor.sendText
        ? ', and the message was sent'
        : '');
  const base =
    monitor.degraded !== null && latency > monitor.degraded
      ? probeResult('degraded', latency, timing, findings.attempts, degradedMessage(what, latency, monitor.degraded))
      : probeResult('up', latency, timing, findings.attempts, `${what} in ${latency} ms`);
  return { ...base, statusCode: findings.statusCode, websocket: findings.record };
}

/** A close reason as one short line. */
const reasonText = (reason: Buffer) =>
  reason
    .toString('utf8')
    .replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g, ' ')
    .trim()
    .slice(0, MAX_REASON);

/** What a refused upgrade's answer says, in words: `401 Unauthorized`, and why a 2xx or 3xx is a refusal too. */
function refusalMessage(response: IncomingMessage): string {
  const status = response.statusCode ?? 0;
  const text = response.statusMessage || STATUS_CODES[status] || '';
  const why =
    status >= 300 && status < 400
      ? ' (a redirect: a WebSocket check follows none)'
      : status >= 200 && status < 300
        ? ' (a plain HTTP answer: the URL may not be a WebSocket endpoint)'
        : '';
  return `the server refused the upgrade: ${status}${text ? ` ${text}` : ''}${why}`;
}

/** What went wrong in the handshake, from the ws client's error, with what the server answered (`offered`: its Sec-WebSocket-Protocol). */
function handshakeFailure(error: Error, asked: string, offered: string | undefined): WebSocketFailure {
  const message = error.message;
  if (message === 'Server sent no subprotocol')
    return new WebSocketFailure('SUBPROTOCOL_REFUSED', `the server did not agree to subprotocol ${asked}: it chose none`);
  if (message === 'Server sent an invalid subprotocol')
    return new WebSocketFailure('SUBPROTOCOL_REFUSED', `the server did not agree to subprotocol ${asked}: it chose ${JSON.stringify(offered ?? '')}`);
  if (message === 'Server sent a subprotocol but none was requested')
    return new WebSocketFailure('SUBPROTOCOL_REFUSED', `the server chose subprotocol ${JSON.stringify(offered ?? '')}, which the check did not ask for`);
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (code.startsWith('HPE_')) return new WebSocketFailure('PROTOCOL_ERROR', `the server did not answer the upgrade with HTTP/1.1: ${message}`);
  if (/^Invalid |Sec-WebSocket-Extensions|extension/.test(message))
    return new WebSocketFailure('PROTOCOL_ERROR', `the server's answer is not a WebSocket handshake: ${message.charAt(0).toLowerCase()}${message.slice(1)}`);
  const words = code === 'ECONNRESET' || message === 'socket hang up' ? 'the server closed the connection' : message;
  return new WebSocketFailure('CLOSED', `the connection broke off during the upgrade: ${words}`);
}

/**
 * The handshake and what follows it on `socket`, until the check is decided; then the socket is
 * closed (cleanly when it still can be) and whatever was decided is returned or thrown.
 */
function converse(
  socket: Socket,
  url: URL,
  monitor: WebSocketProbeConfig,
  userAgent: string,
  deadline: Deadline,
  timing: Timing,
  findings: Findings,
): Promise<void> {
  const { record } = findings;
  const asked = monitor.subprotocol ? JSON.stringify(monitor.subprotocol) : '';
  const waitingFor = monitor.sendText ? 'the reply' : 'the first message';
  return new Promise<void>((resolve, reject) => {
    let ws: WebSocket;
    const sent = performance.now();
    try {
      ws = new WebSocket(url, monitor.subprotocol ? [monitor.subprotocol] : [], {
        // The connection opened, judged and timed above: ws never connects on its own.
        createConnection: (() => socket) as unknown as typeof createConnection,
        headers: { 'user-agent': userAgent, ...monitor.headers },
        perMessageDeflate: false,
        followRedirects: false,
        maxPayload: MAX_MESSAGE_BYTES,
        closeTimeout: CLOSE_WAIT_MS,
      } as WebSocket.ClientOptions);
    } catch (error) {
      socket.destroy();
      reject(new WebSocketFailure('PROTOCOL_ERROR', `the handshake could not be made: ${(error as Error).message}`));
      return;
    }
    let step = 'during the upgrade';
    let opened = 0;
    let offered: string | undefined;
    /** Set once the check is decided: then only the close is waited for. */
    let outcome: { failure?: WebSocketFailure } | undefined;

    const closed = () => {
      deadline.onEnd(undefined);
      if (outcome?.failure) reject(outcome.failure);
      else resolve();
    };
    /** Decides the check; `how` ends the socket: a clean close, or at once. */
    const decide = (failure: WebSocketFailure | undefined, how: 'close' | 'terminate' | 'closing') => {
      if (outcome) return;
      outcome = { failure };
      findings.decidedMs = deadline.elapsed();
      if (ws.readyState === WebSocket.CLOSED) return closed();
      // Past the deadline, or when the engine stops, the close is not waited for either.
      deadline.onEnd(() => ws.terminate());
      if (how === 'close' && ws.readyState === WebSocket.OPEN) ws.close(1000);
      else if (how === 'terminate' || ws.readyState === WebSocket.CONNECTING) ws.terminate();
    };

    deadline.onEnd(() => decide(new WebSocketFailure('TIMEOUT', `${deadline.timedOut().message} ${step}`), 'terminate'));
    if (deadline.expired) decide(new WebSocketFailure('TIMEOUT', `${deadline.timedOut().message} ${step}`), 'terminate');

    ws.on('upgrade', (response: IncomingMessage) => {
      timing.ttfb = since(sent);
      findings.statusCode = response.statusCode ?? null;
      const header = response.headers['sec-websocket-protocol'];
      offered = Array.isArray(header) ? header.join(', ') : header;
    });
    ws.on('unexpected-response', (_request: ClientRequest, response: IncomingMessage) => {
      timing.ttfb = since(sent);
      findings.statusCode = response.statusCode ?? null;
      // The answer's body is never read: the refusal is its status.
      decide(new WebSocketFailure('HANDSHAKE_REFUSED', refusalMessage(response)), 'terminate');
    });
    ws.on('open', () => {
      opened = performance.now();
      record.subprotocol = ws.protocol || null;
      if (monitor.expectText) step = `waiting for ${waitingFor}`;
      if (monitor.sendText) {
        ws.send(monitor.sendText, (error) => {
          if (error) decide(new WebSocketFailure('CLOSED', `the message could not be sent: ${error.message}`), 'terminate');
          else if (!monitor.expectText) decide(undefined, 'close');
        });
      } else if (!monitor.expectText) {
        decide(undefined, 'close');
      }
    });
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (outcome || record.messageBytes !== null) return;
      timing.transfer = since(opened);
      record.messageBytes = data.length;
      // A binary message is read as UTF-8 text; its text is compared, never kept.
      record.expectedMatched = data.toString('utf8').includes(monitor.expectText);
      if (record.expectedMatched) decide(undefined, 'close');
      else {
        const what = `${waitingFor} (${data.length} bytes${isBinary ? ', binary' : ''}) did not contain the expected text`;
        decide(new WebSocketFailure('UNEXPECTED_MESSAGE', what), 'close');
      }
    });
    ws.on('error', (error: Error) => {
      if (outcome) return;
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (opened === 0) return decide(handshakeFailure(error, asked, offered), 'terminate');
      if (code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
        return decide(
          new WebSocketFailure(
            'MESSAGE_TOO_LARGE',
            `a message larger than ${kibibytes(MAX_MESSAGE_BYTES)} arrived: the check reads none that large, and closed the socket with ${closeCodeWords(1009)}`,
          ),
          'closing',
        );
      }
      if (code.startsWith('WS_ERR_'))
        return decide(new WebSocketFailure('PROTOCOL_ERROR', `the server broke the WebSocket protocol: ${error.message}`), 'closing');
      // A socket error: the close that follows says how the connection ended.
    });
    ws.on('close', (code: number, reason: Buffer) => {
      if (!outcome && opened === 0) {
        outcome = { failure: new WebSocketFailure('CLOSED', 'the connection broke off during the upgrade') };
        findings.decidedMs = deadline.elapsed();
      } else if (!outcome) {
        findings.decidedMs = deadline.elapsed();
        record.closeCode = code;
        record.closeReason = reasonText(reason);
        const said = record.closeReason ? ` (${JSON.stringify(record.closeReason)})` : '';
        const message =
          code === 1006
            ? `the connection was dropped before ${waitingFor}, without a close frame (1006)`
            : `the server closed the socket before ${waitingFor}: ${closeCodeWords(code)}${said}`;
        outcome = { failure: new WebSocketFailure('CLOSED', message) };
      }
      closed();
    });
  });
}
