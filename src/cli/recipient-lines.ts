import type { RecipientRow } from '../config/recipient-fields.js';
import { readerText, sliceText } from '../config/recipient-names.js';
import { RECIPIENT_ZONE, rowZone } from '../config/recipient-schema.js';
import type { ReportConfig } from '../config/schema.js';
import { documentKey } from '../delivery/recipients.js';
import { printable } from '../printable.js';
import { nextSlot } from '../schedule/lifecycle.js';

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
