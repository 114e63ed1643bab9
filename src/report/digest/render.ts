import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isReportable } from '../../store/snapshot-state.js';
import { findSnapshot, listSnapshots, type StoredSnapshot } from '../../store/snapshots.js';
import type { Store } from '../../store/sql.js';
import { writeAtomically } from '../../write-atomically.js';
import { safeFileName } from '../file-names.js';
import { type ReportContents, type ReportHtml, renderReportHtml } from '../html.js';
import { documentMeta } from '../judging.js';
import { buildReportModel, type ReportModel } from '../model/index.js';
import type { PdfOptions, PdfRenderer } from '../pdf.js';
import { type RenderSnapshotOptions, reportBaseName, themedContents } from '../render.js';
import { reportTemplatesFor } from '../templates.js';
import type { WorkbookMeta } from '../xlsx/context.js';
import { type DigestPages, type DigestSet, periodOf, renderDigestHtml } from './html.js';
import { biggestMoves, movesOf } from './movers.js';

/**
 * Renders a digest: one PDF (and HTML, and workbook) across the covered runs of a report's sets. Reads only the store. With one set the PDF is that set's report.
 */

export interface DigestRun {
  account: string | null;
  querySetId: number;
  runId: number;
  /** Already in an earlier message of this report ("no new run since …"). */
  repeated?: boolean;
}

export interface RenderDigestOptions extends RenderSnapshotOptions {
  report: string;
  runs: readonly DigestRun[];
  contents?: Omit<ReportContents, 'movers'>;
}

/** A covered set as the digest drew it: the model its section (and the email's headline) came from. */
export interface RenderedDigestSet {
  snapshot: StoredSnapshot;
  model: ReportModel;
  repeated?: boolean;
}

/** The files written and the sets they were drawn from, in the order of `runs`. */
export interface RenderedDigest {
  paths: string[];
  sets: RenderedDigestSet[];
  /** The runs' labels, collapsed when equal ("Week 37", "Week 36 – Week 37"). */
  period: string;
}

/** Top-level headings before the first set in digest.hbs: cover, contents, portfolio. */
const HEADINGS_BEFORE_SETS = 3;

/**
 * Renders the digest in each of `options.formats`; with no format (a Teams card) only the models are
 * built and nothing is written, not even the folder.
 */
export async function renderDigest(store: Store, options: RenderDigestOptions): Promise<RenderedDigest> {
  const meta = documentMeta(options);
  const loaded = await loadRuns(store, options.runs);
  const sets: DigestSet[] = loaded.map((l) => ({
    model: buildReportModel(l.snapshot, l.history, meta),
    repeated: l.run.repeated,
    moves: biggestMoves(l.previous, l.current, 5),
  }));
  const moves = biggestMoves(
    loaded.flatMap((l) => l.previous),
    loaded.flatMap((l) => l.current),
    10,
  );
  const templates = reportTemplatesFor(options.templatesDir);
  const contents = await themedContents(options);
  const single = loaded.length === 1 ? loaded[0] : undefined;
  const period = periodOf(loaded.map((l) => l.snapshot.run));
  const formats = [...new Set(options.formats)];
  const outDir = resolve(options.outDir);
  if (formats.length > 0) mkdirSync(outDir, { recursive: true });
  const base = join(
    outDir,
    single ? reportBaseName(single.snapshot) : safeFileName([options.report, period]),
  );
  const digestHtml: DigestHtml = (pages, frontOnly) =>
    single
      ? renderReportHtml(sets[0]!.model, templates, options.page, { ...contents, movers: sets[0]!.moves })
      : renderDigestHtml(
          {
            report: options.report,
            sets,
            moves,
            locale: options.locale,
            timeZone: options.timeZone,
            page: options.page,
            contents,
            period,
            pages,
            frontOnly,
          },
          templates,
        );

  const written: string[] = [];
  for (const format of formats) {
    const file = `${base}.${format}`;
    if (format === 'html') writeAtomically(file, digestHtml().html);
    else if (format === 'pdf')
      await writePdf(file, options, digestHtml, loaded.length, !single, meta.generatedAt);
    else if (format === 'xlsx') await writeWorkbook(file, options.report, loaded, meta, contents);
    written.push(file);
  }
  return {
    paths: written,
    sets: loaded.map((l, i) => ({ snapshot: l.snapshot, model: sets[i]!.model, repeated: l.run.repeated })),
    period,
  };
}

/** A covered run as read from the store: its snapshot, its set's history and the moves since the run before. */
type LoadedRun = { run: DigestRun; snapshot: StoredSnapshot; history: StoredSnapshot[] } & Awaited<
  ReturnType<typeof movesOf>
>;

async function loadRuns(store: Store, runs: readonly DigestRun[]): Promise<LoadedRun[]> {
  const loaded = [];
  for (const run of runs) {
    const snapshot = await findSnapshot(store, {
      querySetId: run.querySetId,
      runId: run.runId,
      account: run.account ?? undefined,
    });
    if (!snapshot || !isReportable(snapshot.state)) {
      throw new Error(`run ${run.runId} of query set ${run.querySetId} is not stored complete`);
    }
    const history = await listSnapshots(store, {
      querySetId: snapshot.querySet.id,
      account: snapshot.account,
    });
    loaded.push({ run, snapshot, history, ...(await movesOf(store, snapshot)) });
  }
  return loaded;
}

async function writePdf(
  file: string,
  options: RenderDigestOptions,
  digestHtml: DigestHtml,
  setCount: number,
  withContents: boolean,
  date: Date,
): Promise<void> {
  // Loaded on first use, as for one set: a daemon that has not rendered yet never loads puppeteer.
  const renderer = options.renderer ?? new (await import('../pdf.js')).PdfRenderer(options.chromium);
  try {
    const print = { page: options.page, date };
    writeAtomically(file, await printDigestPdf(renderer, digestHtml, setCount, withContents, print));
  } finally {
    if (!options.renderer) await renderer.close();
  }
}

/** One workbook, the same sets and sections as the PDF (exceljs loaded only when asked for). */
async function writeWorkbook(
  file: string,
  report: string,
  loaded: readonly LoadedRun[],
  meta: Omit<WorkbookMeta, 'account'>,
  contents: ReportContents,
): Promise<void> {
  const single = loaded.length === 1 ? loaded[0] : undefined;
  if (single) {
    const { renderWorkbook } = await import('../xlsx.js');
    const { snapshot, history } = single;
    writeAtomically(
      file,
      await renderWorkbook(snapshot, history, { ...meta, account: snapshot.account }, contents),
    );
  } else {
    const { renderDigestWorkbook } = await import('./workbook.js');
    const books = loaded.map((l) => ({
      snapshot: l.snapshot,
      history: l.history,
      repeated: l.run.repeated,
    }));
    writeAtomically(file, await renderDigestWorkbook(report, books, meta, contents));
  }
}

/** How the digest's HTML is built for each pass of the PDF (renderDigestHtml with pages and part). */
export type DigestHtml = (pages?: DigestPages, frontOnly?: boolean) => ReportHtml;

/** Chromium's page total in a header or footer template; the front-matter pass gives it as text. */
const TOTAL_PAGES = '<span class="totalPages"></span>';

/**
 * The digest PDF. One set (no contents page): one render. Several: the whole document is printed
 * once with its outline, which tells the page each set starts on; then only the front matter (cover
 * and contents, now with those numbers) is printed and its pages replace the draft's (front-pages.ts).
 * That second pass costs a two-page render instead of the whole document again. The whole document
 * is printed a second time only when the front matter cannot be swapped in safely: the outline could
 * not be read (the contents then have no numbers), a custom header or footer prints the page total
 * in a form this does not recognise, or the filled-in contents came out longer than the draft's.
 */
export async function printDigestPdf(
  renderer: PdfRenderer,
  html: DigestHtml,
  setCount: number,
  withContents: boolean,
  print: Pick<PdfOptions, 'page' | 'date'> = {},
): Promise<Buffer> {
  const first = html();
  const draft = await renderer.render(first.html, { ...first, ...print });
  if (!withContents) return draft;
  // pdf-lib only when a digest prints: the daemon's start-up does not load it.
  const [{ readDraft }, { topLevelBookmarkPages, withFrontPages }] = await Promise.all([
    import('../pdf-index.js'),
    import('./front-pages.js'),
  ]);
  const read = readDraft(draft);
  const tops = read && topLevelBookmarkPages(read);
  if (!read || !tops || tops.length !== HEADINGS_BEFORE_SETS + setCount) return draft;
  const pages: DigestPages = { portfolio: tops[2]!, sets: tops.slice(HEADINGS_BEFORE_SETS) };
  const full = async () => {
    const final = html(pages);
    return renderer.render(final.html, { ...final, ...print });
  };
  const front = html(pages, true);
  const templates = [front.headerTemplate ?? '', front.footerTemplate ?? ''];
  if (templates.some((t) => t.includes('totalPages') && !t.includes(TOTAL_PAGES))) return full();
  const total = (t?: string) => t?.replaceAll(TOTAL_PAGES, `<span>${read.pageCount}</span>`);
  const frontPdf = await renderer.render(front.html, {
    ...front,
    headerTemplate: total(front.headerTemplate),
    footerTemplate: total(front.footerTemplate),
    ...print,
  });
  // The portfolio page follows the front matter: the front matter is its page number minus one.
  return (await withFrontPages(read, frontPdf, pages.portfolio - 1)) ?? full();
}
