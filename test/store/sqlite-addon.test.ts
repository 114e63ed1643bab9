import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/errors/index.js';
import { openSqliteDatabase, sqliteAddonOptions } from '../../src/store/sqlite-addon.js';
import { tempDir } from '../delivery/smtp-helpers.js';
import { ROOT } from '../helpers/cli.js';

/**
 * One checkout runs on two Node.js lines (the machine's, and the one the image ships, which `npm test`
 * uses): better-sqlite3's addon is bound to one ABI, so the store opens the build for the running
 * Node.js (`.node/abi-<modules>/`, scripts/node-line.sh) when there is one, else the package's own.
 */
const packageAddon = join(ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
/** The builds scripts/node-line.sh made, by ABI. */
const lineAddons = existsSync(join(ROOT, '.node'))
  ? readdirSync(join(ROOT, '.node'))
      .filter((name) => /^abi-\d+$/.test(name))
      .map((name) => ({ abi: name.slice(4), file: join(ROOT, '.node', name, 'better_sqlite3.node') }))
      .filter(({ file }) => existsSync(file))
  : [];
const running = process.versions.modules;
/** A build for another ABI than the running one: the package's own beside one of ours, or ours. */
const otherAddon = lineAddons.some(({ abi }) => abi === running)
  ? packageAddon
  : lineAddons.find(({ abi }) => abi !== running)?.file;

let tmp: ReturnType<typeof tempDir> | undefined;
afterEach(() => tmp?.cleanup());

describe('the SQLite addon for the running Node.js', () => {
  it('is the build under .node/abi-<modules>/ when there is one, and a store opens with it', () => {
    tmp = tempDir();
    // The build that loads in this process, copied where node-line.sh puts one for this ABI.
    const loads = lineAddons.find(({ abi }) => abi === running)?.file ?? packageAddon;
    const placed = join(tmp.dir, '.node', `abi-${running}`, 'better_sqlite3.node');
    mkdirSync(join(tmp.dir, '.node', `abi-${running}`), { recursive: true });
    copyFileSync(loads, placed);

    expect(sqliteAddonOptions(running, tmp.dir)).toEqual({ nativeBinding: placed });
    // Another ABI's folder is not this Node's: the package's own build then.
    expect(sqliteAddonOptions('1', tmp.dir)).toEqual({});
    const db = openSqliteDatabase(join(tmp.dir, 'store.sqlite'), {}, sqliteAddonOptions(running, tmp.dir));
    try {
      db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (42)');
      expect(db.prepare('SELECT x FROM t').get()).toEqual({ x: 42 });
    } finally {
      db.close();
    }
  });

  it('this checkout opens its stores with the build for this Node.js', () => {
    const db = openSqliteDatabase(':memory:');
    expect(db.prepare('SELECT sqlite_version() AS v').get()).toMatchObject({ v: expect.any(String) });
    db.close();
  });

  it.skipIf(otherAddon === undefined)(
    "a build for another Node.js is refused in one line that says what to run, not Node's four",
    () => {
      tmp = tempDir();
      let error: unknown;
      try {
        openSqliteDatabase(join(tmp.dir, 'store.sqlite'), {}, { nativeBinding: otherAddon });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(StoreError);
      const message = (error as Error).message;
      expect(message).toMatch(
        new RegExp(
          `^better-sqlite3 is built for another Node\\.js \\(ABI \\d+\\), not this Node\\.js ${process.version.replace(/\./g, '\\.')} \\(ABI ${running}\\): run \`bash scripts/install\\.sh\``,
        ),
      );
      expect(message).not.toContain('\n');
    },
  );

  it('a build cut short is refused in one line naming it and what to run, not a silent crash', async () => {
    tmp = tempDir();
    const loads = lineAddons.find(({ abi }) => abi === running)?.file ?? packageAddon;
    const cut = join(tmp.dir, 'better_sqlite3.node');
    writeFileSync(cut, readFileSync(loads).subarray(0, 100_000));
    // In a process of its own: the loader given such a file dies of SIGBUS, printing nothing.
    const script = `import { openSqliteDatabase } from './src/store/sqlite-addon.ts';
try { openSqliteDatabase(':memory:', {}, { nativeBinding: process.env.ADDON }); console.log('opened'); }
catch (error) { console.log(error.constructor.name + ': ' + error.message); }`;
    const { code, signal, stdout } = await new Promise<{
      code: number | null;
      signal: string | null;
      stdout: string;
    }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: ROOT, env: { ...process.env, ADDON: cut } },
        (_error, out) => resolve({ code: child.exitCode, signal: child.signalCode, stdout: out }),
      );
    });
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stdout).toBe(
      `StoreError: better-sqlite3's build for this Node.js, ${cut}, is cut short (100000 bytes of ${readFileSync(loads).length}): delete it and run \`bash scripts/install.sh\`\n`,
    );
  });
});
