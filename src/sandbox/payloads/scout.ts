import * as m from '../dataset/metrics.js';
import { citations, enginesCiting, type SourceDef, urlsOf } from '../dataset/sources.js';
import { count, walk } from '../dataset/walk.js';
import {
  byId,
  engineRef,
  historyLabels,
  type MetricContext,
  type MetricHandler,
  setEngines,
  windowIndices,
} from './context.js';

/** The landscape never lists more than this unless the client asks with `limit`. */
export const DEFAULT_LANDSCAPE_LIMIT = 10;

function landscapeAt(ctx: MetricContext, i: number) {
  return ctx.set.sources
    .map((source) => ({ source, citations: citations(ctx.set.def, source, i) }))
    .filter((s) => s.citations > 0);
}

function landscapeStatsAt(ctx: MetricContext, i: number) {
  const cited = landscapeAt(ctx, i);
  return {
    domains: cited.length,
    urls: cited.reduce((sum, s) => sum + urlsOf(ctx.set.def, s.source, i), 0),
    multi: cited.filter((s) => enginesCiting(ctx.set.def, s.source, i) >= 2).length,
  };
}

function sourceRow(ctx: MetricContext, source: SourceDef) {
  const now = citations(ctx.set.def, source, ctx.end);
  const before = ctx.end === 0 ? now : citations(ctx.set.def, source, ctx.end - 1);
  return {
    name: source.name,
    citations: now,
    engines: enginesCiting(ctx.set.def, source, ctx.end),
    control: source.control,
    sourceType: source.sourceType,
    delta: now - before,
  };
}

type Row = ReturnType<typeof sourceRow>;

function sourceLandscape(ctx: MetricContext) {
  // Parameters were validated against the catalog before the handler runs.
  const sort = (ctx.query.get('sort') ?? 'citations') as 'name' | 'citations' | 'engines' | 'delta';
  const sign = ctx.query.get('dir') === 'asc' ? 1 : -1;
  const limit = Number(ctx.query.get('limit') ?? DEFAULT_LANDSCAPE_LIMIT);
  const compare = (a: Row, b: Row) =>
    sort === 'name' ? a.name.localeCompare(b.name) : (a[sort] as number) - (b[sort] as number);
  const rows = landscapeAt(ctx, ctx.end)
    .map((s) => sourceRow(ctx, s.source))
    .sort((a, b) => sign * compare(a, b) || a.name.localeCompare(b.name));
  return {
    sourcesDetail: rows.slice(0, limit),
    totalCount: rows.length,
    engineCount: ctx.set.def.engineIds.length,
  };
}

function citationOccurrences(ctx: MetricContext) {
  const engines = setEngines(ctx);
  const monitored = ctx.set.competitors.filter((c) => c.targeted);
  const categories = [
    { key: 'brand', label: ctx.set.brand.name, color: ctx.set.brand.color },
    ...monitored.map((c) => ({ key: `comp_${c.id}`, label: c.name, color: c.color })),
  ];
  const series: Record<string, number[]> = {
    brand: engines.map((e) => m.timesCited(ctx.set.def, e.id, ctx.end)),
  };
  for (const c of monitored) {
    series[`comp_${c.id}`] = engines.map((e) =>
      walk([ctx.set.def.id, 'compCited', c.id, e.id], ctx.end, count(20, 110 * c.weight * 4, 1, 6)),
    );
  }
  return { engines: engines.map((e) => e.name), categories, series };
}

export const scoutHandlers: Record<string, MetricHandler> = {
  'landscape-stats': (ctx) => {
    const history = windowIndices(ctx).map((i) => landscapeStatsAt(ctx, i));
    const now = landscapeStatsAt(ctx, ctx.end);
    const before = ctx.end === 0 ? now : landscapeStatsAt(ctx, ctx.end - 1);
    return {
      totalDomains: now.domains,
      totalUrls: now.urls,
      multiEngineDomains: now.multi,
      historyLabels: historyLabels(ctx),
      domainsHistory: history.map((h) => h.domains),
      urlsHistory: history.map((h) => h.urls),
      multiEngineHistory: history.map((h) => h.multi),
      domainsDelta: now.domains - before.domains,
      urlsDelta: now.urls - before.urls,
    };
  },
  'source-landscape': sourceLandscape,
  'references-by-llm': (ctx) => {
    const engines = setEngines(ctx);
    return {
      engines: engines.map(engineRef),
      dataByEngine: byId(engines, (e) => ({
        weighted: m.referencesWeighted(ctx.set.def, ctx.end, `engine:${e.id}`),
      })),
    };
  },
  'references-by-intent': (ctx) => {
    const intents = ctx.set.def.intents;
    return {
      intents: intents.map((it) => ({ id: it.id, label: it.label, stage: it.stage })),
      presenceByIntent: byId(intents, (it) => ({
        weighted: m.referencesWeighted(ctx.set.def, ctx.end, `intent:${it.id}`),
      })),
    };
  },
  'citation-occurrences': citationOccurrences,
};
