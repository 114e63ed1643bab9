import { runAlertPass } from '../../alerts/run-alerts.js';
import { lifecycleState } from '../../schedule/lifecycle.js';
import { type SyncSummary, syncOutcome } from '../../sync/types.js';
import { enqueueNewRuns } from '../new-runs.js';
import type { Scheduler } from '../scheduler.js';
import type { RoleContext } from './context.js';

/**
 * The sync role: the `sync` job on `sync.schedule` (and at start). After each pass it enqueues the
 * `trigger: new_run` reports for runs the pass stored and evaluates the alerts, so whatever process
 * runs the worker role sends them.
 */
export function addSyncRole(
  ctx: RoleContext,
  scheduler: Scheduler,
  sync: (signal: AbortSignal) => Promise<SyncSummary>,
): void {
  const { config, store, clock, logger, metrics, outbox, watch } = ctx;
  // Paused reports are left out entirely: they never fire, whatever the store remembers of them.
  const newRunReports = config.reports.filter((r) => r.enabled && r.trigger === 'new_run');
  scheduler.add({
    name: 'sync',
    cron: config.sync.schedule,
    timezone: 'UTC',
    runAtStart: true,
    role: 'sync',
    async run({ signal }) {
      const problem = ctx.storeProblem();
      if (problem) throw new Error(problem);
      // Requests are counted by onRequest as they happen: a second count from the summary here
      // used to add every request of later passes again as "unclassified".
      const summary = await sync(signal);
      const outcome = syncOutcome(summary);
      metrics.syncPasses.inc({ outcome });
      if (await watch.afterSyncPass(summary, outcome)) ctx.kick();
      if (signal.aborted) throw signal.reason;
      let queued = 0;
      for (const report of newRunReports) {
        if (lifecycleState(report, 'UTC', clock.now()) !== 'active') continue;
        const results = await enqueueNewRuns(outbox, store, report, config.accounts);
        queued += results.filter((r) => r.created).length;
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
      queued += alerted.filter((r) => r.created).length;
      if (queued > 0) ctx.kick();
      if (outcome === 'failed') throw new Error(summary.errors[0]?.message ?? 'sync pass failed');
    },
  });
}
