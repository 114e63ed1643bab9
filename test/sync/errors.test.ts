import { afterEach, describe, expect, it } from 'vitest';
import { getQuerySet } from '../../src/store/query-sets.js';
import { findSnapshot, listSnapshots } from '../../src/store/snapshots.js';
import { runCli } from './helpers/cli.js';
import { startCorruptingProxy } from './helpers/corrupting-proxy.js';
import { type SyncEnv, startSyncEnv } from './helpers/sync-env.js';

describe('sync error handling', () => {
  let env: SyncEnv;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await env.close();
  });

  it('marks a -132 set gone and skips it from then on; a set with no published run is fine', async () => {
    env = await startSyncEnv({ settings: { query_sets: [101, 103, 999], backfill_runs: 1 } });
    const summary = await env.sync();
    expect(summary.errors).toEqual([]);
    expect(summary.goneSets).toEqual([{ account: 'acme', querySetId: 999 }]);
    expect(summary).toMatchObject({ snapshotsDue: 1, snapshotsCompleted: 1 });
    expect((await getQuerySet(env.store, 'acme', 999))?.state).toBe('gone');
    expect((await getQuerySet(env.store, 'acme', 103))?.state).toBe('active');
    expect(await listSnapshots(env.store, { querySetId: 103, includeIncomplete: true })).toEqual([]);

    env.sandbox.resetStats();
    const again = await env.sync();
    expect(again.errors).toEqual([]);
    // 999 is not asked about again; 101 and 103 have their runs polled.
    expect(env.sandbox.stats.byEndpoint).toEqual({ 'catalog.runs': 2 });
    expect(env.sandbox.stats.byErrorCode).toEqual({});
  });

  it('stops at once on a wrong secret, says not authorized, and keeps what was stored', async () => {
    env = await startSyncEnv({ settings: { backfill_runs: 1 } });
    await env.sync();
    const stored = await findSnapshot(env.store, { querySetId: 101 });
    expect(stored?.state).toBe('complete');

    env.sandbox.resetStats();
    const config = env.writeConfig({ apiSecret: 'not-the-secret' });
    const result = await runCli(['sync', '--config', config, '--once']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/^reportd: account acme: not authorized \(GET \/sets\/101\/runs\)$/m);
    expect(result.stderr).not.toContain('not-the-secret');
    expect(env.sandbox.stats.total).toBeLessThanOrEqual(2);
    expect(await findSnapshot(env.store, { querySetId: 101 })).toEqual(stored);

    // `status` (no API call) shows the failure and what is kept, as text and as JSON.
    const text = await runCli(['status', '--config', config]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ {2}last error: account acme: not authorized \(GET \/sets\/101\/runs\)$/m);
    expect(text.stdout).toMatch(/^ {2}101 .* active +10 +1 +0 +0 +0 +\d+ Week \d+ · 2026$/m);
    const json = await runCli(['status', '--config', config, '--json']);
    const report = JSON.parse(json.stdout);
    expect(report.lastSync).toMatchObject({
      outcome: 'failed',
      error: expect.stringMatching(/not authorized/),
    });
    expect(report.accounts[0]).toMatchObject({
      name: 'acme',
      lastError: 'account acme: not authorized (GET /sets/101/runs)',
      budget: { requests: 60, windowSeconds: 1 },
      sets: [{ id: 101, state: 'active', runsKnown: 10, complete: 1, partial: 0, missing: 0 }],
    });
    expect(json.stdout + text.stdout).not.toContain('not-the-secret');
  });

  it('on a first sync with a wrong secret, fails on the first request', async () => {
    env = await startSyncEnv();
    const summary = await env.sync({ accounts: [{ ...env.account, api_secret: 'wrong-secret' }] });
    expect(env.sandbox.stats.total).toBe(1);
    expect(summary.errors).toHaveLength(1);
    expect(summary.errors[0]).toMatchObject({
      kind: 'not_authorized',
      message: 'account acme: not authorized (GET /brands/list)',
    });
  });

  it('stores a payload that fails validation raw with its error, marks the snapshot partial, and retries it a bounded number of times', async () => {
    env = await startSyncEnv({ settings: { backfill_runs: 1, max_payload_retries: 1 } });
    const proxy = await startCorruptingProxy(env.sandbox.baseUrl, {
      path: /^\/v2\/integration\/life\/sets\/101\/kpi\?/,
      rewrite: (body) => ({ ...body, current: 'sixty percent' }),
    });
    cleanups.push(proxy.close);
    env.account.base_url = proxy.baseUrl;

    const first = await env.sync();
    expect(first.metricRequests).toBe(34);
    expect(first.errors).toHaveLength(1);
    expect(first.errors[0]).toMatchObject({ kind: 'invalid_payload', querySetId: 101, endpoint: 'life.kpi' });
    expect(first.errors[0]!.message).toMatch(/life\.kpi: current: /);
    const snapshot = await findSnapshot(env.store, { querySetId: 101, runId: first.errors[0]!.runId! });
    expect(snapshot?.state).toBe('partial');
    expect(snapshot?.payloads['life.kpi']?.data).toMatchObject({ current: 'sixty percent' });
    expect(snapshot?.payloads['life.kpi']?.error).toMatch(/current/);
    expect(Object.values(snapshot!.payloads).filter((p) => p.error === null)).toHaveLength(33);

    // One retry allowed: the next pass asks for that payload only, the one after asks for nothing.
    const second = await env.sync();
    expect(second.metricRequests).toBe(1);
    const third = await env.sync();
    expect(third.metricRequests).toBe(0);
    // Its retries used, the snapshot is settled: reportable, and no longer due.
    expect(third).toMatchObject({ snapshotsDue: 0, snapshotsIncomplete: 0 });
    expect((await findSnapshot(env.store, { querySetId: 101 }))?.state).toBe('settled');
    expect(proxy.corrupted).toBe(2);
  });
});

describe('refusals in the middle of a pass', () => {
  let env: SyncEnv;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await env.close();
  });

  it('stops that account at once (in-flight work aborted) while another account goes on', async () => {
    // Both accounts use the sandbox's one key through two origins (two budgets): the window is wide
    // enough for both, so no -145 muddles the count.
    env = await startSyncEnv({ rate: { requests: 300, windowMs: 1000 }, settings: { backfill_runs: 2 } });
    // The "revoked" account reaches the sandbox through a proxy that starts answering -4 after 20 metric calls.
    let metricCalls = 0;
    let afterRevoke = 0;
    const proxy = await startCorruptingProxy(env.sandbox.baseUrl, {
      intercept: (url) => {
        if (/\/sets\/\d+\/(runs|details)$|\/list$/.test(url.split('?')[0]!)) return undefined;
        if (++metricCalls <= 20) return undefined;
        afterRevoke++;
        return { error_code: -4, error_message: 'Not authorized' };
      },
    });
    cleanups.push(proxy.close);
    const revoked = { ...env.account, name: 'revoked', base_url: proxy.baseUrl };
    const healthy = { ...env.account, name: 'healthy' };

    const summary = await env.sync({ accounts: [revoked, healthy] });
    expect(summary.errors).toHaveLength(1);
    expect(summary.errors[0]).toMatchObject({ account: 'revoked', kind: 'not_authorized' });
    expect(summary.errors[0]!.message).toMatch(
      /^account revoked: not authorized \(GET \/[a-z/-]+\/sets\/101\//,
    );
    // Only the requests already in flight when the first -4 came back were answered -4 as well.
    expect(afterRevoke).toBeLessThanOrEqual(env.account.concurrency);
    expect(env.rateLimited()).toBe(0);
    expect((await findSnapshot(env.store, { querySetId: 101, account: 'healthy' }))?.state).toBe('complete');
    expect(await listSnapshots(env.store, { querySetId: 101, account: 'healthy' })).toHaveLength(2);
    // What the revoked account stored before the -4 stays stored.
    const kept = await listSnapshots(env.store, {
      querySetId: 101,
      account: 'revoked',
      includeIncomplete: true,
    });
    expect(Object.keys(kept[0]?.payloads ?? {}).length).toBeGreaterThanOrEqual(20 - env.account.concurrency);
  });

  it('retires a set that answers -132 mid-fetch and skips the rest of its work, without failing the pass', async () => {
    env = await startSyncEnv({ settings: { backfill_runs: 2 } });
    let metricCalls = 0;
    let afterGone = 0;
    const proxy = await startCorruptingProxy(env.sandbox.baseUrl, {
      intercept: (url) => {
        if (/\/sets\/\d+\/(runs|details)$|\/list$/.test(url.split('?')[0]!)) return undefined;
        if (++metricCalls <= 10) return undefined;
        afterGone++;
        return { error_code: -132, error_message: 'Query set not found' };
      },
    });
    cleanups.push(proxy.close);
    env.account.base_url = proxy.baseUrl;

    const summary = await env.sync();
    expect(summary.errors).toEqual([]);
    expect(summary.goneSets).toEqual([{ account: 'acme', querySetId: 101 }]);
    expect(summary).toMatchObject({ snapshotsIncomplete: 0, snapshotsCompleted: 0 });
    expect(afterGone).toBeLessThanOrEqual(env.account.concurrency);
    expect((await getQuerySet(env.store, 'acme', 101))?.state).toBe('gone');
    // A gone set costs nothing on later passes.
    const again = await env.sync();
    expect(again.requests).toBe(0);
  });
});
