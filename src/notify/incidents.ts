import { type NoticeTargets, queueNotices } from '../outbox/notices.js';
import { scrub } from '../secrets.js';
import type { Store } from '../store/sql.js';

/**
 * Incidents (migration 009) and the notices they queue (outbox/notices.ts: rows of the outbox). Opening
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
    await queueNotices(store, { id: opened.id, key: incident.key }, 'opened', incident, incident.at);
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
    await queueNotices(store, open, 'cleared', clear, clear.at);
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
