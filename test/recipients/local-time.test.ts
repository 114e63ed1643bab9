import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { type DaemonChild, stopDaemon, until } from '../daemon/daemon-process-helpers.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { runCli, spawnCli } from '../helpers/cli.js';

/**
 * `schedule.timezone: recipient` on the real daemon with its clock faked by libfaketime: the daemon is
 * started three times, 20 s before Monday 08:00 in Tokyo, in Berlin and in New York (Sunday 23:00,
 * Monday 07:00 and Monday 13:00 UTC in December); each time that zone's reader, and only theirs, gets
 * the message, dated within a minute of their own 08:00. The report is its HTML page: what is checked is
 * who gets a message when, not its attachment, so no Chromium (PDF) or ExcelJS (workbook) renders a
 * file nobody reads.
 */
const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
const tmp = tempDir();
let sandbox: Sandbox;
let smtp: TestSmtp;
let config: string;
let daemon: DaemonChild | undefined;

const READERS = [
  { email: 'aiko@client.example', zone: 'Asia/Tokyo', at: '2026-12-06T23:00:00Z' },
  { email: 'berta@client.example', zone: 'Europe/Berlin', at: '2026-12-07T07:00:00Z' },
  { email: 'ned@client.example', zone: 'America/New_York', at: '2026-12-07T13:00:00Z' },
];

beforeAll(async () => {
  [sandbox, smtp] = await Promise.all([
    startSandbox({ rate: { requests: 100_000, windowMs: 60_000 } }),
    startSmtp(),
  ]);
  writeFileSync(
    join(tmp.dir, 'readers.csv'),
    ['email,query_sets,timezone', ...READERS.map((r) => `${r.email},101,${r.zone}`)].join('\n'),
  );
  config = join(tmp.dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - { name: north, base_url: "${sandbox.baseUrl}", api_key: ${sandbox.apiKey}, api_secret: ${sandbox.apiSecret}, rate_limit: { requests: 100000 } }
sync: { backfill_runs: 1 }
smtp: { url: "${smtp.url}", from: "Agency <reports@agency.example>" }
reports:
  - name: clients
    detail: summary
    formats: [html]
    schedule: { cron: "0 8 * * 1", timezone: recipient }
    recipients: readers.csv
`,
  );
  const synced = await runCli(['sync', '--config', config], { cwd: tmp.dir });
  expect(synced.code, synced.stderr.slice(-1500)).toBe(0);
}, 120_000);

afterAll(async () => {
  if (daemon) await stopDaemon(daemon);
  await smtp?.close();
  await sandbox?.close();
  tmp.cleanup();
});

/** `reportd daemon` (scheduler and worker) whose clock starts at `start` (UTC) and runs at real speed. */
function fakedDaemon(start: string): DaemonChild {
  const at = start.replace('T', ' ').replace('Z', '');
  const child = spawnCli(['daemon', '--roles', 'scheduler,worker', '--config', config], {
    cwd: tmp.dir,
    env: {
      TZ: 'UTC',
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME: `@${at}`,
      // Timers run on the monotonic clock: left real, a 20 s wait is 20 s.
      DONT_FAKE_MONOTONIC: '1',
    },
  });
  const started: DaemonChild = { child, logs: '' };
  child.stdout?.on('data', (chunk) => {
    started.logs += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    started.logs += chunk;
  });
  return started;
}

describe('Monday 08:00 in each reader’s own zone, with the clock faked', () => {
  it('sends Tokyo, Berlin and New York each at their own 08:00, and nobody else then', async () => {
    expect(existsSync(LIBFAKETIME), `${LIBFAKETIME} is missing: install faketime`).toBe(true);
    for (const [i, reader] of READERS.entries()) {
      daemon = fakedDaemon(new Date(Date.parse(reader.at) - 20_000).toISOString());
      const d = daemon;
      await until(
        () => smtp.messages.length === i + 1,
        `${reader.zone}'s message`,
        () => d.logs,
        150_000,
      );
      // Past its slot a little, so a wrong zone's message would have shown up too.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await stopDaemon(d)).toBe(0);
      daemon = undefined;
      expect(smtp.messages).toHaveLength(i + 1);
      expect(smtp.envelopes[i]).toEqual([reader.email]);
      const late = smtp.messages[i]!.date!.getTime() - Date.parse(reader.at);
      expect(late, `${reader.zone}: sent ${late} ms after its 08:00`).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(60_000);
    }
  }, 600_000);
});
