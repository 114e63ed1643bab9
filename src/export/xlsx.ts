import ExcelJS from 'exceljs';
import { TEXT_FORMAT } from '../report/xlsx/sheet-writer.js';
import { cleanText, headerNames } from '../report/xlsx/text.js';
import { VERSION } from '../version.js';
import type { ColumnType, ExportTable } from './tables.js';

/**
 * The export as one workbook: a sheet per table, each one Excel table (header, filters, frozen first
 * row) ready for a PivotTable. Text is written as text cells in `@` format, never as a formula, and
 * cleaned of what Excel cannot store, the same way as the report workbook (report/xlsx/text.ts).
 */

const FORMATS: Record<ColumnType, string | undefined> = {
  string: TEXT_FORMAT,
  integer: '0',
  double: 'General',
  timestamp: 'yyyy-mm-dd hh:mm:ss',
  boolean: undefined,
};

function cell(value: unknown, type: ColumnType): string | number | boolean | Date | null {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
    case 'double': {
      const n = Number(value);
      return Number.isFinite(n) ? n : null;
    }
    case 'timestamp': {
      const at = Date.parse(String(value));
      return Number.isNaN(at) ? cleanText(String(value)) : new Date(at);
    }
    case 'boolean':
      return Boolean(value);
    default:
      return cleanText(String(value));
  }
}

export async function toXlsx(tables: readonly ExportTable[], generatedAt: Date): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = `reportd ${VERSION}`;
  workbook.created = generatedAt;
  workbook.modified = generatedAt;
  for (const table of tables) {
    const ws = workbook.addWorksheet(table.name, { views: [{ state: 'frozen', ySplit: 1 }] });
    table.columns.forEach((column, i) => {
      const sheetColumn = ws.getColumn(i + 1);
      sheetColumn.width = Math.max(12, Math.min(40, column.name.length + 4));
      const fmt = FORMATS[column.type];
      if (fmt) sheetColumn.numFmt = fmt;
    });
    // Excel refuses a table without a data row: an empty one gets a header row only.
    const rows = table.rows.map((row) => table.columns.map((column, i) => cell(row[i], column.type)));
    if (rows.length === 0) {
      ws.addRow(headerNames(table.columns.map((column) => column.name)));
      continue;
    }
    ws.addTable({
      // Our own words, never API text: a table name must not read as a cell reference.
      name: `t_${table.name}`,
      ref: 'A1',
      headerRow: true,
      style: { theme: 'TableStyleMedium2', showRowStripes: true },
      columns: headerNames(table.columns.map((column) => column.name)).map((name) => ({
        name,
        filterButton: true,
      })),
      rows,
    });
  }
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}
