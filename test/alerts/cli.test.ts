import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openSqliteDatabase } from '../../src/store/sqlite-addon.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { runCli } from '../helpers/cli.js';

/**
 * The alerts from the command line, as a cron-driven install uses them: `reportd sync` evaluates
 * after its pass (the first pass only records; a backfill of several runs evaluates only the newest),
 * `reportd alerts` previews without queueing, and `reportd deliver --pending` sends what is queued
 * to a real SMTP server and exits (here with `attach: [pdf]`: the set's report rendered by Chromium).
 */

let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let smtp: TestSmtp;
let config: string;
beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox({ rate: { requests: 100_000, windowMs: 60_000 } });
  smtp = await startSmtp();
  config = join(tmp.dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - { name: acme, base_url: "${sandbox.baseUrl}", api_key: ${sandbox.apiKey}, api_secret: ${sandbox.apiSecret}, rate_limit: { requests: 100000 } }
store: { path: ./store.sqlite }
sync: { query_sets: [101], backfill_runs: 3 }
smtp: { url: "${smtp.url}", from: "reportd <alerts@example.com>" }
alerts:
  - name: visibility-drop
    rules:
      - { metric: presence.gross, change: "<= -5" }
      - { event: new_error }
    email: { to: [cmo@example.com] }
    attach: [pdf]
`,
  );
});
afterAll(async () => {
  await sandbox?.close();
  await smtp?.close();
  tmp?.cleanup();
});

const alertRows = () => {
  const db = openSqliteDatabase(join(tmp.dir, 'store.sqlite'), { readonly: true });
  try {
    return db.prepare(`SELECT run_id, state FROM deliveries WHERE kind = 'alert' ORDER BY id`).all() as {
      run_id: number;
      state: string;
    }[];
  } finally {
    db.close();
  }
};

describe('alerts from the CLI', () => {
  it('sync records, then evaluates only the newest run; alerts previews; deliver --pending sends', async () => {
    const first = await runCli(['sync', '--config', config, '--no-progress']);
    expect(first.code).toBe(0);
    expect(alertRows()).toEqual([]);

    // Two runs land between passes: a movement, then a quiet one. Only the newest is evaluated
    // (against the movement run before it), so nothing fires.
    const movement = sandbox.publishRun(101, { movement: true });
    const quiet = sandbox.publishRun(101);
    const backfill = await runCli(['sync', '--config', config, '--no-progress']);
    expect(backfill.code).toBe(0);
    expect(backfill.stdout).not.toContain('alerts:');
    expect(alertRows()).toEqual([]);

    // The preview shows what the movement run would have fired, and queues nothing.
    const preview = await runCli(['alerts', '--config', config, '--run', String(movement.id)]);
    expect(preview.code).toBe(0);
    expect(preview.stdout).toContain(`visibility-drop · set 101 (`);
    expect(preview.stdout).toMatch(
      /FIRES {2}Gross presence changed −\d+\.\d pts against the previous run \(likely change, p = [\d.e-]+; interval −\d+\.\d to −\d+\.\d pts at 98 %; n = [\d,]+ → [\d,]+ answers\)/,
    );
    expect(preview.stdout).toContain('FIRES  New error in the Gravity register: Store closures invented');
    const newest = await runCli(['alerts', '--config', config]);
    expect(newest.code).toBe(0);
    expect(newest.stdout).toContain(`run ${quiet.id}`);
    expect(newest.stdout).toContain('nothing fires');
    expect(alertRows()).toEqual([]);

    const next = sandbox.publishRun(101, { movement: true });
    const third = await runCli(['sync', '--config', config, '--no-progress']);
    expect(third.code).toBe(0);
    expect(third.stdout).toContain('alerts: 1 message(s) queued');
    expect(alertRows()).toEqual([{ run_id: next.id, state: 'pending' }]);

    const sent = await runCli(['deliver', '--config', config, '--pending']);
    expect(sent.stderr).not.toMatch(/\n\s+at /);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain(`sent: alert visibility-drop, query set 101, run ${next.id}`);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.text).toContain(
      'Claim: "Northwind Coffee is closing all of its shops this year."',
    );
    expect(alertRows()).toEqual([{ run_id: next.id, state: 'sent' }]);

    const again = await runCli(['deliver', '--config', config, '--pending']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing due in the outbox');
    expect(smtp.messages).toHaveLength(1);
  }, 180_000);
});
