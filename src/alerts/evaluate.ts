import { RULES } from '../api/field-units.js';
import type { AlertRuleConfig } from '../config/alert-section.js';
import { isAggregateCompetitor } from '../insight/aggregate-competitor.js';
import { formatValue } from '../report/format.js';
import { metricRule } from './metric-rule.js';
import type { Evaluation, Firing, RunFacts } from './run-facts.js';

/**
 * Alert rules over the facts of a set's stored runs (oldest first, the run under evaluation last).
 * Pure: no store, no clock, so every rule kind is tested on hand-made runs, and `reportd alerts`
 * shows exactly what the sync pass would send.
 *
 * Units: a change on a `fraction` metric is compared and shown in points, like a `percent` one
 * (0.42 → 0.35 is −7 pts); a `value` threshold on a fraction metric is read on the 0..100 scale.
 */

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
