import { mixScale, ruleFor } from '../../api/field-units.js';
import * as schema from '../../api/schemas/presence.js';
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
import { judgedDelta } from './noise-delta.js';
import type { Available, PayloadReader } from './payloads.js';
import type { ReportSnapshot } from './snapshot.js';

export interface PositionPart {
  label: string;
  current: Cell;
  previous: Cell;
}

export interface PresenceModel {
  gross: Available<{ kpi: KpiView }>;
  weighted: Available<{ kpi: KpiView; fairShare: string; dStar: string; classification: string }>;
  positions: Available<{ parts: PositionPart[]; totalAnswers: string; totalAll: string }>;
  positionsByEngine: Available<{
    rows: { engine: EngineLabel; timesCited: string; deltaTimesCited: DeltaView; parts: Cell[] }[];
    totals: { timesCited: string; deltaTimesCited: DeltaView; parts: Cell[] };
  }>;
  byEngine: Available<{ rows: { engine: EngineLabel; weighted: Cell; gross: Cell; delta: DeltaView }[] }>;
  byIntent: Available<{
    rows: {
      label: string;
      stage: string;
      icv: string;
      weighted: Cell;
      gross: Cell;
      deltaW: DeltaView;
      deltaG: DeltaView;
    }[];
  }>;
  matrix: Available<{
    engines: EngineLabel[];
    intents: { id: number; label: string }[];
    /** values[engine][intent] in percent points; null where the payload has no cell. */
    values: (number | null)[][];
  }>;
}

const POSITION_LABELS = ['#1', '#2', '#3', '#4+'] as const;
const positionValues = (p: { p1: number; p2: number; p3: number; p4plus: number }) => [
  p.p1,
  p.p2,
  p.p3,
  p.p4plus,
];

export function buildPresence(reader: PayloadReader, history: readonly ReportSnapshot[]): PresenceModel {
  return {
    gross: seriesKpi(reader, 'presence.gross', t('endpoint.presence.gross'), history),
    weighted: buildWeighted(reader, history),
    positions: buildPositions(reader),
    positionsByEngine: buildPositionsByEngine(reader),
    byEngine: buildByEngine(reader),
    byIntent: buildByIntent(reader),
    matrix: buildMatrix(reader),
  };
}

function buildWeighted(reader: PayloadReader, history: readonly ReportSnapshot[]): PresenceModel['weighted'] {
  const key = 'presence.weighted';
  const kpi = seriesKpi(reader, key, t('endpoint.presence.weighted'), history);
  if (!kpi.available) return kpi;
  // seriesKpi validated the SeriesCard part; the extra fields need the full schema.
  const result = reader.read(key, schema.weighted);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const fairShare = formatValue(result.data.fairShare, ruleFor(key, 'fairShare'));
  return {
    available: true,
    kpi: { ...kpi.kpi, caption: t('kpi.fairShare', { value: fairShare }) },
    fairShare,
    dStar: formatValue(result.data.dStar, ruleFor(key, 'dStar')),
    classification: result.data.classification,
  };
}

function buildPositions(reader: PayloadReader): PresenceModel['positions'] {
  const key = 'presence.position-distribution';
  const result = reader.read(key, schema.positionDistribution);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const data = result.data;
  const rule = ruleFor(key);
  const now = positionValues(data);
  const before = positionValues(data.prev);
  const scaleNow = mixScale(now);
  const scaleBefore = mixScale(before);
  return {
    available: true,
    parts: POSITION_LABELS.map((label, i) => ({
      label,
      current: cell(now[i], rule, scaleNow),
      previous: cell(before[i], rule, scaleBefore),
    })),
    totalAnswers: formatValue(data.totalAnswers, ruleFor(key, 'totalAnswers')),
    totalAll: formatValue(data.totalAll, ruleFor(key, 'totalAll')),
  };
}

function buildPositionsByEngine(reader: PayloadReader): PresenceModel['positionsByEngine'] {
  const key = 'presence.position-distribution-by-engine';
  const result = reader.read(key, schema.positionDistributionByEngine);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const rule = ruleFor(key);
  const count = ruleFor(key, 'timesCited');
  const row = (p: {
    timesCited: number;
    deltaTimesCited: number;
    p1: number;
    p2: number;
    p3: number;
    p4plus: number;
  }) => {
    const values = positionValues(p);
    const scale = mixScale(values);
    return {
      timesCited: formatValue(p.timesCited, count),
      deltaTimesCited: deltaCell(key, 'deltaTimesCited', p.deltaTimesCited),
      parts: values.map((value) => cell(value, rule, scale)),
    };
  };
  return {
    available: true,
    rows: result.data.engines.map((engine) => ({ engine: engineLabel(engine), ...row(engine) })),
    totals: row(result.data.totals),
  };
}

function buildByEngine(reader: PayloadReader): PresenceModel['byEngine'] {
  const key = 'presence.by-engine';
  const result = reader.read(key, schema.byEngine);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const rule = ruleFor(key);
  const rows = result.data.engines.flatMap((engine) => {
    const values = byId(result.data.presenceByEngine, engine.id);
    if (!values) return [];
    return [
      {
        engine: engineLabel(engine),
        weighted: cell(values.weighted, rule),
        gross: cell(values.gross, rule),
        delta: judgedDelta(
          reader,
          { endpoint: key, field: 'weighted', dimension: 'engine', dimension_id: String(engine.id) },
          values.delta,
          rule,
          (delta) => deltaCell(key, undefined, delta),
        ),
      },
    ];
  });
  if (rows.length === 0) return reader.unavailable(key, t('reason.noEngineValues'));
  return { available: true, rows };
}

function buildByIntent(reader: PayloadReader): PresenceModel['byIntent'] {
  const key = 'presence.by-intent';
  const result = reader.read(key, schema.byIntent);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const rule = ruleFor(key);
  const rows = result.data.intents.flatMap((intent) => {
    const values = byId(result.data.presenceByIntent, intent.id);
    if (!values) return [];
    return [
      {
        label: intent.label,
        stage: intent.stage,
        icv: formatValue(intent.icv, ruleFor(key, 'icv')),
        weighted: cell(values.weighted, rule),
        gross: cell(values.gross, rule),
        deltaW: judgedDelta(
          reader,
          { endpoint: key, field: 'weighted', dimension: 'intent', dimension_id: String(intent.id) },
          values.deltaW,
          rule,
          (delta) => deltaCell(key, undefined, delta),
        ),
        deltaG: judgedDelta(
          reader,
          { endpoint: key, field: 'gross', dimension: 'intent', dimension_id: String(intent.id) },
          values.deltaG,
          rule,
          (delta) => deltaCell(key, undefined, delta),
        ),
      },
    ];
  });
  if (rows.length === 0) return reader.unavailable(key, t('reason.noIntentValues'));
  return { available: true, rows };
}

function buildMatrix(reader: PayloadReader): PresenceModel['matrix'] {
  const key = 'presence.engine-intent-matrix';
  const result = reader.read(key, schema.engineIntentMatrix);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const { engines, intents, engineIntentMatrix } = result.data;
  if (engines.length === 0 || intents.length === 0) return reader.unavailable(key, t('reason.emptyMatrix'));
  const rule = ruleFor(key);
  return {
    available: true,
    engines: engines.map(engineLabel),
    intents: intents.map((intent) => ({ id: intent.id, label: intent.label })),
    values: engines.map((engine) => {
      const row = byId(engineIntentMatrix, engine.id);
      return intents.map((intent) => cell(row ? byId(row, intent.id) : undefined, rule).value);
    }),
  };
}
