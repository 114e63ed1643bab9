import type { Command } from 'commander';
import { loadConfig } from '../config/load.js';
import { UsageError } from '../errors/index.js';
import { DEFAULT_LOCALE, isReportLocale, isTimeZone, REPORT_LOCALES } from '../report/locale/tags.js';
import { type PageSetup, parsePageSize } from '../report/page.js';
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
  locale?: string;
  page?: string;
  landscape?: boolean;
  timezone?: string;
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

/** `--locale`, `--page`, `--landscape`, `--timezone`, checked before anything is opened. */
export function documentFlags(flags: Pick<RenderFlags, 'locale' | 'page' | 'landscape' | 'timezone'>) {
  const locale = flags.locale ?? DEFAULT_LOCALE;
  if (!isReportLocale(locale)) {
    throw new UsageError(`--locale takes ${REPORT_LOCALES.join(', ')}, got "${locale}"`);
  }
  const timeZone = flags.timezone ?? 'UTC';
  if (!isTimeZone(timeZone)) throw new UsageError(`--timezone "${timeZone}" is not an IANA time zone`);
  const page: PageSetup = {
    size: parsePageSize(flags.page ?? 'a4'),
    orientation: flags.landscape ? 'landscape' : 'portrait',
  };
  return { locale, timeZone, page };
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
    .option('--locale <tag>', `language and number style: ${REPORT_LOCALES.join(', ')}`, DEFAULT_LOCALE)
    .option('--page <size>', 'paper of the PDF: a4, letter or legal', 'a4')
    .option('--landscape', 'print the PDF in landscape')
    .option('--timezone <zone>', 'IANA time zone of the printed dates', 'UTC')
    .action(async (flags: RenderFlags) => {
      const querySetId = positiveInt(flags.set, '--set');
      const runId = flags.run === undefined ? undefined : positiveInt(flags.run, '--run');
      const formats = parseFormats(flags.format);
      const document = documentFlags(flags);
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
          ...document,
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
