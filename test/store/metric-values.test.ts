import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricEndpoints } from '../../src/api/endpoints.js';
import { exportMetrics } from '../../src/export/export.js';
import { openStore } from '../../src/store/db.js';
import { metricValues } from '../../src/store/metric-reads.js';
import { backfillMetricRows, MAPPING_VERSION } from '../../src/store/metric-values.js';
import type { Store } from '../../src/store/sql.js';
import { type SyncEnv, startSyncEnv } from '../sync/helpers/sync-env.js';

/**
 * The tidy rows against the sandbox over HTTP, synced into a real SQLite file by the real sync: every
 * number of every payload lands in a row, with the unit the report's formatting uses.
 */

let env: SyncEnv;
beforeAll(async () => {
  env = await startSyncEnv({
    rate: { requests: 2000, windowMs: 1000 },
    settings: { query_sets: [101, 102, 201], backfill_runs: 3 },
    concurrency: 8,
  });
  await env.sync();
}, 60_000);
afterAll(() => env.close());

type Leaf = { path: string[]; value: number };
function numericLeaves(value: unknown, path: string[] = []): Leaf[] {
  if (typeof value === 'number') return [{ path, value }];
  if (Array.isArray(value)) return value.flatMap((item, i) => numericLeaves(item, [...path, String(i)]));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => numericLeaves(item, [...path, key]));
  return [];
}

interface Row {
  endpoint: string;
  field: string;
  dimension: string;
  dimension_id: string | null;
  value: number;
  unit: string;
}

async function idsOf(sql: string, params: unknown[] = []): Promise<number[]> {
  return (await env.store.all<{ id: number }>(sql, params)).map((row) => Number(row.id));
}

async function countOf(sql: string, params: unknown[] = []): Promise<number> {
  return Number((await env.store.get<{ n: number }>(sql, params))?.n);
}

describe('metric_values from the sandbox', () => {
  it('derives rows for every complete snapshot, marked with the mapping version', async () => {
    const complete = await idsOf(`SELECT id FROM snapshots WHERE state = 'complete' ORDER BY id`);
    expect(complete.length).toBe(9);
    const marks = await env.store.all<{ snapshot_id: number; mapping_version: number; rows: number }>(
      'SELECT snapshot_id, mapping_version, rows FROM metric_derivations ORDER BY snapshot_id',
    );
    expect(marks.map((m) => m.snapshot_id)).toEqual(complete);
    for (const mark of marks) {
      expect(mark.mapping_version).toBe(MAPPING_VERSION);
      expect(
        await countOf('SELECT COUNT(*) AS n FROM metric_values WHERE snapshot_id = ?', [mark.snapshot_id]),
      ).toBe(mark.rows);
      expect(mark.rows).toBeGreaterThan(300);
    }
  });

  it('puts every numeric leaf of every payload of all 34 endpoints in a row (ids as dimension ids)', async () => {
    const store = env.store;
    const snapshots = await idsOf(`SELECT id FROM snapshots WHERE state = 'complete'`);
    const seen = new Set<string>();
    for (const snapshotId of snapshots) {
      const payloads = await store.all<{ endpoint_key: string; json: string }>(
        'SELECT endpoint_key, json FROM payloads WHERE snapshot_id = ?',
        [snapshotId],
      );
      expect(payloads).toHaveLength(34);
      for (const payload of payloads) {
        seen.add(payload.endpoint_key);
        const rows = await store.all<Row>(
          'SELECT * FROM metric_values WHERE snapshot_id = ? AND endpoint = ?',
          [snapshotId, payload.endpoint_key],
        );
        const claims = await idsOf(
          'SELECT engine_id AS id FROM metric_error_register WHERE snapshot_id = ?',
          [snapshotId],
        );
        // Values still to be matched: each leaf consumes one row of equal value.
        const unmatched = rows.map((row) => row.value);
        const ids = new Set(rows.flatMap((row) => (row.dimension_id ?? '').split('|')));
        for (const leaf of numericLeaves(JSON.parse(payload.json))) {
          const where = `${payload.endpoint_key} ${leaf.path.join('.')} = ${leaf.value}`;
          const key = leaf.path.at(-1);
          if (key === 'id' || (payload.endpoint_key === 'gravity.error-register' && key === 'engine')) {
            const named = ids.has(String(leaf.value)) || (key === 'engine' && claims.includes(leaf.value));
            // An engine listed by the payload but without any number still names the error register.
            const listedOnly = payload.endpoint_key === 'gravity.error-register';
            expect(named || listedOnly, `${where}: an id no row names`).toBe(true);
            continue;
          }
          const at = unmatched.indexOf(leaf.value);
          expect(at, `${where}: no row holds this number`).toBeGreaterThanOrEqual(0);
          unmatched.splice(at, 1);
        }
        expect(unmatched, `${payload.endpoint_key}: rows with numbers the payload does not have`).toEqual([]);
      }
    }
    expect([...seen].sort()).toEqual(metricEndpoints.map((e) => e.key).sort());
  });

  it('gives every row a known unit, the one the report formats it with', async () => {
    const units = await env.store.all<{ endpoint: string; field: string; unit: string }>(
      'SELECT endpoint, field, unit FROM metric_values GROUP BY endpoint, field, unit',
    );
    expect(units.filter((u) => u.unit === 'unknown')).toEqual([]);
    const unitOf = (endpoint: string, field: string) =>
      units.filter((u) => u.endpoint === endpoint && u.field === field).map((u) => u.unit);
    expect(unitOf('presence.gross', 'current')).toEqual(['percent']);
    expect(unitOf('presence.gross', 'history')).toEqual(['percent']);
    expect(unitOf('overview.competitive-context', 'share')).toEqual(['fraction']);
    expect(unitOf('life.kpi', 'current')).toEqual(['score']);
    expect(unitOf('life.positive-negative-ratio', 'current')).toEqual(['ratio']);
    expect(unitOf('gravity.open-errors', 'count')).toEqual(['count']);
    expect(unitOf('gravity.by-engine', 'gPlus')).toEqual(['fraction']);
    expect(unitOf('gravity.by-engine', 'gravityPlus')).toEqual(['percent']);
    // Parts of one whole take the scale their parts add up to: the sandbox sends stances as
    // fractions and the source distribution in percent points.
    expect(unitOf('life.stance-mix', 'share')).toEqual(['fraction']);
    expect(unitOf('life.by-engine', 'stance.rec')).toEqual(['fraction']);
    expect(unitOf('gravity.source-distribution', 'share')).toEqual(['percent']);
    expect(unitOf('market.data', 'dStar.current')).toEqual(['fraction']);
    expect(unitOf('market.data', 'totalResponses.history')).toEqual(['count']);
  });

  it('has the payload current as the presence.gross / current row of each set and run', async () => {
    const pairs = await env.store.all<{ query_set_id: number; run_id: number; value: number; json: string }>(
      `SELECT m.query_set_id, m.run_id, m.value, p.json FROM metric_values m
       JOIN payloads p ON p.snapshot_id = m.snapshot_id AND p.endpoint_key = m.endpoint
       WHERE m.endpoint = 'presence.gross' AND m.field = 'current'`,
    );
    expect(pairs).toHaveLength(9);
    for (const pair of pairs) expect(pair.value).toBe((JSON.parse(pair.json) as { current: number }).current);
  });

  it('labels history points with their run and id, and engines with their label', async () => {
    const rows = await metricValues(env.store, { querySetIds: [101], runs: 1 });
    const newestRun = rows[0]!.run_id;
    expect(new Set(rows.map((r) => r.run_id))).toEqual(new Set([newestRun]));
    const history = rows.filter((r) => r.endpoint === 'presence.gross' && r.field === 'history');
    expect(history.length).toBeGreaterThan(3);
    // The newest point is this run: its label and, looked up in the runs table, its id.
    expect(history.at(-1)).toMatchObject({ dimension: 'measurement', dimension_id: String(newestRun) });
    expect(history.at(-1)!.dimension_label).toBe(rows[0]!.run);
    const engine = rows.find((r) => r.endpoint === 'presence.by-engine' && r.field === 'weighted');
    expect(engine).toMatchObject({ dimension: 'engine', dimension_id: '3', dimension_label: 'ChatGPT' });
    expect(rows[0]).toMatchObject({
      account: 'acme',
      brand_id: 1,
      brand: 'Northwind Coffee',
      query_set_id: 101,
    });
  });

  it('is idempotent: deriving again changes nothing', async () => {
    const before = await countOf('SELECT COUNT(*) AS n FROM metric_values');
    expect(await backfillMetricRows(env.store)).toBe(0);
    await env.store.run('DELETE FROM metric_derivations');
    expect(await backfillMetricRows(env.store)).toBe(9);
    expect(await countOf('SELECT COUNT(*) AS n FROM metric_values')).toBe(before);
  });

  it('derives once, at open, the rows of a store created before the metrics layer, and exports them', async () => {
    const before = await countOf('SELECT COUNT(*) AS n FROM metric_values');
    // What a store of the previous release is: the same tables without the metric ones.
    await env.store.exec(`DROP VIEW v_metric_values; DROP VIEW v_error_register;
      DROP TABLE metric_values; DROP TABLE metric_derivations; DROP TABLE metric_error_register;
      DROP TABLE metric_summaries; DROP TABLE metric_sources; DROP TABLE metric_dimensions;
      DELETE FROM schema_migrations WHERE version = 6;`);
    const derivedAt = async (store: Store) =>
      (
        await store.all<{ at: string }>(
          'SELECT derived_at AS at FROM metric_derivations ORDER BY snapshot_id',
        )
      ).map((row) => row.at);
    const reopened = await openStore(env.storePath);
    let first: string[];
    try {
      expect(await reopened.get('SELECT COUNT(*) AS n FROM metric_values')).toEqual({ n: before });
      first = await derivedAt(reopened);
      expect(first).toHaveLength(9);
    } finally {
      await reopened.close();
    }
    const again = await openStore(env.storePath);
    try {
      expect(await derivedAt(again)).toEqual(first);
      // …and exports them.
      const out = mkdtempSync(join(tmpdir(), 'reportd-old-store-'));
      try {
        const result = await exportMetrics(again, { format: 'csv', outDir: out });
        expect(result.rows).toBe(before);
        const lines = readFileSync(join(out, 'metric_values.csv'), 'utf8').trimEnd().split('\r\n');
        expect(lines).toHaveLength(before + 1);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    } finally {
      await again.close();
    }
  });
});
