import { z } from 'zod';

/**
 * What a change is measured against (`compare_with`): the previous run (the API's own deltas), the
 * run N stored runs back, or the stored run nearest a calendar offset ("4 weeks", "52 weeks"). One
 * parser and one resolver for the KPI cards, the email headline, the digest and alert rules, so they
 * never pick different runs for the same words.
 */
export type Comparison =
  | { kind: 'previous' }
  | { kind: 'runs'; runs: number }
  | { kind: 'offset'; days: number; text: string };

export const PREVIOUS: Comparison = { kind: 'previous' };

const PATTERN = /^\s*(\d{1,3})\s+(runs?|days?|weeks?)\s*$/i;

/** Parses `previous`, `N runs`, `N days` or `N weeks`; undefined for anything else. */
export function parseComparison(text: string): Comparison | undefined {
  if (text.trim().toLowerCase() === 'previous') return PREVIOUS;
  const match = PATTERN.exec(text);
  if (!match) return undefined;
  const count = Number(match[1]);
  if (count < 1) return undefined;
  const unit = match[2]!.toLowerCase();
  if (unit.startsWith('run')) return count === 1 ? PREVIOUS : { kind: 'runs', runs: count };
  const days = unit.startsWith('week') ? count * 7 : count;
  return { kind: 'offset', days, text: `${count} ${unit.startsWith('week') ? 'weeks' : 'days'}` };
}

/** The config field, checked where it is read so a typo is one line naming the field. */
export const comparisonText = z.string().refine((text) => parseComparison(text) !== undefined, {
  error: 'expected previous, "N runs" (e.g. 4 runs), "N weeks" (e.g. 52 weeks) or "N days"',
});

/** A stored run as the resolver needs it. */
export interface DatedRun {
  id: number;
  /** ISO date-time the run was published. */
  createdAt: string;
}

export type Baseline<R> =
  | { kind: 'previous' }
  | { kind: 'run'; run: R }
  /** No stored run is that far back: the reader is told so, no change is shown. */
  | { kind: 'none' };

const DAY_MS = 86_400_000;

/**
 * The run a change is measured against. `earlier` is the set's other stored runs, in any order.
 * For a calendar offset the nearest run to (this run's date − offset) counts when it lies within
 * half a week (or half the offset, if shorter) of that date or before it: a run only 2 weeks old
 * never stands in for "4 weeks".
 */
export function resolveBaseline<R extends DatedRun>(
  comparison: Comparison,
  current: DatedRun,
  earlier: readonly R[],
): Baseline<R> {
  if (comparison.kind === 'previous') return { kind: 'previous' };
  const at = Date.parse(current.createdAt);
  const before = earlier
    .filter((run) => run.id !== current.id && Date.parse(run.createdAt) < at)
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  if (comparison.kind === 'runs') {
    const run = before[comparison.runs - 1];
    return run ? { kind: 'run', run } : { kind: 'none' };
  }
  const target = at - comparison.days * DAY_MS;
  const slack = Math.min(3.5, comparison.days / 2) * DAY_MS;
  let best: R | undefined;
  for (const run of before) {
    const time = Date.parse(run.createdAt);
    if (time > target + slack) continue;
    if (!best || Math.abs(time - target) < Math.abs(Date.parse(best.createdAt) - target)) best = run;
  }
  return best ? { kind: 'run', run: best } : { kind: 'none' };
}
