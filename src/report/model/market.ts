import { ruleFor } from '../../api/field-units.js';
import * as schema from '../../api/schemas/market.js';
import { t } from '../../locale/locale.js';
import { formatDelta, formatValue, polarityOf, toPercentPoints } from '../format.js';
import type { KpiView } from './common.js';
import { type SharesView, shareRows } from './overview.js';
import type { Available, PayloadReader } from './payloads.js';

/** Market metrics in the order the report lists them, with the label people read. */
export const MARKET_METRICS = [
  { field: 'totalResponses', labelKey: 'market.totalResponses' },
  { field: 'responsesWithBrands', labelKey: 'market.responsesWithBrands' },
  { field: 'responsesWithoutBrands', labelKey: 'market.responsesWithoutBrands' },
  { field: 'uniqueBrands', labelKey: 'market.uniqueBrands' },
  { field: 'dStar', labelKey: 'market.dStar' },
  { field: 'tBar', labelKey: 'market.tBar' },
] as const;

export interface MarketModel {
  metrics: Available<{ rows: KpiView[]; fairShare: KpiView; fairShareValue: string }>;
  competitors: Available<SharesView>;
}

export function buildMarket(reader: PayloadReader): MarketModel {
  return { metrics: buildMetrics(reader), competitors: buildCompetitors(reader) };
}

function buildMetrics(reader: PayloadReader): MarketModel['metrics'] {
  const key = 'market.data';
  const result = reader.read(key, schema.data);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const data = result.data;
  const labels = data.measurements.map((measurement) => measurement.label);
  const kpi = (
    field: string,
    label: string,
    card: { current: number; delta: number; history: number[] },
  ): KpiView => {
    const rule = ruleFor(key, field);
    return {
      key: `${key}.${field}`,
      label,
      value: formatValue(card.current, rule),
      delta: formatDelta(card.delta, rule, polarityOf(key, field)),
      history: card.history.map((value) => (rule.name === 'count' ? value : toPercentPoints(value, rule))),
      // MetricCards carry no labels of their own; the measurements are the shared axis.
      historyLabels: labels.slice(-card.history.length),
      polarity: polarityOf(key, field),
    };
  };
  return {
    available: true,
    rows: MARKET_METRICS.map((metric) => kpi(metric.field, t(metric.labelKey), data.market[metric.field])),
    fairShare: kpi('fairShareMetric', t('market.fairShareMetric'), data.weightedPresence.fairShareMetric),
    fairShareValue: formatValue(data.weightedPresence.fairShare, ruleFor(key, 'fairShare')),
  };
}

function buildCompetitors(reader: PayloadReader): MarketModel['competitors'] {
  const key = 'market.life-monitored-competitors';
  const result = reader.read(key, schema.lifeMonitoredCompetitors);
  if (!result.ok) return reader.unavailable(key, result.reason);
  if (result.data.shares.length === 0) return reader.unavailable(key, t('reason.noCompetitors'));
  return { available: true, rows: shareRows(result.data.shares, key), fairShare: null, fairShareText: '' };
}
