import type { MetricUnit } from '../api/field-units.js';
import { newestRunFirst } from './query-sets.js';
import type { Store } from './sql.js';

/**
 * The metrics layer's read side, for the exports and for whatever reads rows across runs (digest,
 * alerts): derived snapshots chosen by account, set and the newest N runs, then their rows and text.
 */

/** A `metric_values` row with the public column names (docs/analysing-data.md documents them). */
export interface MetricValueRow {
  account: string;
  brand_id: number | null;
  brand: string | null;
  query_set_id: number;
  query_set: string;
  run_id: number;
  run: string;
  run_created_at: string;
  endpoint: string;
  field: string;
  dimension: string;
  dimension_id: string | null;
  dimension_label: string | null;
  value: number;
  unit: MetricUnit;
}

/** The public columns of `metric_values`, in order (docs/analysing-data.md). */
export const METRIC_VALUE_COLUMNS = [
  'account',
  'brand_id',
  'brand',
  'query_set_id',
  'query_set',
  'run_id',
  'run',
  'run_created_at',
  'endpoint',
  'field',
  'dimension',
  'dimension_id',
  'dimension_label',
  'value',
  'unit',
] as const satisfies readonly (keyof MetricValueRow)[];

export interface MetricSelection {
  account?: string;
  /** Query set ids; absent means every set. */
  querySetIds?: readonly number[];
  /** The newest N derived runs of each set; absent means all. */
  runs?: number;
}

export interface DerivedSnapshot {
  snapshot_id: number;
  account: string;
  query_set_id: number;
  run_id: number;
  run_created_at: string;
}

/** Derived snapshots matching the selection, oldest run first within each set. */
export async function derivedSnapshots(
  store: Store,
  selection: MetricSelection = {},
): Promise<DerivedSnapshot[]> {
  const rows = await store.all<DerivedSnapshot>(
    `SELECT s.id AS snapshot_id, s.account, s.query_set_id, s.run_id, r.created_at AS run_created_at
     FROM metric_derivations d
     JOIN snapshots s ON s.id = d.snapshot_id
     JOIN runs r ON r.account = s.account AND r.query_set_id = s.query_set_id AND r.id = s.run_id
     WHERE (CAST(? AS TEXT) IS NULL OR s.account = ?)`,
    [selection.account ?? null, selection.account ?? null],
  );
  const sets = selection.querySetIds ? new Set(selection.querySetIds) : undefined;
  const bySet = new Map<string, DerivedSnapshot[]>();
  for (const row of rows) {
    if (sets && !sets.has(row.query_set_id)) continue;
    const key = `${row.account}\u0000${row.query_set_id}`;
    bySet.set(key, [...(bySet.get(key) ?? []), row]);
  }
  const run = (row: DerivedSnapshot) => ({ id: row.run_id, created_at: row.run_created_at });
  const chosen: DerivedSnapshot[] = [];
  for (const list of bySet.values()) {
    // Sorted here, not in SQL: offsets without a colon are valid ISO 8601 but not to SQLite.
    const newestFirst = list.sort((a, b) => newestRunFirst(run(a), run(b)));
    const kept = selection.runs === undefined ? newestFirst : newestFirst.slice(0, selection.runs);
    chosen.push(...kept.reverse());
  }
  return chosen.sort((a, b) => a.account.localeCompare(b.account) || a.query_set_id - b.query_set_id);
}

const VALUES_OF_SNAPSHOT = `SELECT ${METRIC_VALUE_COLUMNS.join(', ')} FROM metric_values WHERE snapshot_id = ? ORDER BY rowid`;

/** The tidy rows of the selection, in snapshot order (set, then oldest run first), then as derived. */
export async function metricValues(store: Store, selection: MetricSelection = {}): Promise<MetricValueRow[]> {
  return metricValuesOf(store, await derivedSnapshots(store, selection));
}

export async function metricValuesOf(
  store: Store,
  snapshots: readonly DerivedSnapshot[],
): Promise<MetricValueRow[]> {
  // One indexed query per snapshot: faster than a join on a list of ids, and already in row order.
  const rows: MetricValueRow[] = [];
  for (const snapshot of snapshots) {
    for (const row of await store.all<MetricValueRow>(VALUES_OF_SNAPSHOT, [snapshot.snapshot_id]))
      rows.push(row);
  }
  return rows;
}

/** As `metricValuesOf`, each row an array in `METRIC_VALUE_COLUMNS` order (for bulk writers). */
export async function metricValueArraysOf(
  store: Store,
  snapshots: readonly DerivedSnapshot[],
): Promise<unknown[][]> {
  const rows = await metricValuesOf(store, snapshots);
  return rows.map((row) => METRIC_VALUE_COLUMNS.map((column) => row[column]));
}

/** The columns of each companion table after its snapshot id (migration 006). */
const COMPANION_COLUMNS = {
  metric_error_register: ['error_id', 'title', 'correct', 'note', 'engine_id', 'engine', 'claim'],
  metric_summaries: ['content'],
  metric_sources: ['source', 'control', 'source_type'],
} as const;

/** Rows of a companion table (`metric_error_register`, …) for the snapshots, with their run context. */
export async function companionRows(
  store: Store,
  table: keyof typeof COMPANION_COLUMNS,
  snapshots: readonly DerivedSnapshot[],
): Promise<Record<string, unknown>[]> {
  const sql = `SELECT s.account, s.query_set_id, s.run_id, ${COMPANION_COLUMNS[table].map((c) => `t.${c}`).join(', ')}
    FROM snapshots s JOIN ${table} t ON t.snapshot_id = s.id WHERE s.id = ? ORDER BY t.rowid`;
  const rows: Record<string, unknown>[] = [];
  for (const snapshot of snapshots)
    rows.push(...(await store.all<Record<string, unknown>>(sql, [snapshot.snapshot_id])));
  return rows;
}

/** Engines or intents named by the snapshots, one row each (the newest label wins). */
export async function dimensionsOf(
  store: Store,
  dimension: 'engine' | 'intent',
  snapshots: readonly DerivedSnapshot[],
): Promise<{ account: string; id: string; label: string; stage: string | null }[]> {
  type Row = { account: string; id: string; label: string; stage: string | null };
  const byId = new Map<string, Row>();
  for (const snapshot of snapshots) {
    const rows = await store.all<Row>(
      `SELECT s.account, d.dimension_id AS id, d.dimension_label AS label, d.stage
       FROM snapshots s JOIN metric_dimensions d ON d.snapshot_id = s.id AND d.dimension = ?
       WHERE s.id = ?`,
      [dimension, snapshot.snapshot_id],
    );
    for (const row of rows) byId.set(`${row.account}\u0000${row.id}`, row);
  }
  return [...byId.values()].sort((a, b) => a.account.localeCompare(b.account) || Number(a.id) - Number(b.id));
}
