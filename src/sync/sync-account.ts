import { DEFAULT_MAX_PAYLOAD_MB } from '../api/bounded-json.js';
import type { RateBudget } from '../api/budget.js';
import { ApiClient, type RequestEvent } from '../api/client.js';
import type { Clock } from '../clock.js';
import { budgetKeyFor } from '../config/budget-key.js';
import { StoreFaultError } from '../errors/index.js';
import { type Logger, silentLogger } from '../log.js';
import { recordAccountPass, upsertAccount } from '../store/accounts.js';
import { asStoreFault } from '../store/store-fault.js';
import { accountBudget } from './account-budget.js';
import { type AccountLease, holdAccountLease } from './account-lease.js';
import { type AccountContext, errorMessage, stopOnNotAuthorized } from './context.js';
import { discover } from './discover.js';
import { fetchPlanned } from './fetch-snapshot.js';
import { planSnapshots } from './plan.js';
import type { ProgressTracker } from './progress.js';
import type { AccountTurn } from './share-accounts.js';
import { outlastingStoreOutages } from './store-outage.js';
import type { Patiently, SyncOptions } from './sync-options.js';
import type { SyncAccount, SyncIssue, SyncSummary } from './types.js';

/** What a pass lends each of its accounts. */
export interface AccountPass {
  clock: Clock;
  tracker: ProgressTracker;
  onRequest: (account: string, event: RequestEvent) => void;
  summary: SyncSummary;
  /** The pass's abort fan-out (sync.ts): the account's controller is in it while the account runs. */
  stops: Set<AbortController>;
  shouldYield?: () => boolean;
}

/**
 * One account's turn in a pass: takes its lease, fetches what is due, records the account's pass
 * and hands its issues and retired sets to the pass summary. Throws only a store fault.
 */
export async function syncAccount(
  options: SyncOptions,
  account: SyncAccount,
  pass: AccountPass,
): Promise<AccountTurn> {
  const { clock, tracker, summary, stops } = pass;
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
  const patiently: Patiently = (step, run) =>
    outlastingStoreOutages({ store, signal: controller.signal, log, step }, run);
  await patiently('starting the account', () =>
    upsertAccount(store, { name: account.name, baseUrl: account.base_url, budgetKey }),
  ).catch((error: unknown) => {
    stops.delete(controller);
    throw error;
  });

  const budget = accountBudget(account, { store, clock, budgetFor: options.budgetFor });
  const client = accountClient(options, account, { budget, clock, log, onRequest: pass.onRequest });
  const ctx = accountContext(options, account, {
    client,
    clock,
    controller,
    log,
    shouldYield: pass.shouldYield,
  });
  tracker.addAccount(account.name, budget);
  let lease: AccountLease | undefined;
  try {
    lease = await patiently('taking the account lease', () =>
      takeAccountLease(options, ctx, tracker, controller),
    );
    if (!lease) {
      turn = 'held';
      return turn;
    }
    // The store is the checkpoint: after an outage the account plans again from what it holds, so
    // only the payloads whose answers were in flight when it went are asked for again.
    const { plan, fetched } = await patiently('fetching payloads', () => fetchDue(ctx, tracker));
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
    reportAccountFailure(ctx, error);
  } finally {
    await lease?.release();
    stops.delete(controller);
    tracker.settle(account.name);
    await client.close().catch(() => {});
    // On a store fault this write would fail the same way and hide the first error. An account
    // held elsewhere or given back part done is not synced by this pass: its row says so by not
    // moving (share-accounts.ts reads it).
    await closeAccountPass(ctx, summary, !storeFault && turn === 'ran', patiently);
  }
  return turn;
}

/** What the account's fetches share; `stop` aborts this account alone (a -4). */
function accountContext(
  options: SyncOptions,
  account: SyncAccount,
  parts: Pick<AccountContext, 'client' | 'clock' | 'log' | 'shouldYield'> & { controller: AbortController },
): AccountContext {
  const { controller } = parts;
  return {
    shouldYield: parts.shouldYield,
    store: options.store,
    client: parts.client,
    account,
    settings: options.settings,
    clock: parts.clock,
    signal: controller.signal,
    stop: (reason) => controller.abort(reason),
    log: parts.log,
    issues: [],
    goneSets: [],
  };
}

/** The account's API client: its credentials and timeout, the pass's payload limit and request count. */
function accountClient(
  options: SyncOptions,
  account: SyncAccount,
  parts: { budget: RateBudget; clock: Clock; log: Logger; onRequest: AccountPass['onRequest'] },
): ApiClient {
  return new ApiClient({
    ...options.client,
    baseUrl: account.base_url,
    apiKey: account.api_key,
    apiSecret: account.api_secret,
    budget: parts.budget,
    clock: parts.clock,
    timeoutMs: options.client?.timeoutMs ?? account.timeout_seconds * 1000,
    maxPayloadBytes: (options.settings.max_payload_mb ?? DEFAULT_MAX_PAYLOAD_MB) * 1024 * 1024,
    logger: parts.log,
    onRequest: (event) => parts.onRequest(account.name, event),
  });
}

/**
 * The account lease, or undefined when another process holds it and this pass shares the accounts
 * (a pass without a share waits for it). A lease lost mid-turn is an issue and stops the account.
 */
function takeAccountLease(
  options: SyncOptions,
  ctx: AccountContext,
  tracker: ProgressTracker,
  controller: AbortController,
): Promise<AccountLease | undefined> {
  const { account } = ctx;
  return holdAccountLease({
    store: ctx.store,
    account: account.name,
    clock: ctx.clock,
    signal: controller.signal,
    log: ctx.log,
    onWait: options.onWait,
    waiting: () => tracker.settle(account.name),
    wait: !options.share,
    onLost: (message) => {
      ctx.issues.push({ account: account.name, kind: 'internal', message });
      controller.abort(new Error(message));
    },
  });
}

/** Discovers the account's sets, plans the snapshots due and fetches their payloads. */
async function fetchDue(ctx: AccountContext, tracker: ProgressTracker) {
  const { account, log } = ctx;
  const sets = await discover(ctx);
  const plan = await planSnapshots(ctx.store, account.name, sets, ctx.settings, ctx.clock.now());
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
}

/** What ended the account's turn early, as an issue of the pass. */
function reportAccountFailure(ctx: AccountContext, error: unknown): void {
  // -4 and aborts are already handled; anything else is a bug or a catalog call that failed.
  if (stopOnNotAuthorized(ctx, error) || ctx.signal.aborted) return;
  const kind: SyncIssue['kind'] = error instanceof Error && 'request' in error ? 'catalog' : 'internal';
  ctx.issues.push({
    account: ctx.account.name,
    kind,
    message: `account ${ctx.account.name}: ${errorMessage(error)}`,
  });
  ctx.log.error({ err: error }, 'account pass failed');
}

/** Records the account's pass (when `record`: it ran here) and hands its issues to the pass summary. */
async function closeAccountPass(
  ctx: AccountContext,
  summary: SyncSummary,
  record: boolean,
  patiently: Patiently,
): Promise<void> {
  const { account, issues } = ctx;
  const fatal = issues.find((issue) => issue.kind !== 'invalid_payload' && issue.kind !== 'request_failed');
  if (record) {
    await patiently('recording the account pass', () =>
      recordAccountPass(
        ctx.store,
        account.name,
        ctx.clock.now(),
        fatal?.message ?? issues[0]?.message ?? null,
      ),
    );
  }
  summary.errors.push(...issues);
  summary.goneSets.push(...ctx.goneSets.map((querySetId) => ({ account: account.name, querySetId })));
}
