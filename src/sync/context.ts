import type { ApiClient } from '../api/client.js';
import type { Clock } from '../clock.js';
import { NotAuthorizedError, StoreFaultError } from '../errors/index.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/sql.js';
import { storeFaultHint } from '../store/store-fault.js';
import type { SyncAccount, SyncIssue, SyncSettings } from './types.js';

/** What every step of one account's pass needs; built once per account per pass by sync-account.ts. */
export interface AccountContext {
  store: Store;
  client: ApiClient;
  account: SyncAccount;
  settings: SyncSettings;
  clock: Clock;
  /** Aborted on -4 (this account stops at once) or when the caller stops the whole pass. */
  signal: AbortSignal;
  /** Stops this account's in-flight and queued work; the reason is what the pass reports. */
  stop(reason: unknown): void;
  log: Logger;
  /** True when this process should give the account back to another (share-accounts.ts). */
  shouldYield?: () => boolean;
  issues: SyncIssue[];
  goneSets: number[];
}

/** `account acme: not authorized (GET /brands/list)`: the one line the CLI prints for a -4. */
export function notAuthorizedMessage(account: string, error: NotAuthorizedError): string {
  return `account ${account}: not authorized (${error.request})`;
}

/**
 * -4 is fatal for the account wherever it shows up (a rotated secret, a disabled credential): stop
 * everything the account has in flight, so no further request is spent on a credential that fails.
 * Returns true when the error was handled that way.
 */
export function stopOnNotAuthorized(ctx: AccountContext, error: unknown): boolean {
  if (!(error instanceof NotAuthorizedError)) return false;
  if (!ctx.signal.aborted) {
    ctx.issues.push({
      account: ctx.account.name,
      kind: 'not_authorized',
      endpoint: error.endpoint,
      message: notAuthorizedMessage(ctx.account.name, error),
    });
    ctx.stop(error);
  }
  return true;
}

/**
 * A full disk, a read-only or damaged store: no account can go on, so it is never one set's or one
 * payload's problem; the pass stops and the caller says why.
 */
export function isStoreFault(error: unknown): boolean {
  return error instanceof StoreFaultError || storeFaultHint(error) !== undefined;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
