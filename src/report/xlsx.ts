import ExcelJS from 'exceljs';
import { REPORT_SECTIONS, type ReportSection } from '../config/report-sections.js';
import { reportLocale, t, withLocale } from '../locale/locale.js';
import type { StoredSnapshot } from '../store/snapshots.js';
import { argb, type ThemeView } from './theme/theme.js';
import { createContext, type SheetContext, type WorkbookMeta } from './xlsx/context.js';
import { placeLogo } from './xlsx/logo.js';
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
import { workbookBytes } from './xlsx/workbook-bytes.js';

/** The group sheet of each section of the report (`reports[].sections`). */
const SECTION_SHEETS: Readonly<Record<ReportSection, SheetDef>> = {
  overview: overviewSheet,
  presence: presenceSheet,
  life: lifeSheet,
  gravity: gravitySheet,
  scout: scoutSheet,
  market: marketSheet,
};

/** The group sheets, in the order analysts read them (and the PDF's section order). */
const GROUP_SHEETS: readonly SheetDef[] = REPORT_SECTIONS.map((section) => SECTION_SHEETS[section]);

/**
 * Which parts of a set the workbook shows: the report's `sections`, and for `detail: summary` only
 * what the two-page brief prints from (the overview); About, Run history and Data always, since
 * they hold every number whatever the document prints.
 */
export interface WorkbookContents {
  sections?: readonly ReportSection[];
  detail?: 'full' | 'summary';
  /** The report's look: banners in its primary colour, its cover title and footer in the print header. */
  theme?: ThemeView;
}

/** The theme on a sheet: the banner's colour, and the cover title / footer Excel prints on each page. */
function themeSheet(w: SheetWriter, theme: ThemeView | undefined): void {
  if (!theme) return;
  w.bannerColor(argb(theme.primary));
  // Excel's header codes start with &: text is escaped by doubling it.
  const code = (text: string) => text.replace(/&/g, '&&');
  if (theme.coverTitle) w.ws.headerFooter.oddHeader = `&C${code(theme.coverTitle)}`;
  if (theme.footer) w.ws.headerFooter.oddFooter = `&L${code(theme.footer)}&RPage &P of &N`;
}

function chosenSheets(contents: WorkbookContents): SheetDef[] {
  if (contents.detail === 'summary') return [overviewSheet];
  const chosen = new Set(contents.sections ?? REPORT_SECTIONS);
  return REPORT_SECTIONS.filter((section) => chosen.has(section)).map((section) => SECTION_SHEETS[section]);
}

/** Excel's limit for a sheet name, and the characters it refuses in one. */
const MAX_SHEET_NAME = 31;
const SHEET_NAME_FORBIDDEN = /[[\]:*?/\\]/g;

/**
 * A worksheet name Excel accepts, unique in the workbook (case-insensitive): `label` (a digest's
 * short set label, "S2") before the sheet's title, forbidden characters replaced, cut to 31.
 */
export function sheetName(used: Set<string>, title: string, label?: string): string {
  const base = (label ? `${label} ${title}` : title)
    .replace(SHEET_NAME_FORBIDDEN, '-')
    .slice(0, MAX_SHEET_NAME);
  let name = base;
  for (let n = 2; used.has(name.toLowerCase()); n++) {
    const suffix = ` (${n})`;
    name = `${base.slice(0, MAX_SHEET_NAME - suffix.length)}${suffix}`;
  }
  used.add(name.toLowerCase());
  return name;
}

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

/**
 * The analyst workbook of one snapshot: a sheet per metric group (those `contents` chooses), `About`
 * and a long run history over every stored snapshot of the set. Reads only the snapshot (never the
 * network); a missing or invalid payload becomes a "Data unavailable" row where its table would be,
 * never an exception.
 */
export async function renderWorkbook(
  snapshot: StoredSnapshot,
  history: StoredSnapshot[],
  meta: WorkbookMeta,
  contents: WorkbookContents = {},
): Promise<Buffer> {
  // Titles, headers and notes in the reader's language; the cells are built synchronously, so the
  // locale cannot leak to another render (see withLocale). Serialising happens after, outside it.
  const workbook = withLocale(reportLocale(meta.locale), () => {
    const title = `${t('report.title', { brand: snapshot.brand.name })} — ${snapshot.run.display_name}`;
    const book = newWorkbook(meta, title);
    const ctx = createContext(snapshot, history, meta);
    writeSetSheets(book, ctx, contents);
    writeDataSheet(book, [ctx]);
    return book.workbook;
  });
  return workbookBytes(workbook);
}

/** A workbook being built, with the names its sheets and tables already use. */
export interface BookInProgress {
  workbook: ExcelJS.Workbook;
  tables: TableNames;
  sheetNames: Set<string>;
}

/**
 * An empty workbook with its properties: `title` (the document's, as the PDF's) and its language,
 * which Excel and screen readers read from the file's core properties.
 */
export function newWorkbook(
  meta: Pick<WorkbookMeta, 'version' | 'generatedAt' | 'locale'>,
  title: string,
): BookInProgress {
  const workbook = new ExcelJS.Workbook();
  workbook.title = title;
  // exceljs writes it (dc:language) but its typings leave it out.
  Object.assign(workbook, { language: reportLocale(meta.locale).tag });
  workbook.creator = `reportd ${meta.version}`;
  workbook.created = meta.generatedAt;
  workbook.modified = meta.generatedAt;
  return { workbook, tables: new TableNames(), sheetNames: new Set() };
}

/**
 * One set's sheets: its chosen group sheets, About and Run history. In a digest `label` ("S2")
 * prefixes their names and their table names (`S2_Overview_Summary`), so several sets share a book.
 */
export function writeSetSheets(
  book: BookInProgress,
  ctx: SheetContext,
  contents: WorkbookContents,
  label?: string,
): void {
  const { snapshot } = ctx;
  const scope = (id: string) => (label ? `${label}_${id}` : id);
  const add = (title: string) => book.workbook.addWorksheet(sheetName(book.sheetNames, title, label));
  const context = `${snapshot.brand.name} · ${snapshot.querySet.name} · ${snapshot.run.display_name}`;
  const shownSheetOf = new Map<string, string>();
  for (const sheet of chosenSheets(contents)) {
    const ws = add(t(sheet.titleKey));
    for (const key of sheet.endpoints) shownSheetOf.set(key, ws.name);
    const w = new SheetWriter(ws, book.tables, scope(sheet.name));
    themeSheet(w, contents.theme);
    w.banner(`${t(sheet.titleKey)} — ${context}`);
    sheet.write(w, ctx);
    w.finish();
  }
  const about = new SheetWriter(add(t('xlsx.sheet.about')), book.tables, scope('About'));
  themeSheet(about, contents.theme);
  writeAbout(about, ctx, shownSheetOf);
  about.finish();
  placeLogo(book.workbook, about.ws, contents.theme?.logo);
  // The id, not the title, names the tables: `Run_history_History` in every language.
  const historySheet = new SheetWriter(add(t('xlsx.sheet.history')), book.tables, scope(HISTORY_SHEET));
  writeHistory(historySheet, ctx);
  historySheet.finish();
}

/** The `Data` sheet: every set's tidy rows in one table (its columns name the account, set and run). */
export function writeDataSheet(book: BookInProgress, sets: readonly SheetContext[]): void {
  const ws = book.workbook.addWorksheet(sheetName(book.sheetNames, t('xlsx.sheet.data')));
  const dataSheet = new SheetWriter(ws, book.tables, DATA_SHEET);
  writeData(dataSheet, sets);
  dataSheet.finish();
}
