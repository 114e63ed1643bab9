import type { MetricSelection } from '../store/metric-reads.js';
import type { Store } from '../store/sql.js';
import { duckdbTarget, replaceDuckdbFile } from './duckdb-target.js';
import { checkSelection } from './export.js';
import { filesTarget } from './files-target.js';
import type { ExportFormat } from './formats.js';
import { type LoadOptions, type LoadResult, loadInto } from './load.js';
import type { LoadTarget } from './load-target.js';
import { postgresTarget } from './postgres-target.js';

/**
 * The loads of `reportd export`: `--format duckdb` (a whole new file, or with `--incremental` the
 * runs the file lacks), `--incremental` into a folder of csv/parquet load folders, and `--to
 * postgres://…`. Returns the one line the command prints.
 */

export interface RunLoadOptions {
  target: { file: string } | { url: string; schema: string };
  format?: ExportFormat;
  /** The `--incremental` name; absent for a whole new DuckDB file. */
  name?: string;
  selection: MetricSelection;
  onRows?: LoadOptions['onRows'];
}

function summary(result: LoadResult, where: string): string {
  if (result.loadId === null)
    return `nothing new to load into ${where}: every selected run is already there (0 rows written)`;
  const rows = Object.values(result.rowsPerTable).reduce((sum, n) => sum + n, 0);
  const tables = Object.entries(result.rowsPerTable)
    .map(([table, n]) => `${table} ${n}`)
    .join(', ');
  return (
    `load ${result.loadId} into ${where}: ${result.runs} run${result.runs === 1 ? '' : 's'}, ${rows} rows (${tables})` +
    (result.note ? `\nnote: ${result.note}` : '')
  );
}

export async function runLoad(store: Store, options: RunLoadOptions): Promise<string> {
  await checkSelection(store, options.selection);
  const name = options.name ?? 'export';
  const load = (target: LoadTarget) =>
    loadInto(store, target, { name, selection: options.selection, onRows: options.onRows });
  if ('url' in options.target) {
    const target = postgresTarget(options.target.url, options.target.schema);
    return summary(await load(target), target.description);
  }
  const file = options.target.file;
  if (options.format === 'duckdb') {
    if (options.name !== undefined) {
      const target = duckdbTarget(file);
      return summary(await load(target), target.description);
    }
    let result: LoadResult | undefined;
    await replaceDuckdbFile(file, async (target) => {
      result = await load(target);
    });
    return summary(result!, `new DuckDB file ${file}`);
  }
  const target = filesTarget(file, options.format === 'parquet' ? 'parquet' : 'csv');
  return summary(await load(target), target.description);
}
