import { DEFAULT_MAX_PAYLOAD_MB } from '../api/bounded-json.js';
import { ApiClient, type ApiClientOptions, type RequestEvent } from '../api/client.js';
import { type Clock, systemClock } from '../clock.js';
import { budgetKeyFor } from '../config/budget-key.js';
import { StoreFaultError } from '../errors/index.js';
import { type Logger, silentLogger } from '../log.js';
import { accountLeaseHeld } from '../store/account-leases.js';
import { getAccount, recordAccountPass, upsertAccount } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import { asStoreFault } from '../store/store-fault.js';
import { finishSyncRun, startSyncRun } from '../store/sync-runs.js';
import { accountBudget, type BudgetFactory } from './account-budget.js';
import { type AccountLease, holdAccountLease } from './account-lease.js';
import { type AccountContext, errorMessage, isStoreFault, stopOnNotAuthorized } from './context.js';
import { discover } from './discover.js';
import { fetchPlanned } from './fetch-snapshot.js';
import { planSnapshots } from './plan.js';
import { ProgressTracker } from './progress.js';
import { type AccountShare, type AccountTurn, shareAccounts } from './share-accounts.js';
import { outlastingStoreOutages } from './store-outage.js';
import {
  emptySyncSummary,
  type SyncAccount,
  type SyncIssue,
  type SyncProgress,
  type SyncSettings,
  type SyncSummary,
  syncOutcome,
} from './types.js';

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

/**
 * One sync pass over every account, in parallel (each has its own budget and credential; a -4 on
 * one stops only that one). Never throws for API trouble: everything that kept the pass from storing
 * what was due is in `summary.errors`, and the pass is recorded in sync_runs either way.
 */
export async function runSync(options: SyncOptions): Promise<SyncSummary> {
  try {
    return await runPass(options);
  } catch (error) {
    // A full disk, a read-only or damaged store: one line naming the store, not a bug's stack.
    throw asStoreFault(error, options.store.location);
  }
}

async function runPass(options: SyncOptions): Promise<SyncSummary> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  // The pass's own bookkeeping rides out a PostgreSQL restart too (store-outage.ts).
  const patiently = <T>(step: string, run: () => Promise<T>) =>
    outlastingStoreOutages(
      { store: options.store, signal: options.signal, log: options.logger ?? silentLogger, step },
      run,
    );
  const syncRunId = await patiently('starting the pass', () => startSyncRun(options.store, started));
  const tracker = new ProgressTracker(
    options.onProgress,
    options.accounts.map((account) => account.name),
  );
  const summary: SyncSummary = emptySyncSummary(options.accounts.length);
  const onRequest = (account: string, event: RequestEvent) => {
    options.onRequest?.({ ...event, account });
    summary.requests++;
    if (!event.endpoint.startsWith('catalog.')) summary.metricRequests++;
    if (event.outcome === 'rate_limited') summary.rateLimited++;
    tracker.request();
  };
  // One listener on the caller's signal for the whole pass, fanning out to the accounts: one per
  // account made Node warn (MaxListenersExceededWarning) past 10 accounts.
  const stops = new Set<AbortController>();
  const onOuterAbort = () => {
    for (const controller of stops) controller.abort(options.signal?.reason);
  };
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const turn = (account: SyncAccount, shouldYield?: () => boolean): Promise<AccountTurn> =>
    syncAccount(options, account, { clock, tracker, onRequest, summary, stops, shouldYield }).catch(
      (error: unknown): AccountTurn => {
        if (isStoreFault(error)) throw error;
        // Setting the account up failed (a bug): report it, let the others run.
        summary.errors.push({
          account: account.name,
          kind: 'internal',
          message: `account ${account.name}: ${errorMessage(error)}`,
        });
        return 'ran';
      },
    );
  try {
    if (options.share) {
      const { share } = options;
      await shareAccounts({
        accounts: options.accounts,
        share: { quota: (accounts) => patiently('sharing the accounts', () => share.quota(accounts)) },
        clock,
        signal: options.signal,
        doneElsewhere: (account) =>
          patiently('sharing the accounts', async () => {
            const row = await getAccount(options.store, account.name);
            return row?.last_sync_at != null && Date.parse(row.last_sync_at) >= started;
          }),
        heldElsewhere: (account) =>
          patiently('sharing the accounts', () => accountLeaseHeld(options.store, account.name, clock.now())),
        run: turn,
      });
    } else {
      await Promise.all(options.accounts.map((account) => turn(account)));
    }
  } finally {
    options.signal?.removeEventListener('abort', onOuterAbort);
    summary.snapshotsCompleted = tracker.snapshotsCompleted;
    summary.snapshotsDue = tracker.snapshotsTotal;
    summary.snapshotsIncomplete = tracker.snapshotsTotal - tracker.snapshotsCompleted;
    summary.aborted = options.signal?.aborted ?? false;
    summary.durationMs = clock.now() - started;
    await patiently('recording the pass', () =>
      finishSyncRun(options.store, syncRunId, {
        at: clock.now(),
        outcome: syncOutcome(summary),
        requests: summary.requests,
        metricRequests: summary.metricRequests,
        snapshotsCompleted: summary.snapshotsCompleted,
        error:
          (summary.errors.find((e) => e.kind === 'not_authorized') ?? summary.errors[0])?.message ?? null,
      }),
    );
    tracker.done();
  }
  return summary;
}

async function syncAccount(
  options: SyncOptions,
  account: SyncAccount,
  pass: {
    clock: Clock;
    tracker: ProgressTracker;
    onRequest: (account: string, event: RequestEvent) => void;
    summary: SyncSummary;
    stops: Set<AbortController>;
    shouldYield?: () => boolean;
  },
): Promise<AccountTurn> {
  const { clock, tracker, onRequest, summary, stops } = pass;
  /** Not this process's to record: another holds it, or this one gave it back part done. */
  let turn: AccountTurn = 'ran';
  const { store } = options;
  let storeFault: StoreFaultError | undefined;
  const budgetKey = budgetKeyFor(account);
  const log = (options.logger ?? silentLogger).child({ account: account.name });
  // Linked to the caller's signal; aborted on its own by a -4 so only this account stops.
  const controller = new AbortController();
  if (options.signal?.aborted) controller.abort(options.signal.reason);
  stops.add(controller);
  const patiently = <T>(step: string, run: () => Promise<T>) =>
    outlastingStoreOutages({ store, signal: controller.signal, log, step }, run);
  await patiently('starting the account', () =>
    upsertAccount(store, { name: account.name, baseUrl: account.base_url, budgetKey }),
  ).catch((error: unknown) => {
    stops.delete(controller);
    throw error;
  });

  const budget = accountBudget(account, { store, clock, budgetFor: options.budgetFor });
  const client = new ApiClient({
    ...options.client,
    baseUrl: account.base_url,
    apiKey: account.api_key,
    apiSecret: account.api_secret,
    budget,
    clock,
    timeoutMs: options.client?.timeoutMs ?? account.timeout_seconds * 1000,
    maxPayloadBytes: (options.settings.max_payload_mb ?? DEFAULT_MAX_PAYLOAD_MB) * 1024 * 1024,
    logger: log,
    onRequest: (event) => onRequest(account.name, event),
  });
  const ctx: AccountContext = {
    shouldYield: pass.shouldYield,
    store,
    client,
    account,
    settings: options.settings,
    clock,
    signal: controller.signal,
    stop: (reason) => controller.abort(reason),
    log,
    issues: [],
    goneSets: [],
  };
  tracker.addAccount(account.name, budget);
  let lease: AccountLease | undefined;
  try {
    lease = await patiently('taking the account lease', () =>
      holdAccountLease({
        store,
        account: account.name,
        clock,
        signal: controller.signal,
        log,
        onWait: options.onWait,
        waiting: () => tracker.settle(account.name),
        wait: !options.share,
        onLost: (message) => {
          ctx.issues.push({ account: account.name, kind: 'internal', message });
          controller.abort(new Error(message));
        },
      }),
    );
    if (!lease) {
      turn = 'held';
      return turn;
    }
    // The store is the checkpoint: after an outage the account plans again from what it holds, so
    // only the payloads whose answers were in flight when it went are asked for again.
    const { plan, fetched } = await patiently('fetching payloads', async () => {
      const sets = await discover(ctx);
      const plan = await planSnapshots(store, account.name, sets, options.settings, clock.now());
      tracker.addPlan(account.name, plan);
      log.debug({ sets: sets.length, due: plan.length }, 'planned');
      let left = plan.reduce((sum, snapshot) => sum + snapshot.endpoints.length, 0);
      try {
        const fetched = await fetchPlanned(ctx, plan, {
          onPayload: (snapshot, state) => {
            left--;
            tracker.payload(account.name, snapshot, state);
          },
        });
        return { plan, fetched };
      } catch (error) {
        // Planned again if the store comes back: what is left of this plan stops counting.
        tracker.dropPlanned(account.name, plan, left);
        throw error;
      }
    });
    if (fetched.yielded) {
      turn = 'yielded';
      log.info('another sync instance joined: giving this account back');
    }
    tracker.dropPlanned(
      account.name,
      plan.filter((snapshot) => ctx.goneSets.includes(snapshot.querySetId)),
    );
  } catch (error) {
    const fault = asStoreFault(error, store.location);
    if (fault instanceof StoreFaultError) {
      storeFault = fault;
      throw fault;
    }
    // -4 and aborts are already handled; anything else is a bug or a catalog call that failed.
    if (!stopOnNotAuthorized(ctx, error) && !controller.signal.aborted) {
      const kind: SyncIssue['kind'] = error instanceof Error && 'request' in error ? 'catalog' : 'internal';
      ctx.issues.push({
        account: account.name,
        kind,
        message: `account ${account.name}: ${errorMessage(error)}`,
      });
      log.error({ err: error }, 'account pass failed');
    }
  } finally {
    await lease?.release();
    stops.delete(controller);
    tracker.settle(account.name);
    await client.close().catch(() => {});
    const fatal = ctx.issues.find(
      (issue) => issue.kind !== 'invalid_payload' && issue.kind !== 'request_failed',
    );
    // On a store fault this write would fail the same way and hide the first error. An account
    // held elsewhere or given back part done is not synced by this pass: its row says so by not
    // moving (share-accounts.ts reads it).
    if (!storeFault && turn === 'ran') {
      await patiently('recording the account pass', () =>
        recordAccountPass(store, account.name, clock.now(), fatal?.message ?? ctx.issues[0]?.message ?? null),
      );
    }
    summary.errors.push(...ctx.issues);
    summary.goneSets.push(...ctx.goneSets.map((querySetId) => ({ account: account.name, querySetId })));
  }
  return turn;
}
