import type { RequestEvent } from '../api/client.js';
import { type Clock, systemClock } from '../clock.js';
import { silentLogger } from '../log.js';
import { getAccount } from '../store/accounts.js';
import { asStoreFault } from '../store/store-fault.js';
import { finishSyncRun, startSyncRun } from '../store/sync-runs.js';
import { accountLeaseHeld } from './account-lease-rows.js';
import { errorMessage, isStoreFault } from './context.js';
import { ProgressTracker } from './progress.js';
import { type AccountTurn, shareAccounts } from './share-accounts.js';
import { outlastingStoreOutages } from './store-outage.js';
import { syncAccount } from './sync-account.js';
import type { Patiently, SyncOptions } from './sync-options.js';
import { emptySyncSummary, type SyncAccount, type SyncSummary, syncOutcome } from './types.js';

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

type AccountTurnRunner = (account: SyncAccount, shouldYield?: () => boolean) => Promise<AccountTurn>;

async function runPass(options: SyncOptions): Promise<SyncSummary> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  // The pass's own bookkeeping rides out a PostgreSQL restart too (store-outage.ts).
  const patiently: Patiently = (step, run) =>
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
  const onRequest = countingRequests(options, summary, tracker);
  // One listener on the caller's signal for the whole pass, fanning out to the accounts: one per
  // account made Node warn (MaxListenersExceededWarning) past 10 accounts.
  const stops = new Set<AbortController>();
  const onOuterAbort = () => {
    for (const controller of stops) controller.abort(options.signal?.reason);
  };
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const turn: AccountTurnRunner = (account, shouldYield) =>
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
    await runTurns(options, { clock, started, patiently }, turn);
  } finally {
    options.signal?.removeEventListener('abort', onOuterAbort);
    await finishPass(options, { summary, tracker, clock, started, syncRunId, patiently });
  }
  return summary;
}

/** Counts every HTTP attempt of the pass in its summary and progress, and hands it to the caller. */
function countingRequests(options: SyncOptions, summary: SyncSummary, tracker: ProgressTracker) {
  return (account: string, event: RequestEvent) => {
    options.onRequest?.({ ...event, account });
    summary.requests++;
    if (!event.endpoint.startsWith('catalog.')) summary.metricRequests++;
    if (event.outcome === 'rate_limited') summary.rateLimited++;
    tracker.request();
  };
}

/**
 * Every account's turn: a share of them at a time when daemons share the accounts (an account
 * synced or held by another since the pass started is skipped), else all at once.
 */
async function runTurns(
  options: SyncOptions,
  pass: { clock: Clock; started: number; patiently: Patiently },
  turn: AccountTurnRunner,
): Promise<void> {
  const { clock, started, patiently } = pass;
  if (!options.share) {
    await Promise.all(options.accounts.map((account) => turn(account)));
    return;
  }
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
}

/** Closes the summary's figures and records the pass in sync_runs, however it ended. */
async function finishPass(
  options: SyncOptions,
  pass: {
    summary: SyncSummary;
    tracker: ProgressTracker;
    clock: Clock;
    started: number;
    syncRunId: number;
    patiently: Patiently;
  },
): Promise<void> {
  const { summary, tracker, clock } = pass;
  summary.snapshotsCompleted = tracker.snapshotsCompleted;
  summary.completedRuns = [...tracker.completedRuns];
  summary.snapshotsDue = tracker.snapshotsTotal;
  summary.snapshotsIncomplete = tracker.snapshotsTotal - tracker.snapshotsCompleted;
  summary.aborted = options.signal?.aborted ?? false;
  summary.durationMs = clock.now() - pass.started;
  await pass.patiently('recording the pass', () =>
    finishSyncRun(options.store, pass.syncRunId, {
      at: clock.now(),
      outcome: syncOutcome(summary),
      requests: summary.requests,
      metricRequests: summary.metricRequests,
      snapshotsCompleted: summary.snapshotsCompleted,
      error: (summary.errors.find((e) => e.kind === 'not_authorized') ?? summary.errors[0])?.message ?? null,
    }),
  );
  tracker.done();
}
