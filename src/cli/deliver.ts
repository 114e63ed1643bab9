import { extname, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { systemClock } from '../clock.js';
import type { Config } from '../config/index.js';
import { loadConfig } from '../config/load.js';
import { enqueueLatest, type LatestRun, latestRuns } from '../delivery/due.js';
import { createSmtpMailer } from '../delivery/email.js';
import { writeReportEml } from '../delivery/eml.js';
import { Outbox } from '../delivery/outbox.js';
import { createReportRenderer } from '../delivery/render-delivery.js';
import { ReportdError, UsageError } from '../errors/index.js';
import { createLogger } from '../log.js';
import { safeFileName } from '../report/file-names.js';
import { openStore } from '../store/db.js';
import { getDelivery, makeDueNow } from '../store/deliveries.js';
import { type ConfigOptions, configOption } from './options.js';

interface DeliverFlags extends ConfigOptions {
  report: string;
  force?: boolean;
  eml?: string;
}

/** A delivery this command could not complete; the row stays for the daemon to retry when transient. */
export class DeliveryFailedError extends ReportdError {
  override name = 'DeliveryFailedError' as const;
}

/**
 * `reportd deliver --report NAME`: renders and emails the report for the newest complete run of each
 * of its query sets, now, through the same outbox as the daemon. A run already delivered is reported
 * and skipped (exit 0); `--force` sends it again. A failed earlier attempt is sent again without it.
 * `--eml FILE` writes the message that would be sent to a file instead (see `previewEml`).
 */
export function register(program: Command): void {
  program
    .command('deliver')
    .description('render and email a report now for the latest complete run of its query sets')
    .addOption(configOption)
    .requiredOption('--report <name>', 'the report (reports[].name in the config)')
    .option('--force', 'send again even if this run was already delivered')
    .addOption(
      new Option(
        '--eml <file>',
        'write the email to this .eml file instead of sending it (no SMTP, nothing queued)',
      ).conflicts('force'),
    )
    .action(async (flags: DeliverFlags) => {
      const config = loadConfig(flags.config);
      const report = config.reports.find((r) => r.name === flags.report);
      if (!report) {
        const names = config.reports.map((r) => r.name).join(', ') || 'none';
        throw new UsageError(`no report named "${flags.report}" in ${flags.config} (reports: ${names})`);
      }
      if (flags.eml !== undefined) return previewEml(config, report, flags.eml);
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

/**
 * `deliver --eml FILE`: the message a delivery of each of the report's newest complete runs would
 * send, rendered by the same renderer and composer, written to FILE (one set) or FILE-<set>.eml
 * (several), and the paths printed. Never connects to the smtp server (it need not be up) and never
 * reads or writes an outbox row, so a later real delivery of the same run is unaffected.
 */
async function previewEml(config: Config, report: Config['reports'][number], file: string): Promise<void> {
  const logger = createLogger({ level: config.log.level });
  const store = openStore(config.store.path);
  const renderer = createReportRenderer({ config, store, clock: systemClock, logger, idleMs: 0 });
  try {
    const runs = latestRuns(store, report, config.accounts);
    if (runs.length === 0) {
      throw new UsageError(
        `no complete snapshot of report "${report.name}"'s query sets is stored (run \`reportd sync\` first)`,
      );
    }
    for (const run of runs) {
      const path = await writeReportEml({
        config,
        store,
        report: report.name,
        querySetId: run.querySetId,
        runId: run.runId,
        account: run.account,
        file: runs.length === 1 ? file : emlFileFor(file, run, runs),
        renderer,
        logger,
      });
      process.stdout.write(`${resolve(path)}\n`);
    }
  } finally {
    await renderer.close();
    store.close();
  }
}

/** `preview.eml` → `preview-102.eml` (with the account too when two accounts share the set id). */
function emlFileFor(file: string, run: LatestRun, runs: readonly LatestRun[]): string {
  const ext = extname(file);
  const stem = ext ? file.slice(0, -ext.length) : file;
  const shared = runs.filter((r) => r.querySetId === run.querySetId).length > 1;
  const suffix = shared ? `${safeFileName([run.account])}-${run.querySetId}` : `${run.querySetId}`;
  return `${stem}-${suffix}${ext || '.eml'}`;
}
