import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import { countDeliveriesByDestination, countDeliveriesByState } from '../outbox/reads.js';
import { DELIVERY_STATES } from '../outbox/row.js';
import { driftedEndpoints } from '../store/payloads.js';
import { countSnapshotsByState } from '../store/snapshot-counts.js';
import type { Store } from '../store/sql.js';
import { accountBudget } from '../sync/account-budget.js';

/**
 * Prometheus metrics of one daemon, on its own Registry (never prom-client's global one, so two
 * daemons in one test process do not share counters). Counts that live in the store (snapshots and
 * deliveries by state) are read at scrape time, so they are right after a restart and include rows
 * another process wrote.
 */
export interface DaemonMetrics {
  registry: Registry;
  apiRequests: Counter<'outcome'>;
  syncPasses: Counter<'outcome'>;
  deliveryAttempts: Counter<'result'>;
  /** The same attempts by destination (`email` or the channel's name). */
  channelAttempts: Counter<'channel' | 'result'>;
  renderSeconds: Histogram;
}

export interface MetricsSources {
  store: Store;
  /** Requests counted in each account's current rate window, and the window's size. */
  budgets?: () => { account: string; used: number; limit: number }[];
  /** Node's process metrics (`process_*`, `nodejs_*`); false where nothing serves /metrics. Default true. */
  processMetrics?: boolean;
}

const SNAPSHOT_STATES = ['pending', 'partial', 'settled', 'complete'] as const;

/** How often `nodejs_eventloop_lag_*` samples the event loop's delay (docs/reference/metrics.md). */
const EVENT_LOOP_SAMPLE_MS = 100;

export function createMetrics(sources: MetricsSources): DaemonMetrics {
  const registry = new Registry();
  // Node's process metrics are read at scrape time, except the event loop's delay: prom-client
  // samples it on a timer of its own, every 10 ms by default, which woke an idle daemon a hundred
  // times a second (most of its CPU while nothing was due). Every 100 ms still catches any stall a
  // scrape would show (a blocked loop delays the next sample by as long), at a tenth of the wakeups.
  // A daemon that serves no /metrics (no http role) runs none of it.
  if (sources.processMetrics !== false) {
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  }
  // Registered in the order /metrics lists them: the counters, then the gauges read at scrape time.
  const counters = eventCounters(registry);
  new Gauge({
    name: 'reportd_channel_deliveries',
    help: 'Outbox deliveries by destination (email or the channel name) and state.',
    labelNames: ['channel', 'state'] as const,
    registers: [registry],
    async collect() {
      const rows = await countDeliveriesByDestination(sources.store);
      this.reset();
      for (const row of rows) {
        this.set({ channel: row.destination, state: row.state }, row.n);
      }
    },
  });
  const renderSeconds = new Histogram({
    name: 'reportd_render_duration_seconds',
    help: 'Time to render the files of one delivery (PDF and workbook), in seconds.',
    buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120],
    registers: [registry],
  });
  budgetGauges(registry, sources.budgets);
  storeGauges(registry, sources.store);
  return { registry, ...counters, renderSeconds };
}

/**
 * The daemon's metrics for a config: the budgets' gauges read each account's window as the sync
 * sees it.
 */
export function configMetrics(
  config: Config,
  store: Store,
  clock: Clock,
  options: { serves: boolean },
): DaemonMetrics {
  return createMetrics({
    store,
    processMetrics: options.serves,
    budgets: () =>
      config.accounts.map((account) => {
        // The sync's own builder: the same options for the key, whichever of the two asks first.
        const budget = accountBudget(account, { store, clock });
        return { account: account.name, used: budget.usedInWindow(), limit: budget.requests };
      }),
  });
}

/** What this process counts as it happens: API requests, sync passes, delivery attempts. */
function eventCounters(registry: Registry) {
  const apiRequests = new Counter({
    name: 'reportd_api_requests_total',
    help: 'Integration API requests by outcome (ok, rate_limited, transient, not_authorized, ...).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const syncPasses = new Counter({
    name: 'reportd_sync_passes_total',
    help: 'Sync passes by outcome (ok, incomplete, failed, aborted).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const deliveryAttempts = new Counter({
    name: 'reportd_delivery_attempts_total',
    help: 'Delivery attempts by result (sent, retry, failed, lost, released).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const channelAttempts = new Counter({
    name: 'reportd_channel_delivery_attempts_total',
    help: 'Delivery attempts by destination (email or the channel name) and result (sent, retry, failed, lost, released).',
    labelNames: ['channel', 'result'] as const,
    registers: [registry],
  });
  return { apiRequests, syncPasses, deliveryAttempts, channelAttempts };
}

function budgetGauges(registry: Registry, budgets: MetricsSources['budgets']): void {
  new Gauge({
    name: 'reportd_budget_in_use',
    help: 'API requests counted in the current rate-limit window, per account.',
    labelNames: ['account'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const b of budgets?.() ?? []) this.set({ account: b.account }, b.used);
    },
  });
  new Gauge({
    name: 'reportd_budget_limit',
    help: 'Requests the API allows per rate-limit window, per account.',
    labelNames: ['account'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const b of budgets?.() ?? []) this.set({ account: b.account }, b.limit);
    },
  });
}

/** Counts that live in the store, read at scrape time (see DaemonMetrics). */
function storeGauges(registry: Registry, store: Store): void {
  new Gauge({
    name: 'reportd_snapshots',
    help: 'Stored snapshots by state.',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const counts = await countSnapshotsByState(store);
      for (const state of SNAPSHOT_STATES) this.set({ state }, counts.get(state) ?? 0);
    },
  });
  new Gauge({
    name: 'reportd_drifted_payloads',
    help: 'Stored payloads that failed their schema (the API drifted), per endpoint: snapshots holding one.',
    labelNames: ['endpoint'] as const,
    registers: [registry],
    async collect() {
      const drifted = await driftedEndpoints(store);
      this.reset();
      for (const d of drifted) this.set({ endpoint: d.endpoint }, d.snapshots);
    },
  });
  new Gauge({
    name: 'reportd_deliveries',
    help: 'Outbox deliveries by state.',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const counts = await countDeliveriesByState(store);
      for (const state of DELIVERY_STATES) this.set({ state }, counts[state]);
    },
  });
}
