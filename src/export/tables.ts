import { runChanges } from '../insight/run-changes.js';
import { exportQuerySets, exportRuns } from '../store/export-reads.js';
import {
  companionRows,
  type DerivedSnapshot,
  derivedSnapshots,
  dimensionsOf,
  METRIC_VALUE_COLUMNS,
  type MetricSelection,
  metricValueArraysOf,
} from '../store/metric-reads.js';
import type { Store } from '../store/sql.js';

/**
 * What `reportd export` writes, format-neutral: `metric_values` and its companion tables as typed
 * columns. Each writer (csv.ts, parquet.ts, xlsx.ts) maps the column types to its own.
 */

export type ColumnType = 'string' | 'integer' | 'double' | 'timestamp' | 'boolean';

export interface ExportColumn {
  readonly name: string;
  readonly type: ColumnType;
}

export interface ExportTable {
  /** File base name (`metric_values` → `metric_values.csv`) and Excel table name. */
  readonly name: string;
  readonly columns: readonly ExportColumn[];
  /** One array per row, in column order; null for a missing value. */
  readonly rows: readonly (readonly unknown[])[];
}

const col = (name: string, type: ColumnType = 'string'): ExportColumn => ({ name, type });
const RUN_KEY = [col('account'), col('query_set_id', 'integer'), col('run_id', 'integer')];

const NUMERIC: Partial<Record<string, ColumnType>> = {
  brand_id: 'integer',
  query_set_id: 'integer',
  run_id: 'integer',
  run_created_at: 'timestamp',
  value: 'double',
};

/** `metric_values` with the public column names of the store's read API, typed for the writers. */
export const METRIC_VALUE_EXPORT: readonly ExportColumn[] = METRIC_VALUE_COLUMNS.map((name) =>
  col(name, NUMERIC[name] ?? 'string'),
);

function table(name: string, columns: readonly ExportColumn[], records: readonly object[]) {
  return {
    name,
    columns,
    rows: records.map((record) => columns.map((c) => (record as Record<string, unknown>)[c.name] ?? null)),
  };
}

async function runsTable(store: Store, snapshots: readonly DerivedSnapshot[]): Promise<ExportTable> {
  const records = await exportRuns(
    store,
    snapshots.map((s) => s.snapshot_id),
  );
  return table(
    'runs',
    [
      ...RUN_KEY,
      col('run'),
      col('run_created_at', 'timestamp'),
      col('completed_at', 'timestamp'),
      col('metric_rows', 'integer'),
    ],
    records,
  );
}

async function querySetsTable(store: Store, snapshots: readonly DerivedSnapshot[]): Promise<ExportTable> {
  const keys = new Set(snapshots.map((s) => `${s.account}\u0000${s.query_set_id}`));
  const records = (await exportQuerySets(store)).filter((q) =>
    keys.has(`${q.account}\u0000${q.query_set_id}`),
  );
  return table(
    'query_sets',
    [
      col('account'),
      col('query_set_id', 'integer'),
      col('query_set'),
      col('brand_id', 'integer'),
      col('brand'),
      col('created_at', 'timestamp'),
      col('state'),
    ],
    records,
  );
}

/**
 * Each run's changes against the run stored before it, with the noise model's verdict: each run's
 * changes judged as one family (its p, its adjusted q, the family's size), the interval of the change
 * in points at the level that agrees with the verdict, the answers behind each side and where that n
 * came from (docs/analysing-data.md, "How noise is judged"), and the metric's readable name in `label`.
 */
export const METRIC_CHANGE_EXPORT: readonly ExportColumn[] = [
  col('account'),
  col('query_set_id', 'integer'),
  col('query_set'),
  col('run_id', 'integer'),
  col('run'),
  col('previous_run_id', 'integer'),
  col('previous_run'),
  col('endpoint'),
  col('field'),
  col('dimension'),
  col('dimension_id'),
  col('dimension_label'),
  col('label'),
  col('unit'),
  col('before', 'double'),
  col('after', 'double'),
  col('change', 'double'),
  col('interval_low', 'double'),
  col('interval_high', 'double'),
  col('interval_level', 'double'),
  col('n_before', 'integer'),
  col('n_after', 'integer'),
  col('n_source'),
  col('p', 'double'),
  col('q', 'double'),
  col('family_size', 'integer'),
  col('significance'),
];

/** Every table of an export of the selection; `metric_values` first. */
export async function exportTables(store: Store, selection: MetricSelection): Promise<ExportTable[]> {
  return exportTablesOf(store, await derivedSnapshots(store, selection));
}

/** Every table of an export of these derived snapshots (an incremental load: the runs a target lacks). */
export async function exportTablesOf(
  store: Store,
  snapshots: readonly DerivedSnapshot[],
): Promise<ExportTable[]> {
  const values = await metricValueArraysOf(store, snapshots);
  const engines = (await dimensionsOf(store, 'engine', snapshots)).map((e) => ({
    account: e.account,
    engine_id: Number(e.id),
    engine: e.label,
  }));
  const intents = (await dimensionsOf(store, 'intent', snapshots)).map((i) => ({
    account: i.account,
    intent_id: Number(i.id),
    intent: i.label,
    stage: i.stage,
  }));
  return [
    {
      name: 'metric_values',
      columns: METRIC_VALUE_EXPORT,
      rows: values,
    },
    table(
      'metric_changes',
      METRIC_CHANGE_EXPORT,
      (await runChanges(store, snapshots)).map((c) => ({
        ...c,
        interval_low: c.low,
        interval_high: c.high,
        interval_level: c.level,
        family_size: c.familySize,
        n_before: c.nBefore,
        n_after: c.nAfter,
        n_source: c.nSource,
      })),
    ),
    await runsTable(store, snapshots),
    await querySetsTable(store, snapshots),
    table('engines', [col('account'), col('engine_id', 'integer'), col('engine')], engines),
    table('intents', [col('account'), col('intent_id', 'integer'), col('intent'), col('stage')], intents),
    table(
      'error_register',
      [
        ...RUN_KEY,
        col('error_id'),
        col('title'),
        col('correct'),
        col('note'),
        col('engine_id', 'integer'),
        col('engine'),
        col('claim'),
      ],
      await companionRows(store, 'metric_error_register', snapshots),
    ),
    table(
      'sources',
      [...RUN_KEY, col('source'), col('control'), col('source_type')],
      await companionRows(store, 'metric_sources', snapshots),
    ),
    table(
      'summaries',
      [...RUN_KEY, col('content')],
      await companionRows(store, 'metric_summaries', snapshots),
    ),
  ];
}
