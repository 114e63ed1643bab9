import type { RateBudget } from '../api/budget.js';
import { isReportable, type SnapshotState } from '../store/snapshot-state.js';
import type { PlannedSnapshot } from './plan.js';
import type { CompletedRun, SyncProgress } from './types.js';

/**
 * Counts what the pass has done across accounts and turns it into progress events. The ETA comes from
 * the budgets, not from the speed so far: the window, not the network, is what bounds a backfill.
 */
export class ProgressTracker {
  snapshotsTotal = 0;
  snapshotsCompleted = 0;
  /** The runs whose snapshots became complete in this pass, in the order they did. */
  readonly completedRuns: CompletedRun[] = [];
  private payloadsTotal = 0;
  private payloadsDone = 0;
  private requests = 0;
  private planned = false;
  private currentPhase: SyncProgress['phase'] = 'discover';
  private lastAccount = '';
  /** Payloads still to fetch per budget (accounts sharing an API key share one window). */
  private readonly remaining = new Map<RateBudget, number>();
  private readonly budgetOf = new Map<string, RateBudget>();
  /** Snapshots counted complete already, so a duplicate event cannot count one twice. */
  private readonly completed = new Set<string>();
  /** The last ETA computed, and events left before it is computed again (see `emit`). */
  private lastEta: number | null = null;
  private etaStale = 0;

  /**
   * Accounts of the pass that have neither planned nor ended. Until none is left the pass is still
   * discovering: a 'fetch' event before then would show the totals of the accounts that planned
   * first (100 accounts: 204 payloads, then 600), so the first line a user reads would be wrong.
   */
  private readonly unplanned: Set<string>;

  constructor(
    private readonly listener?: (progress: SyncProgress) => void,
    accounts: readonly string[] = [],
  ) {
    this.unplanned = new Set(accounts);
  }

  addAccount(account: string, budget: RateBudget): void {
    this.budgetOf.set(account, budget);
    if (!this.remaining.has(budget)) this.remaining.set(budget, 0);
    this.phase('discover', account);
  }

  phase(phase: SyncProgress['phase'], account: string): void {
    this.currentPhase = phase;
    this.lastAccount = account;
    this.emit();
  }

  addPlan(account: string, plan: readonly PlannedSnapshot[]): void {
    this.planned = true;
    this.snapshotsTotal += plan.length;
    const payloads = plan.reduce((sum, snapshot) => sum + snapshot.endpoints.length, 0);
    this.payloadsTotal += payloads;
    this.adjust(account, payloads);
    this.unplanned.delete(account);
    this.phase('fetch', account);
  }

  /**
   * The account adds nothing more to the totals for now: it ended (even without a plan: -4, a
   * catalog failure) or waits for another process that syncs it (its plan, if it comes, adds then).
   */
  settle(account: string): void {
    if (this.unplanned.delete(account) && this.unplanned.size === 0) this.emit();
  }

  /**
   * Snapshots of a set that went away (-132) mid-pass are no longer due; nor is what was left of a
   * plan the account reads again from the store after an outage (`payloadsLeft` of it unfetched).
   */
  dropPlanned(account: string, snapshots: readonly PlannedSnapshot[], payloadsLeft = 0): void {
    for (const snapshot of snapshots) {
      if (this.completed.has(`${account}/${snapshot.querySetId}/${snapshot.run.id}`)) continue;
      this.snapshotsTotal--;
    }
    this.payloadsTotal -= payloadsLeft;
    this.adjust(account, -payloadsLeft);
    this.emit();
  }

  request(): void {
    this.requests++;
    this.emit();
  }

  payload(account: string, snapshot: PlannedSnapshot, state: SnapshotState | undefined): void {
    this.payloadsDone++;
    this.adjust(account, -1);
    const id = `${account}/${snapshot.querySetId}/${snapshot.run.id}`;
    // A settled snapshot is done too: reportable, and nothing more will be fetched for it.
    if (isReportable(state) && !this.completed.has(id)) {
      this.completed.add(id);
      this.snapshotsCompleted++;
      this.completedRuns.push({ account, querySetId: snapshot.querySetId, runId: snapshot.run.id });
    }
    this.lastAccount = account;
    this.emit();
  }

  done(): void {
    this.currentPhase = 'done';
    this.emit();
  }

  /**
   * Least time the budgets allow for what is left, from each budget's actual window (when its counted
   * requests leave it), so the ETA counts down as time passes and requests are made. Whole windows
   * (`ceil(left / requests) × window`) would stay frozen at one value for a whole window. Budgets run
   * in parallel, so the slowest decides.
   */
  etaMs(): number | null {
    if (!this.planned) return null;
    let eta = 0;
    for (const [budget, left] of this.remaining) {
      // Payloads in flight are not done yet but their requests have started: only the rest waits.
      const toStart = Math.max(0, left - budget.inFlightCount);
      eta = Math.max(eta, budget.timeToStartMs(toStart));
    }
    return eta;
  }

  private adjust(account: string, delta: number): void {
    const budget = this.budgetOf.get(account);
    if (budget) this.remaining.set(budget, Math.max(0, (this.remaining.get(budget) ?? 0) + delta));
  }

  private emit(): void {
    if (!this.listener) return;
    // The ETA walks every budget; on every request and payload that is O(accounts²) over a pass (200
    // accounts: millions of walks). Up to 31 budgets it is exact on every event; beyond, it is
    // recomputed every budgets/16 events, which still moves several times a second.
    if (this.etaStale-- <= 0 || this.currentPhase === 'done' || !this.planned) {
      this.lastEta = this.etaMs();
      this.etaStale = Math.floor(this.remaining.size / 16);
    }
    this.listener({
      phase: this.currentPhase === 'fetch' && this.unplanned.size > 0 ? 'discover' : this.currentPhase,
      account: this.lastAccount,
      snapshotsDone: this.snapshotsCompleted,
      snapshotsTotal: this.snapshotsTotal,
      payloadsDone: this.payloadsDone,
      payloadsTotal: this.payloadsTotal,
      requests: this.requests,
      etaMs: this.lastEta,
    });
  }
}
