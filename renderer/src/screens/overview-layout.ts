// Where the overview's list puts each group's header and rows: the service leaves the rows of
// collapsed groups out and gives the rest group by group, so a virtual index of the list maps to a
// header or to a position in the service's rows. Plain TypeScript, tested in Node.
import type { OverviewGroup } from '../../../contract/dashboard-api.ts';

/** An item of the grouped list: a group's header, or a row by its position in the service's rows. */
export type ListItem = { kind: 'header'; group: OverviewGroup; collapsed: boolean } | { kind: 'row'; index: number };

/** A group's place in the list: its header's index, and its rows (none while collapsed). */
interface Segment {
  group: OverviewGroup;
  collapsed: boolean;
  header: number;
  /** Position of its first row in the service's rows. */
  firstRow: number;
  rows: number;
}

export interface ListLayout {
  /** Items of the list: rows, and a header per group when grouped. */
  count: number;
  itemAt(index: number): ListItem;
  /** The rows under the items `first` to `last`, as positions in the service's rows; undefined when there are only headers. */
  rowsIn(first: number, last: number): { first: number; last: number } | undefined;
}

const FLAT = (total: number): ListLayout => ({
  count: total,
  itemAt: (index) => ({ kind: 'row', index }),
  rowsIn: (first, last) => (total === 0 ? undefined : { first, last }),
});

/**
 * Where each group's header and rows sit. The service leaves the rows of collapsed groups out and
 * gives the rest in the order of `groups`, so a group's rows start where the expanded groups
 * before it end.
 */
export function layoutOf(total: number, groups: readonly OverviewGroup[], collapsed: ReadonlySet<string>): ListLayout {
  if (groups.length === 0) return FLAT(total);
  const segments: Segment[] = [];
  let item = 0;
  let row = 0;
  for (const group of groups) {
    const folded = collapsed.has(group.name);
    const rows = folded ? 0 : group.total;
    segments.push({ group, collapsed: folded, header: item, firstRow: row, rows });
    item += 1 + rows;
    row += rows;
  }
  const segmentAt = (index: number): Segment => {
    let low = 0;
    let high = segments.length - 1;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (segments[mid]!.header <= index) low = mid;
      else high = mid - 1;
    }
    return segments[low]!;
  };
  // The row at an item, or the nearest one after (`forward`) or before it.
  const rowNear = (index: number, forward: boolean): number => {
    const segment = segmentAt(index);
    if (index > segment.header) return segment.firstRow + (index - segment.header - 1);
    return forward ? segment.firstRow : segment.firstRow - 1;
  };
  return {
    count: item,
    itemAt: (index) => {
      const segment = segmentAt(index);
      return index === segment.header
        ? { kind: 'header', group: segment.group, collapsed: segment.collapsed }
        : { kind: 'row', index: segment.firstRow + (index - segment.header - 1) };
    },
    rowsIn: (first, last) => {
      const from = rowNear(first, true);
      const to = rowNear(last, false);
      return from <= to && from < row ? { first: from, last: Math.min(to, row - 1) } : undefined;
    },
  };
}
