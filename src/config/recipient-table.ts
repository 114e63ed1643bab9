import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { ConfigIssue } from '../errors/index.js';
import { parseCsv } from './csv-table.js';
import {
  type CellProblem,
  RECIPIENT_COLUMNS,
  type RecipientColumn,
  type RecipientRow,
  type RowContext,
  readRecipientRow,
} from './recipient-fields.js';
import { RECIPIENT_ZONE } from './recipient-schema.js';
import { fileProblem } from './secret-files.js';

/**
 * `reports[].recipients` read whole when the config loads: a CSV file (relative to the config file,
 * UTF-8, a header row) or an inline list. Every bad row is one line naming the file, line, column,
 * value and why; one bad row refuses the whole config, so a table is sent whole or not at all.
 */

/** An inline row as YAML gives it: lists of words are written as lists or as one string. */
export type InlineRow = Record<string, string | number | (string | number)[]>;

export function readRecipientTable(
  table: string | readonly InlineRow[],
  path: string,
  baseDir: string,
  context: RowContext,
): { rows: RecipientRow[]; issues: ConfigIssue[] } {
  return typeof table === 'string'
    ? readCsvTable(table, path, baseDir, context)
    : readRows(
        table.map((row, index) => ({ cells: inlineCells(row), at: `${path}[${index}]` })),
        context,
        ({ at }, problem) => ({ path: `${at}.${problem.column}`, message: said(problem) }),
        (at, key) => ({ path: `${at}.${key}`, message: `unknown key (use ${RECIPIENT_COLUMNS.join(', ')})` }),
      );
}

type Cells = Partial<Record<RecipientColumn, string>>;
/** A row's cells and where it was written (a CSV row also its line). */
type Place = { cells: Cells; at: string; line?: number };

function readCsvTable(
  file: string,
  path: string,
  baseDir: string,
  context: RowContext,
): { rows: RecipientRow[]; issues: ConfigIssue[] } {
  const full = isAbsolute(file) ? file : resolve(baseDir, file);
  const fail = (where: string, message: string) => ({ rows: [], issues: [{ path: where, message }] });
  let text: string;
  try {
    text = readFileSync(full, 'utf8');
  } catch (error) {
    return fail(path, `cannot read the recipient table ${file}: ${fileProblem(error)}`);
  }
  const parsed = parseCsv(text);
  if ('problem' in parsed)
    return fail(`${file} line ${parsed.line}, column ${parsed.column}`, parsed.problem);
  const [header, ...records] = parsed.records;
  if (!header) return fail(file, 'empty: expected a header row (email,name,account,query_sets,…) and rows');
  const names = header.fields.map((field) => field.value.trim().toLowerCase());
  if (names.length === 1 && names[0]!.includes(';'))
    return fail(
      `${file} line 1`,
      'the columns are separated by semicolons; reportd reads comma-separated CSV (RFC 4180): export it with commas',
    );
  const unknown = header.fields.filter(
    (_, i) => !(RECIPIENT_COLUMNS as readonly string[]).includes(names[i]!),
  );
  if (unknown.length > 0)
    return {
      rows: [],
      issues: unknown.map((field) => ({
        path: `${file} line ${field.line}, column ${field.column}`,
        message: `"${field.value}": unknown column (use ${RECIPIENT_COLUMNS.join(', ')})`,
      })),
    };
  const columnOf = new Map<string, number>();
  const issues: ConfigIssue[] = [];
  const rows = records.flatMap((record) => {
    if (record.fields.length !== names.length) {
      issues.push({
        path: `${file} line ${record.line}`,
        message: `${record.fields.length} fields where the header has ${names.length} (quote values that hold commas)`,
      });
      return [];
    }
    const cells: Cells = {};
    record.fields.forEach((field, i) => {
      const value = field.value.trim();
      if (value !== '') cells[names[i] as RecipientColumn] = value;
      columnOf.set(`${record.line}:${names[i]}`, field.column);
    });
    return [{ cells, at: `${file} line ${record.line}`, line: record.line }];
  });
  const read = readRows(
    rows,
    context,
    ({ at, line }, problem) => {
      const column = columnOf.get(`${line}:${problem.column}`);
      return {
        path: `${at}${column === undefined ? '' : `, column ${column}`} (${problem.column})`,
        message: said(problem),
      };
    },
    () => undefined,
  );
  return { rows: read.rows, issues: [...issues, ...read.issues] };
}

/** Every row read, each bad one an issue, each reader-and-slice once. */
function readRows(
  rows: readonly Place[],
  context: RowContext,
  issueOf: (place: Place, problem: CellProblem) => ConfigIssue,
  unknownKey: (at: string, key: string) => ConfigIssue | undefined,
): { rows: RecipientRow[]; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const out: RecipientRow[] = [];
  const firstAt = new Map<string, string>();
  for (const place of rows) {
    const { cells, at } = place;
    for (const key of Object.keys(cells)) {
      if ((RECIPIENT_COLUMNS as readonly string[]).includes(key)) continue;
      const issue = unknownKey(at, key);
      if (issue) issues.push(issue);
    }
    const read = readRecipientRow(cells, at, context);
    if ('problems' in read) {
      issues.push(...read.problems.map((problem) => issueOf(place, problem)));
      continue;
    }
    const earlier = firstAt.get(read.row.id);
    if (earlier !== undefined) {
      const column = read.row.email === undefined ? 'channel' : 'email';
      issues.push(
        issueOf(place, {
          column,
          value: cells[column] ?? '',
          why: `duplicate reader: the same ${column} and slice as ${earlier}`,
        }),
      );
      continue;
    }
    firstAt.set(read.row.id, at);
    out.push(read.row);
  }
  return { rows: out, issues };
}

/** An inline row's values as the text a CSV cell would hold. */
function inlineCells(row: InlineRow): Cells {
  const cells: Record<string, string> = {};
  for (const [key, value] of Object.entries(row)) {
    const text = (Array.isArray(value) ? value.join(' ') : String(value)).trim();
    if (text !== '') cells[key] = text;
  }
  return cells as Cells;
}

/** `"bob@": not an email address` — the value quoted, control characters dropped. */
function said(problem: CellProblem): string {
  const value = [...problem.value]
    .map((char) => (char.charCodeAt(0) < 32 || char.charCodeAt(0) === 127 ? ' ' : char))
    .join('')
    .slice(0, 120);
  return `"${value}": ${problem.why}`;
}

/** What the table reader needs of the parsed config (schema.ts's output). */
interface ParsedForTables {
  accounts: readonly { name: string }[];
  channels: readonly { name: string }[];
  themes: Readonly<Record<string, unknown>>;
  smtp?: unknown;
  reports: readonly {
    account?: string;
    locale: RowContext['report']['locale'];
    formats: RowContext['report']['formats'];
    page: RowContext['report']['page'];
    email?: { to: readonly string[] };
    channels?: readonly string[];
    recipients?: string | readonly InlineRow[];
    schedule?: { timezone?: string };
  }[];
}

/**
 * Every report's table read into rows (by report index), with the rules that tie a table to its
 * report: the rows say who, so the report names no `email.to` and no `channels` of its own.
 */
export function recipientTables(
  parsed: ParsedForTables,
  baseDir: string,
  issues: ConfigIssue[],
): Map<number, RecipientRow[]> {
  const tables = new Map<number, RecipientRow[]>();
  parsed.reports.forEach((report, index) => {
    const path = `reports[${index}]`;
    if (report.recipients === undefined) {
      if (report.schedule?.timezone === RECIPIENT_ZONE)
        issues.push({
          path: `${path}.schedule.timezone`,
          message: "recipient: needs the report's recipients",
        });
      if (report.email && report.email.to.length === 0)
        issues.push({
          path: `${path}.email.to`,
          message: 'required: at least one address (or give the report recipients)',
        });
      return;
    }
    if (report.email && report.email.to.length > 0)
      issues.push({
        path: `${path}.email.to`,
        message: 'a report with recipients takes its addresses from the rows',
      });
    if (report.channels)
      issues.push({
        path: `${path}.channels`,
        message: 'a report with recipients takes its channels from the rows',
      });
    const read = readRecipientTable(report.recipients, `${path}.recipients`, baseDir, {
      accounts: parsed.accounts.map((a) => a.name),
      channels: parsed.channels.map((c) => c.name),
      themes: Object.keys(parsed.themes),
      report,
    });
    issues.push(...read.issues);
    if (parsed.smtp === undefined && read.rows.some((row) => row.email !== undefined))
      issues.push({ path: 'smtp', message: `required: rows of ${path}.recipients are sent by email` });
    tables.set(index, read.rows);
  });
  return tables;
}
