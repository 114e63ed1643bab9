import { backoffCeiling } from '../api/retry-timing.js';
import { type Clock, systemClock } from '../clock.js';
import { isRecipientDestination, recipientDestination, recipientOf } from '../config/recipient-names.js';
import { type Logger, silentLogger } from '../log.js';
import { type ClaimScope, claimScope } from '../outbox/claim-scope.js';
import {
  claimNextDelivery,
  expireGoneClaims,
  failExhausted,
  markFailed,
  markRetry,
  markSending,
  renewLease,
} from '../outbox/deliveries.js';
import { type CoveredRun, enqueueDigest } from '../outbox/digest-rows.js';
import { enqueueDelivery } from '../outbox/enqueue.js';
import { envelopeRecipients } from '../outbox/envelope.js';
import { type LeaseHeartbeat, startLeaseHeartbeat } from '../outbox/lease-heartbeat.js';
import { nextDeliveryDue } from '../outbox/reads.js';
import { ensureRecipients, type RecipientOutcome, unsettledRecipients } from '../outbox/recipients.js';
import { recordAnswer } from '../outbox/record-answer.js';
import { type Delivery, type DeliveryKey, EMAIL_DESTINATION, type EnqueueResult } from '../outbox/row.js';
import { digestRowId, runRowId } from '../outbox/row-ids.js';
import { type Fence, staleWrite } from '../queue/fence.js';
import { isHolderGone, holderName as workerName } from '../queue/holder.js';
import { scrub } from '../secrets.js';
import type { Composer, DeliveryMessage } from './compose/message.js';
import type { Destination } from './destinations/types.js';
import { type ComposerKind, composerKind, composersFor, destinationsFor } from './handlers.js';
import {
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_HOLD_MS,
  type DeliveryOutcome,
  type OutboxOptions,
} from './outbox-options.js';

/**
 * The outbox worker: claim one due row, compose its message (compose/, by kind), mark `sending`, hand
 * it to its destination (destinations/: SMTP or a channel) for the recipients still owed it, record
 * each recipient's answer (record-answer.ts; never a resend).
 *
 * Exactly-once, honestly: SMTP has no idempotency key, so one window cannot be closed, the moments
 * between the server's "250 OK" and our `sent` commit. Everywhere else a crash is safe:
 * - crash while rendering (row `rendering`): nothing left the process; its heartbeat stops, the short
 *   lease runs out (about `leaseMs` later) and the row is claimed again. This is the "kill -9 between
 *   claim and send" case: exactly one message arrives, about one lease late.
 * - a long render: the heartbeat (lease-heartbeat.ts) renews the lease every `leaseMs / 3` while this
 *   worker holds the row, so a render may outlast the lease without anyone taking the row over.
 * - a second worker: claims are one conditional UPDATE (`changes === 1`), and `rendering → sending`
 *   re-checks ownership, so a worker that lost its lease (paused past it) never reaches SMTP.
 * - a worker paused past its lease once `sending`: its first renewal after it resumes finds the row
 *   another's and aborts the attempt where it stands (`LeaseHeartbeat.lost`): an SMTP connection is
 *   closed before the message's end, a channel request not yet sent is not sent. Only what had already
 *   left it (DATA at the server, a request at the receiver) can arrive twice.
 * - a holder on this host that is gone (kill -9): its claim is expired at once (queue/holder.ts).
 * - per recipient: accepted ones are done, 4xx-deferred ones are retried alone with the same
 *   Message-ID, 5xx-refused ones are named (delivery_recipients, migration 4).
 * - crash inside the SMTP exchange (row `sending`, lease expired): we choose **never lose** over
 *   never-duplicate. The row is claimed again and resent with the *same* Message-ID, which receiving
 *   systems (and people) can use to drop the copy. A missing board report is worse than a duplicate
 *   one; the window is kept small by rendering and composing before the row enters `sending`.
 */

export class Outbox {
  readonly worker: string;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly leaseMs: number;
  private readonly sendLeaseMs: number;
  private readonly maxHoldMs: number;
  private readonly maxAttempts: number;
  private readonly backoff: { baseMs: number; capMs: number };
  /** The rows this outbox claims: those its reports, alerts and channels can build and send. */
  readonly scope: ClaimScope;
  /** The composer of each kind of row (compose/): adding a kind means one new composer. */
  private readonly composers: Readonly<Record<ComposerKind, Composer>>;
  /** `email` and each configured channel's destination (destinations/), by destination name. */
  private readonly destinations: ReadonlyMap<string, Destination>;

  constructor(private readonly options: OutboxOptions) {
    this.scope = claimScope(options);
    this.worker = options.worker ?? workerName();
    this.clock = options.clock ?? systemClock;
    this.logger = (options.logger ?? silentLogger).child({ component: 'outbox', worker: this.worker });
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.sendLeaseMs = options.sendLeaseMs ?? this.leaseMs;
    this.maxHoldMs = options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS;
    this.maxAttempts = options.maxAttempts ?? 8;
    this.backoff = options.backoff ?? { baseMs: 30_000, capMs: 30 * 60_000 };
    this.composers = composersFor(options);
    this.destinations = destinationsFor(options, this.clock);
  }

  /** Every destination of a report: `email` when it has an email section, then its channels. */
  destinationsOf(reportName: string): string[] {
    const report = this.options.reports.find((r) => r.name === reportName);
    if (!report) return [EMAIL_DESTINATION];
    if (report.recipients) return report.recipients.map(recipientDestination);
    return [...(report.email ? [EMAIL_DESTINATION] : []), ...(report.channels ?? [])];
  }

  /**
   * One row per destination of the report for (set, run): each destination is settled, retried and
   * failed on its own, so a Slack outage retries Slack and never resends the email.
   */
  async enqueueAll(
    key: Omit<DeliveryKey, 'destination'>,
    options: { force?: boolean } = {},
  ): Promise<EnqueueResult[]> {
    // One after the other, in the order of destinationsOf (email first), as callers list them.
    const results: EnqueueResult[] = [];
    for (const destination of this.destinationsOf(key.report)) {
      results.push(await this.enqueue({ ...key, destination }, options));
    }
    return results;
  }

  /** Adds the row of one destination (`email` unless `key.destination` says otherwise). */
  enqueue(key: DeliveryKey, options: { force?: boolean } = {}): Promise<EnqueueResult> {
    const destination = key.destination ?? EMAIL_DESTINATION;
    return enqueueDelivery(this.options.store, { ...key, destination }, this.clock.now(), {
      ...options,
      messageIdFor: runRowId(
        { ...key, destination },
        this.options.from,
        this.emailRecipientsOf(key.report, destination),
        this.sendsEmail(key.report, destination),
      ),
    });
  }

  /**
   * The envelope recipients of a report's email (none without an email section): part of its ids.
   * A reader's row adds its destination, so two rows of one address never share an id.
   */
  private emailRecipientsOf(report: string, destination: string): string[] {
    const entry = this.options.reports.find((r) => r.name === report);
    const row = recipientOf(entry, destination);
    if (row) return [destination, ...envelopeRecipients({ to: row.email ? [row.email] : [], cc: row.cc })];
    return entry?.email ? envelopeRecipients(entry.email) : [];
  }

  /** Whether the row goes by email (`email`, or a reader's row with an address). */
  private sendsEmail(report: string, destination: string): boolean {
    if (destination === EMAIL_DESTINATION) return true;
    return (
      recipientOf(
        this.options.reports.find((r) => r.name === report),
        destination,
      )?.email !== undefined
    );
  }

  /** The digest rows for `report` covering exactly `runs`, one per destination of the report. */
  async enqueueDigestAll(
    report: string,
    runs: readonly CoveredRun[],
    options: { force?: boolean } = {},
  ): Promise<EnqueueResult[]> {
    const results: EnqueueResult[] = [];
    for (const destination of this.destinationsOf(report)) {
      results.push(await this.enqueueDigest(report, runs, { ...options, destination }));
    }
    return results;
  }

  /** The digest row of one destination (`email` by default) covering exactly `runs` (outbox/digest-rows.ts). */
  enqueueDigest(
    report: string,
    runs: readonly CoveredRun[],
    options: { force?: boolean; destination?: string } = {},
  ): Promise<EnqueueResult> {
    const destination = options.destination ?? EMAIL_DESTINATION;
    return enqueueDigest(this.options.store, report, runs, this.clock.now(), {
      ...options,
      destination,
      messageIdFor: digestRowId(
        report,
        destination,
        this.options.from,
        this.emailRecipientsOf(report, destination),
        this.sendsEmail(report, destination),
      ),
    });
  }

  /** Where a row goes: its destination by name, or for a reader's row the row's email or channel. */
  private destinationOf(row: Delivery): Destination | undefined {
    if (!isRecipientDestination(row.destination)) return this.destinations.get(row.destination);
    const reader = recipientOf(
      this.options.reports.find((r) => r.name === row.report),
      row.destination,
    );
    if (!reader) return undefined;
    return this.destinations.get(reader.channel ?? EMAIL_DESTINATION);
  }

  /** The scope less the reports held for now (`OutboxOptions.held`). */
  private async scopeNow(): Promise<ClaimScope> {
    const held = await this.options.held?.();
    if (!held || held.size === 0) return this.scope;
    return this.scope.filter((target) => target.kind !== 'report' || !held.has(target.name));
  }

  /** When the next row becomes claimable (retry time or lease end), for the worker's sleep. */
  async nextDueAt(): Promise<number | undefined> {
    return nextDeliveryDue(this.options.store, await this.scopeNow());
  }

  /** Processes due rows until none is left; returns what happened to each. */
  async drain(signal?: AbortSignal): Promise<DeliveryOutcome[]> {
    const outcomes: DeliveryOutcome[] = [];
    while (!signal?.aborted) {
      const outcome = await this.runOnce(signal);
      if (!outcome) break;
      outcomes.push(outcome);
    }
    return outcomes;
  }

  /** Claims and processes one due row (only row `id` when given); undefined when nothing is due. */
  async runOnce(signal?: AbortSignal, id?: number): Promise<DeliveryOutcome | undefined> {
    const { store } = this.options;
    const scope = await this.scopeNow();
    const exhausted = await failExhausted(store, this.clock.now(), this.maxAttempts, scope);
    if (exhausted > 0) this.logger.error({ count: exhausted }, 'deliveries failed after using every attempt');
    // A holder on this host that no longer exists (kill -9, a second Ctrl+C) will never finish its
    // row: take it over now rather than one lease later.
    const gone = await expireGoneClaims(store, this.clock.now(), isHolderGone);
    if (gone > 0) this.logger.warn({ count: gone }, 'taking over deliveries held by a process that is gone');
    const claimed = await claimNextDelivery(store, {
      worker: this.worker,
      now: this.clock.now(),
      leaseMs: this.leaseMs,
      maxAttempts: this.maxAttempts,
      scope,
      id,
    });
    if (!claimed) return undefined;
    const row = claimed.delivery;
    const log = this.logger.child({
      delivery: row.id,
      report: row.report,
      destination: row.destination,
      querySetId: row.querySetId,
      runId: row.runId,
      attempt: row.attempts,
    });
    if (claimed.recoveredFrom === 'sending') {
      log.warn(
        { messageId: row.messageId },
        row.destination === EMAIL_DESTINATION
          ? 'an earlier attempt stopped during SMTP; sending again with the same Message-ID (receivers may see a duplicate)'
          : `an earlier attempt stopped while posting to ${row.destination}; trying again with the same delivery id`,
      );
    } else if (claimed.recoveredFrom === 'rendering') {
      log.warn('an earlier attempt stopped before sending; taking the delivery over');
    }
    const heartbeat = startLeaseHeartbeat({
      store,
      clock: this.clock,
      logger: log,
      fence: fenceOf(row),
      leaseMs: this.leaseMs,
      sendLeaseMs: this.sendLeaseMs,
      maxHoldMs: this.maxHoldMs,
    });
    let outcome: DeliveryOutcome;
    try {
      outcome = await this.process(row, log, heartbeat, signal);
    } finally {
      // Every way out (sent, retry, failed, lost, released, or a throw) ends the renewals.
      heartbeat.stop();
    }
    this.options.onOutcome?.(outcome);
    return outcome;
  }

  /**
   * compose → (shutdown, lost) → mark `sending` → deliver → record the answers, every write fenced by
   * this claim's token. The kind is the composer's business, the channel the destination's.
   */
  private async process(
    row: Delivery,
    log: Logger,
    heartbeat: LeaseHeartbeat,
    signal?: AbortSignal,
  ): Promise<DeliveryOutcome> {
    const base = { id: row.id, report: row.report, destination: row.destination };
    const composer = this.composers[composerKind(row)];
    const destination = this.destinationOf(row);
    // Shutdown and the heartbeat giving up both end a render; they are told apart below.
    const renderSignal = signal ? AbortSignal.any([signal, heartbeat.signal]) : heartbeat.signal;
    const context = {
      store: this.options.store,
      clock: this.clock,
      hasDestination: destination !== undefined,
      signal: renderSignal,
    };
    let composed = await composer(row, context);
    let recipients: string[] = [];
    if ('message' in composed && destination) {
      try {
        // The destination's own spelling (an email's templates) is part of building the message.
        recipients = await destination.recipients(composed.message, row);
      } catch (error) {
        composed = { renderFailed: (error as Error).message, renderMs: composed.message.renderMs };
      }
    }
    if ('unbuildable' in composed) return this.unbuildable(row, composed.unbuildable, log);
    if ('renderFailed' in composed) {
      const { renderMs } = composed;
      if (signal?.aborted) return this.releaseOnShutdown(row, base);
      // Another worker owns the row now: it settles it, this one must not touch it.
      if (heartbeat.gaveUp === 'lost') return { ...base, result: 'lost', renderMs };
      // Rendering problems (a Chromium crash, a timeout, the hold cap) are worth a few more tries.
      return this.retryOrFail(row, `render failed: ${composed.renderFailed}`, log, renderMs);
    }
    const { message } = composed;
    const { renderMs } = message;
    if (renderMs !== undefined && signal?.aborted) return this.releaseOnShutdown(row, base, renderMs);
    if (!destination)
      throw new Error(`unreachable: a message for "${row.destination}" without its destination`);
    return this.deliver(row, message, destination, recipients, log, heartbeat.lost);
  }

  /**
   * Shutting down before anything was sent: the row goes back due now, untouched by backoff and
   * without spending an attempt's worth of delay, for this or another worker to take.
   */
  private async releaseOnShutdown<T extends object>(
    row: Delivery,
    base: T,
    renderMs?: number,
  ): Promise<T & { result: 'released'; renderMs?: number }> {
    const now = this.clock.now();
    if (!(await markRetry(this.options.store, fenceOf(row), now, 'interrupted by shutdown', now)))
      staleWrite(this.logger.child({ delivery: row.id }), 'release the row on shutdown');
    return { ...base, result: 'released', ...(renderMs === undefined ? {} : { renderMs }) };
  }

  /** Marks `sending`, hands the message to its destination for the recipients still owed it, records the answers. */
  private async deliver(
    row: Delivery,
    message: DeliveryMessage,
    destination: Destination,
    recipients: string[],
    log: Logger,
    lost: AbortSignal,
  ): Promise<DeliveryOutcome> {
    const { store } = this.options;
    const { renderMs } = message;
    const base = { id: row.id, report: row.report, destination: row.destination };
    await ensureRecipients(store, row.id, recipients, this.clock.now());
    const owed = await unsettledRecipients(store, row.id);
    if (!(await markSending(store, fenceOf(row), this.clock.now(), this.sendLeaseMs))) {
      staleWrite(log, 'mark the row sending, so it does not send');
      return { ...base, result: 'lost', renderMs };
    }
    const stillMine = () =>
      renewLease(store, {
        ...fenceOf(row),
        now: this.clock.now(),
        leaseMs: this.leaseMs,
        sendLeaseMs: this.sendLeaseMs,
      });
    const answer = await destination.deliver(message, { row, owed, log, stillMine, signal: lost });
    // Taken over mid-attempt: the new owner settles the row, and whatever this attempt got (an abort,
    // or an answer to a request already out) is not this worker's to record.
    if (lost.aborted) return { ...base, result: 'lost', renderMs };
    if ('transient' in answer) return this.retryOrFail(row, answer.transient, log, renderMs);
    // The provider's Retry-After is a floor under our own backoff, never a way to retry sooner.
    const retryAt =
      row.attempts >= this.maxAttempts
        ? null
        : this.clock.now() +
          Math.max(backoffCeiling(row.attempts - 1, this.backoff), answer.retryAfterMs ?? 0);
    return this.settle(row, answer.outcomes, retryAt, log, renderMs);
  }

  private settle(
    row: Delivery,
    outcomes: RecipientOutcome[],
    retryAt: number | null,
    log: Logger,
    renderMs?: number,
  ): Promise<DeliveryOutcome> {
    return recordAnswer({
      store: this.options.store,
      clock: this.clock,
      row,
      outcomes,
      retryAt,
      retryForMs: this.options.recordRetryMs ?? 120_000,
      log,
    }).then((answer) => ({
      id: row.id,
      report: row.report,
      destination: row.destination,
      renderMs,
      ...answer,
    }));
  }

  /**
   * The row's message cannot be built (its report, alert, channel or incident left): it fails for
   * good, named in `history`, instead of being retried into the same answer.
   */
  private async unbuildable(row: Delivery, error: string, log: Logger): Promise<DeliveryOutcome> {
    await this.fail(row, error, log);
    log.error({ error }, 'delivery failed');
    return { id: row.id, report: row.report, destination: row.destination, result: 'failed', error };
  }

  /** → failed under this claim's token; a stale worker's failure is logged and changes nothing. */
  private async fail(row: Delivery, error: string, log: Logger): Promise<void> {
    if (!(await markFailed(this.options.store, fenceOf(row), this.clock.now(), error)))
      staleWrite(log, 'mark the row failed');
  }

  private async retryOrFail(
    row: Delivery,
    rawReason: string,
    log: Logger,
    renderMs?: number,
  ): Promise<DeliveryOutcome> {
    // A render error's message can quote anything; the outcome goes to callers (metrics, `deliver`),
    // not only to the store (whose writers scrub too).
    const reason = scrub(rawReason);
    const now = this.clock.now();
    const base = { id: row.id, report: row.report, destination: row.destination, renderMs };
    if (row.attempts >= this.maxAttempts) {
      const error = `gave up after ${row.attempts} attempts: ${reason}`;
      await this.fail(row, error, log);
      log.error({ error }, 'delivery failed');
      return { ...base, result: 'failed', error };
    }
    const nextAt = now + backoffCeiling(row.attempts - 1, this.backoff);
    if (!(await markRetry(this.options.store, fenceOf(row), now, reason, nextAt))) {
      staleWrite(log, 'schedule a retry');
      return { ...base, result: 'lost' };
    }
    log.warn({ error: reason, retryAt: new Date(nextAt).toISOString() }, 'delivery will be retried');
    return { ...base, result: 'retry', error: reason };
  }
}

/** The claim a worker's writes to `row` name (the token its claim returned). */
export function fenceOf(row: Delivery): Fence {
  return { id: row.id, token: row.token ?? '' };
}
