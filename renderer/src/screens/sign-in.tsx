import { useEffect, useId } from 'react';
import { ErrorNote } from '../components.tsx';
import { useSignInMethods, useSignInWithPasskey } from '../data/account.ts';
import { Icon } from '../icons.tsx';
import { navigate } from '../router.tsx';
import { CenteredPage } from './signed-out.tsx';
import './sign-in.css';

/**
 * The sign-in screen, for people who are not at the server: a passkey added on Your account, or
 * the OpenID Connect provider the service is set up with. The owner at the server signs in with
 * the one-time link instead. Shown without a session, as the consent page.
 */
export function SignInScreen() {
  const methods = useSignInMethods();
  const signIn = useSignInWithPasskey();
  const errorId = useId();

  useEffect(() => {
    document.title = 'Sign in · Statusdesk';
  }, []);

  const withPasskey = () =>
    signIn.mutate(undefined, {
      // The session is this tab's now: the dashboard opens on the overview.
      onSuccess: () => navigate('/', { replace: true }),
    });

  const oidc = methods.data?.oidc ?? null;
  return (
    <CenteredPage>
      <h1>Sign in to Statusdesk</h1>
      <p>Use a passkey you added to your account{oidc ? `, or your ${oidc.name} account` : ''}.</p>
      <div className="sign-in-actions">
        <button
          type="button"
          className="button button-primary"
          onClick={withPasskey}
          disabled={signIn.isPending}
          aria-describedby={signIn.error ? errorId : undefined}
        >
          <Icon name="key" />
          Sign in with a passkey
        </button>
        {oidc ? (
          <a className="button" href="/signin/oidc">
            Sign in with {oidc.name}
          </a>
        ) : null}
      </div>
      {signIn.isPending ? (
        <p className="sign-in-waiting small" role="status">
          <span className="spinner" aria-hidden="true" /> Waiting for your passkey…
        </p>
      ) : null}
      {signIn.error ? <ErrorNote id={errorId}>{signIn.error.message}</ErrorNote> : null}
      {methods.error ? <ErrorNote>{methods.error.message}</ErrorNote> : null}
      <p className="sign-in-owner small">
        At the server, run <code>statusdesk dashboard</code> for a one-time link.
      </p>
    </CenteredPage>
  );
}
