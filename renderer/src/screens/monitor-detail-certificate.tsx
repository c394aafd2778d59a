import { timestampDate } from '@bufbuild/protobuf/wkt';
import { CERTIFICATE_LIMITS } from '../../../contract/limits.ts';
import type { CertificateCheck as ProtoCertificate } from '../../../proto/gen/monitor/v1/monitor_pb.js';
import type { CheckResult } from '../api.ts';
import { Icon } from '../icons.tsx';
import { When } from '../time.tsx';
import './monitor-detail-certificate.css';

// The certificate a monitor's latest check saw, for any monitor whose check made a TLS handshake
// (a certificate monitor, HTTPS, gRPC over TLS): how many days it has left, in the colour of what
// that means, and what it is: names, issuer, dates, whether it verifies and is for the name.

/** A certificate as the dashboard lists checks. */
export type CertificateSeen = NonNullable<CheckResult['certificate']>;

const DAY_MS = 86_400_000;

/** The certificate of a TriggerMonitor result in the shape of the dashboard's results. */
export function certificateSeenOf(c: ProtoCertificate | undefined): CertificateSeen | null {
  if (!c) return null;
  const iso = (t: ProtoCertificate['notBefore']) => (t ? timestampDate(t).toISOString() : new Date(0).toISOString());
  return {
    subject: c.subject,
    issuer: c.issuer,
    subjectAltNames: [...c.subjectAltNames],
    notBefore: iso(c.notBefore),
    notAfter: iso(c.notAfter),
    daysLeft: c.daysLeft,
    fingerprintSha256: c.fingerprintSha256,
    serialNumber: c.serialNumber,
    verified: c.verified,
    nameMatches: c.nameMatches,
    serverName: c.serverName,
    error: c.error || null,
  };
}

type Standing = 'ok' | 'soon' | 'bad';

/**
 * Where the certificate stands when the check saw it, in words: its days left, or that it has
 * expired or is not valid yet; `soon` below `minDaysLeft`.
 */
export function daysLeftWords(c: CertificateSeen, checkedAt: string, minDaysLeft: number): { words: string; standing: Standing } {
  const at = Date.parse(checkedAt);
  const notAfter = Date.parse(c.notAfter);
  if (at < Date.parse(c.notBefore)) return { words: 'Not valid yet', standing: 'bad' };
  if (at > notAfter) {
    const ago = Math.floor((at - notAfter) / DAY_MS);
    return { words: ago < 1 ? 'Expired today' : `Expired ${ago === 1 ? '1 day' : `${ago} days`} ago`, standing: 'bad' };
  }
  const words = c.daysLeft < 1 ? 'Expires within a day' : `${c.daysLeft.toLocaleString()} ${c.daysLeft === 1 ? 'day' : 'days'} left`;
  return { words, standing: c.daysLeft < minDaysLeft ? 'soon' : 'ok' };
}

const ICONS: Record<Standing, 'check' | 'warning'> = { ok: 'check', soon: 'warning', bad: 'warning' };

const dateText = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/**
 * The certificate of the latest check that saw one. `minDaysLeft` is the certificate monitor's
 * own threshold; other types are told of a certificate nearing its end by the default one.
 */
export function CertificateFacts({ latest, minDaysLeft = CERTIFICATE_LIMITS.minDaysLeft.default }: { latest: CheckResult; minDaysLeft?: number }) {
  const c = latest.certificate;
  if (!c) return null;
  const { words, standing } = daysLeftWords(c, latest.startedAt, minDaysLeft);
  return (
    <div className="certificate">
      <p className={`certificate-days certificate-${standing}`}>
        <Icon name={ICONS[standing]} />
        <strong>{words}</strong>
        <span className="muted small">
          {' '}
          valid until <time dateTime={c.notAfter}>{dateText(c.notAfter)}</time>, seen <When iso={latest.startedAt} />
        </span>
      </p>
      <dl className="certificate-facts">
        <div>
          <dt>Chain</dt>
          <dd className={c.verified ? undefined : 'certificate-problem'}>{c.verified ? 'Verified' : `Does not verify: ${c.error ?? 'unknown reason'}`}</dd>
        </div>
        <div>
          <dt>Name</dt>
          <dd className={c.nameMatches ? undefined : 'certificate-problem'}>
            {c.nameMatches ? 'Matches ' : 'Not for '}
            <code>{c.serverName}</code>
          </dd>
        </div>
        <div>
          <dt>Subject</dt>
          <dd>{c.subject || <span className="muted">None</span>}</dd>
        </div>
        <div>
          <dt>Issuer</dt>
          <dd>{c.issuer || <span className="muted">None</span>}</dd>
        </div>
        <div>
          <dt>Names</dt>
          <dd>{c.subjectAltNames.length > 0 ? c.subjectAltNames.join(', ') : <span className="muted">None</span>}</dd>
        </div>
        <div>
          <dt>Valid from</dt>
          <dd>
            <time dateTime={c.notBefore}>{dateText(c.notBefore)}</time>
          </dd>
        </div>
        <div className="certificate-wide">
          <dt>SHA-256 fingerprint</dt>
          <dd>
            <code>{c.fingerprintSha256}</code>
          </dd>
        </div>
        <div>
          <dt>Serial number</dt>
          <dd>
            <code>{c.serialNumber}</code>
          </dd>
        </div>
      </dl>
    </div>
  );
}
