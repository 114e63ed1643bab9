import type { SourceFigures } from '../answers/figures.js';
import {
  byId,
  engineAt,
  engineRef,
  figures,
  historyLabels,
  intentAt,
  type MetricContext,
  type MetricHandler,
  setEngines,
  windowIndices,
} from './context.js';

/** The landscape never lists more than this unless the client asks with `limit`. */
export const DEFAULT_LANDSCAPE_LIMIT = 10;

const landscapeAt = (ctx: MetricContext, i: number) => figures(ctx, i).sources;

function landscapeStatsAt(ctx: MetricContext, i: number) {
  const cited = landscapeAt(ctx, i);
  return {
    domains: cited.length,
    urls: cited.reduce((sum, s) => sum + s.urls, 0),
    multi: cited.filter((s) => s.engines >= 2).length,
  };
}

/** A cited domain's row; its delta is against the previous run (0 citations if it was not cited). */
function sourceRow(ctx: MetricContext, source: SourceFigures) {
  const before =
    ctx.end === 0
      ? source.citations
      : (landscapeAt(ctx, ctx.end - 1).find((s) => s.def === source.def)?.citations ?? 0);
  return {
    name: source.def.name,
    citations: source.citations,
    engines: source.engines,
    control: source.def.control,
    sourceType: source.def.sourceType,
    delta: source.citations - before,
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
    .map((s) => sourceRow(ctx, s))
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
  const now = figures(ctx, ctx.end);
  // The brand's series is its timesCited per engine; a competitor's, the answers naming it.
  const series: Record<string, number[]> = {
    brand: engines.map((e) => now.engines.get(e.id)!.named),
  };
  for (const c of monitored) {
    const k = ctx.set.competitors.indexOf(c);
    series[`comp_${c.id}`] = engines.map((e) => now.competitorMentions.get(e.id)![k] ?? 0);
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
      dataByEngine: byId(engines, (e) => ({ weighted: engineAt(ctx, ctx.end, e.id).references })),
    };
  },
  'references-by-intent': (ctx) => {
    const intents = ctx.set.def.intents;
    return {
      intents: intents.map((it) => ({ id: it.id, label: it.label, stage: it.stage })),
      presenceByIntent: byId(intents, (it) => ({ weighted: intentAt(ctx, ctx.end, it.id).references })),
    };
  },
  'citation-occurrences': citationOccurrences,
};
