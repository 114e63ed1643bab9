import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { testEngine } from '../helpers/test-store.js';
import { type SyncEnv, startSyncEnv } from '../sync/helpers/sync-env.js';

/**
 * The read commands (`status`, `history`, `export`, `render`) as a user runs them, on a
 * store synced from the sandbox over HTTP, on the engine under test: the SQLite file, or in the
 * `postgres` vitest project a PostgreSQL database named by `store.url`. Each command opens the store
 * through the async seam and closes it; a stray un-awaited read would lose rows or hang the exit.
 */

let env: SyncEnv;
let config: string;
let out: string;
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
  writeFileSync(file, readFileSync(file, 'utf8').replace(/^store: .*$/m, store));
  config = file;
  out = mkdtempSync(join(tmpdir(), 'reportd-store-engines-'));
}, 60_000);
afterAll(async () => {
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
});
