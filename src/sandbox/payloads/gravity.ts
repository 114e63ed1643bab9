import { isOpen } from '../dataset/error-register.js';
import { round } from '../rng.js';
import {
  byId,
  engineAt,
  engineWithImage,
  figures,
  historyLabels,
  type MetricContext,
  type MetricHandler,
  measurements,
  seriesCard,
  setEngines,
  windowIndices,
} from './context.js';

const openCount = (ctx: MetricContext, i: number) => ctx.set.errors.filter((e) => isOpen(e, i)).length;

export const gravityHandlers: Record<string, MetricHandler> = {
  'gravity-plus': (ctx) => seriesCard(ctx, (i) => figures(ctx, i).overall.gravityPlus),
  'gravity-minus': (ctx) => seriesCard(ctx, (i) => figures(ctx, i).overall.gravityMinus),
  'open-errors': (ctx) => {
    const count = openCount(ctx, ctx.end);
    return {
      count,
      delta: ctx.end === 0 ? 0 : count - openCount(ctx, ctx.end - 1),
      // The baseline is the first run of the window.
      resolvedSinceBaseline: ctx.set.errors.filter(
        (e) => e.resolvedAt !== undefined && e.resolvedAt > ctx.start && e.resolvedAt <= ctx.end,
      ).length,
      history: windowIndices(ctx).map((i) => openCount(ctx, i)),
      historyLabels: historyLabels(ctx),
    };
  },
  'source-distribution': (ctx) => figures(ctx, ctx.end).sourceDistribution,
  'by-engine': (ctx) => {
    const engines = setEngines(ctx);
    return {
      engines: engines.map(engineWithImage),
      gravityByEngine: byId(engines, (e) => {
        const { gravityPlus: plus, gravityMinus: minus } = engineAt(ctx, ctx.end, e.id);
        // The same measure twice, once as a fraction and once as a percent, as real payloads do.
        return {
          gPlus: round(plus / 100, 3),
          gMinus: round(minus / 100, 3),
          gravityPlus: plus,
          gravityMinus: minus,
        };
      }),
    };
  },
  'error-register': (ctx) => ({
    engines: setEngines(ctx).map(engineWithImage),
    gravityErrors: ctx.set.errors
      .filter((e) => isOpen(e, ctx.end))
      .map((e) => ({ id: e.id, title: e.title, correct: e.correct, note: e.note, wrong: e.wrong })),
  }),
  trend: (ctx) => ({
    historyPlus: windowIndices(ctx).map((i) => figures(ctx, i).overall.gravityPlus),
    historyMinus: windowIndices(ctx).map((i) => figures(ctx, i).overall.gravityMinus),
    measurements: measurements(ctx),
  }),
  'source-distribution-history': (ctx) => {
    const dist = windowIndices(ctx).map((i) => figures(ctx, i).sourceDistribution);
    return {
      measurements: historyLabels(ctx),
      series: {
        owned: dist.map((d) => d.owned),
        partner: dist.map((d) => d.partner),
        external: dist.map((d) => d.external),
      },
    };
  },
};
