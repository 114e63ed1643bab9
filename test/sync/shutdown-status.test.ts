import { afterEach, describe, expect, it } from 'vitest';
import { formatStatus } from '../../src/cli/status-text.js';
import { collectStatus } from '../../src/status/collect.js';
import { listRuns } from '../../src/store/query-sets.js';
import { listSnapshots } from '../../src/store/snapshots.js';
import { listSyncRuns } from '../../src/store/sync-runs.js';
import { type SyncEnv, startSyncEnv } from './helpers/sync-env.js';

describe('shutdown and status', () => {
  let env: SyncEnv;
  afterEach(() => env.close());

  it('stops a pass when the daemon aborts it, keeps what was stored, and the next pass finishes the rest', async () => {
    env = await startSyncEnv({ rate: { requests: 30, windowMs: 1000 }, settings: { backfill_runs: 2 } });
    const controller = new AbortController();
    const first = await env.sync({
      signal: controller.signal,
      onProgress: (p) => {
        if (p.payloadsDone >= 40) controller.abort(new Error('shutdown'));
      },
    });
    expect(first.aborted).toBe(true);
    expect(first.snapshotsIncomplete).toBeGreaterThan(0);
    expect((await listSyncRuns(env.store))[0]?.outcome).toBe('aborted');
    const storedBefore = (await env.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM payloads'))?.n ?? 0;
    expect(storedBefore).toBeGreaterThanOrEqual(40);
    expect(storedBefore).toBeLessThan(68);

    const second = await env.sync();
    expect(second).toMatchObject({ aborted: false, errors: [], snapshotsIncomplete: 0 });
    expect(second.metricRequests).toBe(68 - storedBefore);
    expect(await listSnapshots(env.store, { querySetId: 101 })).toHaveLength(2);
  });

  it('reports runs, snapshots, gone sets and budget use per account and set', async () => {
    env = await startSyncEnv({ settings: { query_sets: [101, 103, 999], backfill_runs: 2 } });
    // Status is read as of the pass's last request: the window is 1 s, and on a busy machine (or a
    // slower store) the pass's own closing writes can take longer than that after it.
    let lastRequestAt = 0;
    await env.sync({ onRequest: () => (lastRequestAt = Date.now()) });
    const config = { accounts: [env.account], sync: { ...env.settings, schedule: '* * * * *' } };
    const status = await collectStatus(env.store, config as never, lastRequestAt);
    const newest = (await listRuns(env.store, env.account.name, 101))[0]!;
    const account = status.accounts[0]!;
    expect(account.budget.used).toBeGreaterThan(0);
    expect(account.budget.requests).toBe(60);
    expect(account.lastError).toBeNull();
    expect(account.sets).toEqual([
      expect.objectContaining({
        id: 101,
        state: 'active',
        runsKnown: 10,
        complete: 2,
        partial: 0,
        missing: 0,
        latestComplete: { runId: newest.id, label: newest.display_name },
      }),
      expect.objectContaining({
        id: 103,
        state: 'active',
        runsKnown: 0,
        complete: 0,
        missing: 0,
        latestComplete: null,
      }),
      expect.objectContaining({ id: 999, state: 'gone', complete: 0 }),
    ]);
    expect(status.lastSync?.outcome).toBe('ok');
    const text = formatStatus(status);
    expect(text).toMatch(/account acme: last sync \S+, budget \d+\/60 used in the last 1s/);
    expect(text).toMatch(
      new RegExp(`^ {2}101 .* active +10 +2 +0 +0 +0 +${newest.id} ${newest.display_name}$`, 'm'),
    );
    expect(text).toMatch(/^ {2}103 .* active +0 +0 +0 +0 +0 +-$/m);
    expect(text).toMatch(/^ {2}999 .* gone .*Query set not found/m);
  });
});
