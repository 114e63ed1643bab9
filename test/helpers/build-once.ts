import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The e2e tests drive the built CLI (bin/reportd.js → dist/bundle/, which scripts/build-cli.ts bundles
 * from src/ with esbuild in a few seconds). Building once before the run keeps it in step with src/,
 * so a test never passes or fails because of a stale build. No test runs tsc's own output (dist/*.js,
 * which `npm run build` emits too, for the image's health check): tsc is left out here, and the
 * types to `npm run typecheck`. Both vitest projects (sqlite, postgres) list this setup; their global
 * setups run in the one main process, so a flag on globalThis (each project may load its own copy of
 * this module) makes the second a no-op.
 *
 * The build is skipped when dist/ is the one this setup built from exactly these sources: a stamp in
 * dist/ holds a hash of src/, templates/, the build's own files and the tsconfigs together with the newest mtime
 * under dist/ at the end of that build, so an edit in src/, another build (`npm run build`, whose
 * output may differ) or a touched file in dist/ all build again.
 */
const builtFlag = Symbol.for('reportd.test.built-once');
const STAMP = '.built-by-tests';

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? files(path) : [path];
    })
    .sort();
}

function sourceHash(root: string): string {
  const hash = createHash('sha256');
  for (const file of [
    ...files(join(root, 'src')),
    // The packaged templates, which the build compiles into the bundle.
    ...files(join(root, 'templates')),
    join(root, 'tsconfig.json'),
    join(root, 'tsconfig.build.json'),
    join(root, 'scripts', 'build-cli.ts'),
    join(root, 'package.json'),
  ]) {
    hash.update(file.slice(root.length)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

function newestOutput(dist: string): number {
  let newest = 0;
  for (const file of files(dist))
    if (!file.endsWith(STAMP)) newest = Math.max(newest, statSync(file).mtimeMs);
  return newest;
}

export default function setup(): void {
  const shared = globalThis as { [builtFlag]?: boolean };
  if (shared[builtFlag]) return;
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const dist = join(root, 'dist');
  const stampFile = join(dist, STAMP);
  const sources = sourceHash(root);
  const current =
    existsSync(stampFile) && readFileSync(stampFile, 'utf8') === `${sources} ${newestOutput(dist)}`;
  if (!current) {
    execFileSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/build-cli.ts'], {
      cwd: root,
      stdio: 'inherit',
    });
    writeFileSync(stampFile, `${sources} ${newestOutput(dist)}`);
  }
  shared[builtFlag] = true;
}
