import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Store } from '../../store/db.js';
import { isReportable } from '../../store/payloads.js';
import { findSnapshot, listSnapshots, type StoredSnapshot } from '../../store/snapshots.js';
import { VERSION } from '../../version.js';
import { writeAtomically } from '../../write-atomically.js';
import { safeFileName } from '../file-names.js';
import { type ReportContents, type ReportHtml, renderReportHtml } from '../html.js';
import { buildReportModel, type ReportModel } from '../model/index.js';
import type { PageSetup } from '../page.js';
import type { PdfRenderer } from '../pdf.js';
import { topLevelBookmarkPages } from '../pdf-outline.js';
import { type RenderSnapshotOptions, reportBaseName } from '../render.js';
import { reportTemplatesFor } from '../templates.js';
import { type DigestSet, periodOf, renderDigestHtml } from './html.js';
import { biggestMoves, movesOf } from './movers.js';

/**
 * Renders a digest: one PDF (and HTML) across the covered runs of a report's sets, and the sets'
 * workbooks. Reads only the store. With one set the PDF is that set's report plus its outline.
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
  const meta = {
    generatedAt: options.generatedAt ?? new Date(),
    version: options.version ?? VERSION,
    locale: options.locale,
    timeZone: options.timeZone,
  };
  const loaded = options.runs.map((run) => {
    const snapshot = findSnapshot(store, {
      querySetId: run.querySetId,
      runId: run.runId,
      account: run.account ?? undefined,
    });
    if (!snapshot || !isReportable(snapshot.state)) {
      throw new Error(`run ${run.runId} of query set ${run.querySetId} is not stored complete`);
    }
    const history = listSnapshots(store, { querySetId: snapshot.querySet.id, account: snapshot.account });
    return { run, snapshot, history, ...movesOf(store, snapshot) };
  });
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
  const contents = options.contents ?? {};
  const single = loaded.length === 1 ? loaded[0] : undefined;
  const period = periodOf(loaded.map((l) => l.snapshot.run.display_name));
  const formats = [...new Set(options.formats)];
  const outDir = resolve(options.outDir);
  if (formats.length > 0) mkdirSync(outDir, { recursive: true });
  const base = join(
    outDir,
    single ? reportBaseName(single.snapshot) : safeFileName([options.report, period]),
  );
  const digestHtml = (pages?: { portfolio: number; sets: number[] }) =>
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
            pages,
          },
          templates,
        );

  const written: string[] = [];
  for (const format of formats) {
    const file = `${base}.${format}`;
    if (format === 'html') writeAtomically(file, digestHtml().html);
    else if (format === 'pdf') {
      // Loaded on first use, as for one set: a daemon that has not rendered yet never loads puppeteer.
      const renderer = options.renderer ?? new (await import('../pdf.js')).PdfRenderer(options.chromium);
      try {
        writeAtomically(
          file,
          await printDigestPdf(renderer, digestHtml, loaded.length, !single, options.page),
        );
      } finally {
        if (!options.renderer) await renderer.close();
      }
    } else if (format === 'xlsx') {
      const { renderWorkbook } = await import('../xlsx.js'); // exceljs, only when a workbook is asked for
      // One workbook per set, the same sets as the PDF (a combined workbook is future work).
      for (const l of loaded) {
        const book = `${join(outDir, reportBaseName(l.snapshot))}.xlsx`;
        writeAtomically(
          book,
          await renderWorkbook(l.snapshot, l.history, { ...meta, account: l.snapshot.account }),
        );
        written.push(book);
      }
      continue;
    }
    written.push(file);
  }
  return {
    paths: written,
    sets: loaded.map((l, i) => ({ snapshot: l.snapshot, model: sets[i]!.model, repeated: l.run.repeated })),
    period,
  };
}

/**
 * Two renders for several sets: the first finds, through its outline, the page each set starts on;
 * the second prints the contents page with those numbers. One render when there is no contents page
 * (one set) or the first render's outline could not be read (the contents then have no numbers).
 */
export async function printDigestPdf(
  renderer: PdfRenderer,
  html: (pages?: { portfolio: number; sets: number[] }) => ReportHtml,
  setCount: number,
  withContents: boolean,
  page?: PageSetup,
): Promise<Buffer> {
  const first = html();
  const draft = await renderer.render(first.html, { ...first, page, outline: true });
  if (!withContents) return draft;
  const tops = topLevelBookmarkPages(draft);
  if (!tops || tops.length !== HEADINGS_BEFORE_SETS + setCount) return draft;
  const final = html({ portfolio: tops[2]!, sets: tops.slice(HEADINGS_BEFORE_SETS) });
  return renderer.render(final.html, { ...final, page, outline: true });
}
