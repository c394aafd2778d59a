import { Fragment, useState } from 'react';
import { accessLabel, type Connection } from '../api.ts';
import type { ScreenProps } from '../app.tsx';
import { AccessBadge, ActionsTable, ConfirmDialog, ErrorNote, Loading, PageHeader } from '../components.tsx';
import { usePendingRequests } from '../data/consent.ts';
import { useActivity, useConnections, useRevokeConnection } from '../data/connections.ts';
import { DecisionForm, RequestFacts } from '../decision.tsx';
import { loadedOf, useConfirmedAction } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { When } from '../time.tsx';

export function ConnectionsScreen({ workspace, session }: ScreenProps) {
  const connections = loadedOf(useConnections(workspace.id));
  const revokeConnection = useRevokeConnection(workspace.id);
  const revoke = useConfirmedAction(
    (connection: Connection) => revokeConnection.mutateAsync(connection.id),
    async () => undefined,
  );

  return (
    <>
      <PageHeader title="Connected apps">
        AI editors and other programs you allowed to use {workspace.name} through OAuth. Revoke one and its tokens stop working at once.
      </PageHeader>

      <PendingRequests />

      <section aria-labelledby="connections-heading" className="section">
        <h2 id="connections-heading">Connections to {workspace.name}</h2>
        {connections.state === 'loading' ? <Loading what="connections" /> : null}
        {connections.state === 'error' ? <ErrorNote>{connections.error.message}</ErrorNote> : null}
        {connections.state === 'ready' && connections.value.connections.length === 0 ? (
          <div className="empty">
            <p>
              <strong>No app is connected to {workspace.name}.</strong>
            </p>
            <p>
              Point your editor at <code>{session.mcpUrl}</code>. It asks to connect, opens your browser, and the request shows up here for you to approve.
            </p>
          </div>
        ) : null}
        {connections.state === 'ready' && connections.value.connections.length > 0 ? (
          <ConnectionsTable connections={connections.value.connections} onRevoke={revoke.ask} />
        ) : null}
      </section>

      <ConfirmDialog {...revoke.dialog} title={`Disconnect ${revoke.target?.clientName ?? ''}?`} confirmLabel="Revoke connection">
        <p>Its tokens stop working at once, in {revoke.target?.workspaceName}. To use Statusdesk again it has to ask again, and you approve it again.</p>
      </ConfirmDialog>
    </>
  );
}

/** Requests waiting for a decision, asked for again every few seconds while the window is visible (data/consent.ts). */
function PendingRequests() {
  const pending = usePendingRequests();
  const requests = pending.data ?? [];
  // The latest ask failed: the requests shown are from before it.
  const error = pending.error?.message;
  const [outcome, setOutcome] = useState<string>();

  if (requests.length === 0 && !error && !outcome) return null;
  return (
    <section aria-labelledby="pending-heading" className="section">
      <h2 id="pending-heading">Waiting for your decision</h2>
      {error ? <ErrorNote>{error}</ErrorNote> : null}
      <p className="small muted" role="status">
        {outcome ?? ''}
      </p>
      {requests.map((request) => (
        <article key={request.id} className="card pending" aria-labelledby={`pending-${request.id}`}>
          <header className="pending-head">
            <h3 id={`pending-${request.id}`}>{request.client.name}</h3>
            <p className="match-small">
              Code <code>{request.matchCode}</code>
            </p>
          </header>
          <p className="small muted">
            Check that this is the code the browser your editor opened shows. Expires <When iso={request.expiresAt} />.
          </p>
          <div className="pending-body">
            <div>
              <RequestFacts request={request} />
            </div>
            <DecisionForm
              request={request}
              // The decision has refreshed the list (data/consent.ts): the request is gone from it.
              onDecided={(result) => {
                setOutcome(
                  result.status === 'approved'
                    ? `Approved ${request.client.name} (${accessLabel(result.access)}). Its browser continues on its own.`
                    : `Denied ${request.client.name}.`,
                );
              }}
            />
          </div>
        </article>
      ))}
    </section>
  );
}

function ConnectionsTable({ connections, onRevoke }: { connections: Connection[]; onRevoke(connection: Connection): void }) {
  const [open, setOpen] = useState<string>();
  return (
    <ActionsTable columns={['App', 'Access', 'Workspace', 'Approved by', 'Connected', 'Last used', 'Changes']}>
      {connections.map((connection) => {
        const expanded = open === connection.id;
        const panelId = `activity-${connection.id}`;
        return (
          <Fragment key={connection.id}>
            <tr>
              <th scope="row">
                <span className="cell-title">{connection.clientName}</span>
                <span className="muted small">{connection.clientSource === 'metadata' ? connection.clientHost : 'Registered here'}</span>
              </th>
              <td>
                <AccessBadge access={connection.access} />
              </td>
              <td>{connection.workspaceName}</td>
              <td>{connection.userName}</td>
              <td>
                <When iso={connection.connectedAt} />
              </td>
              <td>
                <When iso={connection.lastUsedAt} />
              </td>
              <td>
                {connection.changes === 0 ? (
                  <span className="muted">None</span>
                ) : (
                  <button
                    type="button"
                    className="button button-small button-ghost disclosure"
                    aria-expanded={expanded}
                    aria-controls={panelId}
                    onClick={() => setOpen(expanded ? undefined : connection.id)}
                  >
                    <Icon name="chevron" />
                    {connection.changes} {connection.changes === 1 ? 'change' : 'changes'}
                  </button>
                )}
              </td>
              <td className="cell-actions">
                <button type="button" className="button button-small button-danger-quiet" onClick={() => onRevoke(connection)}>
                  Revoke
                </button>
              </td>
            </tr>
            {expanded ? (
              <tr className="row-detail" id={panelId}>
                <td colSpan={8}>
                  <Activity connection={connection} />
                </td>
              </tr>
            ) : null}
          </Fragment>
        );
      })}
    </ActionsTable>
  );
}

function Activity({ connection }: { connection: Connection }) {
  const activity = loadedOf(useActivity(connection.id));
  if (activity.state === 'loading') return <Loading what="changes" />;
  if (activity.state === 'error') return <ErrorNote>{activity.error.message}</ErrorNote>;
  const { entries } = activity.value;
  if (entries.length === 0) return <p className="muted">No changes recorded.</p>;
  return (
    <ol className="activity" aria-label={`Changes made by ${connection.clientName}`}>
      {entries.map((entry) => (
        <li key={entry.id}>
          <code>{entry.action}</code>
          <span>
            {entry.entityType}
            {entry.entityId ? ` ${entry.entityId}` : ''}
          </span>
          <When iso={entry.createdAt} />
        </li>
      ))}
    </ol>
  );
}
