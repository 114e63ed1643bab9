import { enqueueDue } from '../../delivery/due.js';
import type { Scheduler } from '../scheduler.js';
import type { RoleContext } from './context.js';

/**
 * The scheduler role: one job per enabled report with a cron, which enqueues the report's due
 * deliveries (one outbox row per destination and run; enqueue is idempotent, so two schedulers on one
 * store enqueue a slot once) and wakes this process's worker, if it has one.
 */
export function addReportSchedules(ctx: RoleContext, scheduler: Scheduler): void {
  const { config, store, logger, outbox, clock } = ctx;
  // Paused reports are left out entirely: they never fire, whatever the store remembers of them.
  for (const report of config.reports.filter((r) => r.enabled)) {
    if (!report.schedule) continue;
    scheduler.add({
      name: `report:${report.name}`,
      cron: report.schedule.cron,
      timezone: report.schedule.timezone,
      lifecycle: report,
      role: 'scheduler',
      // An enqueue fails only when the store does: the slot is tried again when it is back.
      retryOnError: true,
      async run() {
        const problem = ctx.storeProblem();
        if (problem) throw new Error(problem);
        // A run skipped by `require_likely_change` is recorded at the slot's time, on the daemon's clock.
        const results = await enqueueDue(outbox, store, report, config.accounts, { now: clock.now() });
        const fresh = results.filter((r) => r.created).length;
        logger.info(
          { report: report.name, queued: fresh, alreadyDelivered: results.length - fresh },
          'report due',
        );
        if (fresh > 0) ctx.kick();
      },
    });
  }
}
