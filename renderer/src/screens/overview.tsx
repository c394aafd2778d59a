import { useVirtualizer } from '@tanstack/react-virtual';
import { lazy, Suspense, useEffect, useId, useRef, useState } from 'react';
import type { MonitorState, MonitorType, Overview, OverviewRow } from '../api.ts';
import type { ScreenProps } from '../app.tsx';
import { formatMs, Sparkline } from '../sparkline.tsx';
import { ErrorNote, Loading, PageHeader } from '../components.tsx';
import { type OverviewFilters, type OverviewRows, useOverviewRows } from '../data/overview.ts';
import { Icon } from '../icons.tsx';
import { askNotificationPermission, type LiveStatus, useLiveStatus, useNotificationPermission } from '../live.ts';
import { Link, useLocation } from '../router.tsx';
import { MONITOR_STATES, STATE_LABELS, StatusBadge, StatusDot, TYPE_LABELS } from '../status.tsx';
import { durationSince, useNow, When } from '../time.tsx';
import { type GroupChoices, GroupHeader, useGroupChoices } from './overview-groups.tsx';
import { layoutOf } from './overview-layout.ts';
import { NOTHING_SELECTED, type Selection, selectedCount } from './overview-selection.ts';
import './overview.css';

// The bulk bar and the RPC schemas it sends with are loaded once a monitor is chosen, not with the first screen.
const BulkBar = lazy(async () => ({ default: (await import('./overview-bulk.tsx')).BulkBar }));

/** A search goes out at once, then at most once per this while typing continues. */
const SEARCH_DEBOUNCE_MS = 150;
const ROW_ESTIMATE_PX = 56;
const HEADER_ESTIMATE_PX = 46;

const MONITOR_TYPES = Object.keys(TYPE_LABELS) as MonitorType[];

type Filters = OverviewFilters;

const NO_FILTERS: Filters = { q: '', state: '', type: '', tag: '' };

function filtersFrom(query: URLSearchParams): Filters {
  const state = query.get('state') ?? '';
  const type = query.get('type') ?? '';
  return {
    q: query.get('q') ?? '',
    state: (MONITOR_STATES as readonly string[]).includes(state) ? (state as MonitorState) : '',
    type: (MONITOR_TYPES as string[]).includes(type) ? (type as MonitorType) : '',
    tag: query.get('tag') ?? '',
  };
}

const isFiltered = (filters: Filters) => filters.q !== '' || filters.state !== '' || filters.type !== '' || filters.tag !== '';

/**
 * Keeps the filters in the address (replacing, not adding, history entries), so that coming back
 * from a monitor finds the list as it was left.
 */
function rememberInAddress(filters: Filters): void {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
  const search = params.toString();
  const next = `/${search ? `?${search}` : ''}`;
  if (location.pathname + location.search !== next) history.replaceState(history.state, '', next);
}

export function OverviewScreen({ workspace }: ScreenProps) {
  const { query } = useLocation();
  const [filters, setFilters] = useState<Filters>(() => filtersFrom(query));
  // Chosen rows belong to the filters they were chosen under: other filters start with none.
  const [selection, setSelection] = useState<Selection>(NOTHING_SELECTED);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the filters are what the choice resets on
  useEffect(() => setSelection(NOTHING_SELECTED), [filters]);
  // Groups are asked for once the workspace is known to have some (remembered from the last
  // answer, so a visit starts grouped), unless "Show groups" is off.
  const groupChoices = useGroupChoices(workspace.id);
  // Kept current by the live feed (data/live-queries.ts), a refresh every 30 s and on coming
  // back to the tab (data/overview.ts).
  const list = useOverviewRows(workspace.id, filters, { grouped: groupChoices.showGroups && groupChoices.hadGroups, collapsed: groupChoices.collapsed });
  const live = useLiveStatus(workspace.id);
  const hasGroups = list.status === 'ready' ? list.groupNames.length > 0 : undefined;
  const { hadGroups, setHadGroups } = groupChoices;
  useEffect(() => {
    if (hasGroups !== undefined && hasGroups !== hadGroups) setHadGroups(hasGroups);
  }, [hasGroups, hadGroups, setHadGroups]);
  // Monitors that match: grouped, the rows leave out the collapsed groups' monitors, which still match.
  const matching = list.groups.length > 0 ? list.groups.reduce((sum, group) => sum + group.total, 0) : list.total;

  useEffect(() => rememberInAddress(filters), [filters]);

  const workspaceTotal = list.counts ? MONITOR_STATES.reduce((sum, state) => sum + list.counts![state], 0) : 0;
  const header = (
    <PageHeader
      title="Overview"
      actions={
        <Link to="/monitors/new" className="button button-primary">
          <Icon name="plus" />
          Add monitor
        </Link>
      }
    >
      Every monitor of {workspace.name}, worst first, updated as checks run. <LiveNote status={live} />
    </PageHeader>
  );

  if (list.status === 'loading' || (list.status === 'error' && !list.counts)) {
    return (
      <>
        {header}
        {list.status === 'loading' ? (
          <Loading what="monitors" />
        ) : (
          <div>
            <ErrorNote>{list.error?.message}</ErrorNote>
            <p>
              <button type="button" className="button" onClick={list.refresh}>
                <Icon name="refresh" />
                Try again
              </button>
            </p>
          </div>
        )}
      </>
    );
  }

  if (workspaceTotal === 0 && !isFiltered(filters)) {
    return (
      <>
        {header}
        <NoMonitorsYet />
      </>
    );
  }

  return (
    <>
      {header}
      <NotificationOffer />
      <StateCounts counts={list.counts!} total={workspaceTotal} selected={filters.state} onSelect={(state) => setFilters((f) => ({ ...f, state }))} />
      <FilterBar
        filters={filters}
        tags={list.tags}
        onChange={setFilters}
        showGroups={list.groupNames.length > 0 ? groupChoices.showGroups : undefined}
        onShowGroups={groupChoices.setShowGroups}
      />
      {list.error ? <ErrorNote>Could not refresh the list: {list.error.message}</ErrorNote> : null}
      {selectedCount(selection, matching) > 0 && (
        <Suspense fallback={null}>
          <BulkBar workspaceId={workspace.id} selection={selection} total={matching} filters={filters} onClear={() => setSelection(NOTHING_SELECTED)} />
        </Suspense>
      )}
      <MonitorList
        list={list}
        matching={matching}
        groupChoices={groupChoices}
        filters={filters}
        onClear={() => setFilters(NO_FILTERS)}
        selection={selection}
        onSelectAll={() => setSelection({ kind: 'filter' })}
        onToggle={(id) =>
          setSelection((chosen) => {
            const ids = new Set(chosen.kind === 'ids' ? chosen.ids : []);
            if (ids.has(id)) ids.delete(id);
            else ids.add(id);
            return { kind: 'ids', ids };
          })
        }
      />
    </>
  );
}

function LiveNote({ status }: { status: LiveStatus }) {
  if (status === 'open') {
    return (
      <span className="live-note live-open">
        <span className="live-dot" aria-hidden="true" />
        Live
      </span>
    );
  }
  if (status === 'retrying') return <span className="live-note">Reconnecting live updates…</span>;
  return null;
}

function NoMonitorsYet() {
  return (
    <section className="card placeholder" aria-labelledby="no-monitors">
      <span className="placeholder-icon" aria-hidden="true">
        <Icon name="pulse" />
      </span>
      <h2 id="no-monitors">No monitors yet</h2>
      <p>
        A monitor checks a TCP port, a gRPC health service, an HTTP address or an MCP server on a schedule, and this page shows whether each one is up. Add your
        first one, or let your AI editor set them up for you.
      </p>
      <div className="empty-actions">
        <Link to="/monitors/new" className="button button-primary">
          <Icon name="plus" />
          Add a monitor
        </Link>
        <Link to="/connect" className="button">
          <Icon name="terminal" />
          Connect an AI editor
        </Link>
        <Link to="/monitors/import" className="button">
          <Icon name="list" />
          Watch your editors' MCP servers
        </Link>
      </div>
    </section>
  );
}

/** The offer of browser notifications, asked for only when the person presses it. */
function NotificationOffer() {
  const permission = useNotificationPermission();
  const [asking, setAsking] = useState(false);
  if (permission === 'unsupported') return null;
  if (permission === 'granted') {
    return (
      <p className="notify-offer muted small">
        <Icon name="bell" />
        This window notifies you when a monitor goes down.
      </p>
    );
  }
  if (permission === 'denied') {
    return (
      <p className="notify-offer muted small">
        <Icon name="bell" />
        Notifications are blocked for this site; allow them in the browser's site settings to hear about monitors going down.
      </p>
    );
  }
  return (
    <p className="notify-offer">
      <button
        type="button"
        className="button button-small"
        disabled={asking}
        onClick={async () => {
          setAsking(true);
          try {
            await askNotificationPermission();
          } finally {
            setAsking(false);
          }
        }}
      >
        <Icon name="bell" />
        Notify me when a monitor goes down
      </button>
    </p>
  );
}

function StateCounts({
  counts,
  total,
  selected,
  onSelect,
}: {
  counts: Overview['counts'];
  total: number;
  selected: MonitorState | '';
  onSelect(state: MonitorState | ''): void;
}) {
  return (
    <div className="state-counts" role="group" aria-label="Monitors by state">
      <button type="button" className="state-count" aria-pressed={selected === ''} onClick={() => onSelect('')}>
        <span>All</span>
        <strong>{total.toLocaleString()}</strong>
      </button>
      {MONITOR_STATES.map((state) => (
        <button
          key={state}
          type="button"
          className={`state-count status-${state}`}
          aria-pressed={selected === state}
          onClick={() => onSelect(selected === state ? '' : state)}
        >
          <StatusDot state={state} />
          <span>{STATE_LABELS[state]}</span>
          <strong>{counts[state].toLocaleString()}</strong>
        </button>
      ))}
    </div>
  );
}

function FilterBar({
  filters,
  tags,
  onChange,
  showGroups,
  onShowGroups,
}: {
  filters: Filters;
  tags: string[];
  onChange(update: (f: Filters) => Filters): void;
  /** Whether groups are shown; undefined when the workspace has none. */
  showGroups: boolean | undefined;
  onShowGroups(show: boolean): void;
}) {
  const id = useId();
  const [text, setText] = useState(filters.q);
  const lastSent = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  // Clearing the filters from elsewhere empties the box too.
  useEffect(() => {
    setText((shown) => (shown.trim() === filters.q ? shown : filters.q));
  }, [filters.q]);

  const search = (value: string) => {
    setText(value);
    clearTimeout(timer.current);
    const send = () => {
      lastSent.current = Date.now();
      onChange((f) => ({ ...f, q: value.trim() }));
    };
    // The first key after a pause searches at once; a burst of keys searches once it settles.
    if (Date.now() - lastSent.current > SEARCH_DEBOUNCE_MS) send();
    else timer.current = setTimeout(send, SEARCH_DEBOUNCE_MS);
  };

  return (
    <div className="filter-bar" role="search" aria-label="Filter monitors">
      <div className="field filter-search">
        <label htmlFor={`${id}-q`}>Search by name</label>
        <span className="search-input">
          <Icon name="search" />
          <input id={`${id}-q`} type="search" value={text} autoComplete="off" spellCheck={false} onChange={(event) => search(event.target.value)} />
        </span>
      </div>
      <div className="field">
        <label htmlFor={`${id}-state`}>State</label>
        <select id={`${id}-state`} value={filters.state} onChange={(event) => onChange((f) => ({ ...f, state: event.target.value as MonitorState | '' }))}>
          <option value="">All states</option>
          {MONITOR_STATES.map((state) => (
            <option key={state} value={state}>
              {STATE_LABELS[state]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-type`}>Type</label>
        <select id={`${id}-type`} value={filters.type} onChange={(event) => onChange((f) => ({ ...f, type: event.target.value as MonitorType | '' }))}>
          <option value="">All types</option>
          {MONITOR_TYPES.map((type) => (
            <option key={type} value={type}>
              {TYPE_LABELS[type]}
            </option>
          ))}
        </select>
      </div>
      {tags.length > 0 || filters.tag ? (
        <div className="field">
          <label htmlFor={`${id}-tag`}>Tag</label>
          <select id={`${id}-tag`} value={filters.tag} onChange={(event) => onChange((f) => ({ ...f, tag: event.target.value }))}>
            <option value="">All tags</option>
            {(tags.includes(filters.tag) || !filters.tag ? tags : [filters.tag, ...tags]).map((tag) => (
              <option key={tag} value={tag}>
                {tag}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      {showGroups !== undefined ? (
        <div className="filter-groups">
          <input id={`${id}-groups`} type="checkbox" checked={showGroups} onChange={(event) => onShowGroups(event.target.checked)} />
          <label htmlFor={`${id}-groups`}>Show groups</label>
        </div>
      ) : null}
    </div>
  );
}

function MonitorList({
  list,
  matching,
  groupChoices,
  filters,
  onClear,
  selection,
  onSelectAll,
  onToggle,
}: {
  list: OverviewRows;
  /** Monitors that match the filters, collapsed groups' too. */
  matching: number;
  groupChoices: GroupChoices;
  filters: Filters;
  onClear(): void;
  selection: Selection;
  onSelectAll(): void;
  onToggle(id: string): void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const countId = useId();
  const filtered = isFiltered(filters);
  // Grouped, a header comes before each group's rows; a collapsed group has its header only.
  const layout = layoutOf(list.total, list.groups, list.collapsed);
  const grouped = list.groups.length > 0;
  const virtualizer = useVirtualizer({
    count: layout.count,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => (layout.itemAt(index).kind === 'header' ? HEADER_ESTIMATE_PX : ROW_ESTIMATE_PX),
    overscan: 8,
    getItemKey: (index) => {
      const entry = layout.itemAt(index);
      return entry.kind === 'header' ? `group ${entry.group.name}` : (list.rowAt(entry.index)?.id ?? `row-${entry.index}`);
    },
  });
  const items = virtualizer.getVirtualItems();
  const inView = items.length > 0 ? layout.rowsIn(items[0]!.index, items[items.length - 1]!.index) : undefined;
  const first = inView?.first;
  const last = inView?.last;
  const { show } = list;

  useEffect(() => {
    if (first !== undefined && last !== undefined) show(first, last);
  }, [first, last, show]);

  // New filters show their first rows, not the scroll position of the old ones.
  const { q, state, type, tag } = filters;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the filters are what the scroll resets on, though the effect reads none of them
  useEffect(() => {
    scroller.current?.scrollTo({ top: 0 });
  }, [q, state, type, tag, grouped]);

  const shown = matching.toLocaleString();
  const countText = matching === 1 ? '1 monitor' : `${shown} monitors`;

  if (matching === 0) {
    return (
      <div className="empty" role="status">
        <p>
          <strong>No monitors match these filters.</strong>
        </p>
        <button type="button" className="button" onClick={onClear}>
          Clear filters
        </button>
      </div>
    );
  }

  return (
    <div className="monitor-list-card">
      <div className="monitor-count-line">
        <p id={countId} className="monitor-count muted small" role="status">
          {filtered ? `${countText} match` : countText}
        </p>
        {selection.kind === 'ids' ? (
          <button type="button" className="button button-small" onClick={onSelectAll}>
            {filtered ? `Choose all ${shown} that match` : `Choose all ${shown}`}
          </button>
        ) : null}
      </div>
      <div className="monitor-head" aria-hidden="true">
        <span />
        <span>Status</span>
        <span>Name</span>
        <span>Type</span>
        <span>Latency</span>
        <span>Last 24 h</span>
        <span>Latest checks</span>
        <span>Changed</span>
      </div>
      <div ref={scroller} className="monitor-scroller">
        <ul role="list" aria-label="Monitors" aria-describedby={countId} className="monitor-list" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const entry = layout.itemAt(item.index);
            const row = entry.kind === 'header' ? undefined : list.rowAt(entry.index);
            return (
              <li
                key={item.key}
                ref={virtualizer.measureElement}
                data-index={item.index}
                aria-setsize={layout.count}
                aria-posinset={item.index + 1}
                className={entry.kind === 'header' ? 'monitor-group-row' : 'monitor-row'}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                {entry.kind === 'header' ? (
                  <GroupHeader group={entry.group} expanded={!groupChoices.collapsed.includes(entry.group.name)} onToggle={groupChoices.toggle} />
                ) : row ? (
                  <MonitorRow
                    row={row}
                    showGroup={!grouped}
                    chosen={selection.kind === 'filter' || selection.ids.has(row.id)}
                    allChosen={selection.kind === 'filter'}
                    onToggle={onToggle}
                  />
                ) : (
                  <span className="row-loading muted small">Loading…</span>
                )}
              </li>
            );
          })}
        </ul>
      </div>
    </div>
  );
}

const DAY_MS = 86_400_000;

/**
 * Why a monitor is down or degraded, and since when: "Since 14:02 (5 min): connection refused".
 * The state's badge says which, just before it.
 */
function Reason({ row }: { row: OverviewRow }) {
  const now = useNow();
  if ((row.state !== 'down' && row.state !== 'degraded') || !row.changedAt) return null;
  const exact = new Date(row.changedAt);
  return (
    <span className={`monitor-reason status-${row.state}`}>
      Since{' '}
      <time dateTime={row.changedAt} title={exact.toLocaleString()}>
        {exact.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}
        {Math.max(now, Date.now()) - exact.getTime() > DAY_MS ? `, ${exact.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}` : ''}
      </time>{' '}
      ({durationSince(row.changedAt, Math.max(now, Date.now()))}){row.reason ? `: ${row.reason}` : ''}
    </span>
  );
}

/** The share of the last 24 hours' checks that answered; "since created" for a monitor younger than that. */
function UptimeFigure({ row }: { row: OverviewRow }) {
  if (row.uptime === null) return null;
  const young = Date.now() - new Date(row.createdAt).getTime() < DAY_MS;
  const percent = row.uptime * 100;
  // 99.995 % is not 100 %: only a full record reads as one.
  const figure = row.uptime === 1 ? '100' : Math.min(percent, 99.99).toFixed(2);
  return (
    <>
      <span className="uptime-percent">{figure} %</span> <span className="muted">{young ? 'since created' : 'over 24 h'}</span>
    </>
  );
}

const OUTCOMES = { u: 'up', d: 'degraded', x: 'down' } as const;
const BAR_CHECKS = 30;
const BLOCK_W = 3;
const BLOCK_GAP = 1;
const BAR_H = 16;

/**
 * The latest checks, one block each, oldest first (the latest on the right), as Uptime Kuma's
 * heartbeat bar: coloured by outcome and also shaped by it (a failure is a short block, a degraded
 * check a middle one), and said in words for screen readers.
 */
export function CheckBar({ recent }: { recent: string }) {
  const outcomes = [...recent].map((letter) => OUTCOMES[letter as keyof typeof OUTCOMES]).filter(Boolean);
  if (outcomes.length === 0) return null;
  const count = (outcome: string) => outcomes.filter((o) => o === outcome).length;
  const [up, degraded, down] = [count('up'), count('degraded'), count('down')];
  const label = `Last ${outcomes.length === 1 ? 'check' : `${outcomes.length} checks`}: ${[`${up} up`, degraded ? `${degraded} degraded` : '', `${down} down`]
    .filter(Boolean)
    .join(', ')}; latest ${outcomes[outcomes.length - 1]}`;
  const width = BAR_CHECKS * (BLOCK_W + BLOCK_GAP) - BLOCK_GAP;
  // Right-aligned: the latest check always sits at the same place.
  const offset = (BAR_CHECKS - outcomes.length) * (BLOCK_W + BLOCK_GAP);
  return (
    // The words also show on hover (the title of a box around it: an SVG title would be text of the row).
    <span className="check-bar-box" title={label}>
      <svg className="check-bar" viewBox={`0 0 ${width} ${BAR_H}`} width={width} height={BAR_H} role="img" aria-label={label}>
        {Array.from({ length: BAR_CHECKS - outcomes.length }, (_, i) => (
          <rect key={`none-${i}`} className="check-block-none" x={i * (BLOCK_W + BLOCK_GAP)} y={0} width={BLOCK_W} height={BAR_H} rx="1" />
        ))}
        {outcomes.map((outcome, i) => {
          const height = outcome === 'up' ? BAR_H : outcome === 'degraded' ? (BAR_H * 2) / 3 : BAR_H / 3 + 2;
          return (
            <rect
              key={i}
              className={`check-block status-${outcome}`}
              x={offset + i * (BLOCK_W + BLOCK_GAP)}
              y={BAR_H - height}
              width={BLOCK_W}
              height={height}
              rx="1"
            />
          );
        })}
      </svg>
    </span>
  );
}

function MonitorRow({
  row,
  showGroup,
  chosen,
  allChosen,
  onToggle,
}: {
  row: OverviewRow;
  /** Whether the row names its group (a list not shown by group). */
  showGroup: boolean;
  chosen: boolean;
  allChosen: boolean;
  onToggle(id: string): void;
}) {
  return (
    <>
      <span className="cell-select">
        {/* While every match is chosen (by the filter), a row cannot be left out: Clear undoes the choice. */}
        <input type="checkbox" aria-label={`Choose ${row.name}`} checked={chosen} disabled={allChosen} onChange={() => onToggle(row.id)} />
      </span>
      <span className="cell-state">
        <StatusBadge state={row.state} />
      </span>
      <span className="cell-name">
        <Link to={`/monitors/${encodeURIComponent(row.id)}`} className="monitor-link">
          {row.name}
        </Link>
        <Reason row={row} />
        <span className="monitor-sub">
          {row.toolsChanged ? (
            // Words and a shape, not colour alone: an MCP server changed its tools and nobody accepted them yet.
            <span className="tools-changed">
              <Icon name="warning" />
              Tools changed
            </span>
          ) : null}
          {showGroup && row.group ? (
            <span className="monitor-group">
              <span className="visually-hidden">Group </span>
              {row.group}
            </span>
          ) : null}
          <span className="monitor-target">
            <span className="visually-hidden">Target </span>
            {row.target}
          </span>
          {row.tags.length > 0 ? (
            <span className="monitor-tags">
              <span className="visually-hidden">Tags </span>
              {row.tags.map((tag) => (
                <span key={tag} className="badge">
                  {tag}
                </span>
              ))}
            </span>
          ) : null}
        </span>
      </span>
      <span className="cell-type">
        <span className="visually-hidden">Type </span>
        {TYPE_LABELS[row.type]}
      </span>
      <span className="cell-latency">
        <span className="visually-hidden">Latency </span>
        {row.lastLatencyMs !== null ? (
          formatMs(row.lastLatencyMs)
        ) : row.lastCheckedAt === null ? (
          <span className="muted">No check yet</span>
        ) : (
          // The latest check failed: how long it waited is not a latency.
          <span className="muted">None: failed</span>
        )}
      </span>
      <span className="cell-spark">
        <Sparkline values={row.sparkline} />
      </span>
      <span className="cell-checks">
        <CheckBar recent={row.recent} />
        <span className="cell-uptime">
          <span className="visually-hidden">Uptime </span>
          <UptimeFigure row={row} />
        </span>
      </span>
      <span className="cell-changed">
        <span className="visually-hidden">Changed </span>
        <When iso={row.changedAt} never="Never" past />
      </span>
    </>
  );
}
