import { RULES } from '../api/field-units.js';
import type { AlertRuleConfig } from '../config/alert-section.js';
import { isAggregateCompetitor } from '../insight/aggregate-competitor.js';
import type { Judged } from '../insight/changes.js';
import type { InsightRow, SetDetails } from '../insight/sample-sizes.js';
import { formatValue } from '../report/format.js';
import type { ComparedWith } from './compared-with-text.js';
import { metricRule } from './metric-rule.js';

/**
 * Alert rules over the facts of a set's stored runs (oldest first, the run under evaluation last).
 * Pure: no store, no clock, so every rule kind is tested on hand-made runs, and `reportd alerts`
 * shows exactly what the sync pass would send.
 *
 * Units: a change on a `fraction` metric is compared and shown in points, like a `percent` one
 * (0.42 → 0.35 is −7 pts); a `value` threshold on a fraction metric is read on the 0..100 scale.
 */

/** A metric row of a run, as the insight layer reads it (one shape for both). */
export type FactRow = InsightRow;

export interface ErrorEntry {
  id: string;
  title: string;
  correct: string;
  claim: string | null;
  engine: string | null;
}

export interface RunFacts {
  runId: number;
  label: string;
  /** When the run was published (ISO): a `compare_with` calendar offset is counted from it. */
  createdAt?: string;
  rows: readonly FactRow[];
  /** Error register entries; undefined when that endpoint was unavailable for the run. */
  errors?: readonly ErrorEntry[];
  /** Competitive shares; undefined when unavailable. */
  shares?: readonly { name: string; share: number; isBrand: boolean }[];
  /** `presence.weighted`'s classification; undefined when unavailable. */
  classification?: string;
  /** The set details (queries, engines): a fallback for the sample sizes when a run lacks its counts. */
  details?: SetDetails;
}

export interface Firing {
  rule: number;
  kind: 'change' | 'value' | 'new_error' | 'competitor_overtakes' | 'classification_change';
  /** One line saying what fired, plain text (escaped where it becomes HTML). */
  headline: string;
  /** The machine id `<endpoint>.<field>` (webhook JSON keeps it beside the name). */
  metric?: string;
  /** What a person reads for the metric, member included ("Gross presence on ChatGPT"). */
  metricName?: string;
  /**
   * What the rule measured against: the run `compare_with` chose (the previous one by default), or
   * for `baseline: mean_of_last_4` the mean of runs (`id` null). Absent on events.
   */
  comparedWith?: ComparedWith;
  /**
   * The noise model's verdict on a change, judged with the other figures the rule watches in the run
   * (Holm, metric-rule.ts): its interval in points at `level`, its p, its adjusted q, how many
   * figures were judged together, and n on each side.
   */
  significance?: Judged['significance'];
  interval?: { low: number; high: number } | null;
  level?: number | null;
  p?: number | null;
  q?: number | null;
  familySize?: number | null;
  n?: { before: number | null; after: number | null } | null;
  /** With `for_runs`: how many runs the change has held. */
  forRuns?: number;
  member?: string;
  before?: string;
  after?: string;
  change?: string;
  /** The metric over the stored runs, on its display scale (points for shares), for the chart. */
  series?: { label: string; value: number }[];
  errors?: { id: string; title: string; correct: string; claims: string[]; engines: string[] }[];
}

export interface Skipped {
  rule: number;
  reason: string;
}

export interface Evaluation {
  firings: Firing[];
  skipped: Skipped[];
}

export function evaluateRules(rules: readonly AlertRuleConfig[], history: readonly RunFacts[]): Evaluation {
  const out: Evaluation = { firings: [], skipped: [] };
  const current = history.at(-1);
  const previous = history.at(-2);
  if (!current) return out;
  if (!previous) {
    out.skipped.push(...rules.map((_, rule) => ({ rule, reason: 'no earlier stored run to compare with' })));
    return out;
  }
  rules.forEach((rule, index) => {
    if (rule.event === 'new_error') newError(index, history, out);
    else if (rule.event === 'competitor_overtakes') overtakes(index, previous, current, out);
    else if (rule.event === 'classification_change') classification(index, previous, current, out);
    else if (rule.metric) metricRule(index, rule, history, out);
  });
  return out;
}

function newError(index: number, history: readonly RunFacts[], out: Evaluation): void {
  const current = history.at(-1)!;
  const earlier = history.slice(0, -1);
  if (current.errors === undefined || earlier.at(-1)?.errors === undefined) {
    const run = current.errors === undefined ? current : earlier.at(-1)!;
    out.skipped.push({
      rule: index,
      reason: `gravity.error-register: no data in run ${run.label} (endpoint unavailable)`,
    });
    return;
  }
  const seen = new Set(earlier.flatMap((run) => (run.errors ?? []).map((e) => e.id)));
  const fresh = new Map<string, NonNullable<Firing['errors']>[number]>();
  for (const entry of current.errors) {
    if (seen.has(entry.id)) continue;
    const item = fresh.get(entry.id) ?? {
      id: entry.id,
      title: entry.title,
      correct: entry.correct,
      claims: [],
      engines: [],
    };
    if (entry.claim && !item.claims.includes(entry.claim)) item.claims.push(entry.claim);
    if (entry.engine && !item.engines.includes(entry.engine)) item.engines.push(entry.engine);
    fresh.set(entry.id, item);
  }
  for (const item of fresh.values()) {
    out.firings.push({
      rule: index,
      kind: 'new_error',
      headline: `New error in the Gravity register: ${item.title}${item.claims[0] ? ` — "${item.claims[0]}"` : ''}`,
      errors: [item],
    });
  }
}

function overtakes(index: number, previous: RunFacts, current: RunFacts, out: Evaluation): void {
  if (!previous.shares || !current.shares) {
    const run = current.shares ? previous : current;
    out.skipped.push({
      rule: index,
      reason: `overview.competitive-context: no data in run ${run.label} (endpoint unavailable)`,
    });
    return;
  }
  const brandShare = (run: RunFacts) => run.shares!.find((s) => s.isBrand);
  const brandBefore = brandShare(previous);
  const brandNow = brandShare(current);
  if (!brandBefore || !brandNow) return;
  for (const competitor of current.shares) {
    // An aggregate "Other competitors (n)" entry is not a competitor that can overtake anyone.
    if (competitor.isBrand || isAggregateCompetitor(competitor.name)) continue;
    const before = previous.shares.find((s) => s.name === competitor.name);
    if (!before || before.share > brandBefore.share || competitor.share <= brandNow.share) continue;
    const pct = (v: number) => formatValue(v, RULES.fraction);
    out.firings.push({
      rule: index,
      kind: 'competitor_overtakes',
      // Shares of voice are shares of brand mentions, not of answers: the noise model cannot judge
      // them, so the swap is reported as what it is (docs/alerts.md).
      headline: `${competitor.name} overtook ${brandNow.name}: share ${pct(competitor.share)} vs ${pct(brandNow.share)} (was ${pct(before.share)} vs ${pct(brandBefore.share)}; a change of rank, not judged against sampling noise)`,
      significance: 'unknown',
      before: pct(before.share),
      after: pct(competitor.share),
    });
  }
}

function classification(index: number, previous: RunFacts, current: RunFacts, out: Evaluation): void {
  if (previous.classification === undefined || current.classification === undefined) {
    const run = current.classification === undefined ? current : previous;
    out.skipped.push({
      rule: index,
      reason: `presence.weighted: no classification in run ${run.label} (endpoint unavailable)`,
    });
    return;
  }
  if (previous.classification === current.classification) return;
  out.firings.push({
    rule: index,
    kind: 'classification_change',
    headline: `Classification changed: ${previous.classification} → ${current.classification}`,
    before: previous.classification,
    after: current.classification,
  });
}
