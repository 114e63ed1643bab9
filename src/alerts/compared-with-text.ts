/**
 * What an alert's changes were measured against, for the line that introduces them (email, Slack,
 * Teams, `reportd alerts`). Each firing names its own baseline: a rule with `compare_with: 4 weeks`
 * measures against an older run than its neighbour's previous run, and a `mean_of_last_4` rule
 * against no single run, so the line lists every baseline once instead of naming the previous run
 * for all of them. Firings stored before the baseline was recorded count as the previous run.
 */

/** The run a firing was measured against (`id` null: the mean of several runs, no single run). */
export interface ComparedWith {
  id: number | null;
  label: string;
}

export interface ComparedContent {
  previousRun: { id: number; label: string };
  firings: readonly { comparedWith?: ComparedWith }[];
}

/** Every baseline of the firings, once each, previous run first when it is one of them. */
export function baselinesOf(content: ComparedContent): ComparedWith[] {
  const previous = { id: content.previousRun.id || null, label: content.previousRun.label };
  const seen = new Map<string, ComparedWith>();
  for (const firing of content.firings) {
    const baseline = firing.comparedWith ?? previous;
    if (baseline.label && !seen.has(baseline.label)) seen.set(baseline.label, baseline);
  }
  return [...seen.values()];
}

/** "Week 37 · 2026", or "Week 33 · 2026 and Week 37 · 2026"; `fallback` when nothing is named. */
export function comparedWithText(content: ComparedContent, fallback: string): string {
  const labels = baselinesOf(content).map((b) => b.label);
  if (labels.length === 0) return content.previousRun.label || fallback;
  return new Intl.ListFormat('en-US', { type: 'conjunction' }).format(labels);
}
