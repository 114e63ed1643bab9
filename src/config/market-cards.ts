/**
 * The six cards of `market.data`, each sent with `current` and `delta`: one list for the metric rows
 * the API's payload yields (api/metric-mapping.ts), the metrics an alert may watch
 * (alertable-metrics.ts) and the workbook's Market sheet, so a card added to the API is added once.
 */
export const MARKET_CARDS = [
  'dStar',
  'tBar',
  'totalResponses',
  'responsesWithBrands',
  'responsesWithoutBrands',
  'uniqueBrands',
] as const;

export type MarketCard = (typeof MARKET_CARDS)[number];
