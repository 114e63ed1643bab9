import { type NumberRule, ruleFor, unitOfRule } from '../../api/field-units.js';
import { seriesCard } from '../../api/schemas/common.js';
import { validValue } from '../../insight/valid-values.js';
import { t } from '../../locale/locale.js';
import {
  type DeltaView,
  formatDelta,
  formatValue,
  type Polarity,
  polarityOf,
  toPercentPoints,
} from '../format.js';
import { judgedDelta } from './noise-delta.js';
import type { Available, PayloadReader } from './payloads.js';
import type { ReportSnapshot } from './snapshot.js';

/** A headline number: current value, change since the previous run, and its history for a sparkline. */
export interface KpiView {
  key: string;
  label: string;
  value: string;
  delta: DeltaView;
  /** History in display units (percent points for percent and fraction rules), oldest first. */
  history: number[];
  historyLabels: string[];
  polarity: Polarity;
  /** Extra line under the value ("Fair share 18.0%"). */
  caption?: string;
  /**
   * What the change is measured against, for the cards `compare_with` applies to: "vs Week 33", "no
   * stored run that old"; absent means the previous run.
   */
  versus?: string;
}

export interface EngineLabel {
  id: number;
  label: string;
  /** Hex `#RRGGBB` from the API, checked; a neutral grey otherwise. Engine images are never loaded. */
  color: string;
}

const HEX = /^#[0-9A-Fa-f]{6}$/;
export const safeColor = (color: unknown, fallback = '#8A94A6'): string =>
  typeof color === 'string' && HEX.test(color) ? color : fallback;

export function engineLabel(engine: { id: number; label: string; color?: unknown }): EngineLabel {
  return { id: engine.id, label: engine.label, color: safeColor(engine.color) };
}

/** A value shown with its endpoint's rule, in display units for charts. */
export interface Cell {
  text: string;
  value: number | null;
}

/**
 * A value as printed: "—" for one outside what its unit allows (a share of 150 %: insight/valid-values.ts);
 * the note beside its change says why.
 */
export function shownValue(value: number, rule: NumberRule, mix?: 'fraction' | 'percent'): string {
  return validValue(value, unitOfRule(rule.name, mix)) ? formatValue(value, rule, mix) : '—';
}

export function cell(value: unknown, rule: NumberRule, mix?: 'fraction' | 'percent'): Cell {
  const given = typeof value === 'number' && Number.isFinite(value) ? value : null;
  const number = given !== null && validValue(given, unitOfRule(rule.name, mix)) ? given : null;
  return {
    text: formatValue(number, rule, mix),
    value: number === null ? null : rule.name === 'count' ? number : toPercentPoints(number, rule, mix),
  };
}

export function deltaCell(
  key: string,
  field: string | undefined,
  value: unknown,
  mix?: 'fraction' | 'percent',
): DeltaView {
  return formatDelta(value, ruleFor(key, field), polarityOf(key, field), mix);
}

/**
 * A KPI from a SeriesCard payload. When the payload carries no history, the set's earlier stored
 * snapshots supply it (their `current`, oldest first), so the sparkline still shows the trend.
 */
export function seriesKpi(
  reader: PayloadReader,
  key: string,
  label: string,
  history: readonly ReportSnapshot[],
): Available<{ kpi: KpiView }> {
  const result = reader.read(key, seriesCard);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const rule = ruleFor(key);
  const card = result.data;
  const against = comparedDelta(reader, card.current, card.delta, (past) => {
    const parsed = seriesCard.safeParse(past.payloads[key]?.data);
    return parsed.success ? parsed.data.current : undefined;
  });
  let values = card.history;
  let labels = card.historyLabels;
  if (values.length === 0) {
    const past = [...history].reverse().flatMap((snapshot) => {
      const parsed = seriesCard.safeParse(snapshot.payloads[key]?.data);
      return parsed.success ? [{ value: parsed.data.current, label: snapshot.run.display_name }] : [];
    });
    values = past.map((point) => point.value);
    labels = past.map((point) => point.label);
  }
  return {
    available: true,
    kpi: {
      key,
      label,
      value: shownValue(card.current, rule),
      delta: judgedDelta(
        reader,
        { endpoint: key, field: 'current', dimension: '', dimension_id: null },
        against.delta,
        rule,
        (delta) => formatDelta(delta, rule, polarityOf(key)),
      ),
      ...(against.versus ? { versus: against.versus } : {}),
      history: values.map((value) => (rule.name === 'count' ? value : toPercentPoints(value, rule))),
      historyLabels: labels,
      polarity: polarityOf(key),
    },
  };
}

/**
 * The change a card shows, against the run `compare_with` chose: the API's own delta for the previous
 * run, `current − that run's current` for an older one, none (and a plain "no run that old") when no
 * stored run reaches back that far or the older run lacks the card.
 */
export function comparedDelta(
  reader: PayloadReader,
  current: number,
  delta: number | null | undefined,
  valueIn: (past: ReportSnapshot) => number | undefined,
): { delta: number | null | undefined; versus?: string } {
  const baseline = reader.baseline;
  if (baseline.kind === 'previous') return { delta };
  if (baseline.kind === 'none') return { delta: null, versus: t('kpi.noRunThatOld') };
  const past = valueIn(baseline.run);
  const versus = t('kpi.vsRun', { run: baseline.run.run.display_name });
  return { delta: past === undefined ? null : current - past, versus };
}

/** Looks up `map[String(id)]`: maps in the API are keyed by the id rendered as a string. */
export function byId<T>(map: Readonly<Record<string, T>>, id: number): T | undefined {
  return Object.hasOwn(map, String(id)) ? map[String(id)] : undefined;
}
