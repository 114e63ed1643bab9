import type { Command } from 'commander';
import { systemClock } from '../clock.js';
import { loadConfig } from '../config/load.js';
import { enqueueLatest } from '../delivery/due.js';
import { createSmtpMailer } from '../delivery/email.js';
import { Outbox } from '../delivery/outbox.js';
import { createReportRenderer } from '../delivery/render-delivery.js';
import { ReportdError, UsageError } from '../errors/index.js';
import { createLogger } from '../log.js';
import { openStore } from '../store/db.js';
import { getDelivery, makeDueNow } from '../store/deliveries.js';
import { type ConfigOptions, configOption } from './options.js';

interface DeliverFlags extends ConfigOptions {
  report: string;
  force?: boolean;
}

/** A delivery this command could not complete; the row stays for the daemon to retry when transient. */
export class DeliveryFailedError extends ReportdError {
  override name = 'DeliveryFailedError' as const;
}

/**
 * `reportd deliver --report NAME`: renders and emails the report for the newest complete run of each
 * of its query sets, now, through the same outbox as the daemon. A run already delivered is reported
 * and skipped (exit 0); `--force` sends it again. A failed earlier attempt is sent again without it.
 */
export function register(program: Command): void {
  program
    .command('deliver')
    .description('render and email a report now for the latest complete run of its query sets')
    .addOption(configOption)
    .requiredOption('--report <name>', 'the report (reports[].name in the config)')
    .option('--force', 'send again even if this run was already delivered')
    .action(async (flags: DeliverFlags) => {
      const config = loadConfig(flags.config);
      const report = config.reports.find((r) => r.name === flags.report);
      if (!report) {
        const names = config.reports.map((r) => r.name).join(', ') || 'none';
        throw new UsageError(`no report named "${flags.report}" in ${flags.config} (reports: ${names})`);
      }
      if (!config.smtp) throw new UsageError(`smtp is not configured in ${flags.config}`);
      const logger = createLogger({ level: config.log.level });
      const store = openStore(config.store.path);
      const renderer = createReportRenderer({ config, store, clock: systemClock, logger, idleMs: 0 });
      const mailer = createSmtpMailer(config.smtp);
      const outbox = new Outbox({
        store,
        renderer,
        mailer,
        from: config.smtp.from,
        reports: config.reports,
        templatesDir: config.templates.dir,
        logger,
      });
      try {
        const results = enqueueLatest(outbox, store, report, config.accounts, { force: flags.force });
        if (results.length === 0) {
          throw new UsageError(
            `no complete snapshot of report "${report.name}"'s query sets is stored (run \`reportd sync\` first)`,
          );
        }
        const problems: string[] = [];
        for (let { delivery, created } of results) {
          const label = `report ${report.name}, query set ${delivery.query_set_id}, run ${delivery.run_id}`;
          // Only a `sent` run counts as delivered: a failed one is sent again as a new generation.
          if (!created && delivery.state === 'failed') {
            ({ delivery, created } = outbox.enqueue(
              {
                report: report.name,
                querySetId: delivery.query_set_id,
                runId: delivery.run_id,
                account: delivery.account,
              },
              { force: true },
            ));
          }
          if (!created && delivery.state === 'sent') {
            process.stdout.write(
              `already delivered: ${label} (sent ${new Date(delivery.sent_at ?? 0).toISOString()}); use --force to send again\n`,
            );
            continue;
          }
          makeDueNow(store, delivery.id, Date.now());
          const outcome = await outbox.runOnce(undefined, delivery.id);
          const row = getDelivery(store, delivery.id)!;
          if (outcome?.result === 'sent') {
            process.stdout.write(`sent: ${label} to ${report.email.to.join(', ')} (${row.message_id})\n`);
          } else if (!outcome) {
            process.stdout.write(
              `in progress elsewhere: ${label} (${row.state}, claimed by ${row.claimed_by})\n`,
            );
          } else {
            const later = row.state === 'pending' ? '; the daemon will retry it' : '';
            problems.push(`${label}: ${row.last_error ?? outcome.result}${later}`);
          }
        }
        if (problems.length) throw new DeliveryFailedError(problems.join('; '));
      } finally {
        await renderer.close();
        mailer.close();
        store.close();
      }
    });
}
