import { type ReactNode, useEffect, useRef, useState } from 'react';
import type { Session, Workspace } from './api.ts';
import { Icon, type IconName } from './icons.tsx';
import { Link, useLocation } from './router.tsx';
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

/**
 * The menu entry a path belongs to, by the rule the links mark the current one with, and a
 * monitor's screens under the overview that lists them: the menu button shows its name.
 */
export function menuEntryOf(path: string): string | undefined {
  if (path.startsWith('/monitors/')) return 'Overview';
  return NAV.find((item) => path === item.to || (item.to !== '/' && path.startsWith(`${item.to}/`)))?.label;
}

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

/**
 * Skip link, sidebar (workspace, navigation, theme, sign out) and the screen in <main>. In a narrow
 * window the sidebar is a bar with a menu button (the disclosure pattern) that shows the current
 * screen's name and opens the rest; styles.css shows the button and hides the menu there.
 */
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
  const { path } = useLocation();
  // The menu is open on the screen it was opened on: any move to another (a choice, Back) closes it.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const menuOpen = openOn === path;
  const setMenuOpen = (open: boolean) => setOpenOn(open ? path : null);
  const menuButton = useRef<HTMLButtonElement>(null);
  // Escape closes the open menu and gives the focus back to its button.
  useEffect(() => {
    if (!menuOpen) return;
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpenOn(null);
      menuButton.current?.focus();
    };
    document.addEventListener('keydown', closeOnEscape);
    return () => document.removeEventListener('keydown', closeOnEscape);
  }, [menuOpen]);
  // A choice closes the menu. The focus, on a link the menu no longer shows, goes back to the
  // button, unless the screen chosen took it with its heading (the same screen does not).
  const menu = useRef<HTMLDivElement>(null);
  const closeOnChoice = () => {
    setMenuOpen(false);
    requestAnimationFrame(() => {
      const focused = document.activeElement;
      if (focused === document.body || menu.current?.contains(focused)) menuButton.current?.focus();
    });
  };
  const current = menuEntryOf(path);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <div className="shell">
        <div className="sidebar">
          <header className="sidebar-head">
            <Brand />
            <button
              ref={menuButton}
              type="button"
              className="button menu-button"
              aria-expanded={menuOpen}
              aria-controls="frame-menu"
              onClick={() => setMenuOpen(!menuOpen)}
            >
              <Icon name="menu" />
              <span className="visually-hidden">Menu{current ? ': ' : ''}</span>
              {current ?? <span aria-hidden="true">Menu</span>}
            </button>
          </header>
          <div ref={menu} id="frame-menu" className={menuOpen ? 'sidebar-menu open' : 'sidebar-menu'}>
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
            <nav aria-label="Main" className="nav">
              <ul>
                {NAV.map((item) => (
                  <li key={item.to}>
                    <Link to={item.to} onClick={closeOnChoice}>
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
        </div>
        <main id="main" tabIndex={-1} className="main">
          {children}
        </main>
      </div>
    </>
  );
}
