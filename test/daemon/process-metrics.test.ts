import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/daemon/metrics.js';
import type { Store } from '../../src/store/sql.js';

/**
 * Node's process metrics sample the event loop on a timer of their own: a daemon that serves no
 * /metrics (no http role) must not run that timer, one that does serves them. (How often the sampler
 * wakes is a cost, measured in docs/performance.md, not asserted here.)
 */
describe('process metrics', () => {
  const names = (processMetrics?: boolean) =>
    createMetrics({ store: {} as Store, ...(processMetrics === undefined ? {} : { processMetrics }) })
      .registry.getMetricsAsArray()
      .map((metric) => metric.name);

  it('are registered where /metrics is served', () => {
    expect(names()).toContain('nodejs_eventloop_lag_seconds');
    expect(names(true)).toContain('process_cpu_seconds_total');
  });

  it('are left out, event loop sampler and all, where nothing serves /metrics', () => {
    const registered = names(false);
    expect(registered.filter((name) => name.startsWith('nodejs_') || name.startsWith('process_'))).toEqual(
      [],
    );
    expect(registered).toContain('reportd_api_requests_total');
  });
});
