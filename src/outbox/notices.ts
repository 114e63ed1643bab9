import type { Store } from '../store/sql.js';
import type { ClaimedRowFields } from './claim-rows.js';
import { noticeMessageId } from './delivery-id.js';
import { listDeliveriesOfKind } from './reads.js';
import { ensureRecipients, listRecipients } from './recipients.js';
import type { Delivery, DeliveryState } from './row.js';

/**
 * Failure notices as rows of the outbox (kind `notice`, migration 21): queued by notify/incidents.ts
 * in the same transaction as the incident's change they announce, claimed, sent and retried like
 * every other row, and read back in the terms notify/ and `history` use.
 */

/**
 * One message announcing an incident's opening or clearing, to one destination: a row of the
 * delivery queue (kind `notice`, migration 21), read back in the terms notify/ and `history` use.
 */
export interface Notice extends ClaimedRowFields {
  id: number;
  incidentId: number;
  kind: 'opened' | 'cleared';
  /** `email` (`recipients` get one message) or the name of a configured channel (migration 014). */
  destination: string;
  /** Email addresses; empty for a channel's notice. */
  recipients: string[];
  state: DeliveryState;
}

/** Who is told about one incident: email addresses (one message) and channel names (one row each). */
export interface NoticeTargets {
  recipients: string[];
  /** Channel names; none when left out. */
  channels?: string[];
}

/** The queue row of one notice: the incident, the event and the destination make its UNIQUE key. */
function noticeKey(incident: { id: number; key: string }, kind: Notice['kind']) {
  return { report: `notice:${incident.key}`, querySetId: incident.id, runId: kind === 'opened' ? 0 : 1 };
}

export async function queueNotices(
  store: Store,
  incident: { id: number; key: string },
  kind: Notice['kind'],
  to: NoticeTargets,
  at: number,
): Promise<void> {
  // One row per destination, so each is claimed, retried and given up on on its own.
  const destinations = [...(to.recipients.length > 0 ? ['email'] : []), ...new Set(to.channels ?? [])];
  const key = noticeKey(incident, kind);
  for (const destination of destinations) {
    const messageId = noticeMessageId(incident.id, kind);
    const row = await store.get<{ id: number }>(
      `INSERT INTO deliveries (report, destination, query_set_id, run_id, message_id, next_attempt_at,
         created_at, updated_at, kind)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'notice') ON CONFLICT DO NOTHING RETURNING id`,
      [key.report, destination, key.querySetId, key.runId, messageId, at, at, at],
    );
    // Who an email notice is for is fixed now, as the config says at this moment.
    if (row && destination === 'email') await ensureRecipients(store, Number(row.id), to.recipients, at);
  }
}

/**
 * The newest row of one (report or alert) × destination that ended (sent or failed for good),
 * read-only on `deliveries`: what that destination's incident follows.
 */
export async function lastFinishedDelivery(
  store: Store,
  target: { kind: 'report' | 'alert'; name: string; destination: string },
): Promise<{ id: number; state: 'sent' | 'failed'; lastError: string | null } | undefined> {
  const row = await store.get<{ id: number; state: 'sent' | 'failed'; last_error: string | null }>(
    `SELECT id, state, last_error FROM deliveries
     WHERE kind = ? AND report = ? AND destination = ? AND state IN ('sent', 'failed')
     ORDER BY updated_at DESC, id DESC LIMIT 1`,
    [target.kind, target.name, target.destination],
  );
  return row ? { id: Number(row.id), state: row.state, lastError: row.last_error } : undefined;
}

/**
 * The newest finished row of each reader of a report's recipient table (destinations
 * `recipient:<id>`), in one query: a table of 10,000 readers is not 10,000 look-ups per drain.
 */
export async function lastFinishedReaderRows(
  store: Store,
  report: string,
): Promise<{ destination: string; state: 'sent' | 'failed'; lastError: string | null }[]> {
  const rows = await store.all<{ destination: string; state: 'sent' | 'failed'; last_error: string | null }>(
    `SELECT destination, state, last_error FROM (
       SELECT destination, state, last_error,
              ROW_NUMBER() OVER (PARTITION BY destination ORDER BY updated_at DESC, id DESC) AS newest
       FROM deliveries
       WHERE kind = 'report' AND report = ? AND destination LIKE 'recipient:%' AND state IN ('sent', 'failed')
     ) finished WHERE newest = 1`,
    [report],
  );
  return rows.map((row) => ({ destination: row.destination, state: row.state, lastError: row.last_error }));
}

/** The notices (of one incident when given), oldest first, with their email recipients. */
export async function listNotices(store: Store, incidentId?: number): Promise<Notice[]> {
  const rows = await listDeliveriesOfKind(store, 'notice', incidentId);
  const notices: Notice[] = [];
  for (const row of rows) notices.push({ ...noticeOf(row), recipients: await noticeRecipients(store, row) });
  return notices;
}

/** The notice a queue row carries, its recipients aside (see `noticeRecipients`). */
export function noticeOf(row: Delivery): Omit<Notice, 'recipients'> {
  return {
    id: row.id,
    incidentId: row.querySetId,
    kind: row.runId === 1 ? 'cleared' : 'opened',
    destination: row.destination,
    state: row.state,
    attempts: row.attempts,
    lastError: row.lastError,
    messageId: row.messageId,
    claimedBy: row.claimedBy,
    leaseUntil: row.leaseUntil,
    nextAttemptAt: row.nextAttemptAt,
    createdAt: row.createdAt,
    sentAt: row.sentAt,
  };
}

/** How a person reads a notice row (the CLI's lines, the status page): its incident, event and destination. */
export function noticeLabel(row: Delivery): string {
  const notice = noticeOf(row);
  return `failure notice ${row.report.slice('notice:'.length)} (incident ${notice.incidentId} ${notice.kind}) to ${row.destination}`;
}

/** Who an email notice is for (written when it was queued); none for a channel's. */
export async function noticeRecipients(store: Store, row: Delivery): Promise<string[]> {
  if (row.destination !== 'email') return [];
  return (await listRecipients(store, row.id)).map((r) => r.recipient);
}
