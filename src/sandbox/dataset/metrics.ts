import { apportion, clamp, round, unit } from '../rng.js';
import type { QuerySetDef } from './catalog.js';
import { count, fraction, percent, walk } from './walk.js';

/**
 * Metric values per query set and run index. The spec does not say which fields are percents and
 * which are fractions, and real payloads mix both, so the sandbox mixes them on purpose — the report's
 * format.ts has to pick a rule per field. The scale of every numeric field the sandbox sends:
 *
 * | Field(s)                                                              | Scale                      |
 * |-----------------------------------------------------------------------|----------------------------|
 * | presence.gross / presence.weighted current, delta, history            | percent 0..100 (42.7)      |
 * | presence.weighted fairShare, dStar                                    | fraction 0..1              |
 * | presence.position-distribution p1..p4plus (+ prev)                    | fraction 0..1, sum 1       |
 * | presence.position-distribution-by-engine p1..p4plus (engines, totals) | fraction 0..1              |
 * | presence.by-engine weighted/gross/delta, by-intent weighted/gross/Δ   | percent 0..100             |
 * | presence.engine-intent-matrix cells                                   | percent 0..100             |
 * | overview.competitive-context dStar, fairShare, shares[].share         | fraction 0..1, shares sum 1|
 * | life.kpi, life by-engine/by-intent `life`, scatter lifeByIntent       | score 0..100               |
 * | life.recommended-share / neutral-share / negative-share               | percent 0..100             |
 * | life.positive-negative-ratio                                          | ratio (e.g. 4.35 = 4.35:1) |
 * | life.stance-mix (+ prev), stance-history series, compact stances      | fraction 0..1, sum 1       |
 * | life.by-intent presence, scatter presenceByIntent, weightedPresenceCurrent | percent 0..100        |
 * | gravity.gravity-plus / gravity-minus, by-engine gravityPlus/Minus     | percent 0..100             |
 * | gravity.by-engine gPlus / gMinus                                      | fraction 0..1              |
 * | gravity.open-errors count, delta, resolvedSinceBaseline, history      | integer counts             |
 * | gravity.source-distribution (+ history)                               | percent 0..100, sum 100    |
 * | scout.* counts (citations, engines, domains, urls, delta)             | integer counts             |
 * | scout.references-by-llm / references-by-intent weighted              | percent 0..100             |
 * | market.data dStar                                                     | fraction 0..1              |
 * | market.data tBar                                                      | mean brands per answer (2.6)|
 * | market.data totalResponses / responsesWith(out)Brands / uniqueBrands  | integer counts             |
 * | market.data weightedPresence fairShare, fairShareMetric               | fraction 0..1              |
 * | market.life-monitored-competitors shares[].share                      | fraction 0..1, sum 1       |
 */

type Set = Pick<QuerySetDef, 'id' | 'engineIds' | 'intents' | 'queriesCount' | 'competitors'>;

export const grossPresence = (set: Set, i: number) => walk([set.id, 'gross'], i, percent(38, 48, 0.6, 2.2));
export const weightedPresence = (set: Set, i: number) =>
  walk([set.id, 'weighted'], i, percent(29, 39, 0.5, 1.8));

/** Fair share: one over the number of brands the market sees; stable but not constant. */
export const fairShare = (set: Set, i: number) =>
  round(1 / (set.competitors.length + 3 + Math.round(unit(set.id, 'brands', Math.floor(i / 4)) * 2)), 3);
export const dStar = (set: Set, i: number) => walk([set.id, 'dstar'], i, fraction(0.18, 0.32, 0.003, 0.02));

export function positions(set: Set, i: number, engineId = 0) {
  const w = [
    walk([set.id, 'p1', engineId], i, fraction(0.3, 0.42)),
    walk([set.id, 'p2', engineId], i, fraction(0.2, 0.28)),
    walk([set.id, 'p3', engineId], i, fraction(0.12, 0.18)),
    walk([set.id, 'p4', engineId], i, fraction(0.15, 0.25)),
  ];
  const [p1 = 0, p2 = 0, p3 = 0, p4plus = 0] = apportion(w, 1, 3);
  return { p1, p2, p3, p4plus };
}

/** How often the brand was cited by one engine in a run. */
export const timesCited = (set: Set, engineId: number, i: number) =>
  walk([set.id, 'cited', engineId], i, count(set.queriesCount * 0.3, set.queriesCount * 0.6, 2, 9));

/** Answers in a run: every query asked once per engine, minus a few failed answers. */
export const totalAll = (set: Set, i: number) =>
  set.queriesCount * set.engineIds.length - Math.floor(unit(set.id, 'failed', i) * 12);

export interface Stance {
  recommended: number;
  advisedNotFavored: number;
  neutral: number;
  cautious: number;
  negative: number;
}

/** Stance mix as fractions summing to 1; `scope` narrows it to an engine or intent. */
export function stance(set: Set, i: number, scope: string | number = 'all'): Stance {
  const w = [
    walk([set.id, 'rec', scope], i, fraction(0.3, 0.4, 0.004, 0.02)),
    walk([set.id, 'adv', scope], i, fraction(0.15, 0.22)),
    walk([set.id, 'neu', scope], i, fraction(0.25, 0.33)),
    walk([set.id, 'cau', scope], i, fraction(0.06, 0.1, 0.001, 0.01)),
    walk([set.id, 'neg', scope], i, fraction(0.03, 0.07, 0.001, 0.008)),
  ];
  const [recommended = 0, advisedNotFavored = 0, neutral = 0, cautious = 0, negative = 0] = apportion(
    w,
    1,
    3,
  );
  return { recommended, advisedNotFavored, neutral, cautious, negative };
}

/** Life: a 0..100 score of how favourably the engines speak of the brand. */
export function lifeScore(set: Set, i: number, scope: string | number = 'all'): number {
  const s = stance(set, i, scope);
  const raw = 100 * (s.recommended + 0.6 * s.advisedNotFavored + 0.35 * s.neutral - 0.5 * s.negative);
  return round(clamp(raw, 0, 100), 1);
}

export const positiveNegativeRatio = (set: Set, i: number) => {
  const s = stance(set, i);
  return round((s.recommended + s.advisedNotFavored) / Math.max(0.001, s.cautious + s.negative), 2);
};

export const gravityPlus = (set: Set, i: number, scope: string | number = 'all') =>
  walk([set.id, 'g+', scope], i, percent(20, 34, 0.4, 1.6));
export const gravityMinus = (set: Set, i: number, scope: string | number = 'all') =>
  walk([set.id, 'g-', scope], i, percent(5, 12, -0.2, 1.1));

/** Where cited sources sit: owned/partner/external percents summing to 100. */
export function sourceDistribution(set: Set, i: number) {
  const w = [
    walk([set.id, 'owned'], i, percent(14, 22, 0.3, 1.2)),
    walk([set.id, 'partner'], i, percent(8, 13, 0.1, 0.8)),
    walk([set.id, 'external'], i, percent(62, 72, -0.3, 1.5)),
  ];
  const [owned = 0, partner = 0, external = 0] = apportion(w, 100, 1);
  return { owned, partner, external };
}

export function market(set: Set, i: number) {
  const total = totalAll(set, i);
  const withBrands = Math.round(total * walk([set.id, 'withBrands'], i, fraction(0.74, 0.84, 0.003, 0.01)));
  return {
    dStar: dStar(set, i),
    tBar: walk([set.id, 'tbar'], i, {
      lo: 2.3,
      hi: 3.1,
      drift: 0.02,
      step: 0.08,
      min: 1,
      max: 6,
      decimals: 2,
    }),
    totalResponses: total,
    responsesWithBrands: withBrands,
    responsesWithoutBrands: total - withBrands,
    uniqueBrands: walk([set.id, 'uniqueBrands'], i, count(18, 26, 0.3, 1.5)),
  };
}

/** Presence of the brand for one engine or intent, in percent, gross above weighted. */
export function scopedPresence(set: Set, i: number, scope: string) {
  const weighted = walk([set.id, 'pw', scope], i, percent(18, 55, 0.5, 2.5));
  const gross = round(clamp(weighted + walk([set.id, 'pg', scope], i, percent(4, 12, 0, 1)), 0, 100), 1);
  return { weighted, gross };
}

export const matrixCell = (set: Set, i: number, engineId: number, intentId: number) =>
  walk([set.id, 'matrix', engineId, intentId], i, percent(8, 70, 0.5, 3));

/** Share of citations pointing at an engine's answers, percent. */
export const referencesWeighted = (set: Set, i: number, scope: string) =>
  walk([set.id, 'refs', scope], i, percent(12, 48, 0.3, 2));
