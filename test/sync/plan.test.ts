import { describe, expect, it } from 'vitest';
import { dueRuns, orderDue } from '../../src/sync/plan.js';

const run = (id: number, day: number) => ({
  id,
  display_name: `Run ${id}`,
  created_at: new Date(Date.UTC(2026, 0, day)).toISOString(),
});

describe('planning', () => {
  const runs = [run(1, 1), run(5, 5), run(3, 3), run(4, 4), run(2, 2)];

  it('takes the newest backfill_runs runs, newest first, skipping complete snapshots', () => {
    const states = new Map([
      [5, { id: 50, state: 'complete' as const }],
      [3, { id: 30, state: 'partial' as const }],
    ]);
    expect(dueRuns(101, runs, states, 3).map((d) => [d.run.id, d.snapshotId, d.state])).toEqual([
      [4, undefined, undefined],
      [3, 30, 'partial'],
    ]);
    expect(dueRuns(101, runs, new Map(), 0)).toEqual([]);
    // A set with no published run has nothing due.
    expect(dueRuns(103, [], new Map(), 4)).toEqual([]);
  });

  it('orders runs published at the same instant by id, and interleaves sets newest first', () => {
    const same = [run(7, 9), run(8, 9)];
    expect(dueRuns(1, same, new Map(), 2).map((d) => d.run.id)).toEqual([8, 7]);
    const a = dueRuns(101, [run(1, 1), run(2, 10)], new Map(), 2);
    const b = dueRuns(201, [run(11, 5), run(12, 20)], new Map(), 2);
    expect(orderDue([a, b]).map((d) => `${d.querySetId}/${d.run.id}`)).toEqual([
      '201/12',
      '101/2',
      '201/11',
      '101/1',
    ]);
  });

  it('sorts offsets without a colon by their instant', () => {
    const plusOne = { id: 1, display_name: 'a', created_at: '2026-01-01T10:00:00+0100' }; // 09:00Z
    const utc = { id: 2, display_name: 'b', created_at: '2026-01-01T09:30:00Z' };
    expect(dueRuns(1, [utc, plusOne], new Map(), 1).map((d) => d.run.id)).toEqual([2]);
  });
});
