import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatStatus } from '../../src/cli/status-text.js';
import { createMetrics } from '../../src/daemon/metrics.js';
import { latestRuns } from '../../src/delivery/due.js';
import { renderReport } from '../../src/report/render.js';
import { collectStatus } from '../../src/status/collect.js';
import { listRuns } from '../../src/store/query-sets.js';
import { findSnapshot } from '../../src/store/snapshots.js';
import { startCorruptingProxy } from './helpers/corrupting-proxy.js';
import { type SyncEnv, startSyncEnv } from './helpers/sync-env.js';

/**
 * The API drifts: one endpoint starts answering in a shape the schema refuses, or a catalog label
 * changes format. Reports must still go out, saying what is missing, and ops must be able to see it.
 */
describe('a drifted payload', () => {
  let env: SyncEnv;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await env.close();
  });

  it('settles the snapshot once its retries are used: reports take it, say "Data unavailable" and name the endpoint; status shows the drift', async () => {
    env = await startSyncEnv({ settings: { backfill_runs: 1, max_payload_retries: 1 } });
    const proxy = await startCorruptingProxy(env.sandbox.baseUrl, {
      path: /^\/v2\/integration\/life\/sets\/101\/kpi\?/,
      rewrite: (body) => ({ ...body, current: 'sixty percent' }),
    });
    cleanups.push(proxy.close);
    env.account.base_url = proxy.baseUrl;

    // First failure: one retry is left, so the snapshot waits and no report takes it yet.
    const first = await env.sync();
    const runId = first.errors[0]!.runId!;
    expect((await findSnapshot(env.store, { querySetId: 101, runId }))?.state).toBe('partial');
    expect(await findSnapshot(env.store, { querySetId: 101 })).toBeUndefined();

    // The retry fails too: settled, and from now on it is the set's latest reportable run.
    const second = await env.sync();
    expect(second.metricRequests).toBe(1);
    const settled = await findSnapshot(env.store, { querySetId: 101 });
    expect(settled).toMatchObject({ state: 'settled', run: { id: runId } });
    const report = { name: 'weekly', query_sets: [101] };
    expect(await latestRuns(env.store, report, [env.account])).toEqual([
      expect.objectContaining({ querySetId: 101, runId }),
    ]);

    // Nothing more is fetched for it, and the pass has nothing left to complain about.
    const third = await env.sync();
    expect(third).toMatchObject({ metricRequests: 0, snapshotsDue: 0, errors: [] });

    const out = mkdtempSync(join(tmpdir(), 'reportd-drift-'));
    cleanups.push(async () => rmSync(out, { recursive: true, force: true }));
    const [html] = await renderReport(env.store, { querySetId: 101, formats: ['html'], outDir: out });
    const text = readFileSync(html!, 'utf8');
    expect(text).toMatch(/Data unavailable for life\.kpi: the API&#x27;s answer no longer matches/);
    expect(text).toContain('Data unavailable — ');

    const config = {
      accounts: [env.account],
      sync: { ...env.settings, schedule: '*/10 * * * *', max_payload_mb: 32 },
    };
    const status = await collectStatus(env.store, config as never, Date.now());
    expect(status.accounts[0]!.sets[0]).toMatchObject({
      complete: 0,
      settled: 1,
      partial: 0,
      drifted: ['life.kpi'],
      latestComplete: { runId },
    });
    expect(formatStatus(status)).toContain(
      `set 101: the API's answer drifted from its schema for life.kpi (reported as "Data unavailable")`,
    );
    // What the daemon's /metrics serves, read from the same store.
    const metrics = await createMetrics({ store: env.store }).registry.metrics();
    expect(metrics).toMatch(/^reportd_snapshots\{state="settled"\} 1$/m);
    expect(metrics).toMatch(/^reportd_snapshots\{state="partial"\} 0$/m);
    expect(metrics).toMatch(/^reportd_drifted_payloads\{endpoint="life\.kpi"\} 1$/m);
  });

  it('tolerates a drifted run created_at and set date, which the reports do not need', async () => {
    env = await startSyncEnv({ settings: { backfill_runs: 2 } });
    const proxy = await startCorruptingProxy(env.sandbox.baseUrl, {
      path: /^\/v2\/integration\/sets\/101\/(runs|details)$/,
      rewrite: (body) =>
        Array.isArray(body)
          ? body.map((run: Record<string, unknown>) => ({ ...run, created_at: '12/11/2026 08:00' }))
          : { ...body, date: '2026-11-12' },
    });
    cleanups.push(proxy.close);
    env.account.base_url = proxy.baseUrl;

    const summary = await env.sync();
    expect(proxy.corrupted).toBe(2);
    expect(summary.errors).toEqual([]);
    expect(summary).toMatchObject({ snapshotsDue: 2, snapshotsCompleted: 2 });
    // The drifted text is kept as the API sent it; runs still order newest first (by id).
    const runs = await listRuns(env.store, 'acme', 101);
    expect(runs[0]!.created_at).toBe('12/11/2026 08:00');
    expect((await findSnapshot(env.store, { querySetId: 101 }))?.run.id).toBe(
      Math.max(...runs.map((r) => r.id)),
    );
  });
});

describe('one bad payload never aborts the pass', () => {
  let env: SyncEnv;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await env.close();
  });

  it('a valid JSON answer with a field nested 100,000 deep fails alone; every other payload is stored', async () => {
    env = await startSyncEnv({ settings: { backfill_runs: 2, max_payload_retries: 0 } });
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const proxy = await startCorruptingProxy(env.sandbox.baseUrl, {
      path: /^\/v2\/integration\/presence\/sets\/101\/gross\?/,
      rewriteText: (body) => `{"extra":${deep},${body.slice(1)}`,
    });
    cleanups.push(proxy.close);
    env.account.base_url = proxy.baseUrl;

    const summary = await env.sync();
    expect(proxy.corrupted).toBe(2);
    expect(summary.metricRequests).toBe(68);
    expect(summary.errors).toHaveLength(2);
    for (const error of summary.errors) {
      expect(error).toMatchObject({ kind: 'invalid_payload', endpoint: 'presence.gross' });
      expect(error.message).toMatch(/presence\.gross: JSON nested 100001 levels deep \(at most 64\)/);
    }
    // Both snapshots settle with the 33 other payloads valid, and the next pass still works.
    const snapshot = await findSnapshot(env.store, { querySetId: 101 });
    expect(snapshot?.state).toBe('settled');
    expect(Object.values(snapshot!.payloads).filter((p) => p.error === null)).toHaveLength(33);
    expect(snapshot!.payloads['presence.gross']).toMatchObject({ data: null });
    const again = await env.sync();
    expect(again.errors).toEqual([]);
  });

  it('an answer larger than sync.max_payload_mb is cut off while reading and fails alone', async () => {
    env = await startSyncEnv({ settings: { backfill_runs: 1, max_payload_retries: 0, max_payload_mb: 0.5 } });
    const pad = 'x'.repeat(2 * 1024 * 1024);
    const proxy = await startCorruptingProxy(env.sandbox.baseUrl, {
      path: /^\/v2\/integration\/life\/sets\/101\/kpi\?/,
      rewriteText: (body) => `{"pad":"${pad}",${body.slice(1)}`,
    });
    cleanups.push(proxy.close);
    env.account.base_url = proxy.baseUrl;

    const summary = await env.sync();
    expect(summary.errors).toHaveLength(1);
    expect(summary.errors[0]).toMatchObject({ kind: 'invalid_payload', endpoint: 'life.kpi' });
    expect(summary.errors[0]!.message).toMatch(
      /life\.kpi: response larger than 0\.5 MB \(sync\.max_payload_mb\)/,
    );
    expect(summary.snapshotsCompleted).toBe(1);
    expect((await findSnapshot(env.store, { querySetId: 101 }))?.payloads['life.kpi']).toMatchObject({
      data: null,
    });
  });
});
