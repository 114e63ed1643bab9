import ExcelJS from 'exceljs';
import type { StoredSnapshot } from '../store/snapshots.js';
import { reportLocale, t, withLocale } from './locale/locale.js';
import { createContext, type WorkbookMeta } from './xlsx/context.js';
import { SheetWriter } from './xlsx/sheet-writer.js';
import { writeAbout } from './xlsx/sheets/about.js';
import { writeData } from './xlsx/sheets/data.js';
import { gravitySheet } from './xlsx/sheets/gravity.js';
import { writeHistory } from './xlsx/sheets/history.js';
import { lifeSheet } from './xlsx/sheets/life.js';
import { marketSheet } from './xlsx/sheets/market.js';
import { overviewSheet } from './xlsx/sheets/overview.js';
import { presenceSheet } from './xlsx/sheets/presence.js';
import { scoutSheet } from './xlsx/sheets/scout.js';
import type { SheetDef } from './xlsx/sheets/sheet-def.js';
import { TableNames } from './xlsx/text.js';

export type { WorkbookMeta } from './xlsx/context.js';

/** The group sheets, in the order analysts read them (and the PDF's section order). */
const GROUP_SHEETS: readonly SheetDef[] = [
  overviewSheet,
  presenceSheet,
  lifeSheet,
  gravitySheet,
  scoutSheet,
  marketSheet,
];

/**
 * Not `History`: Excel reserves that sheet name (shared-workbook change tracking; Microsoft's "Rename
 * a worksheet" page), exceljs refuses to write it and fails to load a file that has it.
 */
export const HISTORY_SHEET = 'Run history';

/** Every number of the set across its stored runs, as tidy rows (the columns of `metric_values`). */
export const DATA_SHEET = 'Data';

export const WORKBOOK_SHEETS: readonly string[] = [
  ...GROUP_SHEETS.map((sheet) => sheet.name),
  'About',
  HISTORY_SHEET,
  DATA_SHEET,
];

/** Every metric endpoint key the workbook shows; a test checks it covers the whole catalog. */
export const XLSX_ENDPOINTS: readonly string[] = GROUP_SHEETS.flatMap((sheet) => sheet.endpoints);

const sheetOf: ReadonlyMap<string, string> = new Map(
  GROUP_SHEETS.flatMap((sheet) => sheet.endpoints.map((key) => [key, sheet.name] as const)),
);

/**
 * The analyst workbook of one snapshot: a sheet per metric group, `About` and a long run history over
 * every stored snapshot of the set. Reads only the snapshot (never the network); a missing or invalid
 * payload becomes a "Data unavailable" row where its table would be, never an exception.
 */
export async function renderWorkbook(
  snapshot: StoredSnapshot,
  history: StoredSnapshot[],
  meta: WorkbookMeta,
): Promise<Buffer> {
  // Titles, headers and notes in the reader's language; the cells are built synchronously, so the
  // locale cannot leak to another render (see withLocale). Serialising happens after, outside it.
  const workbook = withLocale(reportLocale(meta.locale), () => buildWorkbook(snapshot, history, meta));
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

function buildWorkbook(
  snapshot: StoredSnapshot,
  history: StoredSnapshot[],
  meta: WorkbookMeta,
): ExcelJS.Workbook {
  const ctx = createContext(snapshot, history, meta);
  const workbook = new ExcelJS.Workbook();
  workbook.creator = `reportd ${meta.version}`;
  workbook.created = meta.generatedAt;
  workbook.modified = meta.generatedAt;
  const tables = new TableNames();
  const context = `${snapshot.brand.name} · ${snapshot.querySet.name} · ${snapshot.run.display_name}`;

  const titles = new Map(GROUP_SHEETS.map((sheet) => [sheet.name, t(sheet.titleKey)]));
  for (const sheet of GROUP_SHEETS) {
    const title = titles.get(sheet.name) ?? sheet.name;
    const w = new SheetWriter(workbook.addWorksheet(title), tables, sheet.name);
    w.banner(`${title} — ${context}`);
    sheet.write(w, ctx);
    w.finish();
  }
  const about = new SheetWriter(workbook.addWorksheet(t('xlsx.sheet.about')), tables, 'About');
  const shownSheetOf = new Map([...sheetOf].map(([key, name]) => [key, titles.get(name) ?? name]));
  writeAbout(about, ctx, shownSheetOf);
  about.finish();
  const historySheet = new SheetWriter(
    workbook.addWorksheet(t('xlsx.sheet.history')),
    tables,
    // The id, not the title: table names stay `Run_history_History` in every language.
    HISTORY_SHEET,
  );
  writeHistory(historySheet, ctx);
  historySheet.finish();
  const dataSheet = new SheetWriter(workbook.addWorksheet(t('xlsx.sheet.data')), tables, DATA_SHEET);
  writeData(dataSheet, ctx);
  dataSheet.finish();
  return workbook;
}
