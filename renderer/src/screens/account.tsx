import { type FormEvent, useId, useRef, useState } from 'react';
import type { ScreenProps } from '../app.tsx';
import { ActionsTable, ConfirmDialog, ErrorNote, Loading, PageHeader } from '../components.tsx';
import { type Passkey, type SessionInfo, useAddPasskey, useEndSession, usePasskeys, useRemovePasskey, useSessions } from '../data/account.ts';
import { asApiError, loadedOf, useConfirmedAction } from '../hooks.ts';
import { When } from '../time.tsx';
import './account.css';

/** The longest passkey name the service takes. */
const PASSKEY_NAME_LENGTH = 60;

const METHOD_WORDS: Record<SessionInfo['method'], string> = {
  link: 'Sign-in link',
  invitation: 'Invitation',
  passkey: 'Passkey',
  oidc: 'Single sign-on',
};

/** "Chrome on Linux": enough of a browser's User-Agent to tell one's browsers apart. */
export function browserOf(userAgent: string | null): string {
  if (!userAgent) return 'Unknown browser';
  const browser = /Statusdesk|Electron/.test(userAgent)
    ? 'Statusdesk app'
    : /Edg\//.test(userAgent)
      ? 'Edge'
      : /Firefox\//.test(userAgent)
        ? 'Firefox'
        : /OPR\//.test(userAgent)
          ? 'Opera'
          : /Chrome\/|Chromium\//.test(userAgent)
            ? 'Chrome'
            : /Safari\//.test(userAgent)
              ? 'Safari'
              : undefined;
  const system = /Windows/.test(userAgent)
    ? 'Windows'
    : /iPhone|iPad/.test(userAgent)
      ? 'iOS'
      : /Mac OS X|Macintosh/.test(userAgent)
        ? 'macOS'
        : /Android/.test(userAgent)
          ? 'Android'
          : /Linux|X11/.test(userAgent)
            ? 'Linux'
            : undefined;
  if (!browser) return system ? `A browser on ${system}` : userAgent.slice(0, 40);
  return system ? `${browser} on ${system}` : browser;
}

/** The signed-in person's own account: the passkeys they sign in with, and their open sessions. */
export function AccountScreen({ session }: ScreenProps) {
  return (
    <>
      <PageHeader title="Your account">
        How {session.user ? <strong>{session.user.name}</strong> : 'you'} signs in to Statusdesk: passkeys, and the sessions open in your browsers.
      </PageHeader>
      <Passkeys />
      <Sessions />
    </>
  );
}

function Passkeys() {
  const passkeys = loadedOf(usePasskeys());
  const removePasskey = useRemovePasskey();
  const remove = useConfirmedAction((passkey: Passkey) => removePasskey.mutateAsync(passkey.id));
  return (
    <>
      <AddPasskeyForm />
      <section aria-labelledby="passkeys-heading" className="section">
        <h2 id="passkeys-heading">Passkeys</h2>
        {passkeys.state === 'loading' ? <Loading what="passkeys" /> : null}
        {passkeys.state === 'error' ? <ErrorNote>{passkeys.error.message}</ErrorNote> : null}
        {passkeys.state === 'ready' && passkeys.value.length === 0 ? (
          <div className="empty">
            <p>No passkeys yet. Add one above to sign in from this browser's sign-in page, without a link from the server.</p>
          </div>
        ) : null}
        {passkeys.state === 'ready' && passkeys.value.length > 0 ? (
          <ActionsTable columns={['Name', 'Added', 'Last used']}>
            {passkeys.value.map((passkey) => (
              <tr key={passkey.id}>
                <th scope="row">{passkey.name}</th>
                <td>
                  <When iso={passkey.createdAt} />
                </td>
                <td>
                  <When iso={passkey.lastUsedAt} />
                </td>
                <td className="cell-actions">
                  <button
                    type="button"
                    className="button button-small button-danger-quiet"
                    aria-label={`Remove the passkey ${passkey.name}`}
                    onClick={() => remove.ask(passkey)}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </ActionsTable>
        ) : null}
      </section>
      <ConfirmDialog {...remove.dialog} title={`Remove the passkey “${remove.target?.name ?? ''}”?`} confirmLabel="Remove passkey">
        <p>It no longer signs you in. Sessions it opened stay open until they end or you sign them out below.</p>
      </ConfirmDialog>
    </>
  );
}

function AddPasskeyForm() {
  const addPasskey = useAddPasskey();
  const [name, setName] = useState('');
  const nameId = useId();
  const hintId = useId();
  const errorId = useId();
  const nameInput = useRef<HTMLInputElement>(null);
  const error = addPasskey.error ?? undefined;
  const nameInvalid = error?.violations.some((v) => v.field === 'name') ?? false;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await addPasskey.mutateAsync(name.trim());
      setName('');
    } catch (caught) {
      if (asApiError(caught).violations.some((v) => v.field === 'name')) nameInput.current?.focus();
    }
  };

  return (
    <section aria-labelledby="add-passkey-heading" className="card section">
      <h2 id="add-passkey-heading">Add a passkey</h2>
      <p id={hintId} className="muted small account-hint">
        Your browser asks your device (Touch ID, Windows Hello, a phone or a security key) to make one. Statusdesk keeps only its public key.
      </p>
      <form className="form-row" onSubmit={submit} aria-describedby={error ? errorId : undefined} noValidate>
        <div className="field">
          <label htmlFor={nameId}>Name</label>
          <input
            id={nameId}
            ref={nameInput}
            type="text"
            value={name}
            maxLength={PASSKEY_NAME_LENGTH}
            autoComplete="off"
            placeholder="MacBook Touch ID, security key…"
            aria-invalid={nameInvalid || undefined}
            aria-describedby={nameInvalid ? `${hintId} ${errorId}` : hintId}
            onChange={(event) => setName(event.target.value)}
          />
        </div>
        <div className="form-submit">
          <button type="submit" className="button button-primary" disabled={addPasskey.isPending}>
            Add a passkey
          </button>
        </div>
      </form>
      {addPasskey.isPending ? (
        <p className="muted small" role="status">
          <span className="spinner" aria-hidden="true" /> Waiting for your device…
        </p>
      ) : null}
      {error ? <ErrorNote id={errorId}>{error.message}</ErrorNote> : null}
    </section>
  );
}

function Sessions() {
  const sessions = loadedOf(useSessions());
  const endSession = useEndSession();
  const [failure, setFailure] = useState<string>();
  const end = async (id: string) => {
    setFailure(undefined);
    try {
      await endSession.mutateAsync(id);
    } catch (caught) {
      setFailure(asApiError(caught).message);
    }
  };
  return (
    <section aria-labelledby="sessions-heading" className="section">
      <h2 id="sessions-heading">Sessions</h2>
      <p className="muted small">Each browser you signed in with. Signing one out ends it there at its next request.</p>
      {sessions.state === 'loading' ? <Loading what="sessions" /> : null}
      {sessions.state === 'error' ? <ErrorNote>{sessions.error.message}</ErrorNote> : null}
      {failure ? <ErrorNote>{failure}</ErrorNote> : null}
      {sessions.state === 'ready' ? (
        <ActionsTable columns={['Signed in with', 'Browser', 'Started', 'Expires']}>
          {sessions.value.map((item) => (
            <tr key={item.id}>
              <th scope="row">
                {METHOD_WORDS[item.method]}
                {item.current ? <span className="badge badge-write account-current">This session</span> : null}
              </th>
              <td>{browserOf(item.userAgent)}</td>
              <td>
                <When iso={item.createdAt} />
              </td>
              <td>
                <When iso={item.expiresAt} />
              </td>
              <td className="cell-actions">
                {item.current ? null : (
                  <button
                    type="button"
                    className="button button-small"
                    aria-label={`Sign out the session of ${browserOf(item.userAgent)} started ${new Date(item.createdAt).toLocaleString()}`}
                    disabled={endSession.isPending}
                    onClick={() => void end(item.id)}
                  >
                    Sign out
                  </button>
                )}
              </td>
            </tr>
          ))}
        </ActionsTable>
      ) : null}
    </section>
  );
}
