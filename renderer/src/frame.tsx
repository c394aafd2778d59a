import type { ReactNode } from 'react';
import type { Session, Workspace } from './api.ts';
import { Icon, type IconName } from './icons.tsx';
import { Link } from './router.tsx';
import { useTheme } from './theme.ts';

const NAV: { to: string; label: string; icon: IconName }[] = [
  { to: '/', label: 'Overview', icon: 'overview' },
  { to: '/pages', label: 'Status pages', icon: 'page' },
  { to: '/notifications', label: 'Notifications', icon: 'bell' },
  { to: '/locations', label: 'Locations', icon: 'pin' },
  { to: '/audit', label: 'Audit log', icon: 'list' },
  { to: '/connect', label: 'Connect an editor', icon: 'terminal' },
  // API Keys and Connected apps, under the settings area's own navigation (settings.tsx).
  { to: '/settings', label: 'Settings', icon: 'settings' },
];

export function Brand() {
  return (
    <span className="brand">
      <span className="brand-mark" aria-hidden="true">
        <Icon name="pulse" />
      </span>
      Statusdesk
    </span>
  );
}

export function ThemeToggle() {
  const { theme, toggle } = useTheme();
  return (
    <button type="button" className="button button-ghost theme-toggle" aria-pressed={theme === 'dark'} onClick={toggle}>
      <Icon name={theme === 'dark' ? 'moon' : 'sun'} />
      Dark theme
    </button>
  );
}

/** Skip link, sidebar (workspace, navigation, theme, sign out) and the screen in <main>. */
export function Frame({
  session,
  workspace,
  onWorkspace,
  onSignOut,
  children,
}: {
  session: Session;
  workspace: Workspace | undefined;
  onWorkspace(id: string): void;
  onSignOut(): void;
  children: ReactNode;
}) {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <div className="shell">
        <div className="sidebar">
          <header className="sidebar-head">
            <Brand />
            {session.workspaces.length > 0 ? (
              <div className="switcher">
                <label htmlFor="workspace-switcher" className="visually-hidden">
                  Current workspace
                </label>
                <span className="switcher-avatar" aria-hidden="true">
                  {(workspace?.name ?? '?').slice(0, 1).toUpperCase()}
                </span>
                <select id="workspace-switcher" value={workspace?.id ?? ''} onChange={(event) => onWorkspace(event.target.value)}>
                  {session.workspaces.map((w) => (
                    <option key={w.id} value={w.id}>
                      {w.name}
                    </option>
                  ))}
                </select>
              </div>
            ) : null}
          </header>
          <nav aria-label="Main" className="nav">
            <ul>
              {NAV.map((item) => (
                <li key={item.to}>
                  <Link to={item.to}>
                    <Icon name={item.icon} />
                    {item.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          {/* A landmark of its own, so that who is signed in is found like the rest of the frame. */}
          <section className="sidebar-foot" aria-label="Account">
            {session.user ? (
              <p className="signed-in-as">
                Signed in as <strong>{session.user.name}</strong>
              </p>
            ) : null}
            <ThemeToggle />
            <button type="button" className="button button-ghost" onClick={onSignOut}>
              <Icon name="signOut" />
              Sign out
            </button>
          </section>
        </div>
        <main id="main" tabIndex={-1} className="main">
          {children}
        </main>
      </div>
    </>
  );
}
