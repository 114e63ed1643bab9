import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { runCli } from '../helpers/cli.js';
import { storeLine } from '../helpers/postgres.js';

/**
 * A recipient table's readers are rows of the fenced outbox like any delivery: `reportd deliver` is
 * killed with SIGKILL halfway through 200 readers (while the SMTP server holds the 100th message,
 * before it answers), then `reportd deliver --pending` — a separate process, after the dead one's
 * lease — sends the rest. Every reader gets their message, none twice: the one row in flight when
 * the process died is sent again with the same Message-ID (a receiver drops the copy), as for any
 * delivery (test/delivery/after-accept.test.ts). Runs on both engines.
 */
const tmp = tempDir();
let sandbox: Sandbox;
let smtp: TestSmtp;
let config: string;
let first: ChildProcess | undefined;
const KILL_AT = 100;

beforeAll(async () => {
  sandbox = await startSandbox({ rate: { requests: 100_000, windowMs: 60_000 } });
  // Killed while the server holds the 100th message: its 250 never reaches the process.
  smtp = await startSmtp({
    afterStore: async () => {
      if (smtp.messages.length === KILL_AT) first?.kill('SIGKILL');
    },
  });
  const store = await storeLine(join(tmp.dir, 'reportd.sqlite'));
  // 200 readers over 2 slices (sets 101 and 102): two renders, so the test is about the queue. HTML pages:
  // nothing reads the attachments, and a PDF (Chromium) or workbook (ExcelJS) costs each process more.
  const rows = ['email,name,query_sets'];
  for (let i = 0; i < 200; i++) rows.push(`reader${i}@client.example,Reader ${i},${i % 2 ? 102 : 101}`);
  writeFileSync(join(tmp.dir, 'readers.csv'), `${rows.join('\n')}\n`);
  config = join(tmp.dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - { name: north, base_url: "${sandbox.baseUrl}", api_key: ${sandbox.apiKey}, api_secret: ${sandbox.apiSecret}, rate_limit: { requests: 100000 } }
${store}
sync: { backfill_runs: 1 }
delivery: { lease_seconds: 3 }
smtp: { url: "${smtp.url}", from: "Agency <reports@agency.example>" }
reports:
  - name: clients
    detail: summary
    mode: per_set
    formats: [html]
    schedule: { cron: "0 8 * * 1", timezone: UTC }
    recipients: readers.csv
`,
  );
  const synced = await runCli(['sync', '--config', config], { cwd: tmp.dir });
  expect(synced.code, synced.stderr.slice(-1500)).toBe(0);
}, 120_000);

afterAll(async () => {
  first?.kill('SIGKILL');
  await smtp?.close();
  await sandbox?.close();
  tmp.cleanup();
});

describe('a recipient table across kill -9', () => {
  it('sends each of 200 readers exactly one message when the sender is killed halfway and another process finishes', async () => {
    const killed = await runCli(['deliver', '--report', 'clients', '--config', config], {
      cwd: tmp.dir,
      onSpawn: (child) => {
        first = child;
      },
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(smtp.messages).toHaveLength(KILL_AT);

    // After the dead process's lease, a separate process drains what is left.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    const rest = await runCli(['deliver', '--pending', '--config', config], { cwd: tmp.dir });
    expect(rest.code, rest.stderr.slice(-2000)).toBe(0);

    const idsOf = new Map<string, string[]>();
    smtp.envelopes.forEach((envelope, i) => {
      for (const address of envelope)
        idsOf.set(address, [...(idsOf.get(address) ?? []), smtp.messages[i]!.messageId ?? '']);
    });
    expect(idsOf.size).toBe(200);
    for (let i = 0; i < 200; i++) {
      const ids = idsOf.get(`reader${i}@client.example`) ?? [];
      // One message per reader: a copy, if any, carries the same Message-ID (the row in flight).
      expect(new Set(ids).size, `reader${i}`).toBe(1);
    }
    const copies = [...idsOf.values()].filter((ids) => ids.length > 1);
    expect(copies.length).toBeLessThanOrEqual(1);
    expect(smtp.messages.length).toBe(200 + copies.length);
  }, 300_000);
});
