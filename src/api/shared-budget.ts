import { RateBudget, type RateBudgetOptions } from './budget.js';

const shared = new Map<string, RateBudget>();

/**
 * One budget per API key in this process: every client, sync and command using the same key draws
 * from the same window, as the server counts it. The budget follows the key's options as the latest
 * caller gives them (all callers build them with `accountBudget` from the config, which allows one set
 * per key), so a reloaded config takes effect; the clock and history stay those it was built with.
 */
export function sharedBudget(key: string, options: Omit<RateBudgetOptions, 'key'>): RateBudget {
  let budget = shared.get(key);
  if (!budget) {
    budget = new RateBudget({ ...options, key });
    shared.set(key, budget);
  } else {
    budget.reconfigure(options);
  }
  return budget;
}

/** For tests: forget every shared budget. */
export function clearSharedBudgets(): void {
  shared.clear();
}
