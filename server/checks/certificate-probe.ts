import type { SecureContext } from 'node:tls';
import type { DestinationPolicy } from '../domain/destinations.ts';
import type { CertificateCheck, ProbeResult, Timing } from '../domain/monitors/check-results.ts';
import type { ConfigOf } from '../domain/monitors/monitor-rules.ts';
import { ConnectionFailure, Deadline, emptyTiming, openConnection, parseTarget, type TlsSettings, withRetries } from './connection.ts';
import { degradedMessage, failedProbe, probeResult } from './outcome.ts';

/**
 * The certificate check: resolve, connect, make a TLS handshake (with the monitor's server name
 * in SNI, offering h2 and http/1.1 as a browser does, so servers that insist on ALPN answer),
 * close, and judge the certificate the server presented: its dates, whether its chain verifies
 * against the trust store of the checks, whether it is for the name asked for, and the days left
 * against the monitor's threshold. The handshake accepts any certificate, so that a bad one is
 * recorded and named rather than refused unread. Failed connections and handshakes are retried up
 * to Retry; a certificate is the result, good or bad.
 */

export type CertificateProbeConfig = Pick<ConfigOf<'certificate'>, 'uri' | 'serverName' | 'minDaysLeft' | 'timeout' | 'degraded' | 'retry'>;

export interface CertificateProbeOptions {
  /** The trust store the chain is verified against (see trustStore). */
  trust: SecureContext;
  /** Aborts the check (the engine is closing). */
  stop?: AbortSignal;
  /** Where the check may connect (domain/destinations.ts); absent: anywhere. */
  destinations?: DestinationPolicy;
  /** The time the certificate's dates are judged at; the wall clock by default. */
  now?: () => number;
}

/** Nothing is sent on the connection but the handshake: Nagle's algorithm does not matter to it (see openConnection). */
const ONLY_HANDSHAKES = { writes: false };
const ALPN = ['h2', 'http/1.1'];
const DAY_MS = 86_400_000;

export async function probeCertificate(monitor: CertificateProbeConfig, options: CertificateProbeOptions): Promise<ProbeResult> {
  const deadline = new Deadline(monitor.timeout, options.stop);
  const target = parseTarget(monitor.uri);
  const timing = emptyTiming();
  let attempts = 0;
  let certificate: CertificateCheck | undefined;
  const tls: TlsSettings = {
    verify: false,
    alpn: ALPN,
    trust: options.trust,
    servername: monitor.serverName || undefined,
    onCertificate: (found) => {
      certificate = found;
    },
  };
  try {
    const socket = await withRetries(monitor.retry, deadline, () => {
      attempts++;
      return openConnection(target, deadline, timing, tls, options.destinations, ONLY_HANDSHAKES);
    });
    socket.destroy();
    const latency = deadline.elapsed();
    timing.total = latency;
    if (!certificate) return probeResult('down', latency, timing, attempts, 'the server completed the handshake without a certificate');
    return judge(monitor, certificate, (options.now ?? Date.now)(), latency, timing, attempts);
  } catch (error) {
    if (!(error instanceof ConnectionFailure)) throw error;
    return failedProbe(deadline, timing, attempts, error.kind === 'tls' ? handshakeWords(error.message) : error.message);
  } finally {
    deadline.clear();
  }
}

/** The outcome table of docs/reference/monitors.md (Certificate), in its order: the first row that applies. */
function judge(monitor: CertificateProbeConfig, certificate: CertificateCheck, now: number, latency: number, timing: Timing, attempts: number): ProbeResult {
  const result = (outcome: ProbeResult['result'], message: string): ProbeResult => ({
    ...probeResult(outcome, latency, timing, attempts, message),
    certificate,
  });
  const notBefore = Date.parse(certificate.notBefore);
  const notAfter = Date.parse(certificate.notAfter);
  if (now < notBefore) return result('down', `the certificate is not valid until ${dateWords(notBefore)}`);
  if (now > notAfter) return result('down', `the certificate expired ${agoWords(now - notAfter)}, on ${dateWords(notAfter)}`);
  if (!certificate.verified) return result('down', `the certificate does not verify: ${certificate.error}`);
  if (!certificate.nameMatches) {
    return result(
      'down',
      `the certificate is not for ${certificate.serverName}: it names ${certificate.subjectAltNames.join(', ') || certificate.subject || 'no name'}`,
    );
  }
  if (certificate.daysLeft < monitor.minDaysLeft) {
    return result('degraded', `the certificate expires ${inWords(notAfter - now)}, on ${dateWords(notAfter)}: fewer than ${monitor.minDaysLeft} days left`);
  }
  if (monitor.degraded !== null && latency > monitor.degraded) return result('degraded', degradedMessage('handshake done', latency, monitor.degraded));
  const left = certificate.daysLeft === 0 ? 'less than a day' : certificate.daysLeft === 1 ? '1 more day' : `${certificate.daysLeft} more days`;
  return result('up', `the certificate is valid for ${left}, until ${dateWords(notAfter)}`);
}

/** `2027-03-05 12:00 UTC`. */
const dateWords = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

const daysWords = (days: number) => (days === 1 ? '1 day' : `${days} days`);

/** `in 3 days`, `in less than a day`. */
const inWords = (ms: number) => (ms < DAY_MS ? 'in less than a day' : `in ${daysWords(Math.floor(ms / DAY_MS))}`);

/** `2 days ago`, `less than a day ago`. */
const agoWords = (ms: number) => (ms < DAY_MS ? 'less than a day ago' : `${daysWords(Math.floor(ms / DAY_MS))} ago`);

/**
 * A failed handshake in words a person can act on: a port that answers something other than TLS
 * (a plain HTTP or SMTP server) is named so, and a server that hangs up is told from one that
 * refused by an alert.
 */
function handshakeWords(message: string): string {
  const reason = message.replace(/^TLS handshake failed: /, '');
  if (/wrong version number|packet length too long|http request|unknown protocol|record layer failure/i.test(reason)) {
    return `no TLS on this port: the server answered the handshake with something else (${reason})`;
  }
  if (reason === 'ECONNRESET' || reason === 'EPIPE') return 'TLS handshake failed: the server closed the connection during the handshake';
  return message;
}
