import { type FormEvent, useEffect, useId, useState } from 'react';
import type { ApiError } from '../api.ts';
import { ErrorNote, Loading } from '../components.tsx';
import { useSignInMethods } from '../data/account.ts';
import { announce } from '../data/announcements.ts';
import { article, type InvitationPreview, useAcceptInvitation, useInvitationPreview, useSignedInPerson } from '../data/members.ts';
import { asApiError } from '../hooks.ts';
import { navigate, useLocation } from '../router.tsx';
import { When } from '../time.tsx';
import { CenteredPage } from './signed-out.tsx';
import './members.css';

/** Where the dashboard remembers the workspace shown (app.tsx): the one joined is shown first. */
const WORKSPACE_KEY = 'statusdesk.workspace';

/**
 * The page of an invitation link, shown with or without a session: what the link offers, or why
 * it cannot be used; joining opens a session (a new person's, named here, or the signed-in
 * person's) and shows the joined workspace.
 */
export function AcceptInvitationScreen() {
  const { path } = useLocation();
  const token = decodeURIComponent(path.split('/')[2] ?? '');

  useEffect(() => {
    document.title = 'Join a workspace · Statusdesk';
  }, []);

  const preview = useInvitationPreview(token);
  const person = useSignedInPerson();

  if (preview.error && preview.error.status !== 0) {
    return (
      <CenteredPage>
        <h1>This invitation cannot be used</h1>
        <ErrorNote>{capitalised(preview.error.message)}.</ErrorNote>
      </CenteredPage>
    );
  }
  if (!preview.data || person.isPending) {
    return (
      <CenteredPage>
        <Loading what="the invitation" />
      </CenteredPage>
    );
  }
  return <JoinForm token={token} invitation={preview.data} signedInAs={person.data?.user?.name} />;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1).replace(/\.$/, '');

function JoinForm({ token, invitation, signedInAs }: { token: string; invitation: InvitationPreview; signedInAs: string | undefined }) {
  const accept = useAcceptInvitation(token);
  // The organisation's provider, when one is set up, is another way in for a new person.
  const oidc = useSignInMethods().data?.oidc;
  const [name, setName] = useState('');
  const [error, setError] = useState<ApiError>();
  const id = useId();
  const workspace = invitation.workspaceName;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      const joined = await accept.mutateAsync(signedInAs === undefined ? { name } : {});
      try {
        localStorage.setItem(WORKSPACE_KEY, joined.workspaceId);
      } catch {
        // Not remembered: the dashboard shows the person's first workspace.
      }
      announce(signedInAs === undefined ? `Welcome to ${workspace}. Add a passkey on Your account to sign in again later.` : `You joined ${workspace}.`);
      navigate('/', { replace: true });
    } catch (caught) {
      setError(asApiError(caught));
    }
  };

  const nameInvalid = error?.violations.some((v) => v.field === 'name') ?? false;
  return (
    <CenteredPage>
      <h1>Join {workspace}</h1>
      <p>
        {invitation.invitedBy ?? 'The owner'} invited you to {workspace} as {article(invitation.role)} <strong>{invitation.role}</strong>. The invitation works
        once and expires <When iso={invitation.expiresAt} />.
      </p>
      <form className="join-form" onSubmit={submit} aria-describedby={error ? `${id}-error` : undefined} noValidate>
        {signedInAs === undefined ? (
          <div className="field">
            <label htmlFor={`${id}-name`}>Your name</label>
            <input
              id={`${id}-name`}
              type="text"
              value={name}
              maxLength={100}
              autoComplete="name"
              required
              aria-invalid={nameInvalid || undefined}
              aria-describedby={nameInvalid ? `${id}-error` : undefined}
              onChange={(event) => setName(event.target.value)}
            />
          </div>
        ) : (
          <p className="muted">You are signed in as {signedInAs}: you join with your account.</p>
        )}
        <div>
          <button type="submit" className="button button-primary" disabled={accept.isPending}>
            {signedInAs === undefined ? `Join ${workspace}` : `Join as ${signedInAs}`}
          </button>
        </div>
      </form>
      {error ? <ErrorNote id={`${id}-error`}>{capitalised(error.message)}.</ErrorNote> : null}
      {signedInAs === undefined && oidc ? (
        <p>
          <a className="button" href={`/signin/oidc?invitation=${encodeURIComponent(token)}`}>
            Join with {oidc.name}
          </a>
        </p>
      ) : null}
      {signedInAs === undefined ? (
        <p className="small muted">
          Once you have joined, add a passkey on <a href="/settings/account">Your account</a> so that you can sign in again on this device.
        </p>
      ) : null}
    </CenteredPage>
  );
}
