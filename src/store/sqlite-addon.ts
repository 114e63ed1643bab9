import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { StoreError } from '../errors/index.js';
import { PACKAGE_ROOT } from '../package-root.js';

/**
 * better-sqlite3 is the one dependency whose addon is bound to a Node.js ABI. `npm ci` builds it for
 * the Node.js that installs (20 on a developer's machine); scripts/node-line.sh builds it again for the
 * line the image ships, into `.node/abi-<modules>/`, so one checkout runs on both. Every opener of a
 * SQLite file (the store, the tests, the benches) goes through here and gets the build for the
 * running Node.js: the one under `.node/` when there is one, else the package's own.
 */
export function sqliteAddonOptions(
  modules: string = process.versions.modules,
  root: string = PACKAGE_ROOT,
): { nativeBinding?: string } {
  const file = join(root, '.node', `abi-${modules}`, 'better_sqlite3.node');
  return existsSync(file) ? { nativeBinding: file } : {};
}

/**
 * `new Database(file, options)` with the addon for the running Node.js (see sqliteAddonOptions);
 * `addon` names another one (the tests).
 */
export function openSqliteDatabase(
  file: string,
  options: Database.Options = {},
  addon: { nativeBinding?: string } = sqliteAddonOptions(),
): Database.Database {
  try {
    return new Database(file, { ...options, ...addon });
  } catch (error) {
    throw addonMismatch(error) ?? error;
  }
}

/**
 * Node's own message for an addon of another ABI is four lines and names neither the package nor a
 * remedy; said in one line with what to run.
 */
function addonMismatch(error: unknown): StoreError | undefined {
  const found =
    /NODE_MODULE_VERSION (\d+)\. This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/.exec(
      (error as Error).message ?? '',
    );
  if (!found) return undefined;
  return new StoreError(
    `better-sqlite3 is built for another Node.js (ABI ${found[1]}), not this Node.js ${process.version} (ABI ${found[2]}): run \`bash scripts/install.sh\` (builds it for the line the image ships) or \`npm rebuild better-sqlite3\` with this Node.js`,
    { cause: error },
  );
}
