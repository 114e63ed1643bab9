import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = `${ROOT}bin/reportd.js`;

/**
 * Starts the built CLI (`bin/reportd.js`, which vitest's global setup builds) in a child process, as
 * a user would run it. Node runs it directly, so a SIGKILL of the child kills the sync itself.
 */
export function spawnCli(args: string[]) {
  return spawn(process.execPath, [BIN, ...args], {
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
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
