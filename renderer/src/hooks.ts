import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api.ts';

export type Loaded<T> =
  | { state: 'loading' }
  | { state: 'error'; error: ApiError }
  | { state: 'ready'; value: T };

export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, 'UNKNOWN', error instanceof Error ? error.message : String(error));
}

/**
 * Loads `load()` whenever `key` changes; `reload` loads again in place, keeping what is shown
 * until the new answer is in. An answer for an older key is dropped.
 */
export function useResource<T>(load: () => Promise<T>, key: string): [Loaded<T>, () => Promise<void>] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const latest = useRef({ key, load });
  latest.current = { key, load };

  const reload = useCallback(async () => {
    const { key: asked, load: current } = latest.current;
    try {
      const value = await current();
      if (latest.current.key === asked) setLoaded({ state: 'ready', value });
    } catch (error) {
      if (latest.current.key === asked) setLoaded({ state: 'error', error: asApiError(error) });
    }
  }, []);

  useEffect(() => {
    setLoaded({ state: 'loading' });
    void reload();
  }, [key, reload]);

  return [loaded, reload];
}
