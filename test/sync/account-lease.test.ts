import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { localHost } from '../../src/queue/holder.js';
import { type SyncEnv, startSyncEnv } from './helpers/sync-env.js';

/**
 * The account lease left behind by another process (a real row in the real store): a dead holder on
 * this host is taken over at once; a live holder elsewhere is waited for, said so, until it lapses.
 */
describe('account leases', () => {
  let env: SyncEnv;
  afterEach(async () => {
    await env.close();
  });

  /** A lease row as another process writes it: `holder` is its queue holder name (queue/holder.ts). */
  async function leave(holder: { host: string; pid: number; expiresAt: number; name?: string }) {
    await env.store.run(
      `INSERT INTO account_leases (account, holder, host, pid, acquired_at, expires_at)
       VALUES ('acme', ?, ?, ?, ?, ?)`,
      [holder.name ?? 'someone-else', holder.host, holder.pid, Date.now(), holder.expiresAt],
    );
  }

  it('takes over at once from a holder that died on this host, without waiting for its lease to lapse', async () => {
    env = await startSyncEnv({ settings: { backfill_runs: 1 } });
    // A real process that has exited: its pid is no longer running.
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    await leave({
      host: hostname(),
      pid: dead,
      expiresAt: Date.now() + 600_000,
      name: `${localHost()}:${dead}:abcdef`,
    });
    const waits: string[] = [];
    const started = Date.now();
    const summary = await env.sync({ onWait: (message) => waits.push(message) });
    expect(waits).toEqual([]);
    expect(summary).toMatchObject({ errors: [], snapshotsCompleted: 1 });
    expect(Date.now() - started).toBeLessThan(30_000);
    // Released at the end of the pass.
    expect(await env.store.get('SELECT COUNT(*) AS n FROM account_leases')).toEqual({ n: 0 });
  });

  it('waits for a live holder on another host, says so, and syncs once its lease lapses', async () => {
    env = await startSyncEnv({ settings: { backfill_runs: 1 } });
    const lapses = Date.now() + 1_500;
    await leave({ host: 'other-host', pid: process.pid, expiresAt: lapses });
    const waits: string[] = [];
    const summary = await env.sync({ onWait: (message) => waits.push(message) });
    expect(waits).toEqual([
      `account acme: another process (pid ${process.pid} on other-host) is syncing it; waiting for it to finish`,
    ]);
    expect(Date.now()).toBeGreaterThanOrEqual(lapses);
    expect(summary).toMatchObject({ errors: [], snapshotsCompleted: 1 });
  });
});
