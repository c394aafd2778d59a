import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { adoptSessionToken } from './api.ts';
import { App, startFirstScreen } from './app.tsx';
import { applyStoredTheme } from './theme.ts';
import './styles.css';

adoptSessionToken();
startFirstScreen();
applyStoredTheme();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
