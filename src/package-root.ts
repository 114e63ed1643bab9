import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's own folder (package.json, templates/, config/), found by walking up from this
 * module until a package.json appears. A fixed `../..` would hold in one layout only, and this file
 * runs from three: src/ under tsx, dist/ as tsc emits it, and a chunk of the bundled CLI
 * (dist/bundle/chunks/, scripts/build-cli.ts).
 */
export const PACKAGE_ROOT: string = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}
