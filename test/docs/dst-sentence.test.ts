import { describe, expect, it } from 'vitest';
import { nextFireTime } from '../../src/config/cron.js';
import { readPage } from './pages.js';

/**
 * The daylight-saving sentence of docs/reports-and-templates.md against what the scheduler computes (src/config/cron.ts,
 * the one cron implementation the daemon's scheduler uses): a 02:30 Berlin job on the spring-forward
 * day fires when the clock skips to 03:00,
 * and on the fall-back day once, at the first 02:30.
 */
const page = readPage('docs/reports-and-templates.md').replace(/\s+/g, ' ');
const berlin = (at: number) =>
  new Date(at).toLocaleString('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' });

describe('the daylight-saving sentence of the reports page', () => {
  it('says what the scheduler does in the spring-forward gap and the fall-back repeat', () => {
    expect(page).toContain(
      'in Europe/Berlin a 02:30 job fires at 03:00 on the day the clocks jump from 02:00 to 03:00; a time that happens twice when they go back fires once, at its first occurrence (02:30 summer time).',
    );
    const spring = nextFireTime('30 2 * * *', 'Europe/Berlin', Date.parse('2026-03-28T12:00:00Z'));
    expect(new Date(spring).toISOString()).toBe('2026-03-29T01:00:00.000Z');
    expect(berlin(spring)).toBe('03:00');
    const autumn = nextFireTime('30 2 * * *', 'Europe/Berlin', Date.parse('2026-10-24T12:00:00Z'));
    expect(new Date(autumn).toISOString()).toBe('2026-10-25T00:30:00.000Z'); // 02:30 CEST, the first
    expect(new Date(nextFireTime('30 2 * * *', 'Europe/Berlin', autumn)).toISOString()).toBe(
      '2026-10-26T01:30:00.000Z',
    );
  });
});
