import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../src/store/sqlite-addon.js';
import { chromiumProcessesWith } from '../helpers/chromium-processes.js';
import { runCli } from '../helpers/cli.js';
import { type GatedChromium, gatedChromium } from '../helpers/gated-chromium.js';
import { type DeliveryCliEnv, startDeliveryCliEnv } from './cli-env.js';

/**
 * kill -9 of `reportd deliver` while it renders a digest, then a restart: exactly one message; and two
 * `deliver` processes racing for the same digest: one message.
 */
let env: DeliveryCliEnv;
let config: string;
const MARKER = `REPORTD_DIGEST_CRASH_TEST_${process.pid}`;
/** Held at its gate, so the kill lands while the digest renders (see gatedChromium). */
let browser: GatedChromium;

beforeAll(async () => {
  env = await startDeliveryCliEnv();
  config = env.writeConfig(
    'reportd.yaml',
    `${env.accountsYaml}sync: { query_sets: [101, 102, 201], backfill_runs: 1 }
smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>" }
reports:
  - name: portfolio
    query_sets: [101, 102, 201]
    formats: [pdf]
    email: { to: [ceo@example.com] }
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

const rows = () => {
  const db = openSqliteDatabase(join(env.dir, 'data', 'reportd.sqlite'), {
    readonly: true,
    fileMustExist: true,
  });
  try {
    return db.prepare('SELECT id, state, claimed_by, covers FROM deliveries ORDER BY id').all() as {
      id: number;
      state: string;
      claimed_by: string | null;
      covers: string | null;
    }[];
  } finally {
    db.close();
  }
};

describe('digest across kill -9', () => {
  it('killed while the digest renders, then run again: one message covering every set', async () => {
    let child!: ChildProcess;
    const done = runCli(['deliver', '--report', 'portfolio', '--config', config], {
      cwd: env.dir,
      env: { REPORTD_LOG_LEVEL: 'warn', [MARKER]: '1', REPORTD_CHROMIUM: browser.path },
      onSpawn: (c) => {
        child = c;
      },
    });
    for (;;) {
      const mine = rows().find((r) => r.state === 'rendering' && r.claimed_by?.includes(`:${child.pid}:`));
      if (mine) break;
      if (child.exitCode !== null)
        throw new Error(`deliver ended before rendering: ${JSON.stringify(await done)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    for (const pid of chromiumProcessesWith(MARKER)) process.kill(pid, 'SIGKILL');
    expect(env.smtp.messages).toHaveLength(0);

    const next = await env.reportd(config, 'deliver', '--report', 'portfolio');
    expect(next.code).toBe(0);
    expect(next.stdout).toMatch(
      /^sent: report portfolio, digest of query set 101 run \d+, query set 102 run \d+, query set 201 run \d+/,
    );
    expect(env.smtp.messages).toHaveLength(1);
    expect(rows()).toHaveLength(1);
    expect(rows()[0]).toMatchObject({ state: 'sent' });
    expect(JSON.parse(rows()[0]!.covers!)).toHaveLength(3);

    const again = await env.reportd(config, 'deliver', '--report', 'portfolio');
    expect(again.stdout).toMatch(/^already delivered/);
    expect(env.smtp.messages).toHaveLength(1);
  }, 300_000);

  it('two `deliver` processes at once after a new run: one digest message between them', async () => {
    env.sandbox.publishRun(201);
    expect((await env.reportd(config, 'sync')).code).toBe(0);
    const both = await Promise.all([
      env.reportd(config, 'deliver', '--report', 'portfolio'),
      env.reportd(config, 'deliver', '--report', 'portfolio'),
    ]);
    expect(env.smtp.messages).toHaveLength(2);
    // One of them sent it; the other found it sent, or being sent, and said so.
    const said = both.map((r) => `${r.stdout}${r.stderr}`);
    expect(said.filter((text) => /^sent: report portfolio, digest of /.test(text))).toHaveLength(1);
    expect(
      said.filter((text) => /already delivered|being delivered by another process/.test(text)),
    ).toHaveLength(1);
    const digests = rows();
    expect(digests).toHaveLength(2);
    expect(digests.every((row) => row.state === 'sent')).toBe(true);
  }, 300_000);
});
