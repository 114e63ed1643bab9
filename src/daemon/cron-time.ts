/**
 * When does a cron expression next fire, in an IANA timezone, after a given instant? A pure function
 * so the scheduler can run on a fake clock (node-cron only runs on real timers and exposes no "next
 * occurrence" for an injected time).
 *
 * Five fields (minute hour day-of-month month day-of-week) with `*`, lists, ranges, steps and names
 * (`jan`/`january`, `mon`/`monday`); day-of-week 7 is Sunday. Six fields put seconds first (as
 * node-cron reads them). A range that runs backwards wraps around (`fri-mon`, `22-2`), as node-cron
 * reads it: config validation uses node-cron, so everything it accepts must schedule here too.
 * When both day fields are restricted a day matches if either does (classic cron).
 *
 * Daylight-saving time, with the wall clock as the reference:
 * - a time that does not exist (spring forward, 02:30 in Berlin on 2026-03-29) fires at the instant
 *   the clocks skip to (as if the job were late by the gap), so a daily 02:30 job still runs that day;
 * - a time that happens twice (fall back) fires once, at its first occurrence.
 */

export interface CronFields {
  seconds: number[];
  minutes: number[];
  hours: number[];
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Both day fields restricted: a day matches when either matches. */
  dayOr: boolean;
  daysRestricted: boolean;
  weekdaysRestricted: boolean;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** Index of a full name or its three-letter abbreviation (`mon`, `monday`), else -1. */
function nameIndex(names: string[], token: string): number {
  const t = token.toLowerCase();
  return names.findIndex((name) => name === t || name.slice(0, 3) === t);
}

export function parseCron(expression: string): CronFields {
  let parts = expression.trim().split(/\s+/);
  let seconds = [0];
  if (parts.length === 6) {
    seconds = [...field(parts[0]!, 0, 59, undefined, expression)].sort((a, b) => a - b);
    parts = parts.slice(1);
  }
  if (parts.length !== 5) {
    throw new Error(`cron "${expression}": expected 5 fields (or 6 with seconds first)`);
  }
  const [m, h, dom, mon, dow] = parts as [string, string, string, string, string];
  const weekdays = new Set([...field(dow, 0, 7, WEEKDAYS, expression)].map((d) => d % 7));
  return {
    seconds,
    minutes: [...field(m, 0, 59, undefined, expression)].sort((a, b) => a - b),
    hours: [...field(h, 0, 23, undefined, expression)].sort((a, b) => a - b),
    days: field(dom, 1, 31, undefined, expression),
    months: field(mon, 1, 12, MONTHS, expression, 1),
    weekdays,
    daysRestricted: !dom.startsWith('*'),
    weekdaysRestricted: !dow.startsWith('*'),
    dayOr: !dom.startsWith('*') && !dow.startsWith('*'),
  };
}

function field(
  text: string,
  min: number,
  max: number,
  names: string[] | undefined,
  expr: string,
  nameBase = 0,
) {
  const values = new Set<number>();
  const value = (token: string): number => {
    const named = names ? nameIndex(names, token) : -1;
    const n = named >= 0 ? named + nameBase : /^\d+$/.test(token) ? Number(token) : Number.NaN;
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`cron "${expr}": bad value "${token}"`);
    return n;
  };
  for (const item of text.split(',')) {
    const [range = '', stepText] = item.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw new Error(`cron "${expr}": bad step in "${item}"`);
    let from: number;
    let to: number;
    if (range === '*') [from, to] = [min, max];
    else if (range.includes('-')) {
      const [a = '', b = ''] = range.split('-');
      [from, to] = [value(a), value(b)];
      if (from > to) {
        for (const v of wrappedRange(from, to, step, min, names === WEEKDAYS ? 6 : max)) values.add(v);
        continue;
      }
    } else {
      from = value(range);
      // `5/15` means from 5 to the end in steps of 15.
      to = stepText === undefined ? from : max;
    }
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return values;
}

/** `22-2` in hours: 22, 23, 0, 1, 2 (steps counted from `from`). Day-of-week wraps after Saturday. */
function wrappedRange(from: number, to: number, step: number, min: number, max: number): number[] {
  const size = max - min + 1;
  const start = from > max ? from - size : from;
  const span = (((to - start) % size) + size) % size;
  const out: number[] = [];
  for (let offset = 0; offset <= span; offset += step) {
    const v = start + offset;
    out.push(v > max ? v - size : v);
  }
  return out;
}

/** Offset of `tz` from UTC at instant `at`, in ms (Berlin in summer: +7_200_000). */
export function zoneOffset(at: number, tz: string): number {
  const parts = formatter(tz).formatToParts(new Date(at));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(
    get('year'),
    get('month') - 1,
    get('day'),
    get('hour'),
    get('minute'),
    get('second'),
  );
  return asUtc - Math.floor(at / 1000) * 1000;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/**
 * The instant of a wall-clock time in `tz`. For a time in a gap, the offset from before the change is
 * used (which lands after the gap); for a time that occurs twice, the earlier instant.
 */
export function wallClockToInstant(wall: number, tz: string): number {
  const before = zoneOffset(wall - 86_400_000, tz);
  const after = zoneOffset(wall + 86_400_000, tz);
  const valid = [wall - before, wall - after].filter((t) => zoneOffset(t, tz) === wall - t);
  if (valid.length > 0) return Math.min(...valid);
  return wall - before;
}

/** The first instant strictly after `after` at which `expression` fires in `tz`. */
export function nextCronTime(expression: string | CronFields, tz: string, after: number): number {
  const cron = typeof expression === 'string' ? parseCron(expression) : expression;
  // Wall-clock time of `after` as a UTC-based number, floored to the second, plus one second.
  const startWall = Math.floor((after + zoneOffset(after, tz)) / 1000) * 1000 + 1000;
  const startDay = Math.floor(startWall / 86_400_000) * 86_400_000;
  // Eight years covers the rarest valid expression (Feb 29 on a given weekday).
  for (let day = startDay, n = 0; n < 366 * 8; day += 86_400_000, n++) {
    const date = new Date(day);
    if (!cron.months.has(date.getUTCMonth() + 1)) continue;
    const domOk = cron.days.has(date.getUTCDate());
    const dowOk = cron.weekdays.has(date.getUTCDay());
    const dayOk = cron.dayOr ? domOk || dowOk : domOk && dowOk;
    if (!dayOk) continue;
    for (const hour of cron.hours) {
      for (const minute of cron.minutes) {
        for (const second of cron.seconds) {
          const wall = day + hour * 3_600_000 + minute * 60_000 + second * 1000;
          // Compare instants, not wall times: around a fall-back change, wall times repeat.
          if (wall < startWall - 3_600_000 * 3) continue;
          const instant = wallClockToInstant(wall, tz);
          if (instant > after) return instant;
        }
      }
    }
  }
  throw new Error(`cron "${typeof expression === 'string' ? expression : '…'}" never fires`);
}

/** Throws a one-line message when the expression or the timezone is unusable. */
export function validateCron(expression: string, tz: string): void {
  parseCron(expression);
  try {
    formatter(tz);
  } catch {
    throw new Error(`unknown timezone "${tz}"`);
  }
}
