// What a monitor's screen reads of the JSON API (its latency, latest results and regions), and
// what the workspace's plan allows. Each is asked again every `refreshMs` while it is shown, since
// checks and timings move without an event; the live feed refreshes them on a state change.
import { useQuery } from '@tanstack/react-query';
import type { LatencySeries } from '../../../contract/dashboard-api.ts';
import { callDashboard } from './dashboard-client.ts';
import { queryKeys } from './query-keys.ts';

export function useLatency(workspaceId: string, monitorId: string, window: LatencySeries['window'], refreshMs?: number) {
  return useQuery({
    queryKey: queryKeys.latency(workspaceId, monitorId, window),
    queryFn: ({ signal }) => callDashboard('latency', { workspaceId, monitorId }, { query: { window }, signal }),
    refetchInterval: refreshMs,
  });
}

/** The latest checks, newest first. */
export function useResults(workspaceId: string, monitorId: string, limit: number, refreshMs?: number) {
  return useQuery({
    queryKey: queryKeys.results(workspaceId, monitorId, limit),
    queryFn: ({ signal }) => callDashboard('results', { workspaceId, monitorId }, { query: { limit }, signal }),
    refetchInterval: refreshMs,
  });
}

export function useRegions(workspaceId: string, monitorId: string, refreshMs?: number) {
  return useQuery({
    queryKey: queryKeys.regions(workspaceId, monitorId),
    queryFn: ({ signal }) => callDashboard('regions', { workspaceId, monitorId }, { signal }),
    refetchInterval: refreshMs,
  });
}

export function usePlan(workspaceId: string) {
  return useQuery({
    queryKey: queryKeys.plan(workspaceId),
    queryFn: ({ signal }) => callDashboard('plan', { workspaceId }, { signal }),
  });
}
