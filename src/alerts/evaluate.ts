import { type MetricUnit, RULES } from '../api/field-units.js';
import type { AlertRuleConfig } from '../config/alert-section.js';
import { CONDITION } from '../config/alert-section.js';
import { parseMetric } from '../config/alertable-metrics.js';
import { PREVIOUS, parseComparison, resolveBaseline } from '../config/compare-with.js';
import { isAggregateCompetitor } from '../insight/aggregate-competitor.js';
import { displayScale, type Judged, judgeChange } from '../insight/changes.js';
import { metricName } from '../insight/metric-names.js';
import { type InsightRow, type RunSamples, runSamples, type SetDetails } from '../insight/sample-sizes.js';
import { formatDelta, formatValue, polarityOf } from '../report/format.js';
import type { ComparedWith } from './compared-with-text.js';
import { noiseText } from './noise-text.js';

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
  /** The noise model's verdict on a change and its 95 % interval in points, n on each side. */
  significance?: Judged['significance'];
  interval?: { low: number; high: number } | null;
  n?: { before: number | null; after: number | null } | null;
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

type Op = '<' | '<=' | '>' | '>=';
interface Condition {
  op: Op;
  threshold: number;
  relative: boolean;
}

export function parseCondition(text: string): Condition {
  const match = CONDITION.exec(text);
  if (!match) throw new Error(`not a condition: ${text}`);
  return { op: match[1] as Op, threshold: Number(match[2]), relative: match[3] === '%' };
}

function holds(value: number, { op, threshold }: Condition): boolean {
  // Rounded to the shown precision first, so "−5.0 pts" meets "<= -5" even when it is −4.9999999.
  const v = Math.round(value * 1e6) / 1e6;
  if (op === '<') return v < threshold;
  if (op === '<=') return v <= threshold;
  if (op === '>') return v > threshold;
  return v >= threshold;
}

function ruleOf(unit: MetricUnit) {
  return unit === 'unknown' ? RULES.decimal : RULES[unit];
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

/**
 * The run a `change` is measured against (`compare_with`, one resolver with the reports): the previous
 * run by default; undefined when no stored run reaches back that far.
 */
function comparedRun(
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

const MEAN_OF_LAST_4 = 'the mean of the last 4 runs';

const samplesMemo = new WeakMap<RunFacts, RunSamples>();
function samplesOf(run: RunFacts): RunSamples {
  let samples = samplesMemo.get(run);
  if (!samples) {
    samples = runSamples(run.rows, run.details);
    samplesMemo.set(run, samples);
  }
  return samples;
}

function metricRule(
  index: number,
  rule: AlertRuleConfig,
  history: readonly RunFacts[],
  out: Evaluation,
): void {
  const ref = parseMetric(rule.metric!, rule.per);
  if (!ref) return;
  const dimension = rule.per ?? '';
  const pick = (run: RunFacts) =>
    run.rows.filter((r) => r.endpoint === ref.endpoint && r.field === ref.field && r.dimension === dimension);
  const current = pick(history.at(-1)!);
  const name = `${ref.endpoint}.${ref.field}`;
  const against = comparedRun(rule, history);
  if (!against) {
    // Named as the rule writes it: this line tells the config's author why the rule waits.
    out.skipped.push({
      rule: index,
      reason: `${rule.metric}: no stored run ${rule.compare_with} before this one`,
    });
    return;
  }
  if (current.length === 0) {
    out.skipped.push({
      rule: index,
      reason: `${name}: no data in run ${history.at(-1)!.label} (endpoint unavailable)`,
    });
    return;
  }
  for (const row of current) {
    const member = row.dimension_id ?? null;
    const valueIn = (run: RunFacts) => pick(run).find((r) => (r.dimension_id ?? null) === member)?.value;
    const memberLabel = row.dimension_label ?? row.dimension_id ?? undefined;
    const what = memberLabel ? `${name} (${memberLabel})` : name;
    const readable = metricName(row);
    const baseline =
      rule.change && rule.baseline === 'mean_of_last_4'
        ? meanBefore(history, valueIn, (run) => samplesOf(run).of(row)?.n, 4)
        : (() => {
            const run = against.run;
            const value = valueIn(run);
            return value === undefined ? undefined : { value, n: samplesOf(run).of(row)?.n };
          })();
    const before = baseline?.value;
    if (before === undefined) {
      out.skipped.push({
        rule: index,
        reason: `${what}: no data in run ${against.run.label} (endpoint unavailable)`,
      });
      continue;
    }
    const after = row.value;
    const unit = row.unit;
    const numberRule = ruleOf(unit);
    const series = history.flatMap((run) => {
      const v = valueIn(run);
      return v === undefined ? [] : [{ label: run.label, value: displayScale(v, unit) }];
    });
    const delta = formatDelta(after - before, numberRule, polarityOf(ref.endpoint, ref.field));
    const meanOfRuns = rule.change !== undefined && rule.baseline === 'mean_of_last_4';
    const base = {
      rule: index,
      metric: name,
      metricName: readable,
      comparedWith: meanOfRuns
        ? { id: null, label: MEAN_OF_LAST_4 }
        : { id: against.run.runId, label: against.run.label },
      ...(memberLabel ? { member: memberLabel } : {}),
      before: formatValue(before, numberRule),
      after: formatValue(after, numberRule),
      change: delta.text,
      series,
    };
    if (rule.change) {
      const condition = parseCondition(rule.change);
      const pointsChange = displayScale(after, unit) - displayScale(before, unit);
      const measured = condition.relative
        ? before === 0
          ? Number.NaN
          : (pointsChange / Math.abs(displayScale(before, unit))) * 100
        : pointsChange;
      if (Number.isNaN(measured) || !holds(measured, condition)) continue;
      const sampleAfter = samplesOf(history.at(-1)!).of(row);
      const judged = judgeChange(
        { value: before, n: baseline?.n },
        { value: after, n: sampleAfter?.n, nSource: sampleAfter?.source },
        unit,
        sampleAfter !== undefined,
      );
      // Only real changes fire unless the rule opts out: a move inside the noise is no news, and a
      // metric without a noise model (Life, ratios, counts) cannot be called real (README, alerts).
      if (rule.significant !== false && judged.significance !== 'real') {
        if (judged.significance === 'unknown') {
          out.skipped.push({
            rule: index,
            reason: `${what}: changed ${delta.text}, but the noise of this metric is unknown; add significant: false to the rule to fire on such changes`,
          });
        }
        continue;
      }
      const relative = condition.relative
        ? ` (${measured >= 0 ? '+' : '−'}${Math.abs(measured).toFixed(1)}%)`
        : '';
      const versus = meanOfRuns
        ? MEAN_OF_LAST_4
        : against.previous
          ? 'the previous run'
          : `run ${against.run.label} (${rule.compare_with} back)`;
      const noise = noiseText(judged);
      out.firings.push({
        ...base,
        kind: 'change',
        significance: judged.significance,
        interval: judged.low === null || judged.high === null ? null : { low: judged.low, high: judged.high },
        n: { before: judged.nBefore, after: judged.nAfter },
        headline: `${readable} changed ${delta.text}${relative} against ${versus}${noise ? ` ${noise}` : ''}: ${base.before} → ${base.after} (rule: change ${rule.change})`,
      });
    } else if (rule.value) {
      const condition = parseCondition(rule.value);
      // Crossing only: a level that was already past the threshold last run is old news.
      if (!holds(displayScale(after, unit), condition) || holds(displayScale(before, unit), condition))
        continue;
      out.firings.push({
        ...base,
        kind: 'value',
        headline: `${readable} crossed ${rule.value}: ${base.before} → ${base.after}`,
      });
    }
  }
}

/**
 * The mean of up to `count` runs before the newest, with the answers of those runs pooled: the mean
 * of a share over k runs is a share of their answers together, so its n is their sum (unknown when
 * one of them has no n).
 */
function meanBefore(
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
      headline: `${competitor.name} overtook ${brandNow.name}: share ${pct(competitor.share)} vs ${pct(brandNow.share)} (was ${pct(before.share)} vs ${pct(brandBefore.share)})`,
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
