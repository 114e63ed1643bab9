import type { Config } from '../config/index.js';
import { scheduleZone, scheduleZones } from '../config/recipient-schema.js';
import { printable } from '../printable.js';
import { type Lifecycle, lifecycleState, nextSlots } from './lifecycle.js';
import { zoneFormat } from './zone-format.js';

/**
 * The "next fire times" of `reportd check`: for the sync and every report, the next `count` slots in
 * the schedule's own time zone with its UTC offset, then in UTC, so a DST change shows as the offset
 * changes between two lines. Lines are YAML comments: check's stdout stays one YAML document.
 */

const ALWAYS: Lifecycle = { enabled: true };

const SLOT_PARTS: Intl.DateTimeFormatOptions = {
  hourCycle: 'h23',
  weekday: 'short',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'longOffset',
};

/** `Mon 2026-03-30 08:00 +02:00` in `timezone`. */
export function formatInZone(at: number, timezone: string): string {
  const parts = zoneFormat(timezone, SLOT_PARTS).formatToParts(new Date(at));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  // longOffset says `GMT+02:00`, or plain `GMT` for UTC itself.
  const offset = get('timeZoneName').replace(/^GMT/, '') || '+00:00';
  return `${get('weekday')} ${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')} ${offset}`;
}

function slotLines(cron: string, timezone: string, life: Lifecycle, now: number, count: number): string[] {
  const slots = nextSlots(cron, timezone, life, now, count);
  const lines = slots.map((slot) => {
    const utc = `${new Date(slot).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    return timezone === 'UTC' ? `#     ${utc}` : `#     ${formatInZone(slot, timezone)}  = ${utc}`;
  });
  if (slots.length < count) lines.push(`#     no further slot before active_until ${life.active_until}`);
  return lines;
}

export function scheduleListing(config: Config, now: number, count = 3): string[] {
  const out = [`# next ${count} fire times (schedule's time zone, then UTC):`];
  out.push(
    `#   sync: "${config.sync.schedule}" UTC`,
    ...slotLines(config.sync.schedule, 'UTC', ALWAYS, now, count),
  );
  for (const report of config.reports) {
    // Names come from the config file, but still go through printable: a comment line must stay one line.
    const name = printable(report.name);
    const state = lifecycleState(report, scheduleZone(report), now);
    if (state === 'paused') {
      out.push(`#   report ${name}: paused (enabled: false)`);
      continue;
    }
    if (state === 'ended') {
      out.push(`#   report ${name}: ended (active_until ${report.active_until})`);
      continue;
    }
    const from = state === 'scheduled' ? ` from ${report.active_from}` : '';
    if (!report.schedule) {
      out.push(`#   report ${name}: on each newly published run (trigger: new_run)${from}`);
      continue;
    }
    const { cron } = report.schedule;
    // Under `timezone: recipient` each zone of the table has its own slots.
    for (const timezone of scheduleZones(report)) {
      out.push(
        `#   report ${name}: "${cron}" ${timezone}${from}`,
        ...slotLines(cron, timezone, report, now, count),
      );
    }
  }
  return out;
}
