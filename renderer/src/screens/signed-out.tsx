import type { ReactNode } from 'react';
import { Brand, ThemeToggle } from '../frame.tsx';
import { Link } from '../router.tsx';

/** A single card in the middle of the window, for the screens shown outside the frame. */
export function CenteredPage({ children, wide }: { children: ReactNode; wide?: boolean }) {
  return (
    <div className="centered">
      <header className="centered-head">
        <Brand />
        <ThemeToggle />
      </header>
      <main id="main" tabIndex={-1} className={`card centered-card${wide ? ' centered-card-wide' : ''}`}>
        {children}
      </main>
    </div>
  );
}

export function SignedOutScreen({ byUser }: { byUser: boolean }) {
  return (
    <CenteredPage>
      <h1>{byUser ? 'You are signed out' : 'Sign in to Statusdesk'}</h1>
      <p>
        To sign in, open the sign-in link that <code>statusdesk serve</code> printed when it started, or run <code>statusdesk dashboard</code> for a new one.
        The Statusdesk desktop app signs you in by itself.
      </p>
      <p>
        <Link className="button button-primary" to="/signin">
          Sign in with a passkey
        </Link>
      </p>
    </CenteredPage>
  );
}
