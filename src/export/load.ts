import { type DerivedSnapshot, derivedSnapshots, type MetricSelection } from '../store/metric-reads.js';
import { MAPPING_VERSION } from '../store/metric-values.js';
import type { Store } from '../store/sql.js';
import { type LoadRecord, type LoadTarget, runKey, stamped } from './load-target.js';
import { type ExportTable, exportTablesOf } from './tables.js';

/**
 * One load into a target: the selected runs it has not had, every row stamped with the load's id,
 * and a `_loads` row, in one transaction of the target. A load with nothing new writes nothing.
 */

/** Tables keyed by something other than a run: a load adds only the keys the target lacks. */
const KEYED_BY: Partial<Record<string, readonly string[]>> = {
  query_sets: ['account', 'query_set_id'],
  engines: ['account', 'engine_id'],
  intents: ['account', 'intent_id'],
};

export interface LoadOptions {
  name: string;
  selection: MetricSelection;
  clock?: () => Date;
  /** Told after each chunk a table's rows are written in (for a log line on long loads). */
  onRows?: (table: string, written: number, total: number) => void;
}

/** Rows per insert call: a progress line per chunk, and bounded statements for PostgreSQL. */
const CHUNK_ROWS = 10_000;

export interface LoadResult {
  /** Null when there was nothing new (and nothing was written). */
  loadId: string | null;
  runs: number;
  rowsPerTable: Record<string, number>;
  note: string | null;
}

/** `weekly-20261126T153012345Z`: sorts by time, and says which schedule wrote it. */
export function newLoadId(name: string, at: Date): string {
  return `${name}-${at.toISOString().replace(/[-:.]/g, '')}`;
}

function keyOf(row: readonly unknown[], table: ExportTable, columns: readonly string[]): string {
  return columns.map((c) => String(row[table.columns.findIndex((col) => col.name === c)])).join('\u0000');
}

async function onlyNewKeys(target: LoadTarget, table: ExportTable): Promise<ExportTable> {
  const columns = KEYED_BY[table.name];
  if (!columns) return table;
  const loaded = await target.loadedKeys(table.name, columns);
  return { ...table, rows: table.rows.filter((row) => !loaded.has(keyOf(row, table, columns))) };
}

function mappingNote(previous: number | null): string | null {
  if (previous === null || previous === MAPPING_VERSION) return null;
  return (
    `metric mapping changed from version ${previous} to ${MAPPING_VERSION}: rows of runs loaded before ` +
    `keep version ${previous}'s mapping (load into a new target to have every run on version ${MAPPING_VERSION})`
  );
}

export async function loadInto(store: Store, target: LoadTarget, options: LoadOptions): Promise<LoadResult> {
  const clock = options.clock ?? (() => new Date());
  const startedAt = clock();
  const snapshots = await derivedSnapshots(store, options.selection);
  // The empty export gives every table's columns: the target creates what it lacks from them.
  const shapes = await exportTablesOf(store, []);
  const loadId = newLoadId(options.name, startedAt);
  try {
    await target.begin(shapes.map((t) => stamped(t, loadId)));
    const loaded = await target.loadedRuns();
    const fresh: DerivedSnapshot[] = snapshots.filter(
      (s) => !loaded.has(runKey(s.account, s.query_set_id, s.run_id)),
    );
    if (fresh.length === 0) return { loadId: null, runs: 0, rowsPerTable: {}, note: null };
    const rowsPerTable: Record<string, number> = {};
    for (const table of await exportTablesOf(store, fresh)) {
      const rows = await onlyNewKeys(target, table);
      if (rows.rows.length === 0) await target.insert(stamped(rows, loadId));
      for (let start = 0; start < rows.rows.length; start += CHUNK_ROWS) {
        const chunk = { ...rows, rows: rows.rows.slice(start, start + CHUNK_ROWS) };
        await target.insert(stamped(chunk, loadId));
        options.onRows?.(table.name, start + chunk.rows.length, rows.rows.length);
      }
      rowsPerTable[table.name] = rows.rows.length;
    }
    const record: LoadRecord = {
      load_id: loadId,
      name: options.name,
      started_at: startedAt,
      finished_at: clock(),
      runs: fresh.length,
      runs_covered: fresh.map((s) => ({
        account: s.account,
        query_set_id: s.query_set_id,
        run_id: s.run_id,
      })),
      rows_per_table: rowsPerTable,
      mapping_version: MAPPING_VERSION,
      note: mappingNote(await target.lastMappingVersion()),
    };
    await target.recordLoad(record);
    await target.commit();
    return { loadId, runs: fresh.length, rowsPerTable, note: record.note };
  } finally {
    await target.close();
  }
}
