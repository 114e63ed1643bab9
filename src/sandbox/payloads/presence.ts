import * as m from '../dataset/metrics.js';
import { answersAt, grossAt, presenceDrop } from '../dataset.js';
import { round } from '../rng.js';
import {
  byId,
  delta,
  engineRef,
  engineWithImage,
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

/** A presence value after the movements published so far (never below 0). */
function dropped(value: number, ctx: MetricContext, i: number): number {
  const drop = presenceDrop(ctx.set, i);
  return drop === 0 ? value : Math.max(0, round(value - drop, 1));
}

function positionsByEngine(ctx: MetricContext) {
  const def = ctx.set.def;
  const engines = setEngines(ctx).map((e) => {
    const cited = m.timesCited(def, e.id, ctx.end);
    return {
      ...engineRef(e),
      timesCited: cited,
      ...m.positions(def, ctx.end, e.id),
      deltaTimesCited: ctx.end === 0 ? 0 : cited - m.timesCited(def, e.id, ctx.end - 1),
    };
  });
  const total = engines.reduce((sum, e) => sum + e.timesCited, 0);
  // Totals are citation-weighted averages of the engines' position fractions.
  const avg = (k: 'p1' | 'p2' | 'p3' | 'p4plus') =>
    round(engines.reduce((sum, e) => sum + e[k] * e.timesCited, 0) / Math.max(1, total), 3);
  return {
    engines,
    totals: {
      timesCited: total,
      p1: avg('p1'),
      p2: avg('p2'),
      p3: avg('p3'),
      p4plus: avg('p4plus'),
      deltaTimesCited: engines.reduce((sum, e) => sum + e.deltaTimesCited, 0),
    },
  };
}

export const presenceHandlers: Record<string, MetricHandler> = {
  gross: (ctx) => seriesCard(ctx, (i) => grossAt(ctx.set, i)),
  weighted: (ctx) => {
    const def = ctx.set.def;
    const card = seriesCard(ctx, (i) => dropped(m.weightedPresence(def, i), ctx, i));
    const fairShare = m.fairShare(def, ctx.end);
    return {
      ...card,
      fairShare,
      dStar: m.dStar(def, ctx.end),
      classification: classification(card.current, fairShare),
    };
  },
  'position-distribution': (ctx) => {
    const def = ctx.set.def;
    const all = answersAt(ctx.set, ctx.end);
    // Unpinned runs keep the walk's share (as before movements existed); a pinned run its own.
    const share = ctx.set.pins.get(ctx.end)?.gross ?? m.grossPresence(def, ctx.end);
    const answers = Math.round(all * (share / 100));
    return {
      ...m.positions(def, ctx.end),
      totalAnswers: answers,
      totalAll: all,
      prev: m.positions(def, Math.max(0, ctx.end - 1)),
    };
  },
  'position-distribution-by-engine': positionsByEngine,
  'by-engine': (ctx) => {
    const engines = setEngines(ctx);
    return {
      engines: engines.map(engineWithImage),
      presenceByEngine: byId(engines, (e) => {
        const scope = `engine:${e.id}`;
        return {
          ...m.scopedPresence(ctx.set.def, ctx.end, scope),
          delta: delta(ctx, (i) => m.scopedPresence(ctx.set.def, i, scope).weighted, 1),
        };
      }),
    };
  },
  'by-intent': (ctx) => {
    const intents = ctx.set.def.intents;
    return {
      intents: intents.map(intentFull),
      presenceByIntent: byId(intents, (it) => {
        const scope = `intent:${it.id}`;
        const at = (i: number) => m.scopedPresence(ctx.set.def, i, scope);
        return {
          ...at(ctx.end),
          deltaW: delta(ctx, (i) => at(i).weighted, 1),
          deltaG: delta(ctx, (i) => at(i).gross, 1),
        };
      }),
    };
  },
  'engine-intent-matrix': (ctx) => {
    const engines = setEngines(ctx);
    const intents = ctx.set.def.intents;
    return {
      engines: engines.map(engineWithImage),
      intents: intents.map((it) => ({ id: it.id, label: it.label })),
      engineIntentMatrix: byId(engines, (e) =>
        byId(intents, (it) => m.matrixCell(ctx.set.def, ctx.end, e.id, it.id)),
      ),
    };
  },
};
