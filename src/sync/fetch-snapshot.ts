import { metricEndpoint } from '../api/endpoints.js';
import type { QueryParams } from '../api/request.js';
import { QuerySetNotFoundError, ResponseValidationError, StoreFaultError } from '../errors/index.js';
import { childOnUse } from '../log-child.js';
import { ensureSnapshot, maxPayloadAttempts, savePayload } from '../store/payloads.js';
import type { SnapshotState } from '../store/snapshot-state.js';
import { asStoreFault } from '../store/store-fault.js';
import { isStoreUnreachable } from '../store/store-unreachable.js';
import { type AccountContext, errorMessage, stopOnNotAuthorized } from './context.js';
import { retireSet } from './discover.js';
import type { PlannedSnapshot } from './plan.js';

/**
 * Fetching: the planned payloads of one account go through `concurrency` workers that take tasks in
 * plan order (newest snapshot first, endpoints in catalog order), so snapshots complete one after the
 * other and a crash leaves at most the in-flight payloads to fetch again. Every payload is committed
 * with its snapshot's state as soon as it arrives; nothing is held in memory between requests.
 */

/** Asked for explicitly: the sandbox (and perhaps the server) returns only 10 sources by default. */
export const SOURCE_LANDSCAPE_LIMIT = 1000;

export interface FetchProgress {
  /** A payload was stored (or given up on); `state` is its snapshot's state after the commit. */
  onPayload(snapshot: PlannedSnapshot, state: SnapshotState | undefined): void;
}

interface Task {
  snapshot: PlannedSnapshot;
  snapshotId: number;
  endpoint: string;
}

export async function fetchPlanned(
  ctx: AccountContext,
  plan: readonly PlannedSnapshot[],
  progress: FetchProgress,
): Promise<{ yielded: boolean }> {
  const tasks: Task[] = [];
  for (const snapshot of plan) {
    if (snapshot.endpoints.length === 0) continue;
    const ref = { account: ctx.account.name, querySetId: snapshot.querySetId, runId: snapshot.run.id };
    const { id } = await ensureSnapshot(ctx.store, ref, ctx.clock.now());
    for (const endpoint of snapshot.endpoints) tasks.push({ snapshot, snapshotId: id, endpoint });
  }
  let next = 0;
  // The store stopped answering (a PostgreSQL restart): no answer can be committed now, so the
  // requests in flight are dropped and no new one starts; the caller waits for the store and plans
  // again from what it holds (store-outage.ts). Those in flight are all that is fetched twice.
  const round = new AbortController();
  const onAbort = () => round.abort(ctx.signal.reason);
  if (ctx.signal.aborted) onAbort();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  const roundCtx: AccountContext = { ...ctx, signal: round.signal };
  let unreachable: { error: unknown } | undefined;
  const worker = async () => {
    // A yield stops after the payloads in flight: each is committed, the rest is the next holder's.
    while (next < tasks.length && !round.signal.aborted && !ctx.shouldYield?.()) {
      const task = tasks[next++]!;
      if (ctx.goneSets.includes(task.snapshot.querySetId)) continue;
      const state = await fetchOne(roundCtx, task).catch((error: unknown) => {
        if (!isStoreUnreachable(error)) throw error;
        unreachable ??= { error };
        round.abort(error);
        return undefined;
      });
      // A payload dropped for the outage is planned again, not given up on.
      if (state !== undefined || !unreachable) progress.onPayload(task.snapshot, state);
    }
  };
  const workers = Math.max(1, Math.min(ctx.account.concurrency, tasks.length));
  try {
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
  }
  if (unreachable) throw unreachable.error;
  // Given back with payloads left (share-accounts.ts): the next holder fetches them.
  return { yielded: next < tasks.length && !ctx.signal.aborted && ctx.shouldYield?.() === true };
}

/** One payload: fetched, validated and committed. Returns the snapshot state, or undefined if not stored. */
async function fetchOne(ctx: AccountContext, task: Task): Promise<SnapshotState | undefined> {
  const { snapshot } = task;
  const endpoint = metricEndpoint(task.endpoint);
  const path = { querySetId: snapshot.querySetId };
  const log = childOnUse(ctx.log, {
    querySetId: snapshot.querySetId,
    runId: snapshot.run.id,
    endpoint: endpoint.key,
  });
  let data: unknown;
  let validationError: string | null = null;
  try {
    data = await ctx.client.get(endpoint, path, queryFor(endpoint.key, snapshot.run.id), {
      signal: ctx.signal,
    });
    data = await completeSourceLandscape(ctx, task, data);
  } catch (error) {
    if (ctx.signal.aborted || stopOnNotAuthorized(ctx, error)) return undefined;
    // The rate budget keeps its window in the store: it could not grant the request.
    if (isStoreUnreachable(error)) throw error;
    if (error instanceof QuerySetNotFoundError) {
      await retireSet(ctx, snapshot.querySetId, error);
      return undefined;
    }
    if (!(error instanceof ResponseValidationError)) {
      // Transient after retries, -3, or -145 that outlasted its windows: the next pass tries again.
      log.warn({ err: errorMessage(error) }, 'payload request failed');
      ctx.issues.push(issue(ctx, task, 'request_failed', errorMessage(error)));
      return undefined;
    }
    // Stored raw with its error: the report can show what came, the next pass re-fetches it.
    log.warn({ err: error.message }, 'payload failed validation; stored raw');
    ctx.issues.push(issue(ctx, task, 'invalid_payload', `invalid payload: ${error.message}`));
    data = error.payload;
    validationError = error.message;
  }
  try {
    return await savePayload(
      ctx.store,
      task.snapshotId,
      endpoint.key,
      { data, validationError },
      ctx.clock.now(),
      maxPayloadAttempts(ctx.settings.max_payload_retries),
    );
  } catch (error) {
    if (isStoreUnreachable(error)) throw error;
    // A full disk or a damaged file fails every payload after this one too: stop the account.
    const fault = asStoreFault(error, ctx.store.location);
    if (fault instanceof StoreFaultError) {
      ctx.stop(fault);
      throw fault;
    }
    // Anything else is about this payload alone: say which, and let the others be stored.
    log.error({ err: errorMessage(error) }, 'payload could not be stored');
    ctx.issues.push(
      issue(ctx, task, 'request_failed', `payload could not be stored: ${errorMessage(error)}`),
    );
    return undefined;
  }
}

/** `end_run_id` pins the run; no `start_run_id`, so history series keep the server's default span. */
export function queryFor(endpointKey: string, runId: number, limit = SOURCE_LANDSCAPE_LIMIT): QueryParams {
  if (endpointKey === 'scout.source-landscape') {
    return { end_run_id: runId, sort: 'citations', dir: 'desc', limit };
  }
  return { end_run_id: runId };
}

/**
 * If the server has more sources than the limit we sent, ask once more for exactly that many, so the
 * stored landscape holds every source (the report ranks and counts them).
 */
async function completeSourceLandscape(ctx: AccountContext, task: Task, data: unknown): Promise<unknown> {
  if (task.endpoint !== 'scout.source-landscape') return data;
  const body = data as { sourcesDetail?: unknown[]; totalCount?: number };
  const total = body.totalCount ?? 0;
  if (!Array.isArray(body.sourcesDetail) || body.sourcesDetail.length >= total) return data;
  const endpoint = metricEndpoint(task.endpoint);
  const query = queryFor(task.endpoint, task.snapshot.run.id, total);
  return ctx.client.get(endpoint, { querySetId: task.snapshot.querySetId }, query, { signal: ctx.signal });
}

function issue(ctx: AccountContext, task: Task, kind: 'request_failed' | 'invalid_payload', detail: string) {
  const { querySetId, run } = task.snapshot;
  return {
    account: ctx.account.name,
    kind,
    querySetId,
    runId: run.id,
    endpoint: task.endpoint,
    message: `account ${ctx.account.name}: query set ${querySetId}, run ${run.id}: ${detail}`,
  };
}
