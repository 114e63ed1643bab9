import { extname, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { systemClock } from '../clock.js';
import type { Config } from '../config/index.js';
import { loadConfig } from '../config/load.js';
import { awaitOtherAttempt } from '../delivery/await-outcome.js';
import { channelSenders } from '../delivery/channels/index.js';
import { dryRunPayloads } from '../delivery/dry-run.js';
import { enqueueDue, type LatestRun, latestRuns } from '../delivery/due.js';
import { createSmtpMailer, type Mailer } from '../delivery/email.js';
import { writeDigestEml, writeReportEml } from '../delivery/eml.js';
import type { Outbox } from '../delivery/outbox.js';
import { createReportRenderer } from '../delivery/render-delivery.js';
import { createOutbox } from '../delivery/runtime.js';
import { DeliveryFailedError, InterruptedError, UsageError } from '../errors/index.js';
import { createLogger } from '../log.js';
import { printable } from '../printable.js';
import { safeFileName } from '../report/file-names.js';
import { scrub } from '../secrets.js';
import { openStore, type Store } from '../store/db.js';
import { type Delivery, EMAIL_DESTINATION, getDelivery, makeDueNow } from '../store/deliveries.js';
import { listRecipients, type Recipient, summary } from '../store/delivery-recipients.js';
import { coveredRuns } from '../store/digest-deliveries.js';
import { noticeLabel } from '../store/incidents.js';
import { asStoreFault } from '../store/store-fault.js';
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
    .action(async (flags: DeliverFlags) => {
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
        if (!report.email)
          throw new UsageError(`report "${report.name}" has no email section (try --dry-run)`);
        return previewEml(config, report, flags.eml);
      }
      if (flags.dryRun) return printDryRun(config, report);
      if (report.email && !config.smtp) throw new UsageError(`smtp is not configured in ${flags.config}`);
      const logger = createLogger({ level: config.log.level });
      const store = await openStore(config.store);
      const renderer = createReportRenderer({ config, store, clock: systemClock, logger, idleMs: 0 });
      const mailer = config.smtp ? createSmtpMailer(config.smtp) : noMailer;
      // The report's rows are claimed by id (`runOnce`): nothing else due is sent by this command.
      const outbox = createOutbox(config, {
        store,
        renderer,
        ...(config.smtp ? { mailer } : {}),
        logger,
      });
      const interrupt = onInterrupt();
      try {
        await deliverNow(outbox, store, report, config, flags, interrupt.signal);
      } catch (error) {
        throw asStoreFault(error, store.location);
      } finally {
        interrupt.dispose();
        await renderer.close();
        mailer.close();
        await store.close();
      }
    });
}

/**
 * `reportd deliver --pending`: drains the outbox once (report and alert rows that are due), prints one
 * line per row, and exits; non-zero when a row was not sent (it stays queued or failed, see `history`).
 */
async function deliverPending(config: Config): Promise<void> {
  if (!config.smtp) throw new UsageError('smtp is not configured');
  const logger = createLogger({ level: config.log.level });
  const store = await openStore(config.store);
  const renderer = createReportRenderer({ config, store, clock: systemClock, logger, idleMs: 0 });
  const mailer = createSmtpMailer(config.smtp);
  // Its claims, like the daemon's, are the rows this config's reports, alerts and notices can send,
  // failure notices the last `reportd sync` queued (daemon/after-pass.ts) included.
  const outbox = createOutbox(config, { store, renderer, mailer, logger });
  const interrupt = onInterrupt();
  try {
    const outcomes = await outbox.drain(interrupt.signal);
    const problems: string[] = [];
    let noticesSent = 0;
    for (const outcome of outcomes) {
      const row = (await getDelivery(store, outcome.id))!;
      const label = pendingLabel(row);
      // Notices are counted, not listed: their text is in the message, their rows in `history`.
      if (outcome.result === 'sent' && row.kind === 'notice') noticesSent++;
      else if (outcome.result === 'sent') process.stdout.write(`sent: ${label} (${row.messageId})\n`);
      else problems.push(`${label}: ${outcome.error ?? row.lastError ?? outcome.result}`);
    }
    if (noticesSent > 0) process.stdout.write(`sent: ${noticesSent} failure notice(s)\n`);
    if (outcomes.length === 0) process.stdout.write('nothing due in the outbox\n');
    if (problems.length) throw new DeliveryFailedError(problems.join('; '));
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
function pendingLabel(row: Delivery): string {
  if (row.kind === 'notice') return noticeLabel(row);
  if (row.kind === 'report') return reportLabel(row.report, row);
  return `${row.kind} ${row.report}, query set ${row.querySetId}, run ${row.runId}`;
}

/**
 * A report row as `deliver` names it: its set and run, or a digest's sets and runs (its own
 * `querySetId`/`runId` are placeholders), and the channel unless it is the email row.
 */
function reportLabel(name: string, delivery: Delivery): string {
  const to = delivery.destination === EMAIL_DESTINATION ? '' : ` to channel ${delivery.destination}`;
  const digestRuns = coveredRuns(delivery);
  return digestRuns
    ? `report ${name}, digest of ${digestRuns.map((r) => `query set ${r.querySetId} run ${r.runId}`).join(', ')}${to}`
    : `report ${name}, query set ${delivery.querySetId}, run ${delivery.runId}${to}`;
}

/** Enqueues the newest complete runs of `report` and sends each now; throws when one was not sent. */
async function deliverNow(
  outbox: Outbox,
  store: Store,
  report: Config['reports'][number],
  config: Config,
  flags: DeliverFlags,
  signal: AbortSignal,
): Promise<void> {
  const skipped: string[] = [];
  const results = await enqueueDue(outbox, store, report, config.accounts, { force: flags.force, skipped });
  // `require_likely_change`: a quiet run is left unsent on purpose, and `history` says so too.
  for (const line of skipped)
    process.stdout.write(
      `skipped: report ${report.name}, ${printable(line)}; use --force to send it anyway\n`,
    );
  if (results.length === 0 && skipped.length > 0) return;
  if (results.length === 0 && (await latestRuns(store, report, config.accounts)).length > 0) {
    // A digest with nothing new whose exact runs were never one message (they went out per set).
    process.stdout.write(
      `already delivered: report ${report.name} has no run it has not emailed; use --force to send again\n`,
    );
    return;
  }
  if (results.length === 0) {
    throw new UsageError(
      `no complete snapshot of report "${report.name}"'s query sets is stored (run \`reportd sync\` first)`,
    );
  }
  const problems: string[] = [];
  for (let { delivery, created } of results) {
    const to = delivery.destination === EMAIL_DESTINATION ? '' : ` to channel ${delivery.destination}`;
    const digestRuns = coveredRuns(delivery);
    const label = reportLabel(report.name, delivery);
    if (signal.aborted) {
      problems.push(`${label}: not sent (interrupted)`);
      continue;
    }
    // Only a `sent` run counts as delivered: a failed one is sent again as a new generation.
    if (!created && delivery.state === 'failed' && digestRuns) {
      ({ delivery, created } = await outbox.enqueueDigest(report.name, digestRuns, {
        force: true,
        destination: delivery.destination,
      }));
    } else if (!created && delivery.state === 'failed') {
      ({ delivery, created } = await outbox.enqueue(
        {
          report: report.name,
          destination: delivery.destination,
          querySetId: delivery.querySetId,
          runId: delivery.runId,
          account: delivery.account,
        },
        { force: true },
      ));
    }
    if (!created && delivery.state === 'sent') {
      process.stdout.write(
        `already delivered: ${label} (sent ${new Date(delivery.sentAt ?? 0).toISOString()}); use --force to send again\n`,
      );
      continue;
    }
    await makeDueNow(store, delivery.id, Date.now());
    const outcome = await outbox.runOnce(signal, delivery.id);
    const row = (await getDelivery(store, delivery.id))!;
    const who = recipientLine(await listRecipients(store, delivery.id));
    if (outcome?.result === 'sent' && to) {
      // A channel has one destination, already named in the label; its reply says what it did.
      const reply = outcome.recipients?.[0]?.reply;
      process.stdout.write(`sent: ${label} (${row.messageId}${reply ? `; ${scrub(reply)}` : ''})\n`);
    } else if (outcome?.result === 'sent') {
      process.stdout.write(
        `sent: ${label} to ${who.got || 'nobody'} (${row.messageId})${who.missed ? `; ${who.missed}` : ''}\n`,
      );
    } else if (!outcome) {
      // Someone alive holds it (a daemon, another `deliver`): its outcome is this command's answer.
      if (flags.wait > 0) {
        process.stderr.write(
          `reportd: ${label}: being delivered by another process; waiting up to ${flags.wait} s for its outcome\n`,
        );
      }
      const settled = await awaitOtherAttempt(store, delivery.id, flags.wait * 1000, signal);
      const other = settled ? recipientLine(await listRecipients(store, delivery.id)) : undefined;
      if (settled?.state === 'sent') {
        const whom = to ? '' : ` to ${other?.got || 'nobody'}`;
        process.stdout.write(`sent by another process: ${label}${whom} (${settled.messageId})\n`);
      } else if (settled) {
        const later = settled.state === 'pending' ? '; it stays queued for the daemon or the next run' : '';
        problems.push(
          `${label}: not sent by the other process delivering it (${settled.state}: ${other?.missed || settled.lastError || 'released'})${later}`,
        );
      } else {
        const waited = flags.wait > 0 ? ` (still in progress after ${flags.wait} s of --wait)` : '';
        problems.push(
          `${label}: being delivered by another process (${row.state}, claimed by ${row.claimedBy}); not sent by this command${waited}`,
        );
      }
    } else if (outcome.result === 'released') {
      problems.push(
        `${label}: not sent (interrupted); released for the next \`reportd deliver\` or the daemon`,
      );
    } else {
      const got = who.got ? `sent to ${who.got}; ` : '';
      const later = row.state === 'pending' ? '; the daemon will retry' : '';
      problems.push(`${label}: ${got}${who.missed || row.lastError || outcome.result}${later}`);
    }
  }
  // Interrupted after everything was sent (a signal during the last SMTP answer): nothing is owed.
  if (signal.aborted && problems.length) throw new InterruptedError(problems.join('; '), signal.reason);
  if (problems.length) throw new DeliveryFailedError(problems.join('; '));
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

/** `deliver --dry-run`: every destination's payload as one JSON array on stdout. */
async function printDryRun(config: Config, report: Config['reports'][number]): Promise<void> {
  const logger = createLogger({ level: config.log.level });
  const store = await openStore(config.store);
  const renderer = createReportRenderer({ config, store, clock: systemClock, logger, idleMs: 0 });
  try {
    const payloads = await dryRunPayloads({
      config,
      store,
      report,
      renderer,
      senders: channelSenders(config.channels),
      logger,
    });
    if (payloads.length === 0) {
      throw new UsageError(
        `no complete snapshot of report "${report.name}"'s query sets is stored (run \`reportd sync\` first)`,
      );
    }
    // Scrubbed like every other output: a webhook URL may carry a token in its query string.
    process.stdout.write(`${scrub(JSON.stringify(payloads, null, 2))}\n`);
  } finally {
    await renderer.close();
    await store.close();
  }
}

/** "a@x, b@x" that got it, and who did not with the server's words. */
function recipientLine(recipients: readonly Recipient[]): { got: string; missed: string } {
  const got = recipients
    .filter((r) => r.state === 'accepted')
    .map((r) => r.recipient)
    .join(', ');
  return { got, missed: summary(recipients) ?? '' };
}

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

/**
 * `deliver --eml FILE`: the message a delivery of each of the report's newest complete runs would
 * send, rendered by the same renderer and composer, written to FILE (one set) or FILE-<set>.eml
 * (several), and the paths printed. Never connects to the smtp server (it need not be up) and never
 * reads or writes an outbox row, so a later real delivery of the same run is unaffected.
 */
async function previewEml(config: Config, report: Config['reports'][number], file: string): Promise<void> {
  const logger = createLogger({ level: config.log.level });
  const store = await openStore(config.store);
  const renderer = createReportRenderer({ config, store, clock: systemClock, logger, idleMs: 0 });
  try {
    const runs = await latestRuns(store, report, config.accounts);
    if (runs.length === 0) {
      throw new UsageError(
        `no complete snapshot of report "${report.name}"'s query sets is stored (run \`reportd sync\` first)`,
      );
    }
    if (report.mode !== 'per_set') {
      // A digest is one message: one file, whatever the number of sets.
      const path = await writeDigestEml({ config, store, report: report.name, runs, file, renderer, logger });
      process.stdout.write(`${resolve(path)}\n`);
      return;
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
    await store.close();
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
