import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = `${ROOT}src/cli/main.ts`;

/**
 * Starts `reportd <args>` from source in a child process, as a user would run the CLI. Node itself
 * loads tsx (`--import tsx`) rather than the tsx launcher, which would run the CLI in a grandchild
 * that a SIGKILL of the child leaves running.
 */
export function spawnCli(args: string[]) {
  return spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env },
  });
}

/** Runs the CLI to the end; resolves with its exit code and output. */
export function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnCli(args);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
