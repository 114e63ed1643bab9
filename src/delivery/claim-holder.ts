import { randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Who holds a claim: `host:pid:random`. The host and pid let a worker on the same host see that the
 * holder is gone (Ctrl+C'd too hard, kill -9) and take its row over at once instead of after the
 * lease; the random part keeps two workers of one pid (tests, a restarted container reusing pid 1)
 * apart. Workers on other hosts, or named otherwise, are only ever judged by their lease.
 */
export function workerName(): string {
  return `${localHost()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/**
 * The host name, plus the PID namespace where Linux tells it: two containers given the same host
 * name (compose `hostname:`) on one store volume each have their own pids, and one must never judge
 * the other's holder gone because that pid does not exist on its side.
 */
function localHost(): string {
  try {
    const ns = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
    return ns ? `${hostname()}#${ns}` : hostname();
  } catch {
    return hostname();
  }
}

/** True when `worker` names a process of this host that no longer exists. */
export function isGoneLocalWorker(worker: string): boolean {
  const match = /^(.*):(\d+):[0-9a-f]+$/.exec(worker);
  if (!match || match[1] !== localHost()) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; only ESRCH means it is gone.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
