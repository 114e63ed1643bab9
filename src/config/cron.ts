import { Cron } from 'croner';

/**
 * The one cron implementation of reportd: config validation, the daemon's scheduler and the "next
 * fire times" listing of `reportd check` all read expressions here, through croner (a maintained
 * parser), so what the config accepts is exactly what fires and what `check` shows.
 *
 * Always computed from an injected instant (`after`), never from the wall clock, so the scheduler
 * runs on a fake clock. croner's grammar: 5 fields (minute hour day-of-month month day-of-week) or 6
 * with seconds first; `*`, lists, ranges, steps, three-letter names; `L` (last day of the month, or
 * `5L` the last Friday), `W` (nearest weekday), `1#1` (first Monday), `?`, and `@daily`-style
 * nicknames. When both day fields are restricted a day matches if either does (classic cron).
 * Two forms node-cron took and croner does not are mapped onto croner's before parsing (so configs
 * written for earlier versions keep their meaning): full names (`monday`, `january`) become their
 * three-letter form, and a range that runs backwards (`fri-mon`, `22-2/2`) becomes the list of values
 * it wraps through.
 *
 * Daylight-saving time, with the wall clock as the reference (croner's rule): a time that does not
 * exist (02:30 in Berlin on 2026-03-29) fires when the clocks skip to 03:00; a time that happens
 * twice fires once, at its first occurrence.
 */

const FULL_NAMES =
  /\b(january|february|march|april|june|july|august|september|october|november|december|sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/gi;

const CRON_FIELDS = 'minute hour day-of-month month day-of-week (6 fields: seconds first)';

const parsed = new Map<string, Cron>();

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
/** [min, max, names] of minute, hour, day-of-month, month, day-of-week. */
const FIELDS: [number, number, string[]?][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12, MONTHS],
  [0, 6, DAYS],
];

/** `fri-mon` → `5,6,0,1`; `22-2/2` → `22,0,2` (steps counted from the start, as node-cron did). */
function unwrapRanges(fields: string[]): string[] {
  const offset = fields.length - 5; // a seconds field first
  return fields.map((field, index) => {
    const spec = FIELDS[index - offset];
    if (!spec) return field;
    const [min, max, names] = spec;
    const value = (token: string) => {
      const named = names?.indexOf(token.toLowerCase()) ?? -1;
      if (named >= 0) return named + min;
      return /^\d+$/.test(token) ? Number(token) : Number.NaN;
    };
    return field
      .split(',')
      .map((item) => {
        const match = /^(\w+)-(\w+)(?:\/(\d+))?$/.exec(item);
        if (!match) return item;
        const from = value(match[1]!);
        // Day-of-week 7 is Sunday: `sat-7` does not wrap, `7-2` does (from Sunday).
        const to = index - offset === 4 && value(match[2]!) === 7 ? 6 : value(match[2]!);
        const start = index - offset === 4 && from === 7 ? 0 : from;
        if (start > max || to < min) return item;
        if (start <= to) return start === from ? item : `${start}-${to}${match[3] ? `/${match[3]}` : ''}`;
        const step = Number(match[3] ?? 1);
        const size = max - min + 1;
        const out: number[] = [];
        for (let v = start; v <= to + size; v += step) out.push(v > max ? v - size : v);
        return out.join(',');
      })
      .join(',');
  });
}

function compile(expression: string, timezone: string): Cron {
  const key = `${timezone}\u0000${expression}`;
  let cron = parsed.get(key);
  if (!cron) {
    let text = expression.trim().replace(FULL_NAMES, (name) => name.slice(0, 3));
    if (!text.startsWith('@')) {
      const fields = text.split(/\s+/);
      if (fields.length !== 5 && fields.length !== 6) {
        throw new Error(`expected 5 or 6 fields but got ${fields.length}`);
      }
      text = unwrapRanges(fields).join(' ');
    }
    // No function given and paused: croner only parses and computes, it starts no timer. UTC as an
    // offset of 0, the same instants without asking ICU: the first time-zone lookup of a process
    // loads ICU's zone data (tens of ms), which `reportd check` of an all-UTC config need not pay.
    const zone = timezone === 'UTC' ? { utcOffset: 0 } : { timezone };
    cron = new Cron(text, { ...zone, paused: true, domAndDow: false });
    parsed.set(key, cron);
  }
  return cron;
}

/** Why `expression` cannot be scheduled in `timezone` (one line), or undefined when it can. */
export function cronProblem(expression: string, timezone = 'UTC'): string | undefined {
  let cron: Cron;
  try {
    cron = compile(expression, timezone);
  } catch (error) {
    const reason = ((error as Error).message ?? String(error)).replace(/^CronPattern: /, '');
    return `invalid cron expression "${expression}": ${reason} (expected ${CRON_FIELDS})`;
  }
  // `0 8 31 2 *` parses but never fires: refused now rather than silently never sending.
  if (!cron.nextRun(new Date(Date.UTC(2000, 0, 1)))) {
    return `invalid cron expression "${expression}": it never fires`;
  }
  return undefined;
}

/** The first instant strictly after `after` at which `expression` fires in `timezone`. */
export function nextFireTime(expression: string, timezone: string, after: number): number {
  const next = compile(expression, timezone).nextRun(new Date(after));
  if (!next) throw new Error(`cron "${expression}" never fires after ${new Date(after).toISOString()}`);
  return next.getTime();
}

/** The next `count` instants after `after` (for `reportd check` and the status page). */
export function nextFireTimes(expression: string, timezone: string, after: number, count: number): number[] {
  return compile(expression, timezone)
    .nextRuns(count, new Date(after))
    .map((d) => d.getTime());
}
