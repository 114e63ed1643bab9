import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAlertPass } from '../../src/alerts/run-alerts.js';
import { type Config, configFromObject } from '../../src/config/index.js';
import { createLogger } from '../../src/log.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openStore } from '../../src/store/db.js';
import type { Store } from '../../src/store/sql.js';
import { runSync } from '../../src/sync/sync.js';
import { tempDir } from '../delivery/smtp-helpers.js';

/**
 * A run whose endpoints were unavailable (no rows for presence.gross, a drifted error register) fires
 * nothing for the rules that need them, and the log says which rule was skipped and why; the sandbox
 * over HTTP and a real SQLite store supply everything else. The pass runs on an injected time.
 */

let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let store: Store;
let config: Config;
beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox({ rate: { requests: 100_000, windowMs: 60_000 } });
  config = configFromObject(
    {
      accounts: [
        {
          name: 'acme',
          base_url: sandbox.baseUrl,
          api_key: sandbox.apiKey,
          api_secret: sandbox.apiSecret,
          rate_limit: { requests: 100_000 },
        },
      ],
      store: { path: join(tmp.dir, 'store.sqlite') },
      sync: { query_sets: [101], backfill_runs: 2 },
      smtp: { host: 'localhost', from: 'r@example.com' },
      alerts: [
        {
          name: 'drop',
          rules: [{ metric: 'presence.gross', change: '<= -5' }, { event: 'new_error' }],
          email: { to: ['cmo@example.com'] },
        },
      ],
    },
    tmp.dir,
  );
  store = await openStore(config.store);
});
afterAll(async () => {
  await store?.close();
  await sandbox?.close();
  tmp?.cleanup();
});

const sync = () => runSync({ store, accounts: config.accounts, settings: config.sync });

describe('alerts on missing data', () => {
  it('skip the rules whose endpoint is unavailable, with a log line each, and send nothing', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => lines.push(line) },
    });
    const pass = (now: number) =>
      runAlertPass({
        store,
        alerts: config.alerts,
        accounts: config.accounts,
        from: 'r@example.com',
        now,
        logger,
      });
    await sync();
    expect(await pass(Date.UTC(2026, 10, 1))).toEqual([]);

    const run = sandbox.publishRun(101, { movement: true });
    await sync();
    const snapshotId = (await store.get<{ id: number }>(
      'SELECT id FROM snapshots WHERE query_set_id = 101 AND run_id = ?',
      [run.id],
    ))!.id;
    // As if presence.gross had been unavailable and the error register had drifted from its schema.
    await store.run(`DELETE FROM metric_values WHERE snapshot_id = ? AND endpoint = 'presence.gross'`, [
      snapshotId,
    ]);
    await store.run(
      `UPDATE payloads SET validation_error = 'drifted' WHERE snapshot_id = ? AND endpoint_key = 'gravity.error-register'`,
      [snapshotId],
    );

    expect(await pass(Date.UTC(2026, 10, 2))).toEqual([]);
    const skipped = lines.filter((line) => line.includes('alert rule not evaluated'));
    expect(skipped).toHaveLength(2);
    expect(skipped[0]).toContain(
      `presence.gross.current: no data in run ${run.display_name} (endpoint unavailable)`,
    );
    expect(skipped[1]).toContain(
      `gravity.error-register: no data in run ${run.display_name} (endpoint unavailable)`,
    );
    expect(lines.some((line) => line.includes('alert evaluated: nothing fired'))).toBe(true);
    expect(
      (await store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM deliveries WHERE kind = 'alert'`))?.n,
    ).toBe(0);
  });
});
