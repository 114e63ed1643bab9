import type { FactRow } from '../../src/alerts/run-facts.js';

/** A metric row of a hand-made run, as the alert evaluator reads it; `dim` is [dimension, id, label]. */
export const factRow = (
  endpoint: string,
  field: string,
  value: number,
  unit: FactRow['unit'],
  dim?: [string, string, string],
): FactRow => ({
  endpoint,
  field,
  dimension: dim?.[0] ?? '',
  dimension_id: dim?.[1] ?? null,
  dimension_label: dim?.[2] ?? null,
  value,
  unit,
});
