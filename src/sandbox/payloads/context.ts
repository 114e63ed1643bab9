import type { RunFigures } from '../answers/figures.js';
import { runFigures } from '../answers/run.js';
import { type EngineDef, engineById, engineImage, type IntentDef } from '../dataset/catalog.js';
import type { RunRecord, SetRecord } from '../dataset/records.js';
import type { SandboxDataset } from '../dataset.js';
import { round } from '../rng.js';

/**
 * Every metric payload is built from the run's figures (answers/figures.ts): counts of its simulated
 * answers. The spec does not say which fields are percents and which are fractions, and real payloads
 * mix both, so the sandbox mixes them on purpose — the report's format.ts has to pick a rule per
 * field. The scale of every numeric field the sandbox sends, and what it counts:
 *
 * | Field(s)                                                              | Scale: what it counts              |
 * |-----------------------------------------------------------------------|------------------------------------|
 * | presence.gross current, history; by-engine/by-intent gross; matrix    | percent: answers naming the brand  |
 * | presence.weighted current, history; by-engine/by-intent weighted;     | percent: the same, position-       |
 * |   life.by-intent presence, scatter presenceByIntent/weightedPresence… |   weighted (1, .7, .45, .25)       |
 * | presence.weighted fairShare (1 / uniqueBrands), dStar (= market's)    | fraction 0..1                      |
 * | presence.position-distribution p1..p4plus (+ prev); by-engine p*      | fraction of answers naming the     |
 * |                                                                       |   brand, sum 1                     |
 * | position-distribution totalAnswers / totalAll; by-engine timesCited   | counts: answers naming the brand / |
 * |                                                                       |   all answers; per engine, sum     |
 * | overview.competitive-context shares[].share                           | fraction of brand mentions, sum 1  |
 * | life.kpi, life by-engine/by-intent `life`, scatter lifeByIntent       | score 0..100 from the stance mix   |
 * | life.recommended-share / neutral-share / negative-share               | percent of answers naming the brand|
 * | life.positive-negative-ratio                                          | ratio (e.g. 4.35 = 4.35:1)         |
 * | life.stance-mix (+ prev), stance-history series, compact stances      | fraction of answers naming the     |
 * |                                                                       |   brand, sum 1                     |
 * | gravity.gravity-plus / gravity-minus, by-engine gravityPlus/Minus     | percent of answers with a verified |
 * |                                                                       |   / a wrong fact about the brand   |
 * | gravity.by-engine gPlus / gMinus                                      | the same as fractions 0..1         |
 * | gravity.open-errors count, delta, resolvedSinceBaseline, history      | counts of register entries         |
 * | gravity.source-distribution (+ history)                               | percent of citations, sum 100      |
 * | scout.* counts (citations, engines, domains, urls, delta)             | counts of citations / engines      |
 * | scout.references-by-llm / references-by-intent weighted               | percent of answers citing a domain |
 * |                                                                       |   the brand owns or partners with  |
 * | scout.citation-occurrences series                                     | answers naming the brand (= its    |
 * |                                                                       |   timesCited) or the competitor    |
 * | market.data dStar                                                     | fraction of answers with brands    |
 * |                                                                       |   that name the brand first        |
 * | market.data tBar                                                      | brand mentions per answer with     |
 * |                                                                       |   brands (2.6)                     |
 * | market.data totalResponses / responsesWith(out)Brands / uniqueBrands  | counts (with + without = total)    |
 * | market.data weightedPresence fairShare, fairShareMetric               | fraction 0..1                      |
 * | market.life-monitored-competitors shares[].share                      | fraction of recommending answers   |
 */

/**
 * What a metric handler needs: the set, and the run window the request selected. `end` is the run the
 * values are "as of"; history series cover `start..end` (indices into `set.runs`, both included).
 */
export interface MetricContext {
  ds: SandboxDataset;
  set: SetRecord;
  start: number;
  end: number;
  query: URLSearchParams;
}

export type MetricHandler = (ctx: MetricContext) => unknown;

/** The figures of run `i` (an index into the set's runs). */
export const figures = (ctx: MetricContext, i: number): RunFigures => runFigures(ctx.set, i);
/** One engine's (one intent's) figures in run `i`. */
export const engineAt = (ctx: MetricContext, i: number, engineId: number) =>
  figures(ctx, i).engines.get(engineId)!;
export const intentAt = (ctx: MetricContext, i: number, intentId: number) =>
  figures(ctx, i).intents.get(intentId)!;

export const windowRuns = (ctx: MetricContext): RunRecord[] => ctx.set.runs.slice(ctx.start, ctx.end + 1);
export const windowIndices = (ctx: MetricContext): number[] => windowRuns(ctx).map((r) => r.index);
export const historyLabels = (ctx: MetricContext): string[] => windowRuns(ctx).map((r) => r.display_name);
export const measurements = (ctx: MetricContext) =>
  windowRuns(ctx).map((r) => ({ id: r.id, label: r.display_name }));

/** Change against the previous published run (0 for the first run), whatever the window. */
export function delta(ctx: MetricContext, value: (i: number) => number, decimals: number): number {
  return ctx.end === 0 ? 0 : round(value(ctx.end) - value(ctx.end - 1), decimals);
}

export function metricCard(ctx: MetricContext, value: (i: number) => number, decimals = 1) {
  return {
    current: value(ctx.end),
    delta: delta(ctx, value, decimals),
    history: windowIndices(ctx).map(value),
  };
}

export function seriesCard(ctx: MetricContext, value: (i: number) => number, decimals = 1) {
  return { ...metricCard(ctx, value, decimals), historyLabels: historyLabels(ctx) };
}

export const setEngines = (ctx: MetricContext): EngineDef[] => ctx.set.def.engineIds.map(engineById);

export const engineRef = (e: EngineDef) => ({ id: e.id, label: e.name, color: e.color });
export const engineWithImage = (e: EngineDef) => ({
  id: e.id,
  label: e.name,
  image: engineImage(e),
  color: e.color,
});

export const intentFull = (i: IntentDef) => ({ id: i.id, label: i.label, stage: i.stage, icv: i.icv });

/** Maps keyed by engine or intent id use the id rendered as a string key. */
export function byId<T extends { id: number }, V>(
  items: readonly T[],
  value: (item: T) => V,
): Record<string, V> {
  const out: Record<string, V> = {};
  for (const item of items) out[String(item.id)] = value(item);
  return out;
}
