import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
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
  if (addon.nativeBinding) refuseTruncated(addon.nativeBinding);
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

/**
 * A build cut short (a full disk, a copy interrupted) is not refused by the loader: it maps the file
 * and the process dies of SIGBUS, printing nothing. An ELF file ends with its section headers, so
 * their end past the file's size says so first. install.sh would keep such a file (its stamp still
 * matches): the remedy deletes it.
 */
function refuseTruncated(addon: string): void {
  const header = Buffer.alloc(64);
  const fd = openSync(addon, 'r');
  let size: number;
  try {
    size = fstatSync(fd).size;
    readSync(fd, header, 0, 64, 0);
  } finally {
    closeSync(fd);
  }
  const elf64 = size >= 64 && header.readUInt32BE(0) === 0x7f454c46 && header[4] === 2 && header[5] === 1;
  const end = elf64
    ? Number(header.readBigUInt64LE(0x28)) + header.readUInt16LE(0x3a) * header.readUInt16LE(0x3c)
    : 0;
  if (size < 64 || end > size) {
    throw new StoreError(
      `better-sqlite3's build for this Node.js, ${addon}, is cut short (${size} bytes${end > size ? ` of ${end}` : ''}): delete it and run \`bash scripts/install.sh\``,
    );
  }
}
