import type { Command } from 'commander';
import { ReportdError, UsageError } from '../errors/index.js';
import { EXPORT_FORMATS, type ExportFormat } from '../export/formats.js';
import { type ConfigOptions, configOption } from './options.js';

/**
 * `reportd export --format csv|parquet|xlsx|duckdb --out DIR|FILE [--set ID[,ID…]|all] [--runs N]
 * [--account NAME] [--incremental NAME] [--to postgres://… [--schema NAME]]`: every stored number as
 * tidy rows (metric_values) plus the companion tables, from the store only. Prints each path written,
 * or for a load what it brought.
 */

interface ExportFlags extends ConfigOptions {
  format?: string;
  out?: string;
  set: string;
  runs?: string;
  account?: string;
  incremental?: string;
  to?: string;
  schema: string;
}

function positiveInt(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new UsageError(`${flag} must be a positive integer, got "${value}"`);
  return Number(value);
}

export function parseSets(value: string): number[] | undefined {
  if (value.trim().toLowerCase() === 'all') return undefined;
  const ids = value.split(',').map((part) => part.trim());
  if (ids.length === 0 || ids.some((id) => !/^\d+$/.test(id) || Number(id) < 1)) {
    throw new UsageError(`--set takes query set ids (comma-separated) or "all", got "${value}"`);
  }
  return [...new Set(ids.map(Number))];
}

function parseFormat(value: string): ExportFormat {
  const format = value.trim().toLowerCase();
  if (!EXPORT_FORMATS.includes(format as ExportFormat))
    throw new UsageError(`--format takes one of ${EXPORT_FORMATS.join(', ')}, got "${value}"`);
  return format as ExportFormat;
}

function loadName(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/.test(value))
    throw new UsageError(
      `--incremental takes a name of letters, digits, - and _ (at most 40), got "${value}"`,
    );
  return value;
}

export function register(program: Command): void {
  program
    .command('export')
    .summary('export every stored number as tidy rows (metric_values) and companion tables')
    .description(
      'Writes every stored number as tidy rows (`metric_values`) with its companion tables (runs, query ' +
        'sets, engines, intents, error register, sources, summaries), from the store only, and prints each ' +
        'path. docs/analysing-data.md describes the columns.',
    )
    .addOption(configOption)
    .option(
      '--format <format>',
      `${EXPORT_FORMATS.join(' | ')}: csv and parquet write a file per table, xlsx one workbook with an Excel table per table, duckdb one typed database file`,
    )
    .option('--out <path>', 'output folder (csv, parquet, xlsx) or file (duckdb)')
    .option('--set <ids>', 'query set ids, comma-separated, or "all"', 'all')
    .option('--runs <n>', 'only the newest N runs of each set (default: every stored run)')
    .option('--account <name>', 'only this account')
    .option('--incremental <name>', 'load only the runs the target has not had, under this load name')
    .option('--to <url>', 'load into a PostgreSQL database (postgres://…) instead of --out')
    .option('--schema <name>', 'the PostgreSQL schema of --to', 'reportd')
    .action(async (flags: ExportFlags) => {
      // Loaded here, not at the top: `reportd --help` declares every command and must not load them.
      const [{ loadConfig }, { exportMetrics }, { runLoad }, { createLogger }, { isPostgresUrl, openStore }] =
        await Promise.all([
          import('../config/load.js'),
          import('../export/export.js'),
          import('../export/run-load.js'),
          import('../log.js'),
          import('../store/db.js'),
        ]);
      if (flags.to !== undefined && !isPostgresUrl(flags.to))
        throw new UsageError('--to takes a postgres:// or postgresql:// URL');
      if (flags.to === undefined && (flags.format === undefined || flags.out === undefined))
        throw new UsageError(
          'export needs --format and --out (or --to postgres://… for a load into PostgreSQL)',
        );
      const format = flags.format === undefined ? undefined : parseFormat(flags.format);
      const incremental = flags.incremental === undefined ? undefined : loadName(flags.incremental);
      if (incremental !== undefined && flags.to === undefined && format === 'xlsx')
        throw new UsageError('--incremental loads into duckdb, csv, parquet or --to postgres://…, not xlsx');
      const querySetIds = parseSets(flags.set);
      const runs = flags.runs === undefined ? undefined : positiveInt(flags.runs, '--runs');
      const selection = { querySetIds, runs, account: flags.account };
      const config = loadConfig(flags.config);
      const store = await openStore(config.store, { mustExist: true });
      try {
        if (flags.to !== undefined || format === 'duckdb' || incremental !== undefined) {
          const target =
            flags.to !== undefined ? { url: flags.to, schema: flags.schema } : { file: flags.out! };
          const logger = createLogger({ level: config.log.level });
          const line = await runLoad(store, {
            target,
            format,
            name: incremental,
            selection,
            onRows: (table, written, total) => logger.info({ table, written, total }, 'load progress'),
          });
          process.stdout.write(`${line}\n`);
          return;
        }
        const result = await exportMetrics(store, {
          format: format as Exclude<ExportFormat, 'duckdb'>,
          outDir: flags.out!,
          ...selection,
        });
        for (const file of result.files) process.stdout.write(`${file}\n`);
      } catch (error) {
        if (error instanceof ReportdError) throw error;
        throw new UsageError(`export failed: ${(error as Error).message}`, { cause: error });
      } finally {
        await store.close();
      }
    });
}
