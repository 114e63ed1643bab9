import { UsageError } from '../errors/index.js';
import { setsWithCompleteSnapshots } from '../store/snapshot-sets.js';
import { findSnapshot, listSnapshots, type StoredSnapshot } from '../store/snapshots.js';
import type { Store } from '../store/sql.js';
import { safeFileName } from './file-names.js';
import { type RenderSnapshotOptions, renderSnapshot, reportBaseName } from './render.js';

/**
 * Bulk rendering: `reportd render --set …|all --run …|all|latest` picks snapshots from the store, then
 * renders them through one warm browser, `concurrency` at a time, so one snapshot's model, charts and
 * HTML (Node's thread) overlap another's printing (Chromium's processes).
 */

export type RunSelector = 'latest' | 'all' | readonly number[];

export interface BatchSelection {
  sets: 'all' | readonly number[];
  runs: RunSelector;
  account?: string;
}

export interface BatchItem {
  snapshot: StoredSnapshot;
  /** The set's complete snapshots, newest first (the report's history charts). */
  history: StoredSnapshot[];
  /** File name (no extension), unique within the batch. */
  baseName: string;
}

const SYNC_FIRST = '(run `reportd sync` first)';

/**
 * The snapshots a selection names, in the order given (sets as listed or by id, newest run first), or
 * a `UsageError` naming the set or run that is not stored: nothing is rendered when any is missing.
 */
export async function selectSnapshots(store: Store, selection: BatchSelection): Promise<BatchItem[]> {
  let groups: { account: string; querySetId: number }[];
  if (selection.sets === 'all') {
    groups = await setsWithCompleteSnapshots(store, selection.account);
  } else {
    // Set by set, in the order given: the first set that is not stored is the one the error names.
    groups = [];
    for (const querySetId of selection.sets) groups.push(...(await accountsOf(store, querySetId, selection)));
  }
  if (groups.length === 0) throw new UsageError(`no complete snapshot is stored ${SYNC_FIRST}`);
  const picked: Omit<BatchItem, 'baseName'>[] = [];
  const found = new Set<number>();
  for (const { account, querySetId } of groups) {
    const history = await listSnapshots(store, { querySetId, account });
    const { runs } = selection;
    if (runs === 'latest' || runs === 'all') {
      for (const snapshot of runs === 'latest' ? history.slice(0, 1) : history)
        picked.push({ snapshot, history });
      continue;
    }
    for (const runId of runs) {
      // A named run may be stored incomplete: rendered as it is, like `render --run` always did.
      const snapshot =
        history.find((s) => s.run.id === runId) ??
        (await findSnapshot(store, { querySetId, runId, account }));
      if (!snapshot) continue;
      found.add(runId);
      picked.push({ snapshot, history });
    }
  }
  if (Array.isArray(selection.runs)) {
    const missing = (selection.runs as readonly number[]).find((runId) => !found.has(runId));
    if (missing !== undefined) {
      const sets = [...new Set(groups.map((g) => g.querySetId))];
      throw new UsageError(
        sets.length === 1
          ? `run ${missing} of query set ${sets[0]} is not stored ${SYNC_FIRST}`
          : `run ${missing} is not stored in any of query sets ${sets.join(', ')} ${SYNC_FIRST}`,
      );
    }
  }
  return withUniqueNames(picked);
}

/** The accounts holding a complete snapshot of an explicitly named set, or an error naming the set. */
async function accountsOf(
  store: Store,
  querySetId: number,
  selection: BatchSelection,
): Promise<{ account: string; querySetId: number }[]> {
  const named = Array.isArray(selection.runs);
  const accounts = (await setsWithCompleteSnapshots(store, selection.account)).filter(
    (g) => g.querySetId === querySetId,
  );
  if (accounts.length > 0) return accounts;
  // A run named explicitly may be stored without any complete snapshot of its set.
  if (named) {
    for (const runId of selection.runs as readonly number[]) {
      const snapshot = await findSnapshot(store, { querySetId, runId, account: selection.account });
      if (snapshot) return [{ account: snapshot.account, querySetId }];
    }
    throw new UsageError(
      `run ${(selection.runs as readonly number[])[0]} of query set ${querySetId} is not stored ${SYNC_FIRST}`,
    );
  }
  throw new UsageError(`no complete snapshot of query set ${querySetId} is stored ${SYNC_FIRST}`);
}

/**
 * File names come from API labels (brand, set, run), which need not be unique: two runs labelled
 * alike, or one set seen by two accounts, would overwrite each other's files. Those get the run id
 * (and account) appended; every other name stays what a single `render` would write.
 */
function withUniqueNames(items: Omit<BatchItem, 'baseName'>[]): BatchItem[] {
  const count = new Map<string, number>();
  for (const { snapshot } of items) {
    const base = reportBaseName(snapshot);
    count.set(base, (count.get(base) ?? 0) + 1);
  }
  const seen = new Set<string>();
  return (
    items
      .map((item) => {
        let baseName = reportBaseName(item.snapshot);
        if ((count.get(baseName) ?? 0) > 1) baseName = `${baseName} - run ${item.snapshot.run.id}`;
        if (seen.has(baseName)) baseName = `${baseName} - ${safeFileName([item.snapshot.account])}`;
        seen.add(baseName);
        return { ...item, baseName };
      })
      // Unique even when the same (set, run) was named twice: render it once.
      .filter(
        (item, index, all) => all.findIndex((other) => other.snapshot.id === item.snapshot.id) === index,
      )
  );
}

export interface BatchResult {
  item: BatchItem;
  paths?: string[];
  error?: unknown;
}

/**
 * Renders every item, `concurrency` at a time, and reports each result in selection order as soon as
 * it and every item before it are done (so printed paths keep a stable order). One snapshot's failure
 * does not stop the others.
 */
export async function renderBatch(
  items: readonly BatchItem[],
  options: RenderSnapshotOptions & { concurrency: number },
  onResult: (result: BatchResult) => void,
): Promise<BatchResult[]> {
  const results: (BatchResult | undefined)[] = new Array(items.length);
  let next = 0;
  let reported = 0;
  const flush = () => {
    while (reported < items.length && results[reported]) onResult(results[reported++]!);
  };
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      const item = items[index]!;
      try {
        const paths = await renderSnapshot(item.snapshot, item.history, {
          ...options,
          baseName: item.baseName,
        });
        results[index] = { item, paths };
      } catch (error) {
        results[index] = { item, error };
      }
      flush();
    }
  };
  await Promise.all(Array.from({ length: workerCount(items.length, options) }, worker));
  return results as BatchResult[];
}

/**
 * `concurrency` workers, plus one when PDFs are printed through a shared renderer: that one builds its
 * report's model, charts and HTML (about 17 ms of this thread) while the others' documents print,
 * then waits for a page (the renderer prints at most its own concurrency at once). So a browser done
 * with one report is handed the next at once, instead of idling through the HTML step of the worker
 * that just finished with it.
 */
function workerCount(items: number, options: RenderSnapshotOptions & { concurrency: number }): number {
  const ahead = options.renderer && options.formats.includes('pdf') ? 1 : 0;
  return Math.max(1, Math.min(options.concurrency + ahead, items));
}
