import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recipientLines } from '../../src/cli/recipient-lines.js';
import { loadConfig } from '../../src/config/load.js';
import { scheduleListing } from '../../src/schedule/listing.js';
import { tempDir } from '../delivery/smtp-helpers.js';

/**
 * `reportd recipients` and `reportd check`'s fire times for a table read in each reader's zone: the
 * same Monday 08:00 is three slots, and rows of one document share one render.
 */
const tmp = tempDir();
afterAll(() => tmp.cleanup());

const file = join(tmp.dir, 'reportd.yaml');
writeFileSync(
  file,
  `accounts:
  - { name: north, base_url: "http://127.0.0.1:1/v2/integration", api_key: k1, api_secret: s1 }
smtp: { host: 127.0.0.1, from: "reports@agency.example" }
themes:
  harbour: { primary: "#1F4E79" }
reports:
  - name: clients
    schedule: { cron: "0 8 * * 1", timezone: recipient }
    recipients:
      - { email: aiko@client.example, name: Aiko, query_sets: [101], locale: en-GB, timezone: Asia/Tokyo }
      - { email: berta@client.example, name: Berta, query_sets: "101", locale: en-GB, timezone: Europe/Berlin }
      - { email: ned@client.example, name: Ned, query_sets: all, timezone: America/New_York, theme: harbour }
`,
);

describe('reportd recipients', () => {
  it('lists each reader with their slice, local send time and shared render', () => {
    const config = loadConfig(file);
    const report = config.reports[0]!;
    // Sunday 2026-11-29 12:00 UTC: the next Monday 08:00 in each zone.
    const lines = recipientLines(report, report.recipients!, Date.UTC(2026, 10, 29, 12));
    expect(lines).toEqual([
      'reports[0].recipients[0]  Aiko <aiko@client.example>  north: 101  en-GB  (default look)  pdf  next 2026-11-30 08:00 Asia/Tokyo  render 1',
      'reports[0].recipients[1]  Berta <berta@client.example>  north: 101  en-GB  (default look)  pdf  next 2026-11-30 08:00 Europe/Berlin  render 1',
      'reports[0].recipients[2]  Ned <ned@client.example>  north: all  en-US  harbour  pdf  next 2026-11-30 08:00 America/New_York  render 2',
      '3 readers, 2 renders per slot',
    ]);
    const listing = scheduleListing(config, Date.UTC(2026, 10, 29, 12), 1).join('\n');
    expect(listing).toContain('report clients: "0 8 * * 1" America/New_York');
    expect(listing).toContain('2026-11-29 23:00 UTC'); // Tokyo's Monday 08:00
    expect(listing).toContain('2026-11-30 07:00 UTC'); // Berlin's
    expect(listing).toContain('2026-11-30 13:00 UTC'); // New York's
  });
});
