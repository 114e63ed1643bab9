import { reportLocale, t, withLocale } from '../../locale/locale.js';
import type { ReportSnapshot } from '../model/snapshot.js';
import { createContext, type WorkbookMeta } from '../xlsx/context.js';
import { SheetWriter } from '../xlsx/sheet-writer.js';
import { workbookBytes } from '../xlsx/workbook-bytes.js';
import { newWorkbook, sheetName, type WorkbookContents, writeDataSheet, writeSetSheets } from '../xlsx.js';

/**
 * The digest's one workbook: a `Sets` sheet saying which set each sheet prefix stands for, then each
 * set's sheets under its prefix ("S1 Overview", "S1 About", "S1 Run history", "S2 Overview"…), the
 * same choice of sections as the PDF, and one `Data` sheet with every set's tidy rows.
 *
 * The prefix is a short label of our own, not the set's name: a sheet name holds 31 characters and
 * refuses some (`: \ / ? * [ ]`), and API names are long and untrusted; the `Sets` sheet and every
 * sheet's banner name the brand, set and run in full.
 */
export interface DigestWorkbookSet {
  snapshot: ReportSnapshot;
  history: ReportSnapshot[];
  /** "No new run since …" on the Sets sheet: this run was in an earlier message. */
  repeated?: boolean;
}

export async function renderDigestWorkbook(
  report: string,
  sets: readonly DigestWorkbookSet[],
  meta: Omit<WorkbookMeta, 'account'>,
  contents: WorkbookContents = {},
): Promise<Buffer> {
  // Built inside the locale (sheet titles, headers, notes), serialised after it, as renderWorkbook.
  const workbook = withLocale(reportLocale(meta.locale), () => {
    const book = newWorkbook(meta, t('digest.title', { report }));
    const labels = sets.map((_, i) => `S${i + 1}`);
    const index = new SheetWriter(
      book.workbook.addWorksheet(sheetName(book.sheetNames, t('xlsx.sheet.sets'))),
      book.tables,
      'Sets',
    );
    index.banner(t('digest.title', { report }));
    index.table({
      name: 'Sets',
      columns: [
        { header: t('xlsx.setLabel') },
        { header: t('xlsx.brand') },
        { header: t('cover.querySet') },
        { header: t('xlsx.querySetId') },
        { header: t('xlsx.runLabel') },
        { header: t('cover.runId') },
        { header: t('cover.account') },
        { header: t('xlsx.note'), wrap: true },
      ],
      rows: sets.map(({ snapshot, repeated }, i) => [
        labels[i],
        snapshot.brand.name,
        snapshot.querySet.name,
        snapshot.querySet.id,
        snapshot.run.display_name,
        snapshot.run.id,
        snapshot.account,
        repeated ? t('digest.noNewRun', { run: snapshot.run.display_name }) : null,
      ]),
    });
    index.finish();
    const contexts = sets.map(({ snapshot, history }) =>
      createContext(snapshot, history, { ...meta, account: snapshot.account }),
    );
    contexts.forEach((ctx, i) => {
      writeSetSheets(book, ctx, contents, labels[i]);
    });
    writeDataSheet(book, contexts);
    return book.workbook;
  });
  return workbookBytes(workbook);
}
