import { createHash } from 'node:crypto';
import type { RecipientRow } from '../config/recipient-fields.js';
import { scheduleZone } from '../config/recipient-schema.js';
import type { ThemeConfig } from '../report/theme/theme.js';

/**
 * One definition, many readers: a report with `recipients` is sent to each row as if that row had
 * written its own report block, with the row's slice (account, query sets), language, look, paper,
 * formats and address. Everything here turns a row into that report; nothing else reads a row's slice.
 *
 * A row's delivery is an outbox row of its own whose destination is `recipient:<row id>`: the row is
 * part of the delivery's identity (its UNIQUE key and its Message-ID), so each reader is sent each run
 * exactly once whatever the table's order, and a reader removed from the table is never sent again.
 */

/** The report as this reader gets it: the row's slice, language, look, paper, formats and address. */
export function readerReport<R extends ReaderBase>(
  report: R,
  row: RecipientRow,
  themes: Readonly<Record<string, ThemeConfig>>,
): R & { recipient: RecipientRow } {
  const theme = row.theme === undefined ? report.theme : themes[row.theme];
  return {
    ...report,
    account: row.account,
    query_sets: row.query_sets,
    locale: row.locale,
    formats: row.formats,
    page: row.page,
    theme,
    // The documents' dates stay in the report's zone (a row's zone is when it is sent), so readers
    // of one slice in three zones share one render.
    timezone: documentZone(report),
    email:
      row.email === undefined
        ? undefined
        : { to: [row.email], cc: row.cc, bcc: [], subject: report.email?.subject },
    channels: row.channel === undefined ? undefined : [row.channel],
    recipients: undefined,
    recipient: row,
  };
}

/** The parts of a report `readerReport` reads and replaces. */
export interface ReaderBase {
  name: string;
  theme?: ThemeConfig;
  timezone?: string;
  schedule?: { timezone?: string };
  email?: { subject?: string };
}

/** The zone the documents print dates in: the report's, never `recipient`. */
function documentZone(report: ReaderBase): string {
  return report.timezone ?? scheduleZone(report);
}

/**
 * What makes two rows' documents the same: the slice, locale, theme, formats and paper. Rows with
 * equal keys share one render; the name, address and zone are the message's, not the document's.
 */
export function documentKey(row: RecipientRow): string {
  const parts = [
    row.account,
    row.query_sets,
    row.locale,
    row.theme ?? '',
    [...row.formats].sort(),
    row.page.size,
    row.page.orientation,
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}
