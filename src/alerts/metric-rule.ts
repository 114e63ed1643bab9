import { type MetricUnit, RULES } from '../api/field-units.js';
import type { AlertRuleConfig } from '../config/alert-section.js';
import { CONDITION } from '../config/alert-section.js';
import { parseMetric } from '../config/alertable-metrics.js';
import {
  displayScale,
  type Judged,
  judgeTogether,
  type Measured,
  measureChange,
} from '../insight/changes.js';
import { metricName } from '../insight/metric-names.js';
import { isInvalidRow } from '../insight/valid-values.js';
import { formatDelta, formatValue, polarityOf } from '../report/format.js';
import { noiseText } from './noise-text.js';
import { comparedRun, MEAN_OF_LAST_4, meanBefore, samplesOf } from './rule-baseline.js';
import type { Evaluation, FactRow, Firing, RunFacts } from './run-facts.js';

/**
 * `metric` rules: a `change` against the run `compare_with` chose (or the mean of the last 4), or a
 * `value` crossing a threshold. Pure, like evaluate.ts.
 *
 * A change rule is its own family: the figures it watches in one run (every engine of `per: engine`)
 * are judged together with Holm's procedure at the rule's `false_alarm_rate`, so the chance that it
 * fires on some figure in a run where nothing changed stays below that rate however many figures it
 * watches. With `for_runs: N` a change must also persist: each of the last N runs, measured against
 * the run before the first of them, meets the condition and is a likely change (a step that stays,
 * not a blip that reverts; it fires once, on the Nth run after the step).
 */

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

const ruleOf = (unit: MetricUnit) => (unit === 'unknown' ? RULES.decimal : RULES[unit]);

interface Watch {
  rule: AlertRuleConfig;
  index: number;
  history: readonly RunFacts[];
  out: Evaluation;
  name: string;
  /** The run's rows of the watched metric, valid or not. */
  watched: (run: RunFacts) => FactRow[];
  /** Those of them the rule may read: the valid ones. */
  pick: (run: RunFacts) => FactRow[];
}

export function metricRule(
  index: number,
  rule: AlertRuleConfig,
  history: readonly RunFacts[],
  out: Evaluation,
) {
  const ref = parseMetric(rule.metric!, rule.per);
  if (!ref) return;
  const dimension = rule.per ?? '';
  const watched = (run: RunFacts) =>
    run.rows.filter((r) => r.endpoint === ref.endpoint && r.field === ref.field && r.dimension === dimension);
  // A value outside what its unit allows (valid-values.ts) is a fault of the service: never alerted on,
  // neither as the run's value nor as a baseline, and said so once in the skipped lines.
  const pick = (run: RunFacts) => watched(run).filter((r) => !isInvalidRow(r));
  const watch: Watch = { rule, index, history, out, name: `${ref.endpoint}.${ref.field}`, watched, pick };
  const newest = history.at(-1)!;
  for (const row of watched(newest).filter(isInvalidRow)) {
    const label = labelOf(row);
    out.skipped.push({
      rule: index,
      reason: `${label ? `${watch.name} (${label})` : watch.name}: ${row.value} in run ${newest.label} is not a valid value; not alerted on`,
    });
  }
  if (rule.change) changeRule(watch, ref.endpoint, ref.field);
  else if (pick(newest).length === 0) noData(watch, newest);
  else valueRule(watch, ref.endpoint, ref.field);
}

function noData(watch: Watch, run: RunFacts, what = watch.name): void {
  // A run whose rows are there but invalid was said once already (metricRule): "no data" would be untrue.
  if (watch.watched(run).some(isInvalidRow)) return;
  watch.out.skipped.push({
    rule: watch.index,
    reason: `${what}: no data in run ${run.label} (endpoint unavailable)`,
  });
}

const memberOf = (row: FactRow) => row.dimension_id ?? null;
const labelOf = (row: FactRow) => row.dimension_label ?? row.dimension_id ?? undefined;

/** What every firing of a row says: the metric, the member, before → after, the series. */
function firingBase(watch: Watch, endpoint: string, field: string, row: FactRow, before: number) {
  const numberRule = ruleOf(row.unit);
  const valueIn = (run: RunFacts) => watch.pick(run).find((r) => memberOf(r) === memberOf(row))?.value;
  const series = watch.history.flatMap((run) => {
    const v = valueIn(run);
    return v === undefined ? [] : [{ label: run.label, value: displayScale(v, row.unit) }];
  });
  const delta = formatDelta(row.value - before, numberRule, polarityOf(endpoint, field));
  const member = labelOf(row);
  return {
    rule: watch.index,
    metric: watch.name,
    metricName: metricName(row),
    ...(member ? { member } : {}),
    before: formatValue(before, numberRule),
    after: formatValue(row.value, numberRule),
    change: delta.text,
    series,
  };
}

function valueRule(watch: Watch, endpoint: string, field: string): void {
  const { history, rule } = watch;
  const previous = history.at(-2)!;
  const condition = parseCondition(rule.value!);
  for (const row of watch.pick(history.at(-1)!)) {
    const before = watch.pick(previous).find((r) => memberOf(r) === memberOf(row))?.value;
    const label = labelOf(row);
    if (before === undefined) {
      noData(watch, previous, label ? `${watch.name} (${label})` : watch.name);
      continue;
    }
    // Crossing only: a level that was already past the threshold last run is old news.
    if (
      !holds(displayScale(row.value, row.unit), condition) ||
      holds(displayScale(before, row.unit), condition)
    )
      continue;
    const base = firingBase(watch, endpoint, field, row, before);
    watch.out.firings.push({
      ...base,
      kind: 'value',
      comparedWith: { id: previous.runId, label: previous.label },
      headline: `${base.metricName} crossed ${rule.value}: ${base.before} → ${base.after}`,
    });
  }
}

/** One member's change in one run of the streak, measured against the baseline and judged. */
interface Step {
  row: FactRow;
  before: number;
  /** Undefined when the baseline has no value for this member. */
  measured?: Measured;
  judged?: Judged;
  /** The condition holds (on points, or relative to the baseline). */
  met: boolean;
  /** The change relative to the baseline, in percent. */
  relative: number;
}

function changeRule(watch: Watch, endpoint: string, field: string): void {
  const { rule, history, out, index } = watch;
  const streak = rule.for_runs;
  // The run the streak starts at: each of the last `for_runs` runs is measured against its baseline.
  const first = history.length - streak;
  if (first < 1) {
    out.skipped.push({
      rule: index,
      reason: `${rule.metric}: for_runs: ${streak} needs ${streak + 1} stored runs, ${history.length} stored so far`,
    });
    return;
  }
  const upToFirst = history.slice(0, first + 1);
  const against = comparedRun(rule, upToFirst);
  if (!against) {
    // Named as the rule writes it: this line tells the config's author why the rule waits.
    out.skipped.push({
      rule: index,
      reason: `${rule.metric}: no stored run ${rule.compare_with} before this one`,
    });
    return;
  }
  const newest = history.at(-1)!;
  if (watch.pick(newest).length === 0) {
    noData(watch, newest);
    return;
  }
  const meanOfRuns = rule.baseline === 'mean_of_last_4';
  const baselineOf = (row: FactRow) => {
    const valueIn = (run: RunFacts) => watch.pick(run).find((r) => memberOf(r) === memberOf(row))?.value;
    if (meanOfRuns) return meanBefore(upToFirst, valueIn, (run) => samplesOf(run).of(row)?.n, 4);
    const value = valueIn(against.run);
    return value === undefined ? undefined : { value, n: samplesOf(against.run).of(row)?.n };
  };
  const steps = history.slice(first).map((run) => judgeStep(watch, run, baselineOf));
  const condition = parseCondition(rule.change!);
  for (const step of steps.at(-1)!) {
    const label = labelOf(step.row);
    const what = label ? `${watch.name} (${label})` : watch.name;
    if (!step.judged) {
      noData(watch, against.run, what);
      continue;
    }
    const persisted = steps.every((run) => {
      const same = run.find((s) => memberOf(s.row) === memberOf(step.row));
      return same?.met === true && (rule.significant === false || same.judged?.significance === 'likely');
    });
    if (!persisted) {
      // Only likely changes fire unless the rule opts out: a metric without a noise model (Life,
      // ratios, counts) cannot be called likely (docs/alerts.md).
      if (step.met && rule.significant !== false && step.judged.significance === 'unknown')
        out.skipped.push({
          rule: index,
          reason: `${what}: changed ${formatDelta(step.row.value - step.before, ruleOf(step.row.unit), 'neutral').text}, but the noise of this metric is unknown; add significant: false to the rule to fire on such changes`,
        });
      continue;
    }
    out.firings.push(
      changeFiring(watch, endpoint, field, { ...step, judged: step.judged }, condition.relative, {
        against,
        meanOfRuns,
        streak,
      }),
    );
  }
}

/** Every member of `run` measured against its baseline and judged as the rule's family (Holm). */
function judgeStep(
  watch: Watch,
  run: RunFacts,
  baselineOf: (row: FactRow) => { value: number; n: number | undefined } | undefined,
): Step[] {
  const condition = parseCondition(watch.rule.change!);
  const rows = watch.pick(run);
  const partial = rows.map((row) => {
    const baseline = baselineOf(row);
    if (!baseline) return { row, before: Number.NaN, measured: undefined };
    const sample = samplesOf(run).of(row);
    const measured = measureChange(
      { value: baseline.value, n: baseline.n },
      { value: row.value, n: sample?.n, nSource: sample?.source },
      row.unit,
      sample !== undefined,
    );
    return { row, before: baseline.value, measured };
  });
  const measured = partial.flatMap((p) => (p.measured ? [p.measured] : []));
  const judged = judgeTogether(measured, { alpha: watch.rule.false_alarm_rate, method: 'holm' });
  let member = 0;
  return partial.map((p): Step => {
    const points = displayScale(p.row.value, p.row.unit) - displayScale(p.before, p.row.unit);
    const base = Math.abs(displayScale(p.before, p.row.unit));
    const relative = base === 0 ? Number.NaN : (points / base) * 100;
    const measure = condition.relative ? relative : points;
    if (!p.measured) return { row: p.row, before: p.before, met: false, relative };
    const met = !Number.isNaN(measure) && holds(measure, condition);
    return { ...p, measured: p.measured, judged: judged[member++]!, met, relative };
  });
}

function changeFiring(
  watch: Watch,
  endpoint: string,
  field: string,
  step: Step & { judged: Judged },
  relative: boolean,
  context: { against: { run: RunFacts; previous: boolean }; meanOfRuns: boolean; streak: number },
): Firing {
  const { rule } = watch;
  const { against, meanOfRuns, streak } = context;
  const base = firingBase(watch, endpoint, field, step.row, step.before);
  const judged = step.judged;
  const versus = meanOfRuns
    ? MEAN_OF_LAST_4
    : against.previous && streak === 1
      ? 'the previous run'
      : `run ${against.run.label}${rule.compare_with ? ` (${rule.compare_with} back)` : ''}`;
  const persisted = streak > 1 ? ` in each of the last ${streak} runs` : '';
  const percent = relative
    ? ` (${step.relative >= 0 ? '+' : '−'}${Math.abs(step.relative).toFixed(1)}%)`
    : '';
  const noise = noiseText(judged);
  return {
    ...base,
    kind: 'change',
    comparedWith: meanOfRuns
      ? { id: null, label: MEAN_OF_LAST_4 }
      : { id: against.run.runId, label: against.run.label },
    // Never invalid here: `pick` leaves invalid values out.
    significance: judged.significance === 'invalid' ? 'unknown' : judged.significance,
    interval: judged.low === null || judged.high === null ? null : { low: judged.low, high: judged.high },
    level: judged.level,
    p: judged.p,
    q: judged.q,
    familySize: judged.familySize,
    n: { before: judged.nBefore, after: judged.nAfter },
    ...(streak > 1 ? { forRuns: streak } : {}),
    headline: `${base.metricName} changed ${base.change}${percent} against ${versus}${persisted}${noise ? ` ${noise}` : ''}: ${base.before} → ${base.after} (rule: change ${rule.change})`,
  };
}
