import { mixScale, ruleFor } from '../../api/field-units.js';
import * as schema from '../../api/schemas/gravity.js';
import { t } from '../../locale/locale.js';
import { formatDelta, formatValue, polarityOf, toPercentPoints } from '../format.js';
import {
  byId,
  type Cell,
  cell,
  comparedDelta,
  type EngineLabel,
  engineLabel,
  type KpiView,
  seriesKpi,
} from './common.js';
import type { Available, PayloadReader } from './payloads.js';
import type { ReportSnapshot } from './snapshot.js';

export const SOURCE_KINDS = [
  { key: 'owned', labelKey: 'source.owned', color: '#1F4E79' },
  { key: 'partner', labelKey: 'source.partner', color: '#4F8FC0' },
  { key: 'external', labelKey: 'source.external', color: '#B8C0CC' },
] as const;

export interface GravityModel {
  plus: Available<{ kpi: KpiView }>;
  minus: Available<{ kpi: KpiView }>;
  openErrors: Available<{ kpi: KpiView; resolved: string }>;
  sources: Available<{ parts: (Cell & { label: string; color: string })[] }>;
  sourcesHistory: Available<{ measurements: string[]; series: number[][] }>;
  byEngine: Available<{
    rows: { engine: EngineLabel; gPlus: string; gMinus: string; gravityPlus: Cell; gravityMinus: Cell }[];
  }>;
  errors: Available<{
    /** Every engine of the register, for the legend. */
    engines: EngineLabel[];
    items: {
      id: string;
      title: string;
      correct: string;
      note: string | null;
      wrong: { engine: EngineLabel; text: string }[];
    }[];
  }>;
  trend: Available<{ labels: string[]; plus: number[]; minus: number[] }>;
}

export function buildGravity(reader: PayloadReader, history: readonly ReportSnapshot[]): GravityModel {
  return {
    plus: seriesKpi(reader, 'gravity.gravity-plus', t('endpoint.gravity.gravity-plus'), history),
    minus: seriesKpi(reader, 'gravity.gravity-minus', t('endpoint.gravity.gravity-minus'), history),
    openErrors: buildOpenErrors(reader),
    sources: buildSources(reader),
    sourcesHistory: buildSourcesHistory(reader),
    byEngine: buildByEngine(reader),
    errors: buildErrors(reader),
    trend: buildTrend(reader),
  };
}

function buildOpenErrors(reader: PayloadReader): GravityModel['openErrors'] {
  const key = 'gravity.open-errors';
  const result = reader.read(key, schema.openErrors);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const data = result.data;
  const rule = ruleFor(key);
  const resolved = formatValue(data.resolvedSinceBaseline, rule);
  const against = comparedDelta(reader, data.count, data.delta, (past) => {
    const parsed = schema.openErrors.safeParse(past.payloads[key]?.data);
    return parsed.success ? parsed.data.count : undefined;
  });
  return {
    available: true,
    resolved,
    kpi: {
      key,
      label: t('endpoint.gravity.open-errors'),
      value: formatValue(data.count, rule),
      delta: formatDelta(against.delta, rule, polarityOf(key)),
      ...(against.versus ? { versus: against.versus } : {}),
      history: data.history,
      historyLabels: data.historyLabels,
      polarity: polarityOf(key),
      caption: t('kpi.resolved', { count: resolved }),
    },
  };
}

function buildSources(reader: PayloadReader): GravityModel['sources'] {
  const key = 'gravity.source-distribution';
  const result = reader.read(key, schema.sourceDistribution);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const values = SOURCE_KINDS.map((kind) => result.data[kind.key]);
  const scale = mixScale(values);
  return {
    available: true,
    parts: SOURCE_KINDS.map((kind, i) => ({
      label: t(kind.labelKey),
      color: kind.color,
      ...cell(values[i], ruleFor(key), scale),
    })),
  };
}

function buildSourcesHistory(reader: PayloadReader): GravityModel['sourcesHistory'] {
  const key = 'gravity.source-distribution-history';
  const result = reader.read(key, schema.sourceDistributionHistory);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const { measurements, series } = result.data;
  if (measurements.length === 0) return reader.unavailable(key, t('reason.noMeasurements'));
  const rule = ruleFor(key);
  const columns = measurements.map((_, i) => {
    const parts = SOURCE_KINDS.map((kind) => series[kind.key][i] ?? 0);
    const scale = mixScale(parts);
    return parts.map((part) => toPercentPoints(part, rule, scale));
  });
  return {
    available: true,
    measurements,
    series: SOURCE_KINDS.map((_, k) => columns.map((column) => column[k] ?? 0)),
  };
}

function buildByEngine(reader: PayloadReader): GravityModel['byEngine'] {
  const key = 'gravity.by-engine';
  const result = reader.read(key, schema.byEngine);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const rows = result.data.engines.flatMap((engine) => {
    const values = byId(result.data.gravityByEngine, engine.id);
    if (!values) return [];
    return [
      {
        engine: engineLabel(engine),
        gPlus: formatValue(values.gPlus, ruleFor(key, 'gPlus')),
        gMinus: formatValue(values.gMinus, ruleFor(key, 'gMinus')),
        gravityPlus: cell(values.gravityPlus, ruleFor(key, 'gravityPlus')),
        gravityMinus: cell(values.gravityMinus, ruleFor(key, 'gravityMinus')),
      },
    ];
  });
  if (rows.length === 0) return reader.unavailable(key, t('reason.noEngineValues'));
  return { available: true, rows };
}

function buildErrors(reader: PayloadReader): GravityModel['errors'] {
  const key = 'gravity.error-register';
  const result = reader.read(key, schema.errorRegister);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const engines = result.data.engines.map(engineLabel);
  const unknown = (id: number): EngineLabel => ({ id, label: `Engine ${id}`, color: '#8A94A6' });
  return {
    available: true,
    engines,
    items: result.data.gravityErrors.map((error) => ({
      id: error.id,
      title: error.title,
      correct: error.correct,
      note: error.note,
      wrong: error.wrong.map((claim) => ({
        engine: engines.find((engine) => engine.id === claim.engine) ?? unknown(claim.engine),
        text: claim.text,
      })),
    })),
  };
}

function buildTrend(reader: PayloadReader): GravityModel['trend'] {
  const key = 'gravity.trend';
  const result = reader.read(key, schema.trend);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const { historyPlus, historyMinus, measurements } = result.data;
  if (measurements.length === 0) return reader.unavailable(key, t('reason.noMeasurements'));
  const rule = ruleFor(key);
  return {
    available: true,
    labels: measurements.map((measurement) => measurement.label),
    plus: historyPlus.map((value) => toPercentPoints(value, rule)),
    minus: historyMinus.map((value) => toPercentPoints(value, rule)),
  };
}
