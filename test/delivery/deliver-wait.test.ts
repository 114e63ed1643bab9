import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../src/store/sqlite-addon.js';
import { type CliResult, spawnCli } from '../helpers/cli.js';
import { type DeliveryCliEnv, startDeliveryCliEnv } from './cli-env.js';

/**
 * Two `reportd deliver` of the same report at once, as two real processes: the first sends, and the
 * second waits (bounded by `--wait`) for the first's outcome and reports it — "sent by another
 * process" with exit 0, the refusal with exit 1, or, when the wait runs out, that it is still in
 * progress (exit 1). The SMTP server holds the first process at RCPT TO, mid-send, until the test
 * has seen the second one waiting.
 */
let env: DeliveryCliEnv;
let config: string;
const hold: { gate?: Promise<void>; open?: () => void; refuse: boolean } = { refuse: false };

function closeGate(): void {
  hold.gate = new Promise((resolve) => {
    hold.open = resolve;
  });
}
function openGate(): void {
  hold.open?.();
  hold.gate = undefined;
}

beforeAll(async () => {
  env = await startDeliveryCliEnv({
    beforeRcpt: async () => {
      await hold.gate;
    },
    rcptReply: () => (hold.refuse ? { code: 550, text: '5.1.1 mailbox unavailable' } : undefined),
  });
  config = env.writeConfig(
    'reportd.yaml',
    `${env.accountsYaml}sync: { query_sets: [102], backfill_runs: 1 }
smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>" }
reports:
  - name: weekly
    query_sets: [102]
    formats: [xlsx]
    email: { to: [ceo@example.com], subject: "Weekly {{run}}" }
    schedule: { cron: "0 8 * * 1", timezone: UTC }
log: { level: warn }
`,
  );
  const sync = await env.reportd(config, 'sync');
  expect(sync.code, sync.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  openGate();
  await env?.close();
});

/** The built CLI as a running process: its exit, and what it has printed so far. */
function start(...args: string[]) {
  const child = spawnCli(['deliver', '--report', 'weekly', ...args, '--config', config], {
    cwd: env.dir,
    env: { REPORTD_LOG_LEVEL: 'warn' },
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => {
    out.stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    out.stderr += chunk;
  });
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, ...out })),
  );
  return { child, out, done };
}

async function until(what: string, condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether the newest outbox row is being sent by process `pid`. */
function sendingBy(pid: number | undefined): boolean {
  const db = openSqliteDatabase(join(env.dir, 'data', 'reportd.sqlite'), {
    readonly: true,
    fileMustExist: true,
  });
  try {
    const row = db.prepare('SELECT state, claimed_by FROM deliveries ORDER BY id DESC LIMIT 1').get() as
      | { state: string; claimed_by: string | null }
      | undefined;
    return row?.state === 'sending' && Boolean(row.claimed_by?.includes(`:${pid}:`));
  } finally {
    db.close();
  }
}

/** Starts a first `deliver` and resolves once it is mid-send (held at RCPT TO), then a second one waiting. */
async function twoAtOnce(firstArgs: string[], secondArgs: string[]) {
  closeGate();
  const first = start(...firstArgs);
  await until('the first process to be sending', () => sendingBy(first.child.pid));
  const second = start(...secondArgs);
  await until('the second process to wait', () =>
    /waiting up to \d+ s for its outcome/.test(second.out.stderr),
  );
  return { first, second };
}

describe('reportd deliver twice at once', () => {
  it('the second waits for the first and reports the message it sent: one email, both exit 0', async () => {
    const { first, second } = await twoAtOnce([], []);
    openGate();
    const [a, b] = await Promise.all([first.done, second.done]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toMatch(/^sent: report weekly, query set 102, run \d+ to ceo@example\.com/m);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toMatch(
      /^sent by another process: report weekly, query set 102, run \d+ to ceo@example\.com \(<[^>]+>\)$/m,
    );
    expect(env.smtp.messages).toHaveLength(1);
  }, 120_000);

  it('a refusal the first process met is the answer of the second too: exit 1 with the reason', async () => {
    hold.refuse = true;
    try {
      const { first, second } = await twoAtOnce(['--force'], []);
      openGate();
      const [a, b] = await Promise.all([first.done, second.done]);
      expect(a.code).toBe(1);
      expect(b.code).toBe(1);
      expect(b.stderr).toMatch(
        /^reportd: report weekly, query set 102, run \d+: not sent by the other process delivering it \(failed: .*550.*\)$/m,
      );
      expect(b.stdout).not.toMatch(/^sent/m);
    } finally {
      hold.refuse = false;
    }
    expect(env.smtp.messages).toHaveLength(1);
  }, 120_000);

  it('the wait is bounded: --wait 1 reports the run still in progress elsewhere (exit 1), sending nothing itself', async () => {
    const { first, second } = await twoAtOnce(['--force'], ['--wait', '1']);
    const b = await second.done;
    expect(b.code).toBe(1);
    expect(b.stderr).toMatch(
      /being delivered by another process \(sending, claimed by [^)]+\); not sent by this command \(still in progress after 1 s of --wait\)$/m,
    );
    openGate();
    expect((await first.done).code).toBe(0);
    expect(env.smtp.messages).toHaveLength(2);
  }, 120_000);

  it('refuses a --wait that is not a number of seconds, in one line', async () => {
    const result = await env.reportd(config, 'deliver', '--report', 'weekly', '--wait', 'soon');
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      'reportd: --wait takes seconds from 0 to 3600, not "soon"',
    ]);
  }, 60_000);
});
