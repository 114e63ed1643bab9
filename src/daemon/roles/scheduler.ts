import { RECIPIENT_ZONE, scheduleZones } from '../../config/recipient-schema.js';
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
    const { cron } = report.schedule;
    // `timezone: recipient`: one job per zone of the table, each enqueueing the rows of its zone at
    // their own 08:00 (three zones, three slots); the job's name keeps its slots apart in the store.
    const byReader = report.schedule.timezone === RECIPIENT_ZONE;
    for (const zone of scheduleZones(report)) {
      const name = byReader ? `report:${report.name}@${zone}` : `report:${report.name}`;
      scheduler.add({
        name,
        cron,
        timezone: zone,
        lifecycle: report,
        role: 'scheduler',
        // An enqueue fails only when the store does: the slot is tried again when it is back.
        retryOnError: true,
        async run() {
          const problem = ctx.storeProblem();
          if (problem) throw new Error(problem);
          const results = await enqueueDue(outbox, store, report, config.accounts, {
            // A run skipped by `require_likely_change` is recorded at the slot's time, on the daemon's clock.
            now: clock.now(),
            ...(byReader ? { zone } : {}),
          });
          const fresh = results.filter((r) => r.created).length;
          logger.info(
            {
              report: report.name,
              ...(byReader ? { zone } : {}),
              queued: fresh,
              alreadyDelivered: results.length - fresh,
            },
            'report due',
          );
          if (fresh > 0) ctx.kick();
        },
      });
    }
  }
}
