import type { DNSCheck } from '../../../proto/gen/monitor/v1/monitor_pb.js';
import type { CheckResult } from '../api.ts';
import { Icon } from '../icons.tsx';
import { When } from '../time.tsx';
import './monitor-detail-dns.css';

// The part of a monitor's screen that only a DNS monitor has: what its latest check asked (the
// name, the record type, the resolver) and what came back (the response code, the answers in
// their written form), and each rule held to the answers.

/** What a DNS check found, as the dashboard lists checks. */
export type DnsSeen = NonNullable<CheckResult['dns']>;

/** Each response code in words (docs/reference/monitors.md, "DNS"). */
const RCODE_WORDS: Record<string, string> = {
  NXDOMAIN: 'No such name (NXDOMAIN)',
  SERVFAIL: 'Server failure (SERVFAIL)',
  REFUSED: 'Refused (REFUSED)',
  NOTIMP: 'Not answered for this type (NOTIMP)',
  FORMERR: 'Query not understood (FORMERR)',
};

/** The answer's code in words: an answer with records, one without, a failure, or none at all. */
export function answerWord(seen: DnsSeen): string {
  if (seen.rcode === null) return 'No answer';
  if (seen.rcode === 'NOERROR') return seen.answers.length === 0 ? 'No records of the type (NOERROR)' : 'Answered (NOERROR)';
  return RCODE_WORDS[seen.rcode] ?? seen.rcode;
}

/** The DNS part of a TriggerMonitor result in the shape of the dashboard's results. */
export function dnsSeenOf(check: DNSCheck | undefined): DnsSeen | null {
  if (!check) return null;
  return {
    name: check.name,
    recordType: check.recordType,
    rcode: check.rcode || null,
    resolver: check.resolver || null,
    systemResolver: check.systemResolver,
    answers: [...check.answers],
    assertions: check.assertions.map(({ assertion, passed, actual }) => ({ assertion, passed, actual })),
  };
}

/** The question and the answer as the latest check found them. */
export function DnsFacts({ latest }: { latest: CheckResult | undefined }) {
  const seen = latest?.dns;
  if (!latest || !seen) return <p className="empty">No check yet. Press Check now to run one.</p>;
  return (
    <>
      <dl className="dns-facts">
        <div>
          <dt>Latest check</dt>
          <dd>
            {answerWord(seen)} <When iso={latest.startedAt} />
          </dd>
        </div>
        <div>
          <dt>Asked</dt>
          <dd>
            <code>{seen.recordType}</code> <code>{seen.name}</code>
          </dd>
        </div>
        <div>
          <dt>Resolver</dt>
          <dd>
            {seen.resolver ? <code>{seen.resolver}</code> : <span className="muted">None asked</span>}
            {seen.systemResolver ? <span className="muted"> (the system’s)</span> : null}
          </dd>
        </div>
      </dl>
      <h3 className="dns-heading">Answers{seen.answers.length > 0 ? ` (${seen.answers.length.toLocaleString()})` : ''}</h3>
      {seen.answers.length === 0 ? (
        <p className="muted small">None: {latest.message}</p>
      ) : (
        <ul className="dns-answers">
          {seen.answers.map((answer, i) => (
            <li key={i}>
              <code>{answer}</code>
            </li>
          ))}
        </ul>
      )}
      {seen.assertions.length > 0 ? (
        <>
          <h3 className="dns-heading">Rules</h3>
          <ul className="assertions">
            {seen.assertions.map((rule, i) => (
              <li key={i} className={rule.passed ? 'assertion-passed' : 'assertion-failed'}>
                <Icon name={rule.passed ? 'check' : 'warning'} />
                <strong>{rule.passed ? 'Held' : 'Failed'}</strong> {rule.assertion}
                {!rule.passed ? <span className="muted"> (found {rule.actual})</span> : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </>
  );
}
