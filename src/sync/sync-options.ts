import type { ApiClientOptions, RequestEvent } from '../api/client.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/sql.js';
import type { BudgetFactory } from './account-budget.js';
import type { AccountShare } from './share-accounts.js';
import type { SyncAccount, SyncProgress, SyncSettings } from './types.js';

export interface SyncOptions {
  store: Store;
  accounts: readonly SyncAccount[];
  settings: SyncSettings;
  clock?: Clock;
  /** Stops the pass (daemon shutdown): in-flight requests are aborted, nothing half-written stays. */
  signal?: AbortSignal;
  logger?: Logger;
  onProgress?: (progress: SyncProgress) => void;
  /** Another process is syncing an account: this pass waits for it (the message says so). */
  onWait?: (message: string) => void;
  /** Every HTTP attempt of the pass, as the client reports it (the daemon's request metrics). */
  onRequest?: (event: RequestEvent & { account: string }) => void;
  /** The budget of an API key; defaults to the process-wide `sharedBudget`, so passes share windows. */
  budgetFor?: BudgetFactory;
  /**
   * Daemons with the sync role share the accounts (share-accounts.ts): this one syncs about its
   * share at a time and never waits on an account another holds. Absent (`reportd sync`): every
   * account at once, waiting for any another process holds.
   */
  share?: AccountShare;
  /** Client tuning (tests shorten backoff); never the credentials, which come from the account. */
  client?: Pick<ApiClientOptions, 'backoff' | 'maxAttempts' | 'maxRateLimited' | 'random' | 'timeoutMs'>;
}

/** A step of the pass that rides out a PostgreSQL restart (store-outage.ts), named for its warning. */
export type Patiently = <T>(step: string, run: () => Promise<T>) => Promise<T>;
