import { type FormEvent, useId, useRef, useState } from 'react';
import { KEY_LIMITS } from '../../../contract/limits.ts';
import type { Access, ApiError, ApiKey, Workspace } from '../api.ts';
import { AccessBadge, AccessRadios, ActionsTable, ConfirmDialog, ErrorNote, Loading, PageHeader, SecretOnce } from '../components.tsx';
import { useCreateKey, useKeys, useRevokeKey } from '../data/keys.ts';
import { asApiError, loadedOf, useConfirmedAction } from '../hooks.ts';
import { When } from '../time.tsx';

const keyAccess = (key: ApiKey): Access => (key.scopes.includes('write') ? 'write' : 'read');

export function KeysScreen({ workspace }: { workspace: Workspace }) {
  const keys = loadedOf(useKeys(workspace.id));
  const [created, setCreated] = useState<{ key: ApiKey; secret: string }>();
  const revokeKey = useRevokeKey(workspace.id);
  const revoke = useConfirmedAction(
    (key: ApiKey) => revokeKey.mutateAsync(key.id),
    async () => undefined,
  );

  return (
    <>
      <PageHeader title="API Keys">
        Keys let scripts and the <code>statusdesk</code> command use the API of {workspace.name}. A key's secret is shown once, when it is created.
      </PageHeader>

      <CreateKeyForm workspace={workspace} onCreated={setCreated} />
      {created ? (
        <SecretOnce heading={<>Key “{created.key.name}” created</>} label="Secret" secret={created.secret} onDone={() => setCreated(undefined)}>
          Copy its secret now: it will not be shown again. Anyone holding it can use this workspace with the key's access.
        </SecretOnce>
      ) : null}

      <section aria-labelledby="keys-heading" className="section">
        <h2 id="keys-heading">Keys of {workspace.name}</h2>
        {keys.state === 'loading' ? <Loading what="keys" /> : null}
        {keys.state === 'error' ? <ErrorNote>{keys.error.message}</ErrorNote> : null}
        {keys.state === 'ready' && keys.value.keys.length === 0 ? (
          <div className="empty">
            <p>
              No keys yet. Create one above, or run <code>statusdesk keys create</code>.
            </p>
          </div>
        ) : null}
        {keys.state === 'ready' && keys.value.keys.length > 0 ? (
          <ActionsTable columns={['Name', 'Prefix', 'Access', 'Created', 'Last used', 'Status']}>
            {keys.value.keys.map((key) => (
              <tr key={key.id} className={key.revokedAt ? 'row-dim' : undefined}>
                <th scope="row">{key.name}</th>
                <td>
                  <code className="prefix">{key.prefix}…</code>
                </td>
                <td>
                  <AccessBadge access={keyAccess(key)} />
                  {key.legacy ? <span className="muted small"> (made before scopes)</span> : null}
                </td>
                <td>
                  <When iso={key.createdAt} />
                </td>
                <td>
                  <When iso={key.lastUsedAt} />
                </td>
                <td>
                  {key.revokedAt ? (
                    <span className="status status-off">
                      Revoked <When iso={key.revokedAt} />
                    </span>
                  ) : (
                    <span className="status status-on">Active</span>
                  )}
                </td>
                <td className="cell-actions">
                  {key.revokedAt ? null : (
                    <button type="button" className="button button-small button-danger-quiet" onClick={() => revoke.ask(key)}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </ActionsTable>
        ) : null}
      </section>

      <ConfirmDialog {...revoke.dialog} title={`Revoke the key “${revoke.target?.name ?? ''}”?`} confirmLabel="Revoke key">
        <p>Programs using it are refused from their next call. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}

function CreateKeyForm({ workspace, onCreated }: { workspace: Workspace; onCreated(result: { key: ApiKey; secret: string }): void }) {
  const createKey = useCreateKey(workspace.id);
  const [name, setName] = useState('');
  const [access, setAccess] = useState<Access>('read');
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const errorId = useId();
  const nameId = useId();
  const nameInput = useRef<HTMLInputElement>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const result = await createKey.mutateAsync({ name, scope: access });
      setName('');
      onCreated(result);
    } catch (caught) {
      const apiError = asApiError(caught);
      setError(apiError);
      if (apiError.violations.some((v) => v.field === 'name')) nameInput.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  const nameInvalid = error?.violations.some((v) => v.field === 'name') ?? false;
  return (
    <section aria-labelledby="create-key-heading" className="card section">
      <h2 id="create-key-heading">Create a key</h2>
      <form className="form-row" onSubmit={submit} aria-describedby={error ? errorId : undefined} noValidate>
        <div className="field">
          <label htmlFor={nameId}>Name</label>
          <input
            id={nameId}
            ref={nameInput}
            type="text"
            value={name}
            maxLength={KEY_LIMITS.nameLength}
            autoComplete="off"
            placeholder="laptop, deploy script…"
            aria-invalid={nameInvalid || undefined}
            aria-describedby={nameInvalid ? errorId : undefined}
            onChange={(event) => setName(event.target.value)}
          />
        </div>
        <AccessRadios name="key-access" value={access} onChange={setAccess} />
        <div className="form-submit">
          <button type="submit" className="button button-primary" disabled={busy}>
            Create key
          </button>
        </div>
      </form>
      {error ? <ErrorNote id={errorId}>{error.message}</ErrorNote> : null}
    </section>
  );
}
