import { existsSync, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type DuckDBAppender,
  type DuckDBConnection,
  DuckDBInstance,
  timestampTZValue,
} from '@duckdb/node-api';
import {
  createLoadsSql,
  createTableSql,
  LOADS_COLUMNS,
  type LoadRecord,
  type LoadTarget,
  loadRow,
  runKey,
  typedCell,
  viewsSql,
} from './load-target.js';
import type { ColumnType, ExportTable } from './tables.js';

/**
 * A DuckDB file as a load target, through @duckdb/node-api. A load is one DuckDB transaction: a
 * process killed midway leaves the file as its last commit (DuckDB's write-ahead log replays only
 * committed transactions). Rows go in through DuckDB's appender, which writes inside the open
 * transaction, far faster than INSERT per row.
 */

const name = (n: string) => `"${n.replaceAll('"', '""')}"`;

function appendCell(appender: DuckDBAppender, value: unknown, type: ColumnType): void {
  const typed = typedCell(value, type);
  if (typed === null) appender.appendNull();
  else if (type === 'integer') appender.appendBigInt(BigInt(typed as number));
  else if (type === 'double') appender.appendDouble(typed as number);
  else if (type === 'timestamp')
    appender.appendTimestampTZ(timestampTZValue(BigInt((typed as Date).getTime()) * 1000n));
  else if (type === 'boolean') appender.appendBoolean(typed as boolean);
  else appender.appendVarchar(typed as string);
}

const LOADS_TYPES: Record<(typeof LOADS_COLUMNS)[number], ColumnType> = {
  load_id: 'string',
  name: 'string',
  started_at: 'timestamp',
  finished_at: 'timestamp',
  runs: 'integer',
  runs_covered: 'string',
  rows_per_table: 'string',
  mapping_version: 'integer',
  note: 'string',
};

export function duckdbTarget(file: string): LoadTarget {
  const path = resolve(file);
  let instance: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  let open = false;
  const db = () => {
    if (!connection) throw new Error('duckdb target: begin() first');
    return connection;
  };
  const rows = async (sql: string) => (await db().runAndReadAll(sql)).getRowsJS();
  return {
    description: `DuckDB file ${path}`,
    async begin(tables) {
      instance = await DuckDBInstance.create(path);
      connection = await instance.connect();
      await connection.run('BEGIN TRANSACTION');
      open = true;
      for (const table of tables) await connection.run(createTableSql(table, name, 'VARCHAR'));
      await connection.run(createLoadsSql(name, 'VARCHAR'));
      for (const view of viewsSql(name)) await connection.run(view);
    },
    async loadedRuns() {
      const found = await rows('SELECT DISTINCT account, query_set_id, run_id FROM runs');
      return new Set(found.map(([a, s, r]) => runKey(a, s, r)));
    },
    async loadedKeys(table, keyColumns) {
      const found = await rows(`SELECT DISTINCT ${keyColumns.map(name).join(', ')} FROM ${name(table)}`);
      return new Set(found.map((row) => row.map((v) => String(v)).join('\u0000')));
    },
    async lastMappingVersion() {
      const found = await rows('SELECT mapping_version FROM _loads ORDER BY finished_at DESC LIMIT 1');
      return found.length === 0 ? null : Number(found[0]![0]);
    },
    async insert(table: ExportTable) {
      if (table.rows.length === 0) return;
      const appender = await db().createAppender(table.name);
      for (const row of table.rows) {
        for (const [i, column] of table.columns.entries()) appendCell(appender, row[i], column.type);
        appender.endRow();
      }
      appender.closeSync();
    },
    async recordLoad(record: LoadRecord) {
      const appender = await db().createAppender('_loads');
      for (const [i, value] of loadRow(record).entries())
        appendCell(appender, value, LOADS_TYPES[LOADS_COLUMNS[i]!]);
      appender.endRow();
      appender.closeSync();
    },
    async commit() {
      await db().run('COMMIT');
      open = false;
      // Folded into the file now, so the file alone (no .wal beside it) is the whole export.
      await db().run('CHECKPOINT');
    },
    async close() {
      if (open) await connection?.run('ROLLBACK').catch(() => {});
      open = false;
      connection?.closeSync();
      instance?.closeSync();
      connection = undefined;
      instance = undefined;
    },
  };
}

/**
 * `reportd export --format duckdb` without `--incremental`: a whole new file, built beside `--out`
 * and renamed over it, so a reader never opens half of one.
 */
export async function replaceDuckdbFile(
  file: string,
  build: (target: LoadTarget) => Promise<void>,
): Promise<void> {
  const path = resolve(file);
  const temporary = `${path}.${process.pid}.tmp`;
  const clean = () => {
    rmSync(temporary, { force: true });
    rmSync(`${temporary}.wal`, { force: true });
  };
  clean();
  try {
    await build(duckdbTarget(temporary));
    // A log left by a crashed writer of the old file must not replay into the new one.
    if (existsSync(`${path}.wal`)) rmSync(`${path}.wal`);
    renameSync(temporary, path);
  } finally {
    clean();
  }
}
