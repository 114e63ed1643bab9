import type { Migration } from './migration.js';

/**
 * One metric of many runs (`reportd mcp`'s metric_series): with only the snapshot index, each run's
 * lookup read all of that run's rows (about a thousand) to keep the few of one endpoint and field.
 */
const migration: Migration = {
  version: 37,
  name: 'metric-values-by-metric',
  sql: `
CREATE INDEX metric_values_by_metric ON metric_values (snapshot_id, endpoint, field);
`,
};

export default migration;
