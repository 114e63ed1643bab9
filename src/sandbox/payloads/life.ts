import * as m from '../dataset/metrics.js';
import { round } from '../rng.js';
import {
  byId,
  delta,
  engineWithImage,
  historyLabels,
  intentFull,
  type MetricContext,
  type MetricHandler,
  seriesCard,
  setEngines,
  windowIndices,
} from './context.js';

/** Compact stance: the same fractions as a stance set, under the short names. */
function compact(s: m.Stance) {
  return { rec: s.recommended, adv: s.advisedNotFavored, neu: s.neutral, cau: s.cautious, neg: s.negative };
}

/** Stance shares as percents (the share cards) while stance-mix sends the same numbers as fractions. */
const stancePercent = (ctx: MetricContext, key: keyof m.Stance) => (i: number) =>
  round(m.stance(ctx.set.def, i)[key] * 100, 1);

const intentPresence = (ctx: MetricContext, intentId: number, i: number) =>
  m.scopedPresence(ctx.set.def, i, `intent:${intentId}`).weighted;

export const lifeHandlers: Record<string, MetricHandler> = {
  kpi: (ctx) => seriesCard(ctx, (i) => m.lifeScore(ctx.set.def, i)),
  'recommended-share': (ctx) => seriesCard(ctx, stancePercent(ctx, 'recommended')),
  'neutral-share': (ctx) => seriesCard(ctx, stancePercent(ctx, 'neutral')),
  'negative-share': (ctx) => seriesCard(ctx, stancePercent(ctx, 'negative')),
  'positive-negative-ratio': (ctx) => seriesCard(ctx, (i) => m.positiveNegativeRatio(ctx.set.def, i), 2),
  'stance-mix': (ctx) => ({
    ...m.stance(ctx.set.def, ctx.end),
    engineCount: ctx.set.def.engineIds.length,
    prev: m.stance(ctx.set.def, Math.max(0, ctx.end - 1)),
  }),
  'stance-history': (ctx) => {
    const mixes = windowIndices(ctx).map((i) => m.stance(ctx.set.def, i));
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
    return {
      intents: intents.map(intentFull),
      presenceByIntent: byId(intents, (it) => ({ weighted: intentPresence(ctx, it.id, ctx.end) })),
      lifeByIntent: byId(intents, (it) => ({ life: m.lifeScore(ctx.set.def, ctx.end, `intent:${it.id}`) })),
      weightedPresenceCurrent: m.weightedPresence(ctx.set.def, ctx.end),
      lifeCurrent: m.lifeScore(ctx.set.def, ctx.end),
    };
  },
  'by-engine': (ctx) => {
    const engines = setEngines(ctx);
    return {
      engines: engines.map(engineWithImage),
      lifeByEngine: byId(engines, (e) => {
        const scope = `engine:${e.id}`;
        return {
          life: m.lifeScore(ctx.set.def, ctx.end, scope),
          delta: delta(ctx, (i) => m.lifeScore(ctx.set.def, i, scope), 1),
          stance: compact(m.stance(ctx.set.def, ctx.end, scope)),
        };
      }),
    };
  },
  'by-intent': (ctx) => {
    const intents = ctx.set.def.intents;
    return {
      intents: intents.map(intentFull),
      lifeByIntent: byId(intents, (it) => {
        const scope = `intent:${it.id}`;
        return {
          life: m.lifeScore(ctx.set.def, ctx.end, scope),
          delta: delta(ctx, (i) => m.lifeScore(ctx.set.def, i, scope), 1),
          presence: intentPresence(ctx, it.id, ctx.end),
          stance: compact(m.stance(ctx.set.def, ctx.end, scope)),
        };
      }),
    };
  },
};
