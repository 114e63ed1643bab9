import type { Command } from 'commander';
import { loadConfig } from '../config/load.js';
import { UsageError } from '../errors/index.js';
import { PdfRenderer } from '../report/pdf.js';
import { REPORT_FORMATS, type ReportFormat, renderReport } from '../report/render.js';
import { openStore } from '../store/db.js';
import { type ConfigOptions, configOption } from './options.js';

/**
 * `reportd render --set ID [--run ID] --format pdf,xlsx,html --out DIR`: documents of one stored
 * snapshot (the newest complete one by default), from the store only. Prints each path written.
 */

interface RenderFlags extends ConfigOptions {
  set: string;
  run?: string;
  format: string;
  out?: string;
  account?: string;
}

function positiveInt(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new UsageError(`${flag} must be a positive integer, got "${value}"`);
  return Number(value);
}

export function parseFormats(value: string): ReportFormat[] {
  const formats = value
    .split(',')
    .map((format) => format.trim().toLowerCase())
    .filter((format) => format.length > 0);
  const unknown = formats.filter((format) => !REPORT_FORMATS.includes(format as ReportFormat));
  if (unknown.length > 0 || formats.length === 0) {
    throw new UsageError(`--format takes ${REPORT_FORMATS.join(', ')} (comma-separated), got "${value}"`);
  }
  return [...new Set(formats)] as ReportFormat[];
}

export function register(program: Command): void {
  program
    .command('render')
    .description('render the stored snapshot of a query set as PDF, XLSX and/or HTML')
    .addOption(configOption)
    .requiredOption('--set <id>', 'query set id')
    .option('--run <id>', 'published run id (default: the newest complete snapshot)')
    .option('--format <list>', `comma-separated: ${REPORT_FORMATS.join(', ')}`, 'pdf')
    .option('--out <dir>', 'output folder (default: config output.dir)')
    .option('--account <name>', 'account, when several accounts see the same query set')
    .action(async (flags: RenderFlags) => {
      const querySetId = positiveInt(flags.set, '--set');
      const runId = flags.run === undefined ? undefined : positiveInt(flags.run, '--run');
      const formats = parseFormats(flags.format);
      const config = loadConfig(flags.config);
      const store = openStore(config.store.path, { mustExist: true });
      const renderer = formats.includes('pdf')
        ? new PdfRenderer({
            chromiumPath: config.chromium.path,
            renderTimeoutMs: config.chromium.render_timeout_seconds * 1000,
            recycleAfter: config.chromium.recycle_after,
            // This command owns shutdown: close the browser first, then exit.
            handleSignals: false,
          })
        : undefined;
      const onSignal = (signal: NodeJS.Signals) => {
        void (renderer?.close() ?? Promise.resolve()).finally(() => {
          store.close();
          process.exit(signal === 'SIGINT' ? 130 : 143);
        });
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const paths = await renderReport(store, {
          querySetId,
          runId,
          account: flags.account,
          formats,
          outDir: flags.out ?? config.output.dir,
          templatesDir: config.templates.dir,
          renderer,
        });
        for (const path of paths) process.stdout.write(`${path}\n`);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        await renderer?.close();
        store.close();
      }
    });
}
