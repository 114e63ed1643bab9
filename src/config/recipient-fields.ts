import { REPORT_LOCALES, type ReportLocaleTag } from './locale-tags.js';
import { ORIENTATIONS, type Orientation, PAGE_SIZES, type PageSize } from './paper.js';
import { EMAIL_ADDRESS, timezoneProblem } from './validators.js';

/**
 * One row of a recipient table (`reports[].recipients`): the reader, their slice of the data and
 * their document's language, look and paper. A CSV file and an inline list go through the same
 * checks here (`readRecipientRow`), so both spell their errors and defaults the same way.
 */

export const RECIPIENT_COLUMNS = [
  'email',
  'channel',
  'name',
  'account',
  'query_sets',
  'locale',
  'timezone',
  'theme',
  'formats',
  'page',
  'cc',
] as const;
export type RecipientColumn = (typeof RECIPIENT_COLUMNS)[number];

const FORMATS = ['pdf', 'xlsx', 'html'] as const;
type Format = (typeof FORMATS)[number];

/** A row as the rest of reportd reads it: every default already the report's. */
export interface RecipientRow {
  /**
   * Stable across edits of everything but the reader and the slice: a hash of (address or channel,
   * account, sets). It is the delivery row's destination (`recipient:<id>`), so reordering the table,
   * renaming a reader or changing their locale never sends a run twice.
   */
  id: string;
  /** Where the row was written, for messages: `clients.csv line 4`, `reports[0].recipients[2]`. */
  at: string;
  email?: string;
  channel?: string;
  name?: string;
  account: string;
  query_sets: 'all' | number[];
  locale: ReportLocaleTag;
  /** The reader's zone (their send time with `schedule.timezone: recipient`); the report's when absent. */
  timezone?: string;
  /** A name in the top-level `themes:`; the report's own theme when absent. */
  theme?: string;
  formats: Format[];
  page: { size: PageSize; orientation: Orientation };
  cc: string[];
}

/** What a row may name and what it inherits from its report. */
export interface RowContext {
  accounts: readonly string[];
  channels: readonly string[];
  themes: readonly string[];
  report: {
    account?: string;
    locale: ReportLocaleTag;
    formats: readonly Format[];
    page: { size: PageSize; orientation: Orientation };
  };
}

/** One bad cell: which column, its text, why. */
export interface CellProblem {
  column: string;
  value: string;
  why: string;
}

type Cells = Partial<Record<RecipientColumn, string>>;

const words = (text: string) => text.split(/[\s,]+/).filter((word) => word !== '');
const BARE_ADDRESS = /^[^\s<>@,;"]+@[^\s<>@,;"]+\.[^\s<>@,;"]+$/;

/** Reads one row's cells (trimmed text; empty = absent) into a row, or every problem in it. */
export function readRecipientRow(
  cells: Cells,
  at: string,
  context: RowContext,
): { row: RecipientRow } | { problems: CellProblem[] } {
  const problems: CellProblem[] = [];
  const bad = (column: RecipientColumn, why: string) =>
    problems.push({ column, value: cells[column] ?? '', why });
  const { email, channel } = cells;
  if (email === undefined && channel === undefined)
    bad('email', 'missing: each row needs an email (or a channel)');
  if (email !== undefined && channel !== undefined) bad('channel', 'give email or channel, not both');
  if (email !== undefined && !EMAIL_ADDRESS.test(email))
    bad('email', 'not an email address (expected one address like ops@example.com)');
  if (channel !== undefined && !context.channels.includes(channel))
    bad('channel', `no channel named so (channels: ${context.channels.join(', ') || 'none'})`);
  const account = cells.account ?? context.report.account ?? soleAccount(context.accounts);
  if (account === undefined) bad('account', 'missing: name the account (there are several)');
  else if (!context.accounts.includes(account))
    bad('account', `unknown account (accounts: ${context.accounts.join(', ')})`);
  const querySets = readSets(cells.query_sets, (why) => bad('query_sets', why));
  const locale = cells.locale ?? context.report.locale;
  if (!(REPORT_LOCALES as readonly string[]).includes(locale))
    bad('locale', `unknown locale (use one of ${REPORT_LOCALES.join(', ')})`);
  const zoneProblem = cells.timezone === undefined ? undefined : timezoneProblem(cells.timezone);
  if (zoneProblem) bad('timezone', zoneProblem);
  if (cells.theme !== undefined && !context.themes.includes(cells.theme))
    bad('theme', `no theme named so in themes: (${context.themes.join(', ') || 'none defined'})`);
  const formats = cells.formats === undefined ? [...context.report.formats] : words(cells.formats);
  const unknownFormat = formats.find((f) => !(FORMATS as readonly string[]).includes(f));
  if (unknownFormat !== undefined || formats.length === 0)
    bad('formats', `expected some of ${FORMATS.join(', ')}, separated by spaces`);
  const page = readPage(cells.page, context.report.page, (why) => bad('page', why));
  const cc = cells.cc === undefined ? [] : words(cells.cc);
  if (cc.some((address) => !BARE_ADDRESS.test(address)))
    bad('cc', 'expected addresses like a@example.com, separated by spaces');
  if (problems.length > 0 || account === undefined || querySets === undefined) return { problems };
  const reader = email !== undefined ? `email:${bareAddress(email).toLowerCase()}` : `channel:${channel}`;
  const row: RecipientRow = {
    // node:crypto only when a table is read: `reportd check` of a config without one never loads it.
    id: process
      .getBuiltinModule('node:crypto')
      .createHash('sha256')
      .update(JSON.stringify([reader, account, querySets]))
      .digest('hex')
      .slice(0, 16),
    at,
    ...(email === undefined ? {} : { email }),
    ...(channel === undefined ? {} : { channel }),
    ...(cells.name === undefined ? {} : { name: cells.name }),
    account,
    query_sets: querySets,
    locale: locale as ReportLocaleTag,
    ...(cells.timezone === undefined ? {} : { timezone: cells.timezone }),
    ...(cells.theme === undefined ? {} : { theme: cells.theme }),
    formats: formats as Format[],
    page,
    cc,
  };
  return { row };
}

function soleAccount(accounts: readonly string[]): string | undefined {
  return accounts.length === 1 ? accounts[0] : undefined;
}

/** `all` (the default) or ids separated by spaces, sorted so `2 1` and `1 2` are one slice. */
function readSets(text: string | undefined, bad: (why: string) => void): 'all' | number[] | undefined {
  if (text === undefined || text === 'all') return 'all';
  const ids = words(text);
  if (ids.length === 0 || !ids.every((id) => /^[1-9]\d{0,15}$/.test(id))) {
    bad('expected "all" or query set ids separated by spaces, like "101 102"');
    return undefined;
  }
  return [...new Set(ids.map(Number))].sort((a, b) => a - b);
}

/** `A4`, `Letter landscape`, `landscape`: a size, an orientation or both. */
function readPage(
  text: string | undefined,
  fallback: RecipientRow['page'],
  bad: (why: string) => void,
): RecipientRow['page'] {
  if (text === undefined) return fallback;
  const page = { ...fallback };
  for (const word of words(text)) {
    const size = PAGE_SIZES.find((s) => s.toLowerCase() === word.toLowerCase());
    const orientation = ORIENTATIONS.find((o) => o === word.toLowerCase());
    if (size) page.size = size;
    else if (orientation) page.orientation = orientation;
    else bad(`expected a size (${PAGE_SIZES.join(', ')}) and/or ${ORIENTATIONS.join(' or ')}`);
  }
  return page;
}

/** `Ops <ops@example.com>` → `ops@example.com`. */
export function bareAddress(address: string): string {
  return /<([^<>]+)>\s*$/.exec(address)?.[1] ?? address;
}
