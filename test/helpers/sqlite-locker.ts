import { type ChildProcess, spawn } from 'node:child_process';
import { sqliteAddonOptions } from '../../src/store/sqlite-addon.js';
import { ROOT } from './cli.js';

/**
 * Another process holding a SQLite file's write lock: better-sqlite3 in a process of its own runs
 * BEGIN IMMEDIATE and keeps the lock until `release()` commits. `children` collects the process so a
 * test's cleanup can kill it if the test fails first.
 */
export async function holdWriteLock(
  file: string,
  children: ChildProcess[],
): Promise<{ release(): Promise<void> }> {
  const locker = spawn(
    process.execPath,
    [
      '-e',
      `const db = new (require('better-sqlite3'))(process.argv[1], ${JSON.stringify(sqliteAddonOptions())});
       db.exec('BEGIN IMMEDIATE'); console.log('locked');
       process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`,
      file,
    ],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  children.push(locker);
  await new Promise<void>((resolve) => locker.stdout!.once('data', () => resolve()));
  return {
    async release() {
      const exited = new Promise<void>((resolve) => locker.once('exit', () => resolve()));
      locker.stdin!.end('release\n');
      await exited;
    },
  };
}
