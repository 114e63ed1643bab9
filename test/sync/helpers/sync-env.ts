import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogEndpoints } from '../../../src/api/endpoints.js';
import { clearSharedBudgets } from '../../../src/api/shared-budget.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../../src/sandbox/server.js';
import type { Store } from '../../../src/store/sql.js';
import { runSync } from '../../../src/sync/sync.js';
import type { SyncOptions } from '../../../src/sync/sync-options.js';
import type { SyncAccount, SyncSettings, SyncSummary } from '../../../src/sync/types.js';
import { tempStore } from './temp-store.js';

const CATALOG_KEYS = new Set(Object.values(catalogEndpoints).map((endpoint) => endpoint.key));

export interface SyncEnv {
  sandbox: Sandbox;
  store: Store;
  dir: string;
  /** The SQLite file, or in the `postgres` vitest project the database URL (see temp-store.ts). */
  storePath: string;
  /** The config line naming the store: `store: { path: … }` or `store: { url: … }`. */
  storeConfig: string;
  account: SyncAccount;
  settings: SyncSettings;
  sync(overrides?: Partial<SyncOptions>): Promise<SyncSummary>;
  /** Metric requests the sandbox admitted (its own count, not the client's). */
  metricRequests(): number;
  rateLimited(): number;
  /** Writes a reportd.yaml for the CLI pointing at this sandbox and store. */
  writeConfig(overrides?: { apiSecret?: string; concurrency?: number }): string;
  close(): Promise<void>;
}

/**
 * A sandbox on port 0 with an accelerated window, a real store on the engine under test (a SQLite
 * file in a temp folder, or a fresh PostgreSQL database), and an account whose budget matches the
 * sandbox's window (as a real config would match the real server).
 */
export async function startSyncEnv(
  options: {
    rate?: { requests: number; windowMs: number };
    sandbox?: SandboxOptions;
    settings?: Partial<SyncSettings>;
    concurrency?: number;
  } = {},
): Promise<SyncEnv> {
  const rate = options.rate ?? { requests: 60, windowMs: 1000 };
  const sandbox = await startSandbox({ rate, ...options.sandbox });
  const temp = await tempStore();
  const account: SyncAccount = {
    name: 'acme',
    base_url: sandbox.baseUrl,
    api_key: sandbox.apiKey,
    api_secret: sandbox.apiSecret,
    rate_limit: { requests: rate.requests, window_seconds: rate.windowMs / 1000 },
    concurrency: options.concurrency ?? 4,
    timeout_seconds: 5,
  };
  const settings: SyncSettings = {
    query_sets: [101],
    backfill_runs: 4,
    catalog_ttl_minutes: 60,
    max_payload_retries: 3,
    ...options.settings,
  };
  const count = (predicate: (key: string) => boolean) =>
    Object.entries(sandbox.stats.byEndpoint)
      .filter(([key]) => predicate(key))
      .reduce((sum, [, n]) => sum + n, 0);
  return {
    sandbox,
    store: temp.store,
    dir: temp.dir,
    storePath: temp.path,
    storeConfig: temp.configLine,
    account,
    settings,
    sync: (overrides = {}) =>
      runSync({
        store: temp.store,
        accounts: [account],
        settings,
        // Fault retries in milliseconds, not seconds: the tests are about outcomes, not waits.
        client: { backoff: { baseMs: 10, capMs: 100 } },
        ...overrides,
      }),
    metricRequests: () => count((key) => !CATALOG_KEYS.has(key)),
    rateLimited: () => sandbox.stats.byErrorCode['-145'] ?? 0,
    writeConfig(overrides = {}) {
      const file = join(temp.dir, 'reportd.yaml');
      const querySets = settings.query_sets === 'all' ? 'all' : `[${settings.query_sets.join(', ')}]`;
      writeFileSync(
        file,
        [
          'accounts:',
          '  - name: acme',
          `    base_url: ${account.base_url}`,
          `    api_key: ${account.api_key}`,
          `    api_secret: ${overrides.apiSecret ?? account.api_secret}`,
          `    rate_limit: { requests: ${rate.requests}, window_seconds: ${rate.windowMs / 1000} }`,
          `    concurrency: ${overrides.concurrency ?? account.concurrency}`,
          temp.configLine,
          `sync: { query_sets: ${querySets}, backfill_runs: ${settings.backfill_runs} }`,
          'log: { level: warn }',
          '',
        ].join('\n'),
      );
      return file;
    },
    async close() {
      clearSharedBudgets();
      await sandbox.close();
      await temp.cleanup();
    },
  };
}
