import { useEffect, useState } from 'react';

// The page follows the system's light or dark preference until the user picks one; the pick is
// remembered on this machine. The stylesheet reads `data-theme` on <html>.
export type Theme = 'light' | 'dark';
const STORAGE_KEY = 'statusdesk.theme';

function stored(): Theme | undefined {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === 'light' || value === 'dark' ? value : undefined;
  } catch {
    return undefined;
  }
}

const systemQuery = () => window.matchMedia('(prefers-color-scheme: dark)');
const systemTheme = (): Theme => (systemQuery().matches ? 'dark' : 'light');

/** Applied before the first render, so a stored pick shows without a flash of the other theme. */
export function applyStoredTheme(): void {
  const theme = stored();
  if (theme) document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}

export function useTheme(): { theme: Theme; toggle(): void } {
  const [choice, setChoice] = useState<Theme | undefined>(stored);
  const [system, setSystem] = useState<Theme>(systemTheme);

  useEffect(() => {
    const query = systemQuery();
    const onChange = () => setSystem(systemTheme());
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);

  const theme = choice ?? system;
  useEffect(() => {
    if (choice) document.documentElement.dataset.theme = choice;
    else delete document.documentElement.dataset.theme;
  }, [choice]);

  return {
    theme,
    toggle() {
      const next: Theme = theme === 'dark' ? 'light' : 'dark';
      try {
        localStorage.setItem(STORAGE_KEY, next);
      } catch {
        // Storage refused (a private window): the pick lasts for this page only.
      }
      setChoice(next);
    },
  };
}
