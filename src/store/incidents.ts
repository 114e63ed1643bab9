import { noticeMessageId } from '../queue/delivery-id.js';
import { scrub } from '../secrets.js';
import type { ClaimedRowFields } from './claim-rows.js';
import { type Delivery, type DeliveryState, listDeliveriesOfKind } from './deliveries.js';
import { ensureRecipients, listRecipients } from './delivery-recipients.js';
import type { Store } from './sql.js';

/**
 * Incidents and their notices (migrations 009, 021: notices are rows of the delivery queue). Opening
 * and clearing are idempotent and safe across processes: the partial unique index lets one incident
 * per key be open, and the notice row is
 * written in the same transaction as the change it announces, so a notice exists exactly when the
 * change happened, once.
 */
export type IncidentKind =
  | 'delivery_failed'
  | 'credential_refused'
  | 'sync_failing'
  | 'set_gone'
  /** Never stored (the store is what is down): daemon/store-outage.ts sends its notices directly. */
  | 'store_unreachable';

/** One incident as notify/, status/ and cli/ see it. */
export interface Incident {
  id: number;
  /** What is wrong with what, e.g. `delivery_failed:weekly`; one open incident per key. */
  key: string;
  kind: IncidentKind;
  report: string | null;
  detail: string;
  /** Epoch ms. */
  openedAt: number;
  /** Epoch ms; null while open. */
  clearedAt: number | null;
  clearedDetail: string | null;
}

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

/** The tables' columns; never leave this file. */
interface IncidentRow {
  id: number;
  key: string;
  kind: IncidentKind;
  report: string | null;
  detail: string;
  opened_at: number;
  cleared_at: number | null;
  cleared_detail: string | null;
}

const epochOrNull = (at: number | null) => (at === null ? null : Number(at));

function toIncident(row: IncidentRow): Incident {
  return {
    id: Number(row.id),
    key: row.key,
    kind: row.kind,
    report: row.report,
    detail: row.detail,
    openedAt: Number(row.opened_at),
    clearedAt: epochOrNull(row.cleared_at),
    clearedDetail: row.cleared_detail,
  };
}

const oneLine = (text: string) => scrub(text).replace(/\s+/g, ' ').trim().slice(0, 500);

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

async function addNotices(
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

/** Opens the incident unless one with this key is open already. True when this call opened it. */
export function openIncident(
  store: Store,
  incident: {
    key: string;
    kind: IncidentKind;
    report?: string;
    detail: string;
    at: number;
  } & NoticeTargets,
): Promise<boolean> {
  return store.transaction(async () => {
    const opened = await store.get<{ id: number }>(
      `INSERT INTO incidents (key, kind, report, detail, opened_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING RETURNING id`,
      [incident.key, incident.kind, incident.report ?? null, oneLine(incident.detail), incident.at],
    );
    if (!opened) return false;
    await addNotices(store, { id: opened.id, key: incident.key }, 'opened', incident, incident.at);
    return true;
  });
}

/** Clears the open incident of `key`, if any. True when this call cleared it (and queued the notice). */
export function clearIncident(
  store: Store,
  clear: { key: string; detail: string; at: number } & NoticeTargets,
): Promise<boolean> {
  return store.transaction(async () => {
    const open = await getOpenIncident(store, clear.key);
    if (!open) return false;
    const result = await store.run(
      'UPDATE incidents SET cleared_at = ?, cleared_detail = ? WHERE id = ? AND cleared_at IS NULL',
      [clear.at, oneLine(clear.detail), open.id],
    );
    if (result.changes === 0) return false;
    await addNotices(store, open, 'cleared', clear, clear.at);
    return true;
  });
}

export async function getOpenIncident(store: Store, key: string): Promise<Incident | undefined> {
  const row = await store.get<IncidentRow>('SELECT * FROM incidents WHERE key = ? AND cleared_at IS NULL', [
    key,
  ]);
  return row ? toIncident(row) : undefined;
}

export async function listOpenIncidents(store: Store): Promise<Incident[]> {
  const rows = await store.all<IncidentRow>(
    'SELECT * FROM incidents WHERE cleared_at IS NULL ORDER BY opened_at',
  );
  return rows.map(toIncident);
}

export async function listIncidents(store: Store, limit: number): Promise<Incident[]> {
  const rows = await store.all<IncidentRow>(
    'SELECT * FROM incidents ORDER BY COALESCE(cleared_at, opened_at) DESC, id DESC LIMIT ?',
    [limit],
  );
  return rows.map(toIncident);
}

export async function getIncident(store: Store, id: number): Promise<Incident | undefined> {
  const row = await store.get<IncidentRow>('SELECT * FROM incidents WHERE id = ?', [id]);
  return row ? toIncident(row) : undefined;
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
