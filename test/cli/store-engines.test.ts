import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtp, type TestSmtp } from '../delivery/smtp-helpers.js';
import { runCli } from '../helpers/cli.js';
import { testEngine } from '../helpers/test-store.js';
import { type SyncEnv, startSyncEnv } from '../sync/helpers/sync-env.js';

/**
 * The read commands (`status`, `history`, `export`, `render`) and `deliver` (to a real SMTP
 * server) as a user runs them, on a
 * store synced from the sandbox over HTTP, on the engine under test: the SQLite file, or in the
 * `postgres` vitest project a PostgreSQL database named by `store.url`. Each command opens the store
 * through the async seam and closes it; a stray un-awaited read would lose rows or hang the exit.
 */

let env: SyncEnv;
let config: string;
let out: string;
let smtp: TestSmtp;
beforeAll(async () => {
  env = await startSyncEnv({
    rate: { requests: 2000, windowMs: 1000 },
    settings: { query_sets: [101], backfill_runs: 2 },
    concurrency: 8,
  });
  await env.sync();
  const file = env.writeConfig();
  const store =
    env.store.engine === 'postgres'
      ? `store: { url: '${env.storePath}' }`
      : `store: { path: ${env.storePath} }`;
  smtp = await startSmtp();
  const reports = `smtp: { url: "${smtp.url}", from: "Reports <reports@example.com>" }
reports:
  - name: weekly
    query_sets: [101]
    formats: [xlsx]
    schedule: { cron: "0 8 * * 1" }
    email: { to: [ceo@example.com] }
`;
  writeFileSync(file, `${readFileSync(file, 'utf8').replace(/^store: .*$/m, store)}\n${reports}`);
  config = file;
  out = mkdtempSync(join(tmpdir(), 'reportd-store-engines-'));
}, 60_000);
afterAll(async () => {
  await smtp?.close();
  await env.close();
  rmSync(out, { recursive: true, force: true });
});

describe('read commands on the store', () => {
  it('status names the store and counts what the sync stored', async () => {
    const result = await runCli(['status', '--config', config, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const status = JSON.parse(result.stdout);
    expect(env.store.engine).toBe(testEngine());
    expect(status.store).toBe(env.store.location);
    expect(status.store.startsWith('postgres://')).toBe(testEngine() === 'postgres');
    expect(status.store).not.toContain(':@'); // never a password, on PostgreSQL either
    const [set] = status.accounts[0].sets;
    expect(set.id).toBe(101);
    expect(set.complete).toBe(2);
  }, 60_000);

  it('history lists the sync pass the store recorded', async () => {
    const result = await runCli(['history', '--config', config, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const history = JSON.parse(result.stdout);
    const stored = await env.store.all<{ id: number }>('SELECT id FROM sync_runs');
    expect(history.syncs).toHaveLength(stored.length);
    expect(history.deliveries).toEqual([]);
  }, 60_000);

  it('export writes one runs row per derived snapshot and every metric row', async () => {
    const dir = join(out, 'export');
    const result = await runCli(['export', '--config', config, '--format', 'csv', '--out', dir]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = (name: string) =>
      readFileSync(join(dir, `${name}.csv`), 'utf8')
        .trim()
        .split('\r\n').length - 1;
    expect(lines('runs')).toBe(2);
    const values = await env.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM metric_values');
    expect(lines('metric_values')).toBe(Number(values!.n));
  }, 60_000);

  it('render writes the HTML of both stored runs, and refuses a run that is not stored', async () => {
    const dir = join(out, 'render');
    const result = await runCli([
      'render',
      '--config',
      config,
      '--set',
      '101',
      '--run',
      'all',
      '--format',
      'html',
      '--out',
      dir,
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const paths = result.stdout.trim().split('\n');
    expect(paths).toHaveLength(2);
    for (const path of paths) expect(existsSync(path)).toBe(true);
    const missing = await runCli([
      'render',
      '--config',
      config,
      '--set',
      '101',
      '--run',
      '1',
      '--format',
      'html',
      '--out',
      dir,
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(
      'reportd: run 1 of query set 101 is not stored (run `reportd sync` first)',
    );
  }, 60_000);

  it('deliver sends the newest run once through the outbox on the store, and history shows it', async () => {
    const first = await runCli(['deliver', '--config', config, '--report', 'weekly']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^sent: report weekly, query set 101, run \d+ to ceo@example\.com/);
    expect(smtp.messages).toHaveLength(1);
    const again = await runCli(['deliver', '--config', config, '--report', 'weekly']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^already delivered/);
    expect(smtp.messages).toHaveLength(1);
    const rows = await env.store.all<{ state: string; message_id: string }>(
      'SELECT state, message_id FROM deliveries',
    );
    expect(rows).toEqual([{ state: 'sent', message_id: smtp.messages[0]!.messageId }]);
  }, 120_000);
});
