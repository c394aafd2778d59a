import type { ReactNode } from 'react';
import { Link } from './router.tsx';
import './email-notice.css';

/**
 * Said where email is offered and the service has no mail server (the session's
 * `emailAvailable`): before anyone types an address that would be refused, with the way to the
 * settings that set one up.
 */
export function EmailNotSetUp({ children }: { children: ReactNode }) {
  return (
    <p className="note note-warning email-not-set-up" role="note">
      <span>
        {children} <Link to="/settings/general/email">Set up email in Settings</Link>.
      </span>
    </p>
  );
}
