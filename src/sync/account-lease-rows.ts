import { hostname } from 'node:os';
import { holderName, isHolderGone } from '../queue/holder.js';
import { claimKey, deleteLease, type LeaseTable, renewLease } from '../queue/leased-rows.js';
import type { Store } from '../store/sql.js';

/**
 * Which process syncs an account right now (table account_leases, migration 005). Two processes on
 * one store (the daemon and a `reportd sync`, or two daemons) would otherwise plan the same due
 * payloads and fetch each twice. A lease is one row per account: taken with one write transaction,
 * renewed by its holder while it works, and taken over once it lapsed or its holder's process is
 * gone (same host, pid no longer running): a crashed sync never blocks the next one for long. The
 * claim, renewal and release are the queue's leased rows (queue/leased-rows.ts).
 */

/** A row is the lease: held by `holder` (unique per pass, so it fences its writes) until `expires_at`. */
const ACCOUNT_LEASE: LeaseTable = {
  name: 'account_leases',
  key: ['account'],
  holder: 'holder',
  fence: 'holder',
  until: 'expires_at',
};

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
  const fields: [string, unknown][] = [
    ['host', holder.host],
    ['pid', holder.pid],
    ['acquired_at', now],
  ];
  return claimKey<LeaseRow & Record<string, unknown>>(store, ACCOUNT_LEASE, {
    key: [account],
    holder: holder.id,
    until: now + ttlMs,
    // The lock makes read-then-write one step across processes on PostgreSQL too (the row may not
    // exist yet, so a row lock would not do).
    lock: `reportd:account-lease:${account}`,
    // Holder-gone as the queue judges it (PID namespace, start time, zombie state).
    free: (row) => row.holder === holder.id || row.expires_at <= now || isHolderGone(row.holder),
    insert: fields,
    takeover: fields,
  }).then((result) => {
    if (result.won) return { acquired: true as const };
    const row = 'row' in result ? result.row : undefined;
    return {
      acquired: false as const,
      heldBy: { account, host: row?.host ?? '', pid: row?.pid ?? 0, expiresAt: row?.expires_at ?? 0 },
    };
  });
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
  return !isHolderGone(row.holder);
}

export function renewAccountLease(
  store: Store,
  account: string,
  holder: LeaseHolder,
  now: number,
  ttlMs: number,
): Promise<boolean> {
  return renewLease(store, ACCOUNT_LEASE, { key: [account], token: holder.id }, now + ttlMs);
}

export async function releaseAccountLease(store: Store, account: string, holder: LeaseHolder): Promise<void> {
  await deleteLease(store, ACCOUNT_LEASE, { key: [account], token: holder.id });
}
