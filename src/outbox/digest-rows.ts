import type { Store } from '../store/sql.js';
import { deliveryId } from './delivery-id.js';
import { getDelivery } from './reads.js';
import { type Delivery, EMAIL_DESTINATION, type EnqueueResult } from './row.js';

/**
 * Digest rows of the outbox (migration 13): one message for a report across its query sets, keyed by
 * the report, the destination (`email` or a channel, as every outbox row since migration 11) and the
 * exact set of (account, query set, run) it covers. Claims, leases, retries and
 * per-recipient state are the per-set rows' own (deliveries.ts): a digest differs only in its key.
 */

export interface CoveredRun {
  account: string | null;
  querySetId: number;
  runId: number;
}

/** The canonical key text: sorted, so the same runs always give the same key whatever their order. */
export function coversKey(runs: readonly CoveredRun[]): string {
  const sorted = [...runs]
    .map((r) => [r.account ?? null, r.querySetId, r.runId] as const)
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])) || a[1] - b[1] || a[2] - b[2]);
  return JSON.stringify(sorted);
}

/** The runs a digest row covers (in key order); undefined for a per-set row. */
export function coveredRuns(row: Pick<Delivery, 'covers'>): CoveredRun[] | undefined {
  if (row.covers === null) return undefined;
  return (JSON.parse(row.covers) as [string | null, number, number][]).map(
    ([account, querySetId, runId]) => ({
      account,
      querySetId,
      runId,
    }),
  );
}

/**
 * Adds the digest row for (report, destination, covers) unless one exists; with `force`, the next
 * generation. One IMMEDIATE transaction, backed by the UNIQUE index, as `enqueueDelivery`.
 */
export function enqueueDigest(
  store: Store,
  report: string,
  runs: readonly CoveredRun[],
  now: number,
  options: {
    force?: boolean;
    destination?: string;
    messageIdFor?: (covers: string, generation: number) => string;
  } = {},
): Promise<EnqueueResult> {
  const covers = coversKey(runs);
  const destination = options.destination ?? EMAIL_DESTINATION;
  const account = runs.every((r) => r.account === runs[0]?.account) ? (runs[0]?.account ?? null) : null;
  // The lock: two processes enqueueing the first digest of a report must not both take the same
  // ordinal for different covers (PostgreSQL does not serialise writers as SQLite does).
  return store.transaction(
    async (): Promise<EnqueueResult> => {
      const latest = await findDigestByCovers(store, report, destination, covers);
      if (latest && !options.force) return { delivery: latest, created: false };
      const generation = latest ? latest.generation + 1 : 0;
      // query_set_id 0 marks a digest; run_id is its ordinal in the report, shared by every destination
      // of the same covers (so "digest 3" is one thing in history) and stable across generations; it
      // keeps the table's UNIQUE (report, destination, set, run, generation) satisfied.
      const ordinal =
        latest?.runId ??
        (await store.get<{ n: number }>(
          `SELECT COALESCE(
             (SELECT run_id FROM deliveries WHERE report = ? AND covers = ? LIMIT 1),
             (SELECT COALESCE(MAX(run_id), 0) + 1 FROM deliveries WHERE report = ? AND covers IS NOT NULL)
           ) AS n`,
          [report, covers, report],
        ))!.n;
      const messageId = (
        options.messageIdFor ??
        ((c, g) => deliveryId({ of: 'digest', report, covers: c, generation: g }, { form: 'message-id' }))
      )(covers, generation);
      const inserted = await store.get<{ id: number }>(
        `INSERT INTO deliveries (report, destination, query_set_id, run_id, generation, account, message_id,
           next_attempt_at, created_at, updated_at, covers)
         VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT DO NOTHING RETURNING id`,
        [report, destination, ordinal, generation, account, messageId, now, now, now, covers],
      );
      if (!inserted)
        return { delivery: (await findDigestByCovers(store, report, destination, covers))!, created: false };
      return { delivery: (await getDelivery(store, inserted.id))!, created: true };
    },
    { lock: `reportd:digest:${report}` },
  );
}

async function findDigestByCovers(
  store: Store,
  report: string,
  destination: string,
  covers: string,
): Promise<Delivery | undefined> {
  // The id only: the row is read (and mapped) by deliveries.ts, which alone knows its columns.
  const found = await store.get<{ id: number }>(
    `SELECT id FROM deliveries WHERE report = ? AND destination = ? AND covers = ?
     ORDER BY generation DESC LIMIT 1`,
    [report, destination, covers],
  );
  return found ? getDelivery(store, Number(found.id)) : undefined;
}

/**
 * Every (account, set, run) this report has already put in the outbox for one destination (`email`
 * by default; `before`'s own when given) before row `before` (all rows when absent; other generations
 * of `before` itself left out), per-set rows and digests alike: what "already delivered" means when
 * deciding whether a digest is due and which sets have "no new run". Failed rows do not count
 * (nothing reached anyone). Per destination, so a channel added later still gets its first digest.
 */
export async function coveredBefore(
  store: Store,
  report: string,
  before?: Pick<Delivery, 'id' | 'covers'> & { destination?: string },
  destination: string = before?.destination ?? EMAIL_DESTINATION,
): Promise<Set<string>> {
  // A forced resend's earlier generations cover the same runs: they are the same message, not news.
  const id = before?.id ?? null;
  const covers = before?.covers ?? null;
  const rows = await store.all<{
    query_set_id: number;
    run_id: number;
    account: string | null;
    covers: string | null;
  }>(
    `SELECT query_set_id, run_id, account, covers FROM deliveries
     WHERE report = ? AND destination = ? AND state != 'failed'
       AND (CAST(? AS INTEGER) IS NULL OR id < ?)
       AND (CAST(? AS TEXT) IS NULL OR covers IS NULL OR covers != ?)`,
    [report, destination, id, id, covers, covers],
  );
  const seen = new Set<string>();
  for (const row of rows) {
    const runs = coveredRuns(row) ?? [
      { account: row.account, querySetId: row.query_set_id, runId: row.run_id },
    ];
    for (const run of runs) seen.add(pairKey(run));
  }
  return seen;
}

/**
 * One (set, run) as text. The account is left out: per-set rows written before an account was named
 * may hold null, and set ids are the API's, unique per account in practice.
 */
export function pairKey(run: { querySetId: number; runId: number }): string {
  return `${run.querySetId}:${run.runId}`;
}

/** The newest generation of the digest to `destination` covering exactly `runs`, if any. */
export function findDigest(
  store: Store,
  report: string,
  runs: readonly CoveredRun[],
  destination: string = EMAIL_DESTINATION,
): Promise<Delivery | undefined> {
  return findDigestByCovers(store, report, destination, coversKey(runs));
}

/** What a row delivers, for messages: "query set 101, run 7" or "digest of 101:7, 102:8". */
export function coverLabel(row: Pick<Delivery, 'covers' | 'querySetId' | 'runId'>): string {
  const runs = coveredRuns(row);
  return runs
    ? `digest of ${runs.map((r) => `${r.querySetId}:${r.runId}`).join(', ')}`
    : `query set ${row.querySetId}, run ${row.runId}`;
}
