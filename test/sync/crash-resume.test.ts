import { afterEach, describe, expect, it } from 'vitest';
import { listSnapshots } from '../../src/store/snapshots.js';
import type { Store } from '../../src/store/sql.js';
import { spawnCli } from './helpers/cli.js';
import { type SyncEnv, startSyncEnv } from './helpers/sync-env.js';

const CONCURRENCY = 4;

/**
 * Resolves once `count` payloads are committed in the store, polling through this process's own
 * connection (the store exists and is migrated before the child starts; its commits are visible).
 */
async function payloadsStored(store: Store, count: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = (await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM payloads'))?.n ?? 0;
    if (n >= count) return n;
    if (Date.now() > deadline) throw new Error(`fewer than ${count} payloads stored after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('crash and resume', () => {
  let env: SyncEnv;
  afterEach(() => env.close());

  // The child is a cold start of the CLI, which takes a while on a busy machine.
  it('after kill -9 mid-sync, a new sync completes every snapshot and refetches at most the in-flight payloads', {
    timeout: 150_000,
  }, async () => {
    // Slow enough that the kill lands in the middle of the backfill.
    env = await startSyncEnv({ rate: { requests: 20, windowMs: 1000 }, concurrency: CONCURRENCY });
    const config = env.writeConfig();
    const child = spawnCli(['sync', '--config', config, '--once']);
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );

    await payloadsStored(env.store, 50, 90_000);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const storedByChild = await payloadsStored(env.store, 0, 1000);
    expect(storedByChild).toBeLessThan(136);
    const requestedByChild = env.metricRequests();
    // What the dead process asked for but never committed: its requests in flight, no more.
    expect(requestedByChild - storedByChild).toBeLessThanOrEqual(CONCURRENCY);

    const summary = await env.sync();
    expect(summary.errors).toEqual([]);
    const snapshots = await listSnapshots(env.store, { querySetId: 101 });
    expect(snapshots.map((s) => s.state)).toEqual(['complete', 'complete', 'complete', 'complete']);
    // Everything the dead process had stored stayed stored: exactly the rest was asked for.
    expect(summary.metricRequests).toBe(136 - storedByChild);
    const fetchedTwice = env.metricRequests() - 136;
    expect(fetchedTwice).toBeGreaterThanOrEqual(0);
    expect(fetchedTwice).toBeLessThanOrEqual(CONCURRENCY);
    // The new process read the dead one's request history: no burst past the server's window.
    expect(env.rateLimited()).toBe(0);
  });
});
