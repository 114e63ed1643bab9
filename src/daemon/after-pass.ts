import { runAlertPass } from '../alerts/run-alerts.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import type { Outbox } from '../delivery/outbox-worker.js';
import { checkStoredRuns } from '../insight/stored-figure-checks.js';
import type { Logger } from '../log.js';
import type { IncidentWatch } from '../notify/watch.js';
import { lifecycleState } from '../schedule/lifecycle.js';
import type { Store } from '../store/sql.js';
import { type SyncSummary, syncOutcome } from '../sync/types.js';
import { enqueueNewRuns } from './new-runs.js';

export interface AfterPassDeps {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Enqueues the `trigger: new_run` reports (only enqueues: sending is whoever drains it). */
  outbox: Outbox;
  watch: IncidentWatch;
}

export interface AfterPassResult {
  /** Rows newly queued: `trigger: new_run` reports, then alerts. */
  reports: number;
  alerts: number;
  /** Whether an incident opened or cleared, so a failure notice may be queued. */
  notices: boolean;
}

/**
 * What follows every sync pass, wherever it ran: the incidents the pass opens or clears (a refused
 * credential, a set gone, the sync failing `after_failed_syncs` passes in a row), the `trigger:
 * new_run` reports for runs it stored, and the alerts on them. The daemon's sync role and `reportd
 * sync` both call this, so a cron install (`reportd sync` + `reportd deliver --pending`) queues what
 * the daemon would.
 */
export async function afterSyncPass(
  deps: AfterPassDeps,
  summary: SyncSummary,
  signal?: AbortSignal,
): Promise<AfterPassResult> {
  const { config, store, clock, logger, outbox, watch } = deps;
  const notices = await watch.afterSyncPass(summary, syncOutcome(summary));
  // Said once per pass, before anything is made of them: figures the service sent that cannot be.
  await checkStoredRuns(store, summary.completedRuns, logger);
  if (signal?.aborted) return { reports: 0, alerts: 0, notices };
  let reports = 0;
  // Paused reports are left out entirely: they never fire, whatever the store remembers of them.
  for (const report of config.reports) {
    if (!report.enabled || report.trigger !== 'new_run') continue;
    if (lifecycleState(report, 'UTC', clock.now()) !== 'active') continue;
    const results = await enqueueNewRuns(outbox, store, report, config.accounts);
    reports += results.filter((r) => r.created).length;
  }
  // Alerts read what this pass stored; a failed pass may still have stored new runs.
  const alerted = await runAlertPass({
    store,
    alerts: config.alerts,
    accounts: config.accounts,
    from: config.smtp?.from ?? 'reportd',
    now: clock.now(),
    logger,
  });
  return { reports, alerts: alerted.filter((r) => r.created).length, notices };
}
