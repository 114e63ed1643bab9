import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/daemon/metrics.js';
import type { Store } from '../../src/store/sql.js';
import { readPage } from './pages.js';

/**
 * docs/reference/metrics.md lists exactly the metrics the daemon registers, each with its labels: a
 * metric added without a row, or a row left after its metric went, fails here. (The store is never
 * read: gauges read it only when scraped.)
 */

const page = readPage('docs/reference/metrics.md');
const rows = new Map(
  [...page.matchAll(/^\| `(reportd_[a-z_]+)` \| ([^\n]*)$/gm)].map((match) => [match[1]!, match[2]!]),
);
const registered = createMetrics({ store: {} as Store })
  .registry.getMetricsAsArray()
  .filter((metric) => metric.name.startsWith('reportd_'))
  .map((metric) => ({
    name: metric.name,
    labels: ((metric as unknown as { labelNames?: string[] }).labelNames ?? []) as string[],
  }));

describe('docs/reference/metrics.md', () => {
  it('has one row per reportd metric, and no other', () => {
    expect(registered.length).toBeGreaterThanOrEqual(11);
    expect([...rows.keys()].sort()).toEqual(registered.map((metric) => metric.name).sort());
  });

  it("names every metric's labels", () => {
    const missing = registered.flatMap(({ name, labels }) =>
      labels.filter((label) => !rows.get(name)?.includes(`\`${label}\``)).map((label) => `${name}{${label}}`),
    );
    expect(missing).toEqual([]);
  });
});
