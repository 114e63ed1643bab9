import type { Config } from '../config/index.js';
import { isRecipientDestination, readerLabel, recipientOf } from '../config/recipient-names.js';
import { enqueueDue, latestRuns } from '../delivery/due.js';
import type { Outbox } from '../delivery/outbox-worker.js';
import { DeliveryFailedError, InterruptedError, UsageError } from '../errors/index.js';
import { awaitOtherAttempt } from '../outbox/await-outcome.js';
import { makeDueNow } from '../outbox/deliveries.js';
import { coveredRuns } from '../outbox/digest-rows.js';
import { getDelivery } from '../outbox/reads.js';
import { listRecipients, type Recipient, summary } from '../outbox/recipients.js';
import { type Delivery, EMAIL_DESTINATION, type EnqueueResult } from '../outbox/row.js';
import { printable } from '../printable.js';
import { scrub } from '../secrets.js';
import type { Store } from '../store/sql.js';

/**
 * `reportd deliver --report NAME` sending now: the report's newest complete runs queued, each row
 * claimed by id and sent, one line for each (who got it, who did not), or the outcome of another
 * process that holds the row.
 */

type Report = Config['reports'][number];

/** What sending one row needs; `wait`: seconds to wait for another process's outcome (`--wait`). */
interface Sending {
  outbox: Outbox;
  store: Store;
  report: Report;
  wait: number;
  signal: AbortSignal;
}

/** Enqueues the newest complete runs of `report` and sends each now; throws when one was not sent. */
export async function deliverNow(
  outbox: Outbox,
  store: Store,
  report: Report,
  config: Config,
  flags: { force?: boolean; wait: number },
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
  const sending: Sending = { outbox, store, report, wait: flags.wait, signal };
  for (const result of results) {
    const problem = await sendRow(sending, result);
    if (problem !== undefined) problems.push(problem);
  }
  // Interrupted after everything was sent (a signal during the last SMTP answer): nothing is owed.
  if (signal.aborted && problems.length) throw new InterruptedError(problems.join('; '), signal.reason);
  if (problems.length) throw new DeliveryFailedError(problems.join('; '));
}

/** Sends one queued row now and says how it went: a line on stdout, or the problem it returns. */
async function sendRow(sending: Sending, queued: EnqueueResult): Promise<string | undefined> {
  const { outbox, store, report, signal } = sending;
  // Named by the row as it was queued; a failed row sent again is a new generation of the same run.
  const to = channelOf(report, queued.delivery.destination);
  const label = reportLabel(report.name, queued.delivery, report);
  if (signal.aborted) return `${label}: not sent (interrupted)`;
  const { delivery, created } = await sendFailedAgain(outbox, report.name, queued);
  if (!created && delivery.state === 'sent') {
    process.stdout.write(
      `already delivered: ${label} (sent ${new Date(delivery.sentAt ?? 0).toISOString()}); use --force to send again\n`,
    );
    return undefined;
  }
  const outcome = await claimAndSend(sending, delivery);
  const row = (await getDelivery(store, delivery.id))!;
  const who = recipientLine(await listRecipients(store, delivery.id));
  if (outcome?.result === 'sent' && to) {
    // A channel has one destination, already named in the label; its reply says what it did.
    const reply = outcome.recipients?.[0]?.reply;
    process.stdout.write(`sent: ${label} (${row.messageId}${reply ? `; ${printable(scrub(reply))}` : ''})\n`);
  } else if (outcome?.result === 'sent') {
    process.stdout.write(
      `sent: ${label} to ${who.got || 'nobody'} (${row.messageId})${who.missed ? `; ${printable(scrub(who.missed))}` : ''}\n`,
    );
  } else if (!outcome) {
    // Someone alive holds it (a daemon, another `deliver`): its outcome is this command's answer.
    return otherProcessOutcome(sending, { row, label, to });
  } else if (outcome.result === 'released') {
    return `${label}: not sent (interrupted); released for the next \`reportd deliver\` or the daemon`;
  } else {
    const got = who.got ? `sent to ${who.got}; ` : '';
    const later = row.state === 'pending' ? '; the daemon will retry' : '';
    return `${label}: ${got}${who.missed || row.lastError || outcome.result}${later}`;
  }
  return undefined;
}

/** How often, and how long apart, a claim missed on a row nobody took is tried again. */
const CLAIM_TRIES = 50;
const CLAIM_RETRY_MS = 100;

/**
 * Makes the row due now and claims and sends it; undefined when another live process holds it. A
 * miss on a row still pending with no new attempt is not a holder: on PostgreSQL a worker of another
 * process that is choosing its next row reads candidates `FOR UPDATE SKIP LOCKED`, which hides the row
 * from this claim until that worker's transaction ends (a few milliseconds), whether or not it takes
 * it. Said as "held" at that moment, the row would be reported unsent while nobody was sending it.
 */
async function claimAndSend({ outbox, store, signal }: Sending, delivery: Delivery) {
  for (let tries = 1; ; tries++) {
    await makeDueNow(store, delivery.id, Date.now());
    const outcome = await outbox.runOnce(signal, delivery.id);
    if (outcome || tries >= CLAIM_TRIES || signal.aborted) return outcome;
    const row = await getDelivery(store, delivery.id);
    if (row?.state !== 'pending' || row.attempts !== delivery.attempts) return undefined;
    await new Promise((resolve) => setTimeout(resolve, CLAIM_RETRY_MS));
  }
}

/** Only a `sent` run counts as delivered: a failed one is queued again (forced) as a new generation. */
async function sendFailedAgain(
  outbox: Outbox,
  report: string,
  queued: EnqueueResult,
): Promise<EnqueueResult> {
  const { delivery, created } = queued;
  if (created || delivery.state !== 'failed') return queued;
  const digestRuns = coveredRuns(delivery);
  if (digestRuns) {
    return outbox.enqueueDigest(report, digestRuns, { force: true, destination: delivery.destination });
  }
  return outbox.enqueue(
    {
      report,
      destination: delivery.destination,
      querySetId: delivery.querySetId,
      runId: delivery.runId,
      account: delivery.account,
    },
    { force: true },
  );
}

/**
 * The row is held by another live process: waits up to `--wait` for its outcome and says it (a line
 * when it sent, else the problem returned).
 */
async function otherProcessOutcome(
  { store, wait, signal }: Sending,
  { row, label, to }: { row: Delivery; label: string; to: string },
): Promise<string | undefined> {
  if (wait > 0) {
    process.stderr.write(
      `reportd: ${label}: being delivered by another process; waiting up to ${wait} s for its outcome\n`,
    );
  }
  const settled = await awaitOtherAttempt(store, row.id, wait * 1000, signal);
  const other = settled ? recipientLine(await listRecipients(store, row.id)) : undefined;
  if (settled?.state === 'sent') {
    const whom = to ? '' : ` to ${other?.got || 'nobody'}`;
    process.stdout.write(`sent by another process: ${label}${whom} (${settled.messageId})\n`);
    return undefined;
  }
  if (settled) {
    const later = settled.state === 'pending' ? '; it stays queued for the daemon or the next run' : '';
    return `${label}: not sent by the other process delivering it (${settled.state}: ${other?.missed || settled.lastError || 'released'})${later}`;
  }
  const waited = wait > 0 ? ` (still in progress after ${wait} s of --wait)` : '';
  return `${label}: being delivered by another process (${row.state}, claimed by ${row.claimedBy}); not sent by this command${waited}`;
}

/**
 * A report row as `deliver` names it: its set and run, or a digest's sets and runs (its own
 * `querySetId`/`runId` are placeholders), and the channel unless it is the email row.
 */
export function reportLabel(
  name: string,
  delivery: Delivery,
  report?: Pick<Report, 'name' | 'recipients'>,
): string {
  // A reader's row is named by its reader (and channel), never by its opaque `recipient:<id>`.
  const reader = readerLabel(report, delivery.destination);
  const to = reader
    ? ` for ${printable(reader)}${channelOf(report, delivery.destination)}`
    : delivery.destination === EMAIL_DESTINATION
      ? ''
      : ` to channel ${delivery.destination}`;
  const digestRuns = coveredRuns(delivery);
  return digestRuns
    ? `report ${name}, digest of ${digestRuns.map((r) => `query set ${r.querySetId} run ${r.runId}`).join(', ')}${to}`
    : `report ${name}, query set ${delivery.querySetId}, run ${delivery.runId}${to}`;
}

/** "a@x, b@x" that got it, and who did not with the server's words. */
function recipientLine(recipients: readonly Recipient[]): { got: string; missed: string } {
  const got = recipients
    .filter((r) => r.state === 'accepted')
    .map((r) => r.recipient)
    .join(', ');
  return { got, missed: summary(recipients) ?? '' };
}

/** ` to channel NAME` for a row bound for a channel (a reader's row: theirs), empty for email. */
function channelOf(report: Pick<Report, 'name' | 'recipients'> | undefined, destination: string): string {
  if (destination === EMAIL_DESTINATION) return '';
  if (!isRecipientDestination(destination)) return ` to channel ${destination}`;
  const channel = recipientOf(report, destination)?.channel;
  return channel === undefined ? '' : ` to channel ${channel}`;
}
