// The live feed keeps the query cache current: each change it announces invalidates the queries
// that read what changed (`outdatedBy`, query-keys.ts); TanStack Query asks again for those a
// screen shows and marks the others stale, so no screen reloads by hand. After a drop, everything
// of the workspace is asked again.
import { type QueryKey, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useLiveEvents } from '../live.ts';
import { outdatedBy, queryKeys, workspaceKey } from './query-keys.ts';

/** Changes announced together are asked for once. */
const COALESCE_MS = 250;

/** Keeps the workspace's queries current while it is shown (rendered once, beside the screens). */
export function LiveQueries({ workspaceId }: { workspaceId: string }): null {
  const queryClient = useQueryClient();
  const pending = useRef(new Map<string, QueryKey>());
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const invalidate = (keys: QueryKey[]) => {
    for (const key of keys) pending.current.set(JSON.stringify(key), key);
    timer.current ??= setTimeout(() => {
      timer.current = undefined;
      const due = [...pending.current.values()];
      pending.current.clear();
      for (const queryKey of due) void queryClient.invalidateQueries({ queryKey });
    }, COALESCE_MS);
  };

  useLiveEvents(
    workspaceId,
    (event) => invalidate(outdatedBy(workspaceId, event)),
    () => invalidate([workspaceKey(workspaceId), queryKeys.rpc(workspaceId)]),
  );
  return null;
}
