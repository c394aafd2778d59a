import { connect as netConnect, type Socket } from 'node:net';
import { DestinationRefused, type DestinationPolicy } from '../domain/destinations.ts';

/**
 * Mail over SMTP through nodemailer: one pooled transport per SMTP URL. A message and all its
 * recipients are one SMTP transaction. Errors name the server (host:port) and its answer, never
 * the credentials of the URL. With a destination policy, each connection is opened here, to an
 * address the policy judged, and handed to nodemailer (which would otherwise resolve the name itself).
 */

export interface Mail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
}

export interface Mailer {
  /** Resolves once the server accepted the message for every recipient. */
  send(mail: Mail): Promise<void>;
  /** Closes the pooled connections; a message being sent is finished first. */
  close(): void;
}

const MAX_CONNECTIONS = 5;
/** A pooled connection is replaced after this many messages: effectively never. */
const MAX_MESSAGES = 1_000_000;
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;

/** How a connection to the relay is protected: STARTTLS when offered (smtp:// URLs), never, required, or TLS from the start. */
export type SmtpSecurity = 'opportunistic' | 'none' | 'starttls' | 'tls';

/** A mail relay: from an smtp:// URL (the environment, a channel's own) or from the stored email settings. */
export interface SmtpServer {
  host: string;
  port: number;
  security: SmtpSecurity;
  user: string;
  pass: string;
}

/**
 * Reads an smtp:// or smtps:// URL: scheme, user, password, host and port. Without a port,
 * smtp:// is 587 (STARTTLS when offered) and smtps:// is 465 (TLS from the start). Anything in
 * the query is ignored. Errors never quote the URL: it carries the password.
 */
export function parseSmtpUrl(smtpUrl: string): SmtpServer {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new Error('the SMTP URL is not a valid URL; expected smtp:// or smtps://user:password@host:port');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`the SMTP URL must use smtp:// or smtps://, not ${url.protocol}//`);
  if (!url.hostname) throw new Error('the SMTP URL names no host');
  const secure = url.protocol === 'smtps:';
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  };
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port) || (secure ? 465 : 587),
    security: secure ? 'tls' : 'opportunistic',
    user: decode(url.username),
    pass: decode(url.password),
  };
}

interface SmtpError extends Error {
  code?: string;
  /** Set by Node for socket errors under nodemailer's own code. */
  originalCode?: string;
  response?: string;
  responseCode?: number;
  command?: string;
}

const SOCKET_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'connection reset by the server',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'DNS lookup failed: no such host',
  EAI_AGAIN: 'DNS lookup failed: the resolver did not answer',
};

/** One line of a server answer, trimmed: enough to say why, short enough to store. */
const oneLine = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
};

/** The reason in words, from nodemailer's error: the server's answer when there is one. */
function describe(error: SmtpError): string {
  if (error.code === 'EDESTINATION') return `failed: ${error.message}`;
  if (error.response) {
    const answer = oneLine(error.response);
    if (error.code === 'EAUTH') return `authentication failed: ${answer}`;
    return error.command && error.command !== 'CONN' && error.command !== 'API' ? `answered ${error.command} with ${answer}` : `answered ${answer}`;
  }
  const code = error.originalCode ?? error.code ?? '';
  if (SOCKET_ERRORS[code]) return SOCKET_ERRORS[code];
  if (error.code === 'ETIMEDOUT') return `timed out: ${oneLine(error.message)}`;
  if (error.code === 'ETLS' || /certificate|self[- ]signed/i.test(error.message)) return `TLS failed: ${oneLine(error.message)}`;
  return oneLine(error.message) || 'failed';
}

/** Removes the password, raw and URL-encoded, from text that came back from the server. */
function withoutPassword(text: string, server: SmtpServer): string {
  if (!server.pass) return text;
  let clean = text;
  for (const secret of new Set([server.pass, encodeURIComponent(server.pass), Buffer.from(server.pass).toString('base64')])) {
    if (secret) clean = clean.split(secret).join('••••••••');
  }
  return clean;
}

/**
 * nodemailer, loaded with the first message, or before it when mail will surely be sent (see
 * services.ts `warmMail`): a service that never mails never pays for it.
 */
export const loadMailCode = () => import('nodemailer');

/**
 * A TCP connection to the relay for nodemailer's `getSocket`: a refused address is never
 * connected to (its error carries the policy's words); TLS, when the relay wants it, is
 * nodemailer's to start over this connection, verifying the relay's name.
 */
function connectThrough(destinations: DestinationPolicy, server: SmtpServer): Promise<Socket> {
  const refused = destinations.refusalOfHost(server.host, server.port);
  if (refused) return Promise.reject(new DestinationRefused(refused));
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: server.host, port: server.port, lookup: destinations.lookup(server.port), timeout: CONNECTION_TIMEOUT_MS });
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.once('error', fail);
    socket.once('timeout', () => fail(Object.assign(new Error(`connection timed out after ${CONNECTION_TIMEOUT_MS} ms`), { code: 'ETIMEDOUT' })));
    socket.once('connect', () => {
      socket.off('error', fail);
      // Until nodemailer listens (a few ticks from now), an error must not end the process;
      // nodemailer hears of later ones through its own listener.
      socket.on('error', () => {});
      socket.setTimeout(0);
      resolve(socket);
    });
  });
}

/** nodemailer's words for a security choice: TLS from the start, STARTTLS required, or never tried. */
const securityOptions = (security: SmtpSecurity) => ({
  secure: security === 'tls',
  requireTLS: security === 'starttls',
  ignoreTLS: security === 'none',
});

/** The relay as errors name it: `SMTP host:port`. */
const serverName = (server: SmtpServer) => `SMTP ${server.host.includes(':') ? `[${server.host}]` : server.host}:${server.port}`;

/**
 * Sends one message over a connection of its own (no pool), closed after it: the settings'
 * test send. Resolves with the server's answer to the message, in its own words
 * (`250 2.0.0 Ok: queued as …`); rejects as `send` does, naming the server and why.
 */
export async function sendOnce(server: SmtpServer, mail: Mail, destinations?: DestinationPolicy): Promise<string> {
  const { createTransport } = await loadMailCode();
  const transport = createTransport({
    host: server.host,
    port: server.port,
    ...securityOptions(server.security),
    auth: server.user || server.pass ? { user: server.user, pass: server.pass } : undefined,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
    ...(destinations && {
      getSocket: (_options: unknown, callback: (error: Error | null, socket?: { connection: Socket }) => void) =>
        void connectThrough(destinations, server).then(
          (connection) => callback(null, { connection }),
          (error: Error) => callback(error),
        ),
    }),
  });
  const failure = (reason: string) => new Error(withoutPassword(`${serverName(server)} ${reason}`, server));
  try {
    const info = await transport.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, headers: mail.headers });
    if (info.rejected.length > 0) {
      const answer = (info as { rejectedErrors?: SmtpError[] }).rejectedErrors?.[0]?.response;
      throw failure(`refused ${info.rejected.map(String).join(', ')}${answer ? `: ${oneLine(answer)}` : ''}`);
    }
    return withoutPassword(oneLine(String(info.response ?? 'accepted')), server);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith(serverName(server))) throw error;
    throw failure(describe(error as SmtpError));
  } finally {
    transport.close();
  }
}

/** A pooled mailer for an smtp:// URL, or for a relay already read (the stored email settings). */
export function createMailer(relay: string | SmtpServer, destinations?: DestinationPolicy): Mailer {
  const server = typeof relay === 'string' ? parseSmtpUrl(relay) : relay;
  const name = serverName(server);
  const load = () =>
    loadMailCode().then(({ createTransport }) => {
      const pooled = createTransport({
        pool: true,
        host: server.host,
        port: server.port,
        ...securityOptions(server.security),
        auth: server.user || server.pass ? { user: server.user, pass: server.pass } : undefined,
        maxConnections: MAX_CONNECTIONS,
        maxMessages: MAX_MESSAGES,
        // A message whose connection closed under it fails; it is not sent again.
        maxRequeues: 0,
        connectionTimeout: CONNECTION_TIMEOUT_MS,
        greetingTimeout: GREETING_TIMEOUT_MS,
        socketTimeout: SOCKET_TIMEOUT_MS,
        // Messages are plain strings: nothing is read from files or fetched from URLs.
        disableFileAccess: true,
        disableUrlAccess: true,
        logger: false,
        ...(destinations && {
          getSocket: (_options: unknown, callback: (error: Error | null, socket?: { connection: Socket }) => void) =>
            void connectThrough(destinations, server).then(
              (connection) => callback(null, { connection }),
              (error: Error) => callback(error),
            ),
        }),
      });
      // Failures reach the caller through send(); an 'error' event must never end the process.
      pooled.on('error', () => {});
      return pooled;
    });
  let transport: ReturnType<typeof load> | undefined;
  const transportOf = () => (transport ??= load());
  const failure = (reason: string) => new Error(withoutPassword(`${name} ${reason}`, server));
  return {
    async send(mail) {
      let info: { accepted: unknown[]; rejected: unknown[]; rejectedErrors?: SmtpError[] | undefined };
      try {
        info = await (await transportOf()).sendMail({
          from: mail.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          headers: mail.headers,
        });
      } catch (error) {
        throw failure(describe(error as SmtpError));
      }
      if (info.rejected.length > 0) {
        // Some recipients were refused: the others have the message, but the delivery is incomplete.
        const answer = info.rejectedErrors?.[0]?.response;
        const who = info.rejected.map(String).join(', ');
        throw failure(
          `refused ${info.rejected.length} of ${info.rejected.length + info.accepted.length} recipients (${who})${answer ? `: ${oneLine(answer)}` : ''}`,
        );
      }
    },
    close() {
      void transport?.then((pooled) => pooled.close());
    },
  };
}
