// The overview's rows: the workspace's monitors, worst first, a page of 100 at a time as the
// virtualised list scrolls, from `overview` of the dashboard API.
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import type { MonitorState, MonitorType, Overview, OverviewGroup, OverviewQuery, OverviewRow } from '../../../contract/dashboard-api.ts';
import { type ApiError, asApiError } from './api-error.ts';
import { callDashboard } from './dashboard-client.ts';
import { queryKeys } from './query-keys.ts';

/** Rows per request: the service's page, and the unit the list loads as it scrolls. */
export const OVERVIEW_PAGE_SIZE = 100;
/** Pages kept about the rows in view: what a refresh asks for again. */
const WINDOW_PAGES = 3;
/** Latency and sparklines move without any state change, so the rows are asked for again this often. */
const REFRESH_MS = 30_000;

export interface OverviewFilters {
  q: string;
  state: MonitorState | '';
  type: MonitorType | '';
  tag: string;
}

/** How the overview orders its rows: group by group, some groups folded away, or not. */
export interface OverviewGrouping {
  grouped: boolean;
  /** Groups whose monitors are left out of the rows ('' is no group); only while grouped. */
  collapsed: readonly string[];
}

const UNGROUPED: OverviewGrouping = { grouped: false, collapsed: [] };

export interface OverviewRows {
  status: 'loading' | 'ready' | 'error';
  /** Rows of the list, loaded or not: the monitors that match the filters, less those of collapsed groups. */
  total: number;
  counts: Overview['counts'] | undefined;
  tags: string[];
  /** Every group of the workspace, sorted. */
  groupNames: string[];
  /** The groups the rows come in, in their order; empty when the rows are not grouped. */
  groups: OverviewGroup[];
  /** The groups whose rows were left out when these rows were asked for (whatever was toggled since). */
  collapsed: ReadonlySet<string>;
  /** The row at a position of the list, when its page is loaded. */
  rowAt(index: number): OverviewRow | undefined;
  /** The latest failure; with rows still shown, they are from before it. */
  error: ApiError | undefined;
  /** Tells which rows are in view (first and last index): the pages under them are loaded. */
  show(first: number, last: number): void;
  refresh(): void;
}

const pageOf = (index: number) => Math.floor(index / OVERVIEW_PAGE_SIZE) * OVERVIEW_PAGE_SIZE;

/**
 * The overview's rows, as an infinite query over a window of pages: it starts at the page of the
 * rows in view, grows forwards or backwards as the list scrolls (keeping `WINDOW_PAGES`), and a
 * jump far past it (the scrollbar dragged) starts a new window there rather than loading every
 * page on the way. New filters keep the rows shown until their first page is in; the live feed
 * and the refresh ask the window again, so the list never empties or jumps.
 */
export function useOverviewRows(workspaceId: string, filters: OverviewFilters, grouping: OverviewGrouping = UNGROUPED): OverviewRows {
  const collapsed = grouping.grouped ? [...new Set(grouping.collapsed)].sort() : [];
  const query: OverviewQuery = {
    q: filters.q || undefined,
    state: filters.state || undefined,
    type: filters.type || undefined,
    tag: filters.tag || undefined,
    grouped: grouping.grouped || undefined,
    collapsed: collapsed.length > 0 ? JSON.stringify(collapsed) : undefined,
  };
  const filterKey = JSON.stringify(query);
  // Where the window starts, for the filters it was chosen under; new filters start at the top.
  const [start, setStart] = useState({ filterKey, offset: 0 });
  const firstOffset = start.filterKey === filterKey ? start.offset : 0;

  const rows = useInfiniteQuery({
    queryKey: queryKeys.overview(workspaceId, query, firstOffset),
    queryFn: async ({ pageParam, signal }) => ({
      ...(await callDashboard('overview', { workspaceId }, { query: { ...query, limit: OVERVIEW_PAGE_SIZE, offset: pageParam }, signal })),
      // What the rows leave out, kept with them: the list lays out its groups from the answer it shows.
      collapsedNames: collapsed,
    }),
    initialPageParam: firstOffset,
    getNextPageParam: (last, _pages, offset) => (offset + OVERVIEW_PAGE_SIZE < last.total ? offset + OVERVIEW_PAGE_SIZE : undefined),
    getPreviousPageParam: (_first, _pages, offset) => (offset > 0 ? Math.max(0, offset - OVERVIEW_PAGE_SIZE) : undefined),
    maxPages: WINDOW_PAGES,
    placeholderData: keepPreviousData,
    refetchInterval: REFRESH_MS,
    // Coming back to the window's tab shows what changed meanwhile.
    refetchOnWindowFocus: true,
  });

  const { data, isFetching, fetchNextPage, fetchPreviousPage, refetch } = rows;
  const offsets = data?.pageParams as number[] | undefined;
  const windowStart = offsets?.[0] ?? firstOffset;
  const windowEnd = offsets?.length ? offsets[offsets.length - 1]! + OVERVIEW_PAGE_SIZE : windowStart;

  const show = useCallback(
    (first: number, last: number) => {
      // Asked again when this answer lands: the list calls `show` whenever the rows change.
      if (isFetching || (first >= windowStart && last < windowEnd)) return;
      const touching = pageOf(first) <= windowEnd && pageOf(last) >= windowStart - OVERVIEW_PAGE_SIZE;
      if (!touching) setStart({ filterKey, offset: pageOf(first) });
      else if (last >= windowEnd) void fetchNextPage();
      else void fetchPreviousPage();
    },
    [isFetching, windowStart, windowEnd, filterKey, fetchNextPage, fetchPreviousPage],
  );

  const latest = data?.pages[data.pages.length - 1];
  return {
    status: data ? 'ready' : rows.error ? 'error' : 'loading',
    total: latest?.total ?? 0,
    counts: latest?.counts,
    tags: latest?.tags ?? [],
    groupNames: latest?.groupNames ?? [],
    groups: latest?.groups ?? [],
    collapsed: new Set(latest?.collapsedNames ?? []),
    rowAt: (index) => {
      const at = offsets?.indexOf(pageOf(index)) ?? -1;
      return at === -1 ? undefined : data?.pages[at]?.monitors[index - pageOf(index)];
    },
    error: rows.error ? asApiError(rows.error) : undefined,
    show,
    refresh: () => void refetch(),
  };
}

/**
 * Every group of the workspace, sorted: what a group's field offers. The overview's answer names
 * them whatever rows it has, so one row is asked for; under the overview's key, which every
 * change of a monitor makes out of date.
 */
export function useGroupNames(workspaceId: string) {
  return useQuery({
    queryKey: [...queryKeys.overview(workspaceId), 'group-names'],
    queryFn: async ({ signal }) => (await callDashboard('overview', { workspaceId }, { query: { limit: 1 }, signal })).groupNames,
    staleTime: REFRESH_MS,
  });
}
