import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { diffLines } from 'diff';
import type { MCPCheck, MCPToolChange } from '../../../proto/gen/monitor/v1/monitor_pb.js';
import type { CheckResult } from '../api.ts';
import { ConfirmDialog, ErrorNote, Loading } from '../components.tsx';
import { useAcceptMcpTools, useMcpTools } from '../data/monitors.ts';
import { loadedOf, useConfirmedAction } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { Link } from '../router.tsx';
import { When } from '../time.tsx';
import './monitor-detail-mcp.css';

// The parts of a monitor's screen that only an MCP monitor has: what its latest check found of
// the server, and its tools: the pinned set, and a drift to read (a diff of each changed tool's
// text) and to accept.

/** What a check of an MCP server found, as the dashboard lists checks. */
export type McpFound = NonNullable<CheckResult['mcp']>;

/** Each outcome of an MCP check in words (docs/reference/monitors.md, "MCP server"). */
export const MCP_STATUS_WORDS: Record<string, string> = {
  OK: 'Answered',
  SIGN_IN_NEEDED: 'Sign-in needed',
  UNREACHABLE: 'Unreachable',
  TIMEOUT: 'Timed out',
  HANDSHAKE_REFUSED: 'Handshake refused',
  PROTOCOL_ERROR: 'Protocol error',
  PROCESS_EXITED: 'Process exited',
};

export const mcpStatusWord = (status: string) => MCP_STATUS_WORDS[status] ?? status;

/** The MCP part of a TriggerMonitor result in the shape of the dashboard's results. */
export function mcpFoundOf(check: MCPCheck | undefined): McpFound | null {
  if (!check) return null;
  return {
    status: check.status,
    protocolVersion: check.protocolVersion || null,
    serverName: check.serverName || null,
    serverVersion: check.serverVersion || null,
    toolCount: check.tools.length,
    prompts: check.prompts ?? null,
    resources: check.resources ?? null,
    warnings: check.warnings,
    exitCode: check.exitCode ?? null,
    stderrTail: check.stderrTail,
    signIn: check.signIn || null,
  };
}

/** The server as the latest check found it. */
export function McpServerFacts({ latest, monitorId }: { latest: CheckResult | undefined; monitorId: string }) {
  const found = latest?.mcp;
  if (!latest || !found) return <p className="empty">No check yet. Press Check now to run one.</p>;
  const counted = (count: number | null) => (count === null ? <span className="muted">Not offered</span> : count.toLocaleString());
  return (
    <>
      <dl className="mcp-facts">
        <div>
          <dt>Latest check</dt>
          <dd>
            {mcpStatusWord(found.status)} <When iso={latest.startedAt} />
          </dd>
        </div>
        <div>
          <dt>Protocol version</dt>
          <dd>{found.protocolVersion ?? <span className="muted">No handshake</span>}</dd>
        </div>
        <div>
          <dt>Server</dt>
          <dd>
            {found.serverName ?? <span className="muted">Unnamed</span>}
            {found.serverVersion ? <span className="muted"> {found.serverVersion}</span> : null}
          </dd>
        </div>
        <div>
          <dt>Tools</dt>
          <dd>{found.toolCount.toLocaleString()}</dd>
        </div>
        <div>
          <dt>Prompts</dt>
          <dd>{counted(found.prompts)}</dd>
        </div>
        <div>
          <dt>Resources</dt>
          <dd>{counted(found.resources)}</dd>
        </div>
      </dl>
      {found.status === 'SIGN_IN_NEEDED' ? <SignInNeeded challenge={found.signIn} monitorId={monitorId} /> : null}
      {found.warnings.length > 0 ? (
        <div className="note note-warning mcp-warnings">
          <Icon name="warning" />
          <div>
            <strong>Hidden characters in tool texts.</strong> Invisible or bidirectional control characters can hide instructions from you while the AI model
            still reads them.
            <ul>
              {found.warnings.map((warning) => (
                <li key={warning}>{warning}</li>
              ))}
            </ul>
          </div>
        </div>
      ) : null}
      {latest.result === 'down' && (found.exitCode !== null || found.stderrTail) ? (
        <div className="mcp-exit">
          <p>
            <strong>{found.exitCode === null ? 'The server wrote this before the check failed.' : `The server exited with code ${found.exitCode}.`}</strong>
            {found.stderrTail ? ' The end of its standard error:' : null}
          </p>
          {found.stderrTail ? (
            // A scrollable region: it takes the focus so the keyboard can scroll it.
            <pre className="mcp-stderr" role="region" tabIndex={0} aria-label="Standard error of the server">
              {found.stderrTail}
            </pre>
          ) : null}
        </div>
      ) : null}
    </>
  );
}

/** A server that wants a sign-in: not an outage; what to do about it. */
function SignInNeeded({ challenge, monitorId }: { challenge: string | null; monitorId: string }) {
  return (
    <div className="note mcp-sign-in" role="status">
      <Icon name="key" />
      <div>
        <strong>Sign-in needed.</strong> The server is there but asks for a sign-in, so this check counts as degraded, not as an outage. Sign in again from your
        AI editor (see <Link to="/connect">Connect an AI editor</Link>), or give this monitor a fresh <code>Authorization</code> header in{' '}
        <Link to={`/monitors/${encodeURIComponent(monitorId)}/edit`}>its settings</Link>.
        {challenge ? (
          <p className="small muted mcp-challenge">
            The server asked: <code>{challenge}</code>
          </p>
        ) : null}
      </div>
    </div>
  );
}

/** The first characters of a fingerprint: enough to tell tools apart at a glance. */
const SHORT_FINGERPRINT = 12;

const iso = (timestamp: Timestamp | undefined) => (timestamp ? timestampDate(timestamp).toISOString() : null);

/** The pinned tools and the open drift, with the diff of each change and the button to accept them. */
export function McpTools({ workspaceId, monitorId, refreshMs }: { workspaceId: string; monitorId: string; refreshMs: number }) {
  const tools = loadedOf(useMcpTools(workspaceId, monitorId, true, refreshMs));
  const accept = useAcceptMcpTools(workspaceId);
  const confirmed = useConfirmedAction((id: string) => accept.mutateAsync({ id }));

  if (tools.state === 'loading') return <Loading what="the tools" />;
  if (tools.state === 'error') return <ErrorNote>{tools.error.message}</ErrorNote>;
  const { pinned, pinnedAt, drifted, driftedAt, changes } = tools.value;
  return (
    <>
      {drifted ? (
        <div className="mcp-drift" role="alert" aria-labelledby="mcp-drift-heading">
          <div className="mcp-drift-head">
            <Icon name="warning" />
            <div>
              <h3 id="mcp-drift-heading">This server changed its tools</h3>
              <p className="small">
                Found <When iso={iso(driftedAt)} />. Its tools differ from the ones pinned: read what changed before your AI editor uses them. Accepting pins
                them as they are now.
              </p>
            </div>
          </div>
          <ul className="mcp-changes">
            {changes.map((change) => (
              <li key={`${change.change} ${change.name}`}>
                <ToolChange change={change} />
              </li>
            ))}
          </ul>
          <button type="button" className="button button-primary" onClick={() => confirmed.ask(monitorId)}>
            <Icon name="check" />
            Accept these tools
          </button>
        </div>
      ) : null}
      <h3 className="mcp-pinned-heading">Pinned tools</h3>
      {pinned.length === 0 ? (
        <p className="empty">None yet: the first successful check pins the tools the server lists.</p>
      ) : (
        <>
          <p className="muted small">
            {pinned.length === 1 ? '1 tool' : `${pinned.length.toLocaleString()} tools`}, pinned <When iso={iso(pinnedAt)} />. A check that finds them otherwise
            raises a drift.
          </p>
          <div className="table-wrap">
            <table className="table mcp-pinned">
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">Fingerprint</th>
                </tr>
              </thead>
              <tbody>
                {pinned.map((tool) => (
                  <tr key={tool.name}>
                    <th scope="row">
                      <code>{tool.name}</code>
                    </th>
                    <td>
                      <code title={tool.fingerprint}>{tool.fingerprint.slice(0, SHORT_FINGERPRINT)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <ConfirmDialog title="Accept these tools?" confirmLabel="Accept tools" {...confirmed.dialog}>
        <p>
          The tools this server lists now become the pinned ones, and the drift closes. Accept them only if you trust what changed: a tool's description is read
          by the AI model as instructions.
        </p>
      </ConfirmDialog>
    </>
  );
}

const CHANGE_WORDS: Record<string, string> = { added: 'Added', removed: 'Removed', changed: 'Changed' };

/** One tool of a drift: how it changed, and its text before and after, line by line. */
function ToolChange({ change }: { change: MCPToolChange }) {
  return (
    <>
      <p className="mcp-change-title">
        <span className={`badge mcp-change-${change.change}`}>{CHANGE_WORDS[change.change] ?? change.change}</span> <code>{change.name}</code>
      </p>
      <TextDiff before={change.before} after={change.after} name={change.name} />
    </>
  );
}

/** A tool's canonical JSON, indented to be read; a text that is not JSON as it is. */
export function readable(text: string): string {
  if (text === '') return '';
  try {
    return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
  } catch {
    return text.endsWith('\n') ? text : `${text}\n`;
  }
}

/** The lines of a diff of two texts, each marked kept, removed or added. */
export function diffOf(before: string, after: string): { kind: 'kept' | 'removed' | 'added'; line: string }[] {
  return diffLines(readable(before), readable(after)).flatMap((part) => {
    const kind = part.added ? 'added' : part.removed ? 'removed' : 'kept';
    return part.value
      .replace(/\n$/, '')
      .split('\n')
      .map((line) => ({ kind, line }) as const);
  });
}

const MARKS = { kept: ' ', removed: '−', added: '+' } as const;

/**
 * The text of a tool before and after, line by line: removed lines marked − (and <del>), added
 * ones + (and <ins>), in colour too, so the change reads without colour and to a screen reader.
 */
function TextDiff({ before, after, name }: { before: string; after: string; name: string }) {
  const lines = diffOf(before, after);
  const removed = lines.filter((l) => l.kind === 'removed').length;
  const added = lines.filter((l) => l.kind === 'added').length;
  return (
    <figure className="mcp-diff">
      <figcaption className="small muted">
        {removed === 1 ? '1 line' : `${removed} lines`} removed (−), {added === 1 ? '1 line' : `${added} lines`} added (+)
      </figcaption>
      {/* A scrollable region: it takes the focus so the keyboard can scroll it. */}
      <pre role="region" tabIndex={0} aria-label={`Changes of ${name}`}>
        {lines.map((l, i) => {
          const text = `${MARKS[l.kind]} ${l.line}`;
          return l.kind === 'removed' ? (
            <del key={i} className="mcp-diff-removed">
              {text}
            </del>
          ) : l.kind === 'added' ? (
            <ins key={i} className="mcp-diff-added">
              {text}
            </ins>
          ) : (
            <span key={i} className="mcp-diff-kept">
              {text}
            </span>
          );
        })}
      </pre>
    </figure>
  );
}
