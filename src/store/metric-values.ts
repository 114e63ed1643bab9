import { payloadRows } from '../api/metric-rows.js';
import { dimensionRows, errorClaimRows, sourceRows, summaryText } from '../api/metric-texts.js';
import { insertRows } from './insert-rows.js';
import { lockSnapshot, reportableSql } from './snapshot-state.js';
import type { Store } from './sql.js';

/**
 * The metrics layer's write side: a snapshot's tidy rows (`metric_values`) and companion text tables,
 * derived from its valid payloads. Derivation replaces whatever the snapshot had, in one transaction
 * (a savepoint when the caller already holds one, as `savePayload` does), so a crash leaves a snapshot
 * with all of its rows or none.
 */

/** Bump when metric-mapping.ts changes what rows a payload gives: stored snapshots derive again at open. */
export const MAPPING_VERSION = 1;

interface SnapshotLabels {
  account: string;
  brand_id: number | null;
  brand: string | null;
  query_set_id: number;
  query_set: string;
  run_id: number;
  run: string;
  run_created_at: string;
}

const INSERT_VALUES = `INSERT INTO metric_values (snapshot_id, account, brand_id, brand, query_set_id, query_set,
  run_id, run, run_created_at, endpoint, field, dimension, dimension_id, dimension_label, value, unit) VALUES`;

const DERIVED_TABLES = [
  'metric_values',
  'metric_error_register',
  'metric_summaries',
  'metric_sources',
  'metric_dimensions',
  'metric_derivations',
];

/**
 * Derives (again) the rows of one snapshot from its valid payloads; an invalid or missing payload
 * contributes nothing. Callers decide when: `savePayload` calls it in the transaction that completes
 * the snapshot, `backfillMetricRows` for snapshots stored before. Returns the number of rows.
 */
export function deriveMetricRows(store: Store, snapshotId: number): Promise<number> {
  return store.transaction(async (): Promise<number> => {
    // Two processes deriving one snapshot at once (two `reportd` opening a store that needs a
    // backfill) would each delete nothing and then both insert: on PostgreSQL the second waits here.
    await lockSnapshot(store, snapshotId);
    for (const table of DERIVED_TABLES)
      await store.run(`DELETE FROM ${table} WHERE snapshot_id = ?`, [snapshotId]);
    const labels = await snapshotLabels(store, snapshotId);
    if (!labels) return 0;
    const runIdByLabel = await runIdsByLabel(store, labels);
    const payloads = await validPayloads(store, snapshotId);
    const rows = await insertDerivedRows(store, collectRows(snapshotId, labels, payloads, runIdByLabel));
    await store.run(
      'INSERT INTO metric_derivations (snapshot_id, mapping_version, rows, derived_at) VALUES (?, ?, ?, ?)',
      [snapshotId, MAPPING_VERSION, rows, new Date().toISOString()],
    );
    return rows;
  });
}

/** What every row of the snapshot repeats: its account, brand, set and run (undefined: no such snapshot). */
function snapshotLabels(store: Store, snapshotId: number): Promise<SnapshotLabels | undefined> {
  return store.get<SnapshotLabels>(
    `SELECT s.account, q.brand_id, b.name AS brand, s.query_set_id, q.name AS query_set, s.run_id,
            r.display_name AS run, r.created_at AS run_created_at
     FROM snapshots s
     JOIN runs r ON r.account = s.account AND r.query_set_id = s.query_set_id AND r.id = s.run_id
     JOIN query_sets q ON q.account = s.account AND q.id = s.query_set_id
     LEFT JOIN brands b ON b.account = q.account AND b.id = q.brand_id
     WHERE s.id = ?`,
    [snapshotId],
  );
}

/** The set's runs by display label, so a trend point labelled with a run gets that run's id. */
async function runIdsByLabel(store: Store, labels: SnapshotLabels): Promise<Map<string, number>> {
  const runIdByLabel = new Map<string, number>();
  const runs = await store.all<{ id: number; display_name: string }>(
    'SELECT id, display_name FROM runs WHERE account = ? AND query_set_id = ?',
    [labels.account, labels.query_set_id],
  );
  for (const run of runs) {
    // Two runs with one label cannot be told apart by label: leave such points without an id.
    runIdByLabel.set(run.display_name, runIdByLabel.has(run.display_name) ? Number.NaN : run.id);
  }
  for (const [label, id] of runIdByLabel) if (Number.isNaN(id)) runIdByLabel.delete(label);
  return runIdByLabel;
}

interface StoredPayload {
  endpoint: string;
  data: unknown;
}

async function validPayloads(store: Store, snapshotId: number): Promise<StoredPayload[]> {
  const stored = await store.all<{ endpoint_key: string; json: string }>(
    'SELECT endpoint_key, json FROM payloads WHERE snapshot_id = ? AND validation_error IS NULL ORDER BY endpoint_key',
    [snapshotId],
  );
  return stored.map((row) => ({
    endpoint: row.endpoint_key,
    data: JSON.parse(row.json) as unknown,
  }));
}

/**
 * A snapshot's rows, collected before any is written: the parameters of each derived table's INSERT in
 * column order (metric_dimensions' are read from the payloads as they are written).
 */
interface DerivedRows {
  snapshotId: number;
  payloads: readonly StoredPayload[];
  values: unknown[][];
  claims: unknown[][];
  summaries: unknown[][];
  sources: unknown[][];
}

function collectRows(
  snapshotId: number,
  labels: SnapshotLabels,
  payloads: readonly StoredPayload[],
  runIdByLabel: Map<string, number>,
): DerivedRows {
  const l = labels;
  const context = [
    l.account,
    l.brand_id,
    l.brand,
    l.query_set_id,
    l.query_set,
    l.run_id,
    l.run,
    l.run_created_at,
  ];
  const derived: DerivedRows = { snapshotId, payloads, values: [], claims: [], summaries: [], sources: [] };
  const { values, claims, summaries, sources } = derived;
  for (const { endpoint, data } of payloads) {
    for (const row of payloadRows(endpoint, data, { runIdByLabel })) {
      values.push([
        snapshotId,
        ...context,
        row.endpoint,
        row.field,
        row.dimension,
        row.dimension_id,
        row.dimension_label,
        row.value,
        row.unit,
      ]);
    }
    if (endpoint === 'gravity.error-register') {
      for (const c of errorClaimRows(data)) {
        claims.push([snapshotId, c.error_id, c.title, c.correct, c.note, c.engine_id, c.engine, c.claim]);
      }
    } else if (endpoint === 'overview.summary') {
      const content = summaryText(data);
      if (content !== null) summaries.push([snapshotId, content]);
    } else if (endpoint === 'scout.source-landscape') {
      for (const src of sourceRows(data))
        sources.push([snapshotId, src.source, src.control, src.source_type]);
    }
  }
  return derived;
}

/**
 * Writes the collected rows a few dozen per statement (insert-rows.ts): a snapshot has ~700 rows,
 * and one statement per row was most of the statements of the payload that completed it. Returns
 * the number of metric_values rows.
 */
async function insertDerivedRows(store: Store, derived: DerivedRows): Promise<number> {
  const { snapshotId } = derived;
  const rows = await insertRows(store, INSERT_VALUES, derived.values);
  await insertRows(
    store,
    'INSERT INTO metric_error_register (snapshot_id, error_id, title, correct, note, engine_id, engine, claim) VALUES',
    derived.claims,
  );
  await insertRows(store, 'INSERT INTO metric_summaries (snapshot_id, content) VALUES', derived.summaries);
  await insertRows(
    store,
    'INSERT INTO metric_sources (snapshot_id, source, control, source_type) VALUES',
    derived.sources,
  );
  await insertRows(
    store,
    'INSERT INTO metric_dimensions (snapshot_id, dimension, dimension_id, dimension_label, stage) VALUES',
    dimensionRows(derived.payloads.map((p) => p.data)).map((d) => [
      snapshotId,
      d.dimension,
      d.dimension_id,
      d.dimension_label,
      d.stage,
    ]),
    'ON CONFLICT DO NOTHING',
  );
  return rows;
}

/** Snapshots that carry rows but were never derived (stored before the metrics layer) or by an older mapping. */
export async function snapshotsToDerive(store: Store): Promise<number[]> {
  if (!(await hasMetricTables(store))) return [];
  const rows = await store.all<{ id: number }>(
    `SELECT s.id FROM snapshots s LEFT JOIN metric_derivations d ON d.snapshot_id = s.id
     WHERE ${reportableSql('s')} AND (d.snapshot_id IS NULL OR d.mapping_version < ?)
     ORDER BY s.id`,
    [MAPPING_VERSION],
  );
  return rows.map((row) => row.id);
}

/**
 * Derives every snapshot that needs it, one transaction each: an interrupted backfill keeps the
 * snapshots it finished and the next open derives the rest. Idempotent: a derived snapshot is skipped.
 */
export async function backfillMetricRows(
  store: Store,
  onDerived?: (snapshotId: number, rows: number) => void,
): Promise<number> {
  const ids = await snapshotsToDerive(store);
  let derived = 0;
  for (const id of ids) {
    const rows = await store.transaction(async () => {
      await lockSnapshot(store, id);
      // Another process backfilling the same store may have derived it since the list was read.
      if (!(await needsDerivation(store, id))) return undefined;
      return deriveMetricRows(store, id);
    });
    if (rows === undefined) continue;
    derived++;
    onDerived?.(id, rows);
  }
  return derived;
}

async function needsDerivation(store: Store, snapshotId: number): Promise<boolean> {
  const row = await store.get(
    'SELECT 1 AS done FROM metric_derivations WHERE snapshot_id = ? AND mapping_version >= ?',
    [snapshotId, MAPPING_VERSION],
  );
  return row === undefined;
}

/** False on a store opened with an older migration list (tests of upgrades): nothing to derive into. */
async function hasMetricTables(store: Store): Promise<boolean> {
  const row = await store.get(
    store.engine === 'postgres'
      ? `SELECT 1 AS found FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'metric_derivations'`
      : `SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'metric_derivations'`,
  );
  return row !== undefined;
}
