import { type FormEvent, useId, useState } from 'react';
import { type Access, accessLabel, type ConsentRequest } from './api.ts';
import { ErrorNote } from './components.tsx';
import { AccessRadios } from './components.tsx';
import { useDecide } from './data/consent.ts';
import { asApiError } from './hooks.ts';
import { Icon } from './icons.tsx';

/** Who is asking and for what: the facts the owner decides on. */
export function RequestFacts({ request }: { request: ConsentRequest }) {
  return (
    <>
      <dl className="facts">
        <div>
          <dt>App</dt>
          <dd>
            <strong>{request.client.name}</strong>
            <span className="muted">
              {request.client.source === 'metadata'
                ? `Identified by its metadata document at ${request.client.host ?? 'an unknown host'}`
                : 'Registered with this Statusdesk'}
            </span>
          </dd>
        </div>
        <div>
          <dt>Returns to</dt>
          <dd>
            <code>{request.redirectHost}</code>
          </dd>
        </div>
        <div>
          <dt>Asks for</dt>
          <dd>{accessLabel(request.access)}</dd>
        </div>
      </dl>
      {request.loopbackRedirect ? (
        <p className="note note-warning" role="note">
          <Icon name="warning" />
          <span>Any program on this computer can listen on a loopback port: approve only if you just started this connection from your editor.</span>
        </p>
      ) : null}
    </>
  );
}

/** Workspace, access, Approve and Deny for a request this session may decide. */
export function DecisionForm({ request, onDecided }: { request: ConsentRequest; onDecided(result: ConsentRequest): void | Promise<void> }) {
  const workspaces = request.workspaces ?? [];
  const [workspaceId, setWorkspaceId] = useState(workspaces[0]?.id ?? '');
  const [access, setAccess] = useState<Access>(request.access);
  const [busy, setBusy] = useState<'approve' | 'deny'>();
  const [error, setError] = useState<string>();
  const selectId = useId();
  const decideOn = useDecide(request);

  const decide = async (decision: 'approve' | 'deny') => {
    setBusy(decision);
    setError(undefined);
    try {
      const result = await decideOn.mutateAsync(decision === 'approve' ? { decide: 'approve', workspaceId, access } : { decide: 'deny' });
      await onDecided(result);
    } catch (caught) {
      setError(asApiError(caught).message);
    } finally {
      setBusy(undefined);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void decide('approve');
  };

  return (
    <form className="decision" onSubmit={submit}>
      <div className="field">
        <label htmlFor={selectId}>Workspace</label>
        <select id={selectId} value={workspaceId} onChange={(event) => setWorkspaceId(event.target.value)} required>
          {workspaces.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name} (you are {w.role === 'admin' ? 'an' : 'a'} {w.role})
            </option>
          ))}
        </select>
      </div>
      {request.approver ? (
        <p className="muted small">
          Approving as <strong>{request.approver.name}</strong>: the app acts for you, within your role in the workspace you choose, and the audit log names you
          beside it.
        </p>
      ) : null}
      <AccessRadios name={`access-${request.id}`} value={access} onChange={setAccess} max={request.access} />
      {error ? <ErrorNote>{error}</ErrorNote> : null}
      <div className="decision-actions">
        <button type="submit" className="button button-primary" disabled={busy !== undefined || workspaces.length === 0}>
          Approve
        </button>
        <button type="button" className="button" disabled={busy !== undefined} onClick={() => void decide('deny')}>
          Deny
        </button>
      </div>
    </form>
  );
}
