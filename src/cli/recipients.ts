import type { Command } from 'commander';
import { loadConfig } from '../config/load.js';
import type { RecipientRow } from '../config/recipient-fields.js';
import { readerText, sliceText } from '../config/recipient-names.js';
import { RECIPIENT_ZONE, rowZone } from '../config/recipient-schema.js';
import type { ReportConfig } from '../config/schema.js';
import { documentKey } from '../delivery/recipients.js';
import { UsageError } from '../errors/index.js';
import { printable } from '../printable.js';
import { nextSlot } from '../schedule/lifecycle.js';
import { type ConfigOptions, configOption } from './options.js';

/**
 * `reportd recipients REPORT`: who gets what from a report's recipient table, read from the config
 * alone (no store, nothing sent): one line per row with its place in the table, the reader, the slice,
 * locale, theme, formats, the next send time in the reader's zone, and the render it shares.
 */
export function register(program: Command): void {
  program
    .command('recipients')
    .summary("list who gets what from a report's recipient table")
    .description(
      "Prints one line per row of the report's recipient table: where it is written, the reader, their slice " +
        '(account: query sets), locale, theme, formats, the next send time in their own zone, and the render ' +
        'it shares (rows with the same slice, locale, theme, formats and paper share one document); then how ' +
        'many renders a slot makes. Reads only the config.',
    )
    .argument('<report>', 'the name of a report with recipients')
    .addOption(configOption)
    .action((name: string, options: ConfigOptions) => {
      const config = loadConfig(options.config);
      const report = config.reports.find((r) => r.name === name);
      if (!report) throw new UsageError(`no report named "${name}" in ${options.config}`);
      if (!report.recipients) throw new UsageError(`report "${name}" has no recipients`);
      process.stdout.write(recipientLines(report, report.recipients, Date.now()).join('\n') + '\n');
    });
}

/** The listing's lines: one per row, then the count of renders. */
export function recipientLines(report: ReportConfig, rows: readonly RecipientRow[], now: number): string[] {
  const renders = new Map<string, number>();
  for (const row of rows) {
    const key = documentKey(row);
    if (!renders.has(key)) renders.set(key, renders.size + 1);
  }
  const lines = rows.map((row) => {
    const theme = row.theme ?? (report.theme ? '(report theme)' : '(default look)');
    return [
      printable(row.at),
      printable(readerText(row)),
      sliceText(row),
      row.locale,
      printable(theme),
      row.formats.join('+'),
      nextSend(report, row, now),
      `render ${renders.get(documentKey(row))}`,
    ].join('  ');
  });
  lines.push(`${rows.length} readers, ${renders.size} renders per slot`);
  return lines;
}

/** `next 2026-12-07 08:00 Asia/Tokyo`, or how the report is sent when it has no schedule. */
function nextSend(report: ReportConfig, row: RecipientRow, now: number): string {
  if (!report.schedule) return 'on each new run';
  const zone = report.schedule.timezone === RECIPIENT_ZONE ? rowZone(report, row) : report.schedule.timezone;
  const at = nextSlot(report.schedule.cron, zone, report, now);
  if (at === undefined) return 'no slot left';
  const local = new Intl.DateTimeFormat('sv-SE', {
    timeZone: zone,
    dateStyle: 'short',
    timeStyle: 'short',
  }).format(at);
  return `next ${local} ${zone}`;
}
