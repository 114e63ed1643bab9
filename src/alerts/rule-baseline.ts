import type { AlertRuleConfig } from '../config/alert-section.js';
import { PREVIOUS, parseComparison, resolveBaseline } from '../config/compare-with.js';
import { type RunSamples, runSamples } from '../insight/sample-sizes.js';
import type { RunFacts } from './run-facts.js';

/**
 * What a `change` rule measures against: the run `compare_with` chose (one resolver with the
 * reports), or the mean of the runs before (their answers pooled), and the sample sizes of a run.
 */

export const MEAN_OF_LAST_4 = 'the mean of the last 4 runs';

const samplesMemo = new WeakMap<RunFacts, RunSamples>();
export function samplesOf(run: RunFacts): RunSamples {
  let samples = samplesMemo.get(run);
  if (!samples) {
    samples = runSamples(run.rows, run.details);
    samplesMemo.set(run, samples);
  }
  return samples;
}

/**
 * The run a `change` is measured against (`compare_with`, one resolver with the reports), for the
 * newest run of `history`: the previous run by default; undefined when no stored run reaches back
 * that far.
 */
export function comparedRun(
  rule: AlertRuleConfig,
  history: readonly RunFacts[],
): { run: RunFacts; previous: boolean } | undefined {
  const comparison = rule.compare_with ? parseComparison(rule.compare_with) : PREVIOUS;
  const previous = { run: history.at(-2)!, previous: true };
  if (!comparison || comparison.kind === 'previous' || rule.value) return previous;
  // Facts without a date (hand-made in tests) are ordered by position: one day apart.
  const dated = (run: RunFacts, i: number) => ({
    id: run.runId,
    createdAt: run.createdAt ?? new Date(i * 86_400_000).toISOString(),
    run,
  });
  const runs = history.map(dated);
  const found = resolveBaseline(comparison, runs.at(-1)!, runs.slice(0, -1));
  if (found.kind !== 'run') return undefined;
  return { run: found.run.run, previous: found.run.run === history.at(-2) };
}

/**
 * The mean of up to `count` runs before the newest, with the answers of those runs pooled: the mean
 * of a share over k runs is a share of their answers together, so its n is their sum (unknown when
 * one of them has no n).
 */
export function meanBefore(
  history: readonly RunFacts[],
  valueIn: (run: RunFacts) => number | undefined,
  nIn: (run: RunFacts) => number | undefined,
  count: number,
): { value: number; n: number | undefined } | undefined {
  const points = history
    .slice(0, -1)
    .slice(-count)
    .map((run) => ({ value: valueIn(run), n: nIn(run) }))
    .filter((p): p is { value: number; n: number | undefined } => p.value !== undefined);
  if (points.length === 0) return undefined;
  const value = points.reduce((a, p) => a + p.value, 0) / points.length;
  const n = points.every((p) => p.n !== undefined) ? points.reduce((a, p) => a + (p.n ?? 0), 0) : undefined;
  return { value, n };
}
