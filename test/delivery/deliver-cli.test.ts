import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';

/** `reportd deliver` and `reportd history` as a user runs them: the CLI in a child process. */
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const run = promisify(execFile);

let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let smtp: TestSmtp;
let config: string;

async function reportd(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', MAIN, ...args, '--config', config],
      {
        env: { ...process.env, REPORTD_LOG_LEVEL: 'warn' },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox();
  smtp = await startSmtp();
  config = join(tmp.dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - name: acme
    base_url: ${sandbox.baseUrl}
    api_key: ${sandbox.apiKey}
    api_secret: ${sandbox.apiSecret}
sync: { query_sets: [102], backfill_runs: 1 }
smtp: { url: "${smtp.url}", from: "Reports <reports@example.com>" }
reports:
  - name: weekly
    query_sets: [102]
    formats: [pdf, xlsx]
    schedule: { cron: "0 8 * * 1", timezone: Europe/Berlin }
    email: { to: [ceo@example.com], subject: "Weekly — {{brand}} — {{run}}" }
log: { level: warn }
`,
  );
});

afterAll(async () => {
  await smtp?.close();
  await sandbox?.close();
  tmp?.cleanup();
});

describe('reportd deliver / history', () => {
  it('says what is missing before the first sync, then sends once, skips a repeat, resends with --force', async () => {
    const unknown = await reportd('deliver', '--report', 'monthly');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`reportd: no report named "monthly" in ${config} (reports: weekly)\n`);

    const early = await reportd('deliver', '--report', 'weekly');
    expect(early.code).toBe(2);
    expect(early.stderr).toMatch(/no complete snapshot of report "weekly"'s query sets is stored/);

    expect((await reportd('sync')).code).toBe(0);
    const first = await reportd('deliver', '--report', 'weekly');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^sent: report weekly, query set 102, run \d+ to ceo@example\.com/);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.attachments.map((a) => a.filename?.split('.').pop())).toEqual(['pdf', 'xlsx']);

    const again = await reportd('deliver', '--report', 'weekly');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^already delivered: report weekly, query set 102, run \d+ .*use --force/);
    expect(smtp.messages).toHaveLength(1);

    const forced = await reportd('deliver', '--report', 'weekly', '--force');
    expect(forced.code).toBe(0);
    expect(smtp.messages).toHaveLength(2);
    expect(smtp.messages[1]!.messageId).not.toBe(smtp.messages[0]!.messageId);

    const history = JSON.parse((await reportd('history', '--json')).stdout);
    expect(
      history.deliveries.map((d: { state: string; generation: number }) => [d.state, d.generation]),
    ).toEqual([
      ['sent', 1],
      ['sent', 0],
    ]);
    expect(history.syncs[0].outcome).toBe('ok');
    const table = (await reportd('history')).stdout;
    expect(table).toMatch(/^Sync passes \(newest first\)\n {2}\S+ {2}ok /);
    expect(table).toMatch(/\n {2}\S+ {2}sent +weekly {2}set 102 {2}run \d+ \(resend 1\) {2}attempts 1\n/);
  }, 300_000);
});
