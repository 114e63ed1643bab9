import { randomBytes } from 'node:crypto';
import { scrub } from '../secrets.js';
import { type ClaimedRowFields, membership } from './claim-rows.js';
import type { Store } from './sql.js';

/**
 * Incidents and their notices (migration 009). Opening and clearing are idempotent and safe across
 * processes: the partial unique index lets one incident per key be open, and the notice row is
 * written in the same transaction as the change it announces, so a notice exists exactly when the
 * change happened, once.
 */
export type IncidentKind =
  | 'delivery_failed'
  | 'credential_refused'
  | 'sync_failing'
  | 'set_gone'
  /** Never stored (the store is what is down): notify/store-outage.ts sends its notices directly. */
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

/** One message announcing an incident's opening or clearing, to one destination. */
export interface Notice extends ClaimedRowFields {
  id: number;
  incidentId: number;
  kind: 'opened' | 'cleared';
  /** `email` (`recipients` get one message) or the name of a configured channel (migration 014). */
  destination: string;
  /** Email addresses; empty for a channel's notice. */
  recipients: string[];
  state: 'pending' | 'sending' | 'sent' | 'failed';
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

interface NoticeRow {
  id: number;
  incident_id: number;
  kind: 'opened' | 'cleared';
  /** `email` (the row's `recipients` get one message) or the name of a configured channel (migration 014). */
  destination: string;
  recipients: string;
  state: 'pending' | 'sending' | 'sent' | 'failed';
  attempts: number;
  last_error: string | null;
  message_id: string;
  claimed_by: string | null;
  lease_until: number | null;
  next_attempt_at: number;
  created_at: number;
  sent_at: number | null;
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

function toNotice(row: NoticeRow): Notice {
  return {
    id: Number(row.id),
    incidentId: Number(row.incident_id),
    kind: row.kind,
    destination: row.destination,
    recipients: JSON.parse(row.recipients) as string[],
    state: row.state,
    attempts: Number(row.attempts),
    lastError: row.last_error,
    messageId: row.message_id,
    claimedBy: row.claimed_by,
    leaseUntil: epochOrNull(row.lease_until),
    nextAttemptAt: Number(row.next_attempt_at),
    createdAt: Number(row.created_at),
    sentAt: epochOrNull(row.sent_at),
  };
}

const oneLine = (text: string) => scrub(text).replace(/\s+/g, ' ').trim().slice(0, 500);

/** Who is told about one incident: email addresses (one message) and channel names (one row each). */
export interface NoticeTargets {
  recipients: string[];
  /** Channel names; none when left out. */
  channels?: string[];
}

async function addNotices(
  store: Store,
  incidentId: number,
  kind: Notice['kind'],
  to: NoticeTargets,
  at: number,
): Promise<void> {
  // One row per destination, so each is claimed, retried and given up on on its own.
  const destinations = [...(to.recipients.length > 0 ? ['email'] : []), ...new Set(to.channels ?? [])];
  for (const destination of destinations) {
    // Random part: ids restart in another store, and a Message-ID (or webhook-id) must never be reused.
    const messageId = `<reportd-notice-${incidentId}-${kind}-${randomBytes(6).toString('hex')}@reportd.invalid>`;
    const recipients = destination === 'email' ? to.recipients : [];
    await store.run(
      `INSERT INTO notices (incident_id, kind, destination, recipients, message_id, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      [incidentId, kind, destination, JSON.stringify(recipients), messageId, at, at],
    );
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
    await addNotices(store, opened.id, 'opened', incident, incident.at);
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
    await addNotices(store, open.id, 'cleared', clear, clear.at);
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

// --- the notices outbox

/**
 * The destinations a sender has (`email` when it has a mailer, its channel names) as a filter; every
 * destination when absent, none when empty.
 */
function destinationFilter(destinations: readonly string[] | undefined): { sql: string; params: string[] } {
  return membership(
    ['destination'],
    destinations?.map((d) => [d]),
  );
}

/**
 * Claims the next due notice with one conditional UPDATE: it wins or sees nothing. Only notices
 * bound for `destinations`: a daemon without a channel leaves its notices to one that has it.
 */
export function claimNextNotice(
  store: Store,
  worker: string,
  now: number,
  leaseMs: number,
  destinations?: readonly string[],
): Promise<Notice | undefined> {
  const filter = destinationFilter(destinations);
  return store.transaction(async () => {
    const row = await store.get<NoticeRow>(
      `SELECT * FROM notices
       WHERE ((state = 'pending' AND next_attempt_at <= ?) OR (state = 'sending' AND lease_until <= ?))
         AND ${filter.sql}
       ORDER BY next_attempt_at, id LIMIT 1${store.engine === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : ''}`,
      [now, now, ...filter.params],
    );
    if (!row) return undefined;
    const claimed = await store.run(
      `UPDATE notices SET state = 'sending', claimed_by = ?, lease_until = ?, attempts = attempts + 1
       WHERE id = ? AND state = ? AND COALESCE(lease_until, 0) = ?`,
      [worker, now + leaseMs, row.id, row.state, row.lease_until ?? 0],
    );
    return claimed.changes === 1
      ? toNotice({
          ...row,
          state: 'sending',
          attempts: Number(row.attempts) + 1,
          claimed_by: worker,
          lease_until: now + leaseMs,
        })
      : undefined;
  });
}

export async function finishNotice(
  store: Store,
  id: number,
  worker: string,
  end: { state: 'sent' | 'failed' | 'pending'; at: number; error?: string; nextAttemptAt?: number },
): Promise<void> {
  await store.run(
    `UPDATE notices SET state = ?, last_error = ?, claimed_by = NULL, lease_until = NULL,
       sent_at = COALESCE(?, sent_at), next_attempt_at = COALESCE(?, next_attempt_at)
     WHERE id = ? AND claimed_by = ? AND state = 'sending'`,
    [
      end.state,
      end.error === undefined ? null : oneLine(end.error),
      end.state === 'sent' ? end.at : null,
      end.nextAttemptAt ?? null,
      id,
      worker,
    ],
  );
}

export async function nextNoticeDue(
  store: Store,
  destinations?: readonly string[],
): Promise<number | undefined> {
  const filter = destinationFilter(destinations);
  const row = await store.get<{ due: number | null }>(
    `SELECT MIN(CASE WHEN state = 'pending' THEN next_attempt_at ELSE lease_until END) AS due
     FROM notices WHERE state IN ('pending', 'sending') AND ${filter.sql}`,
    filter.params,
  );
  return row?.due ?? undefined;
}

export async function listNotices(store: Store, incidentId?: number): Promise<Notice[]> {
  const rows =
    incidentId === undefined
      ? await store.all<NoticeRow>('SELECT * FROM notices ORDER BY id')
      : await store.all<NoticeRow>('SELECT * FROM notices WHERE incident_id = ? ORDER BY id', [incidentId]);
  return rows.map(toNotice);
}
