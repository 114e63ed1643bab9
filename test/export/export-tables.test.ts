import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors/index.js';
import { exportMetrics } from '../../src/export/export.js';
import { type ExportTable, exportTables } from '../../src/export/tables.js';
import { type SyncEnv, startSyncEnv } from '../sync/helpers/sync-env.js';

/**
 * The tables `reportd export` writes, read straight from a store synced from the sandbox over HTTP,
 * on the engine under test (SQLite, or PostgreSQL in the `postgres` vitest project): the run and
 * query-set context comes from src/store/export-reads.ts, so its order and filters are checked
 * against the store's own rows.
 */

let env: SyncEnv;
let out: string;
beforeAll(async () => {
  env = await startSyncEnv({
    rate: { requests: 2000, windowMs: 1000 },
    settings: { query_sets: [101, 102], backfill_runs: 3 },
    concurrency: 8,
  });
  await env.sync();
  out = mkdtempSync(join(tmpdir(), 'reportd-export-tables-'));
}, 60_000);
afterAll(async () => {
  await env.close();
  rmSync(out, { recursive: true, force: true });
});

/** A table's rows as objects keyed by column name. */
function records(tables: ExportTable[], name: string): Record<string, unknown>[] {
  const table = tables.find((t) => t.name === name)!;
  return table.rows.map((row) => Object.fromEntries(table.columns.map((c, i) => [c.name, row[i]])));
}

/** Runs of a set with derived metric rows, oldest first (by the API's creation time). */
async function storedRuns(querySetId: number): Promise<number[]> {
  const rows = await env.store.all<{ id: number; created_at: string }>(
    `SELECT r.id, r.created_at FROM metric_derivations d JOIN snapshots s ON s.id = d.snapshot_id
     JOIN runs r ON r.account = s.account AND r.query_set_id = s.query_set_id AND r.id = s.run_id
     WHERE s.query_set_id = ?`,
    [querySetId],
  );
  return rows
    .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || a.id - b.id)
    .map((r) => Number(r.id));
}

describe('export tables from the store', () => {
  it('lists every derived run once, by set then oldest run first, with its metric row count', async () => {
    const tables = await exportTables(env.store, {});
    const runs = records(tables, 'runs');
    expect(runs).toHaveLength(6); // three runs backfilled per set
    expect(runs.map((r) => [r.query_set_id, r.run_id])).toEqual([
      ...(await storedRuns(101)).map((id) => [101, id]),
      ...(await storedRuns(102)).map((id) => [102, id]),
    ]);
    for (const run of runs) {
      const counted = await env.store.get<{ n: number }>(
        `SELECT COUNT(*) AS n FROM metric_values WHERE query_set_id = ? AND run_id = ?`,
        [run.query_set_id, run.run_id],
      );
      expect(Number(run.metric_rows)).toBe(Number(counted!.n));
      expect(Number(run.metric_rows)).toBeGreaterThan(0);
      expect(run.run).toEqual(expect.any(String));
      expect(run.run_created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    }
    const values = records(tables, 'metric_values');
    const total = await env.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM metric_values');
    expect(values).toHaveLength(Number(total!.n));
    expect(runs.reduce((sum, r) => sum + Number(r.metric_rows), 0)).toBe(values.length);
  }, 60_000);

  it('narrows the runs and query sets to the selection', async () => {
    const tables = await exportTables(env.store, { querySetIds: [102], runs: 2 });
    const newestTwo = (await storedRuns(102)).slice(-2);
    expect(records(tables, 'runs').map((r) => r.run_id)).toEqual(newestTwo);
    const sets = records(tables, 'query_sets');
    expect(sets.map((s) => s.query_set_id)).toEqual([102]);
    expect(sets[0]!.brand).toEqual(expect.any(String));
    expect(sets[0]!.account).toBe('acme');
    expect(new Set(records(tables, 'metric_values').map((v) => `${v.query_set_id}/${v.run_id}`))).toEqual(
      new Set(newestTwo.map((id) => `102/${id}`)),
    );
  }, 60_000);

  it('refuses a set or an account the store does not hold, naming it and the store', async () => {
    const unknownSet = exportMetrics(env.store, { format: 'csv', outDir: out, querySetIds: [101, 999] });
    await expect(unknownSet).rejects.toThrow(UsageError);
    await expect(unknownSet).rejects.toThrow(
      `query set 999 is not in store ${env.store.location} (sets with data: 101, 102)`,
    );
    await expect(exportMetrics(env.store, { format: 'csv', outDir: out, account: 'nobody' })).rejects.toThrow(
      `account "nobody" is not in store ${env.store.location}`,
    );
  }, 60_000);
});
