import type { Cell, Worksheet } from 'exceljs';
import { t } from '../../locale/locale.js';
import { cleanText, headerNames, type TableNames } from './text.js';
import { stableExtensionId } from './workbook-bytes.js';

/** A number with its own Excel format (rows of one column can carry different units). */
export interface NumberCell {
  readonly n: unknown;
  readonly fmt: string;
}

export type CellInput = string | number | boolean | Date | NumberCell | null | undefined;

export interface ColumnSpec {
  readonly header: string;
  /** Format for plain numbers in this column; a `NumberCell` brings its own. */
  readonly fmt?: string;
  /** Data bars over the column (shares). */
  readonly bar?: boolean;
  /** Part of one shared color scale over all `scale` columns (the engine × intent matrix). */
  readonly scale?: boolean;
  /** Long text (summary, error register): wrapped, so the width cap does not hide it. */
  readonly wrap?: boolean;
}

export interface TableSpec {
  /** Block name for the table name, e.g. `ByEngine`; made unique per workbook. */
  readonly name: string;
  readonly columns: readonly ColumnSpec[];
  readonly rows: readonly (readonly CellInput[])[];
}

/** Text format: Excel and LibreOffice keep an edited `=…`, `+…`, `-…`, `@…` cell as text, not a formula. */
export const TEXT_FORMAT = '@';
export const DATE_FORMAT = 'yyyy-mm-dd hh:mm';

const MIN_WIDTH = 10;
const MAX_WIDTH = 50;
const WRAP_WIDTH = 80;
// Excel's stock three-colour scale (red → yellow → green) and data-bar blue.
const SCALE_COLORS = ['FFF8696B', 'FFFFEB84', 'FF63BE7B'];
const BAR_COLOR = 'FF638EC6';

const isNumberCell = (value: CellInput): value is NumberCell =>
  typeof value === 'object' && value !== null && !(value instanceof Date);

/**
 * Lays out one sheet top to bottom: a banner, then blocks (title row, Excel table or a note), each
 * below the last. Tables are stacked, never side by side, because a table's filter hides whole sheet
 * rows and would hide parts of a neighbour. Widths are computed from everything written, at `finish`.
 */
export class SheetWriter {
  private row = 1;
  private priority = 1;
  private readonly widths = new Map<number, number>();
  private readonly wrapped = new Set<number>();

  /**
   * `tableScope` names the sheet in table names (`Presence_ByEngine`): the sheet's English id, so a
   * formula or Power Query step that names a table keeps working whatever language the titles are in.
   */
  constructor(
    readonly ws: Worksheet,
    private readonly tables: TableNames,
    private readonly tableScope: string = ws.name,
  ) {}

  private bannerArgb: string | undefined;

  /** The banner's text colour (ARGB): the report theme's primary colour. */
  bannerColor(argb: string): void {
    this.bannerArgb = argb;
  }

  /**
   * The sheet's first row, kept in view (frozen) while scrolling and printed atop every page (Excel's
   * print titles), so a reader, or a screen reader, on page 3 still knows which sheet it is in.
   */
  banner(text: string): void {
    const cell = this.ws.getCell(this.row, 1);
    this.setText(cell, text);
    cell.font = { bold: true, size: 14, ...(this.bannerArgb ? { color: { argb: this.bannerArgb } } : {}) };
    this.ws.views = [{ state: 'frozen', xSplit: 0, ySplit: this.row, topLeftCell: `A${this.row + 1}` }];
    this.ws.pageSetup.printTitlesRow = `${this.row}:${this.row}`;
    this.row += 2;
  }

  title(text: string): void {
    const cell = this.ws.getCell(this.row++, 1);
    this.setText(cell, text);
    cell.font = { bold: true, size: 12 };
  }

  /** A one-line remark in place of, or under, a table ("Data unavailable — …", "No rows."). */
  note(text: string): void {
    const cell = this.ws.getCell(this.row++, 1);
    this.setText(cell, text);
    cell.font = { italic: true, color: { argb: 'FF7F7F7F' } };
  }

  gap(): void {
    this.row++;
  }

  /** Writes a real Excel table (header row, filter buttons) at the current row. */
  table(spec: TableSpec): void {
    if (spec.rows.length === 0) {
      // Excel rejects a table without a data row; an empty list is a fact worth saying.
      this.note(t('xlsx.noRows'));
      return;
    }
    const top = this.row;
    // A sheet that starts with its table (Run history, Data) repeats its header row on every page.
    if (top === 1) this.ws.pageSetup.printTitlesRow = '1:1';
    const names = headerNames(spec.columns.map((column) => column.header));
    this.ws.addTable({
      name: this.tables.next(this.tableScope, spec.name),
      ref: `A${top}`,
      headerRow: true,
      style: { theme: 'TableStyleMedium2', showRowStripes: true },
      columns: names.map((name) => ({ name, filterButton: true })),
      rows: spec.rows.map((row) => spec.columns.map((_, j) => plain(row[j]))),
    });
    names.forEach((name, j) => {
      this.ws.getCell(top, j + 1).numFmt = TEXT_FORMAT;
      this.measure(j + 1, name.length + 3);
    });
    spec.rows.forEach((row, i) => {
      spec.columns.forEach((column, j) => {
        this.style(this.ws.getCell(top + 1 + i, j + 1), j + 1, row[j], column);
      });
    });
    const first = top + 1;
    const last = top + spec.rows.length;
    this.conditionalFormats(spec.columns, first, last);
    this.row = last + 1;
  }

  /** Column widths from the longest content, capped so one long name does not push the rest away. */
  finish(): void {
    for (const [col, chars] of this.widths) {
      const cap = this.wrapped.has(col) ? WRAP_WIDTH : MAX_WIDTH;
      this.ws.getColumn(col).width = Math.min(cap, Math.max(MIN_WIDTH, chars + 1));
    }
  }

  private style(cell: Cell, col: number, value: CellInput, column: ColumnSpec): void {
    if (typeof value === 'string') {
      cell.numFmt = TEXT_FORMAT;
      if (column.wrap) {
        cell.alignment = { wrapText: true, vertical: 'top' };
        this.wrapped.add(col);
      }
      this.measure(col, longestLine(cleanText(value)));
    } else if (value instanceof Date) {
      cell.numFmt = DATE_FORMAT;
      this.measure(col, DATE_FORMAT.length);
    } else if (typeof value === 'number' || isNumberCell(value)) {
      const fmt = isNumberCell(value) ? value.fmt : column.fmt;
      if (fmt) cell.numFmt = fmt;
      const n = isNumberCell(value) ? value.n : value;
      // Rough rendered length: digits, separators, sign and the unit suffix of the format.
      if (typeof n === 'number') this.measure(col, String(Math.round(n)).length + 8);
    } else if (typeof value === 'boolean') {
      this.measure(col, 5);
    }
  }

  private conditionalFormats(columns: readonly ColumnSpec[], first: number, last: number): void {
    columns.forEach((column, j) => {
      if (!column.bar) return;
      const letter = this.ws.getColumn(j + 1).letter;
      const ref = `${letter}${first}:${letter}${last}`;
      const priority = this.priority++;
      const bar = {
        type: 'dataBar',
        priority,
        cfvo: [{ type: 'min' }, { type: 'max' }],
        color: { argb: BAR_COLOR },
      };
      this.ws.addConditionalFormatting({
        ref,
        // exceljs writes the bar colour but its typings omit it.
        rules: [stableExtensionId(bar, `${this.ws.name}!${ref}#${priority}`) as never],
      });
    });
    const scaled = columns.flatMap((column, j) => (column.scale ? [j + 1] : []));
    if (scaled.length > 0) {
      const from = this.ws.getColumn(Math.min(...scaled)).letter;
      const to = this.ws.getColumn(Math.max(...scaled)).letter;
      this.ws.addConditionalFormatting({
        ref: `${from}${first}:${to}${last}`,
        rules: [
          {
            type: 'colorScale',
            priority: this.priority++,
            cfvo: [{ type: 'min' }, { type: 'percentile', value: 50 }, { type: 'max' }],
            color: SCALE_COLORS.map((argb) => ({ argb })),
          },
        ],
      });
    }
  }

  private setText(cell: Cell, text: string): void {
    // Titles and notes overflow into the empty cells to their right, so they do not widen column A.
    cell.value = cleanText(text);
    cell.numFmt = TEXT_FORMAT;
  }

  private measure(col: number, chars: number): void {
    this.widths.set(col, Math.max(this.widths.get(col) ?? 0, chars));
  }
}

/** The value exceljs stores: strings cleaned (never a formula object), non-finite numbers blank. */
function plain(value: CellInput): string | number | boolean | Date | null {
  if (typeof value === 'string') return cleanText(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean' || value instanceof Date) return value;
  if (isNumberCell(value)) return typeof value.n === 'number' && Number.isFinite(value.n) ? value.n : null;
  return null;
}

function longestLine(text: string): number {
  return text.split('\n').reduce((max, line) => Math.max(max, line.length), 0);
}
