import { backoffCeiling } from '../api/retry-timing.js';
import type { Clock } from '../clock.js';
import type { ChannelNotice, ChannelSender } from '../delivery/channels/index.js';
import type { Mailer } from '../delivery/email.js';
import { classifySmtpError } from '../delivery/smtp-errors.js';
import type { Logger } from '../log.js';
import { holderName as workerName } from '../queue/holder.js';
import type { Store } from '../store/db.js';
import {
  claimNextNotice,
  finishNotice,
  getIncident,
  type Incident,
  type Notice,
  nextNoticeDue,
} from '../store/incidents.js';

/**
 * Sends the failure notices the incidents queued (table `notices`), on the same terms as report
 * deliveries: claimed with a lease so two daemons never both send one, retried with the outbox's
 * backoff when the server defers, given up on a permanent refusal or after MAX_ATTEMPTS. One row per
 * destination (migration 014): `email`, or a channel posted through its sender's `notice`. Plain text:
 * the text quotes API and SMTP replies, which must not become markup anywhere.
 */
const MAX_ATTEMPTS = 8;
const LEASE_MS = 5 * 60_000;
const BACKOFF = { baseMs: 30_000, capMs: 30 * 60_000 };

const TITLES: Record<Incident['kind'], (i: Incident) => string> = {
  delivery_failed: (i) => `report ${i.report ?? ''} could not be delivered`,
  credential_refused: (i) => `${i.key.slice('credential:'.length)}: API credential refused`,
  sync_failing: () => 'the sync keeps failing',
  set_gone: (i) => `query set ${i.key.split(':')[2] ?? ''} is gone`,
  store_unreachable: () => 'the store is unreachable',
};

/** What the texts read of a notice: the store's rows, or the store outage's notices built in memory. */
export type NoticeFields = Pick<Notice, 'kind' | 'createdAt' | 'recipients' | 'messageId' | 'attempts'>;

/** A header value from config names and ids: one line, no control characters. */
const headerSafe = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').slice(0, 200);

/** The title and plain text of a notice, shared by the email and every channel. */
export function noticeText(notice: NoticeFields, incident: Incident) {
  const title = TITLES[incident.kind](incident);
  const iso = (at: number) => new Date(at).toISOString();
  const cleared = notice.kind === 'cleared';
  const lines = cleared
    ? [
        `Resolved: ${incident.clearedDetail ?? ''}`,
        '',
        `The incident opened at ${iso(incident.openedAt)}:`,
        incident.detail,
        `Cleared at ${iso(incident.clearedAt ?? notice.createdAt)}.`,
      ]
    : [
        incident.detail,
        '',
        `Since ${iso(incident.openedAt)}. You get one more message when this clears.`,
        'Details: `reportd history` and the status page of the daemon.',
      ];
  return { title: `${cleared ? 'resolved: ' : ''}${title}`, text: `${lines.join('\n')}\n` };
}

export function noticeMessage(notice: NoticeFields, incident: Incident, from: string) {
  const { title, text } = noticeText(notice, incident);
  return {
    from,
    to: notice.recipients,
    subject: headerSafe(`[reportd] ${title}`),
    messageId: notice.messageId,
    text,
  };
}

/** The notice for a channel sender; its id (`webhook-id`) is the row's Message-ID stem, stable across retries. */
export function channelNotice(notice: NoticeFields, incident: Incident, at: number): ChannelNotice {
  const { title, text } = noticeText(notice, incident);
  return {
    id: notice.messageId.replace(/^<|@.*$/g, ''),
    event: notice.kind === 'cleared' ? 'incident.cleared' : 'incident.opened',
    at,
    // An earlier attempt may have been posted with its answer lost: Slack looks before posting.
    lookFirst: notice.attempts > 1,
    since: notice.createdAt,
    title: headerSafe(title),
    text,
    incident: { ...incident },
  };
}

/** How one attempt ended, in the terms finishNotice records. */
type Attempt = { sent: true } | { sent: false; permanent: boolean; reason: string; retryAfterMs?: number };

export class NoticeSender {
  /** Names this sender in `claimed_by`: the daemon's instance id when given, so status can say who holds it. */
  private readonly worker: string;

  constructor(
    private readonly options: {
      store: Store;
      mailer: Mailer;
      from: string;
      clock: Clock;
      logger: Logger;
      /** Senders of the configured channels, by name; notices to channels need them. */
      channels?: ReadonlyMap<string, ChannelSender>;
      /** Default `host:pid:random`, as the outbox names its workers. */
      worker?: string;
      /**
       * Whether `mailer` really sends (smtp is configured). Without one, email notices are left for a
       * daemon that has it, as are notices to channels this one does not define. Default true.
       */
      canEmail?: boolean;
    },
  ) {
    this.worker = options.worker ?? workerName();
    this.destinations = [
      ...(options.canEmail === false ? [] : ['email']),
      ...(options.channels?.keys() ?? []),
    ];
  }

  /** The notice destinations this sender claims (store/incidents.ts `claimNextNotice`). */
  private readonly destinations: readonly string[];

  async nextDueAt(): Promise<number | undefined> {
    return nextNoticeDue(this.options.store, this.destinations);
  }

  /** Sends every due notice; stops between notices when `signal` aborts. */
  async drain(signal?: AbortSignal): Promise<number> {
    const { store, clock, logger } = this.options;
    let sent = 0;
    while (!signal?.aborted) {
      const notice = await claimNextNotice(store, this.worker, clock.now(), LEASE_MS, this.destinations);
      if (!notice) break;
      const incident = await getIncident(store, notice.incidentId);
      if (!incident) {
        await finishNotice(store, notice.id, this.worker, {
          state: 'failed',
          at: clock.now(),
          error: 'incident missing',
        });
        continue;
      }
      const destination = notice.destination;
      const attempt = await this.attempt(notice, incident, signal);
      const now = clock.now();
      if (attempt.sent) {
        await finishNotice(store, notice.id, this.worker, { state: 'sent', at: now });
        logger.info({ incident: incident.key, notice: notice.kind, destination }, 'failure notice sent');
        sent++;
        continue;
      }
      const giveUp = attempt.permanent || notice.attempts >= MAX_ATTEMPTS;
      // A provider's Retry-After wins over the backoff when it asks for longer.
      const wait = Math.max(backoffCeiling(notice.attempts - 1, BACKOFF), attempt.retryAfterMs ?? 0);
      await finishNotice(store, notice.id, this.worker, {
        state: giveUp ? 'failed' : 'pending',
        at: now,
        error: attempt.reason,
        nextAttemptAt: giveUp ? undefined : now + wait,
      });
      logger.error(
        { incident: incident.key, notice: notice.kind, destination, error: attempt.reason },
        'failure notice not sent',
      );
    }
    return sent;
  }

  /** One attempt at one destination: the mailer for `email`, the channel's sender otherwise. */
  private async attempt(notice: Notice, incident: Incident, signal?: AbortSignal): Promise<Attempt> {
    if (notice.destination === 'email') {
      try {
        await this.options.mailer.send(noticeMessage(notice, incident, this.options.from));
        return { sent: true };
      } catch (error) {
        const failure = classifySmtpError(error);
        return { sent: false, permanent: failure.kind === 'permanent', reason: failure.reason };
      }
    }
    const sender = this.options.channels?.get(notice.destination);
    // The channel left the config after the notice was queued: nothing would ever send it.
    if (!sender) return { sent: false, permanent: true, reason: `no channel named "${notice.destination}"` };
    const result = await sender.notice(channelNotice(notice, incident, this.options.clock.now()), signal);
    if (result.state === 'accepted') return { sent: true };
    return {
      sent: false,
      permanent: result.state === 'refused',
      reason: result.reply,
      ...(result.state === 'deferred' && result.retryAfterMs !== undefined
        ? { retryAfterMs: result.retryAfterMs }
        : {}),
    };
  }
}
