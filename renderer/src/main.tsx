import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { adoptSessionToken } from './api.ts';
import { App, preloadFirstScreen } from './app.tsx';
import { applyStoredTheme } from './theme.ts';
import './styles.css';

adoptSessionToken();
preloadFirstScreen();
applyStoredTheme();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
