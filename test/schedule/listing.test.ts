import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/index.js';
import { scheduleListing } from '../../src/schedule/listing.js';

/**
 * What `reportd check` prints under the resolved config: the next three fire times of the sync and of
 * every report, in the schedule's zone and in UTC. `now` is injected (a fake clock), so the DST
 * change of 2026-03-29 in Berlin falls inside the listing.
 */
function configWith(reports: Record<string, unknown>[]) {
  return configFromObject(
    {
      accounts: [
        { name: 'acme', base_url: 'https://api.example.com/v2/integration', api_key: 'k', api_secret: 's' },
      ],
      sync: { schedule: '0 */6 * * *' },
      smtp: { host: 'mail.example.com', from: 'reports@example.com' },
      reports: reports.map((r) => ({ email: { to: ['cmo@example.com'] }, ...r })),
    },
    '/tmp',
  );
}

const now = Date.parse('2026-03-20T12:00:00Z'); // a Friday, nine days before the spring change

describe('next fire times in reportd check', () => {
  it('lists three Mondays 08:00 Berlin with the UTC hour moving at the DST change', () => {
    const config = configWith([
      { name: 'weekly-executive', schedule: { cron: '0 8 * * 1', timezone: 'Europe/Berlin' } },
    ]);
    expect(scheduleListing(config, now)).toEqual([
      "# next 3 fire times (schedule's time zone, then UTC):",
      '#   sync: "0 */6 * * *" UTC',
      '#     2026-03-20 18:00 UTC',
      '#     2026-03-21 00:00 UTC',
      '#     2026-03-21 06:00 UTC',
      '#   report weekly-executive: "0 8 * * 1" Europe/Berlin',
      '#     Mon 2026-03-23 08:00 +01:00  = 2026-03-23 07:00 UTC',
      '#     Mon 2026-03-30 08:00 +02:00  = 2026-03-30 06:00 UTC',
      '#     Mon 2026-04-06 08:00 +02:00  = 2026-04-06 06:00 UTC',
    ]);
  });

  it('shows the autumn change too, and New York changing on another date', () => {
    const autumn = Date.parse('2026-10-20T00:00:00Z');
    const config = configWith([
      { name: 'berlin', schedule: { cron: '0 8 * * 1', timezone: 'Europe/Berlin' } },
      { name: 'new-york', schedule: { cron: '0 7 * * 0', timezone: 'America/New_York' } },
    ]);
    const lines = scheduleListing(config, autumn);
    expect(lines.slice(6, 9)).toEqual([
      '#     Mon 2026-10-26 08:00 +01:00  = 2026-10-26 07:00 UTC',
      '#     Mon 2026-11-02 08:00 +01:00  = 2026-11-02 07:00 UTC',
      '#     Mon 2026-11-09 08:00 +01:00  = 2026-11-09 07:00 UTC',
    ]);
    // New York falls back a week later (Sunday 2026-11-01).
    expect(lines.slice(10)).toEqual([
      '#     Sun 2026-10-25 07:00 -04:00  = 2026-10-25 11:00 UTC',
      '#     Sun 2026-11-01 07:00 -05:00  = 2026-11-01 12:00 UTC',
      '#     Sun 2026-11-08 07:00 -05:00  = 2026-11-08 12:00 UTC',
    ]);
  });

  it('lists a paused report as paused, and keeps to the active window', () => {
    const config = configWith([
      { name: 'paused', enabled: false, schedule: { cron: '0 8 * * 1', timezone: 'Europe/Berlin' } },
      {
        name: 'spring-campaign',
        active_from: '2026-04-01',
        active_until: '2026-04-14',
        schedule: { cron: '0 8 * * 1', timezone: 'Europe/Berlin' },
      },
      { name: 'over', active_until: '2026-03-01', schedule: { cron: '0 8 * * 1' } },
      { name: 'on-publish', trigger: 'new_run' },
    ]);
    expect(scheduleListing(config, now).slice(5)).toEqual([
      '#   report paused: paused (enabled: false)',
      '#   report spring-campaign: "0 8 * * 1" Europe/Berlin from 2026-04-01',
      '#     Mon 2026-04-06 08:00 +02:00  = 2026-04-06 06:00 UTC',
      '#     Mon 2026-04-13 08:00 +02:00  = 2026-04-13 06:00 UTC',
      '#     no further slot before active_until 2026-04-14',
      '#   report over: ended (active_until 2026-03-01)',
      '#   report on-publish: on each newly published run (trigger: new_run)',
    ]);
  });
});
