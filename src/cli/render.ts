import type { Command } from 'commander';
import type { Config } from '../config/index.js';
import { DEFAULT_LOCALE, isReportLocale, isTimeZone, REPORT_LOCALES } from '../config/locale-tags.js';
import { ReportdError, TemplateError, UsageError } from '../errors/index.js';
import { printable } from '../printable.js';
import type { BatchItem, BatchSelection, renderBatch } from '../report/batch.js';
import { REPORT_FORMATS, type ReportFormat } from '../report/formats.js';
import { type PageSetup, parsePageSize } from '../report/page.js';
import type { PdfRenderer } from '../report/pdf.js';
import { pdfRendererOptions, renderConcurrency } from '../report/renderer-config.js';
import { scrub } from '../secrets.js';
import type { Store } from '../store/sql.js';
import { type ConfigOptions, configOption } from './options.js';

/**
 * `reportd render --set ID[,ID…]|all [--run ID[,ID…]|all|latest] --format pdf,xlsx,html --out DIR`:
 * documents of stored snapshots (the newest complete one of each set by default), from the store
 * only, through one warm browser. Prints each path written, in selection order.
 */

interface RenderFlags extends ConfigOptions {
  set: string;
  run: string;
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

/** `all`, or a comma-separated list of positive ids (each once, in the order given). */
function idList(value: string, flag: string, words: readonly string[]): number[] | string {
  const trimmed = value.trim().toLowerCase();
  if (words.includes(trimmed)) return trimmed;
  const ids = value
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id.length > 0);
  if (ids.length === 0)
    throw new UsageError(`${flag} takes ${[...words, 'ID[,ID…]'].join(', ')}, got "${value}"`);
  return [...new Set(ids.map((id) => positiveInt(id, flag)))];
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
    .summary('render stored snapshots of query sets as PDF, XLSX and/or HTML')
    .description(
      'Writes the documents of stored snapshots, from the store only, through one warm browser printing ' +
        '`chromium.concurrency` at a time, and prints each path (by set, in the order given or by id for ' +
        '`all`; newest run first). Every snapshot asked for is looked up before anything is written. Two ' +
        'snapshots whose file names would be the same (runs with the same label) get ` - run <id>` appended.',
    )
    .addOption(configOption)
    .requiredOption(
      '--set <ids>',
      'query set ids: `101`, `101,102`, or `all` (every set with a complete snapshot)',
    )
    .option(
      '--run <ids>',
      '`latest`: the newest complete snapshot of each set; `all`: every complete snapshot; or run ids, ' +
        '`4825,4826`, each of which must be stored in one of the sets',
      'latest',
    )
    .option('--format <list>', `comma-separated: ${REPORT_FORMATS.join(', ')}`, 'pdf')
    .option('--out <dir>', "output folder (default: the config's output.dir)")
    .option('--account <name>', 'account, when several accounts see the same query set')
    .option('--locale <tag>', `language and number style: ${REPORT_LOCALES.join(', ')}`, DEFAULT_LOCALE)
    .option('--page <size>', 'paper of the PDF: a4, letter or legal', 'a4')
    .option('--landscape', 'print the PDF in landscape')
    .option('--timezone <zone>', 'IANA time zone the dates are printed in', 'UTC')
    .action((flags: RenderFlags) => renderCommand(flags));
}

/** `render` itself: checks its flags, launches the browser while it opens the store, renders, closes. */
async function renderCommand(flags: RenderFlags): Promise<void> {
  const selection: BatchSelection = {
    sets: idList(flags.set, '--set', ['all']) as BatchSelection['sets'],
    runs: idList(flags.run, '--run', ['all', 'latest']) as BatchSelection['runs'],
    account: flags.account,
  };
  const formats = parseFormats(flags.format);
  const document = documentFlags(flags);
  // Modules are loaded in the order a cold start needs them: the config, then puppeteer and
  // Chromium's launch (the longest step), and only then the store, the model, Handlebars and the
  // catalogs, which load and run while Chromium starts in its own process.
  const { loadConfig } = await import('../config/load.js');
  const config = loadConfig(flags.config);
  const starting = formats.includes('pdf') ? startRenderer(config) : undefined;
  // Awaited again below, where a launch that cannot start is said (once, after the store's errors).
  await starting?.catch(() => undefined);
  const [{ openStore }, { renderBatch, selectSnapshots }] = await Promise.all([
    import('../store/db.js'),
    import('../report/batch.js'),
  ]);
  let store: Store;
  try {
    store = await openStore(config.store, { mustExist: true });
  } catch (error) {
    await starting?.then(
      (started) => started.close(),
      () => undefined,
    );
    throw error;
  }
  let renderer: PdfRenderer | undefined;
  const stopListening = closeOnSignal(starting, store);
  try {
    // Every snapshot is looked up before anything renders: a typo fails fast and writes nothing.
    let items: BatchItem[];
    try {
      items = await selectSnapshots(store, selection);
    } catch (error) {
      // The selection's error is the one said; the browser launched meanwhile is closed below.
      renderer = await starting?.catch(() => undefined);
      throw error;
    }
    renderer = await starting;
    // One browser was started before the selection was known; a batch gets the rest of its pool
    // now, while the first snapshot's HTML is built (a single report does not pay for a second).
    renderer?.warmUp(items.length);
    await renderEach(renderBatch, items, {
      formats,
      outDir: flags.out ?? config.output.dir,
      templatesDir: config.templates.dir,
      ...document,
      renderer,
      concurrency: renderConcurrency(config),
    });
  } finally {
    stopListening();
    await renderer?.close();
    await store.close();
  }
}

/**
 * On SIGINT or SIGTERM the browser (through `starting`: one still launching too) and the store are
 * closed and the process exits 130 or 143. Returns what stops listening.
 */
function closeOnSignal(starting: Promise<PdfRenderer> | undefined, store: Store): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    const closing = starting?.then((started) => started.close()) ?? Promise.resolve();
    void closing
      .catch(() => undefined)
      .finally(async () => {
        await store.close().catch(() => undefined);
        process.exit(signal === 'SIGINT' ? 130 : 143);
      });
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/**
 * Renders the batch, printing each path as it is written; a snapshot that fails is said on stderr
 * and the others go on. Then throws when any failed: a template error once (it fails every snapshot
 * alike), else how many failed.
 */
async function renderEach(
  batch: typeof renderBatch,
  items: readonly BatchItem[],
  options: Parameters<typeof renderBatch>[1],
): Promise<void> {
  let failed = 0;
  let fatal: unknown;
  await batch(items, options, ({ item, paths, error }) => {
    for (const path of paths ?? []) process.stdout.write(`${path}\n`);
    if (error === undefined) return;
    failed++;
    if (error instanceof TemplateError) {
      fatal ??= error;
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    const { querySet, run } = item.snapshot;
    process.stderr.write(`reportd: query set ${querySet.id} run ${run.id}: ${printable(scrub(message))}\n`);
  });
  if (fatal) throw fatal;
  if (failed > 0) {
    throw new ReportdError(`${failed} of ${items.length} snapshots could not be rendered (see above)`);
  }
}

/**
 * The command's PDF renderer, its browser already launching. A missing Chromium is said once, before
 * any work, rather than once per snapshot. This command owns shutdown: it closes the browser, then exits.
 */
async function startRenderer(config: Config): Promise<PdfRenderer> {
  const { findChromium } = await import('../report/chromium.js');
  const executablePath = findChromium({ configPath: config.chromium.path });
  const { PdfRenderer } = await import('../report/pdf.js');
  const renderer = new PdfRenderer({
    ...pdfRendererOptions(config),
    executablePath,
    handleSignals: false,
    // The command exits once its files are written: nothing is gained by waiting for Chromium to quit.
    killOnClose: true,
  });
  renderer.warmUp();
  return renderer;
}
