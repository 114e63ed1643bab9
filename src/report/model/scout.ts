import { ruleFor } from '../../api/field-units.js';
import * as schema from '../../api/schemas/scout.js';
import { t } from '../../locale/locale.js';
import type { DeltaView } from '../format.js';
import { formatDelta, formatValue, polarityOf } from '../format.js';
import {
  byId,
  type Cell,
  cell,
  deltaCell,
  type EngineLabel,
  engineLabel,
  type KpiView,
  safeColor,
} from './common.js';
import type { Available, PayloadReader } from './payloads.js';

/** How many sources the PDF lists; the workbook has them all. */
export const TOP_SOURCES = 15;

export interface ScoutModel {
  stats: Available<{ kpis: KpiView[] }>;
  sources: Available<{
    rows: {
      name: string;
      citations: string;
      engines: string;
      control: string;
      sourceType: string;
      delta: DeltaView;
    }[];
    totalCount: string;
    engineCount: string;
    /** Raw counts, for messages whose words depend on them (plural rules). */
    engines: number;
    total: number;
    shown: number;
  }>;
  byEngine: Available<{ rows: { engine: EngineLabel; weighted: Cell }[] }>;
  byIntent: Available<{ rows: { label: string; stage: string; weighted: Cell }[] }>;
  citations: Available<{
    engines: string[];
    categories: { key: string; label: string; color: string; values: number[]; isBrand: boolean }[];
  }>;
}

export function buildScout(reader: PayloadReader): ScoutModel {
  return {
    stats: buildStats(reader),
    sources: buildSources(reader),
    byEngine: buildByEngine(reader),
    byIntent: buildByIntent(reader),
    citations: buildCitations(reader),
  };
}

function buildStats(reader: PayloadReader): ScoutModel['stats'] {
  const key = 'scout.landscape-stats';
  const result = reader.read(key, schema.landscapeStats);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const data = result.data;
  const rule = ruleFor(key);
  const polarity = polarityOf(key);
  const kpi = (label: string, value: number, delta: number | null, history: number[]): KpiView => ({
    key,
    label,
    value: formatValue(value, rule),
    delta: formatDelta(delta, rule, polarity),
    history,
    historyLabels: data.historyLabels,
    polarity,
  });
  // The API gives no delta for multi-engine domains; the history's last step stands in when it can.
  const multi = data.multiEngineHistory;
  const multiDelta = multi.length >= 2 ? (multi.at(-1) ?? 0) - (multi.at(-2) ?? 0) : null;
  return {
    available: true,
    kpis: [
      kpi(t('kpi.citedDomains'), data.totalDomains, data.domainsDelta, data.domainsHistory),
      kpi(t('kpi.citedUrls'), data.totalUrls, data.urlsDelta, data.urlsHistory),
      kpi(t('kpi.multiEngineDomains'), data.multiEngineDomains, multiDelta, multi),
    ],
  };
}

function buildSources(reader: PayloadReader): ScoutModel['sources'] {
  const key = 'scout.source-landscape';
  const result = reader.read(key, schema.sourceLandscape);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const rule = ruleFor(key);
  const top = [...result.data.sourcesDetail].sort((a, b) => b.citations - a.citations).slice(0, TOP_SOURCES);
  return {
    available: true,
    rows: top.map((source) => ({
      name: source.name,
      citations: formatValue(source.citations, rule),
      engines: formatValue(source.engines, rule),
      control: source.control,
      sourceType: source.sourceType,
      delta: deltaCell(key, undefined, source.delta),
    })),
    totalCount: formatValue(result.data.totalCount, rule),
    engineCount: formatValue(result.data.engineCount, rule),
    engines: result.data.engineCount,
    total: result.data.totalCount,
    shown: top.length,
  };
}

function buildByEngine(reader: PayloadReader): ScoutModel['byEngine'] {
  const key = 'scout.references-by-llm';
  const result = reader.read(key, schema.referencesByLlm);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const rows = result.data.engines.flatMap((engine) => {
    const values = byId(result.data.dataByEngine, engine.id);
    return values ? [{ engine: engineLabel(engine), weighted: cell(values.weighted, ruleFor(key)) }] : [];
  });
  if (rows.length === 0) return reader.unavailable(key, t('reason.noEngineValues'));
  return { available: true, rows };
}

function buildByIntent(reader: PayloadReader): ScoutModel['byIntent'] {
  const key = 'scout.references-by-intent';
  const result = reader.read(key, schema.referencesByIntent);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const rows = result.data.intents.flatMap((intent) => {
    const values = byId(result.data.presenceByIntent, intent.id);
    return values
      ? [{ label: intent.label, stage: intent.stage, weighted: cell(values.weighted, ruleFor(key)) }]
      : [];
  });
  if (rows.length === 0) return reader.unavailable(key, t('reason.noIntentValues'));
  return { available: true, rows };
}

function buildCitations(reader: PayloadReader): ScoutModel['citations'] {
  const key = 'scout.citation-occurrences';
  const result = reader.read(key, schema.citationOccurrences);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const { engines, categories, series } = result.data;
  if (engines.length === 0 || categories.length === 0)
    return reader.unavailable(key, t('reason.noCitations'));
  return {
    available: true,
    engines,
    categories: categories.map((category) => ({
      key: category.key,
      label: category.label,
      color: safeColor(category.color),
      values: Object.hasOwn(series, category.key) ? (series[category.key] ?? []) : engines.map(() => 0),
      isBrand: category.key === 'brand',
    })),
  };
}
