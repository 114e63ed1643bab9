/**
 * Run periods and their labels. A run covers one ISO week and is published on the Monday after it,
 * so labels read "Week 37 · 2026" and `created_at` carries the publisher's UTC offset — which moves
 * from +02:00 to +01:00 at the end of October for the Berlin-based brand, so clients that parse
 * offsets properly are exercised.
 */

export type OffsetRule = 'utc' | 'berlin';

const DAY = 86_400_000;

/** Monday 00:00 UTC of ISO week `week` of `year`. */
export function isoWeekMonday(year: number, week: number): number {
  const jan4 = Date.UTC(year, 0, 4);
  const jan4Weekday = (new Date(jan4).getUTCDay() + 6) % 7; // Monday = 0
  return jan4 - jan4Weekday * DAY + (week - 1) * 7 * DAY;
}

export function isoWeekOf(utcMs: number): { year: number; week: number } {
  const d = new Date(utcMs);
  const weekday = (d.getUTCDay() + 6) % 7;
  const thursday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) + (3 - weekday) * DAY;
  const year = new Date(thursday).getUTCFullYear();
  const week = Math.floor((thursday - Date.UTC(year, 0, 1)) / (7 * DAY)) + 1;
  return { year, week };
}

export function weekLabel(periodMonday: number): string {
  const { year, week } = isoWeekOf(periodMonday);
  return `Week ${week} · ${year}`;
}

/** Central European summer time runs from the last Sunday of March to the last Sunday of October. */
function berlinOffsetMinutes(utcMs: number): number {
  const year = new Date(utcMs).getUTCFullYear();
  const lastSunday = (month: number) => {
    const last = Date.UTC(year, month + 1, 0);
    return last - new Date(last).getUTCDay() * DAY;
  };
  const start = lastSunday(2) + 3_600_000; // 01:00 UTC
  const end = lastSunday(9) + 3_600_000;
  return utcMs >= start && utcMs < end ? 120 : 60;
}

/** `2026-09-14T07:15:00+02:00`: the instant `utcMs`, written in local time with its offset. */
export function isoWithOffset(utcMs: number, rule: OffsetRule): string {
  const offset = rule === 'berlin' ? berlinOffsetMinutes(utcMs) : 0;
  const local = new Date(utcMs + offset * 60_000).toISOString().slice(0, 19);
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local}${sign}${hh}:${mm}`;
}

/** dd/mm/yyyy in the publisher's local time, as the details endpoint shows dates. */
export function dayMonthYear(utcMs: number, rule: OffsetRule): string {
  const iso = isoWithOffset(utcMs, rule);
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
}

export const WEEK_MS = 7 * DAY;
export const DAY_MS = DAY;
