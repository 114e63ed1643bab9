import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The e2e tests drive the built CLI (bin/reportd.js → dist/). Building once before the run keeps
 * dist/ in step with src/, so a test never passes or fails because of a stale build.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
}
