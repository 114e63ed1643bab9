import { randomUUID } from 'node:crypto';
import type { Clock } from '../../src/clock.js';
import { type Config, configFromObject } from '../../src/config/index.js';
import type { DeliveryRenderer } from '../../src/delivery/outbox-options.js';
import { listDeliveries } from '../../src/outbox/reads.js';
import type { Store } from '../../src/store/sql.js';
import { emptySyncSummary, type SyncSummary } from '../../src/sync/types.js';
import { fakeFile } from '../delivery/smtp-helpers.js';

/**
 * A daemon config over a store seeded with fixture snapshots (account `main`, query set 101): no API
 * is called, the sync job is stubbed and runs once a year, so a fake clock can be advanced by weeks
 * without sync passes in the way.
 */
export function seededConfig(
  dir: string,
  options: { smtpUrl: string; report: Record<string, unknown>; outputDir?: string; http?: boolean },
): Config {
  return configFromObject(
    {
      accounts: [
        {
          name: 'main',
          base_url: 'http://127.0.0.1:1/v2/integration',
          api_key: 'key',
          api_secret: 'seeded-store-secret',
        },
      ],
      store: { path: 'reportd.sqlite' },
      sync: { schedule: '0 0 1 1 *' },
      output: { dir: options.outputDir ?? 'reports' },
      smtp: { url: options.smtpUrl, from: 'Reports <reports@example.com>' },
      reports: [{ name: 'weekly', query_sets: [101], email: { to: ['ceo@example.com'] }, ...options.report }],
      ...(options.http ? { http: { port: 0, host: '127.0.0.1' } } : {}),
    },
    dir,
  );
}

/** A sync pass that found nothing to do (the store is seeded by the test). */
export async function idleSync(): Promise<SyncSummary> {
  return emptySyncSummary(1);
}

/** A renderer that writes a stand-in PDF: for tests about when and how often, not what. */
export function stubRenderer(dir: string): DeliveryRenderer {
  return {
    async render(delivery) {
      return {
        brand: 'Northwind Coffee',
        querySet: { id: delivery.querySetId, name: 'Main' },
        run: { id: delivery.runId, display_name: `Run ${delivery.runId}` },
        kpis: [],
        // A name per render: two daemons may render one delivery, each must attach its own file.
        files: [{ path: fakeFile(dir, `d${delivery.id}-${randomUUID()}.pdf`), format: 'pdf' }],
      };
    },
  };
}

/** Deliveries as [run, created_at ISO] in the order they were enqueued. */
export async function enqueued(store: Store): Promise<[number, string][]> {
  return (await listDeliveries(store, 100))
    .sort((a, b) => a.id - b.id)
    .map((d) => [d.runId, new Date(d.createdAt).toISOString()]);
}

/** Moves a fake clock to an instant. */
export function advanceTo(clock: Clock & { advance(ms: number): Promise<void> }, iso: string) {
  return clock.advance(Date.parse(iso) - clock.now());
}

/**
 * Polls (real time) until `check` holds or `timeoutMs` passes; returns whether it held. `check` may
 * read the store (async).
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}
