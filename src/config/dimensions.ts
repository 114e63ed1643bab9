/**
 * What a metric row is broken down by (`metric_values.dimension`; '' for a row of the whole set):
 * the words an alert rule's `per:` takes, and the parts api/metric-mapping.ts maps payloads into.
 */
export type Dimension =
  | ''
  | 'engine'
  | 'intent'
  | 'source'
  | 'competitor'
  | 'category'
  | 'stance'
  | 'measurement'
  | 'engine_intent';
