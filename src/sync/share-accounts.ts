import type { Clock } from '../clock.js';

/**
 * Several daemons with the sync role on one store share the accounts (issue 25): each syncs about its
 * share, ceil(accounts / live sync instances), so two daemons do the work of one in about half the
 * time instead of one taking every account lease while the other waits.
 *
 * A pass with a share works through the accounts as a queue:
 * - it starts accounts while it runs fewer than its share, taking each account's lease without
 *   waiting: one held by another process is looked at again later;
 * - an account some process synced since this pass began is done (its `last_sync_at`): skipped;
 * - when the share shrinks (another daemon joined), the accounts started last give their leases back
 *   after the payloads in flight (`shouldYield`), and go back in the queue: the newcomer takes them,
 *   and its plan holds only what this one did not store;
 * - a lease whose holder died lapses (at once on the same host, else after the lease TTL) and the
 *   account is taken over like any free one.
 * The pass ends when every account was synced, here or elsewhere, since it began.
 */

export interface AccountShare {
  /** How many accounts this process may sync at once now: ceil(accounts / live sync instances). */
  quota(accounts: number): Promise<number>;
}

/** What one account's turn came to. */
export type AccountTurn = 'ran' | 'held' | 'yielded';

/** How often a pass looks again at accounts another process holds, and at its share. */
const POLL_MS = 1_000;

export async function shareAccounts<A extends { name: string }>(options: {
  accounts: readonly A[];
  share: AccountShare;
  clock: Clock;
  signal?: AbortSignal;
  /** True when some process finished a pass over the account after this pass began. */
  doneElsewhere(account: A): Promise<boolean>;
  /** True when another live process holds the account's lease now (looked at again later). */
  heldElsewhere(account: A): Promise<boolean>;
  /** One account's turn; `shouldYield` turns true when it should give its lease back. */
  run(account: A, shouldYield: () => boolean): Promise<AccountTurn>;
}): Promise<void> {
  const { accounts, share, clock, signal } = options;
  // Started at a different place in each process, so two passes starting together do not both
  // reach for the same accounts first.
  const start = accounts.length ? Math.floor(Math.random() * accounts.length) : 0;
  let pending = [...accounts.slice(start), ...accounts.slice(0, start)];
  /** Accounts running here, in the order they started: the last ones yield first. */
  const running: A[] = [];
  const turns = new Set<Promise<void>>();
  let quota = await share.quota(accounts.length);
  let wake: (() => void) | undefined;
  const shouldYield = (account: A) => () => running.indexOf(account) >= quota;
  /** A turn that threw (a store fault: no account can go on): no more start, and the pass throws it. */
  let failure: { error: unknown } | undefined;

  while ((pending.length > 0 || running.length > 0) && !signal?.aborted && !failure) {
    const queue = pending;
    pending = [];
    for (const account of queue) {
      if (running.length >= quota || signal?.aborted || failure) {
        pending.push(account);
        continue;
      }
      if (await options.doneElsewhere(account)) continue;
      if (await options.heldElsewhere(account)) {
        pending.push(account);
        continue;
      }
      running.push(account);
      // Awaited below (through `turns`); an account whose lease was held, or that gave it back,
      // comes back into the queue.
      const turn: Promise<void> = options
        .run(account, shouldYield(account))
        .catch((error: unknown): AccountTurn => {
          failure ??= { error };
          return 'ran';
        })
        .then((result) => {
          running.splice(running.indexOf(account), 1);
          if (result !== 'ran') pending.push(account);
          turns.delete(turn);
          wake?.();
        });
      turns.add(turn);
    }
    if (pending.length === 0 && running.length === 0) break;
    await new Promise<void>((resolve) => {
      wake = resolve;
      clock.sleep(POLL_MS, signal).then(resolve, resolve);
    });
    wake = undefined;
    quota = await share.quota(accounts.length);
  }
  await Promise.all(turns);
  if (failure) throw failure.error;
}
