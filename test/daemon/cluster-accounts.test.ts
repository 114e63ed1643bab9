import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { catalogEndpoints } from '../../src/api/endpoints.js';
import { companyCredentials } from '../../src/sandbox/dataset/companies.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { spawnCli } from '../helpers/cli.js';
import { testEngine } from '../helpers/test-store.js';
import { type TempStore, tempStore } from '../sync/helpers/temp-store.js';

/**
 * Issue 25, item 8: two `reportd daemon` processes with the sync role on one PostgreSQL store and six
 * accounts (six companies of the sandbox, a key each). Both hold account leases at once (one used to
 * take every lease while the other waited), and when one is killed with SIGKILL the other takes over
 * the accounts it held: every due snapshot of every account is stored, each payload fetched once
 * except those the killed one had in flight.
 */
const onPostgres = testEngine() === 'postgres';
const ACCOUNTS = 6;
const CONCURRENCY = 2;

let temp: TempStore | undefined;
let sandbox: Sandbox | undefined;
const daemons: { child: ChildProcess; logs: string }[] = [];

afterAll(async () => {
  for (const d of daemons) if (d.child.exitCode === null) d.child.kill('SIGKILL');
  await sandbox?.close();
  await temp?.cleanup();
});

function startDaemon(config: string) {
  const daemon = { child: spawnCli(['daemon', '--config', config, '--roles', 'sync']), logs: '' };
  daemon.child.stdout?.on('data', (chunk) => {
    daemon.logs += chunk;
  });
  daemon.child.stderr?.on('data', (chunk) => {
    daemon.logs += chunk;
  });
  daemons.push(daemon);
  return daemon;
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 180_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}\n${daemons.map((d) => d.logs).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!onPostgres)('two daemons sharing the accounts on PostgreSQL', () => {
  it('both hold account leases, and a killed one’s accounts are taken over', async () => {
    temp = await tempStore();
    // Slow enough per key that a pass lasts well beyond both daemons' start (~20 s per account).
    const rate = { requests: 12, windowMs: 2000 };
    sandbox = await startSandbox({ companies: ACCOUNTS, rate });
    const lines = ['accounts:'];
    for (let company = 1; company <= ACCOUNTS; company++) {
      const { apiKey, apiSecret } = companyCredentials(company, sandbox);
      lines.push(
        `  - { name: company-${company}, base_url: "${sandbox.baseUrl}", api_key: ${apiKey}, api_secret: ${apiSecret}, rate_limit: { requests: ${rate.requests}, window_seconds: ${rate.windowMs / 1000} }, concurrency: ${CONCURRENCY} }`,
      );
    }
    lines.push(
      temp.configLine,
      // At start only (runAtStart): one pass each.
      'sync: { query_sets: all, backfill_runs: 1, schedule: "0 0 1 1 *" }',
      'log: { level: info }',
      '',
    );
    const config = join(temp.dir, 'reportd.yaml');
    writeFileSync(config, lines.join('\n'));
    const store = temp.store;
    const holders = async () =>
      store.all<{ account: string; pid: number }>('SELECT account, pid FROM account_leases ORDER BY account');

    const a = startDaemon(config);
    const b = startDaemon(config);
    const pids = [a.child.pid, b.child.pid];
    // Both sync at once: each holds some of the accounts, neither more than its half. A daemon that
    // began its pass before the other registered may hold more for a moment: it gives the extra
    // leases back after their payloads in flight, so the split is waited for, not sampled.
    let held: { account: string; pid: number }[] = [];
    await until(async () => {
      held = await holders();
      const counts = pids.map((pid) => held.filter((row) => Number(row.pid) === pid).length);
      return counts.every((n) => n > 0 && n <= ACCOUNTS / 2);
    }, 'both daemons to hold at most their half of the account leases');

    // One dies holding leases; the other takes its accounts over.
    const victim = b;
    const orphaned = held.filter((row) => Number(row.pid) === victim.child.pid).map((row) => row.account);
    expect(orphaned.length).toBeGreaterThan(0);
    victim.child.kill('SIGKILL');
    const complete = async (account: string) =>
      (await store.all('SELECT 1 FROM snapshots WHERE account = ? AND state = ?', [account, 'complete']))
        .length;
    // Every company has 3 sets; backfill 1: 3 snapshots per account.
    await until(
      async () => {
        for (let company = 1; company <= ACCOUNTS; company++) {
          if ((await complete(`company-${company}`)) < 3) return false;
        }
        return true;
      },
      'every account synced',
      240_000,
    );
    for (const account of orphaned) expect(await complete(account)).toBe(3);
    expect(a.logs).not.toMatch(/took over its sync/);

    const catalog = new Set(Object.values(catalogEndpoints).map((endpoint) => endpoint.key));
    const metric = Object.entries(sandbox.stats.byEndpoint)
      .filter(([key]) => !catalog.has(key))
      .reduce((sum, [, n]) => sum + n, 0);
    // Once each, but for what the killed daemon had in flight (CONCURRENCY per account it held).
    const due = ACCOUNTS * 3 * 34;
    expect(metric).toBeGreaterThanOrEqual(due);
    expect(metric - due).toBeLessThanOrEqual(orphaned.length * CONCURRENCY);
    expect(sandbox.stats.byErrorCode['-145'] ?? 0).toBe(0);
  }, 420_000);
});
