import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, startFirstScreen } from './app.tsx';
import { queryClient } from './data/query-client.ts';
import { adoptSessionToken } from './data/session-fetch.ts';
import { applyStoredTheme } from './theme.ts';
import { Toasts } from './toasts.tsx';
import './styles.css';

adoptSessionToken();
startFirstScreen();
applyStoredTheme();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
      <Toasts />
    </QueryClientProvider>
  </StrictMode>,
);
