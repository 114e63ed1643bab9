import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../errors/index.js';
import { accountIsStored, derivedQuerySetIds, querySetIsStored } from '../store/export-reads.js';
import type { MetricSelection } from '../store/metric-reads.js';
import type { Store } from '../store/sql.js';
import { writeAtomically } from '../write-atomically.js';
import { toCsv } from './csv.js';
import type { ExportFormat } from './formats.js';
import { type ExportTable, exportTables } from './tables.js';

/**
 * `reportd export`: the tidy rows and companion tables of the selected sets and runs, from the store
 * only, as CSV or Parquet (a file per table) or one workbook (a sheet and Excel table per table).
 */

export interface ExportOptions extends MetricSelection {
  format: Exclude<ExportFormat, 'duckdb'>;
  outDir: string;
  generatedAt?: Date;
}

export interface ExportResult {
  files: string[];
  rows: number;
  snapshots: number;
}

/** Refuses, naming it, a set the store does not know or has no complete snapshot of; an empty store too. */
export async function checkSelection(store: Store, selection: MetricSelection): Promise<void> {
  const derived = await derivedQuerySetIds(store, selection.account);
  if (selection.account !== undefined && !(await accountIsStored(store, selection.account))) {
    throw new UsageError(`account "${selection.account}" is not in store ${store.location}`);
  }
  if (derived.length === 0) {
    throw new UsageError(
      `store ${store.location} has no complete snapshot${selection.account ? ` of account "${selection.account}"` : ''} to export (run \`reportd sync\` first)`,
    );
  }
  for (const id of selection.querySetIds ?? []) {
    if (derived.includes(id)) continue;
    const known = await querySetIsStored(store, id, selection.account);
    throw new UsageError(
      known
        ? `query set ${id} has no complete snapshot to export (run \`reportd sync\` first)`
        : `query set ${id} is not in store ${store.location} (sets with data: ${derived.sort((a, b) => a - b).join(', ')})`,
    );
  }
}

/**
 * The encoder of a format. Parquet and xlsx writers load only when asked for: every command (the daemon
 * too) registers `export`, and none of the others should pay for exceljs or hyparquet-writer.
 */
async function encoderFor(format: 'csv' | 'parquet'): Promise<(table: ExportTable) => string | Uint8Array> {
  return format === 'csv' ? toCsv : (await import('./parquet.js')).toParquet;
}

export async function exportMetrics(store: Store, options: ExportOptions): Promise<ExportResult> {
  const selection: MetricSelection = {
    account: options.account,
    querySetIds: options.querySetIds,
    runs: options.runs,
  };
  await checkSelection(store, selection);
  const tables = await exportTables(store, selection);
  const outDir = resolve(options.outDir);
  mkdirSync(outDir, { recursive: true });
  const files: string[] = [];
  if (options.format === 'xlsx') {
    const file = join(outDir, 'metric_values.xlsx');
    const { toXlsx } = await import('./xlsx.js');
    writeAtomically(file, await toXlsx(tables, options.generatedAt ?? new Date()));
    files.push(file);
  } else {
    const encode = await encoderFor(options.format);
    for (const table of tables) {
      const file = join(outDir, `${table.name}.${options.format}`);
      writeAtomically(file, encode(table));
      files.push(file);
    }
  }
  const runs = tables.find((table) => table.name === 'runs');
  return { files, rows: tables[0]?.rows.length ?? 0, snapshots: runs?.rows.length ?? 0 };
}

/** `metric_values.csv` alone, of every stored set (what `reportd demo` leaves beside its reports). */
export async function writeMetricValuesCsv(store: Store, outDir: string): Promise<string> {
  const [values] = await exportTables(store, {});
  const file = join(resolve(outDir), 'metric_values.csv');
  mkdirSync(resolve(outDir), { recursive: true });
  writeAtomically(file, toCsv(values!));
  return file;
}
