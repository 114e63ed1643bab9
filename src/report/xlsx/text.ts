/**
 * Text hygiene for the workbook. Every string that reaches a cell or a table header comes from the API
 * (untrusted) or from a stored error message, so it passes through here first.
 */

/** Excel refuses cell text longer than this; the rest would make the file unreadable. */
export const EXCEL_MAX_TEXT = 32_767;
/** Excel's limit for a table column name. */
const MAX_HEADER = 255;

/**
 * Characters XML 1.0 forbids (C0 controls other than tab/newline/CR, DEL, U+FFFE/U+FFFF) and lone
 * surrogates. Left in, they make Excel report the file as corrupt; exceljs does not remove all of them.
 */
const FORBIDDEN =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A string safe to store as cell text: forbidden characters removed, cut to Excel's limit. */
export function cleanText(value: string): string {
  const clean = value.replace(FORBIDDEN, '');
  return clean.length > EXCEL_MAX_TEXT ? `${clean.slice(0, EXCEL_MAX_TEXT - 1)}…` : clean;
}

/**
 * Table column names, which Excel requires to be non-empty, single-line and unique (ignoring case).
 * Engine, intent and category labels from the API become headers, so duplicates get " (2)", " (3)".
 */
export function headerNames(headers: readonly string[]): string[] {
  const seen = new Set<string>();
  return headers.map((header) => {
    const base =
      cleanText(header)
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, MAX_HEADER - 6) || '(unnamed)';
    let name = base;
    for (let n = 2; seen.has(name.toLowerCase()); n++) name = `${base} (${n})`;
    seen.add(name.toLowerCase());
    return name;
  });
}

/**
 * Table names must be workbook-unique identifiers that cannot be read as a cell reference, so they are
 * built from our own words (sheet + block), never from API strings.
 */
export class TableNames {
  private readonly used = new Set<string>();

  next(sheet: string, block: string): string {
    const base = `${sheet}_${block}`.replace(/[^A-Za-z0-9_]/g, '_');
    let name = base;
    for (let n = 2; this.used.has(name.toLowerCase()); n++) name = `${base}_${n}`;
    this.used.add(name.toLowerCase());
    return name;
  }
}
