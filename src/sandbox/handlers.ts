import { catalogEndpoints, metricEndpoints } from '../api/endpoints.js';
import type { SetRecord } from './dataset/records.js';
import type { SandboxDataset } from './dataset.js';
import { catalogPayloads } from './payloads/catalog.js';
import type { MetricHandler } from './payloads/context.js';
import { gravityHandlers } from './payloads/gravity.js';
import { lifeHandlers } from './payloads/life.js';
import { marketHandlers } from './payloads/market.js';
import { overviewHandlers } from './payloads/overview.js';
import { presenceHandlers } from './payloads/presence.js';
import { scoutHandlers } from './payloads/scout.js';

/**
 * Endpoint key → handler. Metric handlers are found by the catalog's `group` and `name`, so the
 * table cannot drift from the catalog silently: `handlerFor` returns undefined for a catalog entry
 * without a handler, and a completeness test walks `allEndpoints` through it.
 */

export interface CatalogRequest {
  ds: SandboxDataset;
  brandId?: number;
  set?: SetRecord;
}

export type Handler =
  | { kind: 'catalog'; run: (req: CatalogRequest) => unknown }
  | { kind: 'metric'; run: MetricHandler };

const byGroup: Record<string, Record<string, MetricHandler>> = {
  overview: overviewHandlers,
  presence: presenceHandlers,
  life: lifeHandlers,
  gravity: gravityHandlers,
  scout: scoutHandlers,
  market: marketHandlers,
};

const handlers = new Map<string, Handler>([
  [catalogEndpoints.brands.key, { kind: 'catalog', run: ({ ds }) => catalogPayloads.brands(ds) }],
  [
    catalogEndpoints.querySets.key,
    { kind: 'catalog', run: ({ ds, brandId }) => catalogPayloads.querySets(ds, brandId ?? -1) },
  ],
  [
    catalogEndpoints.details.key,
    { kind: 'catalog', run: ({ ds, set }) => catalogPayloads.details(ds, set!) },
  ],
  [catalogEndpoints.runs.key, { kind: 'catalog', run: ({ set }) => catalogPayloads.runs(set!) }],
]);

for (const endpoint of metricEndpoints) {
  const run = byGroup[endpoint.group]?.[endpoint.name];
  if (run) handlers.set(endpoint.key, { kind: 'metric', run });
}

export function handlerFor(endpointKey: string): Handler | undefined {
  return handlers.get(endpointKey);
}
