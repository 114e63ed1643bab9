import { parquetWriteBuffer } from 'hyparquet-writer';
import { VERSION } from '../version.js';
import type { ColumnType, ExportTable } from './tables.js';

/**
 * Parquet through hyparquet-writer (pure JavaScript, one dependency, maintained; chosen over DuckDB's
 * node API, a 68 MB native module, and @dsnp/parquetjs, which pulls in the AWS SDK: see README).
 * Typed columns: ids as INT64, values as DOUBLE, text as UTF-8 strings, times as TIMESTAMP (ms, UTC),
 * all nullable, so DuckDB, pandas and pyarrow read them without a schema of their own.
 */

const TYPES = {
  string: 'STRING',
  integer: 'INT64',
  double: 'DOUBLE',
  timestamp: 'TIMESTAMP',
  boolean: 'BOOLEAN',
} as const satisfies Record<ColumnType, string>;

function cell(value: unknown, type: ColumnType): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return BigInt(Math.trunc(Number(value)));
    case 'double':
      return Number(value);
    case 'timestamp': {
      const at = Date.parse(String(value));
      return Number.isNaN(at) ? null : new Date(at);
    }
    case 'boolean':
      return Boolean(value);
    default:
      return String(value);
  }
}

export function toParquet(table: ExportTable): Uint8Array {
  const buffer = parquetWriteBuffer({
    columnData: table.columns.map((column, i) => ({
      name: column.name,
      type: TYPES[column.type],
      data: table.rows.map((row) => cell(row[i], column.type)) as never,
    })),
    createdBy: `reportd ${VERSION}`,
  });
  return new Uint8Array(buffer);
}
