/**
 * Loopback receivers for the delivery tests: an SMTP server (smtp-server) that keeps every mail it
 * accepts, decoded with postal-mime, an HTTP server that keeps every request, and the check of a
 * webhook's signature a receiver makes. Both servers listen on 127.0.0.1 only, are unref'd, and
 * close themselves after `lifetimeMs` at the latest, so nothing outlives its test file.
 */
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import PostalMime, { decodeWords } from 'postal-mime';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { eventually } from './wait.ts';

const DEFAULT_WAIT_MS = 5000;
const DEFAULT_LIFETIME_MS = 60_000;

/** A list that can be waited on until it holds `count` entries. */
class Recorded<T> {
  readonly items: T[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly nouns: [one: string, many: string];

  constructor(one: string, many: string) {
    this.nouns = [one, many];
  }

  push(item: T): void {
    this.items.push(item);
    for (const wake of this.waiters) wake();
  }

  /** Resolves with the first `count` entries once there are that many; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs = DEFAULT_WAIT_MS): Promise<T[]> {
    if (this.items.length >= count) return Promise.resolve(this.items.slice(0, count));
    return new Promise<T[]>((resolve, reject) => {
      const check = () => {
        if (this.items.length < count) return;
        done();
        resolve(this.items.slice(0, count));
      };
      const timer = setTimeout(() => {
        done();
        const noun = (n: number) => this.nouns[n === 1 ? 0 : 1];
        reject(new Error(`expected ${count} ${noun(count)} within ${timeoutMs} ms, received ${this.items.length}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
    });
  }
}

/** Tracks a server's sockets so close() can end them all at once. */
function trackSockets(server: { on(event: 'connection', listener: (socket: Socket) => void): unknown }): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => sockets.delete(socket));
  });
  return sockets;
}

// ---- SMTP -----------------------------------------------------------------------------------------

export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  subject: string;
  text: string;
  html: string;
  /** Header values decoded, by lower-case name; a repeated header keeps its first value. */
  headers: Record<string, string>;
  raw: string;
}

export interface SmtpReceiver {
  /** smtp://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Every mail accepted, in order. */
  mails: ReceivedMail[];
  /** Logins attempted, user names only. */
  logins: string[];
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** While on, every RCPT TO is answered 550. */
  setRejecting(on: boolean): void;
  close(): Promise<void>;
}

export interface SmtpReceiverOptions {
  /** Answer every RCPT TO with 550 (see setRejecting). */
  rejectRecipients?: boolean;
  /** Answer RCPT TO with 550 for these addresses only. */
  refuseAddresses?: string[];
  /** Answer every login with 535. */
  rejectLogins?: boolean;
  lifetimeMs?: number;
}

async function decodeMail(raw: Buffer, session: SMTPServerSession): Promise<ReceivedMail> {
  const parsed = await PostalMime.parse(raw);
  const headers: Record<string, string> = {};
  for (const header of parsed.headers) headers[header.key] ??= decodeWords(header.value);
  const envelope = session.envelope;
  return {
    envelopeFrom: envelope.mailFrom ? envelope.mailFrom.address : '',
    envelopeTo: envelope.rcptTo.map((r) => r.address),
    subject: parsed.subject ?? '',
    text: parsed.text ?? '',
    html: parsed.html ?? '',
    headers,
    raw: raw.toString('utf8'),
  };
}

/** The first `{page url}/{path}?...` link in a mail's text. */
export function linkIn(mail: ReceivedMail, path: 'confirm' | 'unsubscribe'): string {
  const match = new RegExp(`https?://\\S+/${path}\\?\\S+`).exec(mail.text);
  assert.ok(match, `no ${path} link in:\n${mail.text}`);
  return match[0];
}

/** The first mail to `address` whose subject matches, waiting a bounded time for it. */
export async function mailTo(smtp: SmtpReceiver, address: string, subject: RegExp, timeoutMs = 5_000): Promise<ReceivedMail> {
  const matches = (mail: { to: string[]; subject: string }) => mail.to.includes(address) && subject.test(mail.subject);
  const seen = await eventually(
    () => smtp.mails.map((m) => ({ to: m.envelopeTo, subject: m.subject })),
    (mails) => mails.some(matches),
    `a mail to ${address} with subject ${subject}`,
    timeoutMs,
  );
  return smtp.mails[seen.findIndex(matches)]!;
}

export async function startSmtpReceiver(options: SmtpReceiverOptions = {}): Promise<SmtpReceiver> {
  const mails = new Recorded<ReceivedMail>('mail', 'mails');
  const logins: string[] = [];
  let rejecting = options.rejectRecipients ?? false;
  const refused = new Set((options.refuseAddresses ?? []).map((a) => a.toLowerCase()));
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 100,
    // No reverse DNS query for the client: nothing leaves the machine, and sessions start at once.
    disableReverseLookup: true,
    onAuth(auth, _session, callback) {
      // Any user and password will do: the tests check what is sent, not who may send.
      logins.push(auth.username ?? '');
      if (options.rejectLogins) return callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
      callback(null, { user: auth.username ?? 'anonymous' });
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      if (!rejecting && !refused.has(address.address.toLowerCase())) return callback();
      callback(Object.assign(new Error('5.1.1 mailbox unavailable'), { responseCode: 550 }));
    },
    onData(stream: SMTPServerDataStream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.once('end', () => {
        decodeMail(Buffer.concat(chunks), session).then(
          (mail) => {
            mails.push(mail);
            callback();
          },
          (error: unknown) => callback(error as Error),
        );
      });
    },
  });
  server.on('error', () => {});
  const sockets = trackSockets(server.server);
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  server.server.unref();
  const port = (server.server.address() as AddressInfo).port;

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      clearTimeout(lifetime);
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    }));
  const lifetime = setTimeout(() => void close(), options.lifetimeMs ?? DEFAULT_LIFETIME_MS);
  lifetime.unref();

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    mails: mails.items,
    logins,
    waitFor: (count, timeoutMs) => mails.waitFor(count, timeoutMs),
    setRejecting(on) {
      rejecting = on;
    },
    close,
  };
}

// ---- HTTP -----------------------------------------------------------------------------------------

export interface ReceivedRequest {
  method: string;
  /** The path with its query, as sent. */
  path: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

export interface HttpReceiver {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  requests: ReceivedRequest[];
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** The status of every following answer. */
  setStatus(code: number): void;
  close(): Promise<void>;
}

export interface HttpReceiverOptions {
  /** Default 200. */
  status?: number;
  lifetimeMs?: number;
}

export async function startHttpReceiver(options: HttpReceiverOptions = {}): Promise<HttpReceiver> {
  const requests = new Recorded<ReceivedRequest>('request', 'requests');
  let status = options.status ?? 200;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8') });
      const location = status >= 300 && status < 400 ? { location: '/elsewhere' } : undefined;
      res.writeHead(status, { 'content-type': 'text/plain', ...location }).end(status >= 200 && status < 300 ? 'ok' : `answered ${status}`);
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  const sockets = trackSockets(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  server.unref();
  const port = (server.address() as AddressInfo).port;

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      clearTimeout(lifetime);
      server.close(() => resolve());
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
    }));
  const lifetime = setTimeout(() => void close(), options.lifetimeMs ?? DEFAULT_LIFETIME_MS);
  lifetime.unref();

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests: requests.items,
    waitFor: (count, timeoutMs) => requests.waitFor(count, timeoutMs),
    setStatus(code) {
      status = code;
    },
    close,
  };
}

/** How far a signature's time may be from now, either side, before a receiver refuses it. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * Whether `header` (x-statusdesk-signature) is a signature of `body` with `secret`, made within
 * `toleranceSeconds` of `now` (either side), checked as a webhook receiver would check it.
 * Several `v1=` entries are allowed; one must match. A malformed header is false, never an
 * exception.
 */
export function verifySignature(secret: string, header: string, body: string, options: { toleranceSeconds?: number; now?: number } = {}): boolean {
  const tolerance = options.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
  const now = options.now ?? Date.now();
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return false;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) return false;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/i.test(value)) return false;
      candidates.push(value.toLowerCase());
    }
  }
  if (timestamp === undefined || candidates.length === 0) return false;
  if (Math.abs(now / 1000 - timestamp) > tolerance) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest();
  let matched = false;
  // Every candidate is compared, in constant time each, as a receiver should.
  for (const candidate of candidates) matched = timingSafeEqual(expected, Buffer.from(candidate, 'hex')) || matched;
  return matched;
}
