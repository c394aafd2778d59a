import type { ReactNode } from 'react';
import { Icon, type IconName } from './icons.tsx';
import { Link, type Route } from './router.tsx';
import './settings.css';

/**
 * The settings area: its sections and each section's screens, in the order the navigation shows
 * them. The docs name each place by this path (Settings, General, API Keys), and each screen's
 * address follows it.
 */
export const SETTINGS_SECTIONS: { id: string; label: string; screens: { to: Route; label: string; icon: IconName }[] }[] = [
  {
    id: 'general',
    label: 'General',
    screens: [
      { to: '/settings/general/api-keys', label: 'API Keys', icon: 'key' },
      { to: '/settings/general/email', label: 'Email', icon: 'mail' },
      { to: '/settings/general/import-export', label: 'Import and export', icon: 'download' },
      { to: '/settings/general/members', label: 'Members', icon: 'users' },
    ],
  },
  { id: 'integrations', label: 'Integrations', screens: [{ to: '/settings/integrations/connected-apps', label: 'Connected apps', icon: 'plug' }] },
  { id: 'account', label: 'You', screens: [{ to: '/settings/account', label: 'Your account', icon: 'user' }] },
];

/** Whether a route is a screen of the settings area. */
export const isSettingsRoute = (route: Route) => route.startsWith('/settings/');

/**
 * A settings screen under the area's own navigation: "Settings", then each section's name over
 * the links to its screens. Each section's list is named by its section, so a screen reader
 * hears "General, list, API Keys".
 */
export function SettingsArea({ children }: { children: ReactNode }) {
  return (
    <div className="settings">
      <nav aria-labelledby="settings-title" className="settings-nav">
        <p id="settings-title" className="settings-title">
          Settings
        </p>
        <div className="settings-sections">
          {SETTINGS_SECTIONS.map((section) => (
            <div key={section.id} className="settings-section">
              <p id={`settings-section-${section.id}`} className="settings-section-label">
                {section.label}
              </p>
              <ul aria-labelledby={`settings-section-${section.id}`}>
                {section.screens.map((screen) => (
                  <li key={screen.to}>
                    <Link to={screen.to}>
                      <Icon name={screen.icon} />
                      {screen.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      </nav>
      {children}
    </div>
  );
}
