/**
 * A CSV file as RFC 4180 writes it (comma-separated, fields in double quotes may hold commas, quotes
 * doubled, line breaks), each record with the line and column where each field starts, so a bad
 * value in row 4812 of a recipient table is named by its place in the file, not by an array index.
 */

/** One field: its text and where it starts (1-based line and column, as editors count them). */
export interface CsvField {
  value: string;
  line: number;
  column: number;
}

/** A record: its fields, and the line it starts on. */
export interface CsvRecord {
  line: number;
  fields: CsvField[];
}

/** Why the text is not a CSV this parser reads, with where; or the records. */
export type CsvParse = { records: CsvRecord[] } | { problem: string; line: number; column: number };

/** Parses `text` (a byte-order mark is dropped; CRLF and LF both end records; blank lines skipped). */
export function parseCsv(text: string): CsvParse {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let fields: CsvField[] = [];
  let line = 1;
  let column = 1;
  let i = 0;
  let recordLine = 1;
  const endRecord = () => {
    // A line with nothing on it is a blank line, not a record of one empty field.
    if (!(fields.length === 1 && fields[0]!.value === '')) records.push({ line: recordLine, fields });
    fields = [];
  };
  while (i <= source.length) {
    const start = { line, column };
    if (fields.length === 0) recordLine = line;
    let value = '';
    if (source[i] === '"') {
      i++;
      column++;
      for (;;) {
        if (i >= source.length) return { problem: 'a quoted field is never closed', ...start };
        const char = source[i]!;
        if (char === '"' && source[i + 1] === '"') {
          value += '"';
          i += 2;
          column += 2;
        } else if (char === '"') {
          i++;
          column++;
          break;
        } else {
          value += char;
          i++;
          if (char === '\n') {
            line++;
            column = 1;
          } else column++;
        }
      }
      const next = source[i];
      if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r')
        return { problem: 'text after a closing quote (write a quote inside a field as "")', line, column };
    } else {
      while (i < source.length && source[i] !== ',' && source[i] !== '\n' && source[i] !== '\r') {
        value += source[i];
        i++;
        column++;
      }
    }
    fields.push({ value, ...start });
    if (source[i] === ',') {
      i++;
      column++;
      continue;
    }
    endRecord();
    if (source[i] === '\r') i++;
    i++;
    line++;
    column = 1;
  }
  return { records };
}
