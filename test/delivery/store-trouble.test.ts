import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteAddonOptions } from '../../src/store/sqlite-addon.js';
import { ROOT } from '../helpers/cli.js';
import { type DeliveryCliEnv, startDeliveryCliEnv } from './cli-env.js';

/**
 * The store as the machine can leave it: on a full disk, read-only, deleted and rebuilt. Each is one
 * line naming the store (never a stack trace and exit 70), nothing is emailed that was not recorded,
 * and a rebuilt store sends a run with the Message-ID it had before.
 */
let env: DeliveryCliEnv;
const isRoot = process.getuid?.() === 0;

beforeAll(async () => {
  env = await startDeliveryCliEnv();
}, 60_000);
afterAll(() => env?.close());

function configFor(storePath: string): string {
  return env.writeConfig(
    `reportd-${Math.random().toString(36).slice(2)}.yaml`,
    `${env.accountsYaml}store: { path: "${storePath}" }
sync: { query_sets: [102], backfill_runs: 1 }
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
}

/** Writes zeros into `file` until the file system refuses another byte. */
function fillDisk(file: string): void {
  const fd = openSync(file, 'w');
  for (const size of [1 << 20, 4_096, 1]) {
    try {
      for (;;) writeSync(fd, Buffer.alloc(size));
    } catch {}
  }
  closeSync(fd);
}

describe('the store under trouble', () => {
  // A real small file system (tmpfs), so SQLite meets a real ENOSPC and EROFS. Needs root to mount.
  it.skipIf(!isRoot)(
    'full disk, then read-only: one line naming the store, exit 1, nothing emailed',
    async () => {
      const mount = join(env.dir, 'small');
      mkdirSync(mount);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mount]);
      try {
        const store = join(mount, 'reportd.sqlite');
        const config = configFor(store);
        expect((await env.reportd(config, 'sync')).code).toBe(0);
        const sent = env.smtp.messages.length;

        // A daemon beside it keeps the store open (its -wal and -shm files stay), then the disk fills up.
        const holder = spawn(
          process.execPath,
          [
            '-e',
            `const db = new (require('better-sqlite3'))(process.argv[1], ${JSON.stringify(sqliteAddonOptions())}); db.prepare('SELECT 1 FROM deliveries').all(); process.stdout.write('open\\n'); setInterval(() => {}, 1000);`,
            store,
          ],
          { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
        );
        await new Promise((resolve) => holder.stdout.once('data', resolve));
        fillDisk(join(mount, 'filler'));
        const full = await env.reportd(config, 'deliver', '--report', 'weekly');
        expect(full.stderr).toBe(
          `reportd: store ${store}: database or disk is full (the disk is full; free space, then run it again (what was stored is kept))\n`,
        );
        expect(full.code).toBe(1);
        expect(env.smtp.messages).toHaveLength(sent);

        holder.kill('SIGKILL');
        await new Promise((resolve) => holder.once('exit', resolve));
        rmSync(join(mount, 'filler'));
        execFileSync('mount', ['-o', 'remount,ro', mount]);
        const readOnly = await env.reportd(config, 'deliver', '--report', 'weekly');
        expect(readOnly.code).toBe(1);
        expect(readOnly.stderr).toMatch(new RegExp(`^reportd: [^\\n]*store ${store}[^\\n]*\\n$`));
        expect(readOnly.stderr).not.toMatch(/unexpected error| {4}at /);
        expect(env.smtp.messages).toHaveLength(sent);

        execFileSync('mount', ['-o', 'remount,rw', mount]);
        const ok = await env.reportd(config, 'deliver', '--report', 'weekly');
        expect(ok.code).toBe(0);
        expect(env.smtp.messages).toHaveLength(sent + 1);
      } finally {
        execFileSync('umount', ['-l', mount]);
      }
    },
    180_000,
  );

  it('history --limit out of range or not a number is a one-line usage error', async () => {
    const config = configFor(join(env.dir, 'limit', 'reportd.sqlite'));
    for (const bad of ['ten', '0', '-5', '1e3', '99999999999']) {
      const result = await env.reportd(config, 'history', `--limit=${bad}`);
      expect(result.stderr).toBe(`reportd: --limit must be a whole number from 1 to 10000 (got "${bad}")\n`);
      expect(result.code).toBe(2);
    }
  }, 60_000);

  it('a store deleted and rebuilt sends the same run with the same Message-ID', async () => {
    const dir = join(env.dir, 'rebuilt');
    const config = configFor(join(dir, 'reportd.sqlite'));
    expect((await env.reportd(config, 'sync')).code).toBe(0);
    const before = env.smtp.messages.length;
    expect((await env.reportd(config, 'deliver', '--report', 'weekly')).code).toBe(0);
    rmSync(dir, { recursive: true, force: true });
    expect((await env.reportd(config, 'sync')).code).toBe(0);
    expect((await env.reportd(config, 'deliver', '--report', 'weekly')).code).toBe(0);
    const [first, second] = env.smtp.messages.slice(before);
    expect(second!.messageId).toBe(first!.messageId);
    expect(first!.messageId).toMatch(/^<reportd\.[0-9a-f]{32}@example\.com>$/);
  }, 120_000);
});
