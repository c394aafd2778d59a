import { useEffect, useId, useState } from 'react';
import type { AuditActorKind, AuditEntry, AuditQuery } from '../api.ts';
import type { ScreenProps } from '../app.tsx';
import { ErrorNote, Loading, PageHeader } from '../components.tsx';
import { useAuditLog } from '../data/audit.ts';
import { loadedOf } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { Link } from '../router.tsx';
import { When } from '../time.tsx';
import './audit.css';

/** The kinds of record the services audit (their `entityType`), as people call them. */
const ENTITY_TYPES: Record<string, string> = {
  monitor: 'Monitor',
  status_page: 'Status page',
  page_component: 'Page component',
  status_report: 'Status report',
  maintenance: 'Maintenance',
  notification_channel: 'Notification channel',
  page_subscriber: 'Page subscriber',
  api_key: 'API key',
  oauth_grant: 'Connected app',
  membership: 'Membership',
  workspace: 'Workspace',
};

const ACTOR_KINDS: Record<AuditActorKind, string> = {
  apiKey: 'API key',
  oauth: 'OAuth app',
  mcp: 'MCP',
  dashboard: 'Dashboard',
  cli: 'CLI',
  system: 'Statusdesk',
};

const isActorKind = (value: string): value is AuditActorKind => Object.hasOwn(ACTOR_KINDS, value);
const entityLabel = (type: string) => ENTITY_TYPES[type] ?? type;

/** As the form holds them: `from` and `to` are datetime-local values, in the browser's time zone. */
interface Filters {
  entityType: string;
  entityId: string;
  actor: AuditActorKind | '';
  from: string;
  to: string;
}

const NO_FILTERS: Filters = { entityType: '', entityId: '', actor: '', from: '', to: '' };

function filtersFrom(query: URLSearchParams): Filters {
  const actor = query.get('actor') ?? '';
  const local = (name: string) => {
    const value = query.get(name) ?? '';
    return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? value : '';
  };
  return {
    entityType: query.get('entityType') ?? '',
    entityId: query.get('entityId') ?? '',
    actor: isActorKind(actor) ? actor : '',
    from: local('from'),
    to: local('to'),
  };
}

const isFiltered = (filters: Filters) => Object.values(filters).some((value) => value !== '');

/** The filters in the address (replacing the history entry), so a reload or a link shows the same entries. */
function rememberInAddress(filters: Filters): void {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
  const search = params.toString();
  const next = `/audit${search ? `?${search}` : ''}`;
  if (location.pathname + location.search !== next) history.replaceState(history.state, '', next);
}

/**
 * A datetime-local value as an ISO time. The field is precise to the minute, so `To 10:05` means
 * up to the end of that minute: the service's bounds are inclusive.
 */
function isoOf(local: string, endOfMinute = false): string | undefined {
  if (!local) return undefined;
  const time = new Date(local).getTime();
  if (Number.isNaN(time)) return undefined;
  return new Date(endOfMinute ? time + 59_999 : time).toISOString();
}

function queryOf(filters: Filters): AuditQuery {
  return {
    entityType: filters.entityType || undefined,
    entityId: filters.entityId || undefined,
    actor: filters.actor || undefined,
    from: isoOf(filters.from),
    to: isoOf(filters.to, true),
  };
}

export function AuditScreen({ workspace }: ScreenProps) {
  const [filters, setFilters] = useState<Filters>(() => filtersFrom(new URLSearchParams(location.search)));
  useEffect(() => rememberInAddress(filters), [filters]);

  const log = useAuditLog(workspace.id, queryOf(filters));
  const first = loadedOf(log);
  const { entries } = log;
  const next = log.hasNextPage;
  const loadingMore = log.isFetchingNextPage;
  const moreError = log.isFetchNextPageError ? log.error.message : undefined;
  const loadMore = () => void log.fetchNextPage();
  const refresh = () => void log.refreshFromTop();

  /** The plan has no audit log: the service says which plans do. */
  const planGated = first.state === 'error' && first.error.code === 'PRECONDITION_FAILED' ? first.error.message : undefined;

  return (
    <div className="audit-screen">
      <PageHeader
        title="Audit log"
        actions={
          planGated ? null : (
            <button type="button" className="button" onClick={refresh}>
              <Icon name="refresh" />
              Refresh
            </button>
          )
        }
      >
        Every change to {workspace.name} in the last 14 days, newest first: who made it, through what, and what it changed. Secrets are never shown.
      </PageHeader>

      {planGated ? (
        <div className="note note-warning audit-plan" role="status">
          <Icon name="warning" />
          <div>
            <strong>The audit log is not part of this workspace’s plan.</strong>
            <p>{planGated}</p>
            <p className="small">Changes are still recorded, and can be read once the workspace is on a plan with the audit log.</p>
          </div>
        </div>
      ) : (
        <>
          <FilterBar filters={filters} onChange={setFilters} />

          <section aria-labelledby="audit-entries-heading" className="section">
            <h2 id="audit-entries-heading" className="visually-hidden">
              Entries
            </h2>
            {first.state === 'loading' ? <Loading what="the audit log" /> : null}
            {first.state === 'error' ? <ErrorNote>{first.error.message}</ErrorNote> : null}
            {first.state === 'ready' && entries.length === 0 ? <EmptyLog filtered={isFiltered(filters)} onClear={() => setFilters(NO_FILTERS)} /> : null}
            {entries.length > 0 ? (
              <>
                <p className="small muted" role="status">
                  {entries.length} {entries.length === 1 ? 'entry' : 'entries'}
                  {next ? ' so far' : ''}
                  {isFiltered(filters) ? ' matching the filters' : ''}.
                </p>
                <ol className="audit-list" aria-label="Audit entries">
                  {entries.map((entry) => (
                    <EntryItem key={entry.id} entry={entry} />
                  ))}
                </ol>
              </>
            ) : null}
            {next ? (
              <div className="audit-more">
                <button type="button" className="button" onClick={loadMore} disabled={loadingMore}>
                  {loadingMore ? 'Loading…' : 'Load more'}
                </button>
              </div>
            ) : null}
            {moreError ? <ErrorNote>{moreError}</ErrorNote> : null}
          </section>
        </>
      )}
    </div>
  );
}

function FilterBar({ filters, onChange }: { filters: Filters; onChange(filters: Filters): void }) {
  const id = useId();
  const set = (change: Partial<Filters>) => onChange({ ...filters, ...change });
  const backwards = filters.from !== '' && filters.to !== '' && filters.from > filters.to;
  return (
    <form className="audit-filters" role="search" aria-label="Filter the audit log" onSubmit={(event) => event.preventDefault()}>
      <div className="field">
        <label htmlFor={`${id}-type`}>Record type</label>
        <select id={`${id}-type`} value={filters.entityType} onChange={(event) => set({ entityType: event.target.value, entityId: '' })}>
          <option value="">Every type</option>
          {Object.entries(ENTITY_TYPES).map(([type, label]) => (
            <option key={type} value={type}>
              {label}
            </option>
          ))}
          {filters.entityType && !Object.hasOwn(ENTITY_TYPES, filters.entityType) ? <option value={filters.entityType}>{filters.entityType}</option> : null}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-actor`}>Changed by</label>
        <select id={`${id}-actor`} value={filters.actor} onChange={(event) => set({ actor: isActorKind(event.target.value) ? event.target.value : '' })}>
          <option value="">Anyone</option>
          {Object.entries(ACTOR_KINDS).map(([kind, label]) => (
            <option key={kind} value={kind}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-from`}>From</label>
        <input
          id={`${id}-from`}
          type="datetime-local"
          value={filters.from}
          max={filters.to || undefined}
          onChange={(event) => set({ from: event.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-to`}>To</label>
        <input id={`${id}-to`} type="datetime-local" value={filters.to} min={filters.from || undefined} onChange={(event) => set({ to: event.target.value })} />
      </div>
      {isFiltered(filters) ? (
        <div className="audit-filters-clear">
          <button type="button" className="button button-ghost" onClick={() => onChange(NO_FILTERS)}>
            Clear filters
          </button>
        </div>
      ) : null}
      {filters.entityId ? (
        <p className="audit-only small">
          Only {entityLabel(filters.entityType).toLowerCase()} <code>{filters.entityId}</code>.{' '}
          <button type="button" className="button button-ghost button-small" onClick={() => set({ entityId: '' })}>
            Show every {filters.entityType ? entityLabel(filters.entityType).toLowerCase() : 'record'}
          </button>
        </p>
      ) : null}
      {backwards ? <p className="note note-warning audit-only">From is after To: no entry can match.</p> : null}
    </form>
  );
}

function EmptyLog({ filtered, onClear }: { filtered: boolean; onClear(): void }) {
  if (filtered) {
    return (
      <div className="empty">
        <p>
          <strong>No entry matches these filters.</strong>
        </p>
        <p>The log keeps the last 14 days. Widen the time range, or choose another type or actor.</p>
        <button type="button" className="button" onClick={onClear}>
          Clear filters
        </button>
      </div>
    );
  }
  return (
    <div className="empty">
      <p>
        <strong>No changes in the last 14 days.</strong>
      </p>
      <p>
        Each change to a monitor, status page, report, key or connection shows up here, whether it was made in the dashboard, with the <code>statusdesk</code>{' '}
        command, with an API key or by an AI editor. Start with <Link to="/monitors/new">a monitor</Link>, or <Link to="/connect">connect an AI editor</Link>.
      </p>
    </div>
  );
}

function EntryItem({ entry }: { entry: AuditEntry }) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const fields = entry.changedFields.length;
  const record = entry.record.name;
  return (
    <li className="audit-entry" data-action={entry.action}>
      <div className="audit-entry-row">
        <span className="audit-time">
          <When iso={entry.createdAt} />
          <span className="small muted">{new Date(entry.createdAt).toLocaleString()}</span>
        </span>
        <span className="audit-actor">
          <span className="audit-actor-label">{entry.actor.label}</span>
          <span className={`badge audit-kind audit-kind-${entry.actor.kind}`}>{ACTOR_KINDS[entry.actor.kind] ?? entry.actor.kind}</span>
        </span>
        <span className="audit-what">
          {entry.words} {entry.record.path ? <Link to={entry.record.path}>{record}</Link> : <span className="audit-record">{record}</span>}
        </span>
        <button
          type="button"
          className="button button-small button-ghost disclosure audit-toggle"
          aria-expanded={open}
          aria-controls={panelId}
          onClick={() => setOpen(!open)}
        >
          <Icon name="chevron" />
          {fields === 0 ? 'Details' : `${fields} ${fields === 1 ? 'field' : 'fields'}`}
          <span className="visually-hidden">
            {' '}
            of {entry.words} {record}
          </span>
        </button>
      </div>
      <div id={panelId} className="audit-diff" hidden={!open}>
        {open ? <EntryDiff entry={entry} record={record} /> : null}
      </div>
    </li>
  );
}

type FieldChange = 'added' | 'removed' | 'changed' | 'unchanged';

interface DiffRow {
  field: string;
  change: FieldChange;
  before: { value: unknown } | undefined;
  after: { value: unknown } | undefined;
}

const CHANGE_WORDS: Record<FieldChange, string> = { added: 'Added', removed: 'Removed', changed: 'Changed', unchanged: 'Unchanged' };

/** The entry's fields side by side: the changed ones first, in the service's order, then (with `all`) the rest by name. */
function diffRows(entry: AuditEntry, all: boolean): DiffRow[] {
  const before = entry.before ?? {};
  const after = entry.after ?? {};
  const changed = new Set(entry.changedFields);
  const others = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((field) => !changed.has(field)).sort();
  return [...entry.changedFields, ...(all ? others : [])].map((field) => {
    const was = Object.hasOwn(before, field) ? { value: before[field] } : undefined;
    const is = Object.hasOwn(after, field) ? { value: after[field] } : undefined;
    const change: FieldChange = !was && is ? 'added' : was && !is ? 'removed' : changed.has(field) ? 'changed' : 'unchanged';
    return { field, change, before: was, after: is };
  });
}

function EntryDiff({ entry, record }: { entry: AuditEntry; record: string }) {
  const [all, setAll] = useState(entry.changedFields.length === 0);
  const toggleId = useId();
  const rows = diffRows(entry, all);
  const unchanged = diffRows(entry, true).length - entry.changedFields.length;
  return (
    <div className="audit-diff-body">
      <p className="small muted">
        {entry.before === null ? 'Created: every field is new.' : entry.after === null ? 'Deleted: every field is gone.' : null} Made by {entry.actor.label} (
        {ACTOR_KINDS[entry.actor.kind] ?? entry.actor.kind}, <code>{entry.actor.id}</code>).
      </p>
      <p className="small muted audit-machine">
        Recorded as <code>{entry.action}</code> on {entityLabel(entry.entityType).toLowerCase()} <code>{entry.entityId}</code>
        {entry.changedFields.length > 0 ? (
          <>
            , fields <code>{entry.changedFields.join(', ')}</code>
          </>
        ) : null}
        .
      </p>
      {unchanged > 0 ? (
        <div className="audit-all">
          <input id={toggleId} type="checkbox" checked={all} onChange={(event) => setAll(event.target.checked)} />
          <label htmlFor={toggleId}>
            Show the {unchanged} unchanged {unchanged === 1 ? 'field' : 'fields'} too
          </label>
        </div>
      ) : null}
      {rows.length === 0 ? (
        <p className="muted">No field was recorded for this change.</p>
      ) : (
        <div className="table-wrap">
          <table className="table diff-table">
            <caption className="visually-hidden">Fields of {record} before and after the change</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Change</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.field} className={`diff-${row.change}`}>
                  <th scope="row">
                    <code>{row.field}</code>
                  </th>
                  <td>
                    <span className={`diff-word diff-word-${row.change}`}>{CHANGE_WORDS[row.change]}</span>
                  </td>
                  <td className="diff-before">
                    <Value value={row.before} />
                  </td>
                  <td className="diff-after">
                    <Value value={row.after} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

/** A value as recorded: text as it is, objects and lists as JSON, and a word where there is none. */
function Value({ value }: { value: { value: unknown } | undefined }) {
  if (!value) return <span className="muted">(none)</span>;
  const v = value.value;
  if (typeof v === 'string') return <span className="diff-text">{v === '' ? <span className="muted">(empty)</span> : v}</span>;
  if (v !== null && typeof v === 'object') return <pre className="diff-json">{JSON.stringify(v, null, 2)}</pre>;
  return <code>{String(v)}</code>;
}
