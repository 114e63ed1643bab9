import { z } from 'zod';
import { RECIPIENT_COLUMNS, type RecipientRow } from './recipient-fields.js';
import { reportTheme } from './theme-section.js';

/**
 * The config keys of recipient tables: `reports[].recipients` and the top-level `themes:` its rows
 * name. The rows' own checks (recipient-fields.ts) run when the config loads, with every other check.
 */

/** `schedule.timezone: recipient`: the cron is read in each row's own zone. */
export const RECIPIENT_ZONE = 'recipient';

/** The one zone of a report's schedule for what has no row (lifecycle dates, listings): UTC under `recipient`. */
export function scheduleZone(report: { schedule?: { timezone?: string } }): string {
  const zone = report.schedule?.timezone;
  return zone === undefined || zone === RECIPIENT_ZONE ? 'UTC' : zone;
}

/**
 * The zones a report's cron is read in: its schedule's, or under `recipient` each zone its rows are
 * in (a row without one: the report's `timezone`, else UTC), each zone its own slots.
 */
export function scheduleZones(report: {
  schedule?: { timezone?: string };
  timezone?: string;
  recipients?: readonly Pick<RecipientRow, 'timezone'>[];
}): string[] {
  if (report.schedule?.timezone !== RECIPIENT_ZONE) return [scheduleZone(report)];
  const zones = (report.recipients ?? []).map((row) => rowZone(report, row));
  return [...new Set(zones)].sort();
}

/** The zone a row's slots are read in under `schedule.timezone: recipient`. */
export function rowZone(report: { timezone?: string }, row: Pick<RecipientRow, 'timezone'>): string {
  return row.timezone ?? report.timezone ?? 'UTC';
}

const cell = z.union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))]);

export const recipientTable = z
  .union([z.string().min(1), z.array(z.record(z.string(), cell)).min(1)], {
    error: 'expected the path of a CSV file or a list of rows',
  })
  .optional()
  .describe(
    `One reader per row, each with their own slice of the data: a CSV file (relative to the config file, UTF-8, a header row) or a list of rows with the same keys. Columns: ${RECIPIENT_COLUMNS.join(', ')}. \`email\` (one address) or \`channel\` (a \`channels[]\` name) is required; \`name\` fills {{recipient.name}}; \`account\` and \`query_sets\` (ids separated by spaces, or \`all\`) are the slice the reader's documents are built from; \`locale\`, \`timezone\`, \`theme\` (a \`themes:\` name), \`formats\` and \`page\` (e.g. "A4 landscape") default to the report's; \`cc\`: addresses separated by spaces. A report with recipients has no \`email.to\` and no \`channels\`. Default none.`,
  );

const THEME_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export const themes = z
  .record(
    z.string().regex(THEME_NAME, { error: 'use letters, digits, ".", "-" and "_" (no spaces)' }),
    reportTheme.unwrap(),
  )
  .default({})
  .describe(
    "Named looks (logo, colours, font, cover title, footer; the keys of `reports[].theme`) that recipient rows pick by name in their `theme` column, so each client's look is written once. Default none.",
  );
