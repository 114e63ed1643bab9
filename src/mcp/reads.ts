import { ToolInputError } from '../errors/index.js';
import { baseName } from '../insight/metric-names.js';
import type { MetricValueRow } from '../store/metric-reads.js';
import { newestRunFirst } from '../store/query-sets.js';
import type { Store } from '../store/sql.js';

/**
 * The MCP tools' reads of the store: sets, their derived runs, and metric rows by run. Every read is
 * keyed by snapshot (metric_values' index), so a series of 200 runs is 200 indexed lookups, not a scan.
 */

/** Most runs a series or register may span: answers an assistant can read whole. */
export const MAX_RUNS = 100;

export interface SetRun {
  snapshot_id: number;
  run_id: number;
  run: string;
  run_created_at: string;
  metric_rows: number;
}

export interface StoredSet {
  account: string;
  query_set_id: number;
  query_set: string;
  brand_id: number | null;
  brand: string | null;
  state: string;
}

export async function listSets(
  store: Store,
  account?: string,
): Promise<(StoredSet & { runs_stored: number })[]> {
  const rows = await store.all<StoredSet & { runs_stored: number }>(
    `SELECT q.account, q.id AS query_set_id, q.name AS query_set, q.brand_id, b.name AS brand, q.state,
            (SELECT COUNT(*) FROM snapshots s JOIN metric_derivations d ON d.snapshot_id = s.id
             WHERE s.account = q.account AND s.query_set_id = q.id) AS runs_stored
     FROM query_sets q LEFT JOIN brands b ON b.account = q.account AND b.id = q.brand_id
     WHERE (CAST(? AS TEXT) IS NULL OR q.account = ?)
     ORDER BY q.account, q.id`,
    [account ?? null, account ?? null],
  );
  return rows.map((r) => ({ ...r, runs_stored: Number(r.runs_stored) }));
}

/** The set, or a tool error naming it and the sets that are stored. */
export async function findSet(store: Store, querySetId: number, account?: string): Promise<StoredSet> {
  const sets = await listSets(store, account);
  const found = sets.filter((s) => s.query_set_id === querySetId);
  if (found.length === 1) return found[0]!;
  if (found.length > 1)
    throw new ToolInputError(`query set ${querySetId} is stored for several accounts: give "account"`);
  const known = sets.filter((s) => s.runs_stored > 0).map((s) => s.query_set_id);
  throw new ToolInputError(
    `query set ${querySetId} is not in the store${account ? ` for account "${account}"` : ''}` +
      (known.length
        ? ` (sets with data: ${known.join(', ')})`
        : ' (nothing is stored yet: run `reportd sync`)'),
  );
}

/** The set's derived runs, newest first. */
export async function setRuns(store: Store, set: StoredSet): Promise<SetRun[]> {
  const rows = await store.all<SetRun>(
    `SELECT s.id AS snapshot_id, s.run_id, r.display_name AS run, r.created_at AS run_created_at, d.rows AS metric_rows
     FROM snapshots s JOIN metric_derivations d ON d.snapshot_id = s.id
     JOIN runs r ON r.account = s.account AND r.query_set_id = s.query_set_id AND r.id = s.run_id
     WHERE s.account = ? AND s.query_set_id = ?`,
    [set.account, set.query_set_id],
  );
  const runs = rows.map((r) => ({
    ...r,
    snapshot_id: Number(r.snapshot_id),
    run_id: Number(r.run_id),
    metric_rows: Number(r.metric_rows),
  }));
  return runs.sort((a, b) =>
    newestRunFirst(
      { id: a.run_id, created_at: a.run_created_at },
      { id: b.run_id, created_at: b.run_created_at },
    ),
  );
}

/** A run of the set by id, or a tool error saying whose run it is (another set's, or none stored). */
export async function findRun(
  store: Store,
  set: StoredSet,
  runs: readonly SetRun[],
  runId: number,
): Promise<SetRun> {
  const run = runs.find((r) => r.run_id === runId);
  if (run) return run;
  const other = await store.get<{ query_set_id: number }>(
    'SELECT query_set_id FROM runs WHERE account = ? AND id = ? AND query_set_id <> ?',
    [set.account, runId, set.query_set_id],
  );
  if (other)
    throw new ToolInputError(
      `run ${runId} is a run of query set ${other.query_set_id}, not of query set ${set.query_set_id}`,
    );
  throw new ToolInputError(
    `run ${runId} of query set ${set.query_set_id} is not stored` +
      (runs.length ? ` (stored runs: ${runs.at(-1)!.run_id}..${runs[0]!.run_id}; see list_runs)` : ''),
  );
}

/**
 * The runs between two run ids (inclusive, either order), oldest first; or the newest `last`. A range
 * wider than MAX_RUNS is refused, naming its width, rather than cut silently. `before` is the stored
 * run just older than the range, which its first run's change is measured against.
 */
export async function runRange(
  store: Store,
  set: StoredSet,
  range: { from_run_id?: number; to_run_id?: number; last_runs?: number },
): Promise<{ runs: SetRun[]; before: SetRun | undefined }> {
  const runs = await setRuns(store, set);
  if (runs.length === 0)
    throw new ToolInputError(
      `query set ${set.query_set_id} has no complete run stored yet (run \`reportd sync\`)`,
    );
  if (range.last_runs !== undefined && range.last_runs > MAX_RUNS)
    throw new ToolInputError(`last_runs ${range.last_runs} is more than ${MAX_RUNS} runs: ask for fewer`);
  const oldestFirst = [...runs].reverse();
  let picked = oldestFirst;
  if (range.from_run_id !== undefined || range.to_run_id !== undefined) {
    const from =
      range.from_run_id === undefined
        ? 0
        : oldestFirst.indexOf(await findRun(store, set, runs, range.from_run_id));
    const to =
      range.to_run_id === undefined
        ? oldestFirst.length - 1
        : oldestFirst.indexOf(await findRun(store, set, runs, range.to_run_id));
    picked = oldestFirst.slice(Math.min(from, to), Math.max(from, to) + 1);
  }
  const last = range.last_runs ?? (range.from_run_id === undefined ? Math.min(MAX_RUNS, 12) : undefined);
  if (last !== undefined) picked = picked.slice(-last);
  if (picked.length > MAX_RUNS)
    throw new ToolInputError(
      `the range from run ${range.from_run_id ?? picked[0]!.run_id} to run ${range.to_run_id ?? picked.at(-1)!.run_id} spans ${picked.length} runs, more than ${MAX_RUNS}: narrow it`,
    );
  const first = oldestFirst.indexOf(picked[0]!);
  return { runs: picked, before: first > 0 ? oldestFirst[first - 1] : undefined };
}

/** A metric row without its run context: what the tools read of one snapshot. */
export type MetricRow = Pick<
  MetricValueRow,
  'endpoint' | 'field' | 'dimension' | 'dimension_id' | 'dimension_label' | 'value' | 'unit'
>;

const ROWS_OF_SNAPSHOT = `SELECT endpoint, field, dimension, dimension_id, dimension_label, value, unit
  FROM metric_values WHERE snapshot_id = ?`;

export function snapshotRows(store: Store, snapshotId: number): Promise<MetricRow[]> {
  return store.all<MetricRow>(ROWS_OF_SNAPSHOT, [snapshotId]);
}

/** One metric's rows in each of the snapshots (at most MAX_RUNS), in one statement on the metric index. */
export async function metricRowsOf(
  store: Store,
  snapshotIds: readonly number[],
  endpoint: string,
  field: string,
): Promise<Map<number, MetricRow[]>> {
  const rows = await store.all<MetricRow & { snapshot_id: number }>(
    `SELECT snapshot_id, endpoint, field, dimension, dimension_id, dimension_label, value, unit FROM metric_values
     WHERE snapshot_id IN (${snapshotIds.map(() => '?').join(', ')}) AND endpoint = ? AND field = ? ORDER BY rowid`,
    [...snapshotIds, endpoint, field],
  );
  const bySnapshot = new Map<number, MetricRow[]>();
  for (const { snapshot_id, ...row } of rows) {
    const id = Number(snapshot_id);
    bySnapshot.set(id, [...(bySnapshot.get(id) ?? []), row]);
  }
  return bySnapshot;
}

/** `presence.weighted` + `current` → `presence.weighted.current`: the name the tools take and give. */
export const metricName = (row: Pick<MetricRow, 'endpoint' | 'field'>) => `${row.endpoint}.${row.field}`;

/** "Weighted presence": the name people read (src/insight/metric-names.ts), without its member. */
export const metricTitle = (row: Pick<MetricRow, 'endpoint' | 'field'>) => baseName(row.endpoint, row.field);

export interface ErrorClaim {
  error_id: string;
  title: string;
  correct: string;
  note: string | null;
  engine: string | null;
  claim: string | null;
}

export function errorClaims(store: Store, snapshotId: number): Promise<ErrorClaim[]> {
  return store.all<ErrorClaim>(
    'SELECT error_id, title, correct, note, engine, claim FROM metric_error_register WHERE snapshot_id = ? ORDER BY rowid',
    [snapshotId],
  );
}

export function sources(
  store: Store,
  snapshotId: number,
): Promise<{ source: string; control: string; source_type: string }[]> {
  return store.all(
    'SELECT source, control, source_type FROM metric_sources WHERE snapshot_id = ? ORDER BY rowid',
    [snapshotId],
  );
}
