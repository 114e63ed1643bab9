import type { ChildProcess } from 'node:child_process';
import { spawnCli } from '../helpers/cli.js';

/** A `reportd daemon` child process and everything it printed so far. */
export interface DaemonChild {
  child: ChildProcess;
  logs: string;
}

export function spawnDaemon(config: string, children?: ChildProcess[]): DaemonChild {
  const daemon: DaemonChild = { child: spawnCli(['daemon', '--config', config]), logs: '' };
  children?.push(daemon.child);
  daemon.child.stdout?.on('data', (chunk) => {
    daemon.logs += chunk;
  });
  daemon.child.stderr?.on('data', (chunk) => {
    daemon.logs += chunk;
  });
  return daemon;
}

/** The status page's URL the daemon logged ("http listening"), once it did. */
export function listeningUrl(daemon: DaemonChild): string | undefined {
  return /"url":"(http:\/\/[^"]+)".*http listening/.exec(daemon.logs)?.[1];
}

/**
 * Polls (real time) until `check` holds; a check that throws (the store is down) counts as not yet.
 * Throws after `ms` with `logs()` in the message.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  logs: () => string,
  ms = 60_000,
): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    let held = false;
    try {
      held = await check();
    } catch {
      // Not yet.
    }
    if (held) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${logs()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** SIGTERM, and the exit code. */
export function stopDaemon(daemon: DaemonChild): Promise<number | null> {
  return new Promise((resolve) => {
    if (daemon.child.exitCode !== null) return resolve(daemon.child.exitCode);
    daemon.child.once('exit', (code) => resolve(code));
    daemon.child.kill('SIGTERM');
  });
}
