import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { backoffCeiling } from '../api/retry-timing.js';
import type { Clock } from '../clock.js';
import type { Mailer } from '../delivery/email.js';
import { classifySmtpError } from '../delivery/smtp-errors.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/db.js';
import {
  claimNextNotice,
  finishNotice,
  getIncident,
  type IncidentRow,
  type NoticeRow,
  nextNoticeDue,
} from '../store/incidents.js';

/**
 * Sends the failure notices the incidents queued (table `notices`), on the same terms as report
 * deliveries: claimed with a lease so two daemons never both send one, retried with the outbox's
 * backoff when the server defers, given up on a permanent refusal or after MAX_ATTEMPTS. Plain text:
 * the text quotes API and SMTP replies, which must not become markup anywhere.
 */
const MAX_ATTEMPTS = 8;
const LEASE_MS = 5 * 60_000;
const BACKOFF = { baseMs: 30_000, capMs: 30 * 60_000 };

const TITLES: Record<IncidentRow['kind'], (i: IncidentRow) => string> = {
  delivery_failed: (i) => `report ${i.report ?? ''} could not be delivered`,
  credential_refused: (i) => `${i.key.slice('credential:'.length)}: API credential refused`,
  sync_failing: () => 'the sync keeps failing',
  set_gone: (i) => `query set ${i.key.split(':')[2] ?? ''} is gone`,
};

/** A header value from config names and ids: one line, no control characters. */
const headerSafe = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').slice(0, 200);

export function noticeMessage(notice: NoticeRow, incident: IncidentRow, from: string) {
  const title = TITLES[incident.kind](incident);
  const iso = (at: number) => new Date(at).toISOString();
  const cleared = notice.kind === 'cleared';
  const lines = cleared
    ? [
        `Resolved: ${incident.cleared_detail ?? ''}`,
        '',
        `The incident opened at ${iso(incident.opened_at)}:`,
        incident.detail,
        `Cleared at ${iso(incident.cleared_at ?? notice.created_at)}.`,
      ]
    : [
        incident.detail,
        '',
        `Since ${iso(incident.opened_at)}. You get one more message when this clears.`,
        'Details: `reportd history` and the status page of the daemon.',
      ];
  return {
    from,
    to: JSON.parse(notice.recipients) as string[],
    subject: headerSafe(`[reportd] ${cleared ? 'resolved: ' : ''}${title}`),
    messageId: notice.message_id,
    text: `${lines.join('\n')}\n`,
  };
}

export class NoticeSender {
  private readonly worker = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

  constructor(
    private readonly options: { store: Store; mailer: Mailer; from: string; clock: Clock; logger: Logger },
  ) {}

  nextDueAt(): number | undefined {
    return nextNoticeDue(this.options.store);
  }

  /** Sends every due notice; stops between notices when `signal` aborts. */
  async drain(signal?: AbortSignal): Promise<number> {
    const { store, clock, logger } = this.options;
    let sent = 0;
    while (!signal?.aborted) {
      const notice = claimNextNotice(store, this.worker, clock.now(), LEASE_MS);
      if (!notice) break;
      const incident = getIncident(store, notice.incident_id);
      if (!incident) {
        finishNotice(store, notice.id, this.worker, {
          state: 'failed',
          at: clock.now(),
          error: 'incident missing',
        });
        continue;
      }
      try {
        await this.options.mailer.send(noticeMessage(notice, incident, this.options.from));
        finishNotice(store, notice.id, this.worker, { state: 'sent', at: clock.now() });
        logger.info({ incident: incident.key, notice: notice.kind }, 'failure notice sent');
        sent++;
      } catch (error) {
        const failure = classifySmtpError(error);
        const giveUp = failure.kind === 'permanent' || notice.attempts >= MAX_ATTEMPTS;
        const now = clock.now();
        finishNotice(store, notice.id, this.worker, {
          state: giveUp ? 'failed' : 'pending',
          at: now,
          error: failure.reason,
          nextAttemptAt: giveUp ? undefined : now + backoffCeiling(notice.attempts - 1, BACKOFF),
        });
        logger.error(
          { incident: incident.key, notice: notice.kind, error: failure.reason },
          'failure notice not sent',
        );
      }
    }
    return sent;
  }
}
