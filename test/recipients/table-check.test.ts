import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors/index.js';
import { tempDir } from '../delivery/smtp-helpers.js';

/**
 * A recipient table as operators write it, checked when the config loads (what `reportd check` and
 * the daemon's start run): one line per bad row naming the file, line, column, value and why; a
 * table with a bad row refuses the whole config, so nothing is sent from half a table.
 */
const tmp = tempDir();
afterAll(() => tmp.cleanup());

function configWith(csv: string, name = 'readers.csv'): string {
  writeFileSync(join(tmp.dir, name), csv);
  const file = join(tmp.dir, `${name}.yaml`);
  writeFileSync(
    file,
    `accounts:
  - { name: north, base_url: "http://127.0.0.1:1/v2/integration", api_key: k1, api_secret: s1 }
  - { name: south, base_url: "http://127.0.0.1:2/v2/integration", api_key: k2, api_secret: s2 }
smtp: { host: 127.0.0.1, from: "Agency <reports@agency.example>" }
themes:
  harbour: { primary: "#1F4E79" }
reports:
  - name: clients
    schedule: { cron: "0 8 * * 1", timezone: recipient }
    recipients: ${name}
`,
  );
  return file;
}

/** The lines of the config error, or [] when the config loads. */
function problems(file: string): string[] {
  try {
    loadConfig(file);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  }
}

describe('recipient table checks', () => {
  it('names each bad row by file, line, column, value and why', () => {
    const file = configWith(
      [
        'email,name,account,query_sets,locale,theme',
        'ok@client.example,Ok,north,101,de-DE,harbour',
        'x@client.example,Nobody,west,101,,',
        'bob@,Bob,north,101,,',
        ',NoMail,north,101,,',
        'ok@client.example,Again,north,101,,',
        'y@client.example,Y,south,1x,xx-XX,dark',
      ].join('\n'),
    );
    expect(problems(file)).toEqual([
      'readers.csv line 3, column 25 (account): "west": unknown account (accounts: north, south)',
      'readers.csv line 4, column 1 (email): "bob@": not an email address (expected one address like ops@example.com)',
      'readers.csv line 5, column 1 (email): "": missing: each row needs an email (or a channel)',
      'readers.csv line 6, column 1 (email): "ok@client.example": duplicate reader: the same email and slice as readers.csv line 2',
      'readers.csv line 7, column 26 (query_sets): "1x": expected "all" or query set ids separated by spaces, like "101 102"',
      'readers.csv line 7, column 29 (locale): "xx-XX": unknown locale (use one of en-US, en-GB, de-DE, fr-FR, es-ES)',
      'readers.csv line 7, column 35 (theme): "dark": no theme named so in themes: (harbour)',
    ]);
  });

  it('reads a file saved with a byte-order mark and CRLF line ends, quoted fields included', () => {
    const file = configWith(
      '\uFEFFemail,name,account,query_sets\r\n"a@client.example","Lee, Ann",north,"101 102"\r\n',
      'bom.csv',
    );
    const config = loadConfig(file);
    expect(config.reports[0]!.recipients).toMatchObject([
      { email: 'a@client.example', name: 'Lee, Ann', account: 'north', query_sets: [101, 102] },
    ]);
  });

  it('refuses a semicolon-separated file with one clear line', () => {
    const file = configWith('email;name;account\na@client.example;A;north\n', 'semi.csv');
    expect(problems(file)).toEqual([
      'semi.csv line 1: the columns are separated by semicolons; reportd reads comma-separated CSV (RFC 4180): export it with commas',
    ]);
  });

  it('loads 10,000 rows, each its own reader with a stable id', () => {
    const lines = ['email,account,query_sets'];
    for (let i = 0; i < 10_000; i++)
      lines.push(`reader${i}@client${i % 50}.example,${i % 2 ? 'south' : 'north'},${100 + (i % 7)}`);
    const config = loadConfig(configWith(lines.join('\n'), 'big.csv'));
    const rows = config.reports[0]!.recipients!;
    expect(rows).toHaveLength(10_000);
    expect(new Set(rows.map((row) => row.id)).size).toBe(10_000);
    // The same reader and slice keep their id whatever else changes (it keys their deliveries).
    const again = loadConfig(configWith(lines.join('\n').replace('reader0@', 'Reader0@'), 'big2.csv'));
    expect(again.reports[0]!.recipients![0]!.id).toBe(rows[0]!.id);
  });

  it('refuses a report with recipients and email.to, and schedule.timezone: recipient without a table', () => {
    const file = join(tmp.dir, 'both.yaml');
    writeFileSync(
      file,
      `accounts:
  - { name: north, base_url: "http://127.0.0.1:1/v2/integration", api_key: k1, api_secret: s1 }
smtp: { host: 127.0.0.1, from: "reports@agency.example" }
reports:
  - name: clients
    schedule: { cron: "0 8 * * 1" }
    email: { to: [boss@agency.example] }
    recipients: [{ email: a@client.example }]
  - name: zoned
    schedule: { cron: "0 8 * * 1", timezone: recipient }
    email: { to: [boss@agency.example] }
`,
    );
    expect(problems(file)).toEqual([
      'reports[0].email.to: a report with recipients takes its addresses from the rows',
      "reports[1].schedule.timezone: recipient: needs the report's recipients",
    ]);
  });
});
