import { type QueryKey, type UseQueryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, useSyncExternalStore } from 'react';
import { ApiError, newIdempotencyKey } from './api';
import { type Environment, setEnvironment, useAuth } from './session';

export const useEnv = (): Environment => useAuth().environment;

/**
 * A query of the current environment: the environment leads every query key, so sandbox and
 * live answers never share a cache entry (and switching clears the cache anyway).
 */
export function useApiQuery<T>(key: QueryKey, fn: (env: Environment, signal: AbortSignal) => Promise<T>, options?: Partial<UseQueryOptions<T, Error>>) {
  const env = useEnv();
  return useQuery<T, Error>({ queryKey: [env, ...key], queryFn: ({ signal }) => fn(env, signal), ...options });
}

export interface WriteContext {
  env: Environment;
  idempotencyKey: string;
}

/**
 * When the environment's queries are read again after a write succeeded, in ms: at once, then while what the write
 * started plays out after its answer (a re-sent delivery's attempt, an endpoint's status, a booking's events and their
 * deliveries, an index that lags), so the page never keeps showing what the action changed.
 */
export const REFRESH_AFTER_WRITE_MS = [0, 2_000, 5_000, 10_000, 20_000];

/**
 * A write the member submits. Its Idempotency-Key is kept while the member retries the same
 * action (same environment and input) after a failure, so a retry can never act twice; a
 * success, or other input, takes a new key. Every query of the environment is refreshed after,
 * at once and again at REFRESH_AFTER_WRITE_MS.
 */
export function useWrite<V, R>(fn: (vars: V, ctx: WriteContext) => Promise<R>, onSuccess?: (result: R, vars: V) => void) {
  const env = useEnv();
  const client = useQueryClient();
  const last = useRef<{ fingerprint: string; key: string } | null>(null);
  return useMutation<R, Error, V>({
    mutationFn: (vars) => {
      const fingerprint = JSON.stringify([env, vars]);
      if (last.current?.fingerprint !== fingerprint) last.current = { fingerprint, key: newIdempotencyKey() };
      return fn(vars, { env, idempotencyKey: last.current.key });
    },
    onSuccess: (result, vars) => {
      last.current = null;
      onSuccess?.(result, vars);
      for (const ms of REFRESH_AFTER_WRITE_MS.slice(1)) setTimeout(() => void client.invalidateQueries({ queryKey: [env] }), ms);
      return client.invalidateQueries({ queryKey: [env] });
    },
  });
}

/** Retries only what may pass on a second try: network errors and 5xx, twice. */
export const retryPolicy = (count: number, error: Error) => error instanceof ApiError && (error.status === 0 || error.status >= 500) && count < 2;

// Hash routing (#/bookings/PTB-…): static hosting needs no rewrites.
function subscribeHash(l: () => void) {
  window.addEventListener('hashchange', l);
  return () => window.removeEventListener('hashchange', l);
}
const hashPath = () => window.location.hash.replace(/^#\/?/, '').split('?')[0] ?? '';

/** The route's segments: `#/webhooks/deliveries/abc` -> ['webhooks', 'deliveries', 'abc']. */
export function useRoute(): string[] {
  const path = useSyncExternalStore(subscribeHash, hashPath);
  return path.split('/').filter(Boolean).map(decodeURIComponent);
}

export const href = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`;
export const navigate = (...parts: string[]) => {
  window.location.hash = href(...parts);
};

/** Cursor paging: the cursors of the pages seen, for Previous and Next; new filters start again at the first page. */
export function useCursorPages(resetOn: unknown) {
  const reset = JSON.stringify(resetOn);
  const [state, setState] = useState<{ reset: string; stack: (string | undefined)[] }>({ reset, stack: [undefined] });
  const stack = state.reset === reset ? state.stack : [undefined];
  return {
    cursor: stack[stack.length - 1],
    page: stack.length,
    next: (cursor: string) => setState({ reset, stack: [...stack, cursor] }),
    previous: () => setState({ reset, stack: stack.length > 1 ? stack.slice(0, -1) : stack }),
  };
}

/**
 * Switches between sandbox and live. The cache of the environment left is dropped (every query key
 * starts with the environment, so nothing of one is ever shown in the other), and a page showing
 * one resource goes back to its list: a resource of one environment does not exist in the other.
 */
export function useSwitchEnvironment() {
  const client = useQueryClient();
  const current = useEnv();
  const route = useRoute();
  return (next: Environment) => {
    if (next === current) return;
    setEnvironment(next);
    client.removeQueries({ queryKey: [current] });
    client.getMutationCache().clear();
    if (route[0] === 'sandbox' && next === 'live') navigate('overview');
    else if (route.length > 1) navigate(route[0]!);
  };
}
