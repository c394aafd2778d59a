// The overview's choice of monitors for a bulk action, apart from the bar that acts on it: the
// overview keeps the choice from its first screen, and loads the bar (with the RPC schemas it
// needs) only once something is chosen.

/** The overview's chosen monitors: some rows by id, or every monitor its filter matches. */
export type Selection = { kind: 'ids'; ids: ReadonlySet<string> } | { kind: 'filter' };

export const NOTHING_SELECTED: Selection = { kind: 'ids', ids: new Set() };

export const selectedCount = (selection: Selection, total: number) => (selection.kind === 'filter' ? total : selection.ids.size);
