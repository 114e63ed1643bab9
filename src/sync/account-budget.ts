import type { RateBudget, RateBudgetOptions } from '../api/budget.js';
import { sharedBudget } from '../api/shared-budget.js';
import type { Clock } from '../clock.js';
import { budgetKeyFor } from '../config/budget-key.js';
import { StoreRequestHistory } from '../store/request-log.js';
import type { Store } from '../store/sql.js';
import type { SyncAccount } from './types.js';

/**
 * The one place an account's config becomes its API key's rate budget. The sync and the daemon's
 * metrics both come here, so the budget of a key is always built from that key's options (the config
 * check guarantees that every account with the key has the same ones), never from whichever caller
 * happened to ask first.
 */

export type BudgetFactory = (key: string, options: Omit<RateBudgetOptions, 'key'>) => RateBudget;

export function accountBudget(
  account: Pick<SyncAccount, 'base_url' | 'api_key' | 'rate_limit' | 'concurrency'>,
  context: { store: Store; clock: Clock; budgetFor?: BudgetFactory },
): RateBudget {
  const budgetKey = budgetKeyFor(account);
  const windowMs = budgetWindowMs(account.rate_limit.window_seconds * 1000);
  return (context.budgetFor ?? sharedBudget)(budgetKey, {
    requests: account.rate_limit.requests,
    windowMs,
    concurrency: account.concurrency,
    clock: context.clock,
    history: historyFor(budgetKey, context.store, windowMs),
  });
}

/**
 * The budget counts a request when it grants the slot; the server counts it when it arrives, a
 * little later and not always equally later (a busy event loop, another process, the network). With
 * no margin, a request granted the instant an old one leaves our window can reach the server while
 * that old one is still in the server's: a -145, which costs a whole window. 2% of the window
 * (50 ms to 1 s) absorbs that jitter for 2% of the throughput.
 */
export function budgetWindowMs(configuredMs: number): number {
  return configuredMs + Math.min(1000, Math.max(50, configuredMs * 0.02));
}

/**
 * The budget of a key lives for the whole process (`sharedBudget`), longer than one pass and perhaps
 * longer than one open store: its history follows whichever store the latest pass uses.
 */
const historyStores = new Map<string, { store: Store }>();

function historyFor(budgetKey: string, store: Store, windowMs: number): StoreRequestHistory {
  let holder = historyStores.get(budgetKey);
  if (!holder) {
    holder = { store };
    historyStores.set(budgetKey, holder);
  }
  holder.store = store;
  const current = holder;
  return new StoreRequestHistory(() => current.store, { retainMs: 2 * windowMs });
}
