import { mixScale, ruleFor } from '../../api/field-units.js';
import * as schema from '../../api/schemas/life.js';
import { t } from '../../locale/locale.js';
import type { DeltaView } from '../format.js';
import { formatValue } from '../format.js';
import {
  byId,
  type Cell,
  cell,
  deltaCell,
  type EngineLabel,
  engineLabel,
  type KpiView,
  seriesKpi,
} from './common.js';
import type { Available, PayloadReader } from './payloads.js';
import type { ReportSnapshot } from './snapshot.js';

/** The five stances in the order every chart and table shows them, best first. */
export const STANCES = [
  { key: 'recommended', compact: 'rec', labelKey: 'stance.recommended', color: '#1B7F5B' },
  { key: 'advisedNotFavored', compact: 'adv', labelKey: 'stance.advisedNotFavored', color: '#7BBF9E' },
  { key: 'neutral', compact: 'neu', labelKey: 'stance.neutral', color: '#B8C0CC' },
  { key: 'cautious', compact: 'cau', labelKey: 'stance.cautious', color: '#E8A33D' },
  { key: 'negative', compact: 'neg', labelKey: 'stance.negative', color: '#C8453B' },
] as const;

type StanceKey = (typeof STANCES)[number]['key'];
type CompactKey = (typeof STANCES)[number]['compact'];

export interface StanceRow {
  label: string;
  engine?: EngineLabel;
  stage?: string;
  life: Cell;
  delta: DeltaView;
  presence?: Cell;
  /** Stance parts in percent points, in `STANCES` order. */
  stance: Cell[];
}

export interface LifeModel {
  kpis: Available<{ kpi: KpiView }>[];
  stanceMix: Available<{
    current: Cell[];
    previous: Cell[];
    engineCount: string;
    /** The raw count, for messages whose words depend on it (plural rules). */
    engines: number;
  }>;
  stanceHistory: Available<{ measurements: string[]; series: number[][] }>;
  scatter: Available<{
    points: { label: string; stage: string; icv: number; presence: number; life: number }[];
    presenceCurrent: number;
    lifeCurrent: number;
  }>;
  byEngine: Available<{ rows: StanceRow[] }>;
  byIntent: Available<{ rows: StanceRow[] }>;
}

export function buildLife(reader: PayloadReader, history: readonly ReportSnapshot[]): LifeModel {
  return {
    kpis: [
      seriesKpi(reader, 'life.kpi', t('endpoint.life.kpi'), history),
      seriesKpi(reader, 'life.recommended-share', t('endpoint.life.recommended-share'), history),
      seriesKpi(reader, 'life.neutral-share', t('endpoint.life.neutral-share'), history),
      seriesKpi(reader, 'life.negative-share', t('endpoint.life.negative-share'), history),
      seriesKpi(reader, 'life.positive-negative-ratio', t('kpi.posNegRatio'), history),
    ],
    stanceMix: buildStanceMix(reader),
    stanceHistory: buildStanceHistory(reader),
    scatter: buildScatter(reader),
    byEngine: buildByEngine(reader),
    byIntent: buildByIntent(reader),
  };
}

function stanceCells(set: Record<StanceKey, number>, key: string): Cell[] {
  const values = STANCES.map((stance) => set[stance.key]);
  const scale = mixScale(values);
  return values.map((value) => cell(value, ruleFor(key), scale));
}

function compactCells(set: Record<CompactKey, number>, key: string): Cell[] {
  const values = STANCES.map((stance) => set[stance.compact]);
  const scale = mixScale(values);
  return values.map((value) => cell(value, ruleFor(key, 'stance'), scale));
}

function buildStanceMix(reader: PayloadReader): LifeModel['stanceMix'] {
  const key = 'life.stance-mix';
  const result = reader.read(key, schema.stanceMix);
  if (!result.ok) return reader.unavailable(key, result.reason);
  return {
    available: true,
    current: stanceCells(result.data, key),
    previous: stanceCells(result.data.prev, key),
    engineCount: formatValue(result.data.engineCount, ruleFor(key, 'engineCount')),
    engines: result.data.engineCount,
  };
}

function buildStanceHistory(reader: PayloadReader): LifeModel['stanceHistory'] {
  const key = 'life.stance-history';
  const result = reader.read(key, schema.stanceHistory);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const { measurements, series } = result.data;
  if (measurements.length === 0) return reader.unavailable(key, t('reason.noMeasurements'));
  // Each measurement is one whole split across stances: its scale is decided per column.
  const columns = measurements.map((_, i) =>
    STANCES.map(
      (stance) =>
        cell(series[stance.key][i], ruleFor(key), mixScale(STANCES.map((s) => series[s.key][i] ?? 0)))
          .value ?? 0,
    ),
  );
  return {
    available: true,
    measurements,
    series: STANCES.map((_, s) => columns.map((column) => column[s] ?? 0)),
  };
}

function buildScatter(reader: PayloadReader): LifeModel['scatter'] {
  const key = 'life.scatter';
  const result = reader.read(key, schema.scatter);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const rule = ruleFor(key);
  const data = result.data;
  const points = data.intents.flatMap((intent) => {
    const presence = byId(data.presenceByIntent, intent.id)?.weighted;
    const life = byId(data.lifeByIntent, intent.id)?.life;
    if (presence === undefined || life === undefined) return [];
    return [
      {
        label: intent.label,
        stage: intent.stage,
        icv: intent.icv,
        presence: cell(presence, rule).value ?? 0,
        life: cell(life, rule).value ?? 0,
      },
    ];
  });
  if (points.length === 0) return reader.unavailable(key, t('reason.noIntentBoth'));
  return {
    available: true,
    points,
    presenceCurrent: cell(data.weightedPresenceCurrent, rule).value ?? 0,
    lifeCurrent: cell(data.lifeCurrent, rule).value ?? 0,
  };
}

function buildByEngine(reader: PayloadReader): LifeModel['byEngine'] {
  const key = 'life.by-engine';
  const result = reader.read(key, schema.byEngine);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const rows = result.data.engines.flatMap((engine): StanceRow[] => {
    const values = byId(result.data.lifeByEngine, engine.id);
    if (!values) return [];
    return [
      {
        label: engine.label,
        engine: engineLabel(engine),
        life: cell(values.life, ruleFor(key)),
        delta: deltaCell(key, undefined, values.delta),
        stance: compactCells(values.stance, key),
      },
    ];
  });
  if (rows.length === 0) return reader.unavailable(key, t('reason.noEngineValues'));
  return { available: true, rows };
}

function buildByIntent(reader: PayloadReader): LifeModel['byIntent'] {
  const key = 'life.by-intent';
  const result = reader.read(key, schema.byIntent);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const rows = result.data.intents.flatMap((intent): StanceRow[] => {
    const values = byId(result.data.lifeByIntent, intent.id);
    if (!values) return [];
    return [
      {
        label: intent.label,
        stage: intent.stage,
        life: cell(values.life, ruleFor(key)),
        delta: deltaCell(key, undefined, values.delta),
        presence: cell(values.presence, ruleFor(key, 'presence')),
        stance: compactCells(values.stance, key),
      },
    ];
  });
  if (rows.length === 0) return reader.unavailable(key, t('reason.noIntentValues'));
  return { available: true, rows };
}
