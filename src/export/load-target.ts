import type { ColumnType, ExportTable } from './tables.js';

/**
 * What an incremental load writes into (a DuckDB file, a PostgreSQL schema, a folder of files), as
 * dlt and Airbyte shape a destination: every row carries the load's id, and `_loads` says what each
 * load brought. A target's writes between `begin` and `commit` are all or nothing.
 */

/** One row of `_loads`. */
export interface LoadRecord {
  load_id: string;
  /** The `--incremental` name the load ran under. */
  name: string;
  started_at: Date;
  finished_at: Date;
  /** How many runs the load brought; `runs_covered` lists them. */
  runs: number;
  runs_covered: readonly { account: string; query_set_id: number; run_id: number }[];
  rows_per_table: Readonly<Record<string, number>>;
  /** The store's metric mapping version the rows were derived with (src/store/metric-values.ts). */
  mapping_version: number;
  /** Null, or what changed since the previous load (a new metric mapping). */
  note: string | null;
}

export interface LoadTarget {
  /** Where, for messages: never a password. */
  readonly description: string;
  /** Opens the target, creates what is missing, takes its writer's lock and starts the transaction. */
  begin(tables: readonly ExportTable[]): Promise<void>;
  /** `account\0set\0run` of every run the target already holds. */
  loadedRuns(): Promise<Set<string>>;
  /** The key of every row already in `table`, by the given key columns joined with `\0`. */
  loadedKeys(table: string, keyColumns: readonly string[]): Promise<Set<string>>;
  /** The mapping version of the newest load, or null for a target never loaded. */
  lastMappingVersion(): Promise<number | null>;
  /**
   * Appends rows to a table (already stamped with the load id: the last column `_load_id`); called
   * once per chunk of a table's rows, and once per table even when it has none.
   */
  insert(table: ExportTable): Promise<void>;
  recordLoad(record: LoadRecord): Promise<void>;
  commit(): Promise<void>;
  /** Leaves the target as it was before `begin` (when not committed) and releases it; safe twice. */
  close(): Promise<void>;
}

export const LOAD_ID_COLUMN = '_load_id';

export const runKey = (account: unknown, querySetId: unknown, runId: unknown): string =>
  `${account}\u0000${Number(querySetId)}\u0000${Number(runId)}`;

/** The table with every row stamped with the load id, in a last column `_load_id`. */
export function stamped(table: ExportTable, loadId: string): ExportTable {
  return {
    name: table.name,
    columns: [...table.columns, { name: LOAD_ID_COLUMN, type: 'string' }],
    rows: table.rows.map((row) => [...row, loadId]),
  };
}

/**
 * A cell as a typed value for a database: ids as numbers, times as `Date` (the API writes offsets
 * both with and without a colon; `Date.parse` reads both), text as text whatever it contains.
 */
export function typedCell(value: unknown, type: ColumnType): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return Math.trunc(Number(value));
    case 'double':
      return Number(value);
    case 'timestamp': {
      const ms = Date.parse(String(value));
      return Number.isNaN(ms) ? null : new Date(ms);
    }
    case 'boolean':
      return Boolean(value);
    default:
      return String(value);
  }
}

/**
 * The two views of the store, over the exported tables: the same names and columns, so the README's
 * queries read a target as they read the store.
 */
export function viewsSql(qualify: (name: string) => string): string[] {
  return [
    `CREATE OR REPLACE VIEW ${qualify('v_metric_values')} AS
SELECT account, brand_id, brand, query_set_id, query_set, run_id, run, run_created_at,
       endpoint, field, dimension, dimension_id, dimension_label, value, unit,
       CASE unit WHEN 'fraction' THEN value * 100 WHEN 'percent' THEN value END AS value_pct
FROM ${qualify('metric_values')}`,
    `CREATE OR REPLACE VIEW ${qualify('v_error_register')} AS
SELECT e.account, e.query_set_id, e.run_id, r.run, r.run_created_at,
       e.error_id, e.title, e.correct, e.note, e.engine_id, e.engine, e.claim
FROM ${qualify('error_register')} e
JOIN ${qualify('runs')} r ON r.account = e.account AND r.query_set_id = e.query_set_id AND r.run_id = e.run_id`,
  ];
}

/** Column types of a SQL target (DuckDB and PostgreSQL spell them the same way here but for text). */
export function sqlType(type: ColumnType, text: string): string {
  return {
    string: text,
    integer: 'BIGINT',
    double: 'DOUBLE PRECISION',
    timestamp: 'TIMESTAMPTZ',
    boolean: 'BOOLEAN',
  }[type];
}

export function createTableSql(table: ExportTable, qualify: (name: string) => string, text: string): string {
  const columns = table.columns.map((c) => `${c.name} ${sqlType(c.type, text)}`).join(', ');
  return `CREATE TABLE IF NOT EXISTS ${qualify(table.name)} (${columns})`;
}

export function createLoadsSql(qualify: (name: string) => string, text: string): string {
  return `CREATE TABLE IF NOT EXISTS ${qualify('_loads')} (
  load_id ${text} PRIMARY KEY, name ${text} NOT NULL, started_at TIMESTAMPTZ NOT NULL,
  finished_at TIMESTAMPTZ NOT NULL, runs INTEGER NOT NULL, runs_covered ${text} NOT NULL,
  rows_per_table ${text} NOT NULL, mapping_version INTEGER NOT NULL, note ${text})`;
}

export const LOADS_COLUMNS = [
  'load_id',
  'name',
  'started_at',
  'finished_at',
  'runs',
  'runs_covered',
  'rows_per_table',
  'mapping_version',
  'note',
] as const;

/** A `_loads` row as values in `LOADS_COLUMNS` order (JSON columns as text, readable by both). */
export function loadRow(record: LoadRecord): unknown[] {
  return [
    record.load_id,
    record.name,
    record.started_at,
    record.finished_at,
    record.runs,
    JSON.stringify(record.runs_covered),
    JSON.stringify(record.rows_per_table),
    record.mapping_version,
    record.note,
  ];
}
