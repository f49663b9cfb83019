import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { loadConfig } from './config';
import { retryPolicy } from './hooks';
import { resumeSession } from './session';
import './styles.css';

const root = createRoot(document.getElementById('root')!);

const client = new QueryClient({
  defaultOptions: {
    queries: { retry: retryPolicy, staleTime: 15_000, refetchOnWindowFocus: false },
    mutations: { retry: false },
  },
});

loadConfig().then(
  () => {
    resumeSession();
    root.render(
      <StrictMode>
        <QueryClientProvider client={client}>
          <App />
        </QueryClientProvider>
      </StrictMode>,
    );
  },
  (e: unknown) =>
    root.render(
      <main className="signin-card">
        <h1>The console cannot start</h1>
        <p role="alert">{e instanceof Error ? e.message : String(e)}</p>
      </main>,
    ),
);
