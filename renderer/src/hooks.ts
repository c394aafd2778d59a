import type { UseQueryResult } from '@tanstack/react-query';
import { useState } from 'react';
import { type ApiError, asApiError } from './data/api-error.ts';

export { asApiError };

export type Loaded<T> = { state: 'loading' } | { state: 'error'; error: ApiError } | { state: 'ready'; value: T };

/**
 * A query of the data layer as a screen draws it: what it holds (kept while it is asked for
 * again, and after a refresh that failed), else its failure, else loading.
 */
export function loadedOf<T>(query: Pick<UseQueryResult<T, unknown>, 'data' | 'error'>): Loaded<T> {
  if (query.data !== undefined) return { state: 'ready', value: query.data };
  if (query.error) return { state: 'error', error: asApiError(query.error) };
  return { state: 'loading' };
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
 * An action asked about in a dialog before it runs: `act` runs on confirmation (a change of the
 * data layer, which refreshes what it changed before it resolves), then the dialog closes and
 * `after` runs; a failure stays in the dialog, as its error, for another try.
 */
export function useConfirmedAction<T>(act: (target: T) => Promise<unknown>, after: () => Promise<void> = async () => {}): ConfirmedAction<T> {
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
