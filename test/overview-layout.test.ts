// The overview's grouped list laid out: a header per group, then its rows (none while collapsed),
// each row a position in the service's rows, which leave collapsed groups out.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { OverviewGroup } from '../contract/dashboard-api.ts';
import { layoutOf } from '../renderer/src/screens/overview-layout.ts';

const group = (name: string, total: number): OverviewGroup => ({
  name,
  total,
  state: 'up',
  counts: { up: total, degraded: 0, down: 0, pending: 0, paused: 0 },
});

const items = (layout: ReturnType<typeof layoutOf>) =>
  Array.from({ length: layout.count }, (_, i) => {
    const item = layout.itemAt(i);
    return item.kind === 'header' ? `${item.collapsed ? '+' : '-'}${item.group.name || "''"}` : item.index;
  });

describe('the overview list laid out by group', () => {
  test('without groups, every item is the row of its index', () => {
    const layout = layoutOf(3, [], new Set());
    assert.deepEqual(items(layout), [0, 1, 2]);
    assert.deepEqual(layout.rowsIn(1, 2), { first: 1, last: 2 });
    assert.equal(layoutOf(0, [], new Set()).rowsIn(0, 0), undefined);
  });

  test("a header before each group's rows; a collapsed group's rows are not in the service's rows", () => {
    // The service's rows: Storage's two, then the three in no group (Api is collapsed).
    const layout = layoutOf(5, [group('Storage', 2), group('Api', 4), group('', 3)], new Set(['Api']));
    assert.deepEqual(items(layout), ['-Storage', 0, 1, '+Api', "-''", 2, 3, 4]);
    assert.equal(layout.count, 8);
    // The rows under items in view, headers at either end left out.
    assert.deepEqual(layout.rowsIn(0, 7), { first: 0, last: 4 });
    assert.deepEqual(layout.rowsIn(3, 5), { first: 2, last: 2 });
    assert.deepEqual(layout.rowsIn(2, 4), { first: 1, last: 1 });
    assert.equal(layout.rowsIn(3, 4), undefined, 'headers only');
  });

  test('every group collapsed: headers only', () => {
    const layout = layoutOf(0, [group('A', 2), group('B', 1)], new Set(['A', 'B']));
    assert.deepEqual(items(layout), ['+A', '+B']);
    assert.equal(layout.rowsIn(0, 1), undefined);
  });

  test('many groups: each index found', () => {
    const groups = Array.from({ length: 50 }, (_, i) => group(`g${String(i).padStart(2, '0')}`, i % 3));
    const collapsed = new Set(groups.filter((_, i) => i % 7 === 0).map((g) => g.name));
    const total = groups.filter((g) => !collapsed.has(g.name)).reduce((sum, g) => sum + g.total, 0);
    const layout = layoutOf(total, groups, collapsed);
    const expected: (string | number)[] = [];
    let row = 0;
    for (const g of groups) {
      expected.push(`${collapsed.has(g.name) ? '+' : '-'}${g.name}`);
      if (!collapsed.has(g.name)) for (let i = 0; i < g.total; i++) expected.push(row++);
    }
    assert.deepEqual(items(layout), expected);
    assert.deepEqual(layout.rowsIn(0, layout.count - 1), { first: 0, last: total - 1 });
  });
});
