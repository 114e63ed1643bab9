import { type SyncSummary, syncOutcome } from '../../sync/types.js';
import { afterSyncPass } from '../after-pass.js';
import type { Scheduler } from '../scheduler.js';
import type { RoleContext } from './context.js';

/**
 * The sync role: the `sync` job on `sync.schedule` (and at start). After each pass it does what
 * `reportd sync` does after its pass (daemon/after-pass.ts): incidents, the `trigger: new_run` reports
 * for runs the pass stored, the alerts; whatever process runs the worker role sends them.
 */
export function addSyncRole(
  ctx: RoleContext,
  scheduler: Scheduler,
  sync: (signal: AbortSignal) => Promise<SyncSummary>,
): void {
  const { config, metrics } = ctx;
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
      const after = await afterSyncPass(ctx, summary, signal);
      if (after.notices) ctx.kick();
      if (signal.aborted) throw signal.reason;
      if (after.reports + after.alerts > 0) ctx.kick();
      if (outcome === 'failed') throw new Error(summary.errors[0]?.message ?? 'sync pass failed');
    },
  });
}
