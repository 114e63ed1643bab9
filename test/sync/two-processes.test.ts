import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listSnapshots } from '../../src/store/snapshots.js';
import { runCli } from './helpers/cli.js';
import { type SyncEnv, startSyncEnv } from './helpers/sync-env.js';

/**
 * Two real `reportd sync` processes on one store, against the sandbox over HTTP: they share
 * the API key's rate window (no -145) and never fetch the same payload twice.
 */
describe('two sync processes on one store', () => {
  let env: SyncEnv;
  afterEach(async () => {
    await env.close();
  });

  /** A config for `account` syncing `sets`, on the shared store and the sandbox's one key. */
  function config(
    name: string,
    account: string,
    sets: number[],
    rate: { requests: number; windowMs: number },
  ) {
    const file = join(env.dir, `${name}.yaml`);
    writeFileSync(
      file,
      [
        'accounts:',
        `  - name: ${account}`,
        `    base_url: ${env.account.base_url}`,
        `    api_key: ${env.account.api_key}`,
        `    api_secret: ${env.account.api_secret}`,
        `    rate_limit: { requests: ${rate.requests}, window_seconds: ${rate.windowMs / 1000} }`,
        '    concurrency: 4',
        env.storeConfig,
        `sync: { query_sets: [${sets.join(', ')}], backfill_runs: 4 }`,
        'log: { level: warn }',
        '',
      ].join('\n'),
    );
    return file;
  }

  it('started together on one account, fetch each of the 136 payloads once: one waits for the other and says so', async () => {
    // 60 a second: one pass takes over 2 s, so the second process starts while the first works.
    const rate = { requests: 60, windowMs: 1000 };
    env = await startSyncEnv({ rate });
    const file = config('reportd', 'acme', [101], rate);
    const [a, b] = await Promise.all([
      runCli(['sync', '--config', file, '--no-progress']),
      runCli(['sync', '--config', file, '--no-progress']),
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(env.metricRequests()).toBe(4 * 34);
    expect(env.rateLimited()).toBe(0);
    // Whichever came second said why it sat there.
    const waited = [a, b].filter((r) =>
      /another process \(pid \d+ on .+\) is syncing it; waiting/.test(r.stderr),
    );
    expect(waited).toHaveLength(1);
    const stdout = `${a.stdout}\n${b.stdout}`;
    expect(stdout).toMatch(/synced 4\/4 due snapshots/);
    expect(await listSnapshots(env.store, { querySetId: 101 })).toHaveLength(4);
  });

  // On PostgreSQL this drew a -145 about one run in four until the budget stopped dropping what its
  // load read later than the time it took before waiting for the key's lock (see RateBudget.load).
  it('on two accounts with one API key, stay within the key limit together: no -145', async () => {
    // 30 requests a second for the key; each process alone would use all of it for ~5 s.
    const rate = { requests: 30, windowMs: 1000 };
    env = await startSyncEnv({ rate });
    const east = config('east', 'east', [101], rate);
    const west = config('west', 'west', [102], rate);
    const [a, b] = await Promise.all([
      runCli(['sync', '--config', east, '--no-progress']),
      runCli(['sync', '--config', west, '--no-progress']),
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(a.stdout).toMatch(/\b0 rate-limited\)/);
    expect(b.stdout).toMatch(/\b0 rate-limited\)/);
    expect(env.rateLimited()).toBe(0);
    // Both stored everything due (set 102 has fewer published runs), each payload fetched once.
    const stored =
      (await listSnapshots(env.store, { querySetId: 101 })).length +
      (await listSnapshots(env.store, { querySetId: 102 })).length;
    expect(stored).toBeGreaterThanOrEqual(7);
    expect(env.metricRequests()).toBe(stored * 34);
  });
});
