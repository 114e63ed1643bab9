import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ReportConfig } from '../config/schema.js';
import { UsageError } from '../errors/index.js';
import { findSnapshot, listSnapshots, type StoredSnapshot } from '../store/snapshots.js';
import type { Store } from '../store/sql.js';
import { writeAtomically } from '../write-atomically.js';
import { biggestMoves, movesOf } from './digest/movers.js';
import { safeFileName } from './file-names.js';
import type { ReportFormat } from './formats.js';
import { type ReportContents, renderReportHtml } from './html.js';
import { documentMeta, type JudgingConfig, judging } from './judging.js';
import { buildReportModel, type ReportModel } from './model/index.js';
import type { PageSetup } from './page.js';
import type { PdfRenderer, PdfRendererOptions } from './pdf.js';
import { reportTemplatesFor } from './templates.js';
import { type ThemeConfig, themeView } from './theme/theme.js';

export interface RenderSnapshotOptions {
  formats: readonly ReportFormat[];
  outDir: string;
  /** The user's copy of `templates/` (config `templates.dir`); packaged templates otherwise. */
  templatesDir?: string;
  /** A warm renderer to reuse (daemon); without one, a renderer is started and closed for this call. */
  renderer?: PdfRenderer;
  /** Used only when no `renderer` is given. */
  chromium?: PdfRendererOptions;
  generatedAt?: Date;
  version?: string;
  /** Reader's locale (`REPORT_LOCALES`), en-US by default: PDF, HTML and workbook words and numbers. */
  locale?: string;
  /** What the headline cards compare with (`reports[].compare_with`); the previous run when absent. */
  compareWith?: string;
  /** The false discovery rate the documents judge their changes at (`reports[].false_discovery_rate`). */
  alpha?: number;
  /** IANA zone for the dates printed in the documents; UTC by default. */
  timeZone?: string;
  /** Paper and orientation of the PDF; A4 portrait by default. */
  page?: PageSetup;
  /** File name without extension; `reportBaseName(snapshot)` when absent (a batch makes names unique). */
  baseName?: string;
  /** Sections and detail (`reports[].sections`, `reports[].detail`); everything in full by default. */
  contents?: ReportContents;
  /** The report's look (`reports[].theme`, logo path absolute); reportd's own when absent. */
  theme?: ThemeConfig;
  /** Names the theme in errors (`reports[0].theme`). */
  themeWhere?: string;
}

export interface RenderReportOptions extends RenderSnapshotOptions {
  querySetId: number;
  /** A stored run; the newest complete snapshot of the set when absent. */
  runId?: number;
  account?: string;
}

/**
 * What a configured report asks of its documents: its locale, its paper, and the zone its dates are
 * printed in (`reports[].timezone`, else the schedule's, else UTC: a Monday-08:00-Berlin report
 * dates itself in Berlin time).
 */
export function documentSettings(
  report: Partial<Pick<ReportConfig, 'name' | 'locale' | 'timezone'>> & {
    page?: PageSetup;
    schedule?: Partial<Pick<NonNullable<ReportConfig['schedule']>, 'timezone'>>;
    theme?: ThemeConfig;
    templates?: Partial<Pick<NonNullable<ReportConfig['templates']>, 'dir'>>;
  } & JudgingConfig,
): Pick<
  RenderSnapshotOptions,
  'locale' | 'page' | 'timeZone' | 'theme' | 'themeWhere' | 'templatesDir' | 'compareWith' | 'alpha'
> {
  return {
    locale: report.locale,
    ...judging(report),
    page: report.page,
    timeZone: report.timezone ?? report.schedule?.timezone ?? 'UTC',
    ...(report.theme ? { theme: report.theme, themeWhere: `report "${report.name}" theme` } : {}),
    // A report's own folder wins over the global one (spread after `templatesDir: config.templates.dir`).
    ...(report.templates?.dir === undefined ? {} : { templatesDir: report.templates.dir }),
  };
}

/** The options' contents with the report's theme read (its logo file included): once per render. */
export async function themedContents(options: RenderSnapshotOptions): Promise<ReportContents> {
  return { ...options.contents, theme: await themeView(options.theme, options.themeWhere) };
}

/** The base file name (no extension) of a snapshot's documents: brand, set and run label. */
export function reportBaseName(snapshot: Pick<StoredSnapshot, 'brand' | 'querySet' | 'run'>): string {
  return safeFileName([snapshot.brand.name, snapshot.querySet.name, snapshot.run.display_name]);
}

/**
 * Renders the stored snapshot of a set (a run, or the newest complete one) in each format and returns
 * the paths written. Reads only the store. A snapshot that is not stored is a `UsageError` naming the
 * set and run.
 */
export async function renderReport(store: Store, options: RenderReportOptions): Promise<string[]> {
  return (await renderReportDocuments(store, options)).paths;
}

/** `renderReport`, also handing back the snapshot read and the view model its documents were drawn from. */
export async function renderReportDocuments(
  store: Store,
  options: RenderReportOptions,
): Promise<RenderedSnapshot & { snapshot: StoredSnapshot }> {
  const snapshot = await findSnapshot(store, {
    querySetId: options.querySetId,
    runId: options.runId,
    account: options.account,
  });
  if (!snapshot) {
    throw new UsageError(
      options.runId === undefined
        ? `no complete snapshot of query set ${options.querySetId} is stored (run \`reportd sync\` first)`
        : `run ${options.runId} of query set ${options.querySetId} is not stored (run \`reportd sync\` first)`,
    );
  }
  const history = await listSnapshots(store, { querySetId: snapshot.querySet.id, account: snapshot.account });
  return {
    snapshot,
    ...(await renderSnapshotDocuments(snapshot, history, await withBriefMovers(store, snapshot, options))),
  };
}

/**
 * The options with the brief's "top movers" filled in when the set prints as a summary: they come
 * from the metric rows, which only the store has (a full report prints no movers, so none are read).
 */
export async function withBriefMovers<O extends RenderSnapshotOptions>(
  store: Store,
  snapshot: StoredSnapshot,
  options: O,
): Promise<O> {
  if (options.contents?.detail !== 'summary') return options;
  const rows = await movesOf(store, snapshot);
  const movers = biggestMoves(rows.previous, rows.current, 5);
  return { ...options, contents: { ...options.contents, movers } };
}

/** Renders one snapshot (with the set's history, newest first) without touching the store. */
export async function renderSnapshot(
  snapshot: StoredSnapshot,
  history: StoredSnapshot[],
  options: RenderSnapshotOptions,
): Promise<string[]> {
  return (await renderSnapshotDocuments(snapshot, history, options)).paths;
}

/** The files written for a snapshot and the view model they were drawn from. */
export interface RenderedSnapshot {
  paths: string[];
  /** Built once per render: the delivery's email headline reads it instead of the payloads again. */
  model: ReportModel;
}

/** `renderSnapshot`, also handing back the view model (the email headline is built from it). */
export async function renderSnapshotDocuments(
  snapshot: StoredSnapshot,
  history: StoredSnapshot[],
  options: RenderSnapshotOptions,
): Promise<RenderedSnapshot> {
  const formats = [...new Set(options.formats)];
  const meta = documentMeta(options);
  const outDir = resolve(options.outDir);
  // A model-only call (a Teams card) writes nothing, not even its folder.
  if (formats.length > 0) mkdirSync(outDir, { recursive: true });
  const base = join(outDir, options.baseName ?? reportBaseName(snapshot));
  const written: string[] = [];

  const contents = await themedContents(options);
  // Always built (a few ms): an xlsx-only delivery still needs it for the email's headline.
  const model = buildReportModel(snapshot, history, meta);
  const needsHtml = formats.includes('pdf') || formats.includes('html');
  const doc = needsHtml
    ? renderReportHtml(model, reportTemplatesFor(options.templatesDir), options.page, contents)
    : undefined;

  for (const format of formats) {
    const file = `${base}.${format}`;
    if (format === 'html' && doc) {
      writeAtomically(file, doc.html);
    } else if (format === 'pdf' && doc) {
      // Loaded on first use: an idle daemon, or a run writing only xlsx/html, never loads puppeteer.
      const renderer = options.renderer ?? new (await import('./pdf.js')).PdfRenderer(options.chromium);
      try {
        const print = { ...doc, page: options.page, date: meta.generatedAt };
        writeAtomically(file, await renderer.render(doc.html, print));
      } finally {
        if (!options.renderer) await renderer.close();
      }
    } else if (format === 'xlsx') {
      const { renderWorkbook } = await import('./xlsx.js'); // exceljs, only when a workbook is asked for
      writeAtomically(
        file,
        await renderWorkbook(snapshot, history, { ...meta, account: snapshot.account }, contents),
      );
    }
    written.push(file);
  }
  return { paths: written, model };
}
