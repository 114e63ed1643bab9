import { hostname } from 'node:os';
import { holderName, isHolderGone } from '../queue/index.js';
import type { Store } from './sql.js';

/**
 * Which process syncs an account right now (table account_leases, migration 005). Two processes on
 * one store (the daemon and a `reportd sync`, or two daemons) would otherwise plan the same due
 * payloads and fetch each twice. A lease is one row per account: taken with one write transaction,
 * renewed by its holder while it works, and taken over once it lapsed or its holder's process is
 * gone (same host, pid no longer running): a crashed sync never blocks the next one for long.
 */

export interface LeaseHolder {
  /** Unique per process and pass: a queue holder name (queue/holder.ts), so it can be judged gone. */
  id: string;
  host: string;
  pid: number;
}

export interface HeldLease {
  account: string;
  host: string;
  pid: number;
  expiresAt: number;
}

/** This process, as a new lease holder. */
export function newLeaseHolder(): LeaseHolder {
  return { id: holderName(), host: hostname(), pid: process.pid };
}

interface LeaseRow {
  holder: string;
  host: string;
  pid: number;
  expires_at: number;
}

/**
 * Takes the account's lease for `ttlMs` from `now`, or returns who holds it. Ours already, lapsed, or
 * held by a process of this host that is gone (queue/holder.ts): taken.
 */
export function acquireAccountLease(
  store: Store,
  account: string,
  holder: LeaseHolder,
  now: number,
  ttlMs: number,
): Promise<{ acquired: true } | { acquired: false; heldBy: HeldLease }> {
  // The lock makes read-then-write one step across processes on PostgreSQL too (the row may not
  // exist yet, so a row lock would not do).
  return store.transaction(
    async () => {
      const row = await store.get<LeaseRow>(
        'SELECT holder, host, pid, expires_at FROM account_leases WHERE account = ?',
        [account],
      );
      const free =
        !row ||
        row.holder === holder.id ||
        row.expires_at <= now ||
        // Holder-gone as the queue judges it (PID namespace, start time, zombie state).
        isHolderGone(row.holder);
      if (!free) {
        return {
          acquired: false as const,
          heldBy: { account, host: row.host, pid: row.pid, expiresAt: row.expires_at },
        };
      }
      await store.run(
        `INSERT INTO account_leases (account, holder, host, pid, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (account) DO UPDATE SET holder = excluded.holder, host = excluded.host,
           pid = excluded.pid, acquired_at = excluded.acquired_at, expires_at = excluded.expires_at`,
        [account, holder.id, holder.host, holder.pid, now, now + ttlMs],
      );
      return { acquired: true as const };
    },
    { lock: `reportd:account-lease:${account}` },
  );
}

/**
 * True when a live process holds the account's lease (it has not lapsed, and it is not a dead process
 * of this host): read only, so a daemon looking every second at accounts others sync writes nothing
 * (on SQLite a write would queue behind theirs).
 */
export async function accountLeaseHeld(store: Store, account: string, now: number): Promise<boolean> {
  const row = await store.get<LeaseRow>(
    'SELECT holder, host, pid, expires_at FROM account_leases WHERE account = ?',
    [account],
  );
  if (!row || Number(row.expires_at) <= now) return false;
  // Judged gone as the takeover above judges it (queue/holder.ts: PID namespace, start time, zombie).
  return !isHolderGone(row.holder);
}

export async function renewAccountLease(
  store: Store,
  account: string,
  holder: LeaseHolder,
  now: number,
  ttlMs: number,
): Promise<boolean> {
  const { changes } = await store.run(
    'UPDATE account_leases SET expires_at = ? WHERE account = ? AND holder = ?',
    [now + ttlMs, account, holder.id],
  );
  return changes === 1;
}

export async function releaseAccountLease(store: Store, account: string, holder: LeaseHolder): Promise<void> {
  await store.run('DELETE FROM account_leases WHERE account = ? AND holder = ?', [account, holder.id]);
}
