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

export interface ConfirmedAction<T> {
  /** What the dialog asks about; undefined while it is closed. */
  target: T | undefined;
  /** Opens the dialog for `target`, forgetting the error of an earlier try. */
  ask(target: T): void;
  /** The props of a `ConfirmDialog` that confirms it. */
  dialog: { open: boolean; busy: boolean; error: string | undefined; onConfirm(): Promise<void>; onCancel(): void };
}

/**
 * An action asked about in a dialog before it runs: `act` runs on confirmation, then the dialog
 * closes and `after` runs; a failure stays in the dialog, as its error, for another try.
 */
export function useConfirmedAction<T>(act: (target: T) => Promise<unknown>, after: () => Promise<void>): ConfirmedAction<T> {
  const [target, setTarget] = useState<T>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const onConfirm = async () => {
    if (target === undefined) return;
    setBusy(true);
    try {
      await act(target);
      setTarget(undefined);
      setError(undefined);
      await after();
    } catch (caught) {
      setError(asApiError(caught).message);
    } finally {
      setBusy(false);
    }
  };

  return {
    target,
    ask(next) {
      setError(undefined);
      setTarget(next);
    },
    dialog: { open: target !== undefined, busy, error, onConfirm, onCancel: () => setTarget(undefined) },
  };
}
