import { describe, expect, it } from 'vitest';
import { cronProblem, nextFireTime, nextFireTimes } from '../../src/config/cron.js';

const iso = (t: number) => new Date(t).toISOString();
const at = (s: string) => Date.parse(s);

/** The next `count` firings after `from`. */
function firings(expr: string, tz: string, from: string, count: number): string[] {
  return nextFireTimes(expr, tz, at(from), count).map(iso);
}

describe('next fire times (croner)', () => {
  it('Monday 08:00 in Berlin follows the clock change in spring and autumn', () => {
    // CET (+1) until Sunday 2026-03-29, CEST (+2) until Sunday 2026-10-25.
    expect(firings('0 8 * * 1', 'Europe/Berlin', '2026-03-20T00:00:00Z', 2)).toEqual([
      '2026-03-23T07:00:00.000Z',
      '2026-03-30T06:00:00.000Z',
    ]);
    expect(firings('0 8 * * 1', 'Europe/Berlin', '2026-10-15T00:00:00Z', 2)).toEqual([
      '2026-10-19T06:00:00.000Z',
      '2026-10-26T07:00:00.000Z',
    ]);
  });

  it('a time skipped by spring forward fires when the clock jumps, once', () => {
    expect(firings('30 2 * * *', 'Europe/Berlin', '2026-03-28T00:00:00Z', 3)).toEqual([
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:00:00.000Z', // 02:30 does not exist: at the jump, 03:00 CEST
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
    ]);
  });

  it('a time repeated by fall back fires once, at its first occurrence', () => {
    expect(firings('30 2 * * *', 'Europe/Berlin', '2026-10-24T12:00:00Z', 2)).toEqual([
      '2026-10-25T00:30:00.000Z', // 02:30 CEST; the 02:30 CET an hour later is skipped
      '2026-10-26T01:30:00.000Z',
    ]);
    // An hourly job is not tied to one wall time: it runs every real hour, 02:00 CEST, 02:00 CET, 03:00 CET.
    expect(firings('0 * * * *', 'Europe/Berlin', '2026-10-24T23:30:00Z', 3)).toEqual([
      '2026-10-25T00:00:00.000Z',
      '2026-10-25T01:00:00.000Z',
      '2026-10-25T02:00:00.000Z',
    ]);
  });

  it('supports steps, ranges, lists, names and both day fields', () => {
    expect(firings('*/10 * * * *', 'UTC', '2026-01-01T00:05:00Z', 2)).toEqual([
      '2026-01-01T00:10:00.000Z',
      '2026-01-01T00:20:00.000Z',
    ]);
    expect(firings('0 9-17/4 * * mon-fri', 'America/New_York', '2026-01-02T00:00:00Z', 4)).toEqual([
      '2026-01-02T14:00:00.000Z',
      '2026-01-02T18:00:00.000Z',
      '2026-01-02T22:00:00.000Z',
      '2026-01-05T14:00:00.000Z',
    ]);
    // Day of month 1 OR Sunday (classic cron), in Tokyo (+9, no DST).
    expect(firings('0 0 1 * 0', 'Asia/Tokyo', '2026-02-27T00:00:00Z', 3)).toEqual([
      '2026-02-28T15:00:00.000Z', // Sun 1 Mar is both
      '2026-03-07T15:00:00.000Z', // Sun 8 Mar
      '2026-03-14T15:00:00.000Z',
    ]);
    expect(firings('*/20 0 8 * * 1', 'Europe/Berlin', '2026-03-30T05:59:50Z', 3)).toEqual([
      '2026-03-30T06:00:00.000Z',
      '2026-03-30T06:00:20.000Z',
      '2026-03-30T06:00:40.000Z',
    ]);
    expect(firings('0 12 29 feb *', 'UTC', '2026-01-01T00:00:00Z', 1)).toEqual(['2028-02-29T12:00:00.000Z']);
  });

  it('reads full names and wrapping ranges as node-cron did', () => {
    expect(firings('0 8 * * Monday', 'UTC', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-05T08:00:00.000Z']);
    expect(firings('0 8 1 february *', 'UTC', '2026-01-01T00:00:00Z', 1)).toEqual([
      '2026-02-01T08:00:00.000Z',
    ]);
    // Friday to Monday (Thu 2026-01-01): Fri, Sat, Sun, Mon, then Fri again.
    expect(firings('0 8 * * fri-mon', 'UTC', '2026-01-01T00:00:00Z', 5).map((t) => t.slice(0, 10))).toEqual([
      '2026-01-02',
      '2026-01-03',
      '2026-01-04',
      '2026-01-05',
      '2026-01-09',
    ]);
    expect(firings('0 22-2/2 * * *', 'UTC', '2026-01-01T12:00:00Z', 4)).toEqual([
      '2026-01-01T22:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
      '2026-01-02T02:00:00.000Z',
      '2026-01-02T22:00:00.000Z',
    ]);
  });

  it('has the last day of the month and the nth weekday', () => {
    expect(firings('0 8 L * *', 'Europe/Berlin', '2026-01-15T00:00:00Z', 3)).toEqual([
      '2026-01-31T07:00:00.000Z',
      '2026-02-28T07:00:00.000Z',
      '2026-03-31T06:00:00.000Z', // after the spring change
    ]);
    // First Monday of the month.
    expect(firings('0 9 * * 1#1', 'UTC', '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-01-05T09:00:00.000Z',
      '2026-02-02T09:00:00.000Z',
      '2026-03-02T09:00:00.000Z',
    ]);
    // Last Friday of the month.
    expect(firings('0 9 * * 5L', 'UTC', '2026-01-01T00:00:00Z', 2)).toEqual([
      '2026-01-30T09:00:00.000Z',
      '2026-02-27T09:00:00.000Z',
    ]);
  });

  it('is strictly after the given instant, which is all it reads of time', () => {
    const eight = at('2026-01-01T08:00:00Z');
    expect(iso(nextFireTime('0 8 * * *', 'UTC', eight))).toBe('2026-01-02T08:00:00.000Z');
    expect(iso(nextFireTime('0 8 * * *', 'UTC', eight - 1))).toBe('2026-01-01T08:00:00.000Z');
  });

  it("UTC (scheduled as an offset of 0, without ICU) fires when ICU's Etc/UTC does", () => {
    for (const expr of ['*/10 * * * *', '0 8 * * 1', '30 2 * * *', '0 9 L * *', '0 9 * * 5L', '0 0 29 2 *']) {
      for (const from of ['2026-03-28T00:00:00Z', '2026-10-24T23:59:59Z', '2027-12-31T23:55:00Z']) {
        expect(firings(expr, 'UTC', from, 4), `${expr} from ${from}`).toEqual(
          firings(expr, 'Etc/UTC', from, 4),
        );
      }
    }
  });

  it('schedules every expression the config validation accepts', () => {
    const accepted = [
      '0 8 * * monday',
      '0 8 * JANUARY *',
      '0 8 * * 5-1',
      '0 20-4 * * *',
      '0 8 * nov-feb *',
      '0 8 * * 7-2',
      '*/5 * * * * *',
      '0 0 1,15 * mon-fri',
      '0 8 * * sun-sat/2',
      '@daily',
      '0 8 LW * *',
    ];
    for (const expression of accepted) {
      expect(cronProblem(expression), expression).toBeUndefined();
      expect(nextFireTime(expression, 'Europe/Berlin', Date.UTC(2026, 0, 1)), expression).toBeGreaterThan(
        Date.UTC(2026, 0, 1),
      );
    }
  });

  it('refuses unusable expressions with one line naming the expression', () => {
    expect(cronProblem('0 8 * *')).toMatch(
      /^invalid cron expression "0 8 \* \*": expected 5 or 6 fields but got 4/,
    );
    expect(cronProblem('61 * * * *')).toMatch(
      /^invalid cron expression "61 \* \* \* \*": Invalid value for minute: 61/,
    );
    expect(cronProblem('0 8 30 2 *')).toBe('invalid cron expression "0 8 30 2 *": it never fires');
    expect(cronProblem('0 0 8 * * 1 2027')).toMatch(/expected 5 or 6 fields but got 7/);
  });
});
