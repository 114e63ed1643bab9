import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { runCli } from '../helpers/cli.js';
import { storeLine } from '../helpers/postgres.js';

/**
 * Bad recipient tables as operators write them, through the built CLI against a synced store: each
 * bad row is one line naming the file, line, column (where the config can tell), value and why; no
 * stack trace; and `deliver` with a bad table sends nothing at all (the SMTP server hears no message).
 */
const tmp = tempDir();
let sandbox: Sandbox;
let smtp: TestSmtp;
/** The config's store: one for the whole file (the synced sets are what a table is judged against). */
let store: string;

function configWith(table: string, csv: string): string {
  writeFileSync(join(tmp.dir, table), csv);
  const south = sandbox.credentials(2);
  const file = join(tmp.dir, `${table}.yaml`);
  writeFileSync(
    file,
    `accounts:
  - { name: north, base_url: "${sandbox.baseUrl}", api_key: ${sandbox.apiKey}, api_secret: ${sandbox.apiSecret}, rate_limit: { requests: 100000 } }
  - { name: south, base_url: "${sandbox.baseUrl}", api_key: ${south.apiKey}, api_secret: ${south.apiSecret}, rate_limit: { requests: 100000 } }
${store}
sync: { backfill_runs: 1 }
smtp: { url: "${smtp.url}", from: "Agency <reports@agency.example>" }
reports:
  - name: clients
    detail: summary
    schedule: { cron: "0 8 * * 1", timezone: recipient }
    recipients: ${table}
`,
  );
  return file;
}

const reportd = (file: string, ...args: string[]) => runCli([...args, '--config', file], { cwd: tmp.dir });

/** The lines of a refused command's error, after its first ("invalid config …:"). */
function errorLines(stderr: string): string[] {
  expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
  return stderr
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.trim());
}

beforeAll(async () => {
  [sandbox, smtp] = await Promise.all([
    startSandbox({ companies: 2, rate: { requests: 100_000, windowMs: 60_000 } }),
    startSmtp(),
  ]);
  store = await storeLine(join(tmp.dir, 'reportd.sqlite'));
  // The store learns which sets are whose: a set of another account is judged against it.
  const ok = configWith('good.csv', 'email,account,query_sets\na@client.example,north,101\n');
  const synced = await reportd(ok, 'sync');
  expect(synced.code, synced.stderr.slice(-1500)).toBe(0);
}, 120_000);

afterAll(async () => {
  await smtp?.close();
  await sandbox?.close();
  tmp.cleanup();
});

describe('reportd check on a recipient table', () => {
  it('names each bad row on one line, and deliver with that table sends nothing', async () => {
    const file = configWith(
      'bad.csv',
      [
        'email,name,account,query_sets',
        'ok@client.example,Ok,north,101',
        'x@client.example,Nobody,west,101',
        ',NoMail,north,101',
        'bob@@client,Bob,north,101',
        'ok@client.example,Again,north,101',
      ].join('\n'),
    );
    const checked = await reportd(file, 'check');
    expect(checked.code).toBe(2);
    expect(errorLines(checked.stderr)).toEqual([
      'bad.csv line 3, column 25 (account): "west": unknown account (accounts: north, south)',
      'bad.csv line 4, column 1 (email): "": missing: each row needs an email (or a channel)',
      'bad.csv line 5, column 1 (email): "bob@@client": not an email address (expected one address like ops@example.com)',
      'bad.csv line 6, column 1 (email): "ok@client.example": duplicate reader: the same email and slice as bad.csv line 2',
    ]);
    const sent = await reportd(file, 'deliver', '--report', 'clients');
    expect(sent.code).toBe(2);
    expect(errorLines(sent.stderr)).toHaveLength(4);
    expect(smtp.messages).toHaveLength(0);
  });

  it('refuses a set of another account (known from the store), in check and before any row is sent', async () => {
    const file = configWith(
      'other.csv',
      ['email,account,query_sets', 'a@client.example,north,101', 'b@client.example,north,101 1101'].join(
        '\n',
      ),
    );
    const checked = await reportd(file, 'check');
    expect(checked.code).toBe(2);
    expect(errorLines(checked.stderr)).toEqual([
      'other.csv line 3 (query_sets): "1101": query set of account south, not of north (a reader sees one account\'s sets)',
    ]);
    // The good row is not sent either: a table is sent whole or not at all.
    const sent = await reportd(file, 'deliver', '--report', 'clients');
    expect(sent.code).toBe(2);
    expect(errorLines(sent.stderr)).toEqual([
      'other.csv line 3 (query_sets): "1101": query set of account south, not of north (a reader sees one account\'s sets)',
    ]);
    expect(smtp.messages).toHaveLength(0);
  });

  it('reads a file with a byte-order mark, refuses a semicolon-separated one in one line', async () => {
    const bom = configWith(
      'bom.csv',
      '\uFEFFemail,name,account,query_sets\r\n"a@client.example","Lee, Ann",north,101\r\n',
    );
    const ok = await reportd(bom, 'check');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('recipients: 1 readers');
    const semi = configWith('semi.csv', 'email;name;account\na@client.example;A;north\n');
    const refused = await reportd(semi, 'check');
    expect(refused.code).toBe(2);
    expect(errorLines(refused.stderr)).toEqual([
      'semi.csv line 1: the columns are separated by semicolons; reportd reads comma-separated CSV (RFC 4180): export it with commas',
    ]);
  });

  it('checks and lists a table of 10,000 rows', async () => {
    const lines = ['email,account,query_sets'];
    for (let i = 0; i < 10_000; i++)
      lines.push(`reader${i}@client${i % 50}.example,${i % 2 ? 'south' : 'north'},${i % 2 ? 1101 : 101}`);
    const file = configWith('big.csv', lines.join('\n'));
    const started = Date.now();
    const checked = await reportd(file, 'check');
    expect(checked.code, checked.stderr.slice(0, 2000)).toBe(0);
    expect(checked.stdout).toContain('recipients: 10000 readers');
    const listed = await reportd(file, 'recipients', 'clients');
    expect(listed.code, listed.stderr.slice(0, 2000)).toBe(0);
    expect(listed.stdout.trim().split('\n')).toHaveLength(10_001);
    expect(listed.stdout).toContain('10000 readers, 2 renders per slot');
    // Both commands, each a fresh process, on a loaded two-core machine.
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});
