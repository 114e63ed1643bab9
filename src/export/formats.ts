/**
 * The formats `reportd export` writes. Apart from the writers so the CLI can list and check them
 * without loading any writer (`reportd --help` declares every command).
 */
export type ExportFormat = 'csv' | 'parquet' | 'xlsx' | 'duckdb';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['csv', 'parquet', 'xlsx', 'duckdb'];
