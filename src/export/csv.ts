import type { ExportTable } from './tables.js';

/**
 * CSV as RFC 4180 says: UTF-8, a header row, CRLF line ends, a field quoted (quotes doubled) when it
 * holds a comma, a quote, CR or LF. Numbers with `.` decimals, timestamps as the API's ISO 8601 text.
 *
 * A text cell that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or CR)
 * gets a leading `'`, as OWASP's "CSV Injection" page advises: the API's strings are untrusted, and
 * a brand named `=HYPERLINK(…)` must stay a name. Numeric columns are numbers, never neutralised.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** A text value made safe to open in a spreadsheet (OWASP CSV injection advice). */
export function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

function field(value: unknown, text: boolean): string {
  if (value === null || value === undefined) return '';
  let out: string;
  if (typeof value === 'number') out = Number.isFinite(value) ? String(value) : '';
  else if (typeof value === 'boolean') out = value ? 'true' : 'false';
  else out = text ? neutraliseFormula(String(value)) : String(value);
  return NEEDS_QUOTES.test(out) ? `"${out.replaceAll('"', '""')}"` : out;
}

export function toCsv(table: ExportTable): string {
  const textColumns = table.columns.map((column) => column.type === 'string' || column.type === 'timestamp');
  const lines = [table.columns.map((column) => field(column.name, true)).join(',')];
  for (const row of table.rows) lines.push(row.map((value, i) => field(value, textColumns[i]!)).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
