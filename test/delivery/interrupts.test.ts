import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../src/store/sqlite-addon.js';
import { chromiumProcessesWith } from '../helpers/chromium-processes.js';
import { runCli } from '../helpers/cli.js';
import { type GatedChromium, gatedChromium } from '../helpers/gated-chromium.js';
import { type DeliveryCliEnv, startDeliveryCliEnv } from './cli-env.js';

/**
 * `reportd deliver` stopped in the middle of a render, as people and machines stop it: Ctrl+C
 * (SIGINT) hands the row back at once; kill -9 leaves a claim whose holder is gone, which the next
 * run on this host takes over at once. Either way the next run sends exactly one message.
 */
let env: DeliveryCliEnv;
let config: string;
const MARKER = `REPORTD_INTERRUPT_TEST_${process.pid}`;
/** Held at its gate while a test stops `deliver` during the render (see gatedChromium). */
let browser: GatedChromium;

beforeAll(async () => {
  env = await startDeliveryCliEnv();
  config = env.writeConfig(
    'reportd.yaml',
    `${env.accountsYaml}sync: { query_sets: [102], backfill_runs: 1 }
smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>" }
reports:
  - name: weekly
    query_sets: [102]
    formats: [pdf]
    email: { to: [ceo@example.com], subject: "Weekly {{run}}" }
    schedule: { cron: "0 8 * * 1", timezone: UTC }
log: { level: warn }
`,
  );
  expect((await env.reportd(config, 'sync')).code).toBe(0);
  browser = gatedChromium(env.dir);
}, 120_000);

afterAll(async () => {
  for (const pid of chromiumProcessesWith(MARKER)) process.kill(pid, 'SIGKILL');
  await env?.close();
});

interface Row {
  id: number;
  state: string;
  claimed_by: string | null;
  generation: number;
}

function rows(): Row[] {
  const db = openSqliteDatabase(join(env.dir, 'data', 'reportd.sqlite'), {
    readonly: true,
    fileMustExist: true,
  });
  try {
    return db.prepare('SELECT id, state, claimed_by, generation FROM deliveries ORDER BY id').all() as Row[];
  } finally {
    db.close();
  }
}

/**
 * Starts `reportd deliver …` with the gate closed and resolves once its row is claimed by it and
 * rendering: its browser is then waiting at the gate (`browser.release()` lets it print).
 */
async function deliverUntilRendering(...args: string[]) {
  browser.hold();
  let child!: ChildProcess;
  const done = runCli(['deliver', '--report', 'weekly', ...args, '--config', config], {
    cwd: env.dir,
    env: { REPORTD_LOG_LEVEL: 'warn', [MARKER]: '1', REPORTD_CHROMIUM: browser.path },
    onSpawn: (c) => {
      child = c;
    },
  });
  for (;;) {
    const mine = rows().find((r) => r.state === 'rendering' && r.claimed_by?.includes(`:${child.pid}:`));
    if (mine) return { child, done, row: mine };
    if (child.exitCode !== null)
      throw new Error(`deliver ended before rendering: ${JSON.stringify(await done)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const deliver = (...args: string[]) => env.reportd(config, 'deliver', '--report', 'weekly', ...args);

describe('reportd deliver interrupted during render', () => {
  it('Ctrl+C releases the claim: exit 130, nothing sent, and the next run sends one message at once', async () => {
    const { child, done, row } = await deliverUntilRendering();
    child.kill('SIGINT');
    const result = await done;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/not sent \(interrupted\); released/);
    expect(rows().find((r) => r.id === row.id)).toMatchObject({ state: 'pending', claimed_by: null });
    expect(env.smtp.messages).toHaveLength(0);
    expect(chromiumProcessesWith(MARKER)).toEqual([]);

    const again = await deliver();
    expect(again.stdout).toMatch(/^sent: report weekly, query set 102, run \d+ to ceo@example\.com/);
    expect(again.code).toBe(0);
    expect(env.smtp.messages).toHaveLength(1);
  }, 120_000);

  it('a run held by a live process is not sent twice, and the second command does not exit 0', async () => {
    const before = env.smtp.messages.length;
    const { done } = await deliverUntilRendering('--force');
    // Not waiting for the other's outcome (deliver-wait.test.ts covers --wait): the refusal at once.
    const second = await deliver('--wait', '0');
    expect(second.stderr).toMatch(
      /^reportd: report weekly, query set 102, run \d+: being delivered by another process \(rendering, claimed by [^)]+\); not sent by this command\n$/m,
    );
    expect(second.code).toBe(1);
    browser.release();
    const first = await done;
    expect(first.code).toBe(0);
    expect(env.smtp.messages).toHaveLength(before + 1);
  }, 120_000);

  it('kill -9 during render, ten times in a row: each next run takes over at once, one message each', async () => {
    const before = env.smtp.messages.length;
    for (let i = 1; i <= 10; i++) {
      const { child, done, row } = await deliverUntilRendering('--force');
      child.kill('SIGKILL');
      expect((await done).signal).toBe('SIGKILL');
      for (const pid of chromiumProcessesWith(MARKER)) process.kill(pid, 'SIGKILL');
      expect(env.smtp.messages).toHaveLength(before + i - 1);

      // No waiting out a lease, no "in progress elsewhere": the holder is gone.
      const next = await deliver();
      expect(next.stderr).toMatch(/taking over deliveries held by a process that is gone/);
      expect(next.stdout).not.toMatch(/in progress elsewhere|being delivered by another process/);
      expect(next.code).toBe(0);
      expect(rows().find((r) => r.id === row.id)).toMatchObject({ state: 'sent' });
      expect(env.smtp.messages).toHaveLength(before + i);
    }
    const ids = env.smtp.messages.slice(before).map((m) => m.messageId);
    expect(new Set(ids).size).toBe(10);
  }, 400_000);
});
