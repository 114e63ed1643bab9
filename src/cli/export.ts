import type { Command } from 'commander';
import { loadConfig } from '../config/load.js';
import { UsageError } from '../errors/index.js';
import { EXPORT_FORMATS, type ExportFormat, exportMetrics } from '../export/export.js';
import { openStore } from '../store/db.js';
import { type ConfigOptions, configOption } from './options.js';

/**
 * `reportd export --format csv|parquet|xlsx --out DIR [--set ID[,ID…]|all] [--runs N] [--account NAME]`:
 * every stored number as tidy rows (metric_values) plus the companion tables, from the store only.
 * Prints each path written.
 */

interface ExportFlags extends ConfigOptions {
  format: string;
  out: string;
  set: string;
  runs?: string;
  account?: string;
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
    .requiredOption(
      '--format <format>',
      `${EXPORT_FORMATS.join(' | ')}: csv and parquet write a file per table, xlsx one workbook with an Excel table per table`,
    )
    .requiredOption('--out <dir>', 'output folder')
    .option('--set <ids>', 'query set ids, comma-separated, or "all"', 'all')
    .option('--runs <n>', 'only the newest N runs of each set (default: every stored run)')
    .option('--account <name>', 'only this account')
    .action(async (flags: ExportFlags) => {
      const format = parseFormat(flags.format);
      const querySetIds = parseSets(flags.set);
      const runs = flags.runs === undefined ? undefined : positiveInt(flags.runs, '--runs');
      const config = loadConfig(flags.config);
      const store = await openStore(config.store, { mustExist: true });
      try {
        const result = await exportMetrics(store, {
          format,
          outDir: flags.out,
          querySetIds,
          runs,
          account: flags.account,
        });
        for (const file of result.files) process.stdout.write(`${file}\n`);
      } finally {
        await store.close();
      }
    });
}
