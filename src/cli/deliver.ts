import { type Command, Option } from 'commander';
import type { Config } from '../config/index.js';
import type { Mailer } from '../delivery/destinations/smtp-mailer.js';
import type { Outbox } from '../delivery/outbox-worker.js';
import { DeliveryFailedError, UsageError } from '../errors/index.js';
import type { Logger } from '../log.js';
import type { Delivery } from '../outbox/row.js';
import { printable } from '../printable.js';
import { scrub } from '../secrets.js';
import type { Store } from '../store/sql.js';
import { type ConfigOptions, configOption } from './options.js';

interface DeliverFlags extends ConfigOptions {
  report?: string;
  pending?: boolean;
  force?: boolean;
  eml?: string;
  dryRun?: boolean;
  wait: number;
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
    .summary('render and email a report now for the latest complete run of its query sets')
    .description(
      'Renders and emails a report now, for the newest complete run of each of its query sets, through the ' +
        'same outbox as the daemon. A run already sent is reported and skipped; a failed one is sent again. ' +
        'Says who got it and who did not (`sent: … to a@x; refused: b@x (550 …)`); a recipient the server ' +
        'deferred (4xx) is named and retried by the daemon. Ctrl+C (or SIGTERM) stops the render in hand and ' +
        "hands its row back (exit 130 / 143); a run killed harder leaves a claim this host's next `deliver` " +
        'or daemon takes over at once.',
    )
    .addOption(configOption)
    .option('--report <name>', 'the report (reports[].name in the config); required unless --pending')
    .addOption(
      new Option(
        '--pending',
        'send whatever the outbox holds that is due (reports and alerts), print one line each and exit: ' +
          'for installs that run `reportd sync` from cron instead of the daemon',
      ).conflicts(['report', 'force', 'eml']),
    )
    .option('--force', 'send again even if this run was already delivered')
    .addOption(
      new Option(
        '--wait <seconds>',
        'when another process is delivering the same run, wait this long for its outcome and report it (0: do not wait)',
      )
        .argParser(waitSeconds)
        .default(60),
    )
    .addOption(
      new Option(
        '--eml <file>',
        'write the email, attachments included, to this .eml file instead of sending it, and print its ' +
          'path: no SMTP connection, nothing queued or marked delivered; with several query sets, one file ' +
          'each (`x.eml` becomes `x-<set id>.eml`)',
      ).conflicts('force'),
    )
    .addOption(
      new Option(
        '--dry-run',
        'print the payload each destination (email, Slack, Teams, webhook) would get, as JSON; nothing sent or queued',
      ).conflicts(['force', 'eml']),
    )
    .action((flags: DeliverFlags) => deliverCommand(flags));
}

/** `deliver` itself: --pending, --eml and --dry-run go their own ways; else the report is sent now. */
async function deliverCommand(flags: DeliverFlags): Promise<void> {
  // Loaded here, not at the top: `reportd --help` declares every command and must not load them.
  const { loadConfig } = await import('../config/load.js');
  const config = loadConfig(flags.config);
  if (flags.pending) return deliverPending(config);
  if (flags.report === undefined)
    throw new UsageError('give --report NAME, or --pending to send what is queued');
  const report = config.reports.find((r) => r.name === flags.report);
  if (!report) {
    const names = config.reports.map((r) => r.name).join(', ') || 'none';
    throw new UsageError(`no report named "${flags.report}" in ${flags.config} (reports: ${names})`);
  }
  if (flags.eml !== undefined) {
    if (!report.email) throw new UsageError(`report "${report.name}" has no email section (try --dry-run)`);
    const { previewEml } = await import('./deliver-preview.js');
    return previewEml(config, report, flags.eml);
  }
  if (flags.dryRun) return (await import('./deliver-preview.js')).printDryRun(config, report);
  if (report.email && !config.smtp) throw new UsageError(`smtp is not configured in ${flags.config}`);
  // The report's rows are claimed by id (`runOnce`): nothing else due is sent by this command.
  const { deliverNow } = await import('./deliver-now.js');
  return throughOutbox(config, (outbox, store, signal) =>
    deliverNow(outbox, store, report, config, flags, signal),
  );
}

/**
 * `reportd deliver --pending`: drains the outbox once (report and alert rows that are due), prints one
 * line per row, and exits; non-zero when a row was not sent (it stays queued or failed, see `history`).
 */
async function deliverPending(config: Config): Promise<void> {
  if (!config.smtp) throw new UsageError('smtp is not configured');
  // Its claims, like the daemon's, are the rows this config's reports, alerts and notices can send,
  // failure notices the last `reportd sync` queued (daemon/after-pass.ts) included.
  const [{ getDelivery }, pendingLabel, { IncidentWatch }, { systemClock }] = await Promise.all([
    import('../outbox/reads.js'),
    pendingLabeller(config),
    import('../notify/watch.js'),
    import('../clock.js'),
  ]);
  return throughOutbox(config, async (outbox, store, signal, logger) => {
    const outcomes = await outbox.drain(signal);
    // As the daemon's worker does after each drain: a row that just failed for good opens its
    // incident (one that went out clears it), and the notice goes out in this same run, so a cron
    // install that only runs `deliver --pending` hears of failures as a daemon's operators do.
    const watch = new IncidentWatch({ config, store, clock: systemClock, logger });
    if (await watch.reconcileDeliveries()) outcomes.push(...(await outbox.drain(signal)));
    const problems: string[] = [];
    let noticesSent = 0;
    for (const outcome of outcomes) {
      const row = (await getDelivery(store, outcome.id))!;
      const label = pendingLabel(row);
      // Notices are counted, not listed: their text is in the message, their rows in `history`.
      if (outcome.result === 'sent' && row.kind === 'notice') noticesSent++;
      // Sent to some, refused by others for good: said as `deliver --report` says it. The refusals
      // quote the SMTP server's replies, untrusted text for the terminal.
      else if (outcome.result === 'sent')
        process.stdout.write(
          `sent: ${label} (${row.messageId})${outcome.error ? `; ${printable(scrub(outcome.error))}` : ''}\n`,
        );
      else problems.push(`${label}: ${outcome.error ?? row.lastError ?? outcome.result}`);
    }
    if (noticesSent > 0) process.stdout.write(`sent: ${noticesSent} failure notice(s)\n`);
    if (outcomes.length === 0) process.stdout.write('nothing due in the outbox\n');
    if (problems.length) throw new DeliveryFailedError(problems.join('; '));
  });
}

/**
 * Opens the store, the renderer, the mailer (when smtp is configured) and the outbox a sending
 * command sends through, runs `send` until done or interrupted (see `onInterrupt`), and closes them
 * all. A store that fails meanwhile is said as the store's fault.
 */
async function throughOutbox(
  config: Config,
  send: (outbox: Outbox, store: Store, signal: AbortSignal, logger: Logger) => Promise<void>,
): Promise<void> {
  const [
    { systemClock },
    { createSmtpMailer },
    { createReportRenderer },
    { createOutbox },
    { createLogger },
  ] = await Promise.all([
    import('../clock.js'),
    import('../delivery/destinations/smtp-mailer.js'),
    import('../delivery/render-delivery.js'),
    import('../delivery/runtime.js'),
    import('../log.js'),
  ]);
  const [{ openStore }, { asStoreFault }] = await Promise.all([
    import('../store/db.js'),
    import('../store/store-fault.js'),
  ]);
  const logger = createLogger({ level: config.log.level });
  const store = await openStore(config.store);
  const renderer = createReportRenderer({ config, store, clock: systemClock, logger, idleMs: 0 });
  const mailer = config.smtp ? createSmtpMailer(config.smtp) : noMailer;
  const outbox = createOutbox(config, {
    store,
    renderer,
    ...(config.smtp ? { mailer } : {}),
    logger,
  });
  const interrupt = onInterrupt();
  try {
    await send(outbox, store, interrupt.signal, logger);
  } catch (error) {
    throw asStoreFault(error, store.location);
  } finally {
    interrupt.dispose();
    await renderer.close();
    mailer.close();
    await store.close();
  }
}

/** How `deliver --pending` names a row: a report's or alert's set and run, a notice's incident and event. */
async function pendingLabeller(config: Config): Promise<(row: Delivery) => string> {
  const [{ noticeLabel }, { reportLabel }] = await Promise.all([
    import('../outbox/notices.js'),
    import('./deliver-now.js'),
  ]);
  return (row) => {
    if (row.kind === 'notice') return noticeLabel(row);
    if (row.kind === 'report')
      return reportLabel(
        row.report,
        row,
        config.reports.find((r) => r.name === row.report),
      );
    return `${row.kind} ${row.report}, query set ${row.querySetId}, run ${row.runId}`;
  };
}

/** `--wait`: whole or fractional seconds, at most an hour. */
function waitSeconds(text: string): number {
  const seconds = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(seconds <= 3600)) {
    throw new UsageError(`--wait takes seconds from 0 to 3600, not "${text}"`);
  }
  return seconds;
}

/** A report sent through channels only needs no SMTP server; an email row without one cannot exist. */
const noMailer: Mailer = { send: () => Promise.reject(new Error('smtp is not configured')), close() {} };

/**
 * The first SIGINT/SIGTERM aborts the work in hand: a render stops and its row is handed back (not
 * left claimed for a lease), an SMTP exchange in flight gets its answer and it is recorded. A second
 * signal exits at once; the row's claim then names a process that is gone, which the next run on
 * this host takes over immediately.
 */
function onInterrupt(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const handler = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(name === 'SIGTERM' ? 143 : 130);
    process.stderr.write(`reportd: ${name}: stopping after the step in hand (again to quit at once)\n`);
    controller.abort(name);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
