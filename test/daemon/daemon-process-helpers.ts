import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { Sandbox } from '../../src/sandbox/server.js';
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

/** The sandbox's account as a test's own `runSync` takes it (the daemon reads it from its YAML). */
export function sandboxAccount(sandbox: Sandbox) {
  return {
    name: 'acme',
    base_url: sandbox.baseUrl,
    api_key: sandbox.apiKey,
    api_secret: sandbox.apiSecret,
    rate_limit: { requests: 1000, window_seconds: 60 },
    concurrency: 4,
    timeout_seconds: 10,
  };
}

/** Sync settings for a test's own `runSync`: query set 101, its newest run. */
export const SYNC_SETTINGS = {
  query_sets: [101],
  backfill_runs: 1,
  catalog_ttl_minutes: 60,
  max_payload_retries: 3,
};

/**
 * Writes a daemon's YAML: the sandbox's account `acme` (1000 requests a minute, plus `account`'s
 * extra fields, e.g. `concurrency: 4`), the store at `storeUrl`, then the test's own lines (sync,
 * roles, smtp, reports…). Returns `file`.
 */
export function writeDaemonConfig(
  file: string,
  options: { sandbox: Sandbox; storeUrl: string; account?: string; lines: readonly string[] },
): string {
  const { sandbox } = options;
  const extra = options.account ? `, ${options.account}` : '';
  writeFileSync(
    file,
    [
      'accounts:',
      `  - { name: acme, base_url: "${sandbox.baseUrl}", api_key: ${sandbox.apiKey}, api_secret: ${sandbox.apiSecret}, rate_limit: { requests: 1000, window_seconds: 60 }${extra} }`,
      `store: { url: "${options.storeUrl}" }`,
      ...options.lines,
      '',
    ].join('\n'),
  );
  return file;
}
