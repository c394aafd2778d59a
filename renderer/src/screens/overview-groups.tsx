// The overview's groups: whether the list shows them, which are collapsed (both remembered on this
// machine per workspace), a group's header, and the workspace's groups offered as suggestions.
// Where headers and rows sit in the list is overview-layout.ts's.
import { useCallback, useState } from 'react';
import type { OverviewGroup } from '../api.ts';
import { useGroupNames } from '../data/overview.ts';
import { Icon } from '../icons.tsx';
import { MONITOR_STATES, StatusBadge } from '../status.tsx';

const NO_GROUP_LABEL = 'Not in a group';

function readStored<T>(key: string, parse: (text: string) => T | undefined, fallback: T): T {
  try {
    const text = localStorage.getItem(key);
    return text === null ? fallback : (parse(text) ?? fallback);
  } catch {
    return fallback;
  }
}

function writeStored(key: string, text: string): void {
  try {
    localStorage.setItem(key, text);
  } catch {
    // Storage refused (a private window): the choice lasts for this page only.
  }
}

/** A value kept in localStorage under `key`, read again when the key changes (another workspace). */
function useStored<T>(key: string, parse: (text: string) => T | undefined, format: (value: T) => string, fallback: T): [T, (next: T) => void] {
  const [state, setState] = useState(() => ({ key, value: readStored(key, parse, fallback) }));
  const value = state.key === key ? state.value : readStored(key, parse, fallback);
  const set = useCallback(
    (next: T) => {
      writeStored(key, format(next));
      setState({ key, value: next });
    },
    [key, format],
  );
  return [value, set];
}

const parseFlag = (text: string) => (text === 'true' ? true : text === 'false' ? false : undefined);
const formatFlag = (value: boolean) => String(value);
const parseNames = (text: string) => {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string') : undefined;
};
const formatNames = (names: readonly string[]) => JSON.stringify(names);
const NO_NAMES: readonly string[] = [];

export interface GroupChoices {
  /** Whether the list shows groups once the workspace has any ("Show groups"). */
  showGroups: boolean;
  setShowGroups(show: boolean): void;
  /** Whether the workspace had groups the last time the list was seen: the first request asks for groups at once. */
  hadGroups: boolean;
  setHadGroups(had: boolean): void;
  collapsed: readonly string[];
  toggle(name: string): void;
}

/** The overview's choices about groups for a workspace, remembered on this machine. */
export function useGroupChoices(workspaceId: string): GroupChoices {
  const prefix = `statusdesk.overview.${workspaceId}`;
  const [showGroups, setShowGroups] = useStored(`${prefix}.show-groups`, parseFlag, formatFlag, true);
  const [hadGroups, setHadGroups] = useStored(`${prefix}.has-groups`, parseFlag, formatFlag, false);
  const [collapsed, setCollapsed] = useStored(`${prefix}.collapsed`, parseNames, formatNames, NO_NAMES);
  const toggle = useCallback(
    (name: string) => setCollapsed(collapsed.includes(name) ? collapsed.filter((n) => n !== name) : [...collapsed, name].sort()),
    [collapsed, setCollapsed],
  );
  return { showGroups, setShowGroups, hadGroups, setHadGroups, collapsed, toggle };
}

/** A group's counts in words, worst first: "2 down, 5 up". */
export function countsInWords(counts: OverviewGroup['counts']): string {
  return MONITOR_STATES.filter((state) => counts[state] > 0)
    .map((state) => `${counts[state].toLocaleString()} ${state}`)
    .join(', ');
}

export const groupLabel = (name: string) => name || NO_GROUP_LABEL;

/** A group's header: the button that folds it, its worst state, and how many of each state it has. */
export function GroupHeader({ group, expanded, onToggle }: { group: OverviewGroup; expanded: boolean; onToggle(name: string): void }) {
  const words = countsInWords(group.counts);
  return (
    <div className="group-header">
      <h3 className="group-title">
        <button type="button" className="group-toggle" aria-expanded={expanded} onClick={() => onToggle(group.name)}>
          <Icon name="chevron" />
          <span className={group.name ? 'group-name' : 'group-name group-none'}>{groupLabel(group.name)}</span>
        </button>
      </h3>
      <StatusBadge state={group.state} className="group-state" />
      <span className="group-counts muted small">
        {group.total === 1 ? '1 monitor' : `${group.total.toLocaleString()} monitors`}
        {words ? `: ${words}` : ''}
      </span>
    </div>
  );
}

/** The groups of the workspace, as suggestions for a group's text box (`list` of the input). */
export function GroupSuggestions({ id, workspaceId }: { id: string; workspaceId: string }) {
  const names = useGroupNames(workspaceId);
  return (
    <datalist id={id}>
      {(names.data ?? []).map((name) => (
        <option key={name} value={name} />
      ))}
    </datalist>
  );
}
