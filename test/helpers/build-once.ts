import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The e2e tests drive the built CLI (bin/reportd.js → dist/). Building once before the run keeps
 * dist/ in step with src/, so a test never passes or fails because of a stale build. Both vitest
 * projects (sqlite, postgres) list this setup; their global setups run in the one main process, so
 * a flag on globalThis (each project may load its own copy of this module) makes the second a no-op.
 */
const builtFlag = Symbol.for('reportd.test.built-once');

export default function setup(): void {
  const shared = globalThis as { [builtFlag]?: boolean };
  if (shared[builtFlag]) return;
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  shared[builtFlag] = true;
}
