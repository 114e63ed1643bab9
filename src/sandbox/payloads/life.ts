import type { ScopeFigures, Stance } from '../answers/figures.js';
import { round } from '../rng.js';
import {
  byId,
  delta,
  engineAt,
  engineWithImage,
  figures,
  historyLabels,
  intentAt,
  intentFull,
  type MetricContext,
  type MetricHandler,
  seriesCard,
  setEngines,
  windowIndices,
} from './context.js';

/** Compact stance: the same fractions as a stance set, under the short names. */
function compact(s: Stance) {
  return { rec: s.recommended, adv: s.advisedNotFavored, neu: s.neutral, cau: s.cautious, neg: s.negative };
}

/** Stance shares as percents (the share cards) of the very fractions stance-mix sends. */
const stancePercent = (ctx: MetricContext, key: keyof Stance) => (i: number) =>
  round(figures(ctx, i).overall.stance[key] * 100, 1);

/** A breakdown member's life, its change against the previous run, and its stance mix. */
const lifeOf = (ctx: MetricContext, at: (i: number) => ScopeFigures) => ({
  life: at(ctx.end).life,
  delta: delta(ctx, (i) => at(i).life, 1),
  stance: compact(at(ctx.end).stance),
});

export const lifeHandlers: Record<string, MetricHandler> = {
  kpi: (ctx) => seriesCard(ctx, (i) => figures(ctx, i).overall.life),
  'recommended-share': (ctx) => seriesCard(ctx, stancePercent(ctx, 'recommended')),
  'neutral-share': (ctx) => seriesCard(ctx, stancePercent(ctx, 'neutral')),
  'negative-share': (ctx) => seriesCard(ctx, stancePercent(ctx, 'negative')),
  'positive-negative-ratio': (ctx) => seriesCard(ctx, (i) => figures(ctx, i).positiveNegativeRatio, 2),
  'stance-mix': (ctx) => ({
    ...figures(ctx, ctx.end).overall.stance,
    engineCount: ctx.set.def.engineIds.length,
    prev: figures(ctx, Math.max(0, ctx.end - 1)).overall.stance,
  }),
  'stance-history': (ctx) => {
    const mixes = windowIndices(ctx).map((i) => figures(ctx, i).overall.stance);
    return {
      measurements: historyLabels(ctx),
      series: {
        recommended: mixes.map((s) => s.recommended),
        advisedNotFavored: mixes.map((s) => s.advisedNotFavored),
        neutral: mixes.map((s) => s.neutral),
        cautious: mixes.map((s) => s.cautious),
        negative: mixes.map((s) => s.negative),
      },
    };
  },
  scatter: (ctx) => {
    const intents = ctx.set.def.intents;
    const now = figures(ctx, ctx.end);
    return {
      intents: intents.map(intentFull),
      presenceByIntent: byId(intents, (it) => ({ weighted: now.intents.get(it.id)!.weighted })),
      lifeByIntent: byId(intents, (it) => ({ life: now.intents.get(it.id)!.life })),
      weightedPresenceCurrent: now.overall.weighted,
      lifeCurrent: now.overall.life,
    };
  },
  'by-engine': (ctx) => {
    const engines = setEngines(ctx);
    return {
      engines: engines.map(engineWithImage),
      lifeByEngine: byId(engines, (e) => lifeOf(ctx, (i) => engineAt(ctx, i, e.id))),
    };
  },
  'by-intent': (ctx) => {
    const intents = ctx.set.def.intents;
    return {
      intents: intents.map(intentFull),
      lifeByIntent: byId(intents, (it) => {
        const { life, delta: change, stance } = lifeOf(ctx, (i) => intentAt(ctx, i, it.id));
        return { life, delta: change, presence: intentAt(ctx, ctx.end, it.id).weighted, stance };
      }),
    };
  },
};
