import type { PeerCertificate, TLSSocket } from 'node:tls';
import type { CertificateCheck, ProbeResult } from '../domain/monitors/check-results.ts';

/** node:tls, loaded with the first check that needs it rather than with the service. */
const nodeTls = () => process.getBuiltinModule('node:tls');

const DAY_MS = 86_400_000;
/** Node's `authorizationError` for a chain that verified and a certificate for another name. */
const NAME_MISMATCH = 'ERR_TLS_CERT_ALTNAME_INVALID';

/**
 * What a check records of the certificate a TLS server presented: the leaf's names, dates and
 * fingerprint, whether its chain verifies against the trust store the handshake used, and
 * whether it is for `name`. Built once per handshake from the one getPeerCertificate() the
 * connection reads (connection.ts), for every TLS check: certificate monitors judge it, HTTPS and
 * gRPC checks carry it beside their own outcome.
 */

/**
 * OpenSSL's verification errors as Node names them (`authorizationError`), in words that read
 * alone and after "the certificate does not verify: ".
 */
const VERIFY_ERRORS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'it has expired',
  CERT_NOT_YET_VALID: 'it is not valid yet',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'it is self-signed, and not in the trust store',
  SELF_SIGNED_CERT_IN_CHAIN: 'its chain ends in a self-signed root that is not in the trust store',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its issuer is not in the trust store',
  UNABLE_TO_GET_ISSUER_CERT: 'its issuer is not in the trust store',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its issuer is unknown: the server may not send its intermediate certificates',
  CERT_SIGNATURE_FAILURE: 'its signature is not valid',
  CERT_REVOKED: 'it is revoked',
  CERT_UNTRUSTED: 'it is not trusted for this purpose',
  CERT_REJECTED: 'it is rejected for this purpose',
  INVALID_CA: 'a certificate of its chain that signs another is not a CA',
  INVALID_PURPOSE: 'it is not meant for TLS servers',
  PATH_LENGTH_EXCEEDED: 'its chain is longer than its CA allows',
};

/** The reason OpenSSL gave for an unverified chain, in words; its code when it has none here. */
export const verifyErrorWords = (code: string) => VERIFY_ERRORS[code] ?? `its chain does not verify (${code})`;

/** A distinguished name as people write it: `CN=shop.example.com, O=Example`. */
function distinguishedName(name: PeerCertificate['subject'] | undefined): string {
  if (!name) return '';
  const parts: string[] = [];
  for (const key in name) {
    const value = (name as unknown as Record<string, string | string[]>)[key]!;
    for (const one of Array.isArray(value) ? value : [value]) parts.push(`${key}=${one}`);
  }
  return parts.join(', ');
}

/** An ISO time of a certificate's date (`Mar  5 12:00:00 2027 GMT`), or the text as it is if it cannot be read. */
function isoOf(date: string): string {
  const ms = Date.parse(date);
  return Number.isNaN(ms) ? date : new Date(ms).toISOString();
}

/** Whole days from `now` to `notAfter`: 0 on its last day, negative once it has expired. */
export const daysLeft = (notAfterMs: number, now: number) => Math.floor((notAfterMs - now) / DAY_MS);

/**
 * The record of `socket`'s peer certificate (`peer`, read once by the caller) as checked for
 * `name` (the SNI name, or the IP address connected to), at `now`.
 */
export function certificateRecord(socket: TLSSocket, peer: PeerCertificate, name: string, now: number): CertificateCheck {
  // Node verifies the chain, then a name of its choosing (for a socket it did not connect, without
  // SNI, `localhost`): a mismatch there says only that the chain verified. The name is `name`'s
  // to say, checked here.
  const reason = socket.authorized ? undefined : String(socket.authorizationError ?? 'UNKNOWN');
  const verified = reason === undefined || reason === NAME_MISMATCH;
  const nameMatches = nodeTls().checkServerIdentity(name, peer) === undefined;
  const notAfter = Date.parse(peer.valid_to);
  const error = !verified ? verifyErrorWords(reason!) : !nameMatches ? nameMismatchWords(name, peer) : null;
  return {
    subject: distinguishedName(peer.subject),
    issuer: distinguishedName(peer.issuer),
    subjectAltNames: peer.subjectaltname ? peer.subjectaltname.split(', ') : [],
    notBefore: isoOf(peer.valid_from),
    notAfter: isoOf(peer.valid_to),
    daysLeft: Number.isNaN(notAfter) ? 0 : daysLeft(notAfter, now),
    fingerprintSha256: peer.fingerprint256 ?? '',
    serialNumber: peer.serialNumber ?? '',
    verified,
    nameMatches,
    serverName: name,
    error,
  };
}

/** Why the certificate is not for `name`, naming what it is for. */
function nameMismatchWords(name: string, peer: PeerCertificate): string {
  const names = peer.subjectaltname || (peer.subject?.CN ? `CN=${peer.subject.CN}` : 'no name');
  return `it is not for ${name}: it names ${names}`;
}

/** `result` with `certificate`, the one of the check's last TLS handshake, when it made one: what HTTPS and gRPC checks carry beside their outcome. */
export function withCertificate(result: ProbeResult, certificate: CertificateCheck | undefined): ProbeResult {
  if (certificate) result.certificate = certificate;
  return result;
}
