import { randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Who holds a lease, and whether that holder is gone: the one implementation behind the delivery
 * queue, job slots and account leases.
 *
 * A holder is named `host:pid:random@start`. The host (plus the PID namespace where Linux tells it)
 * and pid let a process on the same host see that the holder no longer runs (kill -9, a second
 * Ctrl+C) and take its lease over at once instead of after it lapses; the random part keeps two
 * holders of one pid apart (tests, a restarted container reusing pid 1); `start` is the process's
 * start time in clock ticks since boot (`/proc/<pid>/stat` field 22), so a pid the kernel handed to
 * a new process is not mistaken for the old holder. Holders on other hosts, or named otherwise, are
 * only ever judged by their lease.
 */
export function holderName(): string {
  const start = startTicks(process.pid);
  return `${localHost()}:${process.pid}:${randomBytes(3).toString('hex')}${start === undefined ? '' : `@${start}`}`;
}

/**
 * The host name, plus the PID namespace where Linux tells it: two containers given the same host
 * name (compose `hostname:`) on one store volume each have their own pids, and one must never judge
 * the other's holder gone because that pid does not exist on its side.
 */
export function localHost(): string {
  try {
    const ns = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
    return ns ? `${hostname()}#${ns}` : hostname();
  } catch {
    return hostname();
  }
}

/** The parts of a holder name, or undefined for a name this module did not make. */
export function parseHolder(name: string): { host: string; pid: number; start?: number } | undefined {
  const match = /^(.*):(\d+):[0-9a-f]+(?:@(\d+))?$/.exec(name);
  if (!match) return undefined;
  return { host: match[1]!, pid: Number(match[2]), ...(match[3] ? { start: Number(match[3]) } : {}) };
}

/**
 * True when `holder` names a process of this host (and PID namespace) that no longer runs: no such
 * pid, a zombie (killed, not yet reaped by its parent: `kill(pid, 0)` still succeeds on it), or a pid
 * now used by a process started at another time. False whenever it cannot tell.
 */
export function isHolderGone(holder: string): boolean {
  const parsed = parseHolder(holder);
  if (!parsed || parsed.host !== localHost()) return false;
  return isProcessGone(parsed.pid, parsed.start);
}

/** The same test for a bare pid of this host (`start` when known); account leases store pid apart. */
export function isProcessGone(pid: number, start?: number): boolean {
  if (pid === process.pid) return start !== undefined && start !== startTicks(pid);
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; only ESRCH means it is gone.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  const stat = procStat(pid);
  if (!stat) return false;
  // Z: exited, waiting for its parent to reap it; X: being torn down. Neither will renew anything.
  if (stat.state === 'Z' || stat.state === 'X') return true;
  return start !== undefined && stat.start !== start;
}

/** A process's start time in clock ticks since boot, or undefined off Linux. */
export function startTicks(pid: number): number | undefined {
  return procStat(pid)?.start;
}

function procStat(pid: number): { state: string; start: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces or ')': split after the last.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[19]);
    return { state: fields[0] ?? '', start };
  } catch {
    return undefined;
  }
}
