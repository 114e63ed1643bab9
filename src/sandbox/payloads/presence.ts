import type { ScopeFigures } from '../answers/figures.js';
import {
  byId,
  delta,
  engineAt,
  engineRef,
  engineWithImage,
  figures,
  intentAt,
  intentFull,
  type MetricContext,
  type MetricHandler,
  seriesCard,
  setEngines,
} from './context.js';

function classification(weighted: number, fairShare: number): string {
  const ratio = weighted / 100 / fairShare;
  if (ratio >= 2) return 'leader';
  if (ratio >= 1) return 'above fair share';
  return 'below fair share';
}

/** Per engine, the answers naming the brand and where; the totals are the same counts over all engines. */
function positionsByEngine(ctx: MetricContext) {
  const engines = setEngines(ctx).map((e) => {
    const now = engineAt(ctx, ctx.end, e.id);
    return {
      ...engineRef(e),
      timesCited: now.named,
      ...now.positions,
      deltaTimesCited: ctx.end === 0 ? 0 : now.named - engineAt(ctx, ctx.end - 1, e.id).named,
    };
  });
  const overall = figures(ctx, ctx.end).overall;
  return {
    engines,
    totals: {
      timesCited: overall.named,
      ...overall.positions,
      deltaTimesCited: engines.reduce((sum, e) => sum + e.deltaTimesCited, 0),
    },
  };
}

const presenceOf = (scope: ScopeFigures) => ({ weighted: scope.weighted, gross: scope.gross });

export const presenceHandlers: Record<string, MetricHandler> = {
  gross: (ctx) => seriesCard(ctx, (i) => figures(ctx, i).overall.gross),
  weighted: (ctx) => {
    const card = seriesCard(ctx, (i) => figures(ctx, i).overall.weighted);
    const now = figures(ctx, ctx.end);
    return {
      ...card,
      fairShare: now.fairShare,
      dStar: now.market.dStar,
      classification: classification(card.current, now.fairShare),
    };
  },
  'position-distribution': (ctx) => {
    const now = figures(ctx, ctx.end).overall;
    return {
      ...now.positions,
      totalAnswers: now.named,
      totalAll: now.answers,
      prev: figures(ctx, Math.max(0, ctx.end - 1)).overall.positions,
    };
  },
  'position-distribution-by-engine': positionsByEngine,
  'by-engine': (ctx) => {
    const engines = setEngines(ctx);
    return {
      engines: engines.map(engineWithImage),
      presenceByEngine: byId(engines, (e) => ({
        ...presenceOf(engineAt(ctx, ctx.end, e.id)),
        delta: delta(ctx, (i) => engineAt(ctx, i, e.id).weighted, 1),
      })),
    };
  },
  'by-intent': (ctx) => {
    const intents = ctx.set.def.intents;
    return {
      intents: intents.map(intentFull),
      presenceByIntent: byId(intents, (it) => ({
        ...presenceOf(intentAt(ctx, ctx.end, it.id)),
        deltaW: delta(ctx, (i) => intentAt(ctx, i, it.id).weighted, 1),
        deltaG: delta(ctx, (i) => intentAt(ctx, i, it.id).gross, 1),
      })),
    };
  },
  'engine-intent-matrix': (ctx) => {
    const engines = setEngines(ctx);
    const intents = ctx.set.def.intents;
    const cells = figures(ctx, ctx.end).cells;
    return {
      engines: engines.map(engineWithImage),
      intents: intents.map((it) => ({ id: it.id, label: it.label })),
      engineIntentMatrix: byId(engines, (e) => byId(intents, (it) => cells.get(`${e.id}:${it.id}`)!)),
    };
  },
};
