// Monitors as choices (a channel's monitors, a component's monitor), found by the service across
// the whole workspace: the overview's search (`overview` of the dashboard API, by name, target or
// tag) a page at a time, and the chosen ones by id, whether or not a search finds them.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { OverviewRow } from '../../../contract/dashboard-api.ts';
import { callDashboard } from './dashboard-client.ts';
import { queryKeys } from './query-keys.ts';

/** A monitor as a choice to link (a page's component, a channel's monitors). */
export interface MonitorChoice {
  id: string;
  name: string;
  /** A paused monitor's components show "Status unknown" on the public page. */
  active: boolean;
}

/** The most monitors one call names by id: the overview's largest page. */
export const CHOSEN_LOOKUP_LIMIT = 200;

const choiceOf = (row: OverviewRow): MonitorChoice => ({ id: row.id, name: row.name, active: row.state !== 'paused' });
const byName = (a: MonitorChoice, b: MonitorChoice) => a.name.localeCompare(b.name) || Number(a.id) - Number(b.id);

export interface MonitorSearch {
  /** The monitors found, at most `limit`, by name. */
  monitors: MonitorChoice[];
  /** Monitors that match the search, across the workspace. */
  matching: number;
  /** Monitors of the workspace. */
  total: number;
}

/**
 * The first `limit` monitors of the workspace that match `q` (every monitor when it is empty).
 * Under the key of the choices, which every change of a monitor makes out of date (query-keys.ts);
 * a new search keeps the last answer shown until its own is in.
 */
export function useMonitorSearch(workspaceId: string, q: string, limit: number) {
  const query = { q: q.trim() || undefined, limit };
  return useQuery({
    queryKey: [...queryKeys.monitorChoices(workspaceId), 'search', query],
    queryFn: async ({ signal }): Promise<MonitorSearch> => {
      const answer = await callDashboard('overview', { workspaceId }, { query, signal });
      const { up, degraded, down, pending, paused } = answer.counts;
      return { monitors: answer.monitors.map(choiceOf).sort(byName), matching: answer.total, total: up + degraded + down + pending + paused };
    },
    placeholderData: keepPreviousData,
  });
}

/**
 * The monitors of `ids` that exist, by id (the first CHOSEN_LOOKUP_LIMIT of them): what a form
 * has chosen, named even when no search shows it. A deleted monitor is missing from the map.
 */
export function useMonitorsById(workspaceId: string, ids: readonly string[]) {
  const wanted = [...new Set(ids)].sort((a, b) => Number(a) - Number(b)).slice(0, CHOSEN_LOOKUP_LIMIT);
  return useQuery({
    queryKey: [...queryKeys.monitorChoices(workspaceId), 'by-id', wanted.join(',')],
    queryFn: async ({ signal }): Promise<Map<string, MonitorChoice>> => {
      const answer = await callDashboard('overview', { workspaceId }, { query: { ids: wanted.join(','), limit: Math.max(1, wanted.length) }, signal });
      return new Map(answer.monitors.map((row) => [row.id, choiceOf(row)]));
    },
    enabled: wanted.length > 0,
    placeholderData: keepPreviousData,
  });
}
