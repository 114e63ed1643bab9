import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testEngine } from '../helpers/test-store.js';
import { runCli } from './helpers/cli.js';
import { type SyncEnv, startSyncEnv } from './helpers/sync-env.js';

/**
 * The machine's trouble under a real `reportd sync` process: a disk that fills up mid-sync (a small
 * tmpfs), a store on a read-only file system, a store with damaged pages. Each is one line naming the
 * store, exit 1 like other user errors: never 70 ("a bug") and never a stack trace.
 */

/** Mounting needs root (the CI container and the dev machine run tests as root). */
const canMount = (() => {
  if (process.getuid?.() !== 0) return false;
  const dir = mkdtempSync(join(tmpdir(), 'reportd-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir]);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

function configFor(env: SyncEnv, storePath: string): string {
  const file = join(env.dir, 'faults.yaml');
  writeFileSync(
    file,
    [
      'accounts:',
      '  - name: acme',
      `    base_url: ${env.account.base_url}`,
      `    api_key: ${env.account.api_key}`,
      `    api_secret: ${env.account.api_secret}`,
      '    rate_limit: { requests: 300, window_seconds: 1 }',
      `store: { path: ${storePath} }`,
      'sync: { query_sets: [101, 102], backfill_runs: 4 }',
      'log: { level: fatal }',
      '',
    ].join('\n'),
  );
  return file;
}

function expectOneLine(result: { code: number | null; stderr: string }, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines.at(-1)).toMatch(pattern);
  expect(result.stderr).not.toMatch(/unexpected error|\n\s+at /);
}

// The faults of a SQLite file (its disk, its folder, its pages): the `postgres` project has no file
// to damage, and would only run these SQLite cases a second time.
describe.skipIf(testEngine() === 'postgres')('store faults during sync', () => {
  let env: SyncEnv;
  const mounts: string[] = [];
  afterEach(async () => {
    for (const dir of mounts.splice(0)) {
      try {
        execFileSync('umount', [dir], { stdio: 'ignore' });
      } catch {
        // already unmounted
      }
      rmSync(dir, { recursive: true, force: true });
    }
    await env.close();
  });

  function mountTmpfs(size: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'reportd-tmpfs-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
    mounts.push(dir);
    return dir;
  }

  it.skipIf(!canMount)('a disk that fills up mid-sync: one line naming the store, exit 1', async () => {
    env = await startSyncEnv({ rate: { requests: 300, windowMs: 1000 } });
    // Room for the migrated schema (about 220 KB and its WAL), not for a whole pass of payloads and metric rows.
    const dir = mountTmpfs('1m');
    const store = join(dir, 'reportd.sqlite');
    const result = await runCli(['sync', '--config', configFor(env, store), '--no-progress']);
    expectOneLine(result, new RegExp(`^reportd: store ${store}: .*full.* \\(the disk is full; free space`));
  });

  it.skipIf(!canMount)('a store on a read-only file system: one line, exit 1', async () => {
    env = await startSyncEnv({ rate: { requests: 300, windowMs: 1000 } });
    const dir = mountTmpfs('8m');
    const store = join(dir, 'reportd.sqlite');
    const config = configFor(env, store);
    // A first sync of one set, so the store exists; then the file system turns read-only.
    writeFileSync(config, execFileSync('sed', ['s/\\[101, 102\\]/[101]/', config]));
    const first = await runCli(['sync', '--config', config, '--no-progress']);
    expect(first.code, first.stderr).toBe(0);
    execFileSync('mount', ['-o', 'remount,ro', dir]);
    writeFileSync(config, execFileSync('sed', ['s/\\[101\\]/[101, 102]/', config]));
    const result = await runCli(['sync', '--config', config, '--no-progress']);
    expectOneLine(result, new RegExp(`^reportd: (cannot \\w+ )?store ${store}: .*\\(the store is read-only`));
  });

  it('a store with damaged pages: one line naming the store, exit 1', async () => {
    env = await startSyncEnv({ rate: { requests: 300, windowMs: 1000 } });
    const store = join(env.dir, 'damaged.sqlite');
    const config = configFor(env, store);
    const first = await runCli(['sync', '--config', config, '--no-progress']);
    expect(first.code, first.stderr).toBe(0);
    // Garbage over the second half of the file (the payloads), past the schema on the first pages.
    const size = statSync(store).size;
    const fd = openSync(store, 'r+');
    writeSync(fd, Buffer.alloc(size / 2, 0xa5), 0, size / 2, size / 2);
    closeSync(fd);
    const result = await runCli(['status', '--config', config]);
    const sync = await runCli(['sync', '--config', config, '--no-progress']);
    for (const run of [result, sync]) {
      expectOneLine(run, /^reportd: (cannot \w+ )?store.*(malformed|not a database|damaged)/);
    }
  });
});
